import { CommandRuleSchema } from "../policy/commands/command-rules.ts";
import { ApprovalsSchema } from "./approvals-schema.ts";
import { Type, type SchemaOptions, type Static, type TSchema } from "@sinclair/typebox";
import { BUILTIN_AREAS, CAPABILITY_NAME_PATTERN } from "../policy/capabilities.ts";
import { ARGUMENT_ROLES, capabilityNameSchema, ManifestSchema, RISK_LEVELS, trustLevelSchema, type ArgumentRole } from "../policy/manifest-schema.ts";
import { PathRuleSchema } from "../policy/path-rules.ts";
import { TOOL_NAME_PATTERN } from "../policy/tool-names.ts";
import { uiHintsFor, type UiHint } from "./ui-hints.ts";

/**
 * The operator's configuration (`plugins.entries.clawos.config`). This TypeBox schema is the single
 * source of truth: `openclaw.plugin.json`'s `configSchema` and `uiHints` are generated from it
 * (`npm run gen:plugin-json`) and a unit test fails when they drift apart.
 * `title` becomes the UI label and `description` the help text of each field.
 */

export const MODES = ["enforce", "audit", "off"] as const;

function modeSchema(options: SchemaOptions = {}) {
  return Type.Union(
    MODES.map((mode) => Type.Literal(mode)),
    { description: "one of enforce, audit, off", ...options },
  );
}

const CapabilityName = capabilityNameSchema();

/** An operator's own capability name: `area:verb` in an area no built-in capability uses. */
const CUSTOM_CAPABILITY_PATTERN = `^(?!(${BUILTIN_AREAS.join("|")}):)${CAPABILITY_NAME_PATTERN.slice(1)}`;

/** What a value that entered through no input counts as, per argument role (docs/provenance.md). */
export const UNKNOWN_DEFAULTS: Readonly<Record<ArgumentRole, "tainted" | "allow" | "new-files">> = {
  path: "new-files",
  patch: "new-files",
  command: "tainted",
  url: "tainted",
  host: "tainted",
  recipient: "tainted",
  account: "tainted",
  amount: "tainted",
  id: "tainted",
  "target-session": "tainted",
  content: "allow",
  runtime: "tainted",
};

export const ConfigSchema = Type.Object(
  {
    layers: Type.Object(
      {
        tagging: Type.Boolean({
          default: true,
          title: "Input trust tagging (L1)",
          description: "Track the trust of everything that enters a session. Turning it off leaves every session at owner trust.",
        }),
        capabilities: Type.Boolean({
          default: true,
          title: "Capability control (L2)",
          description: "Check each tool call against its manifest and the session's input trust.",
        }),
      },
      { default: {}, additionalProperties: false, title: "Layers" },
    ),
    capabilities: Type.Object(
      {
        mode: modeSchema({
          default: "audit",
          title: "Mode",
          description: "enforce blocks, audit allows and records would-blocks (roll out here first), off skips L2",
        }),
        defaultAllow: Type.Boolean({
          default: true,
          title: "Allow tools without a manifest",
          description: "Whether a tool with no capability manifest is allowed (it is recorded as unmanifested either way).",
        }),
        overrides: Type.Record(Type.String({ pattern: TOOL_NAME_PATTERN }), modeSchema(), {
          default: {},
          title: "Per-tool mode",
          description: 'Mode for single tools, e.g. { "exec": "enforce", "web_fetch": "audit" }.',
        }),
        deny: Type.Array(CapabilityName, {
          default: [],
          title: "Denied capabilities",
          description: 'Capabilities blocked for every session whatever its trust, e.g. ["net:publish"].',
        }),
        agents: Type.Record(
          Type.String({ minLength: 1 }),
          Type.Object(
            { deny: Type.Array(CapabilityName, { default: [], description: "capabilities blocked for this agent whatever its trust" }) },
            { additionalProperties: false },
          ),
          {
            default: {},
            title: "Per-agent denials",
            description: 'Capabilities blocked for one agent, e.g. { "support": { "deny": ["proc:exec"] } }.',
          },
        ),
        custom: Type.Record(
          Type.String({ pattern: CUSTOM_CAPABILITY_PATTERN }),
          Type.Object(
            {
              minInputTrust: trustLevelSchema({ title: "Trust floor", description: "the lowest session input trust at which a call carrying it is allowed" }),
              riskLevel: Type.Union(
                RISK_LEVELS.map((level) => Type.Literal(level)),
                { title: "Risk", description: "one of low, medium, high, critical" },
              ),
              description: Type.Optional(Type.String({ minLength: 1, title: "Description", description: "what a tool with it can do" })),
            },
            { additionalProperties: false },
          ),
          {
            default: {},
            additionalProperties: false,
            title: "Operator capabilities",
            description:
              'Capabilities of your own for your manifests, in an area of their own, e.g. { "crm:write": { "minInputTrust": "verified", "riskLevel": "high" } }. A capability in no table needs owner.',
          },
        ),
      },
      { default: {}, additionalProperties: false, title: "Capability control" },
    ),
    unknownRequesterTrust: trustLevelSchema({
      default: "community",
      title: "Trust of an unproven requester",
      description: "Input trust of a turn whose sender the host could not identify.",
    }),
    trustedSenders: Type.Array(
      Type.Object(
        {
          channel: Type.String({ minLength: 1, description: "channel id, e.g. telegram" }),
          senderId: Type.String({ minLength: 1, description: "the channel's sender id" }),
        },
        { additionalProperties: false },
      ),
      {
        default: [],
        title: "Verified senders",
        description: "Senders whose messages count as verified (not owner): [{ channel, senderId }].",
      },
    ),
    subagent: Type.Object(
      {
        maxTrust: trustLevelSchema({
          default: "verified",
          title: "Sub-agent trust ceiling",
          description: "A sub-agent starts at the lower of its parent's trust at spawn and this level.",
        }),
        denyCapabilities: Type.Array(CapabilityName, {
          default: ["system:admin", "schedule:write", "secrets:read"],
          title: "Capabilities denied to sub-agents",
          description: "Blocked in sub-agent sessions whatever their trust.",
        }),
      },
      { default: {}, additionalProperties: false, title: "Sub-agents" },
    ),
    manifestDirs: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      title: "Manifest directories",
      description: "Directories of extra manifest JSON files (one tool per file) for plugin and MCP tools.",
    }),
    manifests: Type.Array(ManifestSchema, {
      default: [],
      title: "Inline manifests",
      description: "Extra manifests written inline; they replace a built-in manifest of the same tool.",
    }),
    paths: Type.Object(
      {
        rules: Type.Array(PathRuleSchema, {
          default: [],
          title: "Path rules",
          description:
            'Extra path rules, checked before the built-in ones (first match wins): [{ "pattern": "{home}/vault/**", "zone": "secret", "label": "my vault" }]. Zones: secret, protected, open.',
        }),
        workspaceOnly: Type.Boolean({
          default: false,
          title: "Writes only in the workspace",
          description: "Block file writes outside the agent's workspace (and paths.writable) at any trust.",
        }),
        writable: Type.Array(Type.String({ minLength: 1 }), {
          default: [],
          title: "Writable outside the workspace",
          description: 'Globs writable outside the workspace when workspaceOnly is on, e.g. ["/tmp/**"].',
        }),
      },
      { default: {}, additionalProperties: false, title: "Paths" },
    ),
    commands: Type.Object(
      {
        rules: Type.Array(CommandRuleSchema, {
          default: [],
          maxItems: 1024,
          title: "Command rules",
          description:
            'Allow, deny or name shell command prefixes for exec, e.g. { "prefix": "npm test", "effect": "allow", "trust": "community" } or { "prefix": "./deploy.sh", "irreversible": "deploy" }; * matches one argument.',
        }),
      },
      { default: {}, additionalProperties: false, title: "Commands" },
    ),
    provenance: Type.Object(
      {
        enabled: Type.Boolean({
          default: true,
          title: "Provenance-aware decisions",
          description:
            "Decide a call whose tool needs more trust than the session has by where its recipients, URLs, paths and ids came from; off: every such call blocks.",
        }),
        maxValuesPerSession: Type.Integer({
          default: 1024,
          minimum: 16,
          maximum: 65536,
          title: "Values remembered per session",
          description: "Distinct values (addresses, URLs, paths, ids) remembered per session, with the trust of the input they came from.",
        }),
        systemConfig: Type.Boolean({
          default: true,
          title: "The host's configuration is the owner's",
          description:
            "The administrator's own configuration below /etc (servers', the service manager's, the scheduler's, package sources, kernel and mount settings: nginx.conf, a unit's drop-in), when root owns the file and nobody else may write it, counts as owner input when read; off: it counts as untrusted like any file outside the trusted paths.",
        }),
        scanBytes: Type.Integer({
          default: 262144,
          minimum: 1024,
          maximum: 67108864,
          title: "Characters read per input",
          description:
            "How much of one message or tool result is read for values (256 KB keeps observing even a 1 MB result near 2 ms); a value beyond it is unknown, and an unknown recipient, URL or id blocks.",
        }),
        unknown: Type.Object(
          Object.fromEntries(
            ARGUMENT_ROLES.map((role) => [
              role,
              Type.Union([Type.Literal("tainted"), Type.Literal("allow"), Type.Literal("new-files")], {
                default: UNKNOWN_DEFAULTS[role],
                description: `a ${role} argument seen in no input: tainted (blocks), allow, or new-files (paths: a file that does not exist yet may be created)`,
              }),
            ]),
          ),
          {
            default: {},
            additionalProperties: false,
            title: "Unknown values",
            description: "What an argument value that entered through no input (the model made it up) counts as, per role.",
          },
        ),
        trustedPaths: Type.Array(Type.String({ minLength: 1 }), {
          default: ["{workspace}/**"],
          title: "Trusted paths",
          description:
            "Globs whose files count as owner input unless ClawOS saw a less-trusted write to them (the agent's workspace by default; add the owner's repositories, e.g. \"{home}/src/**\").",
        }),
        untrustedPaths: Type.Array(Type.String({ minLength: 1 }), {
          default: ["**/node_modules/**", "**/vendor/**", "**/.venv/**", "**/venv/**", "**/site-packages/**", "**/bower_components/**", "**/Pods/**"],
          title: "Untrusted inside trusted paths",
          description:
            "Globs inside trusted paths whose files came from elsewhere (installed dependencies): reading them counts as untrusted unless ClawOS saw the owner write them; a build runs what an install put there as code that install chose.",
        }),
        autoloadedPaths: Type.Array(Type.String({ minLength: 1 }), {
          default: [],
          title: "Files programs load by themselves",
          description:
            "Globs, besides the built-in list (memory notes, agent instructions, CI, package and build files, tests), of files a program loads or runs without the agent reading them: a session below a tool's floor never creates one under a made-up path.",
        }),
        maxFileLabels: Type.Integer({
          default: 20000,
          minimum: 100,
          maximum: 1000000,
          title: "File labels kept",
          description: "How many written files ClawOS remembers the trust of; past it, trusted paths stop counting as owner until a restart clears it.",
        }),
      },
      { default: {}, additionalProperties: false, title: "Provenance" },
    ),
    approvals: ApprovalsSchema,
    audit: Type.Object(
      {
        file: Type.Optional(
          Type.String({
            minLength: 1,
            title: "Audit log file",
            description: "JSON-lines audit log. Default: clawos/audit.jsonl in the OpenClaw state directory.",
          }),
        ),
        recent: Type.Integer({
          default: 200,
          minimum: 1,
          maximum: 10000,
          title: "Recent decisions kept",
          description: "How many recent decisions /clawos audit can show.",
        }),
      },
      { default: {}, additionalProperties: false, title: "Audit log" },
    ),
    state: Type.Object(
      {
        dir: Type.Optional(
          Type.String({
            minLength: 1,
            title: "State directory",
            description: "Where session trust is kept across restarts. Default: clawos/sessions in the OpenClaw state directory.",
          }),
        ),
        maxSessions: Type.Integer({
          default: 100000,
          minimum: 1,
          maximum: 10000000,
          title: "Sessions kept in memory",
          description: "Upper bound of sessions held in memory; older ones are reloaded from disk when they return.",
        }),
        maxSourcesPerSession: Type.Integer({
          default: 2,
          minimum: 1,
          maximum: 1000,
          title: "Taint sources kept per session",
          description: "The inputs that lowered a session's trust are always kept; this bounds the other recorded sources.",
        }),
      },
      { default: {}, additionalProperties: false, title: "Session state" },
    ),
  },
  { additionalProperties: false },
);

export type ClawosConfig = Static<typeof ConfigSchema>;
export type CapabilityMode = ClawosConfig["capabilities"]["mode"];

export type { UiHint };

/** The Control UI's hint for every config field: label, help, tier (see `ui-hints.ts`). */
export function buildUiHints(schema: TSchema = ConfigSchema): Record<string, UiHint> {
  return uiHintsFor(JSON.parse(JSON.stringify(schema)));
}

/**
 * The JSON Schema written into openclaw.plugin.json: the TypeBox schema without its symbols, and
 * without `required` for fields that have a default. Newer hosts apply defaults before they
 * validate; older ones (2026.1.x) validate the raw config, where a missing defaulted field is fine
 * because ClawOS applies the defaults itself.
 */
export function configJsonSchema(): Record<string, unknown> {
  return relaxDefaulted(JSON.parse(JSON.stringify(ConfigSchema))) as Record<string, unknown>;
}

function relaxDefaulted(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(relaxDefaulted);
  if (!node || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = relaxDefaulted(value);
  const properties = out.properties as Record<string, { default?: unknown }> | undefined;
  if (properties && Array.isArray(out.required)) {
    const required = (out.required as string[]).filter((name) => !(properties[name] && "default" in properties[name]));
    if (required.length) out.required = required;
    else delete out.required;
  }
  return out;
}
