import { describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadManifestDir, ManifestRegistry, validateManifest } from "../../src/policy/manifests.ts";

const good = {
  tool: "github__create_issue",
  patterns: ["github__*"],
  capabilities: ["net:publish"],
  riskLevel: "high",
  minInputTrust: "owner",
  outputTrust: "untrusted",
  description: "GitHub",
};

describe("manifest validation", () => {
  it("names the file, the field, the bad value and the fix", () => {
    const result = validateManifest({ ...good, riskLevel: "extreme", minInputTrust: "admin", capabilities: ["exec"], extra: 1 }, "ops/github.json");
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.broken.tool).toBe("github__create_issue");
    expect(result.broken.errors).toEqual([
      "manifest ops/github.json: extra is not a known field. Fix: remove it (known fields here: $schema, tool, aliases, patterns, capabilities, riskLevel, minInputTrust, outputTrust, description, arguments, modes, environment, provenance, pathChanges, meta).",
      'manifest ops/github.json: capabilities[0] is "exec", which does not match ^[a-z][a-z0-9_-]*:[a-z][a-z0-9_-]*$. Fix: write a capability name like proc:exec or message:send.',
      'manifest ops/github.json: riskLevel must be one of "low", "medium", "high", "critical", got "extreme". Fix: use one of those values.',
      'manifest ops/github.json: minInputTrust must be one of "untrusted", "community", "verified", "owner", got "admin". Fix: use one of those values.',
    ]);
  });

  it("reports files that are not JSON, names their tool from the file name, and never skips them silently", () => {
    const dir = mkdtempSync(join(tmpdir(), "clawos-manifests-"));
    writeFileSync(join(dir, "github__create_issue.json"), JSON.stringify(good));
    writeFileSync(join(dir, "jira__create.json"), "{ not json");
    const load = loadManifestDir(dir);
    expect(load.entries.map((e) => e.manifest.tool)).toEqual(["github__create_issue"]);
    expect(load.broken).toHaveLength(1);
    expect(load.broken[0].tool).toBe("jira__create");
    expect(load.broken[0].errors[0]).toMatch(/jira__create\.json is not valid JSON: .*Fix: correct the file\./);
  });

  it("looks tools up by name, alias and pattern; later manifests replace earlier ones", () => {
    const builtin = validateManifest({ ...good, tool: "exec", aliases: ["bash"], patterns: undefined, capabilities: ["proc:exec"] }, "builtin");
    const operator = validateManifest(
      { ...good, tool: "exec", aliases: ["bash"], patterns: undefined, capabilities: ["proc:exec"], outputTrust: "owner" },
      "operator",
    );
    const mcp = validateManifest(good, "mcp");
    if (!builtin.ok || !operator.ok || !mcp.ok) throw new Error("fixture manifests are invalid");
    const registry = new ManifestRegistry([
      { entries: [builtin.entry], broken: [] },
      { entries: [operator.entry, mcp.entry], broken: [] },
    ]);
    expect(registry.lookup("bash")?.source).toBe("operator");
    expect(registry.canonicalName("bash")).toBe("exec");
    expect(registry.lookup("github__list_repos")?.source).toBe("mcp");
    expect(registry.lookup("gitlab__x")).toBeUndefined();
    expect(validateManifest({ ...good, capabilities: ["quantum:entangle"] }, "x").ok && true).toBe(true);
  });
});
