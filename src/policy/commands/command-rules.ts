import { Type, type Static } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { describeErrors } from "../../config/validation.ts";
import { trustLevelSchema } from "../manifest-schema.ts";
import type { TrustLevel } from "../../taint/trust.ts";
import { BUILTIN_COMMAND_RULES, BUILTIN_PROGRAMS, BUILTIN_SAFE_ENVIRONMENT } from "./builtin-programs.ts";

/**
 * Command rules and the program table: data, checked by the schemas here.
 *
 * A command rule matches the argv of each simple command the shell would run (wrappers such as
 * `env`, `nice`, `timeout`, `xargs` removed; a program's global options before its subcommand, like
 * `git -C dir`, removed), token by token from the start: `git push` matches `git push origin main`
 * but not `git pushx`; `*` matches any one token. Operators' rules (config `commands.rules`) come
 * first, then the built-in ones (`builtin-programs.ts`); every matching rule is reported, in that
 * order.
 *
 *   allow   commands it matches may run from `trust` up (default owner)
 *   deny    commands it matches are blocked at `trust` and below (default owner: always)
 *   (none)  the rule only names an irreversible action or labels the command
 */

export const COMMAND_RULE_EFFECTS = ["allow", "deny"] as const;
export type CommandRuleEffect = (typeof COMMAND_RULE_EFFECTS)[number];

/** Tokens separated by white space; no token is empty. */
export const COMMAND_PREFIX_PATTERN = "^\\s*[^\\s]+(\\s+[^\\s]+)*\\s*$";
export const COMMAND_RULE_ID_PATTERN = "^[A-Za-z0-9_.:-]{1,64}$";

export const CommandRuleSchema = Type.Object(
  {
    id: Type.Optional(
      Type.String({
        pattern: COMMAND_RULE_ID_PATTERN,
        description: "a short name for decisions and the audit log, like allow-tests (letters, digits, _ . : -)",
      }),
    ),
    prefix: Type.String({
      pattern: COMMAND_PREFIX_PATTERN,
      maxLength: 512,
      description: 'a program and its leading arguments separated by spaces, like "git push" or "npm run *" (* matches any one argument)',
    }),
    effect: Type.Optional(
      Type.Union(
        COMMAND_RULE_EFFECTS.map((effect) => Type.Literal(effect)),
        { description: "allow (may run from trust up) or deny (blocked at trust and below)" },
      ),
    ),
    trust: Type.Optional(
      trustLevelSchema({
        description:
          "one of owner, verified, community, untrusted: for allow, the lowest trust at which matching commands may run; for deny, the highest trust at which they are blocked (default owner)",
      }),
    ),
    withAny: Type.Optional(
      Type.Array(Type.String({ pattern: "^[^\\s]+$", maxLength: 256, description: "one argument, no spaces" }), {
        minItems: 1,
        maxItems: 64,
        description:
          "the rule also needs one of these arguments somewhere after the prefix; a one-letter flag like -f also matches inside -fu; for a rule that does not allow, --flag also matches --flag=value and its shortened forms",
      }),
    ),
    withPrefix: Type.Optional(
      Type.Array(Type.String({ pattern: "^[^\\s]+$", maxLength: 64, description: "the start of an argument, no spaces" }), {
        minItems: 1,
        maxItems: 16,
        description: "the rule also matches when an argument after the prefix starts with one of these (with more after it), like git's forced refspec +main",
      }),
    ),
    irreversible: Type.Optional(
      Type.String({ minLength: 1, maxLength: 120, description: 'the irreversible action a matching command takes, in words, like "publish a package"' }),
    ),
    label: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "what the rule is for, in words" })),
  },
  { additionalProperties: false },
);
export type CommandRule = Static<typeof CommandRuleSchema>;

const MAX_RULES = 1024;
export const CommandRulesSchema = Type.Array(CommandRuleSchema, { maxItems: MAX_RULES });

// ---- the program table ------------------------------------------------------------------------

/**
 * What kind of program: `read` programs are read-only when their flags and operands are; every other
 * kind keeps the command from being read-only, with a reason made from the kind.
 */
export const PROGRAM_KINDS = [
  "read",
  "build",
  "write",
  "destructive",
  "network",
  "install",
  "interpreter",
  "shell",
  "system",
  "privilege",
  "wrapper",
  "dynamic",
] as const;
export type ProgramKind = (typeof PROGRAM_KINDS)[number];

/** Parsers in `classify.ts` for programs whose arguments need their own grammar. */
export const PROGRAM_HANDLERS = [
  "git",
  "find",
  "sed",
  "awk",
  "jq",
  "curl",
  "wget",
  "tar",
  "unzip",
  "sevenzip",
  "copy",
  "dd",
  "chmod",
  "remote-copy",
  "ssh",
  "shell",
  "python",
  "pip-install",
  "clone",
  "cd",
  "popd",
  "eval",
  "source",
  "assign",
  "setvar",
  "compress",
  "git-config",
  "redis",
  "psql",
  "dig",
  "aws",
] as const;
export type ProgramHandler = (typeof PROGRAM_HANDLERS)[number];

/**
 * How a program's operands (the arguments that are not flags) are read:
 *   paths              each is a file or directory the program reads
 *   strings            none is a path (echo, printf, tr, basename)
 *   pattern-then-paths the first is a pattern (unless a pattern flag gave one), the rest are read
 *   forbidden          any operand changes something (git branch NAME, hostname NAME)
 *   in-out             the first is read, the second written (uniq, xxd)
 *   writes             each is written (touch, rm, mkdir)
 *   first-then-writes  the first is a mode or owner, the rest are written (chmod, chown)
 *   written-then-paths the first is written from the rest, which are read (zip out.zip dir)
 *   format             each must start with + (date +%s); anything else sets something
 */
export const OPERAND_KINDS = [
  "paths",
  "strings",
  "pattern-then-paths",
  "forbidden",
  "in-out",
  "writes",
  "first-then-writes",
  "written-then-paths",
  "format",
] as const;
export type OperandKind = (typeof OPERAND_KINDS)[number];

const flagList = (description: string) =>
  Type.Optional(Type.Array(Type.String({ pattern: "^-{1,2}[^\\s=]+$|^\\+[^\\s]+$", description: "a flag like -o or --output" }), { description }));

/** Fields shared by a program and its subcommands. */
const behaviourFields = {
  kind: Type.Union(
    PROGRAM_KINDS.map((kind) => Type.Literal(kind)),
    { description: `one of ${PROGRAM_KINDS.join(", ")}` },
  ),
  why: Type.Optional(Type.String({ minLength: 1, description: "why the program is not read-only, in words (default: made from the kind)" })),
  handler: Type.Optional(
    Type.Union(
      PROGRAM_HANDLERS.map((handler) => Type.Literal(handler)),
      { description: "a parser for arguments that need their own grammar" },
    ),
  ),
  operands: Type.Optional(
    Type.Union(
      OPERAND_KINDS.map((kind) => Type.Literal(kind)),
      { description: `one of ${OPERAND_KINDS.join(", ")} (default: paths for read programs, writes for write and destructive ones, strings otherwise)` },
    ),
  ),
  implicit: Type.Optional(Type.Literal(".", { description: "the program reads its working directory when given no path operand" })),
  recursiveFlags: flagList("with implicit: the working directory is read only when one of these is given (grep -r)"),
  followFlags: flagList("flags that make the program read what the symlinks below a directory it reads point to (grep -R, rg -L)"),
  patternFlags: flagList("with pattern-then-paths: flags that give the pattern, so the first operand is a path"),
  valueFlags: flagList("flags that take a value (the next argument, or attached)"),
  readFlags: flagList("flags whose value is a file the program reads"),
  writeFlags: flagList("flags whose value is a file the program writes"),
  fetchFlags: flagList("flags whose value is where the program puts what it downloads"),
  dirFlags: flagList("flags whose value is the directory the program works in (make -C, npm --prefix)"),
  execFlags: flagList("flags that make the program run another program"),
  unsafeFlags: flagList("flags that make the program change something (sed -i, find -delete)"),
  plainFlags: flagList("flags that change only how the output looks, named whole so a cluster reading cannot mistake them (ip -br is -brief, not -b -r)"),
  queryFlags: flagList(
    "flags that make a program of another kind only read (dpkg -l, rpm -q, crontab -l, iptables -L): with one of them, alone or in a cluster, and no unsafe flag, it is decided as a read",
  ),
  networkFlags: flagList("flags that make the program reach the network (pip list --outdated, gem list --remote)"),
  outsideFlags: flagList("flags that make the program act outside the working directory (npm install -g)"),
  listFlags: flagList("with forbidden operands: flags that make operands patterns to list (git branch --list)"),
  network: Type.Optional(Type.Boolean({ description: "the program reaches the network" })),
  fetches: Type.Optional(Type.String({ minLength: 1, description: "where outside content lands, relative to the working directory (node_modules)" })),
  inPlace: Type.Optional(
    Type.Boolean({
      description:
        "with writes or fetches: the program updates the work tree of the repository it runs in, from its remote (git pull) or from what the repository holds (git checkout, merge): only the files it changes are new there",
    }),
  ),
  writes: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        "a path the program writes, relative to the working directory (. for the repository); for read programs, written only when a flag or operand makes them write",
    }),
  ),
  secretOperands: Type.Optional(
    Type.Array(Type.String({ pattern: "^[A-Za-z0-9_.-]+$" }), {
      minItems: 1,
      description:
        "operands (or flag values) that make a read print secrets, compared without case, alone or as a part between commas or slashes (kubectl get secret, secrets/db, --raw /api/v1/secrets)",
    }),
  ),
  inert: Type.Optional(Type.Boolean({ description: "arguments only known at run time cannot change what the program does (echo)" })),
  runsTree: Type.Optional(
    Type.Boolean({
      description:
        "the program runs what files of its working tree say (a compose file's containers, a Dockerfile's steps, an install's scripts): a file written there below owner lowers the call, as for a build",
    }),
  ),
  hostFacts: Type.Optional(
    Type.Boolean({
      description:
        "what it prints (read-only) is the host's own report, set by its administrator (df, uptime, ufw status, nginx -t): run on another host over ssh, its output is that host's facts, not others' text",
    }),
  ),
  namesHosts: Type.Optional(
    Type.Boolean({
      description:
        "a host named by its name in the arguments (after an @, or after dst or src: lsof -i @host, ss dst host) is looked up, which sends the name to a name server: the command reaches the network",
    }),
  ),
  runsDocs: Type.Optional(
    Type.Boolean({
      description:
        "with a build or runsTree: it may also run the examples in the tree's text documents (cargo test's doc tests of an included README, pytest's --doctest-glob, a Makefile's commands), so a document written there below owner lowers the call too",
    }),
  ),
  serviceAction: Type.Optional(
    Type.Object(
      {
        units: Type.Union([Type.Literal("systemd"), Type.Literal("kubernetes"), Type.Literal("docker")], {
          description:
            "how its operands name what it acts on: systemd units (api, api.service; no targets, sockets or patterns), Kubernetes workloads (deployment/api, statefulset db), or containers",
        }),
        verb: Type.Optional(
          Type.String({
            pattern: "^[a-z]+$",
            description:
              "the word (restart, reload, start) that must be among the owner's own words for the action to run below owner; none for an action that changes nothing lasting (systemctl reset-failed)",
          }),
        ),
        alsoBy: Type.Optional(
          Type.Array(Type.String({ pattern: "^[a-z]+$" }), {
            minItems: 1,
            description: "other words of the owner that ask for the action too (restart asks for a start or a reload of what it names)",
          }),
        ),
        flags: flagList("flags it may be given; any other keeps it a command only the owner's session runs"),
        valueFlags: flagList("flags it may be given that take a value (kubectl -n)"),
      },
      {
        additionalProperties: false,
        description:
          "the program (re)starts or reloads services on this host (systemctl restart api, kubectl rollout restart deployment/api, docker restart web): below owner it may run when the owner's own words name every service it acts on and the action (the engine checks them like a call's hosts); otherwise it is a command that changes system state",
      },
    ),
  ),
  check: Type.Optional(
    Type.Object(
      {
        targets: Type.Optional(
          Type.Array(Type.String({ pattern: "^[A-Za-z0-9_.:-]+\\*?$", maxLength: 64 }), {
            minItems: 1,
            description:
              "the script, target or program it must be given, as its first operand (npm run build, make test, npx vitest) or, with targetIsSubcommand, as the subcommand word (yarn build); a trailing * matches any rest (test:*)",
          }),
        ),
        targetIsSubcommand: Type.Optional(Type.Boolean({ description: "the target is the subcommand word itself (yarn build runs the build script)" })),
        noTarget: Type.Optional(Type.Boolean({ description: "with targets: given none, it is a check too (make alone builds the default target)" })),
        flags: flagList("flags it may be given that neither load code nor change what it runs (--silent, -q, --release)"),
        valueFlags: flagList("flags it may be given whose value is a plain word, neither a path nor code (a test name filter: -t, -k, -run)"),
        operands: Type.Optional(
          Type.Union([Type.Literal("none"), Type.Literal("paths"), Type.Literal("packages")], {
            description:
              "its other operands: none; paths (test files or name filters inside the working tree: relative, no .., no URL, no assignment); packages (Go's: . or ./ paths only, never a module address it would download)",
          }),
        ),
        forwards: Type.Optional(Type.Boolean({ description: "after --, the arguments go to the script's test runner: the same flags and paths only" })),
      },
      {
        additionalProperties: false,
        description:
          "the program builds, tests or lints the project in its working tree (npm test, cargo test, go vet ./..., make test) when given only what this lists: below owner such a check may run when every tree it runs is one of the trusted paths and holds no code a session below owner wrote (the engine checks the trees); given anything else it runs like any build",
      },
    ),
  ),
  record: Type.Optional(
    Type.Object(
      {
        flags: flagList("flags it may be given that neither run code nor take in anything but the working tree (-a, -u, -q, -s, --no-verify)"),
        valueFlags: flagList("flags it may be given whose value is a plain word, neither a path nor code (a branch name: -c)"),
        textFlags: flagList("flags whose value is free text the program only stores (a commit message: -m)"),
        operands: Type.Optional(
          Type.Union([Type.Literal("none"), Type.Literal("paths"), Type.Literal("names")], {
            description:
              "its operands: none; paths (files or directories inside the working tree: relative, no .., not the whole tree, no pathspec magic); names (plain words: a new branch's name)",
          }),
        ),
      },
      {
        additionalProperties: false,
        description:
          "the program only records in the local repository what its working tree holds (git add, git commit, git switch -c) when given only what this lists: below owner such a record may be made when the repository is one of the trusted paths, its settings are the owner's, and no hook runs or every hook's tree is the owner's (the engine checks them); given anything else it changes the repository like any build",
      },
    ),
  ),
  listsOnly: Type.Optional(
    Type.Boolean({
      description:
        "a read program that shows only the names and metadata of what it is given (ls, du, find), never what files hold: a directory it reads does not bring in the files below it",
    }),
  ),
  external: Type.Optional(
    Type.Boolean({
      description:
        "a read program that reads state kept outside files the gate sees (the system journal, the service manager, the container daemon): read-only, but its output is the text of others (log lines, container output), so it counts as untrusted",
    }),
  ),
};

const nameSchema = Type.String({ pattern: "^[A-Za-z0-9_.+\\[:-]{1,64}$", description: "a program name as it is run, without a directory" });

export const SubcommandSchema = Type.Object(
  {
    names: Type.Array(
      Type.String({
        pattern: "^[A-Za-z0-9_.:-]+( [A-Za-z0-9_.:-]+){0,2}$",
        description: "a subcommand, or two or three words like remote add, gmail thread get",
      }),
      {
        minItems: 1,
      },
    ),
    ...behaviourFields,
  },
  { additionalProperties: false },
);
export type SubcommandSpec = Static<typeof SubcommandSchema>;

const BehaviourSchema = Type.Object(behaviourFields, { additionalProperties: false });
export type Behaviour = Static<typeof BehaviourSchema>;
export type ServiceActionSpec = NonNullable<Behaviour["serviceAction"]>;
export type CheckSpec = NonNullable<Behaviour["check"]>;
export type RecordSpec = NonNullable<Behaviour["record"]>;

export const WrapperSchema = Type.Object(
  {
    valueFlags: flagList("flags before the command that take a value"),
    writeFlags: flagList("flags before the command whose value is a file written (time -o)"),
    readFlags: flagList("flags before the command whose value is a file read (xargs -a)"),
    assignments: Type.Optional(Type.Boolean({ description: "NAME=value words may come before the command (env)" })),
    skip: Type.Optional(Type.Integer({ minimum: 0, maximum: 4, description: "operands before the command (timeout's duration)" })),
    alone: Type.Optional(
      Type.Union([Type.Literal("read"), Type.Literal("shell")], { description: "without a command: read-only (env, nice), or an interactive shell (sudo -s)" }),
    ),
    shellFlags: flagList("flags that run a shell (sudo -s, sudo -i)"),
    lookupFlags: flagList("flags after which the operands are only looked up, not run (command -v)"),
    appends: Type.Optional(Type.Boolean({ description: "the command gets further arguments only known at run time (xargs)" })),
    defaultCommand: Type.Optional(Type.String({ minLength: 1, description: "the command run when none is given (xargs runs echo)" })),
    strong: Type.Optional(Type.Boolean({ description: "the wrapper changes who or where the command runs: never read-only, and rules see it" })),
    commandString: Type.Optional(Type.Boolean({ description: "the rest of the arguments is joined into shell text (watch)" })),
    remoteRead: Type.Optional(
      Type.Boolean({
        description:
          "on another host (ssh host 'sudo grep …'), running a read-only command this way still only reads there: the command stays a remote read, decided by where the host's name came from",
      }),
    ),
  },
  { additionalProperties: false },
);
export type WrapperSpec = Static<typeof WrapperSchema>;

export const ProgramSchema = Type.Object(
  {
    names: Type.Array(nameSchema, { minItems: 1 }),
    ...behaviourFields,
    infoFlags: flagList("alone, these make the program read-only (--version, --help)"),
    infoBehaviour: Type.Optional(
      Type.Object(behaviourFields, {
        additionalProperties: false,
        description:
          "what the program does with an infoFlags flag alone when that is more than a read (yarn --version still runs the yarnPath the project names)",
      }),
    ),
    globalValueFlags: flagList("flags before the subcommand that take a value (git -C, kubectl -n)"),
    globalFlags: flagList(
      "flags before the subcommand that take no value (systemctl --user): any other flag there followed by two words leaves the subcommand uncertain, so the command is not read-only",
    ),
    printsFiles: Type.Optional(
      Type.Object(
        {
          ownWordsFlags: flagList(
            "flags that make it print words of its own command line (a format, a label, a replacement, a separator): with one, its output is the call's words again",
          ),
        },
        {
          additionalProperties: false,
          description:
            "what it prints is only what the files it reads hold, or their names and sizes (cat, grep, ls), so a value in its output is the files', not one the command line wrote, unless it is given an ownWordsFlags flag",
        },
      ),
    ),
    subcommands: Type.Optional(Type.Array(SubcommandSchema)),
    noSubcommand: Type.Optional(BehaviourSchema),
    otherSubcommand: Type.Optional(BehaviourSchema),
    wrapper: Type.Optional(WrapperSchema),
  },
  { additionalProperties: false },
);
export type ProgramSpec = Static<typeof ProgramSchema>;

const ProgramTableSchema = Type.Object(
  {
    programs: Type.Array(ProgramSchema),
    rules: CommandRulesSchema,
    safeEnvironment: Type.Array(Type.String({ pattern: "^[A-Za-z_][A-Za-z0-9_]*\\*?$" })),
  },
  { additionalProperties: false },
);

// ---- compilation ------------------------------------------------------------------------------

export interface CompiledCommandRule {
  readonly id: string;
  readonly source: "operator" | "builtin";
  readonly tokens: readonly string[];
  readonly effect?: CommandRuleEffect;
  readonly trust: TrustLevel;
  readonly withAny?: readonly string[];
  readonly withPrefix?: readonly string[];
  readonly irreversible?: string;
  readonly label?: string;
}

export interface CompiledProgram {
  readonly spec: ProgramSpec;
  /** Subcommands by name (one word, or two or three words joined by spaces). */
  readonly subcommands: ReadonlyMap<string, SubcommandSpec>;
  /** The first words of two-word subcommands (`compose` of `compose logs`). */
  readonly groups: ReadonlySet<string>;
}

export interface CompiledCommandRules {
  /** Every rule, operators' first. */
  readonly rules: readonly CompiledCommandRule[];
  /** Per first token, the rules that may match, in order (rules starting with `*` included). */
  readonly byProgram: ReadonlyMap<string, readonly CompiledCommandRule[]>;
  /** Rules starting with `*`: for programs no rule names. */
  readonly anyProgram: readonly CompiledCommandRule[];
  readonly programs: ReadonlyMap<string, CompiledProgram>;
  /** Environment names that may be set before a read-only command (`LC_ALL=C grep ...`); `*` ends a prefix. */
  readonly safeEnvironment: (name: string) => boolean;
  /** Why operators' rules were rejected; empty when all are well formed. */
  readonly errors: readonly string[];
}

const checkRule = TypeCompiler.Compile(CommandRuleSchema);
const checkRules = TypeCompiler.Compile(CommandRulesSchema);
const checkTable = TypeCompiler.Compile(ProgramTableSchema);

/**
 * Checks operators' command rules. Each message names the rule's index and field, what was found
 * and the fix, in the style of the config checks.
 */
export function validateCommandRules(value: unknown, where = "commands.rules"): string[] {
  if (!Array.isArray(value)) {
    return [
      `${where} must be a list of rules, got ${value === null ? "null" : typeof value}. Fix: write a list like [{ "prefix": "git push", "effect": "deny" }].`,
    ];
  }
  const messages: string[] = [];
  if (!checkRules.Check(value) && value.length > MAX_RULES) {
    messages.push(`${where} has ${value.length} rules, more than ${MAX_RULES}. Fix: merge rules (a * matches any one argument).`);
  }
  const ids = new Set<string>();
  value.forEach((rule: unknown, index) => {
    const at = `${where}[${index}]`;
    if (!checkRule.Check(rule)) {
      messages.push(...describeErrors(checkRule as never, rule, at).map(tidyRoot));
      return;
    }
    if (rule.effect === undefined && rule.irreversible === undefined) {
      messages.push(
        `${at}: effect is missing and the rule names no irreversible action, so it does nothing. Fix: add "effect": "allow" or "deny", or "irreversible".`,
      );
    }
    if (rule.effect === undefined && rule.trust !== undefined) {
      messages.push(`${at}: trust only means something with an effect. Fix: add "effect": "allow" or "deny", or remove trust.`);
    }
    if (rule.id !== undefined) {
      if (ids.has(rule.id)) messages.push(`${at}: id "${rule.id}" is used by an earlier rule. Fix: give each rule its own id.`);
      ids.add(rule.id);
    }
  });
  return messages;
}

/** `commands.rules[2]: (root)` reads badly; the index already names the rule. */
function tidyRoot(message: string): string {
  return message.replace(/\]: \(root\)/, "]");
}

interface BuiltinTable {
  readonly programs: readonly ProgramSpec[];
  readonly rules: readonly CommandRule[];
  readonly safeEnvironment: readonly string[];
}

let builtinCache: { table: BuiltinTable; errors: string[] } | undefined;

/**
 * The built-in program table and rules, checked by the same schemas. A table that fails the check is
 * a packaging error and fails closed: no program is known, so no command is read-only.
 */
export function builtinCommandTable(): { table: BuiltinTable; errors: string[] } {
  if (builtinCache) return builtinCache;
  const value = { programs: BUILTIN_PROGRAMS, rules: BUILTIN_COMMAND_RULES, safeEnvironment: BUILTIN_SAFE_ENVIRONMENT };
  if (checkTable.Check(value)) {
    const ruleErrors = validateCommandRules(value.rules, "built-in command rules");
    builtinCache = ruleErrors.length ? { table: { programs: [], rules: [], safeEnvironment: [] }, errors: ruleErrors } : { table: value, errors: [] };
  } else {
    builtinCache = { table: { programs: [], rules: [], safeEnvironment: [] }, errors: describeErrors(checkTable as never, value, "built-in command table") };
  }
  return builtinCache;
}

function compileRule(rule: CommandRule, id: string, source: CompiledCommandRule["source"]): CompiledCommandRule {
  return {
    id,
    source,
    tokens: rule.prefix.trim().split(/\s+/),
    effect: rule.effect,
    trust: rule.trust ?? "owner",
    withAny: rule.withAny,
    withPrefix: rule.withPrefix,
    irreversible: rule.irreversible,
    label: rule.label,
  };
}

/**
 * Compiles operators' rules (checked here; see `validateCommandRules`) with the built-in rules and
 * program table, once per policy. Malformed operator rules are left out and named in `errors`; when
 * any is malformed, operators' allow rules are left out too, so a broken config grants nothing.
 */
export function compileCommandRules(operatorRules: unknown = [], where = "commands.rules"): CompiledCommandRules {
  const errors = validateCommandRules(operatorRules, where);
  const operator: CompiledCommandRule[] = [];
  const list: unknown[] = Array.isArray(operatorRules) ? operatorRules.slice(0, MAX_RULES) : [];
  list.forEach((rule, index) => {
    if (!checkRule.Check(rule)) return;
    if (rule.effect === undefined && rule.irreversible === undefined) return;
    // A config with mistakes grants nothing: its allow rules are left out, its deny rules kept.
    if (errors.length > 0 && rule.effect === "allow") return;
    operator.push(compileRule(rule, rule.id ?? `${where}[${index}]`, "operator"));
  });
  const builtin = builtinCommandTable();
  errors.push(...builtin.errors);
  const rules = [...operator, ...builtin.table.rules.map((rule, index) => compileRule(rule, rule.id ?? `builtin[${index}]`, "builtin"))];

  const anyProgram = rules.filter((rule) => rule.tokens[0] === "*");
  const byProgram = new Map<string, CompiledCommandRule[]>();
  for (const rule of rules) {
    const first = rule.tokens[0];
    if (first === "*" || byProgram.has(first)) continue;
    byProgram.set(
      first,
      rules.filter((r) => r.tokens[0] === first || r.tokens[0] === "*"),
    );
  }

  const programs = new Map<string, CompiledProgram>();
  for (const spec of builtin.table.programs) {
    const subcommands = new Map<string, SubcommandSpec>();
    for (const sub of spec.subcommands ?? []) for (const name of sub.names) if (!subcommands.has(name)) subcommands.set(name, sub);
    const groups = new Set([...subcommands.keys()].filter((name) => name.includes(" ")).map((name) => name.slice(0, name.indexOf(" "))));
    for (const name of spec.names) if (!programs.has(name)) programs.set(name, { spec, subcommands, groups });
  }

  const exact = new Set(builtin.table.safeEnvironment.filter((n) => !n.endsWith("*")));
  const prefixes = builtin.table.safeEnvironment.filter((n) => n.endsWith("*")).map((n) => n.slice(0, -1));
  const safeEnvironment = (name: string) => exact.has(name) || prefixes.some((p) => name.startsWith(p));

  return { rules, byProgram, anyProgram, programs, safeEnvironment, errors };
}

/**
 * Whether an argument is one a rule's `withAny` names. A one-letter flag also matches inside a
 * cluster of one-letter flags (-f in -fu). A rule that does not allow (a deny, an irreversible
 * action) also matches the ways a program takes the same long option otherwise: with its value
 * (`--force-with-lease=main`) or shortened (`--forc`, as git and most option parsers accept). An
 * allow rule matches only what it says.
 */
function argumentMatches(wanted: string, token: string, loose: boolean): boolean {
  if (wanted === token) return true;
  if (wanted.length === 2 && wanted[0] === "-" && wanted[1] !== "-" && /^-[A-Za-z]{2,}$/.test(token) && token.includes(wanted[1])) return true;
  if (!loose) return false;
  if (wanted.startsWith("--") && token.startsWith("--")) {
    const name = token.includes("=") ? token.slice(0, token.indexOf("=")) : token;
    return name === wanted || (name.length >= 5 && wanted.startsWith(name));
  }
  return false;
}

/** The rules an argv matches (argv[0] the program name as run, without a directory), in order. */
export function matchCommandRules(rules: CompiledCommandRules, argv: readonly string[]): CompiledCommandRule[] {
  if (argv.length === 0) return [];
  const candidates = rules.byProgram.get(argv[0]) ?? rules.anyProgram;
  let out: CompiledCommandRule[] | undefined;
  for (const rule of candidates) {
    const tokens = rule.tokens;
    if (tokens.length > argv.length) continue;
    let ok = true;
    for (let i = 0; i < tokens.length; i++) {
      if (tokens[i] !== "*" && tokens[i] !== argv[i]) {
        ok = false;
        break;
      }
    }
    if (!ok) continue;
    if (rule.withAny || rule.withPrefix) {
      let found = false;
      const loose = rule.effect !== "allow";
      for (let i = tokens.length; i < argv.length && !found; i++) {
        const token = argv[i];
        if (rule.withPrefix?.some((start) => token.length > start.length && token.startsWith(start))) {
          found = true;
          break;
        }
        for (const wanted of rule.withAny ?? []) {
          if (argumentMatches(wanted, argv[i], loose)) {
            found = true;
            break;
          }
        }
      }
      if (!found) continue;
    }
    (out ??= []).push(rule);
  }
  return out ?? [];
}
