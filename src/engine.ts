import { AuditLog, type DecisionContext } from "./audit/audit-log.ts";
import type { ClawosConfig } from "./config/config-schema.ts";
import { decide, internalErrorDecision, modeFor, type Decision } from "./policy/decision.ts";
import type { ManifestRegistry } from "./policy/manifests.ts";
import { SessionStore, type SessionTrust, type TaintSource } from "./taint/session-store.ts";
import { normalizeToolName, outerCallIdOf, resolveTool, type ResolvedTool } from "./policy/tool-names.ts";
import { minTrust, trustRank, type TrustLevel } from "./taint/trust.ts";

/**
 * The ClawOS engine: L1 session trust and L2 decisions over plain data. The host adapter
 * translates OpenClaw hook events into these calls; nothing here knows OpenClaw's objects.
 */

export interface Requester {
  readonly channel?: string;
  readonly senderId?: string;
  readonly senderIsOwner?: boolean;
}

export interface ToolCall {
  readonly toolName: string;
  readonly params: unknown;
  readonly toolKind?: string;
  readonly toolCallId?: string;
  readonly sessionKey?: string;
  readonly agentId?: string;
  readonly isSubagent: boolean;
  /** Undefined when the host gave no requester (unproven), not when it gave a non-owner. */
  readonly requester?: Requester;
}

export interface ToolResult {
  readonly toolName?: string;
  readonly params?: unknown;
  readonly toolKind?: string;
  readonly toolCallId?: string;
  readonly sessionKey?: string;
  readonly isSubagent: boolean;
  /**
   * The host made this result up itself (a synthetic result for an interrupted call): nothing the
   * tool returned entered. A tool's own `details` can never say this: tools control their details.
   */
  readonly synthetic?: boolean;
  /** A trust level stated out of band by the caller (trace replay), never read from content. */
  readonly resultTrust?: TrustLevel;
}

export interface EngineOptions {
  readonly config: ClawosConfig;
  readonly manifests: ManifestRegistry;
  readonly store: SessionStore;
  readonly audit: AuditLog;
  readonly now?: () => number;
}

interface CallMemo {
  readonly tool: ResolvedTool;
  readonly blocked: boolean;
  readonly paramsRef?: unknown;
  readonly decision: Decision;
  readonly agentId?: string;
  /** Allowed, and its result not observed yet. */
  pendingResult?: boolean;
}

interface PendingMessage {
  readonly channel?: string;
  readonly senderId?: string;
  readonly at: number;
}

interface PendingSpawn {
  readonly parentKey: string;
  readonly trust: TrustLevel;
  readonly at: number;
}

const NO_SESSION = "(no session)";
const MAX_PENDING_SPAWNS = 64;
const MAX_PENDING_RESULTS = 64;

/** Tool call ids are only unique within a session (some model servers reuse `call_0`). */
function callKey(sessionKey: string | undefined, toolCallId: string): string {
  return `${sessionKey ?? ""}\u0000${toolCallId}`;
}

export class Engine {
  config: ClawosConfig;
  manifests: ManifestRegistry;
  readonly store: SessionStore;
  readonly audit: AuditLog;
  private readonly now: () => number;
  /** Recent calls by toolCallId: results of blocked calls do not taint, tool_call results use the inner tool. */
  private readonly calls = new RecentMap<string, CallMemo>(20_000);
  /** Decisions in clean sessions are pure functions of the call's shape under one config: memoized. */
  private decisions = new DecisionMemo();
  private readonly pendingMessages = new Map<string, PendingMessage[]>();
  private pendingSpawns: PendingSpawn[] = [];
  private readonly provenOwners = new Set<string>();
  /**
   * Whether result hooks (after_tool_call, tool_result_persist) reach the engine on this path. Where
   * they do not (`openclaw agent exec` runs only the trusted tool policy), an allowed call's result
   * is assumed to have entered its session by the time the session's next call is decided. The host
   * adapter says which path it is on; a result that arrives anyway proves the hooks are live.
   */
  private resultHooksLive = true;
  private readonly pendingResults = new Map<string, { callId: string; isSubagent: boolean }[]>();
  private readonly trustedSenders: Set<string>;

  constructor(options: EngineOptions) {
    this.config = options.config;
    this.manifests = options.manifests;
    this.store = options.store;
    this.audit = options.audit;
    this.now = options.now ?? Date.now;
    this.trustedSenders = new Set();
    this.applyConfig(options.config, options.manifests);
  }

  /** Hot reload: new policy and manifests; session trust is kept. */
  applyConfig(config: ClawosConfig, manifests: ManifestRegistry): void {
    this.config = config;
    this.manifests = manifests;
    this.trustedSenders.clear();
    this.decisions = new DecisionMemo();
    for (const s of config.trustedSenders) this.trustedSenders.add(senderKey(s.channel, s.senderId));
  }

  // ---- L2 -------------------------------------------------------------------------------

  /** Decides one tool call and records it. Never throws: errors become fail-closed decisions. */
  gate(call: ToolCall): Decision {
    let tool: ResolvedTool | undefined;
    try {
      const resolved = this.canonical(resolveTool(call.toolName, call.params, call.toolKind));
      tool = resolved;
      const bridged = this.bridgedDecision(call, tool);
      if (bridged) return bridged;
      if (!this.resultHooksLive && call.sessionKey) this.applyPendingResults(call.sessionKey);
      const session = this.sessionTrust(call);
      const manifest = this.manifests.lookup(tool.name);
      const mode = modeFor(this.config, tool);
      const inputTrust = mode === "enforce" && session.shadow ? minTrust(session.trust, session.shadow) : session.trust;
      const decision = this.decisions.get(resolved, mode, inputTrust, session.taint, call.isSubagent, call.agentId, () =>
        decide({
          tool: resolved,
          manifest,
          broken: this.manifests.brokenFor(resolved.name),
          inputTrust,
          taint: session.taint,
          isSubagent: call.isSubagent,
          agentId: call.agentId,
          config: this.config,
        }),
      );
      this.afterDecision(call, tool, decision, inputTrust, manifest?.manifest.capabilities);
      this.audit.recordDecision(decision, this.contextOf(call, session.taint));
      return decision;
    } catch (error) {
      const mode = tool ? modeFor(this.config, tool) : this.config.capabilities.mode;
      const decision = internalErrorDecision(String(call.toolName), mode, error);
      try {
        this.audit.recordDecision(decision, this.contextOf(call, []));
      } catch {
        // The decision stands even when it cannot be recorded.
      }
      return decision;
    }
  }

  private canonical(tool: ResolvedTool): ResolvedTool {
    const name = this.manifests.canonicalName(tool.name);
    return name === tool.name ? tool : { ...tool, name };
  }

  /**
   * Tool Search runs the inner tool of a `tool_call` as a second hook call with the id
   * `tool_search_code:<outer id>:<tool>:<n>`. That call was decided with the outer one; reuse the
   * decision (same tool, same arguments) instead of counting it twice.
   */
  private bridgedDecision(call: ToolCall, tool: ResolvedTool): Decision | undefined {
    const outerId = outerCallIdOf(call.toolCallId);
    if (!outerId) return undefined;
    const memo = this.calls.get(callKey(call.sessionKey, outerId));
    if (!memo || memo.tool.via === undefined || memo.tool.name !== tool.name) return undefined;
    const innerArgs = (memo.paramsRef as { args?: unknown } | undefined)?.args;
    if (innerArgs !== undefined && !sameShallow(innerArgs, call.params)) return undefined;
    if (call.toolCallId) this.calls.set(callKey(call.sessionKey, call.toolCallId), { ...memo, paramsRef: undefined, pendingResult: false });
    return memo.decision;
  }

  private afterDecision(call: ToolCall, tool: ResolvedTool, decision: Decision, trust: TrustLevel, capabilities?: readonly string[]): void {
    if (call.toolCallId) {
      this.calls.set(callKey(call.sessionKey, call.toolCallId), {
        tool,
        blocked: decision.outcome === "block",
        paramsRef: tool.via ? call.params : undefined,
        decision,
        agentId: call.agentId,
        pendingResult: decision.outcome === "allow",
      });
      if (decision.outcome === "allow" && call.sessionKey && !this.resultHooksLive) this.notePendingResult(call.sessionKey, call.toolCallId, call.isSubagent);
    }
    if (decision.outcome === "allow" && capabilities?.includes("message:send")) this.taintTargetSession(call, tool, trust);
    if (decision.outcome === "allow" && call.sessionKey && capabilities?.includes("session:spawn")) {
      // Kept until a link arrives or newer spawns push it out: an unlinked child is held at the
      // lowest recent spawner, however long its spawn took.
      this.pendingSpawns = this.pendingSpawns.slice(-(MAX_PENDING_SPAWNS - 1));
      this.pendingSpawns.push({ parentKey: call.sessionKey, trust, at: this.now() });
    }
  }

  private notePendingResult(sessionKey: string, callId: string, isSubagent: boolean): void {
    const list = this.pendingResults.get(sessionKey) ?? [];
    if (list.length >= MAX_PENDING_RESULTS) list.shift();
    list.push({ callId, isSubagent });
    this.pendingResults.set(sessionKey, list);
  }

  /** Without result hooks: the results of the session's earlier allowed calls have entered it by now. */
  private applyPendingResults(sessionKey: string): void {
    const list = this.pendingResults.get(sessionKey);
    if (!list) return;
    this.pendingResults.delete(sessionKey);
    for (const { callId, isSubagent } of list) this.taintFromResult({ toolCallId: callId, sessionKey, isSubagent });
  }

  /**
   * A message one session sends into another (sessions_send and the like) enters the target's
   * context at the sender's trust. Short keys ("main") are the sender agent's sessions.
   */
  private taintTargetSession(call: Pick<ToolCall, "params" | "sessionKey" | "agentId" | "toolCallId">, tool: ResolvedTool, trust: TrustLevel): void {
    if (!this.config.layers.tagging || trust === "owner") return;
    const params = (tool.via ? (call.params as { args?: unknown } | undefined)?.args : call.params) as Record<string, unknown> | undefined;
    const raw = params?.sessionKey ?? params?.targetSessionKey;
    if (typeof raw !== "string" || !raw.trim()) return;
    const target = raw.includes(":") ? raw.trim() : `agent:${call.agentId ?? "main"}:${raw.trim()}`;
    if (target === call.sessionKey) return;
    this.lowerSession(target, {
      level: trust,
      kind: "message",
      label: `a message sent by session ${call.sessionKey ?? "(unknown)"} through ${tool.name}`,
      tool: tool.name,
      callId: call.toolCallId,
      at: this.now(),
    });
  }

  private contextOf(call: ToolCall, taint: readonly TaintSource[]): DecisionContext {
    return {
      agentId: call.agentId,
      sessionKey: call.sessionKey,
      toolCallId: call.toolCallId,
      params: call.params,
      taint,
      isSubagent: call.isSubagent,
    };
  }

  // ---- L1 -------------------------------------------------------------------------------

  /** The session's input trust at this call, after applying the turn's requester and pending messages. */
  sessionTrust(call: Pick<ToolCall, "sessionKey" | "isSubagent" | "requester">): {
    trust: TrustLevel;
    shadow?: TrustLevel;
    taint: readonly TaintSource[];
  } {
    if (!this.config.layers.tagging) return { trust: "owner", taint: [] };
    const key = call.sessionKey;
    if (!key) {
      const trust = minTrust(this.requesterTrust(call.requester), this.config.unknownRequesterTrust);
      return { trust, taint: [{ level: trust, kind: "requester", label: "a call without a session key", at: this.now() }] };
    }
    let state: SessionTrust;
    if (call.isSubagent) {
      state = this.store.peek(key) ?? this.store.get(key, this.unlinkedChildTrust());
    } else {
      state = this.store.get(key, "owner");
      this.resolvePendingMessages(key, state, call.requester);
      const level = this.requesterTrust(call.requester);
      if (trustRank(level) < trustRank(state.trust)) {
        this.lowerSession(key, { level, kind: "requester", label: this.requesterLabel(call.requester), at: this.now() });
      }
    }
    return { trust: state.trust, shadow: state.shadow, taint: state.lowered };
  }

  requesterTrust(requester: Requester | undefined): TrustLevel {
    if (!requester) return this.config.unknownRequesterTrust;
    if (requester.senderIsOwner === true) {
      if (requester.channel && requester.senderId) this.provenOwners.add(senderKey(requester.channel, requester.senderId));
      return "owner";
    }
    if (requester.channel && requester.senderId && this.trustedSenders.has(senderKey(requester.channel, requester.senderId))) return "verified";
    return "community";
  }

  private requesterLabel(requester: Requester | undefined): string {
    if (!requester) return "a turn whose sender the host could not identify";
    const who = requester.senderId ? `${requester.channel ?? "?"}:${requester.senderId}` : requester.channel ?? "an unnamed sender";
    return `a message from ${who}`;
  }

  /** A sub-agent seen before its spawn link: no higher than the ceiling or any recent spawner. */
  private unlinkedChildTrust(): TrustLevel {
    let trust: TrustLevel = this.config.subagent.maxTrust;
    let sawSpawn = false;
    for (const spawn of this.pendingSpawns) {
      sawSpawn = true;
      trust = minTrust(trust, minTrust(spawn.trust, this.store.peek(spawn.parentKey)?.trust ?? spawn.trust));
    }
    return sawSpawn ? trust : minTrust(trust, this.config.unknownRequesterTrust);
  }

  private lowerSession(key: string, source: TaintSource, initial: TrustLevel = "owner"): boolean {
    const before = this.store.get(key, initial).trust;
    const changed = this.store.lower(key, source, initial);
    if (changed) {
      this.audit.recordTrustChange({ event: "trust.lowered", sessionKey: key, from: before, to: this.store.get(key).trust, source });
    }
    return changed;
  }

  /** A channel message entered the session (message_received). Owner status is settled at the next gate. */
  observeMessage(message: { sessionKey?: string; channel?: string; senderId?: string }): void {
    if (!this.config.layers.tagging || !message.sessionKey) return;
    const { sessionKey, channel, senderId } = message;
    if (channel && senderId && this.provenOwners.has(senderKey(channel, senderId))) return;
    if (channel && senderId && this.trustedSenders.has(senderKey(channel, senderId))) {
      this.lowerSession(sessionKey, { level: "verified", kind: "message", label: `a message from ${channel}:${senderId}`, at: this.now() });
      return;
    }
    const list = this.pendingMessages.get(sessionKey) ?? [];
    list.push({ channel, senderId, at: this.now() });
    if (list.length > 16) list.shift();
    this.pendingMessages.set(sessionKey, list);
  }

  private resolvePendingMessages(key: string, state: SessionTrust, requester: Requester | undefined): void {
    const pending = this.pendingMessages.get(key);
    if (!pending) return;
    this.pendingMessages.delete(key);
    for (const message of pending) {
      const fromOwner =
        requester?.senderIsOwner === true && requester.channel === message.channel && requester.senderId === message.senderId;
      if (fromOwner) continue;
      if (message.channel && message.senderId && this.provenOwners.has(senderKey(message.channel, message.senderId))) continue;
      if (state.trust === "untrusted") continue;
      this.lowerSession(key, {
        level: "community",
        kind: "message",
        label: `a message from ${message.channel ?? "?"}:${message.senderId ?? "unknown sender"}`,
        at: message.at,
      });
    }
  }

  /** The output trust of a finished call, or undefined when nothing entered the session. */
  resultTrust(result: ToolResult): { level: TrustLevel; tool: string; auditOnly: boolean } | undefined {
    if (result.synthetic) return undefined;
    const memo = result.toolCallId ? this.calls.get(callKey(result.sessionKey, result.toolCallId)) : undefined;
    if (memo?.blocked) return undefined;
    const tool = memo?.tool ?? this.canonical(resolveTool(result.toolName ?? "", result.params, result.toolKind));
    const manifest = this.manifests.lookup(tool.name);
    const declared: TrustLevel = manifest?.manifest.outputTrust ?? "untrusted";
    const level = result.resultTrust ? minTrust(declared, result.resultTrust) : declared;
    return { level, tool: tool.name, auditOnly: memo?.decision.effect === "would-block" };
  }

  /** A tool result entered the session (after_tool_call, tool_result_persist). */
  observeResult(result: ToolResult): { level: TrustLevel; tool: string; auditOnly: boolean } | undefined {
    if (!this.resultHooksLive) {
      this.resultHooksLive = true;
      this.pendingResults.clear();
    }
    return this.taintFromResult(result);
  }

  /** The adapter's word on whether this path delivers result hooks (see `resultHooksLive`). */
  expectResultHooks(live: boolean): void {
    this.resultHooksLive = live;
    if (live) this.pendingResults.clear();
  }

  private taintFromResult(result: ToolResult): { level: TrustLevel; tool: string; auditOnly: boolean } | undefined {
    if (!this.config.layers.tagging || !result.sessionKey) return undefined;
    const observed = this.resultTrust(result);
    if (!observed) return undefined;
    const initial = result.isSubagent ? this.unlinkedChildTrust() : "owner";
    const source: TaintSource = {
      level: observed.level,
      kind: "tool",
      label: observed.auditOnly ? `the result of ${observed.tool} (ran only because audit mode allowed a would-block)` : resultLabel(observed.tool),
      tool: observed.tool,
      callId: result.toolCallId,
      at: this.now(),
    };
    if (observed.auditOnly) this.store.lowerShadow(result.sessionKey, source, initial);
    else this.lowerSession(result.sessionKey, source, initial);
    this.retaintMessageTarget(result);
    return observed;
  }

  /**
   * A later plugin hook may have rewritten where a message went; the result carries the final
   * parameters, so the session it really reached is lowered too.
   */
  private retaintMessageTarget(result: ToolResult): void {
    if (!result.toolCallId || result.params === undefined) return;
    const memo = this.calls.get(callKey(result.sessionKey, result.toolCallId));
    if (!memo || memo.blocked || !this.manifests.lookup(memo.tool.name)?.manifest.capabilities.includes("message:send")) return;
    // The outer tool_call's result has { id, args }; the inner call's result has the plain arguments.
    const outer = memo.tool.via !== undefined && normalizeToolName(result.toolName).name === memo.tool.via;
    const tool = outer ? memo.tool : { ...memo.tool, via: undefined };
    this.taintTargetSession({ params: result.params, sessionKey: result.sessionKey, agentId: memo.agentId, toolCallId: result.toolCallId }, tool, memo.decision.inputTrust);
  }


  // ---- sub-agents -----------------------------------------------------------------------

  /** subagent_spawned: the child starts at min(parent's trust now, ceiling), never above what it already is. */
  linkSubagent(childKey: string, parentKey: string | undefined): void {
    if (!this.config.layers.tagging) return;
    const ceiling = this.config.subagent.maxTrust;
    const parentTrust = parentKey ? this.store.get(parentKey).trust : this.unlinkedChildTrust();
    const start = minTrust(parentTrust, ceiling);
    const child = this.store.peek(childKey) ?? this.store.get(childKey, start);
    if (parentKey) {
      this.store.setParent(childKey, parentKey, start);
      const spent = this.pendingSpawns.findIndex((spawn) => spawn.parentKey === parentKey);
      if (spent >= 0) this.pendingSpawns.splice(spent, 1);
    }
    if (trustRank(start) < trustRank(child.trust)) {
      this.lowerSession(
        childKey,
        { level: start, kind: "subagent", label: `its spawn by ${parentKey ?? "an unknown session"} (at ${parentTrust})`, at: this.now() },
        start,
      );
    }
  }

  /** subagent_ended: the child's result re-enters its parent. */
  subagentEnded(childKey: string): void {
    if (!this.config.layers.tagging) return;
    const child = this.store.get(childKey, this.unlinkedChildTrust());
    if (!child.parent) return;
    this.lowerSession(child.parent, { level: child.trust, kind: "subagent", label: `the result of sub-agent ${childKey}`, at: this.now() });
  }

  // ---- owner actions and session lifecycle ---------------------------------------------

  /** An explicit, authorized owner action: the session returns to owner trust. Audited. */
  resetTrust(sessionKey: string, by: string): { from: TrustLevel; to: TrustLevel } {
    const source: TaintSource = { level: "owner", kind: "reset", label: `trust reset by ${by}`, at: this.now() };
    const from = this.store.reset(sessionKey, source, "owner");
    this.pendingMessages.delete(sessionKey);
    this.audit.recordTrustChange({ event: "trust.reset", sessionKey, from, to: "owner", source, by });
    return { from, to: "owner" };
  }

  /** A new session replaced this key's context (/new, /reset): it starts clean. */
  sessionReplaced(sessionKey: string, reason: string): void {
    const state = this.store.peek(sessionKey);
    const from = state?.trust ?? "owner";
    this.store.forget(sessionKey);
    this.pendingMessages.delete(sessionKey);
    if (from !== "owner") {
      const source: TaintSource = { level: "owner", kind: "reset", label: `a new session (${reason})`, at: this.now() };
      this.audit.recordTrustChange({ event: "trust.reset", sessionKey, from, to: "owner", source, by: `host:${reason}` });
    }
  }

  /** Flushes the audit log (gateway stop, process exit); session trust is written as it changes. */
  flush(): void {
    this.audit.flush();
  }
}

/**
 * A bounded map of recent entries in two generations: the young one takes new entries; when it is
 * full it becomes the old one and the previous old one is dropped. O(1) per operation with no
 * per-entry bookkeeping, which an LRU does not need here: a call's memo is read back within a few calls.
 */
class RecentMap<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();
  private readonly half: number;

  constructor(max: number) {
    this.half = Math.max(1, Math.floor(max / 2));
  }

  get(key: K): V | undefined {
    const value = this.young.get(key);
    if (value !== undefined) return value;
    const aged = this.old.get(key);
    if (aged !== undefined) this.set(key, aged);
    return aged;
  }

  set(key: K, value: V): void {
    if (!this.young.has(key) && this.young.size >= this.half) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, value);
  }
}

/**
 * Memo of the decisions of calls in sessions nothing has lowered, for one config and manifest set
 * (a new memo on every applyConfig): the same tools at the same trust repeat across every session.
 * The key is everything `decide` reads besides the config and an empty taint list: the resolved
 * tool, its mode, the input trust, sub-agent and agent id. A session whose trust was lowered names
 * its own cause in a block reason, so its decisions repeat only within it; keying them costs about
 * what building them does (measured, docs/performance.md), so they are not memoized.
 */
class DecisionMemo {
  private readonly memo = new Map<string, Decision>();
  private static readonly MAX = 4096;

  get(tool: ResolvedTool, mode: string, inputTrust: TrustLevel, taint: readonly TaintSource[], isSubagent: boolean, agentId: string | undefined, make: () => Decision): Decision {
    if (taint.length > 0) return make();
    const key = `${tool.requested}\u0000${tool.name}\u0000${tool.via ?? ""}\u0000${tool.unresolved ?? ""}\u0000${tool.validName ? 1 : 0}\u0000${mode}\u0000${inputTrust}\u0000${isSubagent ? 1 : 0}\u0000${agentId ?? ""}`;
    const hit = this.memo.get(key);
    if (hit) return hit;
    const decision = make();
    // Bounded: start over rather than grow.
    if (this.memo.size >= DecisionMemo.MAX) this.memo.clear();
    this.memo.set(key, decision);
    return decision;
  }
}

/** One shared label string per tool: a session store full of results keeps one copy, not one per source. */
const resultLabels = new Map<string, string>();
function resultLabel(tool: string): string {
  let label = resultLabels.get(tool);
  if (label === undefined) {
    if (resultLabels.size >= 4096) resultLabels.clear();
    label = `the result of ${tool}`;
    resultLabels.set(tool, label);
  }
  return label;
}

function senderKey(channel: string, senderId: string): string {
  return `${channel}\u0000${senderId}`;
}

function sameShallow(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!a || !b || typeof a !== "object" || typeof b !== "object") return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    const va = (a as Record<string, unknown>)[k];
    const vb = (b as Record<string, unknown>)[k];
    if (va !== vb && JSON.stringify(va) !== JSON.stringify(vb)) return false;
  }
  return true;
}
