import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  compareHostVersions,
  detectHostWiring,
  findOpenClawPackageDir,
  hasLegacyHookPatch,
  LEGACY_HOOK_PATCH_FILE,
  LEGACY_HOOK_PATCH_MARKER,
  PATCHED_HOST_VERSIONS,
} from "../../src/host/legacy-host.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), "clawos-legacy-host-"));
});
afterEach(() => {
  rmSync(tmp, { recursive: true, force: true });
});

/** Writes a fake OpenClaw package; `patched` adds the marker file. */
function fakeOpenClaw(dir: string, version: string, opts: { patched?: boolean; name?: string } = {}): string {
  mkdirSync(join(dir, "dist", "agents"), { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: opts.name ?? "openclaw", version }));
  writeFileSync(join(dir, "openclaw.mjs"), "#!/usr/bin/env node\n");
  writeFileSync(join(dir, LEGACY_HOOK_PATCH_FILE), `export function toToolDefinitions(tools) {}\n${opts.patched ? `// ${LEGACY_HOOK_PATCH_MARKER}\n` : ""}`);
  return dir;
}

describe("compareHostVersions", () => {
  it("orders calendar versions numerically, prereleases before their release", () => {
    expect(compareHostVersions("2026.1.30", "2026.2.1")).toBe(-1);
    expect(compareHostVersions("2026.2.12", "2026.2.9")).toBe(1);
    expect(compareHostVersions("2026.2.12", "2026.2.12")).toBe(0);
    expect(compareHostVersions("2026.2.12-beta.1", "2026.2.12")).toBe(-1);
    expect(compareHostVersions("v2026.9.6", "2026.9.6")).toBe(0);
    expect(compareHostVersions("latest", "2026.9.6")).toBeUndefined();
  });
});

describe("detectHostWiring", () => {
  it.each([
    ["2026.9.6", "native"],
    ["2026.2.12", "native"],
    ["2026.2.17", "native"],
    ["2026.2.11", "native-before-only"],
    ["2026.2.12-beta.1", "native-before-only"],
    ["2026.2.1", "native-before-only"],
    ["2026.1.30", "unpatched-legacy"],
    ["2026.1.29", "unpatched-legacy"],
    ["2026.1.5", "unpatched-legacy"],
  ])("%s is %s", (version, wiring) => {
    const report = detectHostWiring(fakeOpenClaw(join(tmp, "openclaw"), version));
    expect(report.version).toBe(version);
    expect(report.wiring).toBe(wiring);
  });

  it("reports what each wiring gives the plugin", () => {
    const native = detectHostWiring(fakeOpenClaw(join(tmp, "a"), "2026.9.6"));
    expect([native.gatesToolCalls, native.seesToolResults, native.fixCommand]).toEqual([true, true, undefined]);
    const beforeOnly = detectHostWiring(fakeOpenClaw(join(tmp, "b"), "2026.2.5"));
    expect([beforeOnly.gatesToolCalls, beforeOnly.seesToolResults, beforeOnly.fixCommand]).toEqual([true, false, undefined]);
    expect(beforeOnly.summary).toMatch(/after_tool_call/);
  });

  it("tells a patched legacy host from an unpatched one by the marker", () => {
    const dir = fakeOpenClaw(join(tmp, "node_modules", "openclaw"), "2026.1.30");
    const unpatched = detectHostWiring(dir);
    expect(unpatched.wiring).toBe("unpatched-legacy");
    expect(unpatched.gatesToolCalls).toBe(false);
    expect(unpatched.fixCommand).toBe(`npx clawos patch-host --openclaw ${dir}`);
    expect(unpatched.summary).toMatch(/NOT gated/);
    expect(hasLegacyHookPatch(dir)).toBe(false);

    fakeOpenClaw(dir, "2026.1.30", { patched: true });
    const patched = detectHostWiring(dir);
    expect(patched.wiring).toBe("patched-legacy");
    expect([patched.gatesToolCalls, patched.seesToolResults, patched.fixCommand]).toEqual([true, true, undefined]);
    expect(hasLegacyHookPatch(dir)).toBe(true);
  });

  it("quotes a fix command path that needs it", () => {
    const dir = fakeOpenClaw(join(tmp, "my hosts", "node_modules", "openclaw"), "2026.1.29");
    expect(detectHostWiring(dir).fixCommand).toBe(`npx clawos patch-host --openclaw ${JSON.stringify(dir)}`);
  });

  it("offers no fix command for a legacy version without a shipped patch", () => {
    const report = detectHostWiring(fakeOpenClaw(join(tmp, "openclaw"), "2026.1.20"));
    expect(report.wiring).toBe("unpatched-legacy");
    expect(report.fixCommand).toBeUndefined();
    expect(report.summary).toMatch(/upgrade OpenClaw to >= 2026\.2\.12/);
  });

  it("is unknown for a missing, foreign or unversioned package", () => {
    expect(detectHostWiring(join(tmp, "nothing")).wiring).toBe("unknown");
    expect(detectHostWiring(fakeOpenClaw(join(tmp, "x"), "2026.1.30", { name: "not-openclaw" })).wiring).toBe("unknown");
    expect(detectHostWiring(fakeOpenClaw(join(tmp, "y"), "next")).wiring).toBe("unknown");
    mkdirSync(join(tmp, "z"));
    writeFileSync(join(tmp, "z", "package.json"), "{ not json");
    expect(detectHostWiring(join(tmp, "z")).wiring).toBe("unknown");
  });

  it("treats a legacy host whose marker file is missing as unpatched", () => {
    const dir = join(tmp, "openclaw");
    mkdirSync(dir);
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "openclaw", version: "2026.1.30" }));
    expect(detectHostWiring(dir).wiring).toBe("unpatched-legacy");
  });
});

describe("shipped patches", () => {
  const patchesDir = join(repoRoot, "patches");
  const shipped = readdirSync(patchesDir)
    .filter((f) => /^openclaw\+.+\.patch$/.test(f))
    .map((f) => f.slice("openclaw+".length, -".patch".length))
    .sort();

  it("match PATCHED_HOST_VERSIONS", () => {
    expect(shipped).toEqual([...PATCHED_HOST_VERSIONS].sort());
  });

  it.each(shipped)("openclaw+%s.patch adds the marker to the marker file", (version) => {
    const text = readFileSync(join(patchesDir, `openclaw+${version}.patch`), "utf8");
    expect(text).toContain(`+++ b/node_modules/openclaw/${LEGACY_HOOK_PATCH_FILE}`);
    expect(text).toContain(`+// ${LEGACY_HOOK_PATCH_MARKER}`);
    // Only files under dist/ (no install artefacts).
    for (const line of text.split("\n").filter((l) => l.startsWith("diff --git"))) {
      expect(line).toMatch(/^diff --git a\/node_modules\/openclaw\/dist\/\S+ b\/node_modules\/openclaw\/dist\/\S+$/);
    }
  });
});

describe("findOpenClawPackageDir", () => {
  it("resolves openclaw from a directory like Node does, walking up", () => {
    const project = join(tmp, "project");
    const pkg = fakeOpenClaw(join(project, "node_modules", "openclaw"), "2026.1.30");
    mkdirSync(join(project, "src", "deep"), { recursive: true });
    expect(findOpenClawPackageDir(join(project, "src", "deep"))).toBe(pkg);
    expect(findOpenClawPackageDir(project)).toBe(pkg);
    // From inside the package itself.
    expect(findOpenClawPackageDir(join(pkg, "dist", "agents"))).toBe(pkg);
  });

  it("returns undefined when nothing is resolvable", () => {
    mkdirSync(join(tmp, "empty"));
    expect(findOpenClawPackageDir(join(tmp, "empty"))).toBeUndefined();
  });

  it("prefers the OpenClaw running this process (its entry script)", () => {
    const host = fakeOpenClaw(join(tmp, "global", "lib", "node_modules", "openclaw"), "2026.1.30");
    const other = fakeOpenClaw(join(tmp, "project", "node_modules", "openclaw"), "2026.9.6");
    expect(findOpenClawPackageDir(undefined, { entryScript: join(host, "openclaw.mjs"), cwd: join(tmp, "project"), pathEnv: "" })).toBe(host);
    // Without a host entry script, the one resolvable from cwd.
    expect(findOpenClawPackageDir(undefined, { entryScript: join(tmp, "elsewhere.js"), cwd: join(tmp, "project"), pathEnv: "" })).toBe(other);
  });

  it("falls back to the openclaw command on PATH, through symlinks", () => {
    const host = fakeOpenClaw(join(tmp, "prefix", "lib", "node_modules", "openclaw"), "2026.1.29");
    mkdirSync(join(tmp, "bin"));
    symlinkSync(join(host, "openclaw.mjs"), join(tmp, "bin", "openclaw"));
    mkdirSync(join(tmp, "empty"));
    expect(
      findOpenClawPackageDir(undefined, {
        entryScript: join(tmp, "elsewhere.js"),
        cwd: join(tmp, "empty"),
        pathEnv: [join(tmp, "missing"), join(tmp, "bin")].join(":"),
      }),
    ).toBe(host);
  });
});
