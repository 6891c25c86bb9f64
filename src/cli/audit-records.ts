import { closeSync, createReadStream, openSync, readSync, statSync } from "node:fs";
import { createInterface } from "node:readline";
import { TAINT_KINDS, type TaintKind, type TaintSource } from "../taint/session-store.ts";
import { isTrustLevel, type TrustLevel } from "../taint/trust.ts";
import { GRANT_SCOPES } from "../grants/grant.ts";
import type { OfferFields } from "../report/approval-suggestions.ts";

/**
 * The audit log as the operator CLI reads it back: one JSON line per record, in the format
 * `audit/audit-log.ts` writes (`v: 1`; `event` is `decision`, `trust.lowered`, `trust.reset`,
 * `config.weakened`, `approval` or a grant's `grant.*`). Parsing is pure; reading streams the file so a large log costs little memory.
 */

/** A taint source as an audit record carries it: the session store's own shape. */
export type AuditSource = TaintSource;

export interface DecisionRecord {
  readonly event: "decision";
  readonly at: number;
  readonly agent?: string;
  readonly session?: string;
  readonly subagent: boolean;
  readonly toolCallId?: string;
  readonly tool: string;
  readonly requestedTool?: string;
  readonly via?: string;
  readonly capabilities: readonly string[];
  readonly inputTrust: TrustLevel;
  readonly taint: readonly AuditSource[];
  /** allow, block, would-block (audit), approve (the owner was asked), would-ask (audit). */
  readonly decision: "allow" | "block" | "would-block" | "approve" | "would-ask";
  readonly mode: string;
  readonly manifested: boolean;
  readonly rules: readonly string[];
  readonly reason?: string;
  /** Who asked for the call, when the record names it (`channel:sender`). */
  readonly requester?: string;
}

export interface TrustRecord {
  readonly event: "trust.lowered" | "trust.reset";
  readonly at: number;
  readonly session: string;
  readonly from: TrustLevel;
  readonly to: TrustLevel;
  readonly source?: AuditSource;
  readonly by?: string;
}

export interface ConfigRecord {
  readonly event: "config.weakened";
  readonly at: number;
  readonly weakened: readonly string[];
  readonly writers: readonly string[];
}

/**
 * The owner's answer to an approval ClawOS asked for. When allow-always was offered, the line also
 * carries the pattern it would have granted (`offerFields`) and the trust the call had.
 */
export interface ApprovalRecord extends Partial<OfferFields> {
  readonly event: "approval";
  readonly at: number;
  readonly agent?: string;
  readonly session?: string;
  readonly toolCallId?: string;
  readonly tool: string;
  /** allow-once, allow-always, deny, timeout or cancelled. */
  readonly resolution: string;
  readonly rules: readonly string[];
  readonly inputTrust?: TrustLevel;
}

/** A grant made, used, expired, revoked, or a request for one refused (the grant's id and what it answers). */
export interface GrantRecord {
  readonly event: "grant.created" | "grant.used" | "grant.expired" | "grant.revoked" | "grant.refused";
  readonly at: number;
  readonly id?: string;
  readonly tool?: string;
  readonly action?: string;
  readonly session?: string;
  readonly by?: string;
  readonly why?: string;
}

const GRANT_EVENTS = new Set<string>(["grant.created", "grant.used", "grant.expired", "grant.revoked", "grant.refused"]);
const DECISIONS = new Set<string>(["allow", "block", "would-block", "approve", "would-ask"]);

export type AuditRecord = DecisionRecord | TrustRecord | ConfigRecord | ApprovalRecord | GrantRecord;

type Json = Record<string, unknown>;

function text(value: unknown): string | undefined {
  return typeof value === "string" && value ? value : undefined;
}

function texts(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

function time(value: unknown): number | undefined {
  const at = typeof value === "string" ? Date.parse(value) : Number.NaN;
  return Number.isFinite(at) ? at : undefined;
}

const KINDS: ReadonlySet<string> = new Set<TaintKind>(TAINT_KINDS);

function source(value: unknown): AuditSource | undefined {
  const s = value as Json | undefined;
  if (!s || typeof s !== "object" || !isTrustLevel(s.level)) return undefined;
  return {
    level: s.level,
    kind: (KINDS.has(String(s.kind)) ? s.kind : "state") as TaintKind,
    label: text(s.label) ?? "(no label)",
    ...(text(s.tool) ? { tool: text(s.tool) } : {}),
    ...(text(s.callId) ? { callId: text(s.callId) } : {}),
    at: time(s.at) ?? 0,
  };
}

function requesterOf(value: unknown): string | undefined {
  if (typeof value === "string") return text(value);
  const r = value as Json | undefined;
  if (!r || typeof r !== "object") return undefined;
  const who = text(r.senderId) ? `${text(r.channel) ?? "?"}:${text(r.senderId)}` : text(r.channel);
  return who ? `${who}${r.senderIsOwner === true ? " (owner)" : ""}` : undefined;
}

/** One line of the log as a record; undefined for a line that is not a ClawOS record. */
export function parseAuditLine(line: string): AuditRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const r = value as Json;
  if (!r || typeof r !== "object" || typeof r.event !== "string") return undefined;
  const at = time(r.time);
  if (at === undefined) return undefined;
  if (r.event === "decision") {
    const decision = r.decision as DecisionRecord["decision"];
    if (!DECISIONS.has(String(decision))) return undefined;
    if (typeof r.tool !== "string" || !isTrustLevel(r.inputTrust)) return undefined;
    const requester = requesterOf(r.requester);
    return {
      event: "decision",
      at,
      agent: text(r.agent),
      session: text(r.session),
      subagent: r.subagent === true,
      toolCallId: text(r.toolCallId),
      tool: r.tool,
      requestedTool: text(r.requestedTool),
      via: text(r.via),
      capabilities: texts(r.capabilities),
      inputTrust: r.inputTrust,
      taint: Array.isArray(r.taint) ? r.taint.map(source).filter((s): s is AuditSource => s !== undefined) : [],
      decision,
      mode: text(r.mode) ?? "?",
      manifested: r.manifested !== false,
      rules: texts(r.rules),
      reason: text(r.reason),
      ...(requester ? { requester } : {}),
    };
  }
  if (r.event === "trust.lowered" || r.event === "trust.reset") {
    if (typeof r.session !== "string" || !isTrustLevel(r.from) || !isTrustLevel(r.to)) return undefined;
    return { event: r.event, at, session: r.session, from: r.from, to: r.to, source: source(r.source), by: text(r.by) };
  }
  if (r.event === "config.weakened") return { event: "config.weakened", at, weakened: texts(r.weakened), writers: texts(r.writers) };
  if (r.event === "approval") return approvalRecord(r, at);
  if (GRANT_EVENTS.has(r.event)) {
    return {
      event: r.event as GrantRecord["event"],
      at,
      id: text(r.id),
      tool: text(r.tool),
      action: text(r.action),
      session: text(r.session),
      by: text(r.by),
      why: text(r.why),
    };
  }
  return undefined;
}

function approvalRecord(r: Json, at: number): ApprovalRecord | undefined {
  const tool = text(r.tool);
  const resolution = text(r.resolution);
  if (!tool || !resolution) return undefined;
  const base = {
    event: "approval" as const,
    at,
    agent: text(r.agent),
    session: text(r.session),
    toolCallId: text(r.toolCallId),
    tool,
    resolution,
    rules: texts(r.rules),
    ...(isTrustLevel(r.inputTrust) ? { inputTrust: r.inputTrust } : {}),
  };
  // The offer's fields come together or not at all (a line written before they existed has none).
  const pattern = text(r.pattern);
  const patternKey = text(r.patternKey);
  const scope = GRANT_SCOPES.find((g) => g === r.grantScope);
  const expires = r.grantExpiresInMs;
  const expiry = expires === null ? null : typeof expires === "number" && Number.isFinite(expires) && expires > 0 ? expires : undefined;
  if (!pattern || !patternKey || !scope || expiry === undefined) return base;
  const prefix = text(r.commandPrefix);
  const offer: OfferFields = { pattern, patternKey, grantScope: scope, grantExpiresInMs: expiry, ...(prefix ? { commandPrefix: prefix } : {}) };
  return { ...base, ...offer };
}

/** The record's sources as the policy's type (for `causeOf` and `causeText`). */
export function taintSources(record: DecisionRecord): TaintSource[] {
  return record.taint.map((s) => ({ ...s }));
}

const UNITS: Readonly<Record<string, number>> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `--since`: a duration back from now (`90m`, `36h`, `7d`, `2w`) or a date (`2026-11-01`, ISO time). */
export function parseSince(value: string, now: number): number {
  const m = /^(\d+(?:\.\d+)?)\s*([smhdw])$/i.exec(value.trim());
  if (m) return now - Number(m[1]) * UNITS[m[2].toLowerCase()];
  const at = Date.parse(value.trim());
  if (Number.isFinite(at)) return at;
  throw new Error(`--since ${JSON.stringify(value)}: give a duration such as 7d, 36h or 90m, or a date such as 2026-11-01`);
}

export interface AuditReadSummary {
  readonly file: string;
  /** The file does not exist (no decision was ever recorded there). */
  readonly missing: boolean;
  readonly size: number;
  /** Records read (all of them, whatever `since` says). */
  readonly records: number;
  /** Lines that are not ClawOS records, with their line numbers (the first few). */
  readonly unparsable: number;
  readonly unparsableLines: readonly number[];
  /** The last line has no newline: a write was cut off (a crash, a full disk). */
  readonly tornTail: boolean;
  readonly firstAt?: number;
  readonly lastAt?: number;
  readonly error?: string;
}

/**
 * Streams the log and hands each record at or after `since` to `visit`. Never throws for a missing
 * or unreadable file: the summary says what happened.
 */
export async function readAuditLog(file: string, visit: (record: AuditRecord) => void, options: { since?: number } = {}): Promise<AuditReadSummary> {
  let size = 0;
  try {
    size = statSync(file).size;
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    return { file, missing, size: 0, records: 0, unparsable: 0, unparsableLines: [], tornTail: false, ...(missing ? {} : { error: (error as Error).message }) };
  }
  let records = 0;
  let unparsable = 0;
  const unparsableLines: number[] = [];
  let lineNo = 0;
  let firstAt: number | undefined;
  let lastAt: number | undefined;
  let lastLine = "";
  try {
    const lines = createInterface({ input: createReadStream(file, { encoding: "utf8", end: size > 0 ? size - 1 : 0 }), crlfDelay: Number.POSITIVE_INFINITY });
    for await (const line of lines) {
      lineNo++;
      lastLine = line;
      if (!line.trim()) continue;
      const record = parseAuditLine(line);
      if (!record) {
        unparsable++;
        if (unparsableLines.length < 10) unparsableLines.push(lineNo);
        continue;
      }
      records++;
      firstAt ??= record.at;
      lastAt = record.at;
      if (options.since === undefined || record.at >= options.since) visit(record);
    }
  } catch (error) {
    return { file, missing: false, size, records, unparsable, unparsableLines, tornTail: false, firstAt, lastAt, error: (error as Error).message };
  }
  const tornTail = size > 0 && lastLine !== "" && !endsWithNewline(file, size);
  return { file, missing: false, size, records, unparsable, unparsableLines, tornTail, firstAt, lastAt };
}

function endsWithNewline(file: string, size: number): boolean {
  try {
    const fd = openSync(file, "r");
    try {
      const byte = Buffer.alloc(1);
      readSync(fd, byte, 0, 1, size - 1);
      return byte[0] === 0x0a;
    } finally {
      closeSync(fd);
    }
  } catch {
    return true;
  }
}
