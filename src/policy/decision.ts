import type { CapabilityMode } from "../config/config-schema.ts";
import type { BrokenManifest, ManifestEntry } from "./manifests.ts";
import type { TaintSource } from "../taint/session-store.ts";
import type { ResolvedTool } from "./tool-names.ts";
import { meetsTrust, TRUST_LEVELS, trustRank, type TrustLevel } from "../taint/trust.ts";
import type { ArgumentVerdict } from "../taint/provenance.ts";
import type { ApprovalVerdict } from "./approval.ts";
import type { GrantOffer } from "../grants/grant.ts";
import { touchCapability, type CallFacts, type CommandView, type TouchKind } from "./touches.ts";

/**
 * L2: the decision for one tool call, as plain data. Every violated rule is collected (deny wins:
 * one is enough to block); the mode then says whether the block is enforced, only recorded as a
 * would-block (audit), or not evaluated (off). Words for people are made from a decision by
 * `report/reason.ts`; nothing here builds prose.
 */

export type RuleId =
  | "tool.min-input-trust"
  | "capability.floor"
  | "capability.unknown"
  | "capability.denied"
  | "capability.denied-agent"
  | "subagent.denied-capability"
  | "tool.unmanifested"
  | "tool.mode"
  | "path.secret-read"
  | "path.secret-write"
  | "path.protected-write"
  | "path.outside-workspace"
  | "path.unreadable"
  | "tool.name-invalid"
  | "tool.meta-unresolved"
  | "manifest.invalid"
  | "command.denied"
  | "argument.tainted"
  | "argument.unknown"
  | "provenance.endorsed"
  | "action.irreversible"
  | "grant.used"
  | "internal.error";

export interface RuleHit {
  readonly rule: RuleId;
  /** The trust level this rule asks for, when the rule is about trust. */
  readonly requires?: TrustLevel;
  readonly capability?: string;
  /** The agent whose own denial list fired (capability.denied-agent). */
  readonly agentId?: string;
  /** Where the broken manifest came from and its first error (manifest.invalid), or the error (internal.error). */
  readonly source?: string;
  readonly error?: string;
  /** The argument a path rule or a mode read (as the manifest names it), its value, and what it is. */
  readonly argument?: string;
  readonly value?: string;
  readonly label?: string;
  /** The mode an argument or host setting selected (tool.mode). */
  readonly mode?: string;
  /** The argument's role (argument.tainted, argument.unknown), the input that brought it in and its trust. */
  readonly role?: string;
  readonly from?: string;
  readonly fromTrust?: TrustLevel;
  readonly callId?: string;
  /** The argument repeats a payment the session already made (argument.tainted): naming it again does not endorse it. */
  readonly repeats?: true;
}

/**
 * allow; block (enforced); would-block (audit allowed what enforce would block); approve (enforce
 * asks the owner, see `approval.ts`); would-ask (audit allowed what enforce would ask about).
 */
export type Effect = "allow" | "block" | "would-block" | "approve" | "would-ask";

export interface Decision {
  /** What happens to the call: it runs, it is stopped, or it runs only if the owner approves it. */
  readonly outcome: "allow" | "block" | "approve";
  /** allow, block (enforced), would-block (audit mode allowed what enforce would block), approve or would-ask. */
  readonly effect: Effect;
  readonly mode: CapabilityMode;
  readonly tool: string;
  readonly requestedTool: string;
  readonly via?: string;
  /** Why a meta tool's target could not be read (tool.meta-unresolved). */
  readonly unresolved?: string;
  readonly capabilities: readonly string[];
  readonly inputTrust: TrustLevel;
  readonly manifested: boolean;
  readonly rules: readonly RuleHit[];
  /** A rule asks for more trust than the call had: the session's inputs are part of the cause. */
  readonly trustLimited: boolean;
  /** The input that set the session's trust, when `trustLimited` (see `causeOf`). */
  readonly cause?: TaintSource;
  /** Where each security-relevant argument came from, when the decision looked (provenance). */
  readonly arguments?: readonly ArgumentVerdict[];
  /** For a call the owner could be asked about: what the approval policy chose and who could answer. */
  readonly approval?: ApprovalVerdict;
  /** The owner's grants that answered this call (their ids), when it ran on them. */
  readonly grants?: readonly string[];
  /** What allow-always would grant, when ClawOS asks (or would ask) the owner. */
  readonly offer?: GrantOffer;
  /** Secrets the session read that the call's parameters hold: prose and audit lines show them `[redacted]`. */
  readonly hidden?: readonly string[];
  /** The call's free text (its content arguments, shortened), for the owner asked about it: what an instruction or a message says. */
  readonly texts?: readonly { readonly argument: string; readonly value: string }[];
  /** What a shell command does, as the command rules read it. */
  readonly command?: Pick<CommandView, "parsed" | "error" | "readOnly" | "why" | "programs" | "irreversible"> & {
    /** The prefix an operator's allow rule could name: a single local command that reads no secret. */
    readonly prefix?: string;
    /** With a prefix: the whole command, in plain words, as an allow-always grant names it. */
    readonly whole?: string;
    /** The command as given (at most `COMMAND_TEXT_LIMIT` characters), for the owner asked about it. */
    readonly text?: string;
  };
}

/** What one decision reads besides the compiled policy. */
export interface DecisionInput {
  readonly tool: ResolvedTool;
  readonly mode: CapabilityMode;
  readonly manifest: ManifestEntry | undefined;
  readonly broken: BrokenManifest | undefined;
  readonly inputTrust: TrustLevel;
  readonly isSubagent: boolean;
  readonly agentId: string | undefined;
  /** What the call's arguments touch and select; undefined for a manifest that declares no arguments. */
  readonly facts?: CallFacts;
  /** The irreversible actions the call takes (a tool's action, a command's): each needs a grant. */
  readonly irreversible?: readonly IrreversibleAction[];
}

/** An irreversible action a call takes: its id (what a grant names) and what it does, in words. */
export interface IrreversibleAction {
  readonly id: string;
  readonly action: string;
}

const TOUCH_RULE: Record<TouchKind, RuleId> = {
  "secret-read": "path.secret-read",
  "secret-write": "path.secret-write",
  "protected-write": "path.protected-write",
  "outside-workspace": "path.outside-workspace",
  "unreadable-path": "path.unreadable",
};

/** The parts of the compiled policy a decision reads (see `compiled-policy.ts`). */
export interface RulePolicy {
  readonly defaultAllow: boolean;
  readonly deniedEverywhere: ReadonlySet<string>;
  readonly deniedToAgent: ReadonlyMap<string, ReadonlySet<string>>;
  readonly deniedToSubagents: ReadonlySet<string>;
  isKnownCapability(name: string): boolean;
  capabilityFloor(name: string): TrustLevel;
}

/** The rules one call breaks under a policy. Pure. */
export function evaluateRules(input: DecisionInput, policy: RulePolicy): RuleHit[] {
  const { tool, manifest, broken, inputTrust } = input;
  const hits: RuleHit[] = [];
  if (!tool.validName) return [{ rule: "tool.name-invalid", requires: "owner" }];
  if (tool.unresolved) return [{ rule: "tool.meta-unresolved", requires: "owner" }];
  if (broken) return [{ rule: "manifest.invalid", source: broken.source, error: broken.errors[0] ?? "unknown error" }];
  if (!manifest) {
    // A tool ClawOS knows nothing about is treated as critical below owner, whatever defaultAllow says.
    if (!policy.defaultAllow) return [{ rule: "tool.unmanifested" }];
    return inputTrust === "owner" ? hits : [{ rule: "tool.unmanifested", requires: "owner" }];
  }
  const m = manifest.manifest;
  const facts = input.facts;
  const command = facts?.command?.view;
  // A read-only action (a poll, a snapshot) is decided by what it reads, not by what the tool can do.
  const reading = facts?.modes[0]?.readOnly ? facts.modes[0] : undefined;
  // A read-only command needs only what reading needs; an operator's allow rule sets the trust it runs at.
  const capabilities = command?.readOnly ? READ_ONLY : (reading?.capabilities ?? m.capabilities);
  const minTrust: TrustLevel = command?.readOnly ? "untrusted" : (command?.allowAt ?? (reading ? (reading.minInputTrust ?? "untrusted") : m.minInputTrust));
  if (command?.denyAt && trustRank(inputTrust) <= trustRank(command.denyAt)) {
    const rule = command.rules.find((r) => r.effect === "deny");
    const above = TRUST_LEVELS[trustRank(command.denyAt) + 1];
    hits.push({ rule: "command.denied", argument: facts?.command?.argument, value: rule?.id, ...(above ? { requires: above } : {}) });
  }
  if (!meetsTrust(inputTrust, minTrust)) hits.push({ rule: "tool.min-input-trust", requires: minTrust });
  for (const capability of capabilities) {
    if (!policy.isKnownCapability(capability)) {
      if (inputTrust !== "owner") hits.push({ rule: "capability.unknown", capability, requires: "owner" });
    } else {
      const floor = command?.allowAt && capability === "proc:exec" ? command.allowAt : policy.capabilityFloor(capability);
      if (!meetsTrust(inputTrust, floor)) hits.push({ rule: "capability.floor", capability, requires: floor });
    }
    denials(capability, input, policy, hits);
  }
  // Irreversible actions ask even the owner, whatever the trust: only a grant lets them run unasked.
  for (const action of input.irreversible ?? []) hits.push({ rule: "action.irreversible", value: action.id, label: action.action });
  if (!facts) return hits;
  for (const mode of facts.modes) {
    if (mode.readOnly) continue;
    let requires: TrustLevel = mode.minInputTrust ?? "untrusted";
    for (const capability of mode.capabilities) {
      const floor = policy.isKnownCapability(capability) ? policy.capabilityFloor(capability) : "owner";
      if (trustRank(floor) > trustRank(requires)) requires = floor;
      if (!m.capabilities.includes(capability)) denials(capability, input, policy, hits);
    }
    if (!meetsTrust(inputTrust, requires)) hits.push({ rule: "tool.mode", mode: mode.name, requires, capability: mode.capabilities[0] });
  }
  for (const touch of facts.touches) {
    const capability = touchCapability(touch.kind);
    const where = { argument: touch.argument, value: touch.value, label: touch.label };
    if (touch.kind === "outside-workspace") hits.push({ rule: TOUCH_RULE[touch.kind], ...where });
    else if (inputTrust !== "owner") hits.push({ rule: TOUCH_RULE[touch.kind], requires: "owner", ...(capability ? { capability } : {}), ...where });
    if (capability && !m.capabilities.includes(capability)) denials(capability, input, policy, hits);
  }
  return hits;
}

function denials(capability: string, input: DecisionInput, policy: RulePolicy, hits: RuleHit[]): void {
  if (policy.deniedEverywhere.has(capability)) hits.push({ rule: "capability.denied", capability });
  const agentDeny = input.agentId ? policy.deniedToAgent.get(input.agentId) : undefined;
  if (agentDeny?.has(capability)) hits.push({ rule: "capability.denied-agent", capability, agentId: input.agentId });
  if (input.isSubagent && policy.deniedToSubagents.has(capability)) hits.push({ rule: "subagent.denied-capability", capability });
}

/** Every capability a call exercises: its manifest's, its selected modes', and what its paths count as. */
const READ_ONLY: readonly string[] = ["fs:read"];

function callCapabilities(input: DecisionInput): readonly string[] {
  const facts = input.facts;
  const reading = facts?.modes[0]?.readOnly ? facts.modes[0] : undefined;
  const base = facts?.command?.view.readOnly ? READ_ONLY : (reading?.capabilities ?? input.manifest?.manifest.capabilities ?? []);
  if (!facts || (facts.modes.length === (reading ? 1 : 0) && facts.touches.length === 0)) return base;
  const all = new Set(base);
  for (const mode of facts.modes) if (!mode.readOnly) for (const c of mode.capabilities) all.add(c);
  for (const touch of facts.touches) {
    const c = touchCapability(touch.kind);
    if (c) all.add(c);
  }
  return [...all];
}

/** The whole L2 verdict for one call, without its cause. Pure: same input, same verdict. */
export function decide(input: DecisionInput, policy: RulePolicy): Decision {
  const { tool, mode } = input;
  const base = {
    mode,
    tool: tool.name,
    requestedTool: tool.requested,
    ...(tool.via ? { via: tool.via } : {}),
    ...(tool.unresolved ? { unresolved: tool.unresolved } : {}),
    capabilities: callCapabilities(input),
    inputTrust: input.inputTrust,
    manifested: input.manifest !== undefined,
    ...(input.facts?.command ? { command: commandSummary(input.facts.command.view, input.facts.command.text) } : {}),
  };
  if (mode === "off") return { ...base, outcome: "allow", effect: "allow", rules: [], trustLimited: false };
  const rules = evaluateRules(input, policy);
  if (rules.length === 0) return { ...base, outcome: "allow", effect: "allow", rules, trustLimited: false };
  const trustLimited = rules.some((h) => h.requires !== undefined && trustRank(h.requires) > trustRank(input.inputTrust));
  if (mode === "audit") return { ...base, outcome: "allow", effect: "would-block", rules, trustLimited };
  return { ...base, outcome: "block", effect: "block", rules, trustLimited };
}

/** Plain words only: a prefix with quotes, expansions or operators is not offered as a rule. */
const PLAIN_WORD = /^[A-Za-z0-9_./:@%+=-]+$/;

function allowPrefix(view: CommandView, text: string): string | undefined {
  if (!view.parsed || view.readOnly || !view.local || view.programs.length !== 1 || view.secrets.length > 0 || view.irreversible.length > 0) return undefined;
  const words = text.trim().split(/\s+/);
  if (words.length > 12 || !words.every((w) => PLAIN_WORD.test(w)) || words[0] !== view.programs[0]) return undefined;
  // The program and its leading operands up to the first flag: `npm run test:unit`, `pytest`, `make check`.
  let end = 1;
  while (end < Math.min(words.length, 3) && !words[end].startsWith("-")) end++;
  return words.slice(0, end).join(" ");
}

/**
 * The command as a grant names it: all of it, in plain words. A flag or an operand added to an
 * approved command can change what runs (`make -C /tmp/x`, `python3 -m http.server`,
 * `sed -i 1e./x`), so allow-always covers the command the owner saw, not what starts like it.
 */
function grantCommand(view: CommandView, text: string): string | undefined {
  if (allowPrefix(view, text) === undefined) return undefined;
  return text.trim().split(/\s+/).join(" ");
}

/** How much of a command a decision keeps to show (an approval prompt shows less). */
const COMMAND_TEXT_LIMIT = 2048;

function commandSummary(view: CommandView, text: string): NonNullable<Decision["command"]> {
  const prefix = allowPrefix(view, text);
  const whole = prefix ? grantCommand(view, text) : undefined;
  const given = text.trim();
  return {
    ...(prefix ? { prefix } : {}),
    ...(whole ? { whole } : {}),
    ...(given ? { text: given.length > COMMAND_TEXT_LIMIT ? `${given.slice(0, COMMAND_TEXT_LIMIT)}…` : given } : {}),
    parsed: view.parsed,
    ...(view.error ? { error: view.error } : {}),
    readOnly: view.readOnly,
    why: view.why.slice(0, 8),
    // Every program (bounded): the prompt lists them all, so a long command cannot hide one.
    programs: view.programs.slice(0, 32),
    irreversible: view.irreversible,
  };
}

/** Rules a provenance decision can answer: the session's trust is below a floor, nothing else. */
const TRUST_FLOOR_RULES: ReadonlySet<RuleId> = new Set<RuleId>(["tool.min-input-trust", "capability.floor"]);

/**
 * The trust a call needs when the only rules it breaks are trust floors (and irreversible actions,
 * which stay with the call whatever its arguments' origins); undefined otherwise. A
 * mode's trust counts as one when the mode is decided by where its arguments came from (`decided`,
 * the names of the call's modes with `decisions`).
 */
export function provenanceRequirement(decision: Decision, decided?: readonly string[]): TrustLevel | undefined {
  if (decision.effect === "allow" || !decision.trustLimited) return undefined;
  let required: TrustLevel | undefined;
  for (const hit of decision.rules) {
    // An irreversible action is answered by a grant, not by where the arguments came from: set aside here.
    if (hit.rule === "action.irreversible") continue;
    const floor = TRUST_FLOOR_RULES.has(hit.rule) || (hit.rule === "tool.mode" && hit.mode !== undefined && decided?.includes(hit.mode) === true);
    if (!floor || !hit.requires) return undefined;
    if (!required || trustRank(hit.requires) > trustRank(required)) required = hit.requires;
  }
  return required;
}

/**
 * The decision once the call's security-relevant arguments were looked up (pure): allowed when
 * every one is endorsed (or allowed unknown); otherwise the trust-floor block stands, with a rule
 * per argument that fell short.
 */
export function withProvenance(decision: Decision, required: TrustLevel, verdicts: readonly ArgumentVerdict[]): Decision {
  const short = verdicts.filter((v) => !v.allowed);
  const irreversible = decision.rules.filter((hit) => hit.rule === "action.irreversible");
  if (verdicts.length > 0 && short.length === 0 && irreversible.length > 0) {
    // The trust floors are met by the arguments' origins; the irreversible action still needs its grant.
    return { ...decision, rules: irreversible, trustLimited: false, arguments: verdicts };
  }
  if (verdicts.length > 0 && short.length === 0) {
    return {
      ...decision,
      outcome: "allow",
      effect: "allow",
      rules: [{ rule: "provenance.endorsed", requires: required }],
      trustLimited: false,
      arguments: verdicts,
    };
  }
  const hits: RuleHit[] = short.map((v) => ({
    rule: v.verdict === "tainted" ? "argument.tainted" : "argument.unknown",
    requires: required,
    argument: v.argument,
    role: v.role,
    value: v.value,
    ...(v.source ? { from: v.source } : {}),
    ...(v.level ? { fromTrust: v.level } : {}),
    ...(v.callId ? { callId: v.callId } : {}),
    ...(v.note ? { label: v.note } : {}),
    ...(v.repeats ? { repeats: true } : {}),
  }));
  return { ...decision, rules: [...decision.rules, ...hits], arguments: verdicts };
}

/**
 * The input a trust-limited decision names as its cause: the latest of the inputs that lowered the
 * session to the trust the call had, or else the latest of them.
 */
export function causeOf(taint: readonly TaintSource[], inputTrust: TrustLevel): TaintSource | undefined {
  for (let i = taint.length - 1; i >= 0; i--) if (taint[i].level === inputTrust) return taint[i];
  return taint[taint.length - 1];
}

/** The decision when the gate itself failed: enforce blocks, audit allows and records the error. */
export function internalErrorDecision(requestedTool: string, mode: CapabilityMode, error: unknown): Decision {
  const detail = error instanceof Error ? error.message : String(error);
  const rules: RuleHit[] = [{ rule: "internal.error", error: detail }];
  const base = {
    mode,
    tool: requestedTool,
    requestedTool,
    capabilities: [],
    inputTrust: "untrusted" as TrustLevel,
    manifested: false,
    rules,
    trustLimited: false,
  };
  if (mode === "enforce") return { ...base, outcome: "block", effect: "block" };
  return { ...base, outcome: "allow", effect: mode === "audit" ? "would-block" : "allow" };
}
