import { CONFIG_LOCATION } from "../config/config.ts";
import { causeOf } from "../policy/decision.ts";
import { isoTime } from "../report/iso-time.ts";
import { ApprovalTally, approvalSuggestions, formatApprovalSuggestions, type ApprovalSuggestion } from "../report/approval-suggestions.ts";
import { minTrust, type TrustLevel } from "../taint/trust.ts";
import { type AuditRecord, type AuditSource, type DecisionRecord, taintSources } from "./audit-records.ts";

/**
 * The rollout report: every would-block and block in the audit log, per tool, rule and requester,
 * with the inputs that caused them and the manifest or override that would change each. Pure: the
 * records go in (`RolloutTally.add`), the report comes out; the operator CLI prints it or its JSON.
 */

/** What the report reads of the policy: the manifest a tool runs under now. */
export interface RolloutPolicy {
  manifestFor(tool: string): RolloutManifest | undefined;
}

export interface RolloutManifest {
  readonly minInputTrust: TrustLevel;
  readonly outputTrust: TrustLevel;
  readonly capabilities: readonly string[];
  /** Where it comes from: a built-in manifest or the operator's file or config entry. */
  readonly source: string;
  readonly builtin: boolean;
}

export interface RolloutCause {
  readonly label: string;
  readonly level: TrustLevel;
  readonly kind: string;
  readonly tool?: string;
  /** Decisions in the row that named this input as their cause. */
  readonly count: number;
}

export interface RolloutRow {
  readonly tool: string;
  readonly rule: string;
  readonly requester: string;
  readonly wouldBlock: number;
  readonly block: number;
  /** Calls put to the owner (approve) or that audit mode would have put (would-ask). */
  readonly asked: number;
  readonly sessions: number;
  readonly agents: readonly string[];
  /** The lowest input trust a call in this row had. */
  readonly lowestTrust: TrustLevel;
  readonly first: string;
  readonly last: string;
  readonly causes: readonly RolloutCause[];
  /** The latest decision of the row, with the reason ClawOS gave for it. */
  readonly example: { readonly time: string; readonly session?: string; readonly toolCallId?: string; readonly effect: string; readonly reason?: string };
  /** Config or manifest changes that would let these calls run, most specific first. */
  readonly changes: readonly string[];
}

export interface RolloutReport {
  readonly since?: string;
  readonly decisions: number;
  readonly allow: number;
  readonly block: number;
  readonly wouldBlock: number;
  /** Calls put to the owner, or that audit mode would have put. */
  readonly asked: number;
  /** Grant events: made, used by calls, refused. */
  readonly grants: { readonly created: number; readonly used: number; readonly refused: number };
  /** Decisions whose tool had no manifest, per tool. */
  readonly unmanifested: Readonly<Record<string, number>>;
  readonly trustChanges: number;
  readonly configWeakened: number;
  readonly rows: readonly RolloutRow[];
  /** Prompts the owner kept approving allow-once (same tool and pattern), with the standing answer that would stop them. */
  readonly approvals: readonly ApprovalSuggestion[];
}

/** Who asked for the call: the record's requester, else the sender that lowered the session, else the owner. */
export function requesterOf(record: DecisionRecord): string {
  if (record.requester) return record.requester;
  for (let i = record.taint.length - 1; i >= 0; i--) {
    const s = record.taint[i];
    if (s.kind === "requester" || s.kind === "message") return s.label.replace(/^a message from /, "");
  }
  return record.subagent ? "a sub-agent" : "the owner";
}

/** The input a decision names as its cause (the same choice the gate makes: `causeOf`). */
export function causeOfRecord(record: DecisionRecord): AuditSource | undefined {
  if (record.inputTrust === "owner" || record.taint.length === 0) return undefined;
  const sources = taintSources(record);
  const cause = causeOf(sources, record.inputTrust);
  return cause ? record.taint[sources.indexOf(cause)] : undefined;
}

const NOT_POLICY = new Set(["tool.name-invalid", "tool.meta-unresolved", "internal.error"]);
const TRUST_RULES = new Set([
  "tool.min-input-trust",
  "capability.floor",
  "capability.unknown",
  "tool.unmanifested",
  "tool.mode",
  "path.secret-read",
  "path.secret-write",
  "path.protected-write",
  "path.unreadable",
  "argument.tainted",
  "argument.unknown",
]);

/** Patterns the report tallies from a whole log (the gateway keeps fewer in memory). */
const APPROVAL_PATTERNS_READ = 1000;

interface Tally {
  tool: string;
  rule: string;
  requester: string;
  wouldBlock: number;
  block: number;
  asked: number;
  sessions: Set<string>;
  agents: Set<string>;
  lowestTrust: TrustLevel;
  first: number;
  last: number;
  causes: Map<string, { label: string; level: TrustLevel; kind: string; tool?: string; count: number }>;
  example: DecisionRecord;
}

export class RolloutTally {
  private readonly rows = new Map<string, Tally>();
  private readonly unmanifested = new Map<string, number>();
  private decisions = 0;
  private allow = 0;
  private block = 0;
  private wouldBlock = 0;
  private asked = 0;
  private readonly grants = { created: 0, used: 0, refused: 0 };
  private trustChanges = 0;
  private configWeakened = 0;
  private readonly approvals = new ApprovalTally(APPROVAL_PATTERNS_READ);

  add(record: AuditRecord): void {
    if (record.event === "approval") {
      const { pattern, patternKey, grantScope, grantExpiresInMs } = record;
      if (pattern && patternKey && grantScope && grantExpiresInMs !== undefined) {
        this.approvals.add({
          ...record,
          pattern,
          patternKey,
          grantScope,
          grantExpiresInMs,
        });
      }
      return;
    }
    if (record.event !== "decision") {
      if (record.event === "config.weakened") this.configWeakened++;
      else if (record.event === "grant.created") this.grants.created++;
      else if (record.event === "grant.used") this.grants.used++;
      else if (record.event === "grant.refused") this.grants.refused++;
      else if (record.event === "trust.lowered" || record.event === "trust.reset") this.trustChanges++;
      return;
    }
    this.decisions++;
    if (!record.manifested && record.mode !== "off") this.unmanifested.set(record.tool, (this.unmanifested.get(record.tool) ?? 0) + 1);
    if (record.decision === "allow") {
      this.allow++;
      return;
    }
    const asked = record.decision === "approve" || record.decision === "would-ask";
    if (record.decision === "block") this.block++;
    else if (asked) this.asked++;
    else this.wouldBlock++;
    const requester = requesterOf(record);
    const cause = causeOfRecord(record);
    for (const rule of record.rules.length > 0 ? record.rules : ["(no rule recorded)"]) {
      const key = `${record.tool}\u0000${rule}\u0000${requester}`;
      let row = this.rows.get(key);
      if (!row) {
        row = {
          tool: record.tool,
          rule,
          requester,
          wouldBlock: 0,
          block: 0,
          asked: 0,
          sessions: new Set(),
          agents: new Set(),
          lowestTrust: record.inputTrust,
          first: record.at,
          last: record.at,
          causes: new Map(),
          example: record,
        };
        this.rows.set(key, row);
      }
      if (record.decision === "block") row.block++;
      else if (asked) row.asked++;
      else row.wouldBlock++;
      if (record.session) row.sessions.add(record.session);
      if (record.agent) row.agents.add(record.agent);
      row.lowestTrust = minTrust(row.lowestTrust, record.inputTrust);
      row.first = Math.min(row.first, record.at);
      if (record.at >= row.last) {
        row.last = record.at;
        row.example = record;
      }
      if (cause) {
        const causeKey = `${cause.level}\u0000${cause.label}`;
        const seen = row.causes.get(causeKey);
        if (seen) seen.count++;
        else row.causes.set(causeKey, { label: cause.label, level: cause.level, kind: cause.kind, ...(cause.tool ? { tool: cause.tool } : {}), count: 1 });
      }
    }
  }

  report(policy: RolloutPolicy, since?: number): RolloutReport {
    const rows = [...this.rows.values()]
      .map((t): RolloutRow => {
        const causes = [...t.causes.values()].sort((a, b) => b.count - a.count || a.label.localeCompare(b.label));
        return {
          tool: t.tool,
          rule: t.rule,
          requester: t.requester,
          wouldBlock: t.wouldBlock,
          block: t.block,
          asked: t.asked,
          sessions: t.sessions.size,
          agents: [...t.agents].sort(),
          lowestTrust: t.lowestTrust,
          first: isoTime(t.first),
          last: isoTime(t.last),
          causes,
          example: {
            time: isoTime(t.example.at),
            ...(t.example.session ? { session: t.example.session } : {}),
            ...(t.example.toolCallId ? { toolCallId: t.example.toolCallId } : {}),
            effect: t.example.decision,
            ...(t.example.reason ? { reason: t.example.reason } : {}),
          },
          changes: changesFor(t, causes, policy),
        };
      })
      .sort((a, b) => b.block + b.wouldBlock + b.asked - (a.block + a.wouldBlock + a.asked) || a.tool.localeCompare(b.tool) || a.rule.localeCompare(b.rule));
    return {
      ...(since !== undefined ? { since: isoTime(since) } : {}),
      decisions: this.decisions,
      allow: this.allow,
      block: this.block,
      wouldBlock: this.wouldBlock,
      asked: this.asked,
      grants: { ...this.grants },
      unmanifested: Object.fromEntries([...this.unmanifested].sort(([a], [b]) => a.localeCompare(b))),
      trustChanges: this.trustChanges,
      configWeakened: this.configWeakened,
      rows,
      approvals: approvalSuggestions(this.approvals.list()),
    };
  }
}

function where(m: RolloutManifest): string {
  return m.builtin ? "the built-in manifest" : `the operator's manifest (${m.source})`;
}

/** The changes that would let a row's calls run, in the words of the config and manifest fields. */
function changesFor(t: Tally, causes: readonly RolloutCause[], policy: RolloutPolicy): string[] {
  if (NOT_POLICY.has(t.rule)) return [];
  const out: string[] = [];
  const manifest = policy.manifestFor(t.tool);
  const agent = t.agents.size === 1 ? [...t.agents][0] : "<agent>";
  switch (t.rule) {
    case "tool.min-input-trust":
      if (manifest) {
        out.push(
          `manifest: a manifest for ${t.tool} with "minInputTrust": "${t.lowestTrust}" (now "${manifest.minInputTrust}" in ${where(manifest)}) would allow these calls`,
        );
      }
      break;
    case "capability.floor":
      out.push(
        `manifest: a capability of ${t.tool} (${manifest?.capabilities.join(", ") || "see the reason"}) needs more than ${t.lowestTrust}; a manifest for ${t.tool} without it, if ${t.tool} cannot do that, would allow these calls`,
      );
      break;
    case "capability.unknown":
      out.push(`manifest: ${t.tool}'s manifest names a capability ClawOS does not know, which needs owner; correct its name`);
      break;
    case "tool.unmanifested":
      out.push(`manifest: add a manifest for ${t.tool} (manifestDirs or manifests in ${CONFIG_LOCATION}) that says what it can do and the trust it needs`);
      break;
    case "capability.denied":
      out.push(`config: remove the capability from ${CONFIG_LOCATION}.capabilities.deny`);
      break;
    case "capability.denied-agent":
      out.push(`config: remove the capability from ${CONFIG_LOCATION}.capabilities.agents.${agent}.deny`);
      break;
    case "subagent.denied-capability":
      out.push(`config: remove the capability from ${CONFIG_LOCATION}.subagent.denyCapabilities`);
      break;
    case "path.outside-workspace":
      out.push(`config: add the path to ${CONFIG_LOCATION}.paths.writable, or turn paths.workspaceOnly off`);
      break;
    case "path.secret-read":
    case "path.secret-write":
    case "path.protected-write":
      out.push(`config: if the path is not what the rule says, an "open" rule for it in ${CONFIG_LOCATION}.paths.rules`);
      break;
    case "command.denied":
      out.push(`config: the command rule named in the reason, in ${CONFIG_LOCATION}.commands.rules`);
      break;
    case "argument.tainted":
    case "argument.unknown":
      out.push("owner: the owner naming the value in a message endorses it for the session");
      out.push(`manifest: the argument's role in ${t.tool}'s manifest (${manifest ? where(manifest) : "no manifest"}) decides the trust it needs`);
      break;
    case "manifest.invalid":
      out.push("manifest: fix the manifest file named in the reason (until then every call of the tool is blocked)");
      break;
  }
  if (TRUST_RULES.has(t.rule)) {
    const input = causes.find((c) => c.kind === "tool" && c.tool);
    if (input?.tool) {
      const inputManifest = policy.manifestFor(input.tool);
      out.push(
        `input: ${input.label} set the session to ${input.level}; a manifest for ${input.tool} with a higher "outputTrust" (now "${inputManifest?.outputTrust ?? input.level}") stops its results lowering sessions, only if what it returns cannot carry someone else's instructions`,
      );
    }
  }
  out.push(`override: ${CONFIG_LOCATION}.capabilities.overrides.${t.tool}: "audit" lets these calls run and records them as would-blocks`);
  return out;
}

/** The report in words, most frequent rows first. */
export function formatRollout(report: RolloutReport, options: { file?: string } = {}): string {
  const lines = [
    `Rollout report${report.since ? ` since ${report.since}` : ""}${options.file ? ` (${options.file})` : ""}: ${report.decisions} decisions, ${report.allow} allowed, ${report.block} blocked, ${report.wouldBlock} would-block, ${report.asked} asked; ${report.grants.created} grants made, ${report.grants.used} calls ran on grants; ${report.trustChanges} trust changes${report.configWeakened ? `; WARNING ${report.configWeakened} config changes weakened ClawOS` : ""}`,
  ];
  const unmanifested = Object.entries(report.unmanifested);
  if (unmanifested.length) lines.push(`Tools seen without a manifest: ${unmanifested.map(([tool, n]) => `${tool} (${n})`).join(", ")}`);
  const approvals = formatApprovalSuggestions(report.approvals, { limit: 10, ...(report.since ? { since: `since ${report.since}` } : {}) });
  if (report.rows.length === 0) {
    lines.push("Nothing was blocked and nothing would have been.", ...approvals);
    return lines.join("\n");
  }
  lines.push("Would-blocks and blocks per tool and requester, by rule:");
  // Rules of one call come together (a call below exec's floor breaks two): one group per tool and requester.
  const groups = new Map<string, RolloutRow[]>();
  for (const r of report.rows) {
    const key = `${r.tool}\u0000${r.requester}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  for (const rows of groups.values()) {
    const [head] = rows;
    const sessions = Math.max(...rows.map((r) => r.sessions));
    lines.push(
      `  ${head.tool} requested by ${head.requester} (${sessions} session${sessions === 1 ? "" : "s"}, ${rows.map((r) => r.first).sort()[0]} .. ${rows
        .map((r) => r.last)
        .sort()
        .at(-1)}):`,
    );
    for (const r of rows) lines.push(`    ${r.rule}: would-block ${r.wouldBlock}, block ${r.block}, asked ${r.asked} (lowest trust ${r.lowestTrust})`);
    const causes = new Map<string, RolloutCause>();
    for (const c of rows.flatMap((r) => r.causes)) if (!causes.has(c.label) || (causes.get(c.label)?.count ?? 0) < c.count) causes.set(c.label, c);
    const shown = [...causes.values()].sort((a, b) => b.count - a.count);
    for (const c of shown.slice(0, 3)) lines.push(`    cause: ${c.label} (${c.level}) x${c.count}`);
    if (shown.length > 3) lines.push(`    ... and ${shown.length - 3} more inputs`);
    const changes = [...new Set(rows.flatMap((r) => r.changes))];
    // The override is the bluntest change: it goes last.
    changes.sort((a, b) => Number(a.startsWith("override:")) - Number(b.startsWith("override:")));
    for (const change of changes) lines.push(`    change: ${change}`);
  }
  lines.push(
    "A tool whose would-blocks are all unwanted is ready for enforce; for one with expected uses, add the manifest or override above first. Each row's latest reason is in --json.",
    ...approvals,
  );
  return lines.join("\n");
}
