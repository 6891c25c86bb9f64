// Runs the real `clawos patch-host` CLI against a real openclaw@2026.1.30 install (copied into
// a temp dir so the cached install stays pristine), through patch-package.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { detectHostWiring, LEGACY_HOOK_PATCH_FILE, LEGACY_HOOK_PATCH_MARKER } from "../../src/host/legacy-host.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const cli = join(repoRoot, "bin", "clawos.mjs");
const VERSION = "2026.1.30";
// Files the patch touches, relative to the package dir.
const PATCHED_FILES = [LEGACY_HOOK_PATCH_FILE, "dist/agents/pi-embedded-runner/tool-split.js", "dist/agents/pi-embedded-runner/run/attempt.js"];

let pristine: string; // cached install, never modified
let tmp: string;

interface Run {
  code: number;
  out: string;
}

function run(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Run {
  const r = spawnSync(process.execPath, [cli, ...args], {
    cwd: opts.cwd ?? tmp,
    env: { ...process.env, ...opts.env },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
}

/** A fake package: enough for version detection, not for patching. */
function fakeOpenClaw(dir: string, version: string): string {
  mkdirSync(join(dir, "dist", "agents"), { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "openclaw", version }));
  writeFileSync(join(dir, "openclaw.mjs"), "#!/usr/bin/env node\n");
  writeFileSync(join(dir, LEGACY_HOOK_PATCH_FILE), "export {};\n");
  return dir;
}

function copyRealHost(dest: string): string {
  mkdirSync(dirname(dest), { recursive: true });
  cpSync(pristine, dest, { recursive: true, verbatimSymlinks: true });
  return dest;
}

function expectPristine(pkg: string): void {
  for (const file of PATCHED_FILES) {
    expect(readFileSync(join(pkg, file), "utf8"), file).toBe(readFileSync(join(pristine, file), "utf8"));
  }
}

beforeAll(() => {
  // Installs openclaw@2026.1.30 from the registry on first use (about a minute), then reuses it.
  pristine = execFileSync("bash", [join(repoRoot, "scripts", "ensure-host.sh"), VERSION], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    timeout: 600_000,
  }).trim();
  tmp = mkdtempSync(join(tmpdir(), "clawos-patch-host-"));
}, 620_000);

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe("clawos patch-host on a real openclaw@2026.1.30", () => {
  it("applies, is idempotent, checks and undoes (project install, found from cwd)", { timeout: 180_000 }, () => {
    const project = join(tmp, "project");
    const pkg = copyRealHost(join(project, "node_modules", "openclaw"));
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "project", private: true }));
    mkdirSync(join(project, "sub"));
    const cwd = join(project, "sub");

    let r = run(["patch-host", "--check"], { cwd });
    expect(r.code, r.out).toBe(1);
    expect(r.out).toContain(`OpenClaw ${VERSION} at ${pkg}: unpatched`);
    expect(detectHostWiring(pkg).wiring).toBe("unpatched-legacy");

    r = run(["patch-host"], { cwd });
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain(`patched with openclaw+${VERSION}.patch`);
    expect(readFileSync(join(pkg, LEGACY_HOOK_PATCH_FILE), "utf8")).toContain(LEGACY_HOOK_PATCH_MARKER);
    expect(readFileSync(join(pkg, "dist/agents/pi-embedded-runner/run/attempt.js"), "utf8")).toContain("toolHookCtx");
    expect(detectHostWiring(pkg).wiring).toBe("patched-legacy");

    r = run(["patch-host", "--check"], { cwd });
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain(": patched");

    const patchedText = readFileSync(join(pkg, LEGACY_HOOK_PATCH_FILE), "utf8");
    r = run(["patch-host"], { cwd });
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain("already patched");
    expect(readFileSync(join(pkg, LEGACY_HOOK_PATCH_FILE), "utf8")).toBe(patchedText);

    r = run(["patch-host", "--undo"], { cwd });
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain("patch removed");
    expectPristine(pkg);
    expect(detectHostWiring(pkg).wiring).toBe("unpatched-legacy");

    r = run(["patch-host", "--check"], { cwd });
    expect(r.code, r.out).toBe(1);
    expect(r.out).toContain(": unpatched");

    r = run(["patch-host", "--undo"], { cwd });
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain("nothing to undo");
  });

  it("patches a global install (no package.json at its root), found through npm root -g", { timeout: 180_000 }, () => {
    const prefix = join(tmp, "global-prefix");
    const pkg = copyRealHost(join(prefix, "lib", "node_modules", "openclaw"));
    mkdirSync(join(tmp, "elsewhere"), { recursive: true });
    const env = { npm_config_prefix: prefix, PATH: `${dirname(process.execPath)}:/usr/bin:/bin` };

    let r = run(["patch-host"], { cwd: join(tmp, "elsewhere"), env });
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain(`OpenClaw ${VERSION} at ${pkg}: patched with`);
    expect(detectHostWiring(pkg).wiring).toBe("patched-legacy");

    r = run(["patch-host", "--undo", "--openclaw", pkg], { cwd: join(tmp, "elsewhere") });
    expect(r.code, r.out).toBe(0);
    expectPristine(pkg);
  });

  it("refuses to patch files that do not match the patch, leaving them untouched", { timeout: 180_000 }, () => {
    const pkg = copyRealHost(join(tmp, "modified", "node_modules", "openclaw"));
    const attempt = join(pkg, "dist/agents/pi-embedded-runner/run/attempt.js");
    const edited = readFileSync(attempt, "utf8").replace("sandboxEnabled: !!sandbox?.enabled,", "sandboxEnabled: true,");
    writeFileSync(attempt, edited);
    const r = run(["patch-host", "--openclaw", pkg]);
    expect(r.code, r.out).toBe(1);
    expect(r.out).toMatch(/do not match openclaw\+2026\.1\.30\.patch/);
    expect(readFileSync(join(pkg, LEGACY_HOOK_PATCH_FILE), "utf8")).toBe(readFileSync(join(pristine, LEGACY_HOOK_PATCH_FILE), "utf8"));
  });
});

describe("clawos patch-host on versions without a patch", () => {
  it("refuses an unknown legacy version with exit 2", () => {
    const pkg = fakeOpenClaw(join(tmp, "fake-legacy", "node_modules", "openclaw"), "2026.1.15");
    const r = run(["patch-host", "--openclaw", pkg]);
    expect(r.code, r.out).toBe(2);
    expect(r.out).toContain("no clawos patch for this version");
    expect(r.out).toContain("2026.2.12");
    expect(run(["patch-host", "--check", "--openclaw", pkg]).code).toBe(2);
  });

  it("says no patch is needed on a host that calls the hooks natively", () => {
    const pkg = fakeOpenClaw(join(tmp, "fake-native", "node_modules", "openclaw"), "2026.9.6");
    let r = run(["patch-host", "--openclaw", pkg]);
    expect(r.code, r.out).toBe(2);
    expect(r.out).toContain("no patch is needed");
    r = run(["patch-host", "--check", "--openclaw", pkg]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain("native");
  });

  it("--check on an unpatched legacy host prints the fix command ClawOS prints", () => {
    const pkg = fakeOpenClaw(join(tmp, "my hosts", "node_modules", "openclaw"), "2026.1.30");
    const r = run(["patch-host", "--check", "--openclaw", pkg]);
    expect(r.code, r.out).toBe(1);
    expect(r.out).toContain(`fix: ${detectHostWiring(pkg).fixCommand}`);
    expect(r.out).toContain(`fix: npx clawos patch-host --openclaw ${JSON.stringify(pkg)}`);
  });

  it("explains the before-only releases", () => {
    const pkg = fakeOpenClaw(join(tmp, "fake-before-only", "node_modules", "openclaw"), "2026.2.5");
    const r = run(["patch-host", "--openclaw", pkg]);
    expect(r.code, r.out).toBe(2);
    expect(r.out).toMatch(/before_tool_call natively but not after_tool_call/);
  });

  it("finds the host through the openclaw command on PATH", () => {
    const pkg = fakeOpenClaw(join(tmp, "via-path", "lib", "node_modules", "openclaw"), "2026.9.6");
    const bin = join(tmp, "via-path", "bin");
    mkdirSync(bin);
    symlinkSync(join(pkg, "openclaw.mjs"), join(bin, "openclaw"));
    mkdirSync(join(tmp, "empty-prefix"));
    mkdirSync(join(tmp, "nowhere"));
    const r = run(["patch-host", "--check"], {
      cwd: join(tmp, "nowhere"),
      env: { npm_config_prefix: join(tmp, "empty-prefix"), PATH: [bin, dirname(process.execPath), "/usr/bin", "/bin"].join(":") },
    });
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain(`at ${pkg}: native`);
  });

  it("reports bad usage and a missing package", () => {
    expect(run(["patch-host", "--bogus"]).code).toBe(1);
    expect(run(["frobnicate"]).code).toBe(1);
    const r = run(["patch-host", "--openclaw", join(tmp, "does-not-exist")]);
    expect(r.code).toBe(1);
    expect(r.out).toContain("is not an OpenClaw package directory");
    expect(run(["--help"]).code).toBe(0);
  });
});
