import { Type, type SchemaOptions, type Static } from "@sinclair/typebox";
import { BUILTIN_AREAS, CAPABILITY_NAME_PATTERN, CAPABILITY_NAMES, PATH_EFFECTS } from "./capabilities.ts";
import { TRUST_LEVELS } from "../taint/trust.ts";
import { TOOL_NAME_PATTERN } from "./tool-names.ts";

export function trustLevelSchema(options: SchemaOptions = {}) {
  return Type.Union(
    TRUST_LEVELS.map((level) => Type.Literal(level)),
    { description: "one of owner, verified, community, untrusted", ...options },
  );
}

export const TrustLevelSchema = trustLevelSchema();

/**
 * A capability name. Besides the `area:verb` pattern, the JSON Schema written into
 * openclaw.plugin.json says, per built-in area, which names exist there: the host's own config
 * check (`openclaw config validate`) then rejects `proc:exex` and lists the names of its area
 * (`proc:exec`, `proc:manage`).
 * A name in another area (an operator's own, `crm:write`) passes the schema; ClawOS's config check
 * and manifest loader report it unless `capabilities.custom` defines it. TypeBox's checker ignores
 * the `allOf` (it checks the pattern), so the loaders give their own words for the same rule.
 */
export function capabilityNameSchema(options: SchemaOptions = {}) {
  return Type.String({
    pattern: CAPABILITY_NAME_PATTERN,
    description: "a capability name like proc:exec or message:send",
    // `if not in area, else one of the area's names`: the host's checker reports a failed `else`
    // enum with its allowed values (a failed `then` only as "must match then schema").
    allOf: BUILTIN_AREAS.map((area) => ({
      if: { pattern: `^(?!${area}:)` },
      else: { enum: CAPABILITY_NAMES.filter((name) => name.startsWith(`${area}:`)) },
    })),
    ...options,
  });
}

export const RISK_LEVELS = ["low", "medium", "high", "critical"] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

/** A name pattern for families of tools, e.g. MCP tools `github__*`. Only `*` is special. */
export const TOOL_PATTERN_PATTERN = "^[a-z0-9_.*-]{1,64}$";

/**
 * What an argument means to the world. `path` arguments are resolved the way the host resolves
 * them and checked against the path rules; `patch` is patch text whose file headers name paths.
 * The other roles name what later decisions read (recipients, hosts, commands ...).
 */
export const ARGUMENT_ROLES = [
  "path",
  "patch",
  "command",
  "url",
  "host",
  "recipient",
  "account",
  "amount",
  "id",
  "target-session",
  "content",
  "runtime",
] as const;
export type ArgumentRole = (typeof ARGUMENT_ROLES)[number];

/** A dotted path into the params (`edits.*.path`, `*` for every item or key) or a JSON pointer (`/edits/0/path`). */
export const ARGUMENT_PATH_PATTERN = "^(/([^/~]|~[01])*)+$|^[A-Za-z0-9_$@*-]+(\\.[A-Za-z0-9_$@*-]+)*$";

export const ArgumentSchema = Type.Object(
  {
    at: Type.String({
      pattern: ARGUMENT_PATH_PATTERN,
      description:
        "where the argument sits in the params: a dotted path like edits.*.path or a JSON pointer like /path; @derivedPaths is the paths the host derived from the call",
    }),
    role: Type.Union(
      ARGUMENT_ROLES.map((role) => Type.Literal(role)),
      { description: `one of ${ARGUMENT_ROLES.join(", ")}` },
    ),
    access: Type.Optional(Type.Union([Type.Literal("read"), Type.Literal("write")], { description: "for path and patch arguments: read or write" })),
    contents: Type.Optional(
      Type.Literal("call", {
        description:
          "with access write: what the call writes there is the call's own arguments (write's content, edit's new text, a patch), so the file carries the trust of the session that wrote it. Without it, what lands there comes from elsewhere (a download, a screenshot, a file another service sends) and is labelled untrusted",
      }),
    ),
    tainted: Type.Optional(
      Type.Union([Type.Literal("block"), Type.Literal("copied")], {
        description:
          "what a value that came only from less-trusted input does: block (the default), or copied: allowed when the whole value was copied from one input as it stood (a link from search results), so it carries nothing the session put together; a value assembled around a seen host or path still blocks. Only for arguments whose call sends nothing else (a plain fetch, a document read); never on a path the call writes.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type ArgumentSpec = Static<typeof ArgumentSchema>;

const ModeValue = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);

/**
 * How a call's output trust is found: `declared` is the manifest's `outputTrust`; `paths` is the
 * trust of the files the call reads (what ClawOS saw written to them, trusted paths at owner, other
 * paths at `outputTrust`); `command` is what the shell command reads, by the command rules;
 * `process` is the output of a background command the same session started, named by the call's
 * `id` argument: that command's trust (`outputTrust` for any other id); `call` is a result that only
 * repeats what the call was given (a speech tool's "(spoken) <text>"): the trust the call was made
 * at, with nothing new in it to remember (`outputTrust` when the call failed: its error text is not
 * the call's own).
 */
export const OUTPUT_SOURCES = ["declared", "paths", "command", "process", "call", "cited"] as const;
export type OutputSource = (typeof OUTPUT_SOURCES)[number];

/**
 * An argument (or a host setting) that selects a more powerful mode of the tool: when it holds,
 * the call is decided with the mode's capabilities added and at its trust, never lower. A
 * `readOnly` mode is the one exception: an action that only reads (a poll, a snapshot) is decided
 * with its own capabilities, under the narrow conditions `readOnly` describes.
 */
export const ModeSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, description: "what the mode is, e.g. an external ACP harness" }),
    when: Type.Object(
      {
        argument: Type.Optional(Type.String({ pattern: ARGUMENT_PATH_PATTERN, description: "a dotted path or JSON pointer into the params" })),
        host: Type.Optional(Type.String({ minLength: 1, description: "a host setting ClawOS reads, e.g. codeMode.executor" })),
        alsoArgument: Type.Optional(Type.String({ pattern: ARGUMENT_PATH_PATTERN, description: "a second argument that must also match (alsoEquals)" })),
        alsoEquals: Type.Optional(Type.Array(ModeValue, { description: "with alsoArgument: its value must be one of these" })),
        hostEquals: Type.Optional(
          Type.Array(ModeValue, {
            description: "with both argument and host: the host setting must be one of these (the value conditions apply to the argument)",
          }),
        ),
        equals: Type.Optional(Type.Array(ModeValue, { description: "the mode holds when the value is one of these (strings compared without case)" })),
        notEquals: Type.Optional(Type.Array(ModeValue, { description: "the mode holds when the value is none of these (a missing value too)" })),
        present: Type.Optional(Type.Boolean({ description: "the mode holds when the value is set (not false, null or empty)" })),
      },
      {
        additionalProperties: false,
        description: "an argument or a host setting and the conditions on its value; with both, the host setting must be one of hostEquals",
      },
    ),
    capabilities: Type.Array(capabilityNameSchema(), { description: "capabilities the mode adds" }),
    riskLevel: Type.Optional(
      Type.Union(
        RISK_LEVELS.map((level) => Type.Literal(level)),
        { description: "the risk of the tool in this mode: one of low, medium, high, critical" },
      ),
    ),
    minInputTrust: Type.Optional(trustLevelSchema({ description: "the input trust the mode needs (at least its capabilities' floors)" })),
    readOnly: Type.Optional(
      Type.Boolean({
        description:
          "the call only reads in this mode (a poll, a snapshot, a config read): it is decided with the mode's capabilities and trust instead of the tool's. It holds only when every value of its argument matches and the call sets no argument that names where it acts (a url, host, recipient, account, amount, command, runtime, target session or a path it writes); modes that add still add",
      }),
    ),
    reads: Type.Optional(
      Type.Array(Type.String({ pattern: ARGUMENT_PATH_PATTERN }), {
        description:
          "with readOnly: arguments (as the manifest's arguments name them) that in this mode name what the call reads, a conversation or a member, not where it acts; setting them does not stop the mode from holding",
      }),
    ),
    requester: Type.Optional(
      trustLevelSchema({
        description:
          "with readOnly: the mode holds only on a turn whose requester has at least this trust, because what the call reads reaches the requester in the reply; other turns are decided as the tool",
      }),
    ),
    decisions: Type.Optional(
      Type.Boolean({
        description:
          "not with readOnly: while the mode holds for every value of its argument, a call below the trust it needs is decided by where its arguments came from (provenance.decisions for this mode only), e.g. stopping a process by an id only the owner's session could have got",
      }),
    ),
    output: Type.Optional(
      Type.Union(
        OUTPUT_SOURCES.map((source) => Type.Literal(source)),
        {
          description: `while the mode holds for every value of its argument, how the output's trust is found (provenance.output for this mode only: ${OUTPUT_SOURCES.join(", ")}), e.g. call for an action whose result only repeats the job it was given`,
        },
      ),
    ),
    quotes: Type.Optional(
      Type.Array(Type.String({ pattern: ARGUMENT_PATH_PATTERN, description: "a dotted path or JSON pointer into the result, like jobs.*.lastRunError" }), {
        minItems: 1,
        description:
          "with output call: fields of the result that can hold text from outside (a run's error, a delivery's error). The mode's output holds only for a whole result in which every one is empty; otherwise, or when the result cannot be read whole, the output counts as the manifest's outputTrust",
      }),
    ),
    hostText: Type.Optional(
      Type.Array(
        Type.String({
          minLength: 1,
          maxLength: 200,
          description: "a regular expression the whole value must match, like heartbeat skipped: [a-z][a-z0-9-]{0,39}",
        }),
        {
          minItems: 1,
          description:
            "with quotes: what the host itself writes into those fields from a fixed vocabulary (a skipped heartbeat's reason code), never text from outside. A field holding only such a text counts as empty. Name nothing that can carry a message, a name or an error's own words",
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type ModeSpec = Static<typeof ModeSchema>;

/**
 * Roles whose value is a name a person could have given (not a path, a command or free text): a call
 * made while the session was at owner makes the values it names in them the owner's (L1).
 */
export const NAMED_VALUE_ROLES: readonly ArgumentRole[] = ["recipient", "url", "host", "account", "id", "target-session"];

/** Roles whose value says where a call acts (with a path it writes): a call that sets one is not a plain read (`readOnly` modes). */
export const ACTING_ROLES: readonly ArgumentRole[] = ["url", "host", "recipient", "account", "amount", "command", "runtime", "target-session", "patch"];

/** Roles whose value decides where a call acts: a provenance decision checks where each came from. */
export const DECISION_ROLES: readonly ArgumentRole[] = ARGUMENT_ROLES.filter((role) => role !== "content");

/**
 * Identifiers in a lookup's result that name the owner's own things: the provider's ids, the owner's
 * own accounts, the numbers and addresses on the owner's address-book cards. They count as input at
 * the trust of the call that made the lookup (the one who chose it), up to `trust`; the rest of
 * the result keeps the output's trust.
 */
export const SelectSchema = Type.Object(
  {
    at: Type.String({
      pattern: ARGUMENT_PATH_PATTERN,
      description:
        "where the identifiers sit in the result's structured content (an MCP tool's structuredContent, a tool's details, or a result whose text is JSON): a dotted path like contacts.*.phones or a JSON pointer. Identifiers only: never free text (names, notes, bodies, subjects)",
    }),
    trust: trustLevelSchema({
      description:
        "the most these values can count as: the trust of the call that made the lookup, up to this (the provider's ids of things anyone can send the owner: verified). owner: values nobody but the owner can put there (the owner's own accounts), which count as the owner's whoever made the lookup",
    }),
    anyWord: Type.Optional(
      Type.Boolean({
        description:
          "with namedBy: the naming fields are the owner's own words (a job only the owner could add), so any word of a person's message names an entry there, not only one written as a name (capitalised, an identifier, an address): \"remove the timesheet reminder\". Leave it out where anyone can set the field (a sender's name, a card, a shared file, an invitation)",
      }),
    ),
    namedBy: Type.Optional(
      Type.Array(Type.String({ pattern: ARGUMENT_PATH_PATTERN, description: "a dotted path or JSON pointer into the result, like messages.*.from" }), {
        minItems: 1,
        description:
          "fields of the same entry that say whose or which it is (a message's sender, a card's names, a file's name): when a person's message named the entry there (a name of three letters or more that is not a common word, or a whole address), that person picked it, so its identifiers count at the trust of that message, above `trust` (\"reply to Sofia\" picks Sofia's message). The entry is the deepest `*` the paths share",
      }),
    ),
  },
  { additionalProperties: false },
);
export type SelectSpec = Static<typeof SelectSchema>;

/** A field of an entry of the result and the values it is tested against (`CitesSchema`). */
const FieldTestSchema = Type.Object(
  {
    at: Type.String({ pattern: ARGUMENT_PATH_PATTERN, description: "a dotted path or JSON pointer into the result, like results.*.source" }),
    equals: Type.Array(Type.String(), { minItems: 1, description: "the values the field is tested against (compared exactly)" }),
  },
  { additionalProperties: false },
);

/**
 * Where a result quotes files (`output: "cited"`): a memory search's hits, each an excerpt of a
 * workspace file. The output has the trust of the files it quotes, each read as `read` would take
 * it, when every entry names one file, passes its tests, and its excerpt is in that file as it is
 * now; otherwise it counts as `outputTrust`.
 */
export const CitesSchema = Type.Object(
  {
    path: Type.String({
      pattern: ARGUMENT_PATH_PATTERN,
      description:
        "where each entry names the file it quotes, a path resolved as the host resolves the tool's own paths (relative to the agent's workspace): results.*.path. The entry is the deepest `*` this path, quote and the tests share",
    }),
    quote: Type.String({
      pattern: ARGUMENT_PATH_PATTERN,
      description:
        "where each entry holds its excerpt of that file: results.*.snippet. The excerpt must be in the file as it is now (an index may be older than the file)",
    }),
    where: Type.Optional(
      Type.Array(FieldTestSchema, {
        description: "fields every entry must hold one of the values in (a hit from the memory files, not a session transcript: results.*.source is memory)",
      }),
    ),
    unless: Type.Optional(
      Type.Array(FieldTestSchema, {
        description: "fields no entry may hold one of the values in (the host's own provenance saying untrusted)",
      }),
    ),
  },
  {
    additionalProperties: false,
    description: "with output cited: where the result names the files it quotes, and the tests its entries must pass",
  },
);
export type CitesSpec = Static<typeof CitesSchema>;

export const ProvenanceSchema = Type.Object(
  {
    decisions: Type.Optional(
      Type.Boolean({
        description:
          "allow a call below the tool's trust floor when every argument that decides where it acts came from input at that trust (default: true when the manifest names such an argument; false for tools where free text is itself the danger, like exec)",
      }),
    ),
    output: Type.Optional(
      Type.Union(
        OUTPUT_SOURCES.map((source) => Type.Literal(source)),
        { description: `how the output's trust is found: ${OUTPUT_SOURCES.join(", ")} (default declared)` },
      ),
    ),
    chosenBy: Type.Optional(
      Type.Array(Type.String({ pattern: ARGUMENT_PATH_PATTERN, description: "a dotted path or JSON pointer into the params" }), {
        description:
          "the arguments that say what a lookup looks for (its query): when every value in them came from input at trust T, the lookup counts as made at T for selects, even after the session dropped (the owner's \"tell Jamie\" makes a search for Jamie the owner's)",
      }),
    ),
    selects: Type.Optional(
      Type.Array(SelectSchema, {
        description:
          "identifiers in the result that name the owner's own things (an address-book card's number, the provider's message or event id, the owner's own account): they count as input at the trust of the call that made the lookup, up to each entry's trust, so a lookup made at owner lets later calls use what it found",
      }),
    ),
    cites: Type.Optional(CitesSchema),
  },
  { additionalProperties: false, description: "how provenance decides this tool's calls and finds its output's trust (docs/provenance.md)" },
);
export type ProvenanceSpec = Static<typeof ProvenanceSchema>;

/**
 * The capability manifest of one tool. Built-in manifests (`manifests/*.json`) and operators'
 * own manifests (config `manifestDirs` and inline `manifests`) use this same schema.
 */
export const ManifestSchema = Type.Object(
  {
    $schema: Type.Optional(Type.String({ description: "a JSON Schema reference for editors; ignored" })),
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
    capabilities: Type.Array(capabilityNameSchema(), {
      description: "what the tool can do, from the capability table (e.g. proc:exec, fs:write)",
    }),
    riskLevel: Type.Union(
      RISK_LEVELS.map((level) => Type.Literal(level)),
      { description: "one of low, medium, high, critical" },
    ),
    minInputTrust: TrustLevelSchema,
    outputTrust: TrustLevelSchema,
    description: Type.String({ minLength: 1, description: "what the tool does, in words (shown by /clawos manifests)" }),
    arguments: Type.Optional(Type.Array(ArgumentSchema, { description: "the arguments that decide what the call does to the world, each with its role" })),
    modes: Type.Optional(Type.Array(ModeSchema, { description: "arguments or host settings that select a more powerful mode of the tool" })),
    environment: Type.Optional(
      Type.Array(Type.String({ pattern: ARGUMENT_PATH_PATTERN, description: "a dotted path or JSON pointer into the params" }), {
        description:
          "arguments that set environment variables for the command the call runs (exec's env), as an object of names and values: a name the command rules do not list in safeEnvironment keeps the command from being read-only",
      }),
    ),
    provenance: Type.Optional(ProvenanceSchema),
    pathChanges: Type.Optional(
      Type.Union(
        PATH_EFFECTS.map((effect) => Type.Literal(effect)),
        {
          description:
            "what a call of the tool can do to which file a path reaches, when that is less than its capabilities say: none (it reads, or rewrites a file's contents through its path, as OpenClaw's write and edit do), running (it may rename, delete or link files until its result), lasting (after it too). Saying less than the tool does lets ClawOS reuse a path's old real path for up to a second after the call",
        },
      ),
    ),
    meta: Type.Optional(
      Type.Boolean({
        description: "a meta tool (tool_call, tool_search ...): the real tool behind it is what gets checked",
      }),
    ),
  },
  { additionalProperties: false },
);

export type Manifest = Static<typeof ManifestSchema>;
