import { Type } from "@sinclair/typebox";
import { CAPABILITY_NAME_PATTERN } from "../policy/capabilities.ts";
import { RISK_LEVELS } from "../policy/manifest-schema.ts";
import { TOOL_NAME_PATTERN } from "../policy/tool-names.ts";
import { ACTION_ID_PATTERN, IrreversibleRuleSchema } from "../policy/irreversible.ts";
import { GRANT_SCOPES } from "../grants/grant.ts";

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
        default: "approve",
        title: "Default for askable calls",
        description:
          "approve (the default) asks the owner on the session's channel before a call enforce would block only for its trust floor, for a tainted or unknown argument, or for an irreversible action; block blocks it. Where nobody can answer (CLI and headless runs, cron, sub-agents without an interactive parent) the call is blocked either way, unless a grant answers it.",
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
    grants: Type.Object(
      {
        expiry: Type.String({
          default: "24h",
          pattern: "^(\\d{1,6}\\s*[smhdSMHD]|never)$",
          title: "Grant expiry",
          description: 'How long an allow-always answer lasts: "24h" (the default), "30m", "7d"; "never" makes grants that do not expire.',
        }),
        scope: Type.Union(
          GRANT_SCOPES.map((s) => Type.Literal(s)),
          {
            default: "session",
            title: "Grant scope",
            description:
              "Where an allow-always answer applies: session (the default: only the session that asked), agent (every session of that agent) or everywhere.",
          },
        ),
      },
      {
        default: {},
        additionalProperties: false,
        title: "Grants",
        description:
          "What an allow-always answer grants: the same call (this recipient, this host, this command prefix, this path) without asking, where and for how long. /clawos grants lists and revokes them.",
      },
    ),
    irreversible: Type.Object(
      {
        actions: Type.Array(IrreversibleRuleSchema, {
          default: [],
          maxItems: 256,
          title: "Irreversible tool actions",
          description:
            'Tool calls that need a grant even in the owner\'s session, e.g. { "id": "pay", "tool": "payments", "at": "action", "equals": ["send"], "action": "send a payment" }. Commands name theirs in commands.rules ("irreversible").',
        }),
        disabled: Type.Array(Type.String({ pattern: ACTION_ID_PATTERN }), {
          default: [],
          title: "Built-in irreversible actions turned off",
          description:
            'Ids of built-in actions that need no grant here, e.g. ["message-broadcast"]. Built-in: github-publish, message-broadcast, gateway-update, send-secret (a message or mail carrying a key, a token or a password), and the command rules\' (git-push, npm-publish, ...).',
        }),
      },
      {
        default: {},
        additionalProperties: false,
        title: "Irreversible actions",
        description:
          "Calls that need the owner's grant even in the owner's session (publishing, pushing, broadcasting, updating the gateway): asked when someone can answer, blocked otherwise.",
      },
    ),
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
