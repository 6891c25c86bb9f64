import { hideValues, redactString } from "../audit/redact.ts";
import type { ApprovalSurface, ApprovalVerdict } from "../policy/approval.ts";
import type { Decision, RuleHit } from "../policy/decision.ts";
import type { ArgumentVerdict } from "../taint/provenance.ts";
import { contextText, formatDuration, type GrantOffer, matchWords, OFFER_VALUE_LIMIT, TREE_BOUND_TEXT } from "../grants/grant.ts";

/**
 * Words for an approval: the prompt a person decides on (title, description, severity) and the
 * sentence a block reason adds when nobody could be asked. Made from the decision's data only.
 * OpenClaw caps a title at 80 characters and a description at 512; both are bounded here.
 */

export const TITLE_LIMIT = 80;
export const DESCRIPTION_LIMIT = 512;
/** How much of a command and of a call's free text a prompt shows (start and end). */
const COMMAND_SHOWN = 160;
const TEXT_SHOWN = 100;
/** How much of a prompt the argument lines may take before the rest are counted instead of shown. */
const ARGUMENTS_SHOWN = 240;

export type ApprovalSeverity = "info" | "warning" | "critical";

export interface ApprovalPrompt {
  readonly title: string;
  readonly description: string;
  readonly severity: ApprovalSeverity;
  readonly timeoutMs: number;
  readonly timeoutReason: string;
  readonly allowedDecisions: Array<"allow-once" | "allow-always" | "deny">;
}

/** Severity from the tool's risk level: low is info, critical is critical, the rest (and unknown) warning. */
export function severityOf(risk: ApprovalVerdict["risk"]): ApprovalSeverity {
  return risk === "low" ? "info" : risk === "critical" ? "critical" : "warning";
}

function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

/** Long values keep their start and their end: what a long command or URL hides is often at its tail. */
function clipMiddle(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const head = Math.ceil((limit - 1) / 2);
  return `${text.slice(0, head)}…${text.slice(text.length - (limit - 1 - head))}`;
}

/**
 * A value as a prompt shows it: redacted, shortened, quoted, with characters that do not show or
 * that turn text around (zero-width, bidi controls) written as escapes, so what is shown is what runs.
 */
function valueText(value: string, limit = 60): string {
  return JSON.stringify(clipMiddle(redactString(value), limit)).replace(UNSEEN, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
const UNSEEN = /[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

/** One argument's line: its value (redacted, short) and where it came from, with that input's trust. */
export function argumentLine(v: ArgumentVerdict): string {
  // A value that fell short with a note says itself why (a URL whose host alone was named); an
  // allowed copy keeps its source.
  if (v.verdict === "tainted" && !v.allowed && v.note) return `${v.argument} ${valueText(v.value)}: ${v.note}`;
  const where =
    v.verdict === "endorsed"
      ? `from ${v.source ?? "a trusted input"}${v.level ? ` (${v.level})` : ""}`
      : v.verdict === "tainted"
        ? `only from ${v.source ?? "an input"} (${v.level ?? "less trusted"}${v.callId ? `, call ${v.callId}` : ""})`
        : "in no input ClawOS saw (the model chose it)";
  return `${v.argument} ${valueText(v.value)} ${where}`;
}

/**
 * Every program the command runs, those a reason names (what is not read-only: the network, an
 * interpreter, a write) first, so that harmless programs in front cannot push them out of sight.
 */
function commandPrograms(c: NonNullable<Decision["command"]>): string {
  if (c.programs.length === 0) return "(unparsed)";
  const named = c.programs.filter((p) => c.why.some((w) => w.startsWith(`${p} `) || w.includes(` ${p} `)));
  const ordered = [...named, ...c.programs.filter((p) => !named.includes(p))];
  return ordered.join(", ");
}

/**
 * The arguments that matter: those that fell short first, then the rest, as many as fit in
 * `ARGUMENTS_SHOWN` characters (at most four), and how many more there are.
 */
function argumentLines(d: Decision): string[] {
  const verdicts = d.arguments ?? [];
  const all = [...verdicts.filter((v) => !v.allowed), ...verdicts.filter((v) => v.allowed)];
  if (all.length > 0) {
    const lines: string[] = [];
    let size = 0;
    for (const v of all.slice(0, 4)) {
      const line = argumentLine(v);
      if (lines.length > 0 && size + line.length > ARGUMENTS_SHOWN) break;
      lines.push(line);
      size += line.length + 2;
    }
    if (all.length > lines.length) {
      const short = all.filter((v) => !v.allowed).length;
      lines.push(`and ${all.length - lines.length} more not shown (${short} of all ${all.length} fell short)`);
    }
    return lines;
  }
  // A call decided on its trust floor alone: the arguments the rules name, if any.
  return d.rules.filter((r) => r.argument && r.value !== undefined).map((r) => `${r.argument} ${valueText(r.value as string)}`);
}

/** What made the session less trusted (or the code the call runs), in a few words. */
function sessionLine(d: Decision): string {
  // A build's tree or a repository's settings lower the call, not the session (`causeText`).
  if (d.cause?.kind === "file") return `This call runs code written below owner: ${d.cause.label}.`;
  const cause = d.cause ? `, since ${d.cause.label}${d.cause.callId ? ` (call ${d.cause.callId})` : ""}` : "";
  return `This session is at ${d.inputTrust}${cause}.`;
}

function needed(d: Decision): string {
  let required: string | undefined;
  for (const r of d.rules) if (r.requires) required = r.requires;
  return required ?? "owner";
}

/** What the call is and does: its capabilities, the arguments that matter, its command, its irreversible actions. */
function callLines(d: Decision, risk: ApprovalVerdict["risk"]): string {
  const command =
    d.command && !d.command.readOnly
      ? [`${d.command.text ? `Command: ${valueText(d.command.text, COMMAND_SHOWN)}. ` : ""}It runs: ${commandPrograms(d.command)}.`]
      : [];
  const args = argumentLines(d);
  const texts = (d.texts ?? []).map((t) => `${t.argument} ${valueText(t.value, TEXT_SHOWN)}`);
  // Most telling first: a prompt too long for the host loses its last lines.
  return [
    `${d.tool} can ${d.capabilities.join(", ") || "do what its manifest says"}${risk ? ` (risk ${risk})` : ""}; it needs ${needed(d)} input.`,
    ...(d.rules.some((r) => r.rule === "action.irreversible")
      ? [
          `Irreversible: ${d.rules
            .filter((r) => r.rule === "action.irreversible")
            .map((r) => r.label)
            .join(", ")}.`,
        ]
      : []),
    ...command,
    ...(args.length > 0 ? [`Arguments: ${args.join("; ")}.`] : []),
    ...(texts.length > 0 ? [`Text: ${texts.join("; ")}.`] : []),
  ].join("\n");
}

/**
 * The call's lines of decisions that share a verdict's rules (one array per verdict, see
 * `report/reason.ts`) and have no argument verdicts of their own: every session that asks about
 * the same call shape reads the same lines, made once per risk level.
 */
const callLinesByRules = new WeakMap<readonly RuleHit[], Map<string, string>>();

function sharedCallLines(d: Decision, risk: ApprovalVerdict["risk"]): string {
  if (d.arguments || d.texts) return callLines(d, risk);
  let byRisk = callLinesByRules.get(d.rules);
  if (!byRisk) {
    byRisk = new Map();
    callLinesByRules.set(d.rules, byRisk);
  }
  let lines = byRisk.get(risk ?? "");
  if (lines === undefined) {
    lines = callLines(d, risk);
    byRisk.set(risk ?? "", lines);
  }
  return lines;
}

/** The prompt for a call ClawOS asks the owner about (effect `approve`). */
export function approvalPrompt(d: Decision): ApprovalPrompt {
  const approval = d.approval;
  const risk = approval?.risk;
  const timeoutSeconds = approval?.timeoutSeconds ?? 120;
  const via = d.via ? ` via ${d.via}` : "";
  const title = clip(`ClawOS: allow ${d.tool}${via}${d.cause ? ` after ${d.inputTrust} input` : ""}?`, TITLE_LIMIT);
  // What the answers do is never cut: the call's lines give way to it.
  const answers = hideValues(
    `Unanswered in ${timeoutSeconds} s: denied. Allow once runs this call only.${d.offer ? ` Allow always: ${offerText(d.offer)}.` : ""}`,
    d.hidden,
  );
  const call = hideValues([sharedCallLines(d, risk), sessionLine(d)].join("\n"), d.hidden);
  return {
    title,
    description: clip(`${clip(call, Math.max(0, DESCRIPTION_LIMIT - answers.length - 1))}\n${answers}`, DESCRIPTION_LIMIT),
    severity: severityOf(risk),
    timeoutMs: timeoutSeconds * 1000,
    timeoutReason: `ClawOS: nobody answered the approval for ${d.tool} within ${timeoutSeconds} s, so it was not run (an unanswered approval denies).`,
    // Allow-always is offered only where a grant can be made of the call (see grants/grant.ts).
    allowedDecisions: d.offer ? ["allow-once", "allow-always", "deny"] : ["allow-once", "deny"],
  };
}

const SCOPE_TEXT = { session: "in this session", agent: "for this agent", everywhere: "everywhere" } as const;

/** What allow-always grants, in words: the tool, each approved value, where, for how long. */
export function offerText(offer: GrantOffer): string {
  // Whole: only values a prompt can show whole are offered (`offerShowable`).
  const values = offer.values.map((v) => `${v.argument} ${matchWords(v)}${valueText(v.value, OFFER_VALUE_LIMIT)}`);
  const base = values.length > 0 ? `${offer.tool} with ${values.join(", ")}` : `${offer.tool} (any call)`;
  const what = `${base}${contextText(offer.context)}`;
  const until = offer.expiresInMs === undefined ? "with no expiry" : `for ${formatDuration(offer.expiresInMs)}`;
  return `${what}, ${SCOPE_TEXT[offer.scope]}, ${until}${offer.treeMark !== undefined ? `, ${TREE_BOUND_TEXT}` : ""}`;
}

const SURFACE_TEXT: Record<ApprovalSurface, string> = {
  interactive: "",
  headless: "this run has no interactive owner channel (a CLI or headless run)",
  cron: "this is a cron run",
  heartbeat: "this is a run the host started by itself (heartbeat)",
  subagent: "this is a sub-agent whose parent session has no interactive owner channel",
  unsupported: "this OpenClaw has no trusted tool policies, through which ClawOS asks",
};

/** Why a call the owner could have been asked about was blocked instead; undefined when it was not askable. */
export function approvalBlockNote(approval: ApprovalVerdict | undefined): string | undefined {
  if (!approval) return undefined;
  if (approval.choice === "block") {
    const where =
      approval.by === "default"
        ? "approvals.default"
        : `approvals.${approval.by === "tool" ? "tools" : approval.by === "capability" ? "capabilities" : "risk"}.${approval.setting}`;
    return `the owner was not asked: ${where} is "block"`;
  }
  return `the owner was not asked because nobody can answer: ${SURFACE_TEXT[approval.surface]}${approval.parent ? ` (parent ${approval.parent})` : ""}`;
}
