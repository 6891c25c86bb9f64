import type { AuditCounts, AuditHealth, DecisionRecord } from "../audit/audit-log.ts";
import type { Integrity } from "../audit/audit-seal.ts";
import { approvalSuggestions, formatApprovalSuggestions, type ApprovalPatternRow } from "./approval-suggestions.ts";
import type { ClawosConfig } from "../config/config-schema.ts";
import type { Enforcement } from "../policy/compiled-policy.ts";
import type { HostWiring } from "../host/legacy-host.ts";
import type { BrokenManifest, ManifestEntry } from "../policy/manifests.ts";
import type { RequesterTrust } from "../taint/requester.ts";
import type { SessionReport } from "../taint/session-taint.ts";
import type { SessionTrust, StoreHealth, TaintSource } from "../taint/session-store.ts";
import { TRUST_LEVELS, type TrustLevel } from "../taint/trust.ts";

/**
 * The `/clawos` report, built from a plain snapshot. Enforcement is claimed only from what was
 * observed in this process (a gate that fired), never from registration alone.
 */

export interface HookObservation {
  registered: boolean;
  fired: number;
  lastAt?: number;
}

export type { HostWiring };

export interface StatusSnapshot {
  pluginVersion: string;
  hostVersion?: string;
  hostWiring: HostWiring;
  fixCommand?: string;
  config: ClawosConfig;
  enforcement: Enforcement;
  configErrors: readonly string[];
  manifests: readonly ManifestEntry[];
  builtinSource: string;
  brokenManifests: readonly BrokenManifest[];
  /** Unknown capabilities in loaded manifests, one sentence each (`unknownCapabilityWarnings`). */
  capabilityWarnings?: readonly string[];
  hooks: Readonly<Record<string, HookObservation>>;
  counts: AuditCounts;
  unmanifestedTools: ReadonlyMap<string, number>;
  audit: AuditHealth;
  configWeakened?: { at: number; weakened: readonly string[]; writers: readonly string[] };
  /** Conversation hooks are granted (messages from other sessions lower their target before its model turn). */
  earlyLowering?: boolean;
  store: StoreHealth & { dir?: string; sessions: number };
  startedAt: number;
}

/** The hooks that can decide a call, in the order the host runs them. */
export const GATE_HOOKS = ["trusted_tool_policy", "before_tool_call"] as const;

function when(at: number | undefined): string {
  return at === undefined ? "never" : new Date(at).toISOString();
}

export function enforcementLine(s: StatusSnapshot): string {
  const gates = GATE_HOOKS.map((name) => ({ name, ...(s.hooks[name] ?? { registered: false, fired: 0 }) }));
  const fired = gates.filter((g) => g.fired > 0);
  if (s.configErrors.length > 0)
    return "Enforcement: NOT ENFORCING as configured: the config is invalid, ClawOS blocks every call until it is fixed (see below).";
  if (s.hostWiring === "unpatched-legacy" && fired.length === 0) {
    return `Enforcement: NOT ENFORCING: OpenClaw ${s.hostVersion ?? "(unknown version)"} never calls tool hooks. Fix: ${s.fixCommand ?? "npx clawos patch-host"}, then restart the gateway.`;
  }
  if (!s.enforcement.enforcing && s.enforcement.mode === "off") return "Enforcement: NOT ENFORCING: capability control is off.";
  if (gates.every((g) => !g.registered)) return "Enforcement: NOT ENFORCING: no gate is registered with the host.";
  if (fired.length === 0) {
    return "Enforcement: NOT ENFORCING (not yet observed): the gate is registered but has not fired in this process; it is confirmed by the first tool call.";
  }
  const last = Math.max(...fired.map((g) => g.lastAt ?? 0));
  const how = fired.map((g) => `${g.name} fired ${g.fired}x`).join(", ");
  if (!s.enforcement.enforcing)
    return `Enforcement: NOT ENFORCING: mode audit records would-blocks and blocks nothing (gate observed: ${how}, last ${when(last)}).`;
  const partial = s.enforcement.partial ? " for the tools overridden to enforce" : "";
  return `Enforcement: ENFORCING${partial} (gate observed: ${how}, last ${when(last)}).`;
}

export function formatStatus(s: StatusSnapshot): string {
  const c = s.config;
  const overrides = Object.entries(c.capabilities.overrides).map(([tool, mode]) => `${tool}=${mode}`);
  const builtin = s.manifests.filter((m) => m.source.startsWith(s.builtinSource)).length;
  const lines = [
    `ClawOS ${s.pluginVersion} on OpenClaw ${s.hostVersion ?? "(version unknown)"} (tool hooks: ${s.hostWiring})`,
    enforcementLine(s),
    `L1 input trust tagging: ${c.layers.tagging ? "on" : "OFF (every session counts as owner)"}`,
    `L2 capability control: ${c.layers.capabilities ? c.capabilities.mode : "off (layer disabled)"}; overrides: ${overrides.length ? overrides.join(", ") : "none"}; tools without a manifest: ${c.capabilities.defaultAllow ? "allowed for the owner, blocked below owner" : "blocked"}; denied capabilities: ${c.capabilities.deny.length ? c.capabilities.deny.join(", ") : "none"}`,
    `Operator capabilities: ${customText(c)}`,
    `Sub-agents: start at most ${c.subagent.maxTrust}; denied: ${c.subagent.denyCapabilities.join(", ") || "none"}`,
    "Hooks (registered / fired in this process):",
    ...Object.entries(s.hooks).map(
      ([name, h]) => `  ${name.padEnd(22)} ${h.registered ? "registered" : "NOT registered"}, fired ${h.fired}x, last ${when(h.lastAt)}`,
    ),
    `Manifests: ${s.manifests.length} loaded (${builtin} built-in, ${s.manifests.length - builtin} from the operator); invalid: ${s.brokenManifests.length === 0 ? "none" : s.brokenManifests.map((b) => `${b.tool ?? b.source}`).join(", ")}; unknown capabilities: ${s.capabilityWarnings?.length ? `${s.capabilityWarnings.length} (below)` : "none"}`,
    `Tools seen without a manifest: ${s.unmanifestedTools.size === 0 ? "none" : [...s.unmanifestedTools].map(([tool, n]) => `${tool} (${n})`).join(", ")}`,
    `Decisions since ${when(s.startedAt)}: ${s.counts.decisions} (allow ${s.counts.allow}, block ${s.counts.block}, would-block ${s.counts.wouldBlock}, asked ${s.counts.ask + s.counts.wouldAsk} (approved ${s.counts.approved}, denied or unanswered ${s.counts.denied}), internal errors ${s.counts.errors}); trust changes ${s.counts.trustChanges}; grants made ${s.counts.grantsCreated}, calls run on grants ${s.counts.grantsUsed}`,
    `Audit log: ${s.audit.file ?? "(no file)"}: ${s.audit.written} records written, ${s.audit.writeErrors} write errors${s.audit.lastWriteError ? ` (last: ${s.audit.lastWriteError})` : ""}`,
    `Audit log integrity: ${integrityText(s.audit.integrity)}`,
    s.earlyLowering
      ? "Cross-session input: lowered before the target's model turn (conversation hooks granted)"
      : "Cross-session input: lowered when the sender's call is decided (targets named by key or agent id; a label cannot be resolved then). Grant plugins.entries.clawos.hooks.allowConversationAccess: true to lower the session the host really delivers to, before its model turn",
    `Session state: ${s.store.dir ?? "(memory only)"}: ${s.store.sessions} sessions in memory, ${s.store.readErrors} unreadable, ${s.store.writeErrors} write errors${s.store.lastReadError ? ` (last unreadable: ${s.store.lastReadError})` : ""}${s.store.lastWriteError ? ` (last write error: ${s.store.lastWriteError})` : ""}`,
  ];
  if (s.configWeakened) {
    const w = s.configWeakened;
    lines.push(
      `WARNING config weakened while the gateway ran (${when(w.at)}): ${w.weakened.join("; ")}.`,
      "  Who could have made it: anyone who can write OpenClaw's config (the owner, the Control UI, a shell on the host, or a session at owner trust through file tools).",
      w.writers.length
        ? `  Writes to protected paths ClawOS allowed before it: ${w.writers.join("; ")}`
        : "  ClawOS allowed no tool call that wrote a protected path before it: the change came from outside the agent's tools (or from exec at owner trust).",
    );
  }
  if (s.configErrors.length) lines.push("Config errors:", ...s.configErrors.map((e) => `  ${e}`));
  for (const bad of s.brokenManifests) lines.push(`Invalid manifest ${bad.source}: ${bad.errors.join(" ")}`);
  for (const warning of s.capabilityWarnings ?? []) lines.push(`WARNING ${warning}`);
  return lines.join("\n");
}

function customText(c: ClawosConfig): string {
  const custom = Object.entries(c.capabilities.custom ?? {});
  if (custom.length === 0) return "none (capabilities.custom)";
  return custom.map(([name, cap]) => `${name} (needs ${cap.minInputTrust}, risk ${cap.riskLevel})`).join(", ");
}

function sourceText(source: TaintSource): string {
  const call = source.callId ? ` (call ${source.callId})` : "";
  return `${new Date(source.at).toISOString()}  ${source.level.padEnd(9)} ${source.label}${call}`;
}

/** Who a requester is, in the report: `telegram:31337`, `webchat (no sender id)`, `(no channel)`. */
function requesterName(r: Pick<RequesterTrust, "basis" | "channel" | "senderId">): string {
  if (r.basis === "unidentified") return "(sender unknown)";
  if (r.channel && r.senderId) return `${r.channel}:${r.senderId}`;
  if (r.channel) return `${r.channel} (no sender id)`;
  return r.senderId ? `sender ${r.senderId}` : "(no channel)";
}

/** Why a requester got its level, in words. */
export function requesterReason(r: Pick<RequesterTrust, "level" | "basis" | "channel" | "senderId">): string {
  const gateway = r.channel === "webchat";
  switch (r.basis) {
    case "host-owner":
      if (!r.channel) return "the host marked the sender as the owner (an operator client: the local CLI or a gateway operator)";
      if (gateway) return "the host marked the sender as the owner (an operator client holding operator.admin)";
      return `the host resolved the sender as the owner on ${r.channel}`;
    case "trusted-sender":
      return "listed in trustedSenders (the host did not mark it as the owner)";
    case "not-owner":
      if (gateway) return "a gateway client the host did not mark as the owner (it does not hold operator.admin), not in trustedSenders";
      return "the host did not mark the sender as the owner, and it is not in trustedSenders";
    default:
      return `the host did not say who sent the turn, so it counts as unknownRequesterTrust (${r.level})`;
  }
}

function levelCounts(counts: Readonly<Record<TrustLevel, number>>): string {
  const parts = [...TRUST_LEVELS].reverse().flatMap((level) => (counts[level] > 0 ? [`${level} ${counts[level]}`] : []));
  return parts.length ? parts.join(", ") : "none";
}

function sum(counts: Readonly<Record<TrustLevel, number>>): number {
  return TRUST_LEVELS.reduce((n, level) => n + counts[level], 0);
}

function provenanceLines(p: NonNullable<SessionReport["provenance"]>): string[] {
  const values = sum(p.values);
  const dropped = p.valuesDropped > 0 ? `; ${p.valuesDropped} not remembered: the index was full (provenance.maxValuesPerSession)` : "";
  const lines = [`Values remembered: ${values}${values ? ` (${levelCounts(p.values)})` : ""}, of at most ${p.valueCapacity}${dropped}`];
  const f = p.files;
  lines.push(`Files this session labelled below owner: ${f.loweredHere === 0 ? "none" : f.loweredHere}`);
  for (const { path, label } of f.newestHere) {
    lines.push(`  ${label.level.padEnd(9)} ${path}${label.tree ? " (and everything under it)" : ""}  ${new Date(label.at).toISOString()}`);
  }
  if (f.loweredHere > f.newestHere.length) lines.push(`  ... ${f.loweredHere - f.newestHere.length} more`);
  const below = sum(f.counts) - f.counts.owner;
  lines.push(`File labels, all sessions: ${below} below owner${below ? ` (${levelCounts({ ...f.counts, owner: 0 })})` : ""}, ${f.counts.owner} owner`);
  if (f.problem) lines.push(`File labels cannot be relied on: ${f.problem}; no path counts as trusted by its location until this is fixed.`);
  return lines;
}

/**
 * `/clawos session`. Given the engine's report: trust, requesters and why, what lowered it, and the
 * provenance summary. Given only a stored state (read offline), the parts kept in it.
 */
export function formatSession(key: string | undefined, given: SessionReport | SessionTrust | undefined, isSubagent: boolean): string {
  if (!key) return "ClawOS: this command has no session to report on.";
  if (!given) return `Session ${key}: owner (nothing has lowered its trust${isSubagent ? "; a sub-agent" : ""}).`;
  const report = "state" in given ? given : undefined;
  const state = report ? report.state : (given as SessionTrust);
  const lines = [
    `Session ${key}${isSubagent ? " (sub-agent)" : ""}: input trust ${state.trust}${state.shadow && state.shadow !== state.trust ? ` (${state.shadow} if enforced: audit mode let lower content in)` : ""}`,
  ];
  if (state.parent) lines.push(`Parent session: ${state.parent}`);
  if (state.stateError) lines.push(`State problem: ${state.stateError} (treated as untrusted)`);
  if (report?.requesters.length) {
    lines.push("Requesters (latest last):");
    for (const r of report.requesters) lines.push(`  ${requesterName(r)}: ${r.level}, ${requesterReason(r)}`);
  } else if (report) {
    lines.push(`Requesters: ${isSubagent ? "none (a sub-agent runs for its parent)" : "none seen since the gateway started"}`);
  }
  lines.push("What lowered it:", ...(state.lowered.length ? state.lowered.map((s) => `  ${sourceText(s)}`) : ["  nothing"]));
  if (state.recent.length) lines.push("Recent inputs at or below this level:", ...state.recent.map((s) => `  ${sourceText(s)}`));
  if (report) lines.push(...(report.provenance ? provenanceLines(report.provenance) : ["Value provenance: off"]));
  if (state.trust !== "owner") lines.push("To raise it: start a new session (/new), or as the owner run /clawos trust reset after reviewing the inputs above.");
  return lines.join("\n");
}

/** `/clawos audit`: the latest decisions, the rollout report, and the prompts the owner keeps approving (`approvals`, the engine's tally). */
export function formatAudit(
  records: readonly DecisionRecord[],
  byToolRule: Iterable<{ tool: string; rule: string; wouldBlock: number; block: number; ask?: number; wouldAsk?: number }>,
  approvals: Iterable<ApprovalPatternRow> = [],
): string {
  const lines = [`Last ${records.length} decisions:`];
  for (const { at, decision: d, context } of records) {
    lines.push(
      `  ${new Date(at).toISOString()} ${d.effect.padEnd(11)} ${d.tool}${d.via ? ` via ${d.via}` : ""} [${d.mode}] trust=${d.inputTrust} session=${context.sessionKey ?? "-"}${d.rules.length ? ` rules=${d.rules.map((r) => r.rule).join(",")}` : ""}`,
    );
  }
  const asks = (r: { ask?: number; wouldAsk?: number }) => (r.ask ?? 0) + (r.wouldAsk ?? 0);
  const rows = [...byToolRule].sort((a, b) => b.wouldBlock + b.block + asks(b) - (a.wouldBlock + a.block + asks(a)));
  lines.push("Rollout report (since start): would-block / block / asked per tool and rule:");
  if (rows.length === 0) lines.push("  none: nothing would have been blocked.");
  for (const r of rows) lines.push(`  ${r.tool.padEnd(20)} ${r.rule.padEnd(28)} would-block ${r.wouldBlock}, block ${r.block}, asked ${asks(r)}`);
  lines.push("A tool whose would-blocks are all unwanted is ready for enforce; for one with expected uses, add an override or a manifest first.");
  lines.push(...formatApprovalSuggestions(approvalSuggestions(approvals), { since: "since start" }));
  return lines.join("\n");
}

/**
 * `/clawos manifests [tool]`. `warnings` are the unknown capabilities found at load
 * (`unknownCapabilityWarnings`): listed after the table, or with the one tool asked for.
 */
export function formatManifests(entries: readonly ManifestEntry[], tool?: string, warnings: readonly string[] = []): string {
  const list = tool ? entries.filter((e) => e.manifest.tool === tool || e.manifest.aliases?.includes(tool)) : entries;
  if (list.length === 0) return `No manifest for ${tool}. Tools without a manifest follow capabilities.defaultAllow.`;
  const shown = tool ? warnings.filter((w) => list.some((e) => w.includes(`(tool ${e.manifest.tool})`))) : warnings;
  const unknown = shown.length ? ["Unknown capabilities (a call carrying one needs owner):", ...shown.map((w) => `  ${w}`)] : [];
  if (tool) return [...list.map((e) => `${JSON.stringify(e.manifest, null, 2)}\n(source: ${e.source})`), ...unknown].join("\n");
  return [
    `${list.length} manifests (tool: capabilities | min input trust -> output trust | risk):`,
    ...list
      .slice()
      .sort((a, b) => a.manifest.tool.localeCompare(b.manifest.tool))
      .map(
        (e) =>
          `  ${e.manifest.tool}: ${e.manifest.capabilities.join(", ") || "(meta)"} | ${e.manifest.minInputTrust} -> ${e.manifest.outputTrust} | ${e.manifest.riskLevel}${e.unknownCapabilities.length ? ` | UNKNOWN: ${[...new Set(e.unknownCapabilities)].join(", ")}` : ""}`,
      ),
    ...unknown,
  ].join("\n");
}

function integrityText(integrity: Integrity | undefined): string {
  if (!integrity) return "not checked (no audit file)";
  switch (integrity.state) {
    case "ok":
      return "intact (matches its seal)";
    case "checking":
      return "being checked against its seal";
    case "unsealed":
      return "not yet sealed (checked against its seal from the next start on)";
    default:
      return `WARNING ${integrity.state.toUpperCase()}: ${integrity.detail}. Records may have been removed; keep a copy of the log and its .seal, and find who could write ClawOS's state directory.`;
  }
}
