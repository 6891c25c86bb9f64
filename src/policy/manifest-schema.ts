import { Type, type SchemaOptions, type Static } from "@sinclair/typebox";
import { CAPABILITY_NAME_PATTERN } from "./capabilities.ts";
import { TRUST_LEVELS } from "../taint/trust.ts";
import { TOOL_NAME_PATTERN } from "./tool-names.ts";

export function trustLevelSchema(options: SchemaOptions = {}) {
  return Type.Union(
    TRUST_LEVELS.map((level) => Type.Literal(level)),
    { description: "one of owner, verified, community, untrusted", ...options },
  );
}

export const TrustLevelSchema = trustLevelSchema();

export const RISK_LEVELS = ["low", "medium", "high", "critical"] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

/** A name pattern for families of tools, e.g. MCP tools `github__*`. Only `*` is special. */
export const TOOL_PATTERN_PATTERN = "^[a-z0-9_.*-]{1,64}$";

/**
 * The capability manifest of one tool. Built-in manifests (`manifests/*.json`) and operators'
 * own manifests (config `manifestDirs` and inline `manifests`) use this same schema.
 */
export const ManifestSchema = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    tool: Type.String({
      pattern: TOOL_NAME_PATTERN,
      description: "the tool's canonical name in lower case, e.g. exec or github__create_issue",
    }),
    aliases: Type.Optional(
      Type.Array(Type.String({ pattern: TOOL_NAME_PATTERN, description: "a lower-case tool name" }), {
        description: "other names of the same tool",
      }),
    ),
    patterns: Type.Optional(
      Type.Array(Type.String({ pattern: TOOL_PATTERN_PATTERN }), {
        description: "name patterns this manifest covers, `*` matching any run of characters (e.g. `github__*`)",
      }),
    ),
    capabilities: Type.Array(Type.String({ pattern: CAPABILITY_NAME_PATTERN, description: "a capability name like proc:exec or message:send" }), {
      description: "what the tool can do, from the capability table (e.g. proc:exec, fs:write)",
    }),
    riskLevel: Type.Union(
      RISK_LEVELS.map((level) => Type.Literal(level)),
      { description: "one of low, medium, high, critical" },
    ),
    minInputTrust: TrustLevelSchema,
    outputTrust: TrustLevelSchema,
    description: Type.String({ minLength: 1 }),
    meta: Type.Optional(
      Type.Boolean({
        description: "a meta tool (tool_call, tool_search ...): the real tool behind it is what gets checked",
      }),
    ),
  },
  { additionalProperties: false },
);

export type Manifest = Static<typeof ManifestSchema>;
