// A small gateway starter for legacy OpenClaw releases (2026.1.x, 2026.2.x) installed by
// scripts/ensure-host.sh. The main harness (createOpenClawEnv) targets the devDependency release;
// these older ones differ: no OPENCLAW_HOME (isolation goes through HOME, OPENCLAW_STATE_DIR and
// OPENCLAW_CONFIG_PATH), a different ready line, `agent --session-id` instead of `--session-key`,
// and JSONL transcripts under agents/<id>/sessions/.
import { execFileSync, spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { cleanupHostTmp, snapshotHostTmp } from "../host-tmp.ts";
import { freePort, killGroup, node24, runCommand, startTracked, stopProcess } from "../processes.ts";
import type { CliResult } from "../processes.ts";

export const REPO_ROOT = resolve(import.meta.dirname, "../../..");
export const CLAWOS_CLI = join(REPO_ROOT, "bin", "clawos.mjs");

type JsonObject = Record<string, unknown>;

/** Installs openclaw@<version> once into the repo cache (scripts/ensure-host.sh); returns the package dir. */
export function ensureHost(version: string): string {
  return execFileSync("bash", [join(REPO_ROOT, "scripts", "ensure-host.sh"), version], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    timeout: 600_000,
  }).trim();
}

/**
 * A patchable copy of a cached install: the openclaw package itself is copied to
 * `<parent>/node_modules/openclaw` (what patch-host edits), its installed dependencies are linked.
 */
export function copyHost(pristinePackageDir: string, parent: string): string {
  const nodeModules = join(parent, "node_modules");
  mkdirSync(nodeModules, { recursive: true });
  const hostDir = join(nodeModules, "openclaw");
  cpSync(pristinePackageDir, hostDir, { recursive: true, verbatimSymlinks: true });
  const pristineModules = resolve(pristinePackageDir, "..");
  for (const name of readdirSync(pristineModules)) {
    if (name !== "openclaw" && name !== ".bin") symlinkSync(join(pristineModules, name), join(nodeModules, name));
  }
  return hostDir;
}

export type LegacyPlugin = { id: string; dir: string; config?: JsonObject };

export type LegacyEnvOptions = {
  /** The OpenClaw package directory to run (`.../node_modules/openclaw`). */
  hostDir: string;
  model: { baseUrl: string; modelId: string };
  plugins: LegacyPlugin[];
  /** Default "coding". */
  toolsProfile?: string;
  /** Deep-merged over the generated config. */
  config?: JsonObject;
};

export type ChatMessage = { role?: string; content?: unknown; timestamp?: number; [key: string]: unknown };

export type StoredToolResult = { sessionFile: string; toolCallId: string; toolName: string; isError: boolean; text: string; details?: JsonObject };
/** Lengths of the gateway's output and of its log file at one moment. */
export type LogMark = { output: number; file: number };

export type LegacyEnv = {
  rootDir: string;
  hostDir: string;
  version: string;
  stateDir: string;
  workspaceDir: string;
  logFile: string;
  env: NodeJS.ProcessEnv;
  openclaw: (args: string[], opts?: { timeoutMs?: number }) => Promise<CliResult>;
  /** Replaces plugins.entries.<id>.config in the config file (takes effect at the next gateway start). */
  setPluginConfig: (id: string, config: JsonObject) => void;
  /** Starts `openclaw gateway run`; resolves when it listens. */
  startGateway: () => Promise<{ readyMs: number }>;
  stopGateway: () => Promise<void>;
  /** One Gateway RPC through the host's own client (see rpc-worker.mjs). */
  gatewayCall: (method: string, params: JsonObject, timeoutMs?: number) => Promise<unknown>;
  /** chat.send (agent turn or slash command) in a session; waits for the assistant reply in chat.history. */
  chatSend: (sessionKey: string, message: string, timeoutMs?: number) => Promise<{ reply: string; history: ChatMessage[] }>;
  chatHistory: (sessionKey: string) => Promise<ChatMessage[]>;
  /** Everything the gateway printed plus its log file. */
  readLog: () => string;
  /** A point in the output and the log file; `readLogSince` returns what both gained after it. */
  logMark: () => LogMark;
  readLogSince: (mark: LogMark) => string;
  /** ClawOS audit records (`<state dir>/clawos/audit.jsonl`). */
  auditRecords: () => Array<Record<string, unknown>>;
  /** Tool results stored in the JSONL transcripts. */
  storedToolResults: () => StoredToolResult[];
  dispose: () => Promise<void>;
};

export function messageText(message: ChatMessage | undefined): string {
  if (!message) return "";
  const { content } = message;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p?.text === "string" ? p.text : "")).join("");
  return typeof message.text === "string" ? message.text : "";
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function merge(base: JsonObject, patch: JsonObject): JsonObject {
  const out: JsonObject = { ...base };
  for (const [key, value] of Object.entries(patch)) out[key] = isObject(value) && isObject(out[key]) ? merge(out[key] as JsonObject, value) : value;
  return out;
}

export async function createLegacyEnv(options: LegacyEnvOptions): Promise<LegacyEnv> {
  const version = (JSON.parse(readFileSync(join(options.hostDir, "package.json"), "utf8")) as { version: string }).version;
  const hostTmp = snapshotHostTmp();
  const rootDir = mkdtempSync(join(tmpdir(), `clawos-legacy-${version}-`));
  const home = join(rootDir, "home");
  const stateDir = join(home, ".openclaw");
  const workspaceDir = join(rootDir, "workspace");
  const logFile = join(rootDir, "openclaw.log");
  const outFile = join(rootDir, "gateway.out");
  for (const dir of [stateDir, workspaceDir, join(rootDir, "tmp")]) mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const token = randomUUID();
  const configPath = join(stateDir, "openclaw.json");
  const config = merge(
    {
      gateway: { mode: "local", port, bind: "loopback", auth: { mode: "token", token } },
      models: {
        providers: {
          scripted: {
            baseUrl: options.model.baseUrl,
            apiKey: "scripted-test-key",
            api: "openai-completions",
            models: [
              {
                id: options.model.modelId,
                name: "Scripted test model",
                input: ["text"],
                contextWindow: 128_000,
                maxTokens: 4096,
                cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
              },
            ],
          },
        },
      },
      agents: { defaults: { model: { primary: `scripted/${options.model.modelId}` }, workspace: workspaceDir } },
      tools: { profile: options.toolsProfile ?? "coding" },
      plugins: {
        // Only the plugins under test: bundled ones (memory-core in 2026.1.x, device-pair & co. in
        // 2026.2.x) import the plugin SDK, which these releases load through jiti, transpiling most
        // of OpenClaw's own dist first (a minute or more per process with a cold cache).
        allow: options.plugins.map((p) => p.id),
        slots: { memory: "none" },
        load: { paths: options.plugins.map((p) => p.dir) },
        entries: Object.fromEntries(options.plugins.map((p) => [p.id, { enabled: true, ...(p.config ? { config: p.config } : {}) }])),
      },
      update: { checkOnStart: false },
      logging: { file: logFile, level: "debug" },
    },
    options.config ?? {},
  );
  writeFileSync(configPath, JSON.stringify(config, null, 2));
  const setPluginConfig = (id: string, pluginConfig: JsonObject) => {
    const current = JSON.parse(readFileSync(configPath, "utf8")) as { plugins: { entries: Record<string, JsonObject> } };
    current.plugins.entries[id] = { ...current.plugins.entries[id], config: pluginConfig };
    writeFileSync(configPath, JSON.stringify(current, null, 2));
  };

  // These releases have no OPENCLAW_HOME: isolate through HOME and the state/config overrides.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    OPENCLAW_STATE_DIR: stateDir,
    OPENCLAW_CONFIG_PATH: configPath,
    OPENCLAW_GATEWAY_TOKEN: token,
    TMPDIR: join(rootDir, "tmp"),
    NO_COLOR: "1",
    FORCE_COLOR: "0",
  };
  for (const key of ["OPENCLAW_HOME", "NODE_OPTIONS", "VITEST", "VITEST_WORKER_ID", "VITEST_POOL_ID"]) delete env[key];

  const entry = join(options.hostDir, "openclaw.mjs");
  const openclaw = (args: string[], opts: { timeoutMs?: number } = {}) =>
    runCommand(node24(), [entry, ...args], { env, cwd: workspaceDir, timeoutMs: opts.timeoutMs ?? 120_000 });

  let gateway: ChildProcess | undefined;
  let output = "";
  const readLogFile = () => (existsSync(logFile) ? readFileSync(logFile, "utf8") : "");
  const readLog = () => output + readLogFile();
  // Both grow while a gateway runs, so an offset into their concatenation would drift: each keeps its own.
  const logMark = (): LogMark => ({ output: output.length, file: readLogFile().length });
  const readLogSince = (mark: LogMark) => output.slice(mark.output) + readLogFile().slice(mark.file);

  const startGateway = async () => {
    if (gateway) throw new Error("gateway already running");
    const started = Date.now();
    const child = startTracked(node24(), [entry, "gateway", "run"], { env, cwd: workspaceDir });
    gateway = child;
    const onData = (d: Buffer) => {
      output += d.toString();
      writeFileSync(outFile, d, { flag: "a" });
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    const deadline = Date.now() + 150_000;
    const since = output.length;
    while (!/listening on ws:\/\//.test(output.slice(since))) {
      if (child.exitCode !== null || child.signalCode !== null) {
        gateway = undefined;
        throw new Error(`gateway exited before ready:\n${output.slice(-4000)}`);
      }
      if (Date.now() > deadline) {
        await stopProcess(child);
        gateway = undefined;
        throw new Error(`gateway not ready:\n${output.slice(-4000)}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    return { readyMs: Date.now() - started };
  };

  const stopGateway = async () => {
    if (worker) await stopProcess(worker, 2_000);
    worker = undefined;
    if (gateway) await stopProcess(gateway);
    gateway = undefined;
  };

  // Gateway RPCs go through one long-lived worker using the host's own client (rpc-worker.mjs).
  let worker: ChildProcess | undefined;
  let workerReady: Promise<void> | undefined;
  let nextId = 0;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const startWorker = () => {
    const child = spawn(node24(), [join(import.meta.dirname, "rpc-worker.mjs"), options.hostDir], {
      env,
      cwd: workspaceDir,
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const killOnExit = () => killGroup(child, "SIGKILL");
    process.once("exit", killOnExit);
    child.once("exit", () => process.removeListener("exit", killOnExit));
    worker = child;
    let buffer = "";
    let stderr = "";
    workerReady = new Promise<void>((ready, fail) => {
      child.stderr?.on("data", (d) => (stderr = (stderr + d).slice(-4000)));
      child.stdout?.on("data", (d) => {
        buffer += d.toString();
        let nl: number;
        while ((nl = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (!line.startsWith("{")) continue; // host log lines
          let msg: { ready?: boolean; id?: number; ok?: boolean; result?: unknown; error?: string };
          try {
            msg = JSON.parse(line);
          } catch {
            continue;
          }
          if (msg.ready) ready();
          const waiter = msg.id === undefined ? undefined : pending.get(msg.id);
          if (!waiter) continue;
          pending.delete(msg.id!);
          if (msg.ok) waiter.resolve(msg.result);
          else waiter.reject(new Error(msg.error));
        }
      });
      child.once("exit", (code) => {
        const error = new Error(`rpc worker exited (${code}): ${stderr}`);
        fail(error);
        for (const w of pending.values()) w.reject(error);
        pending.clear();
        if (worker === child) worker = undefined;
      });
    });
  };

  const gatewayCall = async (method: string, params: JsonObject, timeoutMs = 60_000) => {
    if (!worker) startWorker();
    await workerReady;
    const id = nextId++;
    const result = new Promise<unknown>((resolveCall, rejectCall) => pending.set(id, { resolve: resolveCall, reject: rejectCall }));
    worker!.stdin!.write(`${JSON.stringify({ id, method, params, timeoutMs })}\n`);
    return result;
  };

  const chatHistory = async (sessionKey: string) => {
    const res = (await gatewayCall("chat.history", { sessionKey, limit: 100 })) as { messages?: ChatMessage[] } | undefined;
    return res?.messages ?? [];
  };

  const chatSend = async (sessionKey: string, message: string, timeoutMs = 120_000) => {
    const sentAt = Date.now();
    await gatewayCall("chat.send", { sessionKey, message, idempotencyKey: randomUUID() });
    const deadline = Date.now() + timeoutMs;
    let history: ChatMessage[] = [];
    while (Date.now() < deadline) {
      history = await chatHistory(sessionKey);
      const reply = [...history].reverse().find((m) => m.role === "assistant" && (m.timestamp ?? 0) >= sentAt && messageText(m).trim() !== "");
      if (reply) return { reply: messageText(reply), history };
      await new Promise((r) => setTimeout(r, 300));
    }
    throw new Error(`no assistant reply in ${sessionKey} after ${timeoutMs} ms; history: ${JSON.stringify(history).slice(-2000)}`);
  };

  const auditRecords = () => {
    const file = join(stateDir, "clawos", "audit.jsonl");
    if (!existsSync(file)) return [];
    return readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  };

  const storedToolResults = () => {
    const out: StoredToolResult[] = [];
    const agentsDir = join(stateDir, "agents");
    if (!existsSync(agentsDir)) return out;
    for (const agent of readdirSync(agentsDir)) {
      const sessionsDir = join(agentsDir, agent, "sessions");
      if (!existsSync(sessionsDir)) continue;
      for (const file of readdirSync(sessionsDir).filter((f) => f.endsWith(".jsonl"))) {
        for (const line of readFileSync(join(sessionsDir, file), "utf8").split("\n").filter(Boolean)) {
          const m = (JSON.parse(line) as { message?: Record<string, unknown> }).message;
          if (m?.role !== "toolResult") continue;
          out.push({
            sessionFile: file,
            toolCallId: String(m.toolCallId ?? ""),
            toolName: String(m.toolName ?? ""),
            isError: m.isError === true,
            text: messageText(m as ChatMessage),
            details: isObject(m.details) ? m.details : undefined,
          });
        }
      }
    }
    return out;
  };

  return {
    rootDir,
    hostDir: options.hostDir,
    version,
    stateDir,
    workspaceDir,
    logFile,
    env,
    openclaw,
    setPluginConfig,
    startGateway,
    stopGateway,
    gatewayCall,
    chatSend,
    chatHistory,
    readLog,
    logMark,
    readLogSince,
    auditRecords,
    storedToolResults,
    dispose: async () => {
      await stopGateway();
      cleanupHostTmp(hostTmp, stateDir);
      rmSync(rootDir, { recursive: true, force: true });
    },
  };
}
