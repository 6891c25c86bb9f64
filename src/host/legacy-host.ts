// Tells whether the installed OpenClaw calls the tool hooks ClawOS relies on.
//
// OpenClaw releases before 2026.2.1 define the plugin hooks before_tool_call and
// after_tool_call but their agent runner never calls them, so a gate registered through
// them is silently inert. 2026.2.1 - 2026.2.11 call before_tool_call but not
// after_tool_call; 2026.2.12 and later call both. For legacy releases ClawOS ships a
// patch (patches/openclaw+<version>.patch, applied by `clawos patch-host`) that leaves a
// marker comment in the patched file; reading that file tells a patched host from an
// unpatched one. bin/clawos.mjs (`clawos patch-host`) imports this module for the same rules.
//
// Only node:fs / node:path: no OpenClaw imports and no child processes, so it works on every
// host version, from a checkout under Node's type stripping and from the built package.
import { readFileSync, realpathSync, statSync } from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";

export type HostWiring =
  /** >= 2026.2.12: the host calls before_tool_call and after_tool_call. */
  | "native"
  /** 2026.2.1 - 2026.2.11: before_tool_call is called, after_tool_call is not. */
  | "native-before-only"
  /** < 2026.2.1 with the clawos hook patch applied. */
  | "patched-legacy"
  /** < 2026.2.1 without the patch: tool hooks never run. */
  | "unpatched-legacy"
  /** Not an OpenClaw package, or a version that cannot be read. */
  | "unknown";

export interface HostWiringReport {
  /** The package's version, "" when unreadable. */
  version: string;
  wiring: HostWiring;
  /** Whether before_tool_call gates tool calls on this host. */
  gatesToolCalls: boolean;
  /** Whether after_tool_call runs on this host. */
  seesToolResults: boolean;
  /** Operator command that fixes the wiring, when a shipped patch can. */
  fixCommand?: string;
  /** One line for logs and status output. */
  summary: string;
}

export const LEGACY_HOOK_PATCH_MARKER = "clawos-legacy-hook-patch v1";
/** File (relative to the OpenClaw package dir) that carries the marker once patched. */
export const LEGACY_HOOK_PATCH_FILE = "dist/agents/pi-tool-definition-adapter.js";
/** Versions for which patches/openclaw+<version>.patch ships. */
export const PATCHED_HOST_VERSIONS: readonly string[] = ["2026.1.29", "2026.1.30"];
/** First release whose runner calls before_tool_call. */
export const BEFORE_TOOL_CALL_NATIVE_FROM = "2026.2.1";
/** First release whose runner calls after_tool_call. */
export const AFTER_TOOL_CALL_NATIVE_FROM = "2026.2.12";

interface ParsedVersion {
  nums: [number, number, number];
  pre?: string;
}

function parseVersion(version: string): ParsedVersion | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+.*)?$/.exec(String(version).trim());
  if (!m) return undefined;
  return { nums: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] };
}

/**
 * Orders two `year.month.day` versions; a prerelease sorts before its release.
 * Returns undefined when either is not a version.
 */
export function compareHostVersions(a: string, b: string): number | undefined {
  const pa = parseVersion(a);
  const pb = parseVersion(b);
  if (!pa || !pb) return undefined;
  for (let i = 0; i < 3; i++) {
    if (pa.nums[i] !== pb.nums[i]) return pa.nums[i] < pb.nums[i] ? -1 : 1;
  }
  if (pa.pre === pb.pre) return 0;
  if (pa.pre === undefined) return 1;
  if (pb.pre === undefined) return -1;
  return pa.pre < pb.pre ? -1 : 1;
}

export function readPackageJson(dir: string): { name?: unknown; version?: unknown } | undefined {
  try {
    const parsed: unknown = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    return parsed && typeof parsed === "object" ? (parsed as { name?: unknown; version?: unknown }) : undefined;
  } catch {
    return undefined;
  }
}

export function isOpenClawPackageDir(dir: string): boolean {
  return readPackageJson(dir)?.name === "openclaw";
}

/** Whether the installed OpenClaw carries the clawos hook patch. */
export function hasLegacyHookPatch(openclawPackageDir: string): boolean {
  try {
    return readFileSync(join(openclawPackageDir, LEGACY_HOOK_PATCH_FILE), "utf8").includes(LEGACY_HOOK_PATCH_MARKER);
  } catch {
    return false;
  }
}

/** Shell-quotes a path only when it needs it (fix commands printed by the plugin and the CLI). */
export function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : JSON.stringify(arg);
}

/** How an OpenClaw package of `version` at `openclawPackageDir` wires the tool hooks. */
export function wiringOf(openclawPackageDir: string, version: string | undefined): HostWiring {
  if (!version || !parseVersion(version)) return "unknown";
  if ((compareHostVersions(version, AFTER_TOOL_CALL_NATIVE_FROM) ?? -1) >= 0) return "native";
  if ((compareHostVersions(version, BEFORE_TOOL_CALL_NATIVE_FROM) ?? -1) >= 0) return "native-before-only";
  return hasLegacyHookPatch(openclawPackageDir) ? "patched-legacy" : "unpatched-legacy";
}

/** Classifies how the OpenClaw package in `openclawPackageDir` wires the tool hooks. */
export function detectHostWiring(openclawPackageDir: string): HostWiringReport {
  const pkg = readPackageJson(openclawPackageDir);
  const version = typeof pkg?.version === "string" ? pkg.version : "";
  const label = `OpenClaw ${version || "?"}`;
  if (pkg?.name !== "openclaw" || !parseVersion(version)) {
    return {
      version,
      wiring: "unknown",
      gatesToolCalls: false,
      seesToolResults: false,
      summary: `${label}: not a readable OpenClaw package at ${openclawPackageDir}`,
    };
  }
  const wiring = wiringOf(openclawPackageDir, version);
  if (wiring === "native") {
    return { version, wiring, gatesToolCalls: true, seesToolResults: true, summary: `${label}: tool hooks called natively` };
  }
  if (wiring === "native-before-only") {
    return {
      version,
      wiring,
      gatesToolCalls: true,
      seesToolResults: false,
      summary: `${label}: before_tool_call is called natively but after_tool_call is not (upgrade to >= ${AFTER_TOOL_CALL_NATIVE_FROM} for it)`,
    };
  }
  if (wiring === "patched-legacy") {
    return { version, wiring, gatesToolCalls: true, seesToolResults: true, summary: `${label}: tool hooks wired by the clawos patch` };
  }
  const patchable = PATCHED_HOST_VERSIONS.includes(version);
  return {
    version,
    wiring: "unpatched-legacy",
    gatesToolCalls: false,
    seesToolResults: false,
    ...(patchable ? { fixCommand: `npx clawos patch-host --openclaw ${quoteArg(openclawPackageDir)}` } : {}),
    summary: patchable
      ? `${label}: this release never calls before_tool_call / after_tool_call, so tool calls are NOT gated; run the fix command and restart the gateway`
      : `${label}: this release never calls before_tool_call / after_tool_call, so tool calls are NOT gated; no clawos patch exists for it, upgrade OpenClaw to >= ${AFTER_TOOL_CALL_NATIVE_FROM}`,
  };
}

export function walkUp(start: string, visit: (dir: string) => string | undefined): string | undefined {
  let dir = resolve(start);
  for (;;) {
    const found = visit(dir);
    if (found) return found;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

export function safeRealpath(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** The OpenClaw package that contains `file` (walking up), if any. */
function enclosingOpenClaw(file: string): string | undefined {
  return walkUp(dirname(safeRealpath(file)), (dir) => (isOpenClawPackageDir(dir) ? dir : undefined));
}

/** The OpenClaw package resolvable from `dir` the way Node resolves `openclaw`, or `dir` itself. */
function resolvableFrom(start: string): string | undefined {
  return walkUp(start, (dir) => {
    if (isOpenClawPackageDir(dir)) return dir;
    const candidate = join(dir, "node_modules", "openclaw");
    return isOpenClawPackageDir(candidate) ? candidate : undefined;
  });
}

/** The OpenClaw package the `openclaw` command on `pathEnv` belongs to, if any. */
export function openClawOnPath(pathEnv: string, platform: NodeJS.Platform = process.platform): string | undefined {
  const names = platform === "win32" ? ["openclaw.cmd", "openclaw.exe", "openclaw"] : ["openclaw"];
  for (const entry of pathEnv.split(delimiter)) {
    if (!entry) continue;
    for (const name of names) {
      const bin = join(entry, name);
      try {
        if (!statSync(bin).isFile()) continue;
      } catch {
        continue;
      }
      const found = enclosingOpenClaw(bin);
      if (found) return found;
    }
  }
  return undefined;
}

export interface FindOpenClawOptions {
  /** Script path of the running process (default process.argv[1]): inside a gateway, the host itself. */
  entryScript?: string;
  /** Directory to resolve `openclaw` from (default process.cwd()). */
  cwd?: string;
  /** PATH to search for the openclaw command (default process.env.PATH). */
  pathEnv?: string;
}

/**
 * Finds the installed OpenClaw package directory. With `fromDir`, only the package
 * resolvable from there (walking up, like Node). Without it: the OpenClaw running this
 * process (when loaded as a plugin), then the one resolvable from the current directory,
 * then the one the `openclaw` command on PATH belongs to.
 */
export function findOpenClawPackageDir(fromDir?: string, options: FindOpenClawOptions = {}): string | undefined {
  if (fromDir) {
    const found = resolvableFrom(fromDir);
    return found ? safeRealpath(found) : undefined;
  }
  const entry = options.entryScript ?? process.argv[1];
  const found =
    (entry ? enclosingOpenClaw(entry) : undefined) ?? resolvableFrom(options.cwd ?? process.cwd()) ?? openClawOnPath(options.pathEnv ?? process.env.PATH ?? "");
  return found ? safeRealpath(found) : undefined;
}
