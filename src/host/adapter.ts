import type { Requester, ToolCall, TurnInput } from "../calls.ts";
import { COMMAND_NAME, PLUGIN_ID, POLICY_ID } from "../ids.ts";
import { internalErrorDecision, type Decision } from "../policy/decision.ts";
import { approvalPrompt, type ApprovalPrompt } from "../report/approval-prompt.ts";
import { blockReason } from "../report/reason.ts";
import { handleCommand } from "./command.ts";
import { conversationAccess } from "./host-env.ts";
import { detectHostWiring, findOpenClawPackageDir } from "./legacy-host.ts";
import { defaultStateDir, noteHookFired, noteHookRegistered, obtainRuntime, type ClawosRuntime } from "./runtime.ts";
import type { HookContext, HookEvent, HookHandler, HookName, HostApi, ToolContext, ToolEvent } from "./sdk.ts";
import { isSubagentSessionKey, loadHostSessionKeyClassifier } from "./session-keys.ts";

/**
 * The host adapter: the only module that knows OpenClaw's hook events, contexts and plugin API
 * (typed from the installed SDK in `sdk.ts`). It maps them onto the engine's plain calls and maps
 * decisions back onto hook results. Older hosts pass less; every field read here is optional there.
 */

type BlockResult = { block: true; blockReason: string };
/** A before_tool_call / trusted-tool-policy result that asks the owner (OpenClaw's `requireApproval`). */
export type ApprovalResult = {
  requireApproval: ApprovalPrompt & {
    pluginId: string;
    onResolution: (resolution: string) => void;
  };
};
type GateResult = BlockResult | ApprovalResult | undefined;

function str(value: unknown): string | undefined {
  return typeof value === "string" && value ? value : undefined;
}

/** A field some hosts send beyond the SDK's type (older and newer events carry more). */
function extra(record: object | undefined, key: string): unknown {
  return record ? (record as Record<string, unknown>)[key] : undefined;
}

function requesterOf(ctx: Partial<ToolContext> | undefined): Requester | undefined {
  const r = ctx?.requester;
  if (!r || typeof r !== "object") return undefined;
  return { channel: str(r.channel), senderId: str(r.senderId), senderIsOwner: r.senderIsOwner === true };
}

export function toToolCall(event: Partial<ToolEvent> | undefined, ctx: Partial<ToolContext> | undefined): ToolCall {
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
    derivedPaths: stringList(extra(event, "derivedPaths")),
  };
}

function stringList(value: unknown): readonly string[] | undefined {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : undefined;
}

/** A model run's context as the engine reads it: the session, the host's provenance, the sender. */
export function toTurnInput(ctx: Partial<HookContext<"before_agent_run">> | undefined, event: Partial<HookEvent<"before_agent_run">> | undefined): TurnInput {
  const sessionKey = str(ctx?.sessionKey);
  const prompt = str(event?.prompt);
  const p = ctx?.inputProvenance;
  const senderIsOwner = event?.senderIsOwner;
  // The agent context's `channel` is the channel (`telegram`, `webchat`); its `channelId`, which the
  // event repeats, is the conversation (a chat id; for the gateway's own channel, the session key).
  // Hosts without `channel` (and the trace replay) give the channel as `channelId`.
  const channel = str(ctx?.channel) ?? str(ctx?.messageProvider) ?? str(event?.channelId) ?? str(ctx?.channelId);
  return {
    sessionKey,
    isSubagent: isSubagentSessionKey(sessionKey),
    ...(p && typeof p === "object" && typeof p.kind === "string"
      ? {
          provenance: {
            kind: p.kind,
            sourceSessionKey: str(p.sourceSessionKey),
            sourceIsSubagent: isSubagentSessionKey(str(p.sourceSessionKey)),
            sourceTool: str(p.sourceTool),
            sourceRole: str(p.sourceRole),
          },
        }
      : {}),
    ...(typeof senderIsOwner === "boolean" ? { requester: { channel, senderId: str(event?.senderId) ?? str(ctx?.senderId), senderIsOwner } } : {}),
    ...(prompt ? { prompt } : {}),
    ...(prompt?.includes(INBOUND_CONTEXT_MARKER) ? { contextInPrompt: true } : {}),
    ...withContext(event?.messages, prompt),
    ...(str(ctx?.trigger) ? { trigger: str(ctx?.trigger) } : {}),
  };
}

/** OpenClaw's marker on the context it adds to a turn (chat history, a quoted message). */
const INBOUND_CONTEXT_MARKER = "\u27E6openclaw:ctx\u27E7";

/**
 * The text of the run's runtime-context message (the host appends it last, `details.source`
 * "openclaw-runtime-context"), when it carries the context marker.
 */
function withContext(messages: unknown, prompt: string | undefined): { context?: string; contextHasHistory?: boolean } {
  const inPrompt = prompt?.includes(INBOUND_CONTEXT_MARKER) === true && HISTORY_LABEL.test(prompt);
  if (!Array.isArray(messages)) return inPrompt ? { contextHasHistory: true } : {};
  for (let i = messages.length - 1; i >= 0 && i >= messages.length - 3; i--) {
    const m = messages[i] as { role?: unknown; details?: { source?: unknown }; content?: unknown } | undefined;
    if (m?.role !== "custom" || m.details?.source !== "openclaw-runtime-context") continue;
    const text =
      typeof m.content === "string"
        ? m.content
        : Array.isArray(m.content)
          ? m.content.map((part) => (typeof (part as { text?: unknown })?.text === "string" ? (part as { text: string }).text : "")).join("\n")
          : "";
    if (!text.includes(INBOUND_CONTEXT_MARKER)) break;
    return { context: text, ...(inPrompt || HISTORY_LABEL.test(text) ? { contextHasHistory: true } : {}) };
  }
  return inPrompt ? { contextHasHistory: true } : {};
}

/** The labels OpenClaw puts on chat history in a turn's context (`selectInboundHistoryContext`). */
const HISTORY_LABEL = /(?:Chat history since last reply|Recent chat history):/;

/**
 * What the host gets back from a gate: nothing for allow, a block with the reason, or an approval
 * request. A trusted tool policy must name its plugin in `requireApproval.pluginId` (the host fills
 * it only for before_tool_call hooks); the host tells ClawOS the answer through `onResolution`.
 */
export function toHookResult(decision: Decision, onResolution?: (resolution: string) => void): GateResult {
  if (decision.outcome === "block") return { block: true, blockReason: blockReason(decision) ?? `ClawOS blocked ${decision.tool}` };
  if (decision.outcome === "approve") {
    return { requireApproval: { ...approvalPrompt(decision), pluginId: PLUGIN_ID, onResolution: onResolution ?? (() => undefined) } };
  }
  return undefined;
}

function configBlock(runtime: ClawosRuntime, event: Partial<ToolEvent> | undefined): BlockResult {
  return {
    block: true,
    blockReason: `ClawOS blocked ${String(event?.toolName)}: the ClawOS config is invalid, so every tool call is blocked until it is fixed: ${runtime.configErrors.join(" ")}`,
  };
}

/** The gate, shared by the trusted tool policy and before_tool_call. Never throws into the host. */
function gate(runtime: ClawosRuntime, hook: string, event: ToolEvent, ctx: ToolContext, logger: HostApi["logger"]): GateResult {
  noteHookFired(runtime, hook);
  if (runtime.configErrors.length > 0) return configBlock(runtime, event);
  let decision: Decision;
  let call: ToolCall | undefined;
  try {
    // Only a trusted tool policy's approvals are known to reach the owner; a plain hook blocks instead.
    call = hook === "trusted_tool_policy" ? toToolCall(event, ctx) : { ...toToolCall(event, ctx), canAsk: false };
    decision = runtime.engine.gate(call);
  } catch (error) {
    // The event itself could not be read (a getter that throws): fail closed in enforce, as the engine does.
    decision = internalErrorDecision(
      "(unreadable tool call)",
      runtime.engine.config.layers.capabilities ? runtime.engine.config.capabilities.mode : "off",
      error,
    );
  }
  if (decision.rules.some((r) => r.rule === "internal.error")) logger.error(`clawos: ${blockReason(decision)}`);
  if (decision.outcome === "approve" && call) {
    const asked = call;
    const engine = runtime.engine;
    return toHookResult(decision, (resolution) => engine.approvalResolved(asked, decision, String(resolution)));
  }
  return toHookResult(decision);
}

function observeAfterToolCall(runtime: ClawosRuntime, event: HookEvent<"after_tool_call">, ctx: HookContext<"after_tool_call">): void {
  noteHookFired(runtime, "after_tool_call");
  const sessionKey = str(ctx?.sessionKey);
  runtime.engine.observeResult({
    toolName: str(event?.toolName),
    params: event?.params,
    toolKind: str(extra(event, "toolKind")),
    toolCallId: str(event?.toolCallId) ?? str(ctx?.toolCallId),
    sessionKey,
    isSubagent: isSubagentSessionKey(sessionKey),
    ...(event?.result !== undefined && !event?.error ? { content: event.result } : {}),
    ...(event?.error ? { failed: true } : {}),
  });
}

/**
 * tool_result_persist is synchronous. It taints the session (for hosts and paths without
 * after_tool_call) and stamps ClawOS's tag into the stored result's `details`, which the model
 * never sees and which ClawOS never reads back.
 */
function observePersist(
  runtime: ClawosRuntime,
  event: HookEvent<"tool_result_persist">,
  ctx: HookContext<"tool_result_persist">,
): { message: HookEvent<"tool_result_persist">["message"] } | undefined {
  noteHookFired(runtime, "tool_result_persist");
  const message = event?.message as (HookEvent<"tool_result_persist">["message"] & Record<string, unknown>) | undefined;
  const sessionKey = str(ctx?.sessionKey);
  const observed = runtime.engine.observeResult({
    toolName: str(event?.toolName) ?? str(ctx?.toolName) ?? str(message?.toolName),
    toolCallId: str(event?.toolCallId) ?? str(ctx?.toolCallId) ?? str(message?.toolCallId),
    sessionKey,
    isSubagent: isSubagentSessionKey(sessionKey),
    // Host-made results (an interrupted call's placeholder) carry nothing from the tool. A blocked
    // call is recognised from ClawOS's own decision, never from details a tool could have written.
    synthetic: event?.isSynthetic === true,
    ...((message as { isError?: unknown } | undefined)?.isError === true ? { failed: true } : {}),
    ...(message && typeof message === "object" && message.content !== undefined
      ? { content: { content: message.content, ...(message.details && typeof message.details === "object" ? { details: message.details } : {}) } }
      : {}),
  });
  if (!observed || !message || typeof message !== "object") return undefined;
  const details = message.details && typeof message.details === "object" ? (message.details as Record<string, unknown>) : {};
  return {
    message: {
      ...message,
      details: { ...details, clawos: { outputTrust: observed.level, tool: observed.tool, sessionTrust: observed.sessionTrust } },
    } as HookEvent<"tool_result_persist">["message"],
  };
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
  const runtime = obtainRuntime({ rawConfig: api.pluginConfig, stateDir, resolvePath: api.resolvePath?.bind(api), openclawConfig: api.config });
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

  const observe = <K extends HookName>(hook: K, handler: (event: HookEvent<K>, ctx: HookContext<K>) => unknown) => {
    const guarded = (event: HookEvent<K>, ctx: HookContext<K>) => {
      try {
        return handler(event, ctx);
      } catch (error) {
        logger.error(`clawos: ${hook} handler failed: ${(error as Error).message}`);
        return undefined;
      }
    };
    try {
      api.on(hook, guarded as HookHandler<K>);
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
      sessionKey: str(extra(ctx, "sessionKey")) ?? str(event?.sessionKey),
      channel: str(ctx?.channelId) ?? str(extra(event, "channel")),
      senderId: str(event?.senderId) ?? str(event?.from),
      text: str(event?.content),
    });
  });
  // The earliest hooks of a model run: a message from another session (inter_session provenance,
  // which sub-agent announces also carry) lowers the session the host delivered it to before the
  // model sees it. Both fire before the first model call; lowering is idempotent. OpenClaw lets a
  // non-bundled plugin see conversation hooks only with plugins.entries.<id>.hooks.allowConversationAccess;
  // without it, the message is accounted for when the sender's call is decided (see SessionTaint).
  runtime.earlyLowering = conversationAccess(api.config, PLUGIN_ID);
  if (runtime.earlyLowering) {
    observe("before_agent_run", (event, ctx) => {
      noteHookFired(runtime, "before_agent_run");
      runtime.engine.observeTurn(toTurnInput(ctx, event));
      return undefined;
    });
    observe("before_prompt_build", (_event, ctx) => {
      noteHookFired(runtime, "before_prompt_build");
      runtime.engine.observeTurn(toTurnInput(ctx, undefined));
      return undefined;
    });
  }
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
    name: COMMAND_NAME,
    description: "ClawOS status, session trust, audit and manifests; /clawos trust reset (owner)",
    acceptsArgs: true,
    requireAuth: true,
    handler: (ctx) => {
      try {
        return handleCommand(runtime, ctx);
      } catch (error) {
        return { text: `ClawOS: command failed: ${(error as Error).message}` };
      }
    },
  });
  return runtime;
}
