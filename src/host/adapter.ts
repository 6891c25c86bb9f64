import type { Decision } from "../policy/decision.ts";
import { POLICY_ID } from "../ids.ts";
import type { Requester, ToolCall } from "../engine.ts";
import {
  defaultStateDir,
  noteHookFired,
  noteHookRegistered,
  obtainRuntime,
  statusSnapshot,
  type ClawosRuntime,
} from "./runtime.ts";
import { detectHostWiring, findOpenClawPackageDir } from "./legacy-host.ts";
import { formatAudit, formatManifests, formatSession, formatStatus } from "../report/status.ts";

/**
 * The host adapter: the only module that knows OpenClaw's hook events, contexts and plugin API.
 * It maps them onto plain engine calls and maps decisions back onto hook results.
 * The API is typed structurally so the same code loads on hosts old and new.
 */

export { POLICY_ID };

type AnyRecord = Record<string, unknown>;
type Handler = (event: any, ctx: any) => unknown;

export interface HostApi {
  pluginConfig?: AnyRecord;
  logger: { info: (msg: string) => void; warn: (msg: string) => void; error: (msg: string) => void; debug?: (msg: string) => void };
  on: (hook: string, handler: Handler, opts?: AnyRecord) => void;
  registerCommand?: (command: AnyRecord) => void;
  registerTrustedToolPolicy?: (policy: { id: string; description: string; evaluate: Handler }) => void;
  resolvePath?: (input: string) => string;
  runtime?: { version?: string; state?: { resolveStateDir?: (env?: NodeJS.ProcessEnv) => string } };
  registrationMode?: string;
}

const SUBAGENT_REST = /^subagent:/;

/** The host's own classifier, when its SDK is reachable from here (see `loadHostSessionKeyClassifier`). */
let hostIsSubagentSessionKey: ((key: string) => boolean) | undefined;

/** Uses the host's `isSubagentSessionKey` when the plugin SDK can be imported; the mirror below otherwise. */
export function loadHostSessionKeyClassifier(): Promise<void> {
  const specifier = "openclaw/plugin-sdk/routing";
  return import(specifier).then(
    (mod: { isSubagentSessionKey?: (key: string) => boolean }) => {
      if (typeof mod.isSubagentSessionKey === "function") hostIsSubagentSessionKey = mod.isSubagentSessionKey;
    },
    () => undefined,
  );
}

/**
 * Sub-agent and ACP child sessions: the host's classifier (the part after `agent:<id>:` starts
 * with `subagent:`) or our mirror of it, plus ACP children (`agent:<id>:acp:<uuid>`).
 * A key that merely contains `subagent` further in (a spoof inside a normal key) is not a child,
 * which only matters for the stricter child rules; its trust still comes from its own inputs.
 */
export function isSubagentSessionKey(sessionKey: string | undefined): boolean {
  if (!sessionKey) return false;
  // Fast path for the common case (every gate call asks): no marker anywhere, no child.
  const lower = sessionKey.toLowerCase();
  if (!lower.includes("subagent:") && !lower.includes(":acp:")) return false;
  if (hostIsSubagentSessionKey?.(sessionKey) === true) return true;
  const key = sessionKey.trim().toLowerCase();
  if (SUBAGENT_REST.test(key)) return true;
  const parts = key.split(":");
  if (parts[0] === "agent" && parts.length >= 3) {
    const rest = parts.slice(2);
    return rest[0] === "subagent" || rest[0] === "acp";
  }
  return false;
}

function requesterOf(ctx: AnyRecord | undefined): Requester | undefined {
  const r = ctx?.requester as AnyRecord | undefined;
  if (!r || typeof r !== "object") return undefined;
  return {
    channel: typeof r.channel === "string" ? r.channel : undefined,
    senderId: typeof r.senderId === "string" ? r.senderId : undefined,
    senderIsOwner: r.senderIsOwner === true,
  };
}

function str(value: unknown): string | undefined {
  return typeof value === "string" && value ? value : undefined;
}

export function toToolCall(event: AnyRecord, ctx: AnyRecord | undefined): ToolCall {
  const sessionKey = str(ctx?.sessionKey);
  return {
    toolName: String(event?.toolName ?? ctx?.toolName ?? ""),
    params: event?.params ?? {},
    toolKind: str(event?.toolKind) ?? str(ctx?.toolKind),
    toolCallId: str(event?.toolCallId) ?? str(ctx?.toolCallId),
    sessionKey,
    agentId: str(ctx?.agentId),
    isSubagent: isSubagentSessionKey(sessionKey),
    requester: requesterOf(ctx),
  };
}

/** What the host gets back from a gate: nothing for allow, a block with the reason otherwise. */
export function toHookResult(decision: Decision): { block: true; blockReason: string } | undefined {
  if (decision.outcome === "block") return { block: true, blockReason: decision.reason ?? `ClawOS blocked ${decision.tool}` };
  return undefined;
}

function configBlock(runtime: ClawosRuntime, event: AnyRecord): { block: true; blockReason: string } {
  return {
    block: true,
    blockReason: `ClawOS blocked ${String(event?.toolName)}: the ClawOS config is invalid, so every tool call is blocked until it is fixed: ${runtime.configErrors.join(" ")}`,
  };
}

/** The gate, shared by the trusted tool policy and before_tool_call. */
function gate(runtime: ClawosRuntime, hook: string, event: AnyRecord, ctx: AnyRecord, logger: HostApi["logger"]) {
  noteHookFired(runtime, hook);
  if (runtime.configErrors.length > 0) return configBlock(runtime, event);
  const decision = runtime.engine.gate(toToolCall(event, ctx));
  if (decision.rules.some((r) => r.rule === "internal.error")) logger.error(`clawos: ${decision.reason}`);
  return toHookResult(decision);
}

function observeAfterToolCall(runtime: ClawosRuntime, event: AnyRecord, ctx: AnyRecord): void {
  noteHookFired(runtime, "after_tool_call");
  const sessionKey = str(ctx?.sessionKey);
  runtime.engine.observeResult({
    toolName: str(event?.toolName),
    params: event?.params,
    toolKind: str(event?.toolKind),
    toolCallId: str(event?.toolCallId) ?? str(ctx?.toolCallId),
    sessionKey,
    isSubagent: isSubagentSessionKey(sessionKey),
  });
}

/**
 * tool_result_persist is synchronous. It taints the session (for hosts and paths without
 * after_tool_call) and stamps ClawOS's tag into the stored result's `details`, which the model
 * never sees and which ClawOS never reads back.
 */
function observePersist(runtime: ClawosRuntime, event: AnyRecord, ctx: AnyRecord): { message: AnyRecord } | undefined {
  noteHookFired(runtime, "tool_result_persist");
  const message = event?.message as AnyRecord | undefined;
  const sessionKey = str(ctx?.sessionKey);
  const observed = runtime.engine.observeResult({
    toolName: str(event?.toolName) ?? str(ctx?.toolName) ?? str(message?.toolName),
    toolCallId: str(event?.toolCallId) ?? str(ctx?.toolCallId) ?? str(message?.toolCallId),
    sessionKey,
    isSubagent: isSubagentSessionKey(sessionKey),
    // Host-made results (an interrupted call's placeholder) carry nothing from the tool. A blocked
    // call is recognised from ClawOS's own decision, never from details a tool could have written.
    synthetic: event?.isSynthetic === true,
  });
  if (!observed || !message || typeof message !== "object") return undefined;
  const details = message.details && typeof message.details === "object" ? (message.details as AnyRecord) : {};
  const state = sessionKey ? runtime.engine.store.peek(sessionKey) : undefined;
  return {
    message: {
      ...message,
      details: { ...details, clawos: { outputTrust: observed.level, tool: observed.tool, sessionTrust: state?.trust } },
    },
  };
}

function parseCount(text: string | undefined, fallback: number): number {
  const n = Number.parseInt(text ?? "", 10);
  return Number.isFinite(n) && n > 0 ? Math.min(n, 500) : fallback;
}

/** Who may raise trust: the owner as resolved by the host, or a gateway operator with admin scope. */
function isOwnerAction(ctx: AnyRecord): { ok: boolean; by: string } {
  const scopes = Array.isArray(ctx?.gatewayClientScopes) ? (ctx.gatewayClientScopes as string[]) : [];
  const by = `${str(ctx?.channel) ?? "?"}:${str(ctx?.senderId) ?? "operator"}`;
  if (ctx?.senderIsOwner === true) return { ok: true, by: `owner ${by}` };
  if (scopes.includes("operator.admin")) return { ok: true, by: `gateway operator ${by} (operator.admin)` };
  return { ok: false, by };
}

export function handleCommand(runtime: ClawosRuntime, ctx: AnyRecord): { text: string } {
  const args = (str(ctx?.args) ?? "").trim().split(/\s+/).filter(Boolean);
  const sessionKey = str(ctx?.sessionKey);
  const engine = runtime.engine;
  switch (args[0] ?? "status") {
    case "status":
      return { text: formatStatus(statusSnapshot(runtime)) };
    case "session":
      return { text: formatSession(sessionKey, sessionKey ? engine.store.peek(sessionKey) ?? engine.store.get(sessionKey) : undefined, isSubagentSessionKey(sessionKey)) };
    case "audit":
      return { text: formatAudit(engine.audit.recent(parseCount(args[1], 20)), engine.audit.byToolRule.values()) };
    case "manifests":
      return { text: formatManifests(engine.manifests.distinct(), args[1]?.toLowerCase()) };
    case "trust": {
      if (args[1] !== "reset") return { text: "Usage: /clawos trust reset" };
      if (!sessionKey) return { text: "ClawOS: no session to reset here." };
      if (isSubagentSessionKey(sessionKey)) return { text: "ClawOS: a sub-agent session's trust cannot be reset; it follows its parent." };
      const who = isOwnerAction(ctx);
      if (!who.ok) {
        return { text: `ClawOS: only the owner (or a gateway operator with operator.admin) can reset trust; ${who.by} is not. Nothing changed.` };
      }
      const { from, to } = engine.resetTrust(sessionKey, who.by);
      return { text: `ClawOS: session ${sessionKey} trust reset from ${from} to ${to} by ${who.by}. This was recorded in the audit log.` };
    }
    default:
      return { text: "Usage: /clawos [status | session | audit [n] | manifests [tool] | trust reset]" };
  }
}

/**
 * How the host wires tool hooks, from the installed package (version and patch marker). The
 * status report weighs this against what was observed: a gate that fired is proof either way.
 */
function detectHost(runtime: ClawosRuntime, api: HostApi): void {
  if (runtime.hostWiring !== "unknown") return;
  // 2026.2.x reports "unknown" here; only a real version counts, else the installed package says.
  const reported = api.runtime?.version;
  runtime.hostVersion = reported && /^\d+\.\d+\.\d+/.test(reported) ? reported : undefined;
  try {
    const dir = findOpenClawPackageDir();
    if (dir) {
      const report = detectHostWiring(dir);
      runtime.hostVersion ??= report.version || undefined;
      runtime.hostWiring = report.wiring;
      runtime.fixCommand = report.fixCommand;
    }
  } catch {
    // Detection is advisory; the hooks that fire decide what the status says.
  }
  if (runtime.hostWiring === "unknown" && typeof api.registerTrustedToolPolicy === "function") runtime.hostWiring = "native";
}

function gateObserved(runtime: ClawosRuntime): boolean {
  return (runtime.hooks.before_tool_call?.fired ?? 0) > 0 || (runtime.hooks.trusted_tool_policy?.fired ?? 0) > 0;
}

/** Registers every ClawOS hook and the /clawos command with one plugin API instance. */
export function registerClawos(api: HostApi): ClawosRuntime {
  const stateDir = api.runtime?.state?.resolveStateDir?.(process.env) ?? defaultStateDir();
  void loadHostSessionKeyClassifier();
  const runtime = obtainRuntime({ rawConfig: api.pluginConfig, stateDir, resolvePath: api.resolvePath?.bind(api) });
  detectHost(runtime, api);
  // `openclaw agent exec` loads plugins in discovery mode only and runs no typed hooks, just the
  // trusted tool policy. Until a full registration (or a result) shows otherwise, results are
  // assumed to enter their session before its next call.
  if (api.registrationMode === "discovery") {
    if (!runtime.fullRegistration) runtime.engine.expectResultHooks(false);
  } else {
    runtime.fullRegistration = true;
    runtime.engine.expectResultHooks(true);
  }
  const { logger } = api;
  if (runtime.configErrors.length > 0) {
    logger.error(`clawos: invalid config, every tool call is blocked until it is fixed: ${runtime.configErrors.join(" ")}`);
  }
  if (runtime.hostWiring === "unpatched-legacy" && !gateObserved(runtime)) {
    logger.error(`clawos: NOT ENFORCING: OpenClaw ${runtime.hostVersion} never calls tool hooks. Fix: ${runtime.fixCommand ?? "npx clawos patch-host"}`);
  }

  // One gate per call: the trusted tool policy where the host has it (it is also the only gate
  // that runs under `openclaw agent exec`), before_tool_call where it does not.
  if (typeof api.registerTrustedToolPolicy === "function") {
    api.registerTrustedToolPolicy({
      id: POLICY_ID,
      description: "ClawOS: input-trust and capability checks for every tool call",
      evaluate: (event, ctx) => gate(runtime, "trusted_tool_policy", event, ctx, logger),
    });
    noteHookRegistered(runtime, "trusted_tool_policy");
  } else {
    api.on("before_tool_call", (event, ctx) => gate(runtime, "before_tool_call", event, ctx, logger), { priority: 1000 });
    noteHookRegistered(runtime, "before_tool_call");
  }

  const observe = (hook: string, handler: Handler) => {
    try {
      api.on(hook, (event, ctx) => {
        try {
          return handler(event, ctx);
        } catch (error) {
          logger.error(`clawos: ${hook} handler failed: ${(error as Error).message}`);
          return undefined;
        }
      });
      noteHookRegistered(runtime, hook);
    } catch (error) {
      // Older hosts do not know every hook (2026.1.x has no subagent_* hooks); the rest still work.
      logger.warn(`clawos: this OpenClaw does not offer the ${hook} hook: ${(error as Error).message}`);
    }
  };
  observe("after_tool_call", (event, ctx) => observeAfterToolCall(runtime, event, ctx));
  observe("tool_result_persist", (event, ctx) => observePersist(runtime, event, ctx));
  observe("message_received", (event, ctx) => {
    noteHookFired(runtime, "message_received");
    runtime.engine.observeMessage({
      sessionKey: str(ctx?.sessionKey) ?? str(event?.sessionKey),
      channel: str(ctx?.channelId) ?? str(event?.channel),
      senderId: str(event?.senderId) ?? str(event?.from),
    });
  });
  observe("subagent_spawned", (event, ctx) => {
    noteHookFired(runtime, "subagent_spawned");
    const child = str(event?.childSessionKey) ?? str(ctx?.childSessionKey);
    if (child) runtime.engine.linkSubagent(child, str(ctx?.requesterSessionKey));
  });
  observe("subagent_ended", (event) => {
    noteHookFired(runtime, "subagent_ended");
    const child = str(event?.targetSessionKey);
    if (child) runtime.engine.subagentEnded(child);
  });
  observe("session_end", (event, ctx) => {
    noteHookFired(runtime, "session_end");
    const reason = str(event?.reason);
    const key = str(event?.sessionKey) ?? str(ctx?.sessionKey);
    // Only an explicit new session clears trust; idle and daily rollovers are timeouts and do not.
    if (key && (reason === "new" || reason === "reset" || reason === "deleted")) runtime.engine.sessionReplaced(key, reason);
  });
  observe("gateway_stop", () => {
    noteHookFired(runtime, "gateway_stop");
    runtime.engine.flush();
  });

  api.registerCommand?.({
    name: "clawos",
    description: "ClawOS status, session trust, audit and manifests; /clawos trust reset (owner)",
    acceptsArgs: true,
    requireAuth: true,
    handler: (ctx: AnyRecord) => {
      try {
        return handleCommand(runtime, ctx);
      } catch (error) {
        return { text: `ClawOS: command failed: ${(error as Error).message}` };
      }
    },
  });
  return runtime;
}
