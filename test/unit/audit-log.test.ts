import { mkdtempSync, readFileSync, truncateSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AuditLog, type DecisionContext } from "../../src/audit/audit-log.ts";
import type { Decision } from "../../src/policy/decision.ts";
import type { TaintSource } from "../../src/taint/session-store.ts";

const AT = Date.parse("2026-11-22T10:00:00.000Z");
const page: TaintSource = { level: "untrusted", kind: "tool", label: "the result of web_fetch", tool: "web_fetch", callId: "w1", at: AT };

function decision(effect: Decision["effect"], extra: Partial<Decision> = {}): Decision {
  const blocked = effect !== "allow";
  return {
    outcome: effect === "block" ? "block" : "allow",
    effect,
    mode: effect === "would-block" ? "audit" : "enforce",
    tool: "exec",
    requestedTool: "exec",
    capabilities: ["proc:exec"],
    inputTrust: blocked ? "untrusted" : "owner",
    manifested: true,
    rules: blocked ? [{ rule: "tool.min-input-trust", requires: "owner" }] : [],
    trustLimited: blocked,
    ...(blocked ? { cause: page } : {}),
    ...extra,
  };
}

const context = (params: unknown = { command: "ls" }): DecisionContext => ({
  agentId: "main",
  sessionKey: "agent:main:main",
  toolCallId: "c1",
  params,
  taint: [page],
  isSubagent: false,
});

function fresh(recent = 3) {
  const file = join(mkdtempSync(join(tmpdir(), "clawos-audit-")), "audit.jsonl");
  let now = AT;
  const log = new AuditLog({ file, recent, now: () => now++ });
  const lines = () =>
    readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { log, file, lines };
}

describe("audit log", () => {
  it("counts decisions per effect and keeps the rollout report per tool and rule", () => {
    const { log } = fresh();
    log.recordDecision(decision("allow"), context());
    log.recordDecision(decision("block"), context());
    log.recordDecision(decision("block"), context());
    log.recordDecision(decision("would-block"), context());
    expect(log.counts).toMatchObject({ decisions: 4, allow: 1, block: 2, wouldBlock: 1, errors: 0 });
    expect([...log.byToolRule.values()]).toEqual([{ tool: "exec", rule: "tool.min-input-trust", block: 2, wouldBlock: 1 }]);
  });

  it("keeps the last n decisions, oldest first", () => {
    const { log } = fresh(3);
    for (const id of ["a", "b", "c", "d", "e"]) log.recordDecision(decision("allow"), { ...context(), toolCallId: id });
    expect(log.recent(10).map((r) => r.context.toolCallId)).toEqual(["c", "d", "e"]);
    expect(log.recent(2).map((r) => r.context.toolCallId)).toEqual(["d", "e"]);
  });

  it("writes nothing on the call's path; flush writes one JSON line per record, in order, with the documented fields", () => {
    const { log, file, lines } = fresh();
    log.recordDecision(decision("block"), context());
    expect(readFileSync(file, "utf8")).toBe("");
    log.recordTrustChange({ event: "trust.lowered", sessionKey: "agent:main:main", from: "owner", to: "untrusted", source: page });
    log.flush();
    const [d, t] = lines();
    expect(d).toMatchObject({
      v: 1,
      event: "decision",
      tool: "exec",
      decision: "block",
      mode: "enforce",
      inputTrust: "untrusted",
      rules: ["tool.min-input-trust"],
      session: "agent:main:main",
      toolCallId: "c1",
    });
    expect(d.time).toBe("2026-11-22T10:00:00.000Z");
    expect(d.reason).toContain("ClawOS blocked exec");
    expect((d.params as { hash: string }).hash).toMatch(/^[0-9a-f]{16}$/);
    expect(t).toMatchObject({ v: 1, event: "trust.lowered", from: "owner", to: "untrusted", source: { tool: "web_fetch", at: "2026-11-22T10:00:00.000Z" } });
    expect(log.health.written).toBe(2);
  });

  it("writes the batch by itself in the next event-loop turn", async () => {
    const { log, lines } = fresh();
    log.recordDecision(decision("allow"), context());
    await new Promise((r) => setImmediate(r));
    expect(lines()).toHaveLength(1);
  });

  it("never writes a secret from the parameters", () => {
    const { log, file } = fresh();
    log.recordDecision(
      decision("allow"),
      context({ command: "deploy", apiKey: "sk-live-abcdefghijklmnopqrstuvwx", env: { TOKEN: "t0k" }, note: "ghp_abcdefghijklmnopqrstuvwxyz0123456789" }),
    );
    log.flush();
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain("sk-live-abcdefghijklmnopqrstuvwx");
    expect(text).not.toContain("ghp_abcdefghijklmnopqrstuvwxyz0123456789");
    expect(text).not.toContain("t0k");
    expect(text).toContain("deploy");
  });

  it("moves to another file on retarget, and the counters carry on", () => {
    const { log, lines } = fresh();
    log.recordDecision(decision("allow"), context());
    const other = join(mkdtempSync(join(tmpdir(), "clawos-audit-")), "moved.jsonl");
    log.retarget(other);
    log.recordDecision(decision("block"), context());
    log.flush();
    expect(lines()).toHaveLength(1);
    expect(readFileSync(other, "utf8").trim().split("\n")).toHaveLength(1);
    expect(log.counts.decisions).toBe(2);
    expect(log.health.file).toBe(other);
  });

  it("a file it cannot open is counted as write errors, and recording still never throws", () => {
    const log = new AuditLog({ file: "/dev/null/not-a-dir/audit.jsonl", recent: 5 });
    expect(() => log.recordDecision(decision("block"), context())).not.toThrow();
    log.flush();
    expect(log.health.writeErrors).toBeGreaterThanOrEqual(1);
    expect(log.counts.block).toBe(1);
  });
});

describe("audit log integrity (seal)", () => {
  async function sealedLog() {
    const file = join(mkdtempSync(join(tmpdir(), "clawos-audit-")), "audit.jsonl");
    const log = new AuditLog({ file, recent: 3, now: () => AT });
    await log.integrityChecked();
    log.recordDecision(decision("block"), context());
    log.recordDecision(decision("allow"), context());
    log.close();
    return file;
  }

  it("a log that only grew checks out against its seal at the next start", async () => {
    const file = await sealedLog();
    expect(JSON.parse(readFileSync(`${file}.seal`, "utf8"))).toMatchObject({ v: 1, size: readFileSync(file).length });
    const log = new AuditLog({ file, recent: 3 });
    await log.integrityChecked();
    expect(log.health.integrity?.state).toBe("ok");
    log.close();
  });

  it("a truncated log is reported at the next start", async () => {
    const file = await sealedLog();
    truncateSync(file, 10);
    const log = new AuditLog({ file, recent: 3 });
    await log.integrityChecked();
    expect(log.health.integrity).toMatchObject({ state: "truncated" });
    expect(log.health.integrity?.detail).toContain("when it was sealed");
    log.close();
  });

  it("a rewritten log of the same size is reported at the next start", async () => {
    const file = await sealedLog();
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.replace('"block"', '"allow"'));
    const log = new AuditLog({ file, recent: 3 });
    await log.integrityChecked();
    expect(log.health.integrity?.state).toBe("rewritten");
    log.close();
  });

  it("a log truncated or replaced while the gateway runs is reported by the live check", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "clawos-audit-")), "audit.jsonl");
    const log = new AuditLog({ file, recent: 3, now: () => AT });
    await log.integrityChecked();
    log.recordDecision(decision("block"), context());
    log.flush();
    expect(log.checkIntegrity()?.state).not.toMatch(/truncated|replaced/);
    truncateSync(file, 0);
    expect(log.checkIntegrity()?.state).toBe("truncated");
    log.close();
    const other = join(mkdtempSync(join(tmpdir(), "clawos-audit-")), "audit.jsonl");
    const live = new AuditLog({ file: other, recent: 3, now: () => AT });
    await live.integrityChecked();
    unlinkSync(other);
    writeFileSync(other, "");
    expect(live.checkIntegrity()?.state).toBe("replaced");
    live.close();
  });
});
