import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { resolveConfig, defaultConfig } from "../../src/config/config.ts";
import { buildUiHints, configJsonSchema } from "../../src/config/config-schema.ts";
import { pluginJsonText } from "../../scripts/plugin-json.ts";
import { UI_TIERS } from "../../src/config/ui-hints.ts";

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

  it("has a UI hint with a label, help and a tier for every config field the host's settings page shows", () => {
    const hints = buildUiHints();
    // Every path the host derives from the schema: properties, map entries (*), array items ([]).
    const paths: string[] = [];
    const walk = (node: Record<string, unknown>, path: string) => {
      if (path) paths.push(path);
      for (const shape of [node, ...((node.anyOf as Record<string, unknown>[]) ?? []).filter((b) => b.type === "object")]) {
        for (const [key, child] of Object.entries((shape.properties as Record<string, Record<string, unknown>>) ?? {})) {
          const childPath = path ? `${path}.${key}` : key;
          if (!paths.includes(childPath)) walk(child, childPath);
        }
        for (const child of Object.values((shape.patternProperties as Record<string, Record<string, unknown>>) ?? {})) walk(child, `${path}.*`);
        if (shape.items) walk(shape.items as Record<string, unknown>, `${path}[]`);
      }
    };
    walk(configJsonSchema(), "");
    expect(paths.length).toBeGreaterThan(100);
    for (const path of paths) {
      const hint = hints[path];
      expect(hint?.label, path).toBeTruthy();
      expect(hint?.help, path).toBeTruthy();
      expect(typeof hint?.advanced, path).toBe("boolean");
    }
    expect(Object.keys(hints).sort()).toEqual([...new Set(paths)].sort());
  });

  it("classifies every top-level field as common or advanced, and the newcomer's fields as common", () => {
    const top = Object.keys((configJsonSchema() as { properties: object }).properties);
    expect(top.filter((key) => !Object.hasOwn(UI_TIERS, key))).toEqual([]);
    const hints = buildUiHints();
    for (const path of ["capabilities.mode", "capabilities.overrides", "capabilities.deny", "trustedSenders[].senderId", "manifestDirs", "commands.rules"]) {
      expect(hints[path]?.advanced, path).toBe(false);
    }
    for (const path of ["layers.tagging", "capabilities.custom.*.minInputTrust", "manifests[].tool", "provenance.enabled", "state.dir", "audit.file"]) {
      expect(hints[path]?.advanced, path).toBe(true);
    }
    // No field holds a secret today; a sensitive one is listed in UI_SENSITIVE.
    expect(Object.entries(hints).filter(([, hint]) => hint.sensitive)).toEqual([]);
  });
});
