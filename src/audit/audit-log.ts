import { closeSync, fsyncSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import pino, { type Logger } from "pino";
import { AuditSeal, type Integrity } from "./audit-seal.ts";
import type { Decision, RuleHit } from "../policy/decision.ts";
import { isoTime } from "../report/iso-time.ts";
import { blockReason } from "../report/reason.ts";
import { ApprovalTally, offerFields, type ApprovalPatternRow } from "../report/approval-suggestions.ts";
import { hideValues, paramsHash, paramsPreview } from "./redact.ts";
import type { TaintSource } from "../taint/session-store.ts";
import type { ArgumentVerdict } from "../taint/provenance.ts";
import type { TrustChange } from "../taint/session-taint.ts";

/**
 * The audit log: one JSON line per decision and per trust change, written by pino to a file.
 * The gate only enqueues a record (no serialisation, no I/O on the tool call's path); a
 * setImmediate drain turns the batch into lines and hands them to the kernel in one write, and
 * `flush()` drains synchronously and fsyncs at shutdown. The drain does not fsync: an fsync per
 * tool call held the event loop for milliseconds (see docs/performance.md), and a written line
 * survives a crash of the process; only a crash of the machine can lose the last lines.
 * Counters and a ring of recent decisions serve `/clawos` without reading the file back.
 */

export interface DecisionContext {
  readonly agentId?: string;
  readonly sessionKey?: string;
  readonly toolCallId?: string;
  readonly params?: unknown;
  readonly taint: readonly TaintSource[];
  readonly isSubagent: boolean;
}

export interface DecisionRecord {
  readonly at: number;
  readonly decision: Decision;
  readonly context: DecisionContext;
}

/** would-block and block counts (and asks, when any) per tool and rule: the rollout report. */
export interface RolloutRow {
  tool: string;
  rule: string;
  wouldBlock: number;
  block: number;
  ask?: number;
  wouldAsk?: number;
}

export interface AuditCounts {
  decisions: number;
  allow: number;
  block: number;
  wouldBlock: number;
  /** Calls put to the owner (enforce), and calls audit mode let run that enforce would have asked about. */
  ask: number;
  wouldAsk: number;
  /** The owner's answers: allow-once or allow-always; deny, timeout or cancelled. */
  approved: number;
  denied: number;
  /** Grants made, calls they let run, and grants refused (a malformed or unauthorised command, an unknown action). */
  grantsCreated: number;
  grantsUsed: number;
  grantsRefused: number;
  unmanifested: number;
  errors: number;
  trustChanges: number;
}

export interface AuditHealth {
  written: number;
  writeErrors: number;
  lastWriteError?: string;
  file?: string;
  /** Whether the log on disk is still what ClawOS wrote (see `audit-seal.ts`). */
  integrity?: Integrity;
}

/** A config reload that weakened ClawOS: what changed, and the writes ClawOS saw that could have made it. */
export interface ConfigChange {
  readonly weakened: readonly string[];
  readonly writers: readonly string[];
}

type Pending =
  | { kind: "decision"; record: DecisionRecord }
  | { kind: "trust"; change: TrustChange; at: number }
  | { kind: "config"; change: ConfigChange; at: number }
  | { kind: "approval"; record: DecisionRecord; resolution: string }
  | { kind: "grant"; event: GrantEvent; line: Record<string, unknown>; at: number }
  | { kind: "file"; event: FileEvent; line: Record<string, unknown>; at: number };

/** What happened to a grant: made, used by a call, expired, revoked, or a request for one refused. */
export type GrantEvent = "grant.created" | "grant.used" | "grant.expired" | "grant.revoked" | "grant.refused";

/** The owner vouched for a labelled file after reviewing it, or a request to was refused. */
export type FileEvent = "file.trusted" | "file.refused";

export interface AuditOptions {
  /** JSON-lines file; undefined keeps counters and the recent ring only. */
  file?: string;
  recent: number;
  now?: () => number;
}

export class AuditLog {
  readonly counts: AuditCounts = {
    decisions: 0,
    allow: 0,
    block: 0,
    wouldBlock: 0,
    ask: 0,
    wouldAsk: 0,
    approved: 0,
    denied: 0,
    grantsCreated: 0,
    grantsUsed: 0,
    grantsRefused: 0,
    unmanifested: 0,
    errors: 0,
    trustChanges: 0,
  };
  readonly health: AuditHealth = { written: 0, writeErrors: 0 };
  /** would-block and block counts per tool and rule since start: the rollout report. */
  readonly byToolRule = new Map<string, RolloutRow>();
  readonly unmanifestedTools = new Map<string, number>();
  private readonly rolloutRows = new WeakMap<readonly RuleHit[], { readonly tool: string; readonly entries: RolloutRow[] }>();
  private readonly ring: DecisionRecord[] = [];
  private ringNext = 0;
  private readonly ringSize: number;
  private readonly queue: Pending[] = [];
  private scheduled = false;
  private logger?: Logger;
  private fd?: number;
  /** Lines formatted by pino in this drain, written with one syscall. */
  private readonly lines: string[] = [];
  private linesLength = 0;
  private readonly now: () => number;
  /** True when the audit file could not be opened: records are counted but not written. */
  private lost = false;
  private sealer?: AuditSeal;
  /** Approvals that carried an offer, by pattern (bounded): what `/clawos audit` suggests from. */
  private readonly approvals = new ApprovalTally();

  constructor(options: AuditOptions) {
    this.ringSize = options.recent;
    this.now = options.now ?? Date.now;
    if (options.file) this.open(options.file);
  }

  /** Points the log at another file (a config reload changed `audit.file`); counters carry on. */
  retarget(file: string | undefined): void {
    if (file === this.health.file) return;
    this.close();
    this.fd = undefined;
    this.sealer = undefined;
    this.health.integrity = undefined;
    this.lost = false;
    this.health.file = undefined;
    if (file) this.open(file);
  }

  private open(file: string): void {
    this.health.file = file;
    try {
      mkdirSync(dirname(file), { recursive: true });
      // Opened synchronously so that an exit right after start can still flush every record.
      this.fd = openSync(file, "a");
      this.sealer = new AuditSeal(file, this.fd);
      this.health.integrity = this.sealer.integrity;
    } catch (error) {
      this.noteWriteError(error);
      this.lost = true;
      return;
    }
    // Synchronous writes, batched: the drain runs off the tool call's path, lines stay in order
    // and no write is ever in flight when the process exits.
    const sink = {
      write: (line: string) => {
        this.lines.push(line);
        this.linesLength += line.length;
        if (this.linesLength >= 1024 * 1024) this.writeLines(false);
      },
    };
    this.logger ??= pino(
      // Every line carries the record format version in place of pino's level.
      { base: undefined, messageKey: "event", timestamp: false, formatters: { level: () => ({ v: 1 }) } },
      sink,
    );
  }

  /** Hot path: count, keep in the ring, enqueue. No serialisation here. */
  recordDecision(decision: Decision, context: DecisionContext): void {
    const record: DecisionRecord = { at: this.now(), decision, context };
    const c = this.counts;
    c.decisions++;
    if (decision.effect === "allow") c.allow++;
    else if (decision.effect === "block") c.block++;
    else if (decision.effect === "approve") c.ask++;
    else if (decision.effect === "would-ask") c.wouldAsk++;
    else c.wouldBlock++;
    if (!decision.manifested && decision.mode !== "off") {
      c.unmanifested++;
      this.unmanifestedTools.set(decision.tool, (this.unmanifestedTools.get(decision.tool) ?? 0) + 1);
    }
    if (decision.effect !== "allow") this.countRules(decision);
    if (decision.rules.some((r) => r.rule === "internal.error")) c.errors++;
    if (this.ring.length < this.ringSize) this.ring.push(record);
    else this.ring[this.ringNext] = record;
    this.ringNext = (this.ringNext + 1) % this.ringSize;
    this.enqueue({ kind: "decision", record });
  }

  /** The owner's answer to an approval ClawOS asked for (or the host's timeout or cancellation). */
  recordApproval(decision: Decision, resolution: string, context: DecisionContext): void {
    if (resolution === "allow-once" || resolution === "allow-always") this.counts.approved++;
    else this.counts.denied++;
    const record: DecisionRecord = { at: this.now(), decision, context };
    if (decision.offer) {
      this.approvals.add({
        ...offerFields(decision.offer, decision.hidden),
        at: record.at,
        resolution,
        tool: decision.tool,
        session: context.sessionKey,
        inputTrust: decision.inputTrust,
        rules: decision.rules.map((r) => r.rule),
      });
    }
    this.enqueue({ kind: "approval", record, resolution });
  }

  /** The approvals tallied by pattern since start (allow-once and allow-always; copies). */
  approvalTally(): readonly ApprovalPatternRow[] {
    return this.approvals.list();
  }

  /** A grant's life: the grant as data (ids, tool, values redacted by the caller), and the call or command that caused it. */
  recordGrant(event: GrantEvent, line: Record<string, unknown>): void {
    if (event === "grant.created") this.counts.grantsCreated++;
    else if (event === "grant.used") this.counts.grantsUsed++;
    else if (event === "grant.refused") this.counts.grantsRefused++;
    this.enqueue({ kind: "grant", event, line, at: this.now() });
  }

  recordFile(event: FileEvent, line: Record<string, unknown>): void {
    this.enqueue({ kind: "file", event, line, at: this.now() });
  }

  recordTrustChange(change: TrustChange): void {
    this.counts.trustChanges++;
    this.enqueue({ kind: "trust", change, at: this.now() });
  }

  /** A hot reload weakened ClawOS's config: recorded as `config.weakened` with who could have written it. */
  recordConfigChange(change: ConfigChange): void {
    this.enqueue({ kind: "config", change, at: this.now() });
  }

  /** The last `n` decisions, oldest first. */
  recent(n: number): DecisionRecord[] {
    const ordered = this.ring.length < this.ringSize ? this.ring.slice() : [...this.ring.slice(this.ringNext), ...this.ring.slice(0, this.ringNext)];
    return ordered.slice(Math.max(0, ordered.length - n));
  }

  /** The log on disk checked against what ClawOS wrote: replaced or shortened since it was opened, or against its seal. */
  checkIntegrity(): Integrity | undefined {
    return this.sealer?.checkLive();
  }

  /** Resolves when the log that existed at open has been checked against its seal (tests, status). */
  integrityChecked(): Promise<void> {
    return this.sealer?.checked ?? Promise.resolve();
  }

  /** Writes everything queued, synchronously: safe in exit handlers. */
  flush(): void {
    this.drain(true);
  }

  /** Flushes and closes the file (gateway stop). */
  close(): void {
    this.flush();
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch (error) {
      this.noteWriteError(error);
    }
  }

  private countRules(decision: Decision): void {
    // Decisions are shared objects (memoized by the policy), and one that carries an approval or a
    // grant offer is a copy that shares their rules: the rollout rows are found once per rules.
    const known = this.rolloutRows.get(decision.rules);
    let entries = known?.tool === decision.tool ? known.entries : undefined;
    if (!entries) {
      entries = decision.rules.map(({ rule }) => {
        const key = `${decision.tool}\u0000${rule}`;
        let entry = this.byToolRule.get(key);
        if (!entry) {
          entry = { tool: decision.tool, rule, wouldBlock: 0, block: 0 };
          this.byToolRule.set(key, entry);
        }
        return entry;
      });
      this.rolloutRows.set(decision.rules, { tool: decision.tool, entries });
    }
    for (const entry of entries) {
      if (decision.effect === "block") entry.block++;
      else if (decision.effect === "approve") entry.ask = (entry.ask ?? 0) + 1;
      else if (decision.effect === "would-ask") entry.wouldAsk = (entry.wouldAsk ?? 0) + 1;
      else entry.wouldBlock++;
    }
  }

  private enqueue(item: Pending): void {
    if (!this.logger || this.fd === undefined) {
      if (this.lost) this.health.writeErrors++;
      return;
    }
    this.queue.push(item);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.drain());
    }
  }

  private drain(durable = false): void {
    this.scheduled = false;
    if (!this.logger) return;
    const items = this.queue.splice(0, this.queue.length);
    for (const item of items) {
      try {
        if (item.kind === "decision") this.logger.info(decisionLine(item.record), "decision");
        else if (item.kind === "approval") this.logger.info(approvalLine(item.record, item.resolution), "approval");
        else if (item.kind === "trust") this.logger.info(trustLine(item.change, item.at), item.change.event);
        else if (item.kind === "grant" || item.kind === "file") this.logger.info({ time: isoTime(item.at), ...item.line }, item.event);
        else this.logger.info({ time: isoTime(item.at), weakened: item.change.weakened, writers: item.change.writers }, "config.weakened");
        this.health.written++;
      } catch (error) {
        this.noteWriteError(error);
      }
    }
    this.writeLines(durable);
  }

  /** One write(2) for the batch; `durable` adds an fsync (shutdown). */
  private writeLines(durable: boolean): void {
    if (this.fd === undefined) return;
    if (this.lines.length > 0) {
      const data = Buffer.from(this.lines.join(""), "utf8");
      this.lines.length = 0;
      this.linesLength = 0;
      try {
        for (let offset = 0; offset < data.length; ) offset += writeSync(this.fd, data, offset);
        this.sealer?.appended(data);
      } catch (error) {
        this.noteWriteError(error);
      }
    }
    this.sealer?.seal(durable);
    if (durable) {
      try {
        fsyncSync(this.fd);
      } catch {
        // Some descriptors cannot be synced; the lines are written.
      }
    }
  }

  private noteWriteError(error: unknown): void {
    this.health.writeErrors++;
    this.health.lastWriteError = error instanceof Error ? error.message : String(error);
  }
}

function sourceLine(source: TaintSource): Record<string, unknown> {
  return {
    level: source.level,
    kind: source.kind,
    label: source.label,
    ...(source.tool ? { tool: source.tool } : {}),
    ...(source.callId ? { callId: source.callId } : {}),
    at: isoTime(source.at),
  };
}

export function decisionLine(record: DecisionRecord): Record<string, unknown> {
  const { decision: d, context: c } = record;
  return {
    time: isoTime(record.at),
    agent: c.agentId,
    session: c.sessionKey,
    subagent: c.isSubagent || undefined,
    toolCallId: c.toolCallId,
    tool: d.tool,
    requestedTool: d.requestedTool !== d.tool ? d.requestedTool : undefined,
    via: d.via,
    capabilities: d.capabilities,
    inputTrust: d.inputTrust,
    taint: c.taint.map(sourceLine),
    decision: d.effect,
    mode: d.mode,
    manifested: d.manifested,
    rules: d.rules.map((r) => r.rule),
    reason: blockReason(d),
    arguments: d.arguments?.map((v) => argumentLine(v, d.hidden)),
    params: c.params === undefined ? undefined : { hash: paramsHash(c.params), preview: paramsPreview(c.params, d.hidden) },
  };
}

/** Where one security-relevant argument came from, as the decision saw it (the value is already shortened and redacted). */
function argumentLine(v: ArgumentVerdict, hidden: readonly string[] | undefined): Record<string, unknown> {
  return {
    argument: v.argument,
    role: v.role,
    value: hideValues(v.value, hidden),
    verdict: v.verdict,
    allowed: v.allowed,
    level: v.level,
    source: v.source,
    callId: v.callId,
    note: v.note,
  };
}

/**
 * An approval's answer: the call it was about (as its decision line names it) and the answer; when
 * allow-always was offered, the pattern it would have granted (values redacted and shortened), its
 * key for grouping, the grant's scope and expiry, and the trust the call had.
 */
export function approvalLine(record: DecisionRecord, resolution: string): Record<string, unknown> {
  const { decision: d, context: c } = record;
  return {
    time: isoTime(record.at),
    agent: c.agentId,
    session: c.sessionKey,
    toolCallId: c.toolCallId,
    tool: d.tool,
    resolution,
    rules: d.rules.map((r) => r.rule),
    ...(d.offer ? { inputTrust: d.inputTrust, ...offerFields(d.offer, d.hidden) } : {}),
  };
}

function trustLine(change: TrustChange, at: number): Record<string, unknown> {
  return {
    time: isoTime(at),
    session: change.sessionKey,
    from: change.from,
    to: change.to,
    source: sourceLine(change.source),
    by: change.by,
  };
}
