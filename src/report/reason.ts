import { CONFIG_LOCATION } from "../config/config.ts";
import type { Decision, RuleHit } from "../policy/decision.ts";
import { hideValues } from "../audit/redact.ts";
import { holdsSecretBelow } from "../policy/touches.ts";
import type { TaintSource } from "../taint/session-store.ts";
import { isoTime } from "./iso-time.ts";
import { approvalBlockNote } from "./approval-prompt.ts";

/**
 * Words for a decision: the block reason the model and the operator read, and the one-line
 * explanation of each rule. Made from the decision's data only (tool, rules, trust, cause), so the
 * same decision always reads the same; a decision object's reason is built once and remembered.
 */

/** One rule hit in words. */
export function ruleText(hit: RuleHit, d: Pick<Decision, "tool" | "requestedTool" | "via" | "unresolved" | "command">): string {
  switch (hit.rule) {
    case "tool.name-invalid":
      return `the tool name ${JSON.stringify(d.requestedTool)} is not a valid OpenClaw tool name (look-alike characters, spaces or over 64 characters)`;
    case "tool.meta-unresolved":
      return `${d.via} names no tool to run (${d.unresolved})`;
    case "manifest.invalid":
      return `the manifest for ${d.tool} (${hit.source}) is invalid: ${hit.error}`;
    case "tool.unmanifested":
      return hit.requires
        ? `${d.tool} has no capability manifest, so it is treated as critical and needs input trust owner`
        : `${d.tool} has no capability manifest and defaultAllow is false`;
    case "tool.mode":
      return `argument or setting selects ${hit.mode}, which needs input trust ${hit.requires}`;
    case "path.secret-read":
      return `argument ${hit.argument} reads ${shown(hit.value)}, ${hit.label}, which needs input trust owner (secrets:read)`;
    case "path.secret-write":
      return `argument ${hit.argument} writes ${shown(hit.value)}, ${hit.label}, which needs input trust owner (system:admin)`;
    case "path.protected-write":
      return `argument ${hit.argument} writes ${shown(hit.value)}, ${hit.label}, which needs input trust owner (system:admin)`;
    case "path.outside-workspace":
      return `argument ${hit.argument} writes ${shown(hit.value)}, outside the agent's workspace, and paths.workspaceOnly is on`;
    case "path.unreadable":
      return `argument ${hit.argument} (${shown(hit.value)}) is ${hit.label}, so it needs input trust owner`;
    case "tool.min-input-trust":
      return d.command && !d.command.readOnly
        ? `${d.tool} needs input trust ${hit.requires} for this command (${commandWhy(d.command)})`
        : `${d.tool} needs input trust ${hit.requires}`;
    case "command.denied":
      return `the command is denied by the command rule ${hit.value} (${hit.argument ?? "command"})`;
    case "argument.tainted":
      return hit.label
        ? `argument ${hit.argument} (${hit.role}) is ${shown(hit.value)}: ${hit.label}`
        : `argument ${hit.argument} (${hit.role}) is ${shown(hit.value)}, which came only from ${hit.from ?? "an input"} (${hit.fromTrust}${hit.callId ? `, call ${hit.callId}` : ""}), and ${article(hit.role)} ${hit.role} here needs input at ${hit.requires}`;
    case "argument.unknown":
      return `argument ${hit.argument} (${hit.role}) is ${shown(hit.value)}, which no input ClawOS saw contains (the model chose it)${hit.label ? `; ${hit.label}` : ""}, and ${article(hit.role)} ${hit.role} here needs input at ${hit.requires}`;
    case "action.irreversible":
      return `it would ${hit.label} (the irreversible action ${hit.value}), which needs the owner's grant even in the owner's session`;
    case "grant.used":
      return `the owner's grant ${hit.value} allows it`;
    case "provenance.endorsed":
      return `every argument that decides where the call acts came from input at ${hit.requires} or above`;
    case "capability.unknown":
      return `capability ${hit.capability} is unknown, so it needs input trust owner`;
    case "capability.floor":
      return `capability ${hit.capability} needs input trust ${hit.requires}`;
    case "capability.denied":
      return `capability ${hit.capability} is denied by capabilities.deny`;
    case "capability.denied-agent":
      return `capability ${hit.capability} is denied for agent ${hit.agentId} by capabilities.agents.${hit.agentId}.deny`;
    case "subagent.denied-capability":
      return `capability ${hit.capability} is denied to sub-agents by subagent.denyCapabilities`;
    case "internal.error":
      return `ClawOS internal error: ${hit.error}`;
  }
}

function commandWhy(command: NonNullable<Decision["command"]>): string {
  if (!command.parsed) return `it cannot be parsed${command.error ? `: ${command.error}` : ""}, so it counts as the most dangerous kind`;
  return command.why.length > 0 ? `it is not read-only: ${command.why.join(", ")}` : "it is not read-only";
}

function shown(value: string | undefined): string {
  if (value === undefined) return "(no value)";
  return JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value);
}

/** "this session is at untrusted since the result of web_fetch (untrusted, call c1, <time>)". */
export function causeText(inputTrust: string, cause: TaintSource | undefined): string {
  if (!cause) return `this session is at ${inputTrust}`;
  if (cause.kind === "file") return `it runs the code of its working tree, and that holds ${cause.label} (${isoTime(cause.at)})`;
  const call = cause.callId ? `, call ${cause.callId}` : "";
  return `this session is at ${inputTrust} since ${cause.label} (${cause.level}${call}, ${isoTime(cause.at)})`;
}

/** A path rule's value is a path; a command's secret is a variable or the environment. */
function isPath(value: string | undefined): boolean {
  return value !== undefined && /^[~/.]|\//.test(value);
}

/** The safest ways to allow the call, most protective first. */
function remedies(hits: readonly RuleHit[], tool: string, d: Decision): string {
  const steps: string[] = [];
  const prefix = d.command?.prefix;
  // A rule vouches for a command, never for code a less trusted session wrote into its tree.
  if (prefix && d.cause?.kind !== "file" && hits.every((h) => h.rule === "tool.min-input-trust" || h.rule === "capability.floor")) {
    const rule = `{ "prefix": ${JSON.stringify(prefix)}, "effect": "allow", "trust": "${d.inputTrust}" }`;
    steps.push(`if commands starting with "${prefix}" are safe to run whatever the session read, add ${rule} to ${CONFIG_LOCATION}.commands.rules`);
  }
  const argument = hits.find((h) => h.rule === "argument.tainted" || h.rule === "argument.unknown");
  if (argument?.repeats) {
    steps.push("if a second payment is what the owner wants, the owner approves it when asked in a chat");
  } else if (argument) {
    steps.push(`if ${shown(argument.value)} is what the owner wants, the owner names it in a message (an owner's message endorses a value for the session)`);
  }
  for (const action of hits.filter((h) => h.rule === "action.irreversible")) {
    steps.push(`the owner grants it ahead of time with /clawos grant ${action.value} for 1h, or approves it when asked in a chat`);
  }
  if (d.cause?.kind === "file" && d.trustLimited) {
    steps.push(
      "review the file named above; if it is what the owner wants run, approve the call when asked in a chat, or vouch for it with /clawos files trust <path>",
    );
  } else if (hits.some((h) => h.requires !== undefined && h.rule !== "tool.name-invalid" && h.rule !== "tool.meta-unresolved")) {
    steps.push("start a new session (/new) or, after reviewing what entered it, run /clawos trust reset as the owner");
  }
  if (hits.some((h) => h.rule === "capability.denied" || h.rule === "capability.denied-agent" || h.rule === "subagent.denied-capability")) {
    steps.push(`remove the capability from the denial list named above in ${CONFIG_LOCATION}`);
  }
  if (hits.some((h) => h.rule === "path.outside-workspace")) {
    steps.push(`write inside the workspace, or add the path to ${CONFIG_LOCATION}.paths.writable`);
  }
  if (hits.some((h) => h.rule === "path.secret-read" && holdsSecretBelow(h.label))) {
    steps.unshift("read a narrower directory that holds no secrets (the project's folder rather than the home directory or /)");
  }
  if (
    hits.some(
      (h) =>
        (h.rule === "path.secret-read" || h.rule === "path.secret-write" || h.rule === "path.protected-write") && isPath(h.value) && !holdsSecretBelow(h.label),
    )
  ) {
    steps.push(`if the path is not what the rule says, add an "open" rule for it to ${CONFIG_LOCATION}.paths.rules`);
  }
  if (hits.some((h) => h.rule === "tool.mode" && h.capability === "proc:exec" && h.mode?.includes("Code Mode"))) {
    steps.push("run Code Mode on the QuickJS executor (tools.codeMode.executor: quickjs), whose cells are sandboxed");
  }
  const unmanifested = hits.find((h) => h.rule === "tool.unmanifested");
  if (unmanifested) {
    steps.push(
      unmanifested.requires
        ? `add a manifest for ${tool} (manifestDirs or manifests) that says what it can do`
        : `add a manifest for ${tool} (manifestDirs or manifests) or set ${CONFIG_LOCATION}.capabilities.defaultAllow to true`,
    );
  }
  if (hits.some((h) => h.rule === "manifest.invalid")) steps.push("fix the manifest file named above");
  steps.push(`or set ${CONFIG_LOCATION}.capabilities.overrides.${tool} to "audit"`);
  return `To allow it: ${steps.join("; ")}.`;
}

/** The parts of a reason that depend only on the verdict (shared by every decision with the same rules). */
interface ReasonParts {
  /** The rules in words, after "ClawOS blocked <tool>: ". */
  readonly body: string;
  readonly tail: string;
}
const partsByRules = new WeakMap<readonly RuleHit[], ReasonParts>();

function partsOf(d: Decision): ReasonParts {
  // The remedies for a call lowered by the files it runs differ from the session's; they are rare.
  if (d.cause?.kind === "file") return { body: d.rules.map((h) => ruleText(h, d)).join("; "), tail: `. ${remedies(d.rules, d.tool, d)}` };
  let parts = partsByRules.get(d.rules);
  if (!parts) {
    parts = { body: d.rules.map((h) => ruleText(h, d)).join("; "), tail: `. ${remedies(d.rules, d.tool, d)}` };
    partsByRules.set(d.rules, parts);
  }
  return parts;
}

function build(d: Decision): string | undefined {
  if (d.rules.length === 0) return undefined;
  const internal = d.rules.find((h) => h.rule === "internal.error");
  if (internal) {
    return `ClawOS internal error while checking ${d.requestedTool}: ${internal.error}. The call is blocked because ClawOS fails closed in enforce mode; check the gateway log.`;
  }
  // A verdict's rules array is shared by the decisions made from it, whatever their cause; only
  // the cause is written per decision (a tainted session meets its first block cheaply).
  const { body, tail } = partsOf(d);
  const via = d.via ? ` (called through ${d.via})` : "";
  const verb = d.effect === "approve" ? "asks the owner about" : d.effect === "would-ask" ? "would ask the owner about" : "blocked";
  const head = `ClawOS ${verb} ${d.tool}${via}: ${body}`;
  const cause = d.trustLimited ? `, but ${causeText(d.inputTrust, d.cause)}` : "";
  const note = d.effect === "block" || d.effect === "would-block" ? approvalBlockNote(d.approval) : undefined;
  return `${head}${cause}${note ? `; ${note}` : ""}${tail}`;
}

const reasons = new WeakMap<Decision, string>();

/** Why the call was (or, in audit mode, would have been) blocked or put to the owner; undefined for a clean allow. */
export function blockReason(d: Decision): string | undefined {
  if (d.rules.length === 0 || d.effect === "allow") return undefined;
  let text = reasons.get(d);
  if (text === undefined) {
    text = hideValues(build(d) as string, d.hidden);
    reasons.set(d, text);
  }
  return text;
}

/** "a" or "an" before a role's name, as it is said (an id, an account, a url). */
function article(word: string | undefined): string {
  return /^[aeio]/i.test(word ?? "") ? "an" : "a";
}
