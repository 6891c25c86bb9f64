import type { ApprovalChoice } from "../config/approvals-schema.ts";
import type { ClawosConfig } from "../config/config-schema.ts";
import type { Decision, RuleId } from "./decision.ts";
import type { RiskLevel } from "./manifest-schema.ts";
import type { GrantOffer } from "../grants/grant.ts";

/**
 * L2: the third outcome. A call that enforce would block only because the session's trust is below
 * a floor, or because a security-relevant argument came from a less-trusted input (or from none),
 * can be put to the owner instead: only they can tell paying the bill in a downloaded PDF from an
 * injection. Everything else (path rules, denials, command deny rules, unmanifested tools, broken
 * manifests, internal errors) stays a block. Pure: the decision and the approval stay data; words
 * are made in `report/approval-prompt.ts` and `report/reason.ts`.
 */

/** Rules the owner can answer: trust floors and where an argument came from. */
export const ASKABLE_RULES: ReadonlySet<RuleId> = new Set<RuleId>([
  "tool.min-input-trust",
  "capability.floor",
  "tool.mode",
  "argument.tainted",
  "argument.unknown",
  "action.irreversible",
]);

/**
 * Who can answer an approval in this session, as the host tells ClawOS:
 * - `interactive`: a person's turn on a channel (a requester the host named on a channel; trigger `user`);
 * - `headless`: no requester, a requester on no channel (an `openclaw agent` CLI turn, which the host
 *   refuses to ask on), or `openclaw agent exec` (`:explicit:` sessions);
 * - `cron` / `heartbeat`: a scheduled or host-started run (its trigger or its `:cron:` session key);
 * - `subagent`: a sub-agent whose parent is not interactive, or not known yet;
 * - `unsupported`: the gate runs as a plain before_tool_call hook (an OpenClaw without trusted tool policies).
 */
export type ApprovalSurface = "interactive" | "headless" | "cron" | "heartbeat" | "subagent" | "unsupported";

export interface ApprovalVerdict {
  /** What the operator's config chose for this call. */
  readonly choice: ApprovalChoice;
  /** The setting that chose it: approvals.default, or a tool, capability or risk-level entry. */
  readonly by: "default" | "tool" | "capability" | "risk";
  /** The key of that setting (the tool, capability or risk level). */
  readonly setting?: string;
  /** Who could answer. */
  readonly surface: ApprovalSurface;
  /** The parent session a sub-agent's surface was read from. */
  readonly parent?: string;
  /** The manifest's risk level (the prompt's severity). */
  readonly risk?: RiskLevel;
  /** How long the owner has, in seconds (an unanswered approval denies). */
  readonly timeoutSeconds: number;
}

/** The approvals config, compiled once per policy. */
export class ApprovalPolicy {
  readonly defaultChoice: ApprovalChoice;
  readonly timeoutSeconds: number;
  private readonly tools: ReadonlyMap<string, ApprovalChoice>;
  private readonly capabilities: ReadonlyMap<string, ApprovalChoice>;
  private readonly risk: ReadonlyMap<string, ApprovalChoice>;

  constructor(config: ClawosConfig["approvals"] | undefined) {
    this.defaultChoice = config?.default ?? "approve";
    this.timeoutSeconds = config?.timeoutSeconds ?? 120;
    this.tools = new Map(Object.entries(config?.tools ?? {}));
    this.capabilities = new Map(Object.entries(config?.capabilities ?? {}));
    this.risk = new Map(Object.entries(config?.risk ?? {}).filter((e): e is [string, ApprovalChoice] => e[1] !== undefined));
  }

  /** The operator's choice for a call: its tool's entry, else any capability's (block wins), else its risk level's, else the default. */
  choose(tool: string, capabilities: readonly string[], risk: RiskLevel | undefined): Pick<ApprovalVerdict, "choice" | "by" | "setting"> {
    const byTool = this.tools.get(tool);
    if (byTool) return { choice: byTool, by: "tool", setting: tool };
    let approve: string | undefined;
    for (const capability of capabilities) {
      const c = this.capabilities.get(capability);
      if (c === "block") return { choice: "block", by: "capability", setting: capability };
      if (c === "approve") approve ??= capability;
    }
    if (approve) return { choice: "approve", by: "capability", setting: approve };
    const byRisk = risk ? this.risk.get(risk) : undefined;
    if (byRisk && risk) return { choice: byRisk, by: "risk", setting: risk };
    return { choice: this.defaultChoice, by: "default" };
  }
}

/** Whether the owner can answer this blocked (or would-be-blocked) decision at all. */
export function askable(decision: Decision): boolean {
  if (decision.effect !== "block" && decision.effect !== "would-block") return false;
  if (decision.rules.length === 0 || !decision.manifested) return false;
  return decision.rules.every((hit) => ASKABLE_RULES.has(hit.rule));
}

/**
 * The decision once the approval policy was applied (pure). An askable call whose operator choice
 * is approve becomes `approve` (enforce: the host asks the owner) or `would-ask` (audit) when
 * someone can answer; otherwise the block stands, with the approval verdict attached so the
 * reason can say why nobody was asked.
 */
export function withApproval(
  decision: Decision,
  policy: ApprovalPolicy,
  risk: RiskLevel | undefined,
  surface: { readonly surface: ApprovalSurface; readonly parent?: string },
  offerFor?: (asked: Decision) => GrantOffer | undefined,
): Decision {
  if (!askable(decision)) return decision;
  const chosen = policy.choose(decision.tool, decision.capabilities, risk);
  const approval: ApprovalVerdict = {
    ...chosen,
    surface: surface.surface,
    ...(surface.parent ? { parent: surface.parent } : {}),
    ...(risk ? { risk } : {}),
    timeoutSeconds: policy.timeoutSeconds,
  };
  if (chosen.choice !== "approve" || surface.surface !== "interactive") return { ...decision, approval };
  // What allow-always would grant (the caller works it out from the call's values), when a grant can answer.
  const offer = offerFor?.(decision);
  if (decision.effect === "would-block") return { ...decision, effect: "would-ask", approval, ...(offer ? { offer } : {}) };
  return { ...decision, outcome: "approve", effect: "approve", approval, ...(offer ? { offer } : {}) };
}
