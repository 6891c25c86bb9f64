import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { resolveConfig, defaultConfig } from "../../src/config/config.ts";
import { buildUiHints, configJsonSchema } from "../../src/config/config-schema.ts";
import { pluginJsonText } from "../../scripts/plugin-json.ts";

describe("config", () => {
  it("defaults to audit mode, tagging and capability control on, defaultAllow true", () => {
    const config = defaultConfig();
    expect(config.capabilities.mode).toBe("audit");
    expect(config.layers).toEqual({ tagging: true, capabilities: true });
    expect(config.capabilities.defaultAllow).toBe(true);
    expect(config.unknownRequesterTrust).toBe("community");
    expect(config.subagent.maxTrust).toBe("verified");
    expect(config.subagent.denyCapabilities).toContain("system:admin");
  });

  it("names the field, the bad value and the fix for each error", () => {
    const result = resolveConfig({
      capabilities: { mode: "block", overrides: { exec: "maybe" }, deny: ["exec"] },
      layers: { tagging: "yes" },
      trustedSenders: [{ channel: "telegram" }],
      subagent: { maxTrust: "root" },
      typo: true,
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toContain(
      'plugins.entries.clawos.config: capabilities.mode must be one of "enforce", "audit", "off", got "block". Fix: use one of those values.',
    );
    expect(result.errors).toContain(
      'plugins.entries.clawos.config: capabilities.overrides.exec must be one of "enforce", "audit", "off", got "maybe". Fix: use one of those values.',
    );
    expect(result.errors).toContain(
      'plugins.entries.clawos.config: capabilities.deny[0] is "exec", which does not match ^[a-z][a-z0-9_-]*:[a-z][a-z0-9_-]*$. Fix: write a capability name like proc:exec or message:send.',
    );
    expect(result.errors).toContain("plugins.entries.clawos.config: trustedSenders[0].senderId is required. Fix: add it (the channel's sender id).");
    expect(result.errors).toContain(
      'plugins.entries.clawos.config: subagent.maxTrust must be one of "untrusted", "community", "verified", "owner", got "root". Fix: use one of those values.',
    );
    expect(result.errors.some((e) => e.startsWith("plugins.entries.clawos.config: typo is not a known field. Fix: remove it"))).toBe(true);
    expect(result.errors.some((e) => e.startsWith('plugins.entries.clawos.config: layers.tagging: expected boolean, got "yes".'))).toBe(true);
  });

  it("rejects a non-object config", () => {
    expect(resolveConfig("enforce")).toEqual({ ok: false, errors: ['plugins.entries.clawos.config must be an object, got "enforce".'] });
  });

  it("validates inline manifests with the manifest schema", () => {
    const result = resolveConfig({
      manifests: [{ tool: "x", capabilities: [], riskLevel: "extreme", minInputTrust: "owner", outputTrust: "owner", description: "d" }],
    });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors[0]).toContain("manifests[0].riskLevel must be one of");
  });

  it("openclaw.plugin.json is generated from the TypeBox schema and up to date", () => {
    const file = readFileSync(new URL("../../openclaw.plugin.json", import.meta.url), "utf8");
    expect(file).toBe(pluginJsonText());
    const json = JSON.parse(file);
    expect(json.configSchema).toEqual(configJsonSchema());
    // Fields with a default are not required (old hosts validate the raw config); others still are.
    expect(json.configSchema.required).toBeUndefined();
    expect(json.configSchema.properties.capabilities.required).toBeUndefined();
    expect(json.configSchema.properties.trustedSenders.items.required).toEqual(["channel", "senderId"]);
    expect(json.contracts.trustedToolPolicies).toEqual(["clawos-gate"]);
    expect(json.id).toBe("clawos");
  });

  it("has a UI hint with a label for every config field", () => {
    const hints = buildUiHints();
    for (const path of [
      "layers.tagging",
      "layers.capabilities",
      "capabilities.mode",
      "capabilities.overrides",
      "capabilities.deny",
      "capabilities.defaultAllow",
      "unknownRequesterTrust",
      "trustedSenders",
      "subagent.maxTrust",
      "subagent.denyCapabilities",
      "manifestDirs",
      "manifests",
      "audit.file",
      "state.dir",
      "state.maxSessions",
    ]) {
      expect(hints[path]?.label, path).toBeTruthy();
    }
  });
});
