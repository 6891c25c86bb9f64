import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildRegistry } from "../../src/host/runtime.ts";
import { devHostDir } from "../../tools/harness/dev-host.ts";
import { makeConfig } from "../helpers/engine.ts";

/**
 * Manifests follow the host: every tool the installed OpenClaw can expose (its core tool
 * descriptors and every tool a bundled plugin declares in `contracts.tools`, enabled by default or
 * not) has a built-in manifest. A host upgrade that adds a tool fails here, not in production.
 */

const hostDir = `${devHostDir()}/`;
const dist = join(hostDir, "dist");

function coreTools(): string[] {
  const file = readdirSync(dist).find((f) => /^core-tool-factory-descriptors-.*\.m?js$/.test(f));
  if (!file) throw new Error("the installed OpenClaw has no core tool descriptors file: the catalog moved, update this test");
  const names = [...readFileSync(join(dist, file), "utf8").matchAll(/\bname: "([a-z0-9_.-]+)"/g)].map((m) => m[1]);
  return [...new Set(names)];
}

function bundledPluginTools(): Map<string, string> {
  const tools = new Map<string, string>();
  const extensions = join(dist, "extensions");
  for (const plugin of readdirSync(extensions)) {
    const manifestFile = join(extensions, plugin, "openclaw.plugin.json");
    if (!existsSync(manifestFile)) continue;
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as { contracts?: { tools?: string[] } };
    for (const tool of manifest.contracts?.tools ?? []) tools.set(tool, plugin);
  }
  return tools;
}

describe("manifests follow the installed host's catalog", () => {
  const registry = buildRegistry(makeConfig({}), process.cwd());

  it("finds the host's catalog (core descriptors and bundled plugins)", () => {
    expect(coreTools().length).toBeGreaterThan(40);
    expect(bundledPluginTools().size).toBeGreaterThan(40);
  });

  it("every core tool has a manifest", () => {
    const missing = coreTools().filter((tool) => !registry.lookup(tool));
    expect(missing).toEqual([]);
  });

  it("every tool of every bundled plugin has a manifest", () => {
    const missing = [...bundledPluginTools()].filter(([tool]) => !registry.lookup(tool)).map(([tool, plugin]) => `${plugin}: ${tool}`);
    expect(missing).toEqual([]);
  });
});
