import { Type, type Static } from "@sinclair/typebox";
import { compileArgumentPath, valuesAt } from "./arguments.ts";
import { holdsCredential } from "../audit/credentials.ts";
import type { IrreversibleAction } from "./decision.ts";
import { TOOL_NAME_PATTERN } from "./tool-names.ts";

/**
 * L2 data: tool calls that take an irreversible action (publishing, broadcasting, updating the
 * gateway). Such a call needs the owner's grant even in an owner session: asked when someone can
 * answer, blocked otherwise (docs/approvals.md). Shell commands name theirs through the command
 * rules (`irreversible` on a rule; built-in ones for pushes, publishes, releases, deploys).
 */

export const ACTION_ID_PATTERN = "^[a-z0-9][a-z0-9._-]{0,63}$";

export const IrreversibleRuleSchema = Type.Object(
  {
    id: Type.String({ pattern: ACTION_ID_PATTERN, description: "the action's id, what `/clawos grant <id>` names" }),
    tool: Type.String({ pattern: TOOL_NAME_PATTERN, description: "the tool that takes it" }),
    at: Type.Optional(
      Type.String({ minLength: 1, description: "an argument (as manifests name them, e.g. action); the rule applies only when it has one of `equals`" }),
    ),
    equals: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1, description: "the argument values that take the action" })),
    action: Type.String({ minLength: 1, maxLength: 120, description: 'what the call does, in words, like "publish a package"' }),
  },
  { additionalProperties: false },
);
export type IrreversibleRule = Static<typeof IrreversibleRuleSchema>;

/** OpenClaw's own tools whose calls cannot be taken back (2026.9.6 tool schemas). */
export const BUILTIN_IRREVERSIBLE: readonly IrreversibleRule[] = [
  { id: "github-publish", tool: "github_publish", action: "publish to GitHub" },
  { id: "message-broadcast", tool: "message", at: "action", equals: ["broadcast"], action: "broadcast a message to many recipients" },
  { id: "gateway-update", tool: "gateway", at: "action", equals: ["update.run"], action: "update OpenClaw and restart the gateway" },
];

/**
 * A credential leaving the session: a call of a tool that sends or publishes (`message:send`,
 * `net:publish`) any of whose arguments holds a key, a token or a password (`credentials.ts`), or
 * that attaches a secret path. (A key in a URL a tool fetches is decided by where the URL came from:
 * `provenance.ts`; the owner may give a URL with its token.) A leaked key cannot be called back, and the recipient alone does not say
 * it is safe: an injected instruction can ask for the key to go to the owner's own team channel.
 */
export const SECRET_SEND: IrreversibleAction = { id: "send-secret", action: "send what looks like a credential (a key, a token or a password)" };
const EGRESS = ["message:send", "net:publish"];

/**
 * The argument through which a call of a tool that sends or publishes carries a credential out
 * (see `SECRET_SEND`), as a dotted path (`message`, `presentation.blocks.0.text`), or undefined.
 * Every string the call passes is looked at, not only the manifest's `content` arguments: a host
 * reads text from many parameters (a quote, a poll's options, a card's buttons, an attachment's
 * base64 bytes). Else the first argument through which the call reads a secret path (`touches`).
 */
export function secretSendOf(
  capabilities: readonly string[] | undefined,
  args: unknown,
  touches: readonly { readonly kind: string; readonly argument: string }[],
): string | undefined {
  if (!capabilities?.some((c) => EGRESS.includes(c))) return undefined;
  return credentialIn(args, "", 0, { nodes: MAX_NODES }) ?? touches.find((t) => t.kind === "secret-read")?.argument;
}

const MAX_DEPTH = 8;
const MAX_NODES = 1000;

/** Fails closed: arguments too many or too deep to look through all count as carrying a credential. */
function credentialIn(value: unknown, at: string, depth: number, budget: { nodes: number }): string | undefined {
  if (--budget.nodes < 0) return at || "arguments";
  if (typeof value === "string") return holdsCredential(value) ? at || "arguments" : undefined;
  if (value === null || typeof value !== "object") return undefined;
  if (depth >= MAX_DEPTH) return at || "arguments";
  for (const [key, item] of Object.entries(value)) {
    const found = credentialIn(item, at ? `${at}.${key}` : key, depth + 1, budget);
    if (found !== undefined) return found;
  }
  return undefined;
}

interface CompiledRule {
  readonly rule: IrreversibleRule;
  readonly segments?: ReturnType<typeof compileArgumentPath>;
}

/** The irreversible-action rules, compiled once per policy: built-in ones less the disabled, then the operator's. */
export class IrreversibleRules {
  private readonly byTool = new Map<string, CompiledRule[]>();
  /** Each action's id and what it does. */
  readonly actions: ReadonlyMap<string, string>;

  constructor(operator: readonly IrreversibleRule[], disabled: readonly string[]) {
    const off = new Set(disabled);
    const actions = new Map<string, string>();
    for (const rule of [...BUILTIN_IRREVERSIBLE.filter((r) => !off.has(r.id)), ...operator]) {
      const list = this.byTool.get(rule.tool) ?? [];
      list.push({ rule, ...(rule.at ? { segments: compileArgumentPath(rule.at) } : {}) });
      this.byTool.set(rule.tool, list);
      if (!actions.has(rule.id)) actions.set(rule.id, rule.action);
    }
    this.actions = actions;
  }

  /** The irreversible actions one call of `tool` with these arguments takes. */
  actionsOf(tool: string, args: unknown): IrreversibleAction[] {
    const rules = this.byTool.get(tool);
    if (!rules) return [];
    const out: IrreversibleAction[] = [];
    for (const { rule, segments } of rules) {
      if (segments && rule.equals) {
        const values = valuesAt(args, segments).map((v) => String(v).trim().toLowerCase());
        if (!rule.equals.some((e) => values.includes(e.toLowerCase()))) continue;
      }
      out.push({ id: rule.id, action: rule.action });
    }
    return out;
  }
}
