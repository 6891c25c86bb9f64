import { describe, expect, it } from "vitest";
import { CompiledPolicy } from "../../src/policy/compiled-policy.ts";
import { internalErrorDecision, type Decision } from "../../src/policy/decision.ts";
import { ManifestRegistry, validateManifest, type ManifestEntry } from "../../src/policy/manifests.ts";
import { blockReason } from "../../src/report/reason.ts";
import type { TrustLevel } from "../../src/taint/trust.ts";
import { makeConfig, testHost } from "../helpers/engine.ts";

function entry(manifest: Record<string, unknown>): ManifestEntry {
  const result = validateManifest({ riskLevel: "high", outputTrust: "untrusted", description: "test", ...manifest }, "test");
  if (!result.ok) throw new Error(result.broken.errors.join("; "));
  return result.entry;
}

const HOST = testHost();
const exec = entry({ tool: "exec", aliases: ["bash"], capabilities: ["proc:exec"], minInputTrust: "owner" });
const message = entry({ tool: "message", capabilities: ["message:send"], minInputTrust: "verified" });
const read = entry({ tool: "read", capabilities: ["fs:read"], minInputTrust: "untrusted" });
const weird = entry({ tool: "weird", capabilities: ["quantum:entangle"], minInputTrust: "untrusted" });

interface CallShape {
  tool: string;
  registry: ManifestRegistry;
  trust: TrustLevel;
  config: unknown;
  isSubagent: boolean;
  agentId: string;
}

function input(
  tool: string,
  manifest: ManifestEntry | undefined,
  trust: TrustLevel,
  config: unknown = { capabilities: { mode: "enforce" } },
  extra: Partial<CallShape> = {},
): CallShape {
  return {
    tool,
    registry: new ManifestRegistry([{ entries: manifest ? [manifest] : [], broken: [] }]),
    trust,
    config,
    isSubagent: false,
    agentId: "main",
    ...extra,
  };
}

/** The compiled policy's decision for one call, with the reason a person reads. */
function decide(c: CallShape): Decision & { reason?: string } {
  const policy = new CompiledPolicy(makeConfig(c.config), c.registry, HOST);
  const tool = policy.resolve(c.tool, {});
  const taint =
    c.trust === "owner"
      ? []
      : [{ level: c.trust, kind: "tool" as const, label: "the result of web_fetch", tool: "web_fetch", callId: "c1", at: Date.parse("2026-11-22T10:00:00Z") }];
  const d = policy.decide(tool, policy.modeFor(tool), c.trust, c.isSubagent, c.agentId, taint);
  return { ...d, reason: blockReason(d) };
}

describe("decide", () => {
  it("allows a manifested tool whose requirements are met", () => {
    const d = decide(input("exec", exec, "owner"));
    expect(d).toMatchObject({ outcome: "allow", effect: "allow", mode: "enforce", tool: "exec", rules: [], manifested: true });
  });

  it("blocks below minInputTrust and the capability floor, naming tool, requirement, cause and fix", () => {
    const d = decide(input("exec", exec, "untrusted"));
    expect(d.outcome).toBe("block");
    expect(d.rules.map((r) => r.rule)).toEqual(["tool.min-input-trust", "capability.floor"]);
    expect(d.reason).toContain("ClawOS blocked exec");
    expect(d.reason).toContain("exec needs input trust owner");
    expect(d.reason).toContain("capability proc:exec needs input trust owner");
    expect(d.reason).toContain("since the result of web_fetch (untrusted, call c1, 2026-11-22T10:00:00.000Z)");
    expect(d.reason).toContain("/clawos trust reset");
    expect(d.reason).toContain('plugins.entries.clawos.config.capabilities.overrides.exec to "audit"');
  });

  it("audit mode allows and records a would-block with the same rules", () => {
    const enforce = decide(input("exec", exec, "community"));
    const audit = decide(input("exec", exec, "community", { capabilities: { mode: "audit" } }));
    expect(audit).toMatchObject({ outcome: "allow", effect: "would-block", mode: "audit" });
    expect(audit.rules).toEqual(enforce.rules);
    expect(audit.reason).toBe(enforce.reason);
  });

  it("off mode skips the checks", () => {
    expect(decide(input("exec", exec, "untrusted", { capabilities: { mode: "off" } }))).toMatchObject({ effect: "allow", mode: "off", rules: [] });
    expect(decide(input("exec", exec, "untrusted", { layers: { capabilities: false }, capabilities: { mode: "enforce" } }))).toMatchObject({
      effect: "allow",
      mode: "off",
    });
  });

  it("per-tool overrides win over the global mode, also for aliases resolved by name", () => {
    const cfg = { capabilities: { mode: "enforce", overrides: { exec: "audit", message: "off" } } };
    expect(decide(input("exec", exec, "untrusted", cfg)).effect).toBe("would-block");
    expect(decide(input("message", message, "untrusted", cfg)).effect).toBe("allow");
    expect(decide(input("read", read, "untrusted", { capabilities: { mode: "audit", overrides: { exec: "enforce" } } })).effect).toBe("allow");
    expect(decide(input("exec", exec, "community", { capabilities: { mode: "audit", overrides: { exec: "enforce" } } })).effect).toBe("block");
  });

  it("an unknown capability requires owner", () => {
    expect(decide(input("weird", weird, "owner")).outcome).toBe("allow");
    const d = decide(input("weird", weird, "verified"));
    expect(d.outcome).toBe("block");
    expect(d.rules[0]).toMatchObject({ rule: "capability.unknown", capability: "quantum:entangle", requires: "owner" });
  });

  it("operator denials block at any trust, globally and per agent", () => {
    const global = decide(input("message", message, "owner", { capabilities: { mode: "enforce", deny: ["message:send"] } }));
    expect(global.rules.map((r) => r.rule)).toEqual(["capability.denied"]);
    const perAgent = { capabilities: { mode: "enforce", agents: { support: { deny: ["proc:exec"] } } } };
    expect(decide(input("exec", exec, "owner", perAgent, { agentId: "support" })).rules.map((r) => r.rule)).toEqual(["capability.denied-agent"]);
    expect(decide(input("exec", exec, "owner", perAgent, { agentId: "main" })).outcome).toBe("allow");
  });

  it("sub-agent denied capabilities block whatever the trust", () => {
    const admin = entry({ tool: "gateway", capabilities: ["system:admin"], minInputTrust: "owner" });
    const d = decide(input("gateway", admin, "owner", { capabilities: { mode: "enforce" } }, { isSubagent: true }));
    expect(d.rules.map((r) => r.rule)).toEqual(["subagent.denied-capability"]);
    expect(decide(input("gateway", admin, "owner")).outcome).toBe("allow");
  });

  it("an unmanifested tool runs at owner under defaultAllow, is critical below owner, and is denied without defaultAllow", () => {
    expect(decide(input("note_write", undefined, "owner"))).toMatchObject({ outcome: "allow", manifested: false });
    for (const trust of ["verified", "community", "untrusted"] as const) {
      const below = decide(input("note_write", undefined, trust));
      expect(below.rules).toEqual([{ rule: "tool.unmanifested", requires: "owner" }]);
      expect(below.outcome).toBe("block");
      expect(below.reason).toContain("treated as critical");
      expect(below.reason).toContain("add a manifest for note_write");
    }
    const d = decide(input("note_write", undefined, "owner", { capabilities: { mode: "enforce", defaultAllow: false } }));
    expect(d.rules.map((r) => r.rule)).toEqual(["tool.unmanifested"]);
    expect(d.reason).toContain("defaultAllow");
  });

  it("an invalid tool name (look-alikes, spaces inside, too long) blocks", () => {
    for (const name of ["еxec", "ex ec", `x${"a".repeat(70)}`, ""]) {
      const d = decide(input(name, undefined, "owner"));
      expect(
        d.rules.map((r) => r.rule),
        name,
      ).toEqual(["tool.name-invalid"]);
      expect(d.outcome).toBe("block");
    }
  });

  it("a broken operator manifest blocks its tool", () => {
    const registry = new ManifestRegistry([
      { entries: [exec], broken: [{ tool: "exec", source: "/ops/exec.json", errors: ["riskLevel must be one of ..."] }] },
    ]);
    const d = decide({ ...input("exec", undefined, "owner"), registry });
    expect(d.rules.map((r) => r.rule)).toEqual(["manifest.invalid"]);
    expect(d.reason).toContain("/ops/exec.json");
  });

  it("internal errors fail closed in enforce and open (recorded) in audit", () => {
    expect(internalErrorDecision("exec", "enforce", new Error("boom"))).toMatchObject({ outcome: "block", effect: "block" });
    expect(blockReason(internalErrorDecision("exec", "enforce", new Error("boom")))).toContain("ClawOS internal error");
    expect(internalErrorDecision("exec", "audit", new Error("boom"))).toMatchObject({ outcome: "allow", effect: "would-block" });
  });
});
