import { describe, expect, it } from "vitest";
import { ListedEntries, MAX_LISTED_ENTRIES, MAX_LISTED_LOOKUPS, MAX_SESSION_ENTRIES } from "../../src/taint/listed-entries.ts";

const entry = (name: string, id: string) => ({ key: name, names: [name], values: [id] });

describe("listed entries: what a later message may still name, bounded", () => {
  it("keeps the newest lookups of a session, and forgets the least recent session first", () => {
    const listed = new ListedEntries(2);
    for (let i = 0; i < MAX_LISTED_LOOKUPS + 2; i++) listed.note("a", { tool: "t", callId: `c${i}`, groups: [[entry(`N${i}`, `id${i}`)]] });
    const kept = listed.of("a").map((l) => l.callId);
    expect(kept).toHaveLength(MAX_LISTED_LOOKUPS);
    expect(kept[kept.length - 1]).toBe(`c${MAX_LISTED_LOOKUPS + 1}`);
    expect(kept).not.toContain("c0");
    listed.note("b", { tool: "t", groups: [[entry("B", "b1")]] });
    listed.note("a", { tool: "t", groups: [[entry("A", "a9")]] });
    listed.note("c", { tool: "t", groups: [[entry("C", "c1")]] });
    // "a" was used after "b", so "b" goes.
    expect(listed.of("b")).toEqual([]);
    expect(listed.of("a").length).toBeGreaterThan(0);
    expect(listed.of("c").length).toBe(1);
  });

  it("does not keep a listing too long to hold whole (a name must be unique among all its entries), nor entries that name nothing", () => {
    const listed = new ListedEntries();
    const long = Array.from({ length: MAX_LISTED_ENTRIES + 1 }, (_, i) => entry(`N${i}`, `id${i}`));
    listed.note("s", { tool: "t", groups: [long, [{ key: "", names: [], values: ["x"] }], [{ key: "A", names: ["a"], values: [] }]] });
    expect(listed.of("s")).toEqual([]);
    listed.note("s", { tool: "t", groups: [long, [entry("A", "a1")]] });
    expect(listed.of("s")[0]?.groups).toEqual([[entry("A", "a1")]]);
  });

  it("holds at most MAX_SESSION_ENTRIES entries per session, the oldest lookups going first; a lookup noted again replaces itself", () => {
    const listed = new ListedEntries();
    const group = (tag: string) => Array.from({ length: MAX_LISTED_ENTRIES }, (_, i) => entry(`${tag}${i}`, `${tag}-id${i}`));
    const lookups = Math.floor(MAX_SESSION_ENTRIES / MAX_LISTED_ENTRIES) + 1;
    for (let i = 0; i < lookups; i++) listed.note("s", { tool: "t", callId: `c${i}`, groups: [group(`g${i}`)] });
    const held = listed.of("s");
    expect(held.reduce((n, l) => n + l.groups.reduce((m, g) => m + g.length, 0), 0)).toBeLessThanOrEqual(MAX_SESSION_ENTRIES);
    expect(held.map((l) => l.callId)).not.toContain("c0");
    expect(held[held.length - 1]?.callId).toBe(`c${lookups - 1}`);
    listed.note("s", { tool: "t", callId: `c${lookups - 1}`, groups: [[entry("Again", "again")]] });
    expect(listed.of("s").filter((l) => l.callId === `c${lookups - 1}`)).toHaveLength(1);
    expect(listed.of("s").at(-1)?.groups).toEqual([[entry("Again", "again")]]);
  });
});
