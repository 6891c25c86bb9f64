import { accessSync, closeSync, constants, existsSync, openSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { AuditSeal, type Integrity } from "../audit/audit-seal.ts";
import { defaultConfig } from "../config/config.ts";
import { weakenings } from "../config/weakening.ts";
import { detectHostWiring, findOpenClawPackageDir } from "../host/legacy-host.ts";
import { buildRegistry } from "../host/runtime.ts";
import { builtinManifestDir, loadManifestDir, type ManifestRegistry } from "../policy/manifests.ts";
import { readAuditLog, type AuditReadSummary, type AuditRecord } from "./audit-records.ts";
import { manifestWeakenings } from "./manifest-weakening.ts";
import type { Exposure, FileAccess, FindingFacts } from "./security-findings.ts";
import { listSessions, type SessionListing } from "./session-list.ts";
import { installConfig, stateFiles, type InstallConfig, type StateFiles } from "./state-files.ts";

/**
 * Everything the operator CLI and the security-audit collector know about one install, read from
 * OpenClaw's config and ClawOS's files without writing any: the config and manifests in force, the
 * audit log (counted, and checked against its seal), the session files (checked by the session
 * store), file permissions, and how the installed OpenClaw wires the tool hooks.
 */

/** What a process that runs the gate saw itself (the collector inside the gateway). */
export interface InProcessObservations {
  readonly gateFired: number;
  readonly writeErrors: number;
  readonly lastWriteError?: string;
  readonly unmanifestedTools?: ReadonlyMap<string, number>;
}

export interface InstallInputs {
  /** OpenClaw's whole config. */
  readonly openclawConfig: unknown;
  readonly stateDir?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly resolvePath?: (path: string) => string;
  readonly observed?: InProcessObservations;
  /** The installed OpenClaw package; undefined finds it, null skips the check (tests). */
  readonly hostPackageDir?: string | null;
  /** For tests: how a path's mode is read. */
  readonly statMode?: StatMode;
  /** Also hands every audit record to this (the rollout report reads the log in the same pass). */
  readonly onRecord?: (record: AuditRecord) => void;
}

export interface AuditCounts {
  readonly decisions: number;
  readonly allow: number;
  readonly block: number;
  readonly wouldBlock: number;
  readonly trustChanges: number;
  readonly lastDecisionAt?: number;
}

export interface InstallSnapshot {
  readonly files: StateFiles;
  readonly config: InstallConfig;
  readonly registry: ManifestRegistry;
  readonly builtinDir: string;
  readonly audit: AuditReadSummary & AuditCounts & { readonly integrity?: Integrity };
  readonly sessions: SessionListing;
  readonly facts: FindingFacts;
}

/** A path's mode and kind, or undefined when it does not exist. */
export type StatMode = (path: string) => { mode: number; isDir: boolean } | undefined;

const defaultStatMode: StatMode = (path) => {
  try {
    const st = statSync(path);
    return { mode: st.mode, isDir: st.isDirectory() };
  } catch {
    return undefined;
  }
};

/**
 * Who besides the owner can read or write a path: its mode must let them and every directory above
 * it must let them through (a file inside a 0700 directory is private whatever its own mode).
 */
export function exposureOf(path: string, statMode: StatMode = defaultStatMode): { readableBy?: Exposure; writableBy?: Exposure } | undefined {
  if (process.platform === "win32") return {};
  const own = statMode(path);
  if (!own) return undefined;
  let worldThrough = true;
  let groupThrough = true;
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    const st = statMode(dir);
    if (st) {
      worldThrough &&= (st.mode & 0o001) !== 0;
      groupThrough &&= (st.mode & 0o011) !== 0;
    }
    if (dirname(dir) === dir) break;
  }
  const by = (worldBit: number, groupBit: number): Exposure | undefined =>
    worldThrough && (own.mode & worldBit) !== 0 ? "world" : groupThrough && (own.mode & (groupBit | worldBit)) !== 0 ? "group" : undefined;
  const readableBy = by(0o004, 0o040);
  const writableBy = by(0o002, 0o020);
  return { ...(readableBy ? { readableBy } : {}), ...(writableBy ? { writableBy } : {}) };
}

function canWrite(file: string): boolean {
  let target = file;
  while (!existsSync(target)) {
    const parent = dirname(target);
    if (parent === target) return false;
    target = parent;
  }
  try {
    accessSync(target, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** The audit log checked against its seal without writing the seal (`AuditSeal` read-only). */
export async function auditIntegrity(file: string): Promise<Integrity | undefined> {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    return { state: "unreadable", detail: `${file} cannot be opened: ${(error as Error).message}` };
  }
  try {
    const seal = new AuditSeal(file, fd, Date.now, { readOnly: true });
    await seal.checked;
    return { ...seal.integrity };
  } finally {
    closeSync(fd);
  }
}

/** The config findings the defaults give, minus what only moves files or names manifests (reported on their own). */
function configWeakenings(config: InstallConfig["config"]): { config: string[]; overrides: string[] } {
  const fromDefaults = weakenings(defaultConfig(), config).filter(
    (w) => !w.startsWith("inline manifests") && !w.startsWith("manifestDirs added") && !w.startsWith("audit.file moved") && !w.startsWith("state.dir moved"),
  );
  const withoutOverrides = { ...config, capabilities: { ...config.capabilities, overrides: {} } };
  const overrides = weakenings(withoutOverrides, config).filter((w) => w.startsWith("capabilities.overrides."));
  return { config: fromDefaults.filter((w) => !w.startsWith("capabilities.overrides.")), overrides };
}

function hostFacts(packageDir: string | null | undefined): FindingFacts["host"] {
  if (packageDir === null) return undefined;
  try {
    const dir = packageDir ?? findOpenClawPackageDir();
    if (!dir) return undefined;
    const report = detectHostWiring(dir);
    return { version: report.version, wiring: report.wiring, fixCommand: report.fixCommand, summary: report.summary };
  } catch {
    return undefined;
  }
}

export async function inspectInstall(inputs: InstallInputs): Promise<InstallSnapshot> {
  const config = installConfig(inputs.openclawConfig);
  const files = stateFiles({ config: config.config, stateDir: inputs.stateDir, env: inputs.env, resolvePath: inputs.resolvePath });
  const builtinDir = builtinManifestDir();
  const registry = buildRegistry(config.config, files.stateDir, inputs.resolvePath);
  const builtins = loadManifestDir(builtinDir).entries;
  const operator = registry.entries.filter((e) => !e.source.startsWith(builtinDir));

  const counts = { decisions: 0, allow: 0, block: 0, wouldBlock: 0, trustChanges: 0, lastDecisionAt: undefined as number | undefined };
  const unmanifested = new Map<string, number>();
  const read = await readAuditLog(files.auditFile, (record) => {
    inputs.onRecord?.(record);
    if (record.event === "trust.lowered" || record.event === "trust.reset") counts.trustChanges++;
    if (record.event !== "decision") return;
    counts.decisions++;
    counts.lastDecisionAt = record.at;
    if (record.decision === "allow") counts.allow++;
    else if (record.decision === "block") counts.block++;
    else if (record.decision === "would-block") counts.wouldBlock++;
    if (!record.manifested && record.mode !== "off") unmanifested.set(record.tool, (unmanifested.get(record.tool) ?? 0) + 1);
  });
  // The gateway's own count covers records not flushed yet; the log covers earlier processes.
  for (const [tool, n] of inputs.observed?.unmanifestedTools ?? []) unmanifested.set(tool, Math.max(n, unmanifested.get(tool) ?? 0));
  const integrity = read.missing ? undefined : await auditIntegrity(files.auditFile);
  const sessions = listSessions(files);

  const statMode = inputs.statMode ?? defaultStatMode;
  const watched: { path: string; what: string; secret?: boolean }[] = [
    { path: files.home, what: "ClawOS's directory" },
    { path: files.auditFile, what: "the audit log" },
    { path: files.sealFile, what: "the audit log's seal" },
    { path: files.sessionsDir, what: "the session state directory" },
    { path: files.keyFile, what: "the state key", secret: true },
    { path: files.ledgerFile, what: "the tainted-session ledger" },
    { path: files.labelsFile, what: "the file labels" },
    { path: files.pendingFile, what: "the pending-facts journal" },
    ...sessions.entries.slice(0, 1).map((e) => ({ path: e.file, what: "a session file" })),
  ];
  const access: FileAccess[] = [];
  for (const w of watched) {
    const exposure = exposureOf(w.path, statMode);
    if (!exposure || (!exposure.readableBy && !exposure.writableBy)) continue;
    access.push({ path: w.path, what: w.what, isDir: statMode(w.path)?.isDir ?? false, secret: w.secret === true, ...exposure });
  }

  const weakened = configWeakenings(config.config);
  const facts: FindingFacts = {
    config: config.config,
    configErrors: config.errors,
    configWeakenings: weakened.config,
    overrideWeakenings: weakened.overrides,
    manifestWeakenings: manifestWeakenings(builtins, operator),
    brokenManifests: registry.broken,
    unmanifestedTools: Object.fromEntries([...unmanifested].sort(([a], [b]) => a.localeCompare(b))),
    gate: { decisions: counts.decisions, lastAt: counts.lastDecisionAt, ...(inputs.observed ? { firedInProcess: inputs.observed.gateFired } : {}) },
    host: hostFacts(inputs.hostPackageDir),
    files: access,
    audit: {
      file: files.auditFile,
      exists: !read.missing,
      writable: canWrite(files.auditFile),
      writeErrors: inputs.observed?.writeErrors ?? 0,
      ...(inputs.observed?.lastWriteError ? { lastWriteError: inputs.observed.lastWriteError } : {}),
      unparsable: read.unparsable,
      tornTail: read.tornTail,
      ...(read.error ? { readError: read.error } : {}),
      ...(integrity ? { integrity } : {}),
    },
    state: {
      sessionsDir: files.sessionsDir,
      keyFile: files.keyFile,
      key: sessions.key,
      files: sessions.entries.length,
      failing: [...sessions.entries.filter((e) => e.problem).map((e) => ({ file: e.file, problem: e.problem as string })), ...sessions.unreadable],
    },
  };
  return { files, config, registry, builtinDir, audit: { ...read, ...counts, ...(integrity ? { integrity } : {}) }, sessions, facts };
}
