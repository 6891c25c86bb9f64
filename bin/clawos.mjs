#!/usr/bin/env node
// clawos command line. Plain ESM JavaScript so that it runs from an installed package
// without a build step (Node >= 22).
//
//   clawos patch-host [--openclaw <dir>] [--check] [--undo]
//
// OpenClaw releases before 2026.2.1 define the plugin hooks before_tool_call and
// after_tool_call but never call them, so a tool gate registered through them is inert.
// patch-host applies the patch shipped in ../patches/openclaw+<version>.patch (made with
// patch-package) to the installed OpenClaw so that every tool call runs those hooks.
// Host detection (versions, wiring, where OpenClaw is installed) comes from the plugin's own
// modules, src/host/legacy-host.ts and src/host/npm-global-root.ts: from the sources where Node
// strips types (a checkout), from the built package (dist/) otherwise. Nothing here starts a
// process: npm's global root is worked out the way npm does, not by running npm.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(import.meta.url);
const fromSources = process.features?.typescript && !here.split(sep).includes("node_modules");
const {
  AFTER_TOOL_CALL_NATIVE_FROM: AFTER_NATIVE_FROM,
  BEFORE_TOOL_CALL_NATIVE_FROM: BEFORE_NATIVE_FROM,
  hasLegacyHookPatch: hasPatchMarker,
  isOpenClawPackageDir,
  openClawOnPath,
  quoteArg,
  readPackageJson,
  safeRealpath,
  walkUp,
  wiringOf,
} = await loadHostDetection("legacy-host");
const { currentNpmGlobalRoot } = await loadHostDetection("npm-global-root");

async function loadHostDetection(module) {
  try {
    return fromSources ? await import(`../src/host/${module}.ts`) : await import(`../dist/src/host/${module}.js`);
  } catch (err) {
    process.stderr.write(
      `clawos: cannot load its host detection module (${err.message}). In a checkout, run \`npm run build\` first or use Node 22.18 or newer.\n`,
    );
    process.exit(1);
  }
}

const PATCHES_DIR = fileURLToPath(new URL("../patches/", import.meta.url));

const EXIT_OK = 0;
const EXIT_FAIL = 1; // usage error, OpenClaw not found, patch failed, or --check found it unpatched
const EXIT_NO_PATCH = 2; // no patch for this version (including: none needed)

const USAGE = `Usage: clawos patch-host [--openclaw <dir>] [--check] [--undo]

Makes OpenClaw releases before ${BEFORE_NATIVE_FROM} call the plugin hooks before_tool_call and
after_tool_call (they define them but never call them), so ClawOS can gate tool calls.

  --openclaw <dir>  the installed OpenClaw package directory (default: the openclaw
                    resolvable from the current directory, else the global npm install,
                    else the one the openclaw command on PATH belongs to)
  --check           only report: native, patched or unpatched
  --undo            reverse the patch

Exit codes: 0 done / hooks wired; 1 error or (with --check) unpatched;
2 no patch for this version (none is needed from ${AFTER_NATIVE_FROM} on).`;

class CliError extends Error {
  constructor(message, exitCode = EXIT_FAIL) {
    super(message);
    this.exitCode = exitCode;
  }
}

function parseArgs(argv) {
  const opts = { command: undefined, openclaw: undefined, check: false, undo: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--help" || arg === "-h") opts.help = true;
    else if (arg === "--check") opts.check = true;
    else if (arg === "--undo") opts.undo = true;
    else if (arg === "--openclaw") {
      const value = argv[++i];
      if (!value) throw new CliError("--openclaw needs a directory");
      opts.openclaw = value;
    } else if (arg.startsWith("--openclaw=")) opts.openclaw = arg.slice("--openclaw=".length);
    else if (!arg.startsWith("-") && opts.command === undefined) opts.command = arg;
    else throw new CliError(`unknown argument: ${arg}\n\n${USAGE}`);
  }
  if (opts.check && opts.undo) throw new CliError("--check and --undo cannot be combined");
  return opts;
}

// ---- patches -------------------------------------------------------------------------

function patchFileFor(version) {
  const file = join(PATCHES_DIR, `openclaw+${version}.patch`);
  return existsSync(file) ? file : undefined;
}

// ---- locating OpenClaw ---------------------------------------------------------------

function fromCwd(cwd) {
  return walkUp(cwd, (dir) => {
    const candidate = join(dir, "node_modules", "openclaw");
    return isOpenClawPackageDir(candidate) ? candidate : undefined;
  });
}

function fromGlobalNpm() {
  const candidate = join(currentNpmGlobalRoot(), "openclaw");
  return isOpenClawPackageDir(candidate) ? candidate : undefined;
}

function locateOpenClaw(explicit) {
  if (explicit) {
    const dir = resolve(explicit);
    if (isOpenClawPackageDir(dir)) return safeRealpath(dir);
    const nested = join(dir, "node_modules", "openclaw");
    if (isOpenClawPackageDir(nested)) return safeRealpath(nested);
    throw new CliError(`${dir} is not an OpenClaw package directory (no package.json named "openclaw")`);
  }
  const found = fromCwd(process.cwd()) ?? fromGlobalNpm() ?? openClawOnPath(process.env.PATH ?? "");
  if (!found) {
    throw new CliError("could not find an OpenClaw install; pass --openclaw <dir> (the package directory)");
  }
  return safeRealpath(found);
}

// ---- patch-package -------------------------------------------------------------------

function loadPatchPackage() {
  const require = createRequire(import.meta.url);
  try {
    return {
      applyPatch: require("patch-package/dist/applyPatches").applyPatch,
      readPatch: require("patch-package/dist/patch/read").readPatch,
      reversePatch: require("patch-package/dist/patch/reverse").reversePatch,
      executeEffects: require("patch-package/dist/patch/apply").executeEffects,
      getPackageDetailsFromPatchFilename: require("patch-package/dist/PackageDetails").getPackageDetailsFromPatchFilename,
    };
  } catch (err) {
    throw new CliError(`patch-package is not installed next to clawos (${err.message}); run: npm install patch-package`);
  }
}

/**
 * patch-package applies patches to `<project root>/node_modules/<name>`: the project root is
 * the directory holding the node_modules that holds OpenClaw (for a global install, the
 * parent of `npm root -g`).
 */
function projectRootOf(packageDir) {
  const nodeModules = dirname(packageDir);
  if (basename(packageDir) !== "openclaw" || basename(nodeModules) !== "node_modules") {
    throw new CliError(`${packageDir} is not installed as node_modules/openclaw; patch-host only patches npm installs`);
  }
  return dirname(nodeModules);
}

/** Runs patch-package's own applyPatch (the function behind its CLI) forward or in reverse. */
function runPatchPackage(patchFile, packageDir, reverse) {
  const pp = loadPatchPackage();
  const cwd = projectRootOf(packageDir);
  const patchDetails = pp.getPackageDetailsFromPatchFilename(basename(patchFile));
  const patchDir = dirname(patchFile);
  // Dry run first so that a file that does not match leaves the install untouched.
  const effects = pp.readPatch({ patchFilePath: patchFile, patchDetails, patchDir });
  try {
    pp.executeEffects(reverse ? pp.reversePatch(effects) : effects, { dryRun: true, cwd, bestEffort: false });
  } catch (err) {
    throw new CliError(`the installed files do not match ${basename(patchFile)} (${err.message}); reinstall OpenClaw and try again`);
  }
  let ok;
  try {
    ok = pp.applyPatch({ patchFilePath: patchFile, reverse, patchDetails, patchDir, cwd, bestEffort: false });
  } catch (err) {
    const hint = err?.code === "EACCES" || err?.code === "EPERM" ? " (permission denied: run it as the user that owns the install)" : "";
    throw new CliError(`patch-package failed: ${err.message}${hint}`);
  }
  if (!ok) throw new CliError(`patch-package could not ${reverse ? "reverse" : "apply"} ${basename(patchFile)}`);
}

// ---- patch-host ----------------------------------------------------------------------

function describeWiring(wiring) {
  switch (wiring) {
    case "native":
      return "native (the host calls before_tool_call and after_tool_call itself)";
    case "native-before-only":
      return `native before_tool_call only (after_tool_call is called from ${AFTER_NATIVE_FROM} on)`;
    case "patched-legacy":
      return "patched (clawos hook patch applied)";
    case "unpatched-legacy":
      return "unpatched (this release never calls before_tool_call / after_tool_call)";
    default:
      return "unknown (unreadable version)";
  }
}

function patchHost(opts, log) {
  const packageDir = locateOpenClaw(opts.openclaw);
  const version = readPackageJson(packageDir)?.version;
  const wiring = wiringOf(packageDir, version);
  const where = `OpenClaw ${version ?? "?"} at ${packageDir}`;

  if (opts.check) {
    log(`${where}: ${describeWiring(wiring)}`);
    if (wiring === "native" || wiring === "patched-legacy") return EXIT_OK;
    if (wiring === "unpatched-legacy" && patchFileFor(version)) {
      log(`fix: npx clawos patch-host --openclaw ${quoteArg(packageDir)}`);
      return EXIT_FAIL;
    }
    return EXIT_NO_PATCH;
  }

  if (wiring === "native") {
    throw new CliError(`${where}: no patch is needed, this release calls the tool hooks natively`, EXIT_NO_PATCH);
  }
  if (wiring === "unknown") {
    throw new CliError(`${where}: cannot read the OpenClaw version`, EXIT_NO_PATCH);
  }
  const patchFile = patchFileFor(version);
  if (!patchFile) {
    const advice =
      wiring === "native-before-only"
        ? `it calls before_tool_call natively but not after_tool_call; upgrade OpenClaw to ${AFTER_NATIVE_FROM} or later`
        : `upgrade OpenClaw to ${AFTER_NATIVE_FROM} or later (tool hooks called natively)`;
    throw new CliError(`${where}: no clawos patch for this version; ${advice}`, EXIT_NO_PATCH);
  }

  if (opts.undo) {
    if (wiring !== "patched-legacy") {
      log(`${where}: not patched, nothing to undo`);
      return EXIT_OK;
    }
    runPatchPackage(patchFile, packageDir, true);
    if (hasPatchMarker(packageDir)) throw new CliError(`${where}: the patch marker is still present after undo`);
    log(`${where}: patch removed (restart the gateway to load the original files)`);
    return EXIT_OK;
  }

  if (wiring === "patched-legacy") {
    log(`${where}: already patched`);
    return EXIT_OK;
  }
  runPatchPackage(patchFile, packageDir, false);
  if (!hasPatchMarker(packageDir)) throw new CliError(`${where}: the patch marker is missing after patching`);
  log(`${where}: patched with ${basename(patchFile)}; restart the gateway to load it`);
  log("note: reinstalling or updating OpenClaw removes the patch; run clawos patch-host again afterwards");
  return EXIT_OK;
}

function main(argv) {
  const log = (line) => process.stdout.write(`${line}\n`);
  try {
    const opts = parseArgs(argv);
    if (opts.help || opts.command === undefined) {
      log(USAGE);
      return opts.help ? EXIT_OK : EXIT_FAIL;
    }
    if (opts.command !== "patch-host") throw new CliError(`unknown command: ${opts.command}\n\n${USAGE}`);
    return patchHost(opts, log);
  } catch (err) {
    if (err instanceof CliError) {
      process.stderr.write(`clawos: ${err.message}\n`);
      return err.exitCode;
    }
    throw err;
  }
}

process.exitCode = main(process.argv.slice(2));
