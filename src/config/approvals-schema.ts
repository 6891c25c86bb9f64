import { Type } from "@sinclair/typebox";
import { CAPABILITY_NAME_PATTERN } from "../policy/capabilities.ts";
import { RISK_LEVELS } from "../policy/manifest-schema.ts";
import { TOOL_NAME_PATTERN } from "../policy/tool-names.ts";

/**
 * `approvals`: what a call that enforce would block does when only the owner can tell it from an
 * attack (docs/approvals.md). Only calls blocked by trust floors or by where their arguments came
 * from can ask; path rules, denials, command deny rules and unmanifested tools always block.
 */

export const APPROVAL_CHOICES = ["approve", "block"] as const;
export type ApprovalChoice = (typeof APPROVAL_CHOICES)[number];

function choice(description: string) {
  return Type.Union(
    APPROVAL_CHOICES.map((c) => Type.Literal(c)),
    { description },
  );
}

export const ApprovalsSchema = Type.Object(
  {
    default: Type.Union(
      APPROVAL_CHOICES.map((c) => Type.Literal(c)),
      {
        default: "block",
        title: "Default for askable calls",
        description:
          "approve asks the owner on the session's channel before a call enforce would block only for its trust floor or for a tainted or unknown argument (opt-in: not yet proven end to end on a gateway); block (the default) blocks it. Where nobody can answer (headless runs, cron, sub-agents without an interactive parent) the call is blocked either way.",
      },
    ),
    tools: Type.Record(Type.String({ pattern: TOOL_NAME_PATTERN }), choice("approve or block"), {
      default: {},
      title: "Per tool",
      description: 'approve or block per tool, e.g. { "exec": "block" }. Wins over capabilities and risk levels.',
    }),
    capabilities: Type.Record(Type.String({ pattern: CAPABILITY_NAME_PATTERN }), choice("approve or block"), {
      default: {},
      title: "Per capability",
      description: 'approve or block per capability, e.g. { "payment:send": "block" }. A call with any capability set to block is blocked.',
    }),
    risk: Type.Object(Object.fromEntries(RISK_LEVELS.map((r) => [r, Type.Optional(choice(`approve or block for ${r}-risk tools`))])), {
      default: {},
      additionalProperties: false,
      title: "Per risk level",
      description: 'approve or block per manifest risk level, e.g. { "critical": "block" }.',
    }),
    timeoutSeconds: Type.Integer({
      default: 120,
      minimum: 10,
      maximum: 600,
      title: "Approval timeout (seconds)",
      description: "How long the owner has to answer; an unanswered approval denies the call (OpenClaw caps it at 600).",
    }),
  },
  { default: {}, additionalProperties: false, title: "Approvals" },
);
