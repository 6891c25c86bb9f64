// Learning from approvals: the prompts the owner keeps approving allow-once (same tool and pattern),
// tallied by a real engine and read back from the audit file by the operator CLI, with the standing
// answer that would stop them. Suggestions only: nothing is approved automatically.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { AuditLog } from "../../src/audit/audit-log.ts";
import { parseAuditLine } from "../../src/cli/audit-records.ts";
import { reportCommand } from "../../src/cli/operator-cli.ts";
import { handleCommand } from "../../src/host/command.ts";
import type { Decision } from "../../src/policy/decision.ts";
import { ApprovalTally, approvalSuggestions, formatApprovalSuggestions, NOTHING_AUTOMATIC, offerFields } from "../../src/report/approval-suggestions.ts";
import { call, makeEngine, operatorContext, taintWithPage } from "../helpers/engine.ts";
import { MAIN } from "../helpers/fixtures.ts";

const APPROVE = { capabilities: { mode: "enforce" }, approvals: { default: "approve" } };
type Engine = ReturnType<typeof makeEngine>["engine"];

/** An engine (approvals on) whose main session read a page naming two addresses. */
function tainted() {
  const t = makeEngine(APPROVE);
  taintWithPage(t.engine, MAIN);
  return t;
}

const sendTo = (to: string, extra = {}) => call("message", { params: { action: "send", to, message: "hi" }, ...extra });
const build = (extra = {}) => call("exec", { params: { command: "npm run e2e --silent" }, ...extra });

/** Gates the call (it must ask) and answers it. */
function answer(engine: Engine, c: ReturnType<typeof call>, resolution: string): Decision {
  const d = engine.gate(c);
  expect(d.effect).toBe("approve");
  engine.approvalResolved(c, d, resolution);
  return d;
}

/** The `/clawos audit` text, through the command handler. */
const auditCommand = (engine: Engine) => handleCommand({ engine } as never, { args: "audit" } as never).text;

/** The "Approved again and again" section of a report, up to the end. */
const section = (text: string) => text.slice(text.indexOf("Approved again and again"));

describe("approval suggestions from the engine's tally (/clawos audit)", () => {
  it("the same exec command approved allow-once three times: one suggestion naming the pattern and the count", () => {
    const { engine } = tainted();
    for (let i = 0; i < 3; i++) answer(engine, build(), "allow-once");
    const list = approvalSuggestions(engine.approvalTally());
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ tool: "exec", pattern: 'exec command "npm run e2e --silent"', allowOnce: 3, allowAlways: 0 });
    expect(list[0].suggestions[0]).toBe(
      "answer allow-always next time: it grants exactly this pattern (in that session, for 24 h); any other value still asks",
    );
    // A single local command: the operator's command rule, at the trust the calls had, comes after.
    expect(list[0].suggestions.at(-1)).toContain(
      '{"prefix":"npm run e2e --silent","effect":"allow","trust":"untrusted"} under plugins.entries.clawos.config.commands.rules',
    );

    const text = auditCommand(engine);
    expect(text).toContain("Approved again and again (allow-once, since start), most frequent first:");
    expect(text).toContain('  exec command "npm run e2e --silent": approved once 3x (last 2026-11-22T10:00:00.000Z)');
    expect(text).toContain("    suggestion: answer allow-always next time: it grants exactly this pattern (in that session, for 24 h)");
    expect(text).toContain(NOTHING_AUTOMATIC);
    expect(NOTHING_AUTOMATIC).toContain("Nothing is approved automatically");
    // Still asked: the tally suggests, it never approves.
    expect(engine.gate(build()).effect).toBe("approve");
    expect(engine.listGrants()).toEqual([]);
  });

  it("a pattern approved once yields no suggestion and no section", () => {
    const { engine } = tainted();
    answer(engine, sendTo("boss@evil.example"), "allow-once");
    expect(engine.approvalTally()).toHaveLength(1);
    expect(approvalSuggestions(engine.approvalTally())).toEqual([]);
    expect(auditCommand(engine)).not.toContain("Approved again and again");
  });

  it("denials, timeouts and cancellations are not counted", () => {
    const { engine } = tainted();
    for (const resolution of ["deny", "deny", "timeout", "cancelled"]) answer(engine, sendTo("boss@evil.example"), resolution);
    expect(engine.audit.counts.denied).toBe(4);
    expect(engine.approvalTally()).toEqual([]);
    answer(engine, sendTo("boss@evil.example"), "allow-once");
    expect(engine.approvalTally()).toMatchObject([{ allowOnce: 1, allowAlways: 0 }]);
    expect(approvalSuggestions(engine.approvalTally())).toEqual([]);
  });

  it("a different recipient is a different pattern", () => {
    const { engine } = tainted();
    answer(engine, sendTo("boss@evil.example"), "allow-once");
    answer(engine, sendTo("Boss@Evil.example"), "allow-once");
    answer(engine, sendTo("other@evil.example"), "allow-once");
    const rows = engine.approvalTally();
    expect(rows.map((r) => [r.pattern, r.allowOnce])).toEqual([
      ['message to="boss@evil.example"', 2],
      ['message to="other@evil.example"', 1],
    ]);
    expect(rows[0].patternKey).not.toBe(rows[1].patternKey);
    const list = approvalSuggestions(rows);
    expect(list.map((s) => s.pattern)).toEqual(['message to="boss@evil.example"']);
    // Not a command: no command rule is suggested.
    expect(list[0].suggestions.join("\n")).not.toContain("commands.rules");
  });

  it("most frequent first; allow-always is counted beside; the same pattern in two sessions names the scope setting", () => {
    const { engine } = tainted();
    taintWithPage(engine, "agent:main:other");
    for (let i = 0; i < 2; i++) answer(engine, sendTo("other@evil.example"), "allow-once");
    for (let i = 0; i < 2; i++) answer(engine, sendTo("boss@evil.example"), "allow-once");
    answer(engine, sendTo("boss@evil.example", { sessionKey: "agent:main:other" }), "allow-once");
    answer(engine, sendTo("other@evil.example", { sessionKey: "agent:main:other" }), "allow-always");
    const list = approvalSuggestions(engine.approvalTally());
    expect(list.map((s) => [s.pattern, s.allowOnce, s.allowAlways, s.sessions])).toEqual([
      ['message to="boss@evil.example"', 3, 0, 2],
      ['message to="other@evil.example"', 2, 1, 2],
    ]);
    expect(list[0].suggestions.join("\n")).toContain('approvals.grants.scope: "agent"');
    expect(list[1].suggestions.join("\n")).toContain("allow-always was chosen 1x for it too");
  });

  it("the suggestions never mention audit mode, overrides or turning anything off", () => {
    const { engine } = tainted();
    taintWithPage(engine, "agent:main:other");
    for (const sessionKey of [MAIN, MAIN, "agent:main:other"]) {
      answer(engine, build({ sessionKey }), "allow-once");
      answer(engine, sendTo("boss@evil.example", { sessionKey }), "allow-once");
    }
    answer(engine, build(), "allow-always");
    const list = approvalSuggestions(engine.approvalTally());
    expect(list).toHaveLength(2);
    const words = [...list.flatMap((s) => s.suggestions), ...formatApprovalSuggestions(list)].join("\n");
    expect(words).toContain("suggestion: answer allow-always next time");
    for (const banned of [/\baudit\b/i, /disabl/i, /overrides/i, /\boff\b/i, /enforce/i, /mode/i]) expect(words).not.toMatch(banned);
    expect(section(auditCommand(engine))).not.toMatch(/\baudit\b|disabl|\boff\b/i);
  });
});

describe("approval lines in the audit file", () => {
  it("carry the pattern and its key when allow-always was offered; values are redacted", () => {
    const { engine, auditFile } = tainted();
    answer(engine, sendTo("boss@evil.example"), "allow-once");
    answer(engine, sendTo("boss@evil.example"), "deny");
    engine.flush();
    const lines = readFileSync(auditFile, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.event === "approval");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      resolution: "allow-once",
      tool: "message",
      pattern: 'message to="boss@evil.example"',
      patternKey: "message|to=boss@evil.example",
      grantScope: "session",
      grantExpiresInMs: 86_400_000,
      inputTrust: "untrusted",
    });
    expect(lines[1]).toMatchObject({ resolution: "deny", patternKey: "message|to=boss@evil.example" });

    const secret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    const fields = offerFields({
      tool: "exec",
      values: [{ argument: "command", role: "command", value: `curl -H "Authorization: token ${secret}" https://api.example` }],
      scope: "agent",
    });
    expect(fields.pattern).toContain("[redacted]");
    expect(`${fields.pattern}${fields.patternKey}`).not.toContain(secret);
    expect(fields.patternKey).toMatch(/#[0-9a-f]{12}$/);
    expect(fields).toMatchObject({ grantScope: "agent", grantExpiresInMs: null });
    expect(fields.commandPrefix).toBeUndefined();
    // Long values are shortened in words.
    const long = offerFields({ tool: "message", values: [{ argument: "to", role: "recipient", value: `${"a".repeat(200)}@x.example` }], scope: "session" });
    expect(long.pattern.length).toBeLessThan(90);
  });

  it("the tally is bounded: past its size the pattern answered longest ago is dropped", () => {
    const tally = new ApprovalTally(3);
    const answerFor = (to: string, at: number) => ({
      ...offerFields({ tool: "message", values: [{ argument: "to", role: "recipient", value: to }], scope: "session", expiresInMs: 3_600_000 }),
      at,
      resolution: "allow-once",
      tool: "message",
      rules: ["argument.tainted"],
    });
    tally.add(answerFor("a@x", 1));
    tally.add(answerFor("b@x", 2));
    tally.add(answerFor("c@x", 3));
    tally.add(answerFor("a@x", 4));
    tally.add(answerFor("d@x", 5));
    expect(tally.size).toBe(3);
    expect(tally.list().map((r) => r.patternKey)).toEqual(["message|to=c@x", "message|to=a@x", "message|to=d@x"]);

    // The audit log's own tally holds at most 200 patterns.
    const log = new AuditLog({ recent: 5 });
    for (let i = 0; i < 205; i++) {
      const decision = {
        tool: "message",
        inputTrust: "untrusted",
        rules: [{ rule: "argument.tainted" }],
        offer: { tool: "message", values: [{ argument: "to", role: "recipient", value: `u${i}@x` }], scope: "session" },
      } as unknown as Decision;
      log.recordApproval(decision, "allow-once", { taint: [], isSubagent: false });
    }
    const rows = log.approvalTally();
    expect(rows).toHaveLength(200);
    expect(rows[0].patternKey).toBe("message|to=u5@x");
  });
});

describe("openclaw clawos report: the same suggestions from the audit file", () => {
  it("reads the approval lines back and suggests what the gateway suggests, in --json and in words", async () => {
    const te = tainted();
    const { engine } = te;
    for (let i = 0; i < 3; i++) answer(engine, build(), "allow-once");
    answer(engine, sendTo("boss@evil.example"), "allow-once");
    answer(engine, sendTo("boss@evil.example"), "deny");
    engine.flush();
    const approvalLines = readFileSync(te.auditFile, "utf8")
      .trim()
      .split("\n")
      .filter((l) => l.includes('"event":"approval"'));
    expect(approvalLines).toHaveLength(5);
    expect(approvalLines.map((l) => parseAuditLine(l)?.event)).toEqual(Array(5).fill("approval"));

    const ctx = operatorContext(te, APPROVE);
    const report = JSON.parse((await reportCommand(ctx, { json: true })).text);
    const fromGateway = approvalSuggestions(engine.approvalTally());
    expect(fromGateway).toHaveLength(1);
    expect(report.approvals).toEqual(JSON.parse(JSON.stringify(fromGateway)));
    expect(report.approvals[0]).toMatchObject({ pattern: 'exec command "npm run e2e --silent"', allowOnce: 3 });
    // Approvals are not trust changes.
    expect(report.trustChanges).toBe(engine.audit.counts.trustChanges);

    const text = (await reportCommand(ctx, {})).text;
    expect(text).toContain('  exec command "npm run e2e --silent": approved once 3x');
    expect(text).toContain('{"prefix":"npm run e2e --silent","effect":"allow","trust":"untrusted"}');
    expect(text).toContain(NOTHING_AUTOMATIC);
    expect(text).not.toContain('message to="boss@evil.example": approved once');
  });
});
