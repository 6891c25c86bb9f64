import { basename, dirname, join } from "node:path";
import { resolveConfig } from "../config/config.ts";
import type { ClawosConfig } from "../config/config-schema.ts";
import { PLUGIN_ID } from "../ids.ts";
import { auditFileFor, clawosHome, defaultStateDir, sessionsDirFor } from "../host/runtime.ts";

/**
 * Where one install keeps ClawOS's files, worked out from OpenClaw's config and state directory the
 * way the gateway's runtime does (`host/runtime.ts`), so the operator CLI and the security-audit
 * collector read the files the gateway writes, with the gateway stopped or running.
 */

export interface StateFiles {
  /** OpenClaw's state directory. */
  readonly stateDir: string;
  /** ClawOS's own directory in it. */
  readonly home: string;
  readonly auditFile: string;
  /** The audit log's seal (`audit/audit-seal.ts`). */
  readonly sealFile: string;
  /** The session state directory and the files the session store keeps beside it. */
  readonly sessionsDir: string;
  readonly keyFile: string;
  readonly ledgerFile: string;
  readonly labelsFile: string;
  readonly pendingFile: string;
}

export interface InstallConfig {
  /** The config ClawOS runs with: the operator's, defaults applied (the defaults when it is invalid). */
  readonly config: ClawosConfig;
  /** Why the operator's config is invalid (the gateway then blocks every call). */
  readonly errors: readonly string[];
  readonly raw: unknown;
}

type Json = Record<string, unknown>;

function obj(value: unknown): Json | undefined {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Json) : undefined;
}

/** `plugins.entries.clawos.config` of OpenClaw's config, as the operator wrote it. */
export function rawClawosConfig(openclawConfig: unknown): unknown {
  return obj(obj(obj(obj(openclawConfig)?.plugins)?.entries)?.[PLUGIN_ID])?.config;
}

/** Whether OpenClaw's config enables ClawOS (`plugins.entries.clawos.enabled` is not false). */
export function clawosEnabled(openclawConfig: unknown): boolean {
  const entry = obj(obj(obj(obj(openclawConfig)?.plugins)?.entries)?.[PLUGIN_ID]);
  return entry !== undefined && entry.enabled !== false;
}

export function installConfig(openclawConfig: unknown): InstallConfig {
  const raw = rawClawosConfig(openclawConfig);
  const resolved = resolveConfig(raw);
  if (resolved.ok) return { config: resolved.config, errors: [], raw };
  const defaults = resolveConfig({});
  if (!defaults.ok) throw new Error("ClawOS's built-in config defaults are invalid");
  return { config: defaults.config, errors: resolved.errors, raw };
}

/** A file the session store keeps beside its directory (`<dir>.key`, `<dir>.tainted.log`, ...). */
function besideSessions(sessionsDir: string, suffix: string): string {
  return join(dirname(sessionsDir), `${basename(sessionsDir)}${suffix}`);
}

export interface StateFilesInputs {
  readonly config: ClawosConfig;
  /** OpenClaw's state directory; by default the one OpenClaw resolves from the environment. */
  readonly stateDir?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly resolvePath?: (path: string) => string;
}

export function stateFiles(inputs: StateFilesInputs): StateFiles {
  const stateDir = inputs.stateDir ?? defaultStateDir(inputs.env);
  const runtimeInputs = { rawConfig: undefined, stateDir, resolvePath: inputs.resolvePath };
  const auditFile = auditFileFor(inputs.config, runtimeInputs);
  const sessionsDir = sessionsDirFor(inputs.config, runtimeInputs);
  return {
    stateDir,
    home: clawosHome(stateDir),
    auditFile,
    sealFile: `${auditFile}.seal`,
    sessionsDir,
    keyFile: besideSessions(sessionsDir, ".key"),
    ledgerFile: besideSessions(sessionsDir, ".tainted.log"),
    labelsFile: besideSessions(sessionsDir, ".labels.json"),
    pendingFile: besideSessions(sessionsDir, ".pending.log"),
  };
}
