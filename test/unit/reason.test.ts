import { describe, expect, it } from "vitest";
import { internalErrorDecision, type Decision, type RuleHit } from "../../src/policy/decision.ts";
import { blockReason, causeText, ruleText } from "../../src/report/reason.ts";
import type { TaintSource } from "../../src/taint/session-store.ts";

const AT = Date.parse("2026-11-22T10:00:00.250Z");
const page: TaintSource = { level: "untrusted", kind: "tool", label: "the result of web_fetch", tool: "web_fetch", callId: "c7", at: AT };

function decision(rules: RuleHit[], extra: Partial<Decision> = {}): Decision {
  return {
    outcome: "block",
    effect: "block",
    mode: "enforce",
    tool: "exec",
    requestedTool: "exec",
    capabilities: ["proc:exec"],
    inputTrust: "untrusted",
    manifested: true,
    rules,
    trustLimited: rules.some((r) => r.requires !== undefined),
    ...extra,
  };
}

describe("report/reason: decisions in words", () => {
  it("names each rule with its tool, capability, trust or source", () => {
    const d = decision([]);
    expect(ruleText({ rule: "tool.min-input-trust", requires: "owner" }, d)).toBe("exec needs input trust owner");
    expect(ruleText({ rule: "capability.floor", capability: "proc:exec", requires: "owner" }, d)).toBe("capability proc:exec needs input trust owner");
    expect(ruleText({ rule: "capability.unknown", capability: "quantum:entangle", requires: "owner" }, d)).toContain("quantum:entangle is unknown");
    expect(ruleText({ rule: "capability.denied", capability: "net:publish" }, d)).toContain("capabilities.deny");
    expect(ruleText({ rule: "capability.denied-agent", capability: "proc:exec", agentId: "support" }, d)).toContain("capabilities.agents.support.deny");
    expect(ruleText({ rule: "subagent.denied-capability", capability: "system:admin" }, d)).toContain("subagent.denyCapabilities");
    expect(ruleText({ rule: "tool.unmanifested" }, d)).toContain("defaultAllow is false");
    expect(ruleText({ rule: "manifest.invalid", source: "/ops/exec.json", error: "riskLevel is wrong" }, d)).toBe(
      "the manifest for exec (/ops/exec.json) is invalid: riskLevel is wrong",
    );
    expect(ruleText({ rule: "tool.name-invalid", requires: "owner" }, { ...d, requestedTool: "ex ec" })).toContain('"ex ec" is not a valid OpenClaw tool name');
    expect(ruleText({ rule: "tool.meta-unresolved", requires: "owner" }, { ...d, via: "tool_call", unresolved: "no tool id in its parameters" })).toBe(
      "tool_call names no tool to run (no tool id in its parameters)",
    );
  });

  it("says which input set the session's trust, with its call and time", () => {
    expect(causeText("untrusted", page)).toBe("this session is at untrusted since the result of web_fetch (untrusted, call c7, 2026-11-22T10:00:00.250Z)");
    expect(causeText("community", undefined)).toBe("this session is at community");
  });

  it("a trust-limited block names the cause and offers the protective remedies before switching the check off", () => {
    const text = blockReason(decision([{ rule: "tool.min-input-trust", requires: "owner" }], { cause: page, via: "tool_call" })) as string;
    expect(
      text.startsWith(
        "ClawOS blocked exec (called through tool_call): exec needs input trust owner, but this session is at untrusted since the result of web_fetch",
      ),
    ).toBe(true);
    const reset = text.indexOf("/clawos trust reset");
    const audit = text.indexOf('plugins.entries.clawos.config.capabilities.overrides.exec to "audit"');
    expect(reset).toBeGreaterThan(0);
    expect(audit).toBeGreaterThan(reset);
  });

  it("a denial names the list to edit and no trust cause", () => {
    const text = blockReason(decision([{ rule: "capability.denied", capability: "proc:exec" }], { inputTrust: "owner" })) as string;
    expect(text).toContain("remove the capability from the denial list named above in plugins.entries.clawos.config");
    expect(text).not.toContain("since");
    expect(text).not.toContain("trust reset");
  });

  it("a clean allow has no reason; an internal error says the gate failed closed", () => {
    expect(blockReason(decision([], { outcome: "allow", effect: "allow" }))).toBeUndefined();
    expect(blockReason(internalErrorDecision("exec", "enforce", new Error("boom")))).toBe(
      "ClawOS internal error while checking exec: boom. The call is blocked because ClawOS fails closed in enforce mode; check the gateway log.",
    );
  });

  it("the same decision reads the same every time", () => {
    const d = decision([{ rule: "capability.floor", capability: "proc:exec", requires: "owner" }], { cause: page });
    const first = blockReason(d);
    expect(blockReason(d)).toBe(first);
    expect(blockReason({ ...d })).toEqual(first);
  });
});
