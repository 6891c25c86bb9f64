// Loads ClawOS the way OpenClaw does: index.ts `register()` with a recording stand-in for the plugin API,
// then calls the registered trusted tool policy and hooks exactly as the host would. State and the audit
// log go to a fresh temp directory (real files, real pino destination).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import plugin from "../../../index.ts";
import { loadHostSessionKeyClassifier } from "../../../src/host/session-keys.ts";
import type { ClawosRuntime } from "../../../src/host/runtime.ts";
import { recordingHost, type RecordingHost } from "../../replay/recording-host.ts";

type Handler = (event: unknown, ctx: unknown) => unknown;

export interface BenchHost {
  rec: RecordingHost;
  runtime: ClawosRuntime;
  stateDir: string;
  auditFile: string;
  /** The trusted tool policy's evaluate: what the host calls before every tool call. */
  evaluate: Handler;
  afterToolCall: Handler;
  toolResultPersist: Handler;
  subagentSpawned: Handler;
  dispose: () => void;
}

export const OWNER = { channel: "webchat", senderId: "owner-1", senderIsOwner: true } as const;

export async function startHost(pluginConfig: Record<string, unknown> = {}): Promise<BenchHost> {
  const stateDir = mkdtempSync(join(tmpdir(), "clawos-bench-"));
  // The agent's workspace exists on a real gateway, with the files its calls read: without it, every
  // path would be resolved through missing directories, a cost real calls do not pay.
  const workspace = join(stateDir, "workspace");
  mkdirSync(join(workspace, "notes"), { recursive: true });
  writeFileSync(join(workspace, "notes", "todo.md"), "- [ ] ship it\n");
  writeFileSync(join(workspace, "a.md"), "# a\n");
  const rec = recordingHost({ pluginConfig, stateDir });
  plugin.register(rec.api as never);
  // register() starts loading the host's session-key classifier; a gateway has it by the first call.
  await loadHostSessionKeyClassifier();
  const runtime = (globalThis as Record<symbol, ClawosRuntime>)[Symbol.for("clawos.runtime")];
  const hook = (name: string): Handler => {
    const list = rec.hooks.get(name);
    if (list?.length !== 1) throw new Error(`expected one ${name} handler, got ${list?.length ?? 0}`);
    return list[0];
  };
  const policy = rec.policies[0];
  if (!policy) throw new Error("ClawOS registered no trusted tool policy");
  return {
    rec,
    runtime,
    stateDir,
    auditFile: join(stateDir, "clawos", "audit.jsonl"),
    evaluate: policy.evaluate,
    afterToolCall: hook("after_tool_call"),
    toolResultPersist: hook("tool_result_persist"),
    subagentSpawned: hook("subagent_spawned"),
    dispose: () => rmSync(stateDir, { recursive: true, force: true }),
  };
}

/** The ctx the host builds for a tool call (see OpenClaw's before-tool-call runner). */
export function callCtx(sessionKey: string, toolName: string, toolCallId: string, requester: unknown = OWNER) {
  return { agentId: "main", sessionKey, sessionId: `sid-${sessionKey}`, runId: "run-1", toolName, toolCallId, channelId: "webchat", requester };
}

/** Lets the audit drain (setImmediate) run. */
export const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

export function parseArgs(argv = process.argv.slice(2)): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith("--")) continue;
    const [k, v] = a.slice(2).split("=", 2);
    if (v !== undefined) out[k] = v;
    else if (argv[i + 1] !== undefined && !argv[i + 1].startsWith("--")) out[k] = argv[++i];
    else out[k] = "true";
  }
  return out;
}

/** Children print one JSON line prefixed with this marker as their result. */
export const RESULT = "BENCH_RESULT ";
export function emit(result: unknown): void {
  process.stdout.write(`${RESULT}${JSON.stringify(result)}\n`);
}
