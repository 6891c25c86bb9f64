import type { AuditLog, DecisionContext, RolloutRow } from "./audit/audit-log.ts";
import type { ChannelMessage, ToolCall, ToolResult, TurnInput } from "./calls.ts";
import type { ClawosConfig } from "./config/config-schema.ts";
import { CompiledPolicy, type PolicyHost } from "./policy/compiled-policy.ts";
import { internalErrorDecision, provenanceRequirement, withProvenance, type Decision } from "./policy/decision.ts";
import { askable, withApproval } from "./policy/approval.ts";
import {
  answeringGrants,
  callPattern,
  callShape,
  offerShowable,
  CLOCK_SLACK_MS,
  contextOf as grantContext,
  type Grant,
  type GrantOffer,
  type GrantScope,
  parseDuration,
  valuePattern,
} from "./grants/grant.ts";
import { GrantStore } from "./grants/grant-store.ts";
import { redactString } from "./audit/redact.ts";
import { noteTurnSurface, surfaceOf } from "./taint/surfaces.ts";
import type { BrokenManifest, ManifestEntry, ManifestRegistry } from "./policy/manifests.ts";
import { bridgedArgs, type ResolvedTool } from "./policy/tool-names.ts";
import { type CallFacts, decidedModes, forRequester, runningSettings, withoutAllowRule } from "./policy/touches.ts";
import { runningId } from "./taint/background-runs.ts";
import { SessionTaint, trustAtCall, type ObservedResult, type SessionReport } from "./taint/session-taint.ts";
import type { SessionStore, SessionTrust, TaintSource } from "./taint/session-store.ts";
import { minTrust, type TrustLevel } from "./taint/trust.ts";
import type { FileLabel } from "./taint/file-labels.ts";

/**
 * The ClawOS engine: the face the host adapter and the /clawos command talk to. It owns the three
 * parts and runs one call through them:
 *
 *   facts before the call (L1) → trust at the call → decide (L2, pure) → facts after the call (L1) → audit
 *
 * Each part is entered once per call. L1 (`taint/session-taint.ts`) owns every bit of session state;
 * L2 (`policy/compiled-policy.ts`, `policy/decision.ts`) only reads the trust L1 hands it and returns
 * data; the audit log records both. Nothing here knows OpenClaw's objects.
 */

export interface EngineOptions {
  readonly config: ClawosConfig;
  readonly manifests: ManifestRegistry;
  readonly store: SessionStore;
  readonly audit: AuditLog;
  /** Where the host keeps things and how it resolves a path (see `host/host-env.ts`). */
  readonly host: PolicyHost;
  readonly now?: () => number;
}

/** What the status report reads from the engine. */
export interface EngineStatus {
  readonly policy: CompiledPolicy;
  readonly audit: AuditLog["health"];
  readonly counts: AuditLog["counts"];
  readonly unmanifestedTools: AuditLog["unmanifestedTools"];
  readonly store: SessionStore["health"] & { readonly sessions: number };
}

/** An allowed call that wrote a protected or secret path (OpenClaw's config among them). */
export interface ProtectedWrite {
  readonly at: number;
  readonly tool: string;
  readonly sessionKey?: string;
  readonly path: string;
  readonly label: string;
  readonly trust: TrustLevel;
}

const PROTECTED_WRITES_KEPT = 20;

export class Engine {
  private policy: CompiledPolicy;
  /** What a grant gets by default under the policy in force (read from its config once). */
  private grantDefaults: { readonly policy: CompiledPolicy; readonly scope: GrantScope; readonly expiresInMs?: number } | undefined;
  private host: PolicyHost;
  readonly taint: SessionTaint;
  readonly audit: AuditLog;
  private readonly now: () => number;
  /** The latest allowed writes to protected paths: who could have changed the config. */
  readonly protectedWrites: ProtectedWrite[] = [];
  /** The owner's standing answers (allow-always, /clawos grant), durable beside the session state. */
  readonly grants: GrantStore;

  constructor(options: EngineOptions) {
    this.now = options.now ?? Date.now;
    this.host = options.host;
    this.policy = new CompiledPolicy(options.config, options.manifests, options.host);
    this.audit = options.audit;
    this.taint = new SessionTaint({
      store: options.store,
      policy: this.policy,
      now: options.now,
      onTrustChange: (change) => this.audit.recordTrustChange(change),
    });
    this.grants = new GrantStore(options.store.grantsFile, options.store.derivedKey("grants"));
  }

  get config(): ClawosConfig {
    return this.policy.config;
  }

  get manifests(): ManifestRegistry {
    return this.policy.manifests;
  }

  get store(): SessionStore {
    return this.taint.store;
  }

  /** Hot reload: the new config and manifests are compiled once; session trust is kept. */
  applyConfig(config: ClawosConfig, manifests: ManifestRegistry, host: PolicyHost = this.host): void {
    this.host = host;
    this.policy = new CompiledPolicy(config, manifests, host);
    this.taint.usePolicy(this.policy);
  }

  /** Decides one tool call and records it. Never throws: errors become fail-closed decisions. */
  gate(call: ToolCall): Decision {
    const policy = this.policy;
    let tool: ResolvedTool | undefined;
    try {
      tool = policy.resolve(call.toolName, call.params, call.toolKind);
      const bridged = this.taint.bridged(call, tool);
      if (bridged) return bridged;
      const session = this.taint.beforeCall(call);
      const mode = policy.modeFor(tool);
      let facts = mode === "off" ? undefined : policy.factsFor(tool, call.params, call.derivedPaths, call.agentId);
      // A read whose result reaches the requester in the reply holds only for a requester trusted enough.
      // A read for its requester reaches everyone who reads the session's replies.
      if (facts?.modes[0]?.requester)
        facts = forRequester(facts, minTrust(this.taint.requesterTrust(call.requester), this.taint.audienceTrust(call.sessionKey)));
      // A send into a session named by a harness's label or agent id is decided as its key would be.
      if (facts && this.taint.knowsHarnesses) facts = policy.withNamedHarness(tool, call.params, facts, (value) => this.taint.namesHarness(value));
      const irreversible = mode === "off" ? [] : policy.irreversibleFor(tool, call.params, facts);
      // A build or test runs the files of its tree: one written at lower trust lowers the call,
      // and an operator's allow rule for the command does not cover it.
      let trust = trustAtCall(session, mode === "enforce");
      let lowered = session.lowered;
      let causes = lowered;
      // Git in a repository whose settings came in below owner runs what they name: not a read.
      const settings = mode === "off" || !facts ? undefined : this.taint.settingsSource(facts);
      if (facts && settings) {
        facts = runningSettings(facts, "git runs the commands its repository's settings name", settings.repositories);
        trust = minTrust(trust, settings.source.level);
        lowered = [...lowered, settings.source];
        causes = lowered;
      }
      let callFacts = facts;
      const tree = mode === "off" ? undefined : this.taint.treeSource(facts, trust);
      if (tree) {
        trust = minTrust(trust, tree.level);
        lowered = [...lowered, tree];
        // Where an allow rule is set aside, the file is why the call needs more than the rule gives,
        // even when the session itself was lowered further by something else: name the file.
        causes = facts?.command?.view.allowAt !== undefined ? [tree] : lowered;
        callFacts = withoutAllowRule(facts);
      }
      let decision = policy.decide(tool, mode, trust, call.isSubagent, call.agentId, causes, callFacts, irreversible);
      // Below a trust floor and nothing else: where the call's recipients, URLs, paths and ids came from decides.
      const required = provenanceRequirement(decision, decidedModes(facts));
      if (required && policy.provenanceDecisions(tool, facts)) {
        decision = withProvenance(decision, required, this.taint.verdicts(call, policy.argumentValues(tool, call.params, facts, call.agentId), required));
      } else if (required) {
        // A command that only reads another host (ssh host cmd, redis-cli, dig), decided by where it
        // goes, or only restarts services, decided by whether a person's message asked for that.
        // Not when the call runs it on another machine (exec's node): only the owner can say where.
        const args = tool.via ? bridgedArgs(call.params) : call.params;
        const here = !runsElsewhere(args);
        // A check of the project (npm test, cargo build) is decided by whether its trees are the owner's,
        // unless something its trees hold or git's settings already lowered the call.
        const named = here ? policy.decidedCommandValues(facts) : undefined;
        const service = named || !here ? undefined : policy.serviceActionOf(facts);
        const check = named || service || !here || tree || settings || startsLeftRunning(args) ? undefined : policy.projectCheckOf(facts);
        // A record in the local repository (git add, git commit) by whether git runs only the owner's code for it.
        const record = named || service || check || !here || tree || settings || startsLeftRunning(args) ? undefined : policy.localRecordOf(facts);
        if (named) decision = withProvenance(decision, required, this.taint.verdicts(call, named, required));
        else if (service) decision = withProvenance(decision, required, this.taint.serviceVerdicts(call, service, required));
        else if (check) decision = withProvenance(decision, required, this.taint.projectVerdicts(call, check, required));
        else if (record) decision = withProvenance(decision, required, this.taint.recordVerdicts(call, record, required));
      }
      // Still blocked only by a trust floor or an argument's origin: the owner may be asked instead.
      // Only a requester on a channel can be asked: the host refuses a turn that came in on none.
      const onChannel = call.requester?.channel !== undefined;
      const surfaceFacts = call.sessionKey ? this.taint.surfaceRecord(call.sessionKey, call.isSubagent, session) : undefined;
      if (surfaceFacts) surfaceFacts.onChannel = onChannel;
      // Secrets the session read that the call carries: never shown, and never granted for good.
      const hidden = this.taint.secretsIn(call);
      if (decision.effect === "block" || decision.effect === "would-block") {
        // The owner's grants answer before anyone is asked (and where nobody can be).
        const canGrant = askable(decision);
        const values = canGrant ? policy.argumentValues(tool, call.params, facts, call.agentId) : [];
        const treeMark = canGrant ? this.taint.treeMark(facts) : undefined;
        // A payment to an account the session already paid is asked each time: no grant answers it.
        const repeats = decision.rules.some((r) => r.repeats === true);
        const granted = canGrant && !repeats ? this.grantsFor(decision, values, call, tool, treeMark) : undefined;
        if (granted) {
          decision = granted;
        } else {
          // A grant for this build or test would answer but for code written into its tree since: name that file.
          if (treeMark !== undefined && this.answering(decision, values, call, tool, undefined)) {
            const change = this.taint.treeChange(facts);
            if (change) decision = { ...decision, cause: change };
          }
          // Only a call the owner could answer is put to anyone (`withApproval` leaves the rest as they are).
          if (canGrant) {
            const surface =
              call.canAsk === false
                ? { surface: "unsupported" as const }
                : surfaceOf(call.sessionKey, surfaceFacts, call.isSubagent, onChannel, (key) => this.taint.store.peek(key));
            // Never granted for good: a secret the call carries, or a payment made again (each one is asked).
            const once = hidden !== undefined || repeats;
            const resolved = tool;
            const offer = (asked: Decision) => (once ? undefined : this.offerFor(asked, values, treeMark, call, resolved));
            decision = withApproval(decision, policy.approvals, policy.manifestFor(tool.name)?.manifest.riskLevel, surface, offer);
            // What the call says (a message, an instruction), for whoever is asked.
            if (decision.effect === "approve" || decision.effect === "would-ask") {
              const texts = policy.textsOf(tool, call.params);
              if (texts.length > 0) decision = { ...decision, texts };
            }
          }
        }
      }
      if (hidden) decision = { ...decision, hidden };
      this.taint.afterCall(call, tool, decision, facts);
      if (facts && decision.outcome === "allow") this.noteProtectedWrites(call, decision, facts.touches);
      this.notePathChanges(call, decision);
      this.audit.recordDecision(decision, contextOf(call, lowered));
      return decision;
    } catch (error) {
      const decision = internalErrorDecision(String(call.toolName), tool ? policy.modeFor(tool) : policy.enforcement.mode, error);
      // Whatever a call decided by an error does, nothing resolved before it is reused.
      if (decision.effect !== "block") this.host.resolver.changing?.(call.toolCallId, true);
      try {
        this.audit.recordDecision(decision, contextOf(call, []));
      } catch {
        // The decision stands even when it cannot be recorded.
      }
      return decision;
    }
  }

  /** The grants in force that together answer every rule a decision breaks, else undefined. */
  private answering(
    decision: Decision,
    values: ReturnType<CompiledPolicy["argumentValues"]>,
    call: ToolCall,
    tool: ResolvedTool,
    treeMark: string | undefined,
  ): Grant[] | undefined {
    const now = this.now();
    this.expireGrants(now);
    const question = {
      decision,
      values,
      sessionKey: call.sessionKey,
      agentId: call.agentId,
      ...(treeMark !== undefined ? { treeMark } : {}),
      ...callPlace(call, decision, values.length > 0, this.policy.runningTextOf(tool, call.params)),
    };
    return answeringGrants(this.grants.list(), question, now);
  }

  /** The decision when the owner's grants answer every rule it breaks (audited as used), else undefined. */
  private grantsFor(
    decision: Decision,
    values: ReturnType<CompiledPolicy["argumentValues"]>,
    call: ToolCall,
    tool: ResolvedTool,
    treeMark: string | undefined,
  ): Decision | undefined {
    const used = this.answering(decision, values, call, tool, treeMark);
    if (!used) return undefined;
    const ids = used.map((g) => g.id);
    for (const grant of used) {
      this.audit.recordGrant("grant.used", {
        id: grant.id,
        session: call.sessionKey,
        agent: call.agentId,
        toolCallId: call.toolCallId,
        tool: decision.tool,
        answered: decision.rules.map((r) => r.rule),
      });
    }
    return { ...decision, outcome: "allow", effect: "allow", rules: [{ rule: "grant.used", value: ids.join(", ") }], trustLimited: false, grants: ids };
  }

  /** What allow-always would grant for this question, when a grant can answer it. */
  private offerFor(
    decision: Decision,
    values: ReturnType<CompiledPolicy["argumentValues"]>,
    treeMark: string | undefined,
    call: ToolCall,
    tool: ResolvedTool,
  ): GrantOffer | undefined {
    const question = { decision, values, ...callPlace(call, decision, values.length > 0, this.policy.runningTextOf(tool, call.params)) };
    const pattern = callPattern(question);
    // Only what the prompt can show whole is granted for good (a long command, a fifth recipient: asked each time).
    if (!pattern?.tool || !pattern.values || !offerShowable(pattern.values)) return undefined;
    const { scope, expiresInMs } = this.grantSettings();
    const context = grantContext(question);
    return {
      tool: pattern.tool,
      values: pattern.values,
      ...(context ? { context } : {}),
      scope,
      ...(expiresInMs !== undefined ? { expiresInMs } : {}),
      ...(treeMark !== undefined ? { treeMark } : {}),
    };
  }

  private grantSettings(): { scope: GrantScope; expiresInMs?: number } {
    const policy = this.policy;
    if (this.grantDefaults?.policy !== policy) {
      const g = policy.config.approvals.grants;
      this.grantDefaults = { policy, scope: g.scope, ...(g.expiry === "never" ? {} : { expiresInMs: parseDuration(g.expiry) ?? 86_400_000 }) };
    }
    return this.grantDefaults;
  }

  /** Drops expired grants, each audited once. */
  private expireGrants(now: number): void {
    for (const grant of this.grants.expire(now)) this.audit.recordGrant("grant.expired", grantLine(grant));
  }

  /** The grants in force, for `/clawos grants` (expired ones are dropped first). */
  listGrants(): readonly Grant[] {
    this.expireGrants(this.now());
    return this.grants.list();
  }

  /** The owner revokes a grant by id. */
  revokeGrant(id: string, by: string): Grant | undefined {
    const gone = this.grants.revoke(id);
    if (gone) this.audit.recordGrant("grant.revoked", { ...grantLine(gone), by });
    else this.audit.recordGrant("grant.refused", { request: `revoke ${redactString(id).slice(0, 80)}`, by, why: "no such grant" });
    return gone;
  }

  /**
   * The owner grants an irreversible action ahead of time (`/clawos grant <action> [for <duration>]`).
   * Refused, audited and nothing granted for an unknown action, a malformed or over-long duration,
   * or a clock that went back behind the newest grant.
   */
  grantAction(
    action: string,
    duration: string | undefined,
    by: string,
    where: { sessionKey?: string; agentId?: string },
  ): { ok: true; grant: Grant } | { ok: false; why: string } {
    const refuse = (why: string) => {
      this.audit.recordGrant("grant.refused", {
        request: `grant ${redactString(action).slice(0, 80)}${duration ? ` for ${redactString(duration).slice(0, 20)}` : ""}`,
        by,
        why,
      });
      return { ok: false as const, why };
    };
    const known = this.policy.actions;
    if (!known.has(action)) {
      return refuse(`${JSON.stringify(action)} is not an irreversible action ClawOS knows; known: ${[...known.keys()].sort().join(", ")}`);
    }
    const settings = this.grantSettings();
    let expiresInMs = settings.expiresInMs;
    if (duration !== undefined) {
      const ms = parseDuration(duration);
      if (ms === undefined) return refuse(`${JSON.stringify(duration)} is not a duration; write it like 30m, 2h or 1d`);
      if (expiresInMs !== undefined && ms > expiresInMs)
        return refuse(`${duration} is longer than approvals.grants.expiry (${this.policy.config.approvals.grants.expiry})`);
      expiresInMs = ms;
    }
    const now = this.now();
    const newest = Math.max(0, ...this.grants.list().map((g) => g.createdAt));
    if (newest > now + CLOCK_SLACK_MS) return refuse("the clock is behind the newest grant (it was set back); nothing is granted until it is right");
    const grant = this.grants.add({
      action,
      scope: "everywhere",
      createdAt: now,
      ...(expiresInMs !== undefined ? { expiresAt: now + expiresInMs } : {}),
      by,
    });
    this.audit.recordGrant("grant.created", { ...grantLine(grant), session: where.sessionKey });
    return { ok: true, grant };
  }

  private noteProtectedWrites(call: ToolCall, decision: Decision, touches: CallFacts["touches"]): void {
    for (const touch of touches) {
      if (touch.kind !== "protected-write" && touch.kind !== "secret-write") continue;
      this.protectedWrites.push({
        at: this.now(),
        tool: decision.tool,
        sessionKey: call.sessionKey,
        path: touch.value,
        label: touch.label,
        trust: decision.inputTrust,
      });
      if (this.protectedWrites.length > PROTECTED_WRITES_KEPT) this.protectedWrites.shift();
    }
  }

  /**
   * The owner answered (or the host gave up on) an approval ClawOS asked for. An approved call runs
   * now: what it means for trust (writes labelled, message targets lowered, spawns noted) is
   * recorded as for an allowed call, and its result will taint as usual. A denied, timed-out or
   * cancelled one stays stopped. Audited either way. Never throws.
   */
  approvalResolved(call: ToolCall, decision: Decision, resolution: string): void {
    const approved = resolution === "allow-once" || resolution === "allow-always";
    try {
      if (resolution === "allow-always" && decision.offer) {
        const now = this.now();
        const offer = decision.offer;
        const grant = this.grants.add({
          tool: offer.tool,
          values: offer.values,
          ...(offer.context ? { context: offer.context } : {}),
          scope: offer.scope,
          ...(offer.scope === "session" && call.sessionKey ? { sessionKey: call.sessionKey } : {}),
          ...(offer.scope === "agent" ? { agentId: call.agentId ?? "main" } : {}),
          createdAt: now,
          ...(offer.expiresInMs !== undefined ? { expiresAt: now + offer.expiresInMs } : {}),
          ...(offer.treeMark !== undefined ? { treeMark: offer.treeMark } : {}),
          by: "allow-always",
        });
        this.audit.recordGrant("grant.created", { ...grantLine(grant), toolCallId: call.toolCallId });
      }
      // A call that will not run now moves nothing.
      if (!approved && call.toolCallId) this.host.resolver.changed?.(call.toolCallId, false);
      if (approved) {
        const policy = this.policy;
        const tool = policy.resolve(call.toolName, call.params, call.toolKind);
        const facts = policy.modeFor(tool) === "off" ? undefined : policy.factsFor(tool, call.params, call.derivedPaths, call.agentId);
        this.taint.afterCall(call, tool, { ...decision, outcome: "allow" }, facts);
      }
      this.audit.recordApproval(decision, resolution, contextOf(call, []));
    } catch {
      // The host's answer stands; ClawOS only failed to record it.
    }
  }

  /** A tool result entered its session; what it brought in, or undefined when nothing did. */
  observeResult(result: ToolResult): ObservedResult | undefined {
    if (result.toolCallId) this.host.resolver.changed?.(result.toolCallId, runningId(result.content) !== undefined);
    return this.taint.observeResult(result);
  }

  /**
   * A call that runs (or may, once approved) and can rename, delete or link files: the resolver
   * stops reusing real paths until its result (see `pathEffect`).
   */
  private notePathChanges(call: ToolCall, decision: Decision): void {
    if (decision.effect === "block") return;
    const effect = this.policy.pathEffect(decision);
    if (effect !== "none") this.host.resolver.changing?.(call.toolCallId, effect === "lasting");
  }

  /** A model run is about to start: input another session sent lowers this one before the model sees it. */
  observeTurn(turn: TurnInput): void {
    if (turn.trigger !== undefined || turn.requester !== undefined) {
      if (turn.sessionKey) {
        const facts = this.taint.surfaceRecord(turn.sessionKey, turn.isSubagent === true);
        noteTurnSurface(facts, turn.trigger, turn.requester === undefined ? undefined : turn.requester.channel !== undefined);
      }
    }
    this.taint.beforeTurn(turn);
  }

  observeMessage(message: ChannelMessage): void {
    this.taint.observeMessage(message);
  }

  /** The host ran a `/clawos` command for this session's latest message from that sender (see SessionTaint). */
  commandHandled(sessionKey: string, channel: string | undefined, senderId: string | undefined): void {
    this.taint.commandHandled(sessionKey, channel, senderId);
  }

  /** The adapter's word on whether this path delivers result hooks. */
  expectResultHooks(live: boolean): void {
    this.taint.expectResultHooks(live);
  }

  linkSubagent(childKey: string, parentKey: string | undefined): void {
    this.taint.linkSubagent(childKey, parentKey);
  }

  subagentEnded(childKey: string): void {
    this.taint.subagentEnded(childKey);
  }

  /** An authorized owner action (the caller checked who): the session returns to owner trust. Audited. */
  resetTrust(sessionKey: string, by: string): { from: TrustLevel; to: TrustLevel } {
    return this.taint.reset(sessionKey, by);
  }

  /**
   * An authorized owner action (the caller checked who): the owner reviewed what is at `raw` (resolved
   * as the agent's tools resolve it) and vouches for it, so its labels below owner give way. Audited,
   * and so is a path that cannot be resolved or holds no label below owner (nothing changes then).
   */
  trustFile(raw: string, agentId: string | undefined, by: string): { ok: true; path: string; from: TrustLevel } | { ok: false; why: string } {
    const shown = redactString(raw).slice(0, 200);
    const forms = this.policy.resolvePath(raw, agentId);
    const path = forms?.[0];
    if (!forms || !path) {
      this.audit.recordFile("file.refused", { path: shown, by, why: "not a local path" });
      return { ok: false, why: `${JSON.stringify(shown)} is not a local path` };
    }
    const gone = this.taint.vouchFile(forms, by);
    if (gone.length === 0) {
      this.audit.recordFile("file.refused", { path, by, why: "no label below owner" });
      return { ok: false, why: `ClawOS holds no label below owner for ${path} (/clawos files lists them)` };
    }
    const from = gone[0].level;
    this.audit.recordFile("file.trusted", { path, from, labels: gone.length, by });
    return { ok: true, path, from };
  }

  /** File labels below owner, newest first, for `/clawos files`; with how many there are and whether they hold. */
  fileLabels(limit: number): { newest: { path: string; label: FileLabel }[]; counts: Record<TrustLevel, number>; problem?: string } {
    const labels = this.taint.provenance.labels;
    return { newest: labels.lowered(limit), counts: labels.countsByLevel(), ...(labels.problem ? { problem: labels.problem } : {}) };
  }

  /** A new session replaced this key's context (/new, /reset): it starts clean. */
  sessionReplaced(sessionKey: string, reason: string): void {
    this.taint.replaced(sessionKey, reason);
  }

  describeSession(sessionKey: string): SessionTrust {
    return this.taint.describe(sessionKey);
  }

  /** What `/clawos session` shows, as data: trust, requesters and why, provenance summary. */
  sessionReport(sessionKey: string): SessionReport {
    return this.taint.report(sessionKey);
  }

  /** The loaded manifests, aliases folded, and the ones that failed to load. */
  manifestList(): { entries: ManifestEntry[]; broken: readonly BrokenManifest[] } {
    return { entries: this.policy.manifests.distinct(), broken: this.policy.manifests.broken };
  }

  recentDecisions(n: number): ReturnType<AuditLog["recent"]> {
    return this.audit.recent(n);
  }

  rolloutReport(): Iterable<RolloutRow> {
    return this.audit.byToolRule.values();
  }

  /** The owner's approvals since start, by pattern: what `/clawos audit` suggests standing answers from. */
  approvalTally(): ReturnType<AuditLog["approvalTally"]> {
    return this.audit.approvalTally();
  }

  status(): EngineStatus {
    const store = this.taint.store;
    this.audit.checkIntegrity();
    return {
      policy: this.policy,
      audit: this.audit.health,
      counts: this.audit.counts,
      unmanifestedTools: this.audit.unmanifestedTools,
      store: { ...store.health, sessions: store.size },
    };
  }

  /** A config reload pointed the audit log elsewhere; counters and the rollout report carry on. */
  retargetAudit(file: string | undefined): void {
    this.audit.retarget(file);
  }

  /** Writes what is pending, synchronously: session state and the audit log (gateway stop, process exit). */
  flush(): void {
    this.taint.store.flush();
    this.taint.provenance.labels.flush();
    this.audit.flush();
  }

  /** Flushes and closes the audit log (the process is going away). */
  close(): void {
    this.flush();
    this.audit.close();
  }
}

/**
 * An exec the host starts in the background or on a terminal (`background`, `pty`): it keeps
 * running, and a test runner that watches its tree would run what is written there later. A check
 * of the project below owner must be one the gate sees start and, unless the host leaves it
 * running, end.
 */
function startsLeftRunning(params: unknown): boolean {
  if (!params || typeof params !== "object") return false;
  const p = params as Record<string, unknown>;
  return p.background === true || p.pty === true;
}

/**
 * Where a call acts and for whom, as a call grant is bound to them besides its values: the channel
 * it names, or for a send that names none the turn's (the host sends there), its `accountId`, and
 * who drove the turn (the owner, or a sender by channel and id).
 */
function callPlace(
  call: ToolCall,
  decision: Decision,
  namesValues: boolean,
  runningText: readonly string[] | undefined,
): { channel?: string; account?: string; driver?: string; shape?: readonly string[] } {
  const own = (decision.via !== undefined ? bridgedArgs(call.params) : call.params) as { channel?: unknown; accountId?: unknown } | undefined;
  // A send that names no channel goes out on the turn's; other tools act where they act.
  const sends = decision.capabilities.includes("message:send");
  const given = typeof own?.channel === "string" && own.channel.trim() !== "" ? own.channel : sends ? call.requester?.channel : undefined;
  const channel = given?.trim() ? given.trim().toLowerCase() : undefined;
  const account = typeof own?.accountId === "string" && own.accountId.trim() !== "" ? own.accountId.trim() : undefined;
  const requester = call.requester;
  const driver = requester?.senderIsOwner === true ? "owner" : requester?.senderId ? `${requester.channel ?? "?"}:${requester.senderId}` : undefined;
  const shape = callShape(own, namesValues, runningText);
  return {
    ...(channel !== undefined ? { channel } : {}),
    ...(account !== undefined ? { account } : {}),
    ...(driver !== undefined ? { driver } : {}),
    ...(shape !== undefined ? { shape } : {}),
  };
}

function contextOf(call: ToolCall, taint: readonly TaintSource[]): DecisionContext {
  return {
    agentId: call.agentId,
    sessionKey: call.sessionKey,
    toolCallId: call.toolCallId,
    params: call.params,
    taint,
    isSubagent: call.isSubagent,
  };
}

/** A grant as an audit line: its id, what it answers (values redacted and shortened), scope and expiry. */
export function grantLine(grant: Grant): Record<string, unknown> {
  return {
    id: grant.id,
    ...(grant.tool ? { tool: grant.tool } : {}),
    ...(grant.action ? { action: grant.action } : {}),
    ...(grant.values ? { values: grant.values.map((v) => valuePattern(v, redactString(v.value).slice(0, 120))) } : {}),
    ...(grant.context ? { context: grant.context } : {}),
    scope: grant.scope,
    ...(grant.sessionKey ? { session: grant.sessionKey } : {}),
    ...(grant.agentId ? { agent: grant.agentId } : {}),
    ...(grant.expiresAt !== undefined ? { expires: new Date(grant.expiresAt).toISOString() } : { expires: "never" }),
    by: grant.by,
  };
}

/** An exec call placed on another machine: a paired node (`node`, or `host: "node"`). */
function runsElsewhere(params: unknown): boolean {
  if (!params || typeof params !== "object") return false;
  const p = params as { node?: unknown; host?: unknown };
  return (typeof p.node === "string" && p.node.trim() !== "") || p.host === "node";
}
