import { capabilityFloor, isKnownCapability } from "./capabilities.ts";
import type { CapabilityMode, ClawosConfig } from "../config/config-schema.ts";
import type { BrokenManifest, ManifestEntry } from "./manifests.ts";
import type { TaintSource } from "../taint/session-store.ts";
import type { ResolvedTool } from "./tool-names.ts";
import { meetsTrust, trustRank, type TrustLevel } from "../taint/trust.ts";

/**
 * L2: the decision for one tool call, as a plain value. Every violated rule is collected (deny
 * wins: one is enough to block); the mode then says whether the block is enforced, only
 * recorded as a would-block (audit), or not evaluated (off).
 */

export type RuleId =
  | "tool.min-input-trust"
  | "capability.floor"
  | "capability.unknown"
  | "capability.denied"
  | "capability.denied-agent"
  | "subagent.denied-capability"
  | "tool.unmanifested"
  | "tool.name-invalid"
  | "tool.meta-unresolved"
  | "manifest.invalid"
  | "internal.error";

export interface RuleHit {
  readonly rule: RuleId;
  readonly reason: string;
  /** The trust level this rule asks for, when the rule is about trust. */
  readonly requires?: TrustLevel;
  readonly capability?: string;
}

export type Effect = "allow" | "block" | "would-block";

export interface Decision {
  /** What happens to the call. */
  readonly outcome: "allow" | "block";
  /** allow, block (enforced) or would-block (audit mode allowed what enforce would block). */
  readonly effect: Effect;
  readonly mode: CapabilityMode;
  readonly tool: string;
  readonly requestedTool: string;
  readonly via?: string;
  readonly capabilities: readonly string[];
  readonly inputTrust: TrustLevel;
  readonly manifested: boolean;
  readonly rules: readonly RuleHit[];
  /** The message for the model and the operator when the call is blocked or would be. */
  readonly reason?: string;
}

export interface DecisionInput {
  readonly tool: ResolvedTool;
  readonly manifest: ManifestEntry | undefined;
  readonly broken: BrokenManifest | undefined;
  readonly inputTrust: TrustLevel;
  /** The inputs that lowered the session's trust, most recent last. */
  readonly taint: readonly TaintSource[];
  readonly isSubagent: boolean;
  readonly agentId: string | undefined;
  readonly config: ClawosConfig;
}

const CONFIG = "plugins.entries.clawos.config";

export function modeFor(config: ClawosConfig, tool: ResolvedTool): CapabilityMode {
  if (!config.layers.capabilities) return "off";
  const overrides = config.capabilities.overrides;
  return overrides[tool.name] ?? overrides[tool.requested] ?? config.capabilities.mode;
}

export function evaluateRules(input: DecisionInput): RuleHit[] {
  const { tool, manifest, broken, inputTrust, config } = input;
  const hits: RuleHit[] = [];
  if (!tool.validName) {
    hits.push({
      rule: "tool.name-invalid",
      requires: "owner",
      reason: `the tool name ${JSON.stringify(tool.requested)} is not a valid OpenClaw tool name (look-alike characters, spaces or over 64 characters)`,
    });
    return hits;
  }
  if (tool.unresolved) {
    hits.push({ rule: "tool.meta-unresolved", requires: "owner", reason: `${tool.via} names no tool to run (${tool.unresolved})` });
    return hits;
  }
  if (broken) {
    hits.push({
      rule: "manifest.invalid",
      reason: `the manifest for ${tool.name} (${broken.source}) is invalid: ${broken.errors[0] ?? "unknown error"}`,
    });
    return hits;
  }
  if (!manifest) {
    if (!config.capabilities.defaultAllow) {
      hits.push({
        rule: "tool.unmanifested",
        reason: `${tool.name} has no capability manifest and defaultAllow is false`,
      });
    }
    return hits;
  }
  const m = manifest.manifest;
  if (!meetsTrust(inputTrust, m.minInputTrust)) {
    hits.push({ rule: "tool.min-input-trust", requires: m.minInputTrust, reason: `${tool.name} needs input trust ${m.minInputTrust}` });
  }
  const agentDeny = input.agentId ? config.capabilities.agents[input.agentId]?.deny : undefined;
  for (const capability of m.capabilities) {
    if (!isKnownCapability(capability)) {
      if (inputTrust !== "owner") {
        hits.push({ rule: "capability.unknown", capability, requires: "owner", reason: `capability ${capability} is unknown, so it needs input trust owner` });
      }
    } else {
      const floor = capabilityFloor(capability);
      if (!meetsTrust(inputTrust, floor)) {
        hits.push({ rule: "capability.floor", capability, requires: floor, reason: `capability ${capability} needs input trust ${floor}` });
      }
    }
    if (config.capabilities.deny.includes(capability)) {
      hits.push({ rule: "capability.denied", capability, reason: `capability ${capability} is denied by capabilities.deny` });
    }
    if (agentDeny?.includes(capability)) {
      hits.push({ rule: "capability.denied-agent", capability, reason: `capability ${capability} is denied for agent ${input.agentId} by capabilities.agents.${input.agentId}.deny` });
    }
    if (input.isSubagent && config.subagent.denyCapabilities.includes(capability)) {
      hits.push({ rule: "subagent.denied-capability", capability, reason: `capability ${capability} is denied to sub-agents by subagent.denyCapabilities` });
    }
  }
  return hits;
}

/** `new Date(at).toISOString()`, remembered for the second it falls in (block reasons repeat). */
let isoSecond = Number.NaN;
let isoPrefix = "";
function isoTime(at: number): string {
  if (!Number.isInteger(at) || at < 0 || at > 253402300799999) return new Date(at).toISOString();
  const second = Math.floor(at / 1000);
  if (second !== isoSecond) {
    isoPrefix = new Date(second * 1000).toISOString().slice(0, 19);
    isoSecond = second;
  }
  return `${isoPrefix}.${String(at - second * 1000).padStart(3, "0")}Z`;
}

function describeTaint(taint: readonly TaintSource[], inputTrust: TrustLevel): string {
  let cause: TaintSource | undefined;
  for (let i = taint.length - 1; i >= 0 && !cause; i--) if (taint[i].level === inputTrust) cause = taint[i];
  cause ??= taint[taint.length - 1];
  if (!cause) return `this session is at ${inputTrust}`;
  const when = isoTime(cause.at);
  const call = cause.callId ? `, call ${cause.callId}` : "";
  return `this session is at ${inputTrust} since ${cause.label} (${cause.level}${call}, ${when})`;
}

function remedies(hits: readonly RuleHit[], tool: string): string {
  const steps: string[] = [];
  const trustRules = hits.some((h) => h.requires !== undefined && h.rule !== "tool.name-invalid" && h.rule !== "tool.meta-unresolved");
  if (trustRules) {
    steps.push("start a new session (/new) or, after reviewing what entered it, run /clawos trust reset as the owner");
  }
  if (hits.some((h) => h.rule === "capability.denied" || h.rule === "capability.denied-agent" || h.rule === "subagent.denied-capability")) {
    steps.push(`remove the capability from the denial list named above in ${CONFIG}`);
  }
  if (hits.some((h) => h.rule === "tool.unmanifested")) {
    steps.push(`add a manifest for ${tool} (manifestDirs or manifests) or set ${CONFIG}.capabilities.defaultAllow to true`);
  }
  if (hits.some((h) => h.rule === "manifest.invalid")) steps.push("fix the manifest file named above");
  steps.push(`or set ${CONFIG}.capabilities.overrides.${tool} to "audit"`);
  return `To allow it: ${steps.join("; ")}.`;
}

export function blockReason(tool: ResolvedTool, hits: readonly RuleHit[], inputTrust: TrustLevel, taint: readonly TaintSource[]): string {
  const via = tool.via ? ` (called through ${tool.via})` : "";
  const rules = hits.map((h) => h.reason).join("; ");
  const trustContext = hits.some((h) => h.requires !== undefined && trustRank(h.requires) > trustRank(inputTrust))
    ? `, but ${describeTaint(taint, inputTrust)}`
    : "";
  return `ClawOS blocked ${tool.name}${via}: ${rules}${trustContext}. ${remedies(hits, tool.name)}`;
}

/** The whole L2 decision for one call. Pure: same input, same decision. */
export function decide(input: DecisionInput): Decision {
  const mode = modeFor(input.config, input.tool);
  const base = {
    mode,
    tool: input.tool.name,
    requestedTool: input.tool.requested,
    ...(input.tool.via ? { via: input.tool.via } : {}),
    capabilities: input.manifest?.manifest.capabilities ?? [],
    inputTrust: input.inputTrust,
    manifested: input.manifest !== undefined,
  };
  if (mode === "off") return { ...base, outcome: "allow", effect: "allow", rules: [] };
  const rules = evaluateRules(input);
  if (rules.length === 0) return { ...base, outcome: "allow", effect: "allow", rules };
  const reason = blockReason(input.tool, rules, input.inputTrust, input.taint);
  if (mode === "audit") return { ...base, outcome: "allow", effect: "would-block", rules, reason };
  return { ...base, outcome: "block", effect: "block", rules, reason };
}

/** The decision when the gate itself failed: enforce blocks, audit allows and records the error. */
export function internalErrorDecision(requestedTool: string, mode: CapabilityMode, error: unknown): Decision {
  const detail = error instanceof Error ? error.message : String(error);
  const rules: RuleHit[] = [{ rule: "internal.error", reason: `ClawOS internal error: ${detail}` }];
  const reason = `ClawOS internal error while checking ${requestedTool}: ${detail}. The call is blocked because ClawOS fails closed in enforce mode; check the gateway log.`;
  const base = { mode, tool: requestedTool, requestedTool, capabilities: [], inputTrust: "untrusted" as TrustLevel, manifested: false, rules, reason };
  if (mode === "enforce") return { ...base, outcome: "block", effect: "block" };
  return { ...base, outcome: "allow", effect: mode === "audit" ? "would-block" : "allow" };
}
