import { describe, expect, it } from "vitest";
import { MAX_SESSIONS_PER_ID, RecentCalls, type CallMemo } from "../../src/taint/recent-calls.ts";

const memo = (label: string): CallMemo => ({ tool: { name: label } as CallMemo["tool"], blocked: false, decision: {} as CallMemo["decision"] });

describe("RecentCalls", () => {
  it("keeps one memo per session for an id that several sessions use", () => {
    const calls = new RecentCalls(100);
    calls.set("agent:main:a", "call_0", memo("a"));
    calls.set("agent:main:b", "call_0", memo("b"));
    calls.set(undefined, "call_0", memo("none"));
    expect(calls.get("agent:main:a", "call_0")?.tool.name).toBe("a");
    expect(calls.get("agent:main:b", "call_0")?.tool.name).toBe("b");
    expect(calls.get(undefined, "call_0")?.tool.name).toBe("none");
    expect(calls.get("agent:main:c", "call_0")).toBeUndefined();
    expect(calls.get("agent:main:a", "call_1")).toBeUndefined();
  });

  it("replaces a session's memo for the same id", () => {
    const calls = new RecentCalls(100);
    calls.set("s", "id", memo("first"));
    calls.set("s", "id", memo("second"));
    expect(calls.get("s", "id")?.tool.name).toBe("second");
  });

  it("keeps at most two generations: the oldest memos go, one read recently stays", () => {
    const calls = new RecentCalls(10); // generations of 5
    for (let i = 0; i < 5; i++) calls.set("s", `c${i}`, memo(`c${i}`));
    for (let i = 5; i < 10; i++) calls.set("s", `c${i}`, memo(`c${i}`));
    // c0..c4 are the old generation now; reading c0 brings it back to the young one.
    expect(calls.get("s", "c0")?.tool.name).toBe("c0");
    for (let i = 10; i < 15; i++) calls.set("s", `c${i}`, memo(`c${i}`));
    expect(calls.get("s", "c1")).toBeUndefined();
    expect(calls.get("s", "c0")?.tool.name).toBe("c0");
    expect(calls.get("s", "c14")?.tool.name).toBe("c14");
  });

  it("counts every session's memo against the bound, not only distinct ids", () => {
    const calls = new RecentCalls(10);
    for (let i = 0; i < 12; i++) calls.set(`s${i}`, "call_0", memo(`s${i}`));
    // Generations of five memos, whatever their ids: s0-s4 aged out when s10 came in.
    expect(calls.get("s0", "call_0")).toBeUndefined();
    expect(calls.get("s4", "call_0")).toBeUndefined();
    expect(calls.get("s5", "call_0")?.tool.name).toBe("s5");
    expect(calls.get("s11", "call_0")?.tool.name).toBe("s11");
  });

  it("keeps a bounded number of sessions per id, dropping the oldest", () => {
    const calls = new RecentCalls(10_000);
    const n = MAX_SESSIONS_PER_ID + 5;
    for (let i = 0; i < n; i++) calls.set(`s${i}`, "call_0", memo(`s${i}`));
    expect(calls.get(`s${n - 1}`, "call_0")?.tool.name).toBe(`s${n - 1}`);
    expect(calls.get(`s${n - MAX_SESSIONS_PER_ID}`, "call_0")?.tool.name).toBe(`s${n - MAX_SESSIONS_PER_ID}`);
    expect(calls.get(`s${n - MAX_SESSIONS_PER_ID - 1}`, "call_0")).toBeUndefined();
    expect(calls.get("s0", "call_0")).toBeUndefined();
  });
});
