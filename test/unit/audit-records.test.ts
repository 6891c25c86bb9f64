// The audit log read back by the operator CLI: the lines audit-log.ts writes, parsed; the log streamed
// with --since; cut-off and foreign lines counted, never fatal.
import { appendFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AuditLog, decisionLine } from "../../src/audit/audit-log.ts";
import { parseAuditLine, parseSince, readAuditLog, type AuditRecord } from "../../src/cli/audit-records.ts";
import type { Decision } from "../../src/policy/decision.ts";
import type { TaintSource } from "../../src/taint/session-store.ts";

const AT = Date.parse("2026-11-22T10:00:00.000Z");
const page: TaintSource = { level: "untrusted", kind: "tool", label: "the result of web_fetch", tool: "web_fetch", callId: "w1", at: AT };
const blocked: Decision = {
  outcome: "block",
  effect: "block",
  mode: "enforce",
  tool: "exec",
  requestedTool: "bash",
  capabilities: ["proc:exec"],
  inputTrust: "untrusted",
  manifested: true,
  rules: [{ rule: "tool.min-input-trust", requires: "owner" }],
  trustLimited: true,
  cause: page,
};
const context = { agentId: "main", sessionKey: "agent:main:main", toolCallId: "c1", params: { command: "ls" }, taint: [page], isSubagent: false };

describe("audit records", () => {
  it("parses the decision line the audit log writes", () => {
    const line = JSON.stringify({ v: 1, ...decisionLine({ at: AT, decision: blocked, context }), event: "decision" });
    expect(parseAuditLine(line)).toEqual({
      event: "decision",
      at: AT,
      agent: "main",
      session: "agent:main:main",
      subagent: false,
      toolCallId: "c1",
      tool: "exec",
      requestedTool: "bash",
      via: undefined,
      capabilities: ["proc:exec"],
      inputTrust: "untrusted",
      taint: [{ level: "untrusted", kind: "tool", label: "the result of web_fetch", tool: "web_fetch", callId: "w1", at: AT }],
      decision: "block",
      mode: "enforce",
      manifested: true,
      rules: ["tool.min-input-trust"],
      reason: expect.stringContaining("ClawOS blocked exec"),
    });
  });

  it("reads what a real AuditLog wrote: decisions, trust changes and config changes, in order", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "clawos-records-")), "audit.jsonl");
    let now = AT;
    const log = new AuditLog({ file, recent: 5, now: () => now++ });
    log.recordDecision(blocked, context);
    log.recordTrustChange({ event: "trust.lowered", sessionKey: "agent:main:main", from: "owner", to: "untrusted", source: page });
    log.recordConfigChange({ weakened: ["capabilities.mode enforce → audit"], writers: [] });
    log.close();
    const seen: AuditRecord[] = [];
    const summary = await readAuditLog(file, (r) => seen.push(r));
    expect(seen.map((r) => r.event)).toEqual(["decision", "trust.lowered", "config.weakened"]);
    expect(seen[1]).toMatchObject({ session: "agent:main:main", from: "owner", to: "untrusted", source: { label: "the result of web_fetch" } });
    expect(seen[2]).toMatchObject({ weakened: ["capabilities.mode enforce → audit"] });
    expect(summary).toMatchObject({ missing: false, records: 3, unparsable: 0, tornTail: false, firstAt: AT, lastAt: AT + 2 });
    const since: AuditRecord[] = [];
    await readAuditLog(file, (r) => since.push(r), { since: AT + 1 });
    expect(since.map((r) => r.event)).toEqual(["trust.lowered", "config.weakened"]);
  });

  it("counts foreign and cut-off lines, and a missing file is not an error", async () => {
    const dir = mkdtempSync(join(tmpdir(), "clawos-records-"));
    const file = join(dir, "audit.jsonl");
    writeFileSync(
      file,
      `${JSON.stringify({ v: 1, ...decisionLine({ at: AT, decision: blocked, context }), event: "decision" })}\nnot json\n{"event":"other","time":"2026-11-22T10:00:00Z"}\n`,
    );
    appendFileSync(file, '{"v":1,"time":"2026-11-22T10:00:01.000Z","event":"deci');
    const summary = await readAuditLog(file, () => undefined);
    expect(summary).toMatchObject({ records: 1, unparsable: 3, unparsableLines: [2, 3, 4], tornTail: true });
    expect(await readAuditLog(join(dir, "none.jsonl"), () => undefined)).toMatchObject({ missing: true, records: 0 });
    expect(parseAuditLine('{"event":"decision","time":"x","tool":"exec"}')).toBeUndefined();
  });

  it("--since takes durations and dates", () => {
    expect(parseSince("7d", AT)).toBe(AT - 7 * 86_400_000);
    expect(parseSince("36h", AT)).toBe(AT - 36 * 3_600_000);
    expect(parseSince("90m", AT)).toBe(AT - 90 * 60_000);
    expect(parseSince("2w", AT)).toBe(AT - 14 * 86_400_000);
    expect(parseSince("2026-11-01", AT)).toBe(Date.parse("2026-11-01"));
    expect(() => parseSince("last tuesday", AT)).toThrow(/--since "last tuesday"/);
  });
});
