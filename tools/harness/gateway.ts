// An isolated OpenClaw installation for one test run: its own OPENCLAW_HOME, TMPDIR, port and log,
// a gateway process it can start/stop/restart, and helpers for every way a turn can run.
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { get as httpGet } from "node:http";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { baseConfig, mergeConfig, SCRIPTED_PROVIDER_ID } from "./openclaw-config.ts";
import type { JsonObject } from "./openclaw-config.ts";
import { cleanupHostTmp, snapshotHostTmp } from "./host-tmp.ts";
import { installPlugin, setPluginConfigIn } from "./plugin-install.ts";
import type { PluginSpec } from "./plugin-install.ts";
import { openclawEntry } from "./dev-host.ts";
import { freePort, node24, parseJsonOutput, runCommand, startTracked, stopProcess } from "./processes.ts";
import type { CliResult } from "./processes.ts";
import { readTranscript, toolResultsFrom } from "./transcripts.ts";
import type { TranscriptEvent, TranscriptToolResult } from "./transcripts.ts";

export type { PluginSpec, PluginInstallRoute } from "./plugin-install.ts";
export type { CliResult } from "./processes.ts";

export type OpenClawEnvOptions = {
  /** Where the scripted model listens, e.g. `model.baseUrl` of startScriptedModel(). */
  model: { baseUrl: string; modelId: string };
  plugins?: PluginSpec[];
  /** Default "coding" (exec, fs, web, sessions tools). */
  toolsProfile?: string;
  /** undefined keeps the host default (Tool Search on). */
  toolSearch?: boolean;
  /** Allow tools registered by plugins (tools.alsoAllow: ["group:plugins"]). Default true. */
  pluginTools?: boolean;
  /** Deep-merged over the generated config (arrays replace). */
  config?: JsonObject;
  /** Keep the run directory after dispose() (for debugging). */
  keepFiles?: boolean;
};

export type GatewayReady = { readyMs: number; pluginCount: number; pluginIds: string[] };

export type AgentTurnOptions = { sessionKey: string; message: string; agent?: string; timeoutMs?: number; extraArgs?: string[] };

export type OpenClawEnv = {
  rootDir: string;
  home: string;
  stateDir: string;
  configPath: string;
  logFile: string;
  gatewayOutFile: string;
  tmpDir: string;
  workspaceDir: string;
  port: number;
  token: string;
  modelRef: string;
  env: NodeJS.ProcessEnv;

  readConfig: () => JsonObject;
  writeConfig: (config: JsonObject) => void;
  /** Sets plugins.entries.<id>.config in place (a running gateway hot-reloads it). */
  setPluginConfig: (id: string, config: JsonObject) => void;

  /** Runs `openclaw <args>` with this environment. */
  openclaw: (args: string[], opts?: { timeoutMs?: number }) => Promise<CliResult>;

  startGateway: (opts?: { expectPlugins?: string[]; timeoutMs?: number }) => Promise<GatewayReady>;
  stopGateway: () => Promise<void>;
  restartGateway: (opts?: { expectPlugins?: string[] }) => Promise<GatewayReady>;
  gatewayRunning: () => boolean;

  /** `openclaw agent --agent main --session-key K --message M --json` through the gateway. */
  agentTurn: (opts: AgentTurnOptions) => Promise<{ result: CliResult; json: unknown }>;
  /** `openclaw agent --local ...` (embedded; refuses while the gateway runs on this state dir). */
  agentLocal: (opts: AgentTurnOptions) => Promise<{ result: CliResult; json: unknown }>;
  /** `openclaw agent exec "..." --model <scripted> --json` (headless one-shot). */
  agentExec: (
    message: string,
    opts?: { stateDir?: string; cwd?: string; timeoutMs?: number; extraArgs?: string[] },
  ) => Promise<{ result: CliResult; json: unknown }>;
  /** `openclaw gateway call <method> --params <json> --json`. */
  gatewayCall: (method: string, params: JsonObject, opts?: { timeoutMs?: number }) => Promise<unknown>;
  /**
   * One RPC with explicit operator scopes through OpenClaw's own client. `gateway call` always asks for a
   * method's least-privilege scopes (chat.send: operator.write only, so /new and /reset are refused).
   */
  gatewayRpc: (method: string, params: JsonObject, opts?: { scopes?: string[]; timeoutMs?: number }) => Promise<unknown>;
  /**
   * chat.send, then polls chat.history until an assistant reply newer than the send appears.
   * `scopes` switches from `gateway call` (operator.write) to gatewayRpc with those scopes.
   */
  chatSend: (opts: {
    sessionKey: string;
    message: string;
    waitForReply?: boolean;
    timeoutMs?: number;
    scopes?: string[];
    /** Wait for a reply whose text this accepts (a run's last words), not merely the first one. */
    until?: (text: string) => boolean;
  }) => Promise<{ sent: unknown; reply?: ChatHistoryMessage; history: ChatHistoryMessage[] }>;
  chatHistory: (sessionKey: string, limit?: number) => Promise<ChatHistoryMessage[]>;

  readLog: () => string;
  /** Structured entries of the JSON log file (level, message). */
  logEntries: () => LogEntry[];
  /** ERROR/FATAL log messages, plus warnings about failing plugins; limited to `pluginIds` when given. */
  pluginErrors: (pluginIds?: string[]) => string[];
  transcript: (opts?: { agent?: string; sessionKey?: string }) => TranscriptEvent[];
  toolResults: (opts?: { agent?: string; sessionKey?: string }) => TranscriptToolResult[];

  /** Stops the gateway and removes the run directory. */
  dispose: () => Promise<void>;
};

export type LogEntry = { level: string; message: string; time?: string };

export type ChatHistoryMessage = { role?: string; content?: unknown; text?: string; timestamp?: number; [key: string]: unknown };

const RPC_SCRIPT = join(import.meta.dirname, "gateway-rpc-cli.ts");
const READY_LINE = /http server listening \((\d+) plugins?(?::\s*([^);]*))?/;

/** Whether an HTTP server on the loopback port answers a request (any status) within 3 s. */
function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = httpGet({ host: "127.0.0.1", port, path: "/", timeout: 3000 }, (res) => {
      res.resume();
      resolve(true);
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(false));
  });
}

export function messageTextOf(message: ChatHistoryMessage | undefined): string {
  if (!message) return "";
  if (typeof message.text === "string") return message.text;
  const { content } = message;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p?.text === "string" ? p.text : "")).join("");
  return "";
}

export async function createOpenClawEnv(options: OpenClawEnvOptions): Promise<OpenClawEnv> {
  const hostTmp = snapshotHostTmp();
  const rootDir = mkdtempSync(join(tmpdir(), "clawos-e2e-"));
  const home = join(rootDir, "home");
  const stateDir = join(home, ".openclaw");
  const tmpDir = join(rootDir, "tmp");
  const workspaceDir = join(rootDir, "workspace");
  for (const dir of [stateDir, tmpDir, workspaceDir]) mkdirSync(dir, { recursive: true });
  const configPath = join(stateDir, "openclaw.json");
  const logFile = join(rootDir, "openclaw.log");
  const gatewayOutFile = join(rootDir, "gateway.out");
  const port = await freePort();
  const token = randomUUID();
  const modelRef = `${SCRIPTED_PROVIDER_ID}/${options.model.modelId}`;

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    OPENCLAW_HOME: home,
    TMPDIR: tmpDir,
    // Keeps the CLI from trying to reach the network for update checks and similar niceties.
    OPENCLAW_NO_UPDATE_CHECK: "1",
    NO_COLOR: "1",
    FORCE_COLOR: "0",
  };
  delete env.OPENCLAW_STATE_DIR;
  delete env.OPENCLAW_CONFIG_PATH;
  delete env.NODE_OPTIONS;
  delete env.VITEST;
  delete env.VITEST_WORKER_ID;
  delete env.VITEST_POOL_ID;

  const readConfig = () => JSON.parse(readFileSync(configPath, "utf8")) as JsonObject;
  const writeConfig = (config: JsonObject) => writeFileSync(configPath, JSON.stringify(config, null, 2));

  writeConfig(
    mergeConfig(
      baseConfig({
        port,
        token,
        modelBaseUrl: options.model.baseUrl,
        modelId: options.model.modelId,
        logFile,
        workspaceDir,
        toolsProfile: options.toolsProfile ?? "coding",
        toolSearch: options.toolSearch,
        pluginTools: options.pluginTools ?? true,
      }),
      options.config ?? {},
    ),
  );

  const openclaw = (args: string[], opts: { timeoutMs?: number; cwd?: string } = {}) =>
    runCommand(node24(), [openclawEntry(), ...args], { env, cwd: opts.cwd ?? workspaceDir, timeoutMs: opts.timeoutMs });

  const npm = (args: string[], cwd: string) => {
    // The system npm runs under Node 24 when that Node is first on PATH.
    const npmEnv = { ...env, PATH: `${join(node24(), "..")}:${env.PATH ?? ""}` };
    return runCommand("npm", args, { env: npmEnv, cwd, timeoutMs: 120_000 });
  };

  const installCtx = { stateDir, scratchDir: rootDir, readConfig, writeConfig, openclaw: (a: string[]) => openclaw(a), npm };
  for (const spec of options.plugins ?? []) await installPlugin(installCtx, spec);

  let gateway: ChildProcess | undefined;

  const readLog = () => (existsSync(logFile) ? readFileSync(logFile, "utf8") : "") + (existsSync(gatewayOutFile) ? readFileSync(gatewayOutFile, "utf8") : "");

  const startGateway = async (opts: { expectPlugins?: string[]; timeoutMs?: number } = {}): Promise<GatewayReady> => {
    if (gateway && gateway.exitCode === null) throw new Error("gateway already running");
    const started = Date.now();
    // Only log lines written by this start count as ready (a restart's log holds the previous one).
    const logOffset = existsSync(logFile) ? statSync(logFile).size : 0;
    const child = startTracked(node24(), [openclawEntry(), "gateway", "run"], { env, cwd: workspaceDir });
    gateway = child;
    let output = "";
    const onData = (d: Buffer) => {
      output += d.toString();
      writeFileSync(gatewayOutFile, d, { flag: "a" });
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    const timeoutMs = opts.timeoutMs ?? 120_000;
    const ready = await new Promise<RegExpMatchArray>((resolveReady, reject) => {
      const timer = setInterval(() => {
        const match = output.match(READY_LINE) ?? (existsSync(logFile) ? readFileSync(logFile).subarray(logOffset).toString("utf8").match(READY_LINE) : null);
        if (match) {
          clearInterval(timer);
          resolveReady(match);
        } else if (child.exitCode !== null || child.signalCode !== null) {
          clearInterval(timer);
          reject(new Error(`gateway exited (${child.exitCode ?? child.signalCode}) before ready:\n${output.slice(-4000)}`));
        } else if (Date.now() - started > timeoutMs) {
          clearInterval(timer);
          reject(new Error(`gateway not ready after ${timeoutMs} ms:\n${output.slice(-4000)}`));
        }
      }, 200);
    }).catch(async (error) => {
      await stopProcess(child);
      throw error;
    });
    const pluginIds = (ready[2] ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    // The ready line comes before the gateway's startup work ends; on a busy machine a client that
    // connects at once can time out. Wait until its HTTP server answers a request.
    const answering = Date.now() + 60_000;
    while (Date.now() < answering && !(await answers(port))) await new Promise((r) => setTimeout(r, 250));
    const result = { readyMs: Date.now() - started, pluginCount: Number(ready[1]), pluginIds };
    const missing = (opts.expectPlugins ?? []).filter((id) => !pluginIds.includes(id));
    if (missing.length > 0) {
      await stopProcess(child);
      throw new Error(`gateway ready without plugins ${missing.join(", ")}; loaded: ${pluginIds.join(", ")}\n${output.slice(-4000)}`);
    }
    return result;
  };

  const stopGateway = async () => {
    if (gateway) await stopProcess(gateway);
    gateway = undefined;
  };

  const cliJson = async (args: string[], timeoutMs?: number, cwd?: string) => {
    const result = await openclaw(args, { timeoutMs, cwd });
    let json: unknown;
    try {
      json = parseJsonOutput(result.stdout);
    } catch {
      json = undefined;
    }
    return { result, json };
  };

  const gatewayCall = async (method: string, params: JsonObject, opts: { timeoutMs?: number } = {}) => {
    const { result, json } = await cliJson(["gateway", "call", method, "--params", JSON.stringify(params), "--json"], opts.timeoutMs ?? 60_000);
    if (result.code !== 0) throw new Error(`gateway call ${method} failed (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
    return json;
  };

  const chatHistory = async (sessionKey: string, limit = 50): Promise<ChatHistoryMessage[]> => {
    const res = (await gatewayCall("chat.history", { sessionKey, limit })) as { messages?: ChatHistoryMessage[] } | undefined;
    return res?.messages ?? [];
  };

  const gatewayRpc: OpenClawEnv["gatewayRpc"] = async (method, params, opts = {}) => {
    const scopes = opts.scopes ?? ["operator.admin", "operator.read", "operator.write"];
    const timeoutMs = opts.timeoutMs ?? 60_000;
    const result = await runCommand(node24(), [RPC_SCRIPT, method, JSON.stringify(params), scopes.join(","), String(timeoutMs)], {
      env,
      cwd: workspaceDir,
      timeoutMs: timeoutMs + 30_000,
    });
    if (result.code !== 0) throw new Error(`gateway rpc ${method} failed (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
    return parseJsonOutput(result.stdout);
  };

  const chatSend: OpenClawEnv["chatSend"] = async ({ sessionKey, message, waitForReply = true, timeoutMs = 90_000, scopes, until }) => {
    // Match the reply by time, not position: /new and /reset start a fresh, shorter history.
    const sentAt = Date.now();
    const params = { sessionKey, message, idempotencyKey: randomUUID() };
    const sent = scopes ? await gatewayRpc("chat.send", params, { scopes }) : await gatewayCall("chat.send", params);
    if (!waitForReply) return { sent, history: [] };
    const deadline = Date.now() + timeoutMs;
    let history: ChatHistoryMessage[] = [];
    while (Date.now() < deadline) {
      history = await chatHistory(sessionKey);
      const reply = [...history].reverse().find((m) => {
        if (m.role !== "assistant" || (m.timestamp ?? 0) < sentAt) return false;
        const text = messageTextOf(m).trim();
        return text !== "" && (!until || until(text));
      });
      if (reply) return { sent, reply, history };
      await new Promise((r) => setTimeout(r, 500));
    }
    throw new Error(`no assistant reply in ${sessionKey} after ${timeoutMs} ms; history: ${JSON.stringify(history).slice(-2000)}`);
  };

  const logEntries = (): LogEntry[] => {
    if (!existsSync(logFile)) return [];
    return readFileSync(logFile, "utf8")
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => {
        try {
          const j = JSON.parse(line);
          const parts = Object.keys(j)
            .filter((k) => /^\d+$/.test(k))
            .map((k) => (typeof j[k] === "string" ? j[k] : JSON.stringify(j[k])));
          return { level: j._meta?.logLevelName ?? "", message: parts.join(" "), time: j.time };
        } catch {
          return { level: "", message: line };
        }
      });
  };

  const pluginErrors = (pluginIds?: string[]) =>
    logEntries()
      .filter(
        (e) =>
          e.level === "ERROR" ||
          e.level === "FATAL" ||
          (e.level === "WARN" && /plugin/i.test(e.message) && /(fail|error|invalid|reject|could not|cannot)/i.test(e.message)),
      )
      .map((e) => e.message)
      .filter((m) => !pluginIds || pluginIds.some((id) => m.includes(id)));

  const transcriptDb = (agent = "main") => join(stateDir, "agents", agent, "agent", "openclaw-agent.sqlite");

  return {
    rootDir,
    home,
    stateDir,
    configPath,
    logFile,
    gatewayOutFile,
    tmpDir,
    workspaceDir,
    port,
    token,
    modelRef,
    env,
    readConfig,
    writeConfig,
    setPluginConfig: (id, config) => setPluginConfigIn({ readConfig, writeConfig }, id, config),
    openclaw: (args, opts) => openclaw(args, opts),
    startGateway,
    stopGateway,
    restartGateway: async (opts) => {
      await stopGateway();
      return startGateway(opts);
    },
    gatewayRunning: () => Boolean(gateway && gateway.exitCode === null && gateway.signalCode === null),
    agentTurn: ({ sessionKey, message, agent = "main", timeoutMs = 120_000, extraArgs = [] }) =>
      cliJson(["agent", "--agent", agent, "--session-key", sessionKey, "--message", message, "--json", ...extraArgs], timeoutMs),
    agentLocal: ({ sessionKey, message, agent = "main", timeoutMs = 180_000, extraArgs = [] }) =>
      cliJson(["agent", "--local", "--agent", agent, "--session-key", sessionKey, "--message", message, "--json", ...extraArgs], timeoutMs),
    agentExec: async (message, opts = {}) => {
      const args = [
        "agent",
        "exec",
        message,
        "--model",
        modelRef,
        "--json",
        ...(opts.stateDir ? ["--state-dir", opts.stateDir] : []),
        ...(opts.extraArgs ?? []),
      ];
      return cliJson(args, opts.timeoutMs ?? 180_000, opts.cwd);
    },
    gatewayCall,
    gatewayRpc,
    chatSend,
    chatHistory,
    readLog,
    logEntries,
    pluginErrors,
    transcript: ({ agent, sessionKey } = {}) => readTranscript(transcriptDb(agent), { sessionKey }),
    toolResults: ({ agent, sessionKey } = {}) => toolResultsFrom(readTranscript(transcriptDb(agent), { sessionKey })),
    dispose: async () => {
      await stopGateway();
      cleanupHostTmp(hostTmp, stateDir);
      if (!options.keepFiles) rmSync(rootDir, { recursive: true, force: true });
    },
  };
}
