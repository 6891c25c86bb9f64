import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AuditLog } from "../../src/audit/audit-log.ts";
import { resolveConfig } from "../../src/config/config.ts";
import type { ClawosConfig } from "../../src/config/config-schema.ts";
import type { ToolCall } from "../../src/calls.ts";
import { Engine } from "../../src/engine.ts";
import { SessionStore } from "../../src/taint/session-store.ts";
import { buildRegistry } from "../../src/host/runtime.ts";
import { hostEnvironment } from "../../src/host/host-env.ts";
import type { RealPathMemo } from "../../src/host/real-paths.ts";
import type { OperatorContext } from "../../src/cli/operator-cli.ts";
import { nextId, OWNER, pinBlocks } from "./fixtures.ts";

/** Builds a real engine (built-in manifests, real store and audit) for unit tests. */
export function makeConfig(raw: unknown = {}): ClawosConfig {
  const result = resolveConfig(pinBlocks(raw));
  if (!result.ok) throw new Error(result.errors.join("\n"));
  return result.config;
}

/** A host environment under a fresh temporary home (unit tests of the policy). */
export function testHost(openclawConfig?: unknown) {
  const dir = mkdtempSync(join(tmpdir(), "clawos-host-"));
  const home = join(dir, "home");
  const state = join(home, ".openclaw");
  return hostEnvironment({
    env: { HOME: home },
    openclawConfig,
    stateDir: state,
    clawos: join(state, "clawos"),
    audit: join(state, "clawos", "audit.jsonl"),
    sessions: join(state, "clawos", "sessions"),
  });
}

export interface TestEngine {
  engine: Engine;
  config: ClawosConfig;
  dir: string;
  auditFile: string;
  clock: { now: number };
  /** The test host's home, OpenClaw state directory and the main agent's workspace. */
  home: string;
  state: string;
  workspace: string;
}

export function makeEngine(
  raw: unknown = {},
  options: { dir?: string; durable?: boolean; openclawConfig?: unknown; env?: NodeJS.ProcessEnv; realPaths?: RealPathMemo | false } = {},
): TestEngine {
  const config = makeConfig(raw);
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), "clawos-test-"));
  const clock = { now: Date.parse("2026-11-22T10:00:00Z") };
  const now = () => clock.now;
  const auditFile = join(dir, "audit.jsonl");
  const home = join(dir, "home");
  const state = join(home, ".openclaw");
  const host = hostEnvironment({
    env: { HOME: home, ...options.env },
    openclawConfig: options.openclawConfig,
    stateDir: state,
    clawos: join(state, "clawos"),
    audit: auditFile,
    sessions: join(dir, "sessions"),
    ...(options.realPaths !== undefined ? { realPaths: options.realPaths } : {}),
  });
  const engine = new Engine({
    config,
    manifests: buildRegistry(config, dir),
    store: new SessionStore({
      dir: options.durable === false ? undefined : join(dir, "sessions"),
      maxSessions: config.state.maxSessions,
      maxSourcesPerSession: config.state.maxSourcesPerSession,
      maxValuesPerSession: config.provenance.maxValuesPerSession,
      now,
    }),
    audit: new AuditLog({ file: auditFile, recent: config.audit.recent, now }),
    host,
    now,
  });
  return { engine, config, dir, auditFile, clock, home, state, workspace: host.locations.workspaceFor("main") };
}

export { OWNER, STRANGER } from "./fixtures.ts";

export function call(toolName: string, extra: Partial<ToolCall> = {}): ToolCall {
  return {
    toolName,
    params: {},
    sessionKey: "agent:main:main",
    agentId: "main",
    isSubagent: false,
    requester: OWNER,
    toolCallId: `call-${Math.random().toString(36).slice(2)}`,
    ...extra,
  };
}

/** A session that fetched a page naming two outside addresses: its trust drops to untrusted. */
export function taintWithPage(engine: Engine, sessionKey: string, text = "mail boss@evil.example or other@evil.example"): void {
  const id = nextId();
  engine.gate(call("web_fetch", { params: { url: "https://evil.example/p" }, toolCallId: id, sessionKey }));
  engine.observeResult({ toolName: "web_fetch", toolCallId: id, sessionKey, isSubagent: false, content: { content: [{ type: "text", text }] } });
}

/** The operator CLI's view of a test engine's install: its audit file and session state under `clawos`. */
export function operatorContext(te: TestEngine, clawos: Record<string, unknown>): OperatorContext {
  const config = { ...clawos, audit: { file: te.auditFile }, state: { dir: join(te.dir, "sessions") } };
  return {
    openclawConfig: { plugins: { entries: { clawos: { enabled: true, config } } } },
    stateDir: te.state,
    env: { HOME: te.home },
    now: () => te.clock.now,
  };
}
