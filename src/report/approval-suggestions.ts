import { hash } from "node:crypto";
import { hideValues, redactString } from "../audit/redact.ts";
import { formatDuration, type GrantOffer, type GrantScope, valuePattern } from "../grants/grant.ts";
import { CONFIG_LOCATION } from "../config/config.ts";
import { minTrust, type TrustLevel } from "../taint/trust.ts";
import { isoTime } from "./iso-time.ts";

/**
 * Learning from approvals without weakening anything: which prompts the owner keeps answering
 * allow-once (the same tool and the same approved values), and the standing answer that would stop
 * them. Suggestions only: nothing here approves, grants or changes a setting, and no suggestion
 * turns enforcement off (audit mode, an override) — the narrowest answer comes first.
 *
 * Pure. The gateway tallies its own answers (`AuditLog`); the operator CLI tallies the approval
 * lines of the audit file; both hand the same rows to `approvalSuggestions`.
 */

/** A pattern's value in words and as a key: redacted, and shortened past this length. */
const VALUE_TEXT_LIMIT = 60;
const VALUE_KEY_LIMIT = 120;
/** The most patterns a tally keeps; the one answered longest ago goes first. */
export const APPROVAL_TALLY_KEYS = 200;
/** Sessions remembered per pattern (to say "in N sessions"). */
const SESSIONS_KEPT = 50;
/** Allow-once answers that make a pattern worth a suggestion. */
export const SUGGEST_AFTER = 2;

/** What allow-always would have granted, as the audit log writes it on an approval line. */
export interface OfferFields {
  /** `exec command starting with "npm run build"`, `message to="boss@example.com"`. */
  readonly pattern: string;
  /** Tool and argument=value pairs (`^=` for a prefix, `@=` for a host), values redacted: the same pattern, the same key. */
  readonly patternKey: string;
  readonly grantScope: GrantScope;
  /** null: the operator's grants never expire. */
  readonly grantExpiresInMs: number | null;
  /** The command prefix allow-always would grant, when the call is a single local command. */
  readonly commandPrefix?: string;
}

function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

/** A value for a key: redacted, bounded, and told apart by a short hash when either changed it. */
function keyValue(value: string, hidden: readonly string[] | undefined): string {
  const redacted = hideValues(redactString(value), hidden);
  if (redacted === value && value.length <= VALUE_KEY_LIMIT) return value;
  return `${redacted.slice(0, VALUE_KEY_LIMIT)}#${hash("sha256", value, "hex").slice(0, 12)}`;
}

/** The offer as a pattern a person reads and a key that groups the same pattern. */
export function offerFields(offer: GrantOffer, hidden?: readonly string[]): OfferFields {
  const values = [...offer.values].sort((a, b) => a.argument.localeCompare(b.argument) || a.value.localeCompare(b.value));
  const words = values.map((v) => {
    const shown = JSON.stringify(clip(hideValues(redactString(v.value), hidden), VALUE_TEXT_LIMIT));
    return valuePattern(v, shown);
  });
  const pattern = words.length > 0 ? `${offer.tool} ${words.join(", ")}` : `${offer.tool} (any call)`;
  const patternKey = [offer.tool, ...values.map((v) => `${v.argument}${v.prefix ? "^=" : v.host ? "@=" : "="}${keyValue(v.value, hidden)}`)].join("|");
  const prefix = values.find((v) => v.prefix && v.role === "command")?.value;
  return {
    pattern,
    patternKey,
    grantScope: offer.scope,
    grantExpiresInMs: offer.expiresInMs ?? null,
    // A rule is suggested only for a prefix that reads the same redacted (it never holds a secret).
    ...(prefix !== undefined && hideValues(redactString(prefix), hidden) === prefix ? { commandPrefix: prefix } : {}),
  };
}

/** One answer to an approval that carried an offer: from the gateway, or an approval line of the audit file. */
export interface ApprovalAnswer extends OfferFields {
  readonly at: number;
  readonly resolution: string;
  readonly tool: string;
  readonly session?: string;
  readonly inputTrust?: TrustLevel;
  readonly rules: readonly string[];
}

/** One pattern's approvals: how often, where, and what the latest offer would have granted. */
export interface ApprovalPatternRow {
  readonly patternKey: string;
  readonly pattern: string;
  readonly tool: string;
  readonly allowOnce: number;
  readonly allowAlways: number;
  readonly first: number;
  readonly last: number;
  readonly sessions: number;
  /** The lowest input trust an approved call of the pattern had. */
  readonly trust?: TrustLevel;
  readonly grantScope: GrantScope;
  readonly grantExpiresInMs: number | null;
  readonly commandPrefix?: string;
  /** The rules the latest approved call broke. */
  readonly rules: readonly string[];
}

type MutableRow = { -readonly [K in keyof ApprovalPatternRow]: ApprovalPatternRow[K] };

/**
 * Approvals by pattern: allow-once and allow-always are counted; deny, timeout and cancelled are
 * not (an answer that stopped the call teaches nothing to suggest). Bounded: past `maxKeys`, the
 * pattern answered longest ago is dropped.
 */
export class ApprovalTally {
  private readonly rows = new Map<string, { row: MutableRow; sessions: Set<string> }>();

  private readonly maxKeys: number;

  constructor(maxKeys = APPROVAL_TALLY_KEYS) {
    this.maxKeys = maxKeys;
  }

  add(answer: ApprovalAnswer): void {
    const once = answer.resolution === "allow-once";
    if (!once && answer.resolution !== "allow-always") return;
    let entry = this.rows.get(answer.patternKey);
    if (entry) {
      // The most recently answered pattern moves to the end: the first key is the one to drop.
      this.rows.delete(answer.patternKey);
    } else {
      entry = {
        row: {
          patternKey: answer.patternKey,
          pattern: answer.pattern,
          tool: answer.tool,
          allowOnce: 0,
          allowAlways: 0,
          first: answer.at,
          last: answer.at,
          sessions: 0,
          grantScope: answer.grantScope,
          grantExpiresInMs: answer.grantExpiresInMs,
          rules: answer.rules,
        },
        sessions: new Set(),
      };
    }
    this.rows.set(answer.patternKey, entry);
    const row = entry.row;
    if (once) row.allowOnce++;
    else row.allowAlways++;
    row.first = Math.min(row.first, answer.at);
    if (answer.at >= row.last) {
      row.last = answer.at;
      row.pattern = answer.pattern;
      row.grantScope = answer.grantScope;
      row.grantExpiresInMs = answer.grantExpiresInMs;
      row.rules = answer.rules;
      if (answer.commandPrefix !== undefined) row.commandPrefix = answer.commandPrefix;
      else delete row.commandPrefix;
    }
    if (answer.inputTrust) row.trust = row.trust ? minTrust(row.trust, answer.inputTrust) : answer.inputTrust;
    if (answer.session && entry.sessions.size < SESSIONS_KEPT) entry.sessions.add(answer.session);
    row.sessions = entry.sessions.size;
    if (this.rows.size > this.maxKeys) {
      const oldest = this.rows.keys().next().value;
      if (oldest !== undefined) this.rows.delete(oldest);
    }
  }

  get size(): number {
    return this.rows.size;
  }

  /** Copies of the rows, the pattern answered longest ago first. */
  list(): ApprovalPatternRow[] {
    return [...this.rows.values()].map(({ row }) => ({ ...row }));
  }
}

/** A pattern worth a standing answer, with what the owner or operator could do, narrowest first. */
export interface ApprovalSuggestion {
  readonly tool: string;
  readonly pattern: string;
  readonly patternKey: string;
  readonly allowOnce: number;
  readonly allowAlways: number;
  readonly sessions: number;
  readonly first: string;
  readonly last: string;
  readonly suggestions: readonly string[];
}

/** Said with every list of suggestions. */
export const NOTHING_AUTOMATIC =
  "Nothing is approved automatically: these are suggestions, and each of these calls still waits for the owner's answer until the owner or operator acts on one.";

const SCOPE_TEXT: Readonly<Record<GrantScope, string>> = { session: "in that session", agent: "for that agent", everywhere: "in every session" };

/** Rules a command allow rule answers: the trust floors of exec, nothing else. */
const FLOOR_RULES = new Set(["tool.min-input-trust", "capability.floor"]);

function grantText(row: ApprovalPatternRow): string {
  const until = row.grantExpiresInMs === null ? "with no expiry" : `for ${formatDuration(row.grantExpiresInMs)}`;
  return `${SCOPE_TEXT[row.grantScope]}, ${until}`;
}

function suggestionsFor(row: ApprovalPatternRow): string[] {
  const out = [`answer allow-always next time: it grants exactly this pattern (${grantText(row)}); any other value still asks`];
  if (row.allowAlways > 0) {
    out.push(
      `allow-always was chosen ${row.allowAlways}x for it too: while such a grant lasts, the pattern runs unasked ${SCOPE_TEXT[row.grantScope]}; /clawos grants lists the grants in force`,
    );
  }
  if (row.grantScope === "session" && row.sessions > 1) {
    out.push(
      `approved in ${row.sessions} sessions: ${CONFIG_LOCATION}.approvals.grants.scope: "agent" makes allow-always cover the agent's other sessions too (wider: weigh it)`,
    );
  }
  const floorsOnly = row.rules.length > 0 && row.rules.every((r) => FLOOR_RULES.has(r));
  if (row.commandPrefix && floorsOnly && row.trust && row.trust !== "owner") {
    const rule = JSON.stringify({ prefix: row.commandPrefix, effect: "allow", trust: row.trust });
    out.push(
      `or the command rule ${rule} under ${CONFIG_LOCATION}.commands.rules: every command starting with ${JSON.stringify(row.commandPrefix)} then runs unasked from ${row.trust} input up, in every session (wider than allow-always: only if that command is safe whatever the session read)`,
    );
  }
  return out;
}

/** The patterns approved allow-once at least `SUGGEST_AFTER` times, most frequent first, each with its suggestions. */
export function approvalSuggestions(rows: Iterable<ApprovalPatternRow>): ApprovalSuggestion[] {
  return [...rows]
    .filter((r) => r.allowOnce >= SUGGEST_AFTER)
    .sort((a, b) => b.allowOnce - a.allowOnce || b.last - a.last || a.patternKey.localeCompare(b.patternKey))
    .map((r) => ({
      tool: r.tool,
      pattern: r.pattern,
      patternKey: r.patternKey,
      allowOnce: r.allowOnce,
      allowAlways: r.allowAlways,
      sessions: r.sessions,
      first: isoTime(r.first),
      last: isoTime(r.last),
      suggestions: suggestionsFor(r),
    }));
}

/** The section in words (`/clawos audit`, `openclaw clawos report`); no lines when there is nothing to suggest. */
export function formatApprovalSuggestions(list: readonly ApprovalSuggestion[], options: { limit?: number; since?: string } = {}): string[] {
  if (list.length === 0) return [];
  const limit = options.limit ?? 5;
  const lines = [`Approved again and again (allow-once${options.since ? `, ${options.since}` : ""}), most frequent first:`];
  for (const s of list.slice(0, limit)) {
    const where = s.sessions > 1 ? `, ${s.sessions} sessions` : "";
    lines.push(`  ${s.pattern}: approved once ${s.allowOnce}x (last ${s.last}${where})`);
    for (const text of s.suggestions) lines.push(`    suggestion: ${text}`);
  }
  if (list.length > limit) lines.push(`  ... and ${list.length - limit} more patterns`);
  lines.push(`  ${NOTHING_AUTOMATIC}`);
  return lines;
}
