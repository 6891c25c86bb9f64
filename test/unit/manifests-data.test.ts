import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { describe, expect, it } from "vitest";
import { CAPABILITIES, capabilityFloor, isKnownCapability } from "../../src/policy/capabilities.ts";
import { ManifestSchema, type Manifest } from "../../src/policy/manifest-schema.ts";
import { trustRank, type TrustLevel } from "../../src/taint/trust.ts";
import { devHostDir } from "../../tools/harness/dev-host.ts";

// Data tests for the built-in manifests shipped in `manifests/`: every file must satisfy the
// schema, name only known capabilities, and cover every tool of the OpenClaw 2026.9.6 catalog.

const manifestsDir = fileURLToPath(new URL("../../manifests/", import.meta.url));
const validator = TypeCompiler.Compile(ManifestSchema);

interface LoadedManifest {
  readonly file: string;
  readonly raw: unknown;
}

function loadAll(): LoadedManifest[] {
  return readdirSync(manifestsDir)
    .filter((file) => file.endsWith(".json"))
    .sort()
    .map((file) => ({ file, raw: JSON.parse(readFileSync(join(manifestsDir, file), "utf8")) as unknown }));
}

const loaded = loadAll();
const manifests = loaded.filter((entry) => validator.Check(entry.raw)).map((entry) => entry.raw as Manifest);
const byTool = new Map(manifests.map((manifest) => [manifest.tool, manifest]));

/** Resolves a tool name or alias to its manifest. */
function lookup(name: string): Manifest | undefined {
  return byTool.get(name) ?? manifests.find((manifest) => manifest.aliases?.includes(name));
}

function get(name: string): Manifest {
  const manifest = lookup(name);
  if (!manifest) throw new Error(`no manifest for ${name}`);
  return manifest;
}

/** The 2026.9.6 built-in catalog, by section, as the host documents it. */
const CATALOG: Readonly<Record<string, readonly string[]>> = {
  fs: ["ls", "read", "write", "edit", "apply_patch"],
  runtime: ["exec", "process", "code_execution", "secrets"],
  web: ["web_search", "x_search", "web_fetch"],
  memory: ["memory_search", "memory_get"],
  sessions: [
    "sessions",
    "sessions_list",
    "sessions_history",
    "sessions_search",
    "sessions_send",
    "sessions_spawn",
    "sessions_yield",
    "subagents",
    "agents_wait",
    "conversations_list",
    "conversations_send",
    "conversations_turn",
    "session_status",
    "suggest_task",
    "dismiss_task",
    "github_identity_status",
    "github_publish",
  ],
  ui: ["browser", "screen", "theme", "dashboard", "terminal", "portal", "canvas", "show_widget"],
  messaging: ["message", "automations", "heartbeat_respond", "gateway", "plugins", "openclaw"],
  devices: ["nodes", "computer", "mobile_ui"],
  agents: ["agents_list", "get_goal", "create_goal", "update_goal", "progress_card", "ask_user", "skill_workshop"],
  media: ["view_image", "image_generate", "music_generate", "video_generate", "tts", "pdf"],
  meta: ["tool_search", "tool_describe", "tool_call", "tool_search_code", "wait"],
};
const CATALOG_TOOLS = Object.values(CATALOG).flat();
// Code Mode's outer `exec` (toolKind code_mode_exec) is a meta call too; ClawOS names it code_mode_exec.
const META_TOOLS = [...CATALOG.meta, "code_mode_exec"];

describe("manifests/*.json", () => {
  it("has manifest files", () => {
    expect(loaded.length).toBeGreaterThanOrEqual(CATALOG_TOOLS.length);
  });

  it.each(loaded.map((entry) => [entry.file, entry] as const))("%s satisfies ManifestSchema", (_file, entry) => {
    const errors = [...validator.Errors(entry.raw)].map((error) => `${error.path || "/"}: ${error.message}`);
    expect(errors).toEqual([]);
  });

  it("names every file <tool>.json", () => {
    const mismatched = loaded.filter((entry) => validator.Check(entry.raw) && entry.file !== `${(entry.raw as Manifest).tool}.json`).map((entry) => entry.file);
    expect(mismatched).toEqual([]);
  });

  it("uses only capabilities from the capability table", () => {
    const unknown = manifests.flatMap((manifest) =>
      manifest.capabilities.filter((capability) => !isKnownCapability(capability)).map((c) => `${manifest.tool}: ${c}`),
    );
    expect(unknown).toEqual([]);
  });

  it("lists no capability twice in one manifest", () => {
    const duplicated = manifests.filter((manifest) => new Set(manifest.capabilities).size !== manifest.capabilities.length);
    expect(duplicated.map((manifest) => manifest.tool)).toEqual([]);
  });

  it("lets no two manifests claim the same name or alias", () => {
    const owners = new Map<string, string[]>();
    for (const manifest of manifests) {
      for (const name of [manifest.tool, ...(manifest.aliases ?? [])]) {
        owners.set(name, [...(owners.get(name) ?? []), manifest.tool]);
      }
    }
    const clashes = [...owners].filter(([, claimedBy]) => claimedBy.length > 1).map(([name, by]) => `${name}: ${by.join(", ")}`);
    expect(clashes).toEqual([]);
  });

  it("sets minInputTrust at least as strict as every capability's floor", () => {
    const tooLenient = manifests.flatMap((manifest) =>
      manifest.capabilities
        .filter((capability) => trustRank(capabilityFloor(capability)) > trustRank(manifest.minInputTrust))
        .map((capability) => `${manifest.tool}: ${capability} needs ${capabilityFloor(capability)}, got ${manifest.minInputTrust}`),
    );
    expect(tooLenient).toEqual([]);
  });

  // outputTrust owner means "adds nothing below owner": only tools whose result merely confirms the
  // session's own request (no content from anyone else) may say so.
  it("returns owner-level output only from confirmation-only tools", () => {
    expect(
      manifests
        .filter((manifest) => manifest.outputTrust === "owner")
        .map((manifest) => manifest.tool)
        .sort(),
    ).toEqual([
      "apply_patch",
      "create_goal",
      "dismiss_task",
      "progress_card",
      "sessions_spawn",
      "show_widget",
      "structured_output",
      "theme",
      "update_goal",
      "write",
    ]);
  });

  it("writes one-sentence descriptions without addresses or machine paths", () => {
    const bad = manifests
      .filter(
        (manifest) =>
          /[\r\n]/.test(manifest.description) ||
          !manifest.description.endsWith(".") ||
          /:\/\//.test(manifest.description) ||
          /(^|\s)(\/|~\/)[\w.-]+\//.test(manifest.description),
      )
      .map((manifest) => manifest.tool);
    expect(bad).toEqual([]);
  });
});

describe("catalog coverage", () => {
  it.each(CATALOG_TOOLS)("%s has a manifest", (tool) => {
    expect(byTool.get(tool)?.tool).toBe(tool);
  });

  // The installed host package is the source of truth: if a newer catalog adds a tool or an alias,
  // this fails until a manifest covers it.

  it("covers every tool id in the installed host's tool catalog", () => {
    const source = readHostModule(hostDist(), /^tool-catalog-.*\.mjs$/);
    const block = source.slice(source.indexOf("const CORE_TOOL_DEFINITIONS = ["), source.indexOf("const CORE_TOOL_BY_ID"));
    const ids = [...block.matchAll(/\bid: "([a-z0-9_.-]+)"/g)].map((match) => match[1]);
    if (/\bid: AUTOMATIONS_TOOL_NAME\b/.test(block)) ids.push("automations");
    expect(ids.length).toBeGreaterThan(50);
    expect(ids.filter((id) => !byTool.has(id))).toEqual([]);
    expect(ids.filter((id) => !CATALOG_TOOLS.includes(id))).toEqual([]);
  });

  it("lists every host tool-name alias on the manifest of its canonical tool", () => {
    const source = readHostModule(hostDist(), /^tool-policy-shared-.*\.mjs$/);
    const aliases = [...source.matchAll(/\["([a-z0-9_.-]+)", "([a-z0-9_.-]+)"\]/g)].map((match) => [match[1], match[2]]);
    expect(aliases.length).toBeGreaterThan(0);
    for (const [alias, canonical] of aliases) {
      expect(byTool.get(canonical)?.aliases ?? [], `${alias} -> ${canonical}`).toContain(alias);
    }
  });
});

describe("specific classifications", () => {
  const hasCapability = (tool: string, capability: string) => expect(get(tool).capabilities).toContain(capability);

  it("exec needs owner input and proc:exec, with the bash alias", () => {
    const exec = get("exec");
    expect(exec.minInputTrust).toBe("owner");
    expect(exec.capabilities).toContain("proc:exec");
    expect(exec.aliases).toContain("bash");
    expect(lookup("bash")?.tool).toBe("exec");
  });

  it.each(["web_fetch", "browser", "web_search", "x_search"])("%s output is untrusted", (tool) => {
    expect(get(tool).outputTrust).toBe("untrusted");
  });

  it.each(["message", "sessions_send", "conversations_send"])("%s carries message:send", (tool) => {
    hasCapability(tool, "message:send");
  });

  it.each(["gateway", "plugins", "openclaw"])("%s carries system:admin", (tool) => {
    hasCapability(tool, "system:admin");
    expect(get(tool).minInputTrust).toBe("owner");
  });

  it("automations carries schedule:write and answers to cron", () => {
    hasCapability("automations", "schedule:write");
    expect(get("automations").aliases).toContain("cron");
    expect(lookup("cron")?.tool).toBe("automations");
  });

  it("terminal is a shell", () => {
    hasCapability("terminal", "proc:exec");
    expect(get("terminal").minInputTrust).toBe("owner");
  });

  it("secrets carries secrets:read", () => {
    hasCapability("secrets", "secrets:read");
  });

  it.each(["sessions_spawn", "subagents"])("%s carries session:spawn", (tool) => {
    hasCapability(tool, "session:spawn");
  });

  it("github_publish carries net:publish", () => {
    hasCapability("github_publish", "net:publish");
  });

  it.each(["read", "ls"])("%s reads files and returns untrusted output", (tool) => {
    hasCapability(tool, "fs:read");
    expect(get(tool).outputTrust).toBe("untrusted");
  });

  it.each(["write", "edit", "apply_patch"])("%s carries fs:write", (tool) => {
    hasCapability(tool, "fs:write");
  });

  it.each(["nodes", "computer", "mobile_ui", "screen"])("%s carries device:control", (tool) => {
    hasCapability(tool, "device:control");
  });

  it("keeps the host's aliases for apply_patch and view_image", () => {
    expect(get("apply_patch").aliases).toContain("apply-patch");
    expect(get("view_image").aliases).toContain("image");
  });

  it("flags exactly the meta tools, with no capabilities and untrusted input", () => {
    expect(
      manifests
        .filter((manifest) => manifest.meta === true)
        .map((manifest) => manifest.tool)
        .sort(),
    ).toEqual([...META_TOOLS].sort());
    for (const tool of META_TOOLS) {
      const manifest = get(tool);
      expect(manifest.capabilities, tool).toEqual([]);
      expect(manifest.minInputTrust, tool).toBe("untrusted");
      expect(manifest.riskLevel, tool).toBe("low");
      expect(manifest.description, tool).toMatch(/real tool|checked on its own/);
    }
  });

  it("returns catalog data as verified and inner-tool results as untrusted for meta tools", () => {
    const expected: Record<string, TrustLevel> = {
      tool_search: "verified",
      tool_describe: "verified",
      tool_call: "untrusted",
      tool_search_code: "untrusted",
      // Code Mode's wait returns the resumed exec cell's result, i.e. the inner tools' output.
      wait: "untrusted",
    };
    for (const [tool, trust] of Object.entries(expected)) expect(get(tool).outputTrust, tool).toBe(trust);
  });

  it("gives tools that run commands or administer the gateway owner-level input", () => {
    const ownerCapabilities = Object.entries(CAPABILITIES)
      .filter(([, info]) => info.floor === "owner")
      .map(([name]) => name);
    for (const manifest of manifests) {
      if (manifest.capabilities.some((capability) => ownerCapabilities.includes(capability))) {
        expect(manifest.minInputTrust, manifest.tool).toBe("owner");
      }
    }
  });
});

function hostDist(): string {
  // The package's exports do not expose dist/, so the development host is read from disk.
  return join(devHostDir(), "dist");
}

function readHostModule(dist: string, pattern: RegExp): string {
  const file = readdirSync(dist).find((name) => pattern.test(name));
  if (!file) throw new Error(`no ${pattern} in the host's dist`);
  return readFileSync(join(dist, file), "utf8");
}
