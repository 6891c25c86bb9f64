import { describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveConfig } from "../../src/config/config.ts";
import { configJsonSchema } from "../../src/config/config-schema.ts";
import { CAPABILITY_NAMES, CapabilityTable, closestCapability, editDistance } from "../../src/policy/capabilities.ts";
import { CompiledPolicy } from "../../src/policy/compiled-policy.ts";
import { loadManifestDir, ManifestRegistry, unknownCapabilityWarnings, validateManifest } from "../../src/policy/manifests.ts";
import { handleCommand } from "../../src/host/command.ts";
import { obtainRuntime, resetRuntimeForTests, statusSnapshot } from "../../src/host/runtime.ts";
import { formatManifests, formatStatus } from "../../src/report/status.ts";
import { makeConfig, testHost } from "../helpers/engine.ts";
import { weakenings } from "../../src/config/weakening.ts";

const CRM = { "crm:write": { minInputTrust: "verified", riskLevel: "high" } };
const crmManifest = {
  tool: "crm__update_contact",
  capabilities: ["crm:write"],
  riskLevel: "high",
  minInputTrust: "untrusted",
  outputTrust: "verified",
  description: "update a CRM contact",
};

function configErrors(raw: unknown): string[] {
  const result = resolveConfig(raw);
  return result.ok ? [] : result.errors;
}

describe("closest capability", () => {
  it("measures edit distance and picks the nearest known name", () => {
    expect(editDistance("proc:exex", "proc:exec")).toBe(1);
    expect(editDistance("", "abc")).toBe(3);
    expect(closestCapability("proc:exex", CAPABILITY_NAMES)).toBe("proc:exec");
    expect(closestCapability("porc:exec", CAPABILITY_NAMES)).toBe("proc:exec");
    expect(closestCapability("fs:wirte", CAPABILITY_NAMES)).toBe("fs:write");
    expect(closestCapability("crm:wrte", new CapabilityTable(CRM as never).names())).toBe("crm:write");
  });
});

describe("unknown capabilities in config", () => {
  it("names the field, the value, the closest known one and the known list", () => {
    const errors = configErrors({ capabilities: { deny: ["proc:exex"] } });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('plugins.entries.clawos.config: capabilities.deny[0]: unknown capability "proc:exex" (closest known: "proc:exec")');
    expect(errors[0]).toContain(`Known: ${CAPABILITY_NAMES.join(", ")}.`);
    expect(errors[0]).toContain("define it under capabilities.custom with a minInputTrust and a riskLevel");
  });

  it("checks every denial list: everyone, per agent, sub-agents", () => {
    const errors = configErrors({
      capabilities: { agents: { support: { deny: ["porc:exec"] } } },
      subagent: { denyCapabilities: ["system:admim"] },
    });
    expect(errors.map((e) => e.split(": unknown")[0])).toEqual([
      "plugins.entries.clawos.config: capabilities.agents.support.deny[0]",
      "plugins.entries.clawos.config: subagent.denyCapabilities[0]",
    ]);
    expect(errors[1]).toContain('(closest known: "system:admin")');
  });

  it("keeps an inline manifest with an unknown capability (it fails closed) and reports it when manifests load", () => {
    const inline = { ...crmManifest, modes: [{ name: "bulk", when: { argument: "bulk", present: true }, capabilities: ["crm:delete"] }] };
    expect(configErrors({ capabilities: { custom: CRM }, manifests: [inline] })).toEqual([]);
    resetRuntimeForTests();
    const runtime = obtainRuntime({
      rawConfig: { capabilities: { custom: CRM }, manifests: [inline] },
      stateDir: mkdtempSync(join(tmpdir(), "clawos-capnames-")),
    });
    try {
      expect(runtime.capabilityWarnings).toHaveLength(1);
      expect(runtime.capabilityWarnings[0]).toContain(
        'manifest config manifests[0] (tool crm__update_contact): unknown capability "crm:delete" (closest known: "crm:write")',
      );
    } finally {
      resetRuntimeForTests();
    }
  });

  it("accepts operator capabilities defined in capabilities.custom, and lists them with the known ones", () => {
    expect(configErrors({ capabilities: { custom: CRM, deny: ["crm:write"] }, manifests: [crmManifest] })).toEqual([]);
    const errors = configErrors({ capabilities: { custom: CRM, deny: ["crm:wrte"] } });
    expect(errors[0]).toContain('(closest known: "crm:write")');
    expect(errors[0]).toContain("defined in capabilities.custom: crm:write.");
  });

  it("keeps operator capabilities out of the built-in areas and needs a floor and a risk", () => {
    const inArea = configErrors({ capabilities: { custom: { "fs:sync": { minInputTrust: "verified", riskLevel: "high" } } } });
    expect(inArea[0]).toMatch(/^plugins\.entries\.clawos\.config: capabilities\.custom\.fs:sync is not a name allowed here/);
    const noRisk = configErrors({ capabilities: { custom: { "crm:write": { minInputTrust: "verified" } } } });
    expect(noRisk.join(" ")).toContain("capabilities.custom.crm:write.riskLevel is required");
  });

  it("gives the host's own config check the names of each built-in area (openclaw.plugin.json)", () => {
    const schema = configJsonSchema() as { properties: { capabilities: { properties: { deny: { items: { allOf: unknown[] } } } } } };
    const rules = schema.properties.capabilities.properties.deny.items.allOf;
    expect(rules).toContainEqual({ if: { pattern: "^(?!proc:)" }, else: { enum: ["proc:exec", "proc:manage", "proc:read"] } });
  });
});

describe("unknown capabilities in manifest files", () => {
  function operatorDir(): string {
    const dir = mkdtempSync(join(tmpdir(), "clawos-capnames-"));
    writeFileSync(join(dir, "crm__update_contact.json"), JSON.stringify({ ...crmManifest, capabilities: ["crm:write", "proc:exex"] }));
    return dir;
  }

  it("loads the manifest, and reports each unknown name with the file, the tool and the closest known one", () => {
    const dir = operatorDir();
    const table = new CapabilityTable();
    const load = loadManifestDir(dir, table);
    expect(load.broken).toEqual([]);
    expect(load.entries[0]?.unknownCapabilities).toEqual(["crm:write", "proc:exex"]);
    const warnings = unknownCapabilityWarnings(load.entries, table);
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toContain(
      `manifest ${join(dir, "crm__update_contact.json")} (tool crm__update_contact): unknown capability "proc:exex" (closest known: "proc:exec")`,
    );
    expect(warnings[1]).toContain("Until then a call to crm__update_contact needs owner.");
    // Defined by the operator, crm:write is known; the typo is still reported.
    const withCustom = new CapabilityTable(CRM as never);
    expect(unknownCapabilityWarnings(loadManifestDir(dir, withCustom).entries, withCustom)).toHaveLength(1);
  });

  it("shows them in /clawos, in /clawos manifests (all and per tool), and in the host's log once", () => {
    resetRuntimeForTests();
    const stateDir = mkdtempSync(join(tmpdir(), "clawos-capnames-state-"));
    const runtime = obtainRuntime({ rawConfig: { capabilities: { custom: CRM }, manifestDirs: [operatorDir()] }, stateDir });
    try {
      expect(runtime.configErrors).toEqual([]);
      expect(runtime.capabilityWarnings).toHaveLength(1);
      const status = formatStatus(statusSnapshot(runtime));
      expect(status).toContain("unknown capabilities: 1 (below)");
      expect(status).toContain("Operator capabilities: crm:write (needs verified, risk high)");
      expect(status).toMatch(/WARNING manifest .*crm__update_contact\.json \(tool crm__update_contact\): unknown capability "proc:exex"/);
      const all = handleCommand(runtime, { args: "manifests" } as never).text;
      expect(all).toContain("crm__update_contact: crm:write, proc:exex | untrusted -> verified | high | UNKNOWN: proc:exex");
      expect(all).toContain("Unknown capabilities (a call carrying one needs owner):");
      expect(handleCommand(runtime, { args: "manifests crm__update_contact" } as never).text).toContain('unknown capability "proc:exex"');
      expect(formatManifests(runtime.engine.manifestList().entries, "exec", runtime.capabilityWarnings)).not.toContain("Unknown capabilities");
    } finally {
      resetRuntimeForTests();
    }
  });
});

describe("operator capabilities in decisions", () => {
  const HOST = testHost();
  function decideAt(custom: unknown, trust: "owner" | "verified" | "community") {
    const result = validateManifest(crmManifest, "ops", new CapabilityTable(custom as never));
    if (!result.ok) throw new Error(result.broken.errors.join("; "));
    const policy = new CompiledPolicy(
      makeConfig({ capabilities: { mode: "enforce", custom } }),
      new ManifestRegistry([{ entries: [result.entry], broken: [] }]),
      HOST,
    );
    const tool = policy.resolve("crm__update_contact", {});
    return policy.decide(tool, policy.modeFor(tool), trust, false, "main", []);
  }

  it("decides a custom capability at its trust floor", () => {
    expect(decideAt(CRM, "verified").effect).toBe("allow");
    const below = decideAt(CRM, "community");
    expect(below.effect).toBe("block");
    expect(below.rules).toContainEqual(expect.objectContaining({ rule: "capability.floor", capability: "crm:write", requires: "verified" }));
  });

  it("without a definition the same capability is unknown and needs owner (fail closed)", () => {
    const below = decideAt({}, "verified");
    expect(below.effect).toBe("block");
    expect(below.rules).toContainEqual(expect.objectContaining({ rule: "capability.unknown", capability: "crm:write", requires: "owner" }));
    expect(decideAt({}, "owner").effect).toBe("allow");
  });
});

describe("operator capabilities on reload", () => {
  it("defining one, or lowering its floor, is a weakening", () => {
    const before = makeConfig({});
    const defined = makeConfig({ capabilities: { custom: CRM } });
    expect(weakenings(before, defined)).toEqual(["capabilities.custom.crm:write: needs owner → verified"]);
    expect(weakenings(defined, makeConfig({ capabilities: { custom: { "crm:write": { minInputTrust: "owner", riskLevel: "high" } } } }))).toEqual([]);
  });
});
