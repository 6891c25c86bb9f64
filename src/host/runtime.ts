import { readFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { PLUGIN_ID } from "../ids.ts";
import { AuditLog } from "../audit/audit-log.ts";
import { resolveConfig } from "../config/config.ts";
import type { ClawosConfig } from "../config/config-schema.ts";
import { Engine } from "../engine.ts";
import { hostEnvironment, processRealPaths, type CallHost } from "./host-env.ts";
import { weakenings } from "../config/weakening.ts";
import { builtinManifestDir, loadManifestDir, ManifestRegistry, unknownCapabilityWarnings, validateManifest, type ManifestLoad } from "../policy/manifests.ts";
import { CapabilityTable } from "../policy/capabilities.ts";
import { SessionStore } from "../taint/session-store.ts";
import type { HookObservation, HostWiring, StatusSnapshot } from "../report/status.ts";

/**
 * One ClawOS runtime per process. OpenClaw calls `register()` several times per process (full and
 * discovery registrations, config hot reloads), so the engine, its state and the record of which
 * hooks fired live here and are shared by every registration.
 */

export interface RuntimeInputs {
  rawConfig: unknown;
  /** OpenClaw's state directory (OPENCLAW_STATE_DIR or ~/.openclaw). */
  stateDir: string;
  /** Resolves an operator path (~ and relative paths) the way the host does. */
  resolvePath?: (path: string) => string;
  /** OpenClaw's whole config (`api.config`): agents' workspaces and Code Mode's executor are read from it. */
  openclawConfig?: unknown;
}

export interface ClawosRuntime {
  engine: Engine;
  configErrors: string[];
  configFingerprint: string;
  /** The parts of OpenClaw's config the host environment is built from. */
  hostFingerprint: string;
  /** Conversation hooks are granted: input from other sessions lowers its target before the model turn. */
  earlyLowering?: boolean;
  /** The last hot reload that weakened ClawOS, and the writes ClawOS saw that could have made it. */
  configWeakened?: { at: number; weakened: readonly string[]; writers: readonly string[] };
  hooks: Record<string, HookObservation>;
  hostVersion?: string;
  hostWiring: HostWiring;
  fixCommand?: string;
  startedAt: number;
  stateDir: string;
  exitFlush?: () => void;
  /** A registration in full mode happened in this process (the host runs typed hooks here). */
  fullRegistration?: boolean;
  /** Unknown capabilities in loaded manifests, one sentence each (name, file, closest match, known list). */
  capabilityWarnings: string[];
  /** The warnings last written to the host's log, so that repeated registrations log them once. */
  loggedWarnings?: string;
}

const RUNTIME_KEY = Symbol.for("clawos.runtime");

export function pluginVersion(): string {
  try {
    const dir = dirname(builtinManifestDir());
    return (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string }).version;
  } catch {
    return "unknown";
  }
}

export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.OPENCLAW_STATE_DIR?.trim()) return env.OPENCLAW_STATE_DIR.trim();
  const home = env.OPENCLAW_HOME?.trim() || env.HOME?.trim() || homedir();
  return join(home, ".openclaw");
}

function expandPath(path: string, base: string, resolvePath?: (p: string) => string): string {
  if (resolvePath) {
    try {
      return resolvePath(path);
    } catch {
      // Fall through to our own expansion.
    }
  }
  if (path.startsWith("~/")) return join(process.env.OPENCLAW_HOME?.trim() || homedir(), path.slice(2));
  return isAbsolute(path) ? path : resolve(base, path);
}

/** ClawOS's own directory inside OpenClaw's state directory (session state, audit log). */
export function clawosHome(stateDir: string): string {
  return join(stateDir, PLUGIN_ID);
}

let builtinLoad: ManifestLoad | undefined;

/** The built-in manifests, read once per process: they ship with the package and do not change. */
function builtinManifests(): ManifestLoad {
  builtinLoad ??= loadManifestDir(builtinManifestDir());
  return builtinLoad;
}

export function buildRegistry(config: ClawosConfig, base: string, resolvePath?: (p: string) => string): ManifestRegistry {
  const capabilities = new CapabilityTable(config.capabilities.custom);
  const loads: ManifestLoad[] = [builtinManifests()];
  for (const dir of config.manifestDirs) loads.push(loadManifestDir(expandPath(dir, base, resolvePath), capabilities));
  const inline: ManifestLoad = { entries: [], broken: [] };
  config.manifests.forEach((manifest, index) => {
    const result = validateManifest(manifest, `config manifests[${index}]`, capabilities);
    if (result.ok) inline.entries.push(result.entry);
    else inline.broken.push(result.broken);
  });
  loads.push(inline);
  return new ManifestRegistry(loads);
}

/**
 * Where the default audit log lives. `openclaw agent exec` without `--state-dir` points the state
 * directory at a temporary `openclaw-agent-exec-*` directory that it deletes afterwards; session
 * state of that one-shot run may go with it, but its audit records belong with the operator's.
 */
export function auditStateDir(stateDir: string, env: NodeJS.ProcessEnv = process.env): string {
  const ephemeral = basename(stateDir).startsWith("openclaw-agent-exec-") && resolve(dirname(stateDir)) === resolve(tmpdir());
  if (!ephemeral) return stateDir;
  const home = env.OPENCLAW_HOME?.trim() || env.HOME?.trim() || homedir();
  return join(home, ".openclaw");
}

export function auditFileFor(config: ClawosConfig, inputs: RuntimeInputs): string {
  return config.audit.file
    ? expandPath(config.audit.file, inputs.stateDir, inputs.resolvePath)
    : join(clawosHome(auditStateDir(inputs.stateDir)), "audit.jsonl");
}

/** Config that blocks everything: what runs while the operator's config is invalid. */
function failClosedConfig(): ClawosConfig {
  const result = resolveConfig({ capabilities: { mode: "enforce", defaultAllow: false } });
  if (!result.ok) throw new Error("ClawOS fail-closed defaults are invalid");
  return result.config;
}

export function sessionsDirFor(config: ClawosConfig, inputs: RuntimeInputs): string {
  return config.state.dir ? expandPath(config.state.dir, inputs.stateDir, inputs.resolvePath) : join(clawosHome(inputs.stateDir), "sessions");
}

/** The host environment (locations, path resolution, settings) for this config. */
function hostFor(config: ClawosConfig, inputs: RuntimeInputs): CallHost {
  return hostEnvironment({
    pluginId: PLUGIN_ID,
    openclawConfig: inputs.openclawConfig,
    stateDir: inputs.stateDir,
    clawos: clawosHome(inputs.stateDir),
    audit: auditFileFor(config, inputs),
    sessions: sessionsDirFor(config, inputs),
  });
}

function hostFingerprintOf(openclawConfig: unknown): string {
  const c = (openclawConfig ?? {}) as { agents?: unknown; tools?: { codeMode?: unknown }; commands?: { ownerAllowFrom?: unknown } };
  return JSON.stringify({ agents: c.agents ?? null, codeMode: c.tools?.codeMode ?? null, owners: c.commands?.ownerAllowFrom ?? null });
}

function createRuntime(inputs: RuntimeInputs): ClawosRuntime {
  const resolved = resolveConfig(inputs.rawConfig);
  const config = resolved.ok ? resolved.config : failClosedConfig();
  const stateDirPath = sessionsDirFor(config, inputs);
  const auditFile = auditFileFor(config, inputs);
  const manifests = buildRegistry(config, inputs.stateDir, inputs.resolvePath);
  const engine = new Engine({
    config,
    manifests,
    store: new SessionStore({
      dir: stateDirPath,
      maxSessions: config.state.maxSessions,
      maxSourcesPerSession: config.state.maxSourcesPerSession,
      maxValuesPerSession: config.provenance.maxValuesPerSession,
    }),
    audit: new AuditLog({ file: auditFile, recent: config.audit.recent }),
    host: hostFor(config, inputs),
  });
  return {
    engine,
    configErrors: resolved.ok ? [] : resolved.errors,
    configFingerprint: JSON.stringify(inputs.rawConfig ?? {}),
    hostFingerprint: hostFingerprintOf(inputs.openclawConfig),
    hooks: {},
    hostWiring: "unknown",
    startedAt: Date.now(),
    stateDir: stateDirPath,
    capabilityWarnings: capabilityWarningsOf(config, manifests),
  };
}

function capabilityWarningsOf(config: ClawosConfig, manifests: ManifestRegistry): string[] {
  return unknownCapabilityWarnings(manifests.entries, new CapabilityTable(config.capabilities.custom));
}

/** Writes the load warnings (unknown capabilities in manifests) to the host's log, once per distinct set. */
export function logLoadWarnings(runtime: ClawosRuntime, logger: { warn: (message: string) => void }): void {
  const text = runtime.capabilityWarnings.join("\n");
  if (text === (runtime.loggedWarnings ?? "")) return;
  runtime.loggedWarnings = text;
  for (const warning of runtime.capabilityWarnings) logger.warn(`clawos: ${warning}`);
}

/**
 * The process's runtime, created on first use. A later registration with a different config
 * (hot reload) applies the new policy and manifests to the same engine, keeping session trust.
 */
export function obtainRuntime(inputs: RuntimeInputs): ClawosRuntime {
  const global = globalThis as { [RUNTIME_KEY]?: ClawosRuntime };
  let runtime = global[RUNTIME_KEY];
  if (!runtime) {
    runtime = createRuntime(inputs);
    global[RUNTIME_KEY] = runtime;
    installExitFlush(runtime);
    return runtime;
  }
  const fingerprint = JSON.stringify(inputs.rawConfig ?? {});
  const hostFingerprint = inputs.openclawConfig === undefined ? runtime.hostFingerprint : hostFingerprintOf(inputs.openclawConfig);
  if (fingerprint !== runtime.configFingerprint || hostFingerprint !== runtime.hostFingerprint) {
    const resolved = resolveConfig(inputs.rawConfig);
    const config = resolved.ok ? resolved.config : failClosedConfig();
    const weakened = weakenings(runtime.engine.config, config);
    if (weakened.length > 0) {
      const writers = runtime.engine.protectedWrites.map(
        (w) => `${w.tool} in ${w.sessionKey ?? "(no session)"} at ${w.trust} wrote ${w.path} (${w.label}) at ${new Date(w.at).toISOString()}`,
      );
      runtime.configWeakened = { at: Date.now(), weakened, writers };
      runtime.engine.audit.recordConfigChange({ weakened, writers });
    }
    const manifests = buildRegistry(config, inputs.stateDir, inputs.resolvePath);
    runtime.engine.applyConfig(config, manifests, hostFor(config, inputs));
    runtime.capabilityWarnings = capabilityWarningsOf(config, manifests);
    runtime.hostFingerprint = hostFingerprint;
    // A new audit file takes effect at once; the counters and the rollout report carry on.
    runtime.engine.retargetAudit(auditFileFor(config, inputs));
    runtime.configErrors = resolved.ok ? [] : resolved.errors;
    runtime.configFingerprint = fingerprint;
  }
  return runtime;
}

/** Drops the process runtime as a process exit would: flushed and closed (tests, replay). */
export function resetRuntimeForTests(): void {
  const global = globalThis as { [RUNTIME_KEY]?: ClawosRuntime };
  // A new runtime in a test is a new process: calls the old one let through are not running.
  processRealPaths.resetForTests();
  const runtime = global[RUNTIME_KEY];
  if (!runtime) return;
  runtime.engine.close();
  if (runtime.exitFlush) process.removeListener("exit", runtime.exitFlush);
  delete global[RUNTIME_KEY];
}

function installExitFlush(runtime: ClawosRuntime): void {
  // Audit records and unsaved session sources reach disk on any orderly exit, gateway_stop or not.
  runtime.exitFlush = () => runtime.engine.flush();
  process.once("exit", runtime.exitFlush);
}

export function noteHookRegistered(runtime: ClawosRuntime, hook: string): void {
  runtime.hooks[hook] ??= { registered: true, fired: 0 };
  runtime.hooks[hook].registered = true;
}

export function noteHookFired(runtime: ClawosRuntime, hook: string): void {
  const entry = (runtime.hooks[hook] ??= { registered: true, fired: 0 });
  entry.fired++;
  entry.lastAt = Date.now();
}

export function statusSnapshot(runtime: ClawosRuntime): StatusSnapshot {
  const status = runtime.engine.status();
  const manifests = runtime.engine.manifestList();
  return {
    pluginVersion: pluginVersion(),
    hostVersion: runtime.hostVersion,
    hostWiring: runtime.hostWiring,
    fixCommand: runtime.fixCommand,
    config: status.policy.config,
    enforcement: status.policy.enforcement,
    configErrors: runtime.configErrors,
    manifests: manifests.entries,
    builtinSource: builtinManifestDir(),
    brokenManifests: manifests.broken,
    capabilityWarnings: runtime.capabilityWarnings,
    hooks: runtime.hooks,
    counts: status.counts,
    unmanifestedTools: status.unmanifestedTools,
    audit: status.audit,
    store: { ...status.store, dir: runtime.stateDir },
    startedAt: runtime.startedAt,
    configWeakened: runtime.configWeakened,
    earlyLowering: runtime.earlyLowering === true,
  };
}
