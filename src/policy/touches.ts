import { dirname, resolve } from "node:path";
import { lstatSync, statSync } from "node:fs";
import { meetsTrust, type TrustLevel } from "../taint/trust.ts";
import { ENVIRONMENT, withEnvironment, type CommandView } from "./commands/classify.ts";
import { modeHolds, patchMoves, patchPaths, valuesAt, type CompiledArgument, type CompiledMode, type QuotedFields, type Segments } from "./arguments.ts";
import { ACTING_ROLES, type OutputSource, type RiskLevel } from "./manifest-schema.ts";
import type { PathRules, PathZone } from "./path-rules.ts";

/**
 * What a call touches, read from its arguments: the files its path arguments reach (resolved the
 * way the host resolves them) and the modes its arguments or the host's settings select. The
 * decision reads these facts; it never reads the params itself.
 */

/** Resolves a path argument the way the host's file tools do. Lives in the host layer (it reads the filesystem). */
export interface PathResolver {
  /**
   * The absolute forms of a path the host would touch: as spelled (home, workspace-relative and
   * `..` resolved) and, when different, with symlinks followed. Empty for a value that is not a
   * local path (an http URL); undefined when it cannot be read as one (a NUL byte, a bad file URL).
   * `existing`: the path is expected to exist (a read), which lets symlinks be followed in one step.
   */
  resolve(raw: string, agentId: string | undefined, existing?: boolean): readonly string[] | undefined;
  /**
   * Where the symlinks a pattern expands to below `dir` (an absolute path) point: the real path of
   * each link whose names match one of `names`' alternatives name by name, or of every link at any
   * depth without `names` (links to nothing are left out), looking at no more than `budget`
   * directory entries. `more` says the budget ran out.
   */
  linksBelow?(dir: string, names: readonly (readonly string[])[] | undefined, budget: number): { readonly targets: readonly string[]; readonly more: boolean };
  /**
   * The git directories git takes `dir` (absolute) for when it looks for a repository there: its
   * `.git` (and where a `.git` file points) or `dir` itself when bare; undefined when none is there.
   */
  gitDirAt(dir: string): readonly string[] | undefined;
  /**
   * A call that may rename, delete or link files was let through (its id): a resolver that
   * remembers answers stops until `changed` reports its result. `lasting`: what it starts outlives
   * the call (a child session, a scheduled command), so answers are not remembered again.
   */
  changing?(callId: string | undefined, lasting: boolean): void;
  /** The result of a call arrived; `lasting`: it left something running (a background command). */
  changed?(callId: string, lasting: boolean): void;
}

/** Host settings a manifest's modes can name (e.g. `codeMode.executor`), per agent. */
export interface HostSettings {
  get(name: string, agentId: string | undefined): unknown;
}

/** What the decision needs from the host beyond the call: compiled path rules, the resolver, settings. */
export interface CallEnvironment {
  readonly paths: PathRules;
  readonly resolver: PathResolver;
  readonly settings: HostSettings;
  /** Writes outside the workspace (and the operator's writable patterns) are blocked. */
  readonly workspaceOnly: boolean;
  /** Reads a shell command (the command rules); undefined: commands are not read. */
  readonly commands?: CommandReader;
}

export type { CommandView };

/** Reads a shell command under the compiled command rules (see `commands/`). */
export interface CommandReader {
  read(command: string): CommandView;
  /** Whether setting this environment variable cannot change what a command does. */
  safeEnvironment(name: string): boolean;
}

/** A file a call reads or writes, as written and as the host resolves it. */
export interface FileRef {
  readonly argument: string;
  readonly raw: string;
  /** Absolute forms (spelled, symlinks followed); empty for a value that is not a local path. */
  readonly forms: readonly string[];
  /**
   * Written by a command that brings outside content in (a clone, a download, an extraction), or
   * `"install"` by a package install (the code the project runs, chosen by the call).
   */
  readonly outside?: true | "install";
  /** Only its name was taken in (`ls`, `du`, `find`): a directory here does not bring in the files below it. */
  readonly listing?: boolean;
  /** The command runs what the file holds (a script, a config with commands: `CommandView.codeFiles`). */
  readonly code?: true;
  /** A repository's work tree the command updates where it stands (`git pull`, `git checkout`): only what it changes is new. */
  readonly inPlace?: boolean;
}

/** The command a call runs, and what it reaches, resolved against its working directory. */
export interface CommandFacts {
  readonly argument: string;
  /** The command as the call gave it. */
  readonly text: string;
  readonly view: CommandView;
  /** The working directory, absolute (the call's workdir, else the agent's workspace). */
  readonly cwd: string;
  /** Where git starts looking for its repositories (see CommandView.repositories), absolute as spelled. */
  readonly repositoryStarts?: readonly string[];
  /**
   * The git directories of those repositories, as git finds them (`repositoriesFrom`), once they
   * were looked for: only when a label below owner could reach their settings (`runningSettings`).
   */
  readonly repositories?: readonly string[];
  /** The git directories a clone creates, absolute as spelled (see CommandView.madeRepositories). */
  readonly madeRepositories?: readonly string[];
}

export type TouchKind = "secret-read" | "secret-write" | "protected-write" | "outside-workspace" | "unreadable-path";

export interface Touch {
  readonly kind: TouchKind;
  /** The argument, as the manifest names it. */
  readonly argument: string;
  /** The path as the host resolves it (or the raw value when it cannot be resolved). */
  readonly value: string;
  readonly label: string;
}

export interface SelectedMode {
  readonly name: string;
  readonly capabilities: readonly string[];
  readonly minInputTrust?: TrustLevel;
  readonly riskLevel?: RiskLevel;
  /** The call only reads: decided with this mode's capabilities and trust instead of the tool's. */
  readonly readOnly?: boolean;
  /** A read-only mode that holds only on a turn whose requester has at least this trust (`forRequester`). */
  readonly requester?: TrustLevel;
  /** While the mode holds, whether the call may be decided by where its arguments came from. */
  readonly decisions?: boolean;
  /** While the mode holds for every value, how the output's trust is found (the manifest's otherwise). */
  readonly output?: OutputSource;
  /** With output `call`: result fields that, when not empty, make the output the manifest's (`quotes`). */
  readonly quotes?: QuotedFields;
}

export interface CallFacts {
  readonly touches: readonly Touch[];
  readonly modes: readonly SelectedMode[];
  /** Files the call reads and writes (path arguments, and what a command reaches). */
  readonly reads: readonly FileRef[];
  readonly writes: readonly FileRef[];
  /** What a command copies, moves or syncs, resolved (see CommandView.copies). */
  readonly copies?: readonly FileCopy[];
  readonly command?: CommandFacts;
}

/** A copy a command makes: the file or directory read and where it lands. */
export interface FileCopy {
  readonly from: FileRef;
  readonly to: FileRef;
  /** The command names the destination as a directory the source lands in (`cp a b dir/`, `cp -t dir a`). */
  readonly into: boolean;
  /** Only what is in the source directory lands in the destination (`rsync src/ dst`). */
  readonly contents: boolean;
}

/** The same facts with the command's operator allow rule set aside (its code is below what the rule covers). */
export function withoutAllowRule(facts: CallFacts | undefined): CallFacts | undefined {
  const command = facts?.command;
  if (!facts || !command || command.view.allowAt === undefined) return facts;
  const { allowAt: _covered, ...view } = command.view;
  return { ...facts, command: { ...command, view } };
}

/**
 * The same facts for a git command whose repository's settings were written below owner (`why`
 * says which): git runs what they name, so the command is not read-only, its output is not only
 * its files', and an operator's allow rule for it does not cover that code.
 */
export function runningSettings(facts: CallFacts, why: string, repositories: readonly string[]): CallFacts {
  const command = facts.command;
  if (!command) return facts;
  const { allowAt: _covered, ...view } = command.view;
  return { ...facts, command: { ...command, repositories, view: { ...view, readOnly: false, local: false, why: [why, ...view.why] } } };
}

/**
 * The git directories git uses when it starts in each of `starts` (absolute), the way git finds
 * them: from the real directory up, the first level with a `.git` or a bare repository. The same
 * level above the spelled form is given too (labels are kept by the path a write spelled, and a
 * symlink above the workspace makes the two differ).
 */
export function repositoriesFrom(resolver: PathResolver, starts: readonly string[]): string[] {
  const found: string[] = [];
  for (const start of starts) for (const dir of repositoryOf(resolver, resolver.resolve(start, undefined, true))) if (!found.includes(dir)) found.push(dir);
  return found;
}

/**
 * The same facts for a turn whose requester has `trust`: a read-only mode that needs a more trusted
 * requester (what it reads reaches the requester in the reply) is set aside, and the call is
 * decided as the tool.
 */
export function forRequester(facts: CallFacts | undefined, trust: TrustLevel): CallFacts | undefined {
  const needs = facts?.modes[0]?.requester;
  if (!facts || !needs || meetsTrust(trust, needs)) return facts;
  return { ...facts, modes: facts.modes.slice(1) };
}

/**
 * The names of a call's modes that are decided by where its arguments came from (`decisions`), or
 * undefined when one of them says they are not (that wins) or none says either.
 */
export function decidedModes(facts: CallFacts | undefined): string[] | undefined {
  let names: string[] | undefined;
  for (const mode of facts?.modes ?? []) {
    if (mode.decisions === false) return undefined;
    if (mode.decisions === true) (names ??= []).push(mode.name);
  }
  return names;
}

/** The capability a touch counts as. */
export function touchCapability(kind: TouchKind): string | undefined {
  if (kind === "secret-read") return "secrets:read";
  if (kind === "secret-write" || kind === "protected-write") return "system:admin";
  return undefined;
}

const MAX_PATHS_PER_CALL = 256;
/** Most directory entries a pattern's expansion is looked through for symlinks, per directory read. */
const MAX_ENTRIES_SCANNED = 4096;

function zoneTouch(zone: PathZone, access: "read" | "write"): TouchKind | undefined {
  if (zone === "secret") return access === "read" ? "secret-read" : "secret-write";
  if (zone === "protected" && access === "write") return "protected-write";
  return undefined;
}

/**
 * The facts of one call under a manifest's arguments and modes, or undefined when the manifest
 * declares none (the common case: such calls are decided, and memoized, by shape alone).
 */
export function callFacts(
  args: readonly CompiledArgument[],
  modes: readonly CompiledMode[],
  params: unknown,
  derivedPaths: readonly string[] | undefined,
  agentId: string | undefined,
  env: CallEnvironment,
  environment: readonly Segments[] = [],
): CallFacts | undefined {
  if (args.length === 0 && modes.length === 0) return undefined;
  const touches: Touch[] = [];
  const reads: FileRef[] = [];
  const writes: FileRef[] = [];
  // What was visited: the first path as it is, a set from the second on (most calls name one path).
  let seen: Set<string> | undefined;
  let firstKey: string | undefined;
  let count = 0;
  const copies: FileCopy[] = [];
  let command: CommandFacts | undefined;
  let cwd: string | undefined;
  const visit = (
    path: string,
    at: string,
    access: "read" | "write",
    outside: boolean | "install" = false,
    listing = false,
    below = false,
    inPlace = false,
  ): boolean => {
    if (++count > MAX_PATHS_PER_CALL) {
      touches.push({ kind: "unreadable-path", argument: at, value: `more than ${MAX_PATHS_PER_CALL} paths`, label: "too many paths to check" });
      return false;
    }
    if (count === 1) firstKey = access === "write" ? `w${path}` : `r${path}`;
    else {
      const key = access === "write" ? `w${path}` : `r${path}`;
      seen ??= new Set([firstKey as string]);
      if (seen.has(key)) return true;
      seen.add(key);
    }
    const forms = touchesOf(path, at, access, agentId, env, touches, below);
    const ref: { -readonly [K in keyof FileRef]: FileRef[K] } = { argument: at, raw: path, forms: forms ?? [] };
    if (outside) ref.outside = outside;
    if (listing) ref.listing = listing;
    if (inPlace) ref.inPlace = inPlace;
    (access === "write" ? writes : reads).push(ref);
    return true;
  };
  for (const arg of args) {
    const { role, access = "read", at } = arg.spec;
    if (role === "command" && env.commands) {
      const raw = commandText(params, arg.segments);
      if (raw === undefined) continue;
      // A call that gives a command in two arguments (command and cmd) runs one the host picks:
      // both are read, as if both ran.
      const text = command ? (command.text === raw ? raw : `${command.text}\n${raw}`) : raw;
      command = { argument: command?.argument ?? at, text, view: env.commands.read(text), cwd: "" };
      continue;
    }
    if (role !== "path" && role !== "patch") continue;
    const raws = arg.derived ? (derivedPaths ?? []) : valuesAt(params, arg.segments);
    for (const raw of raws) {
      if (typeof raw !== "string") continue;
      const paths = role === "patch" ? patchPaths(raw) : [raw];
      // What a tool writes that is not its own arguments (a download, a screenshot) is outside content.
      const outside = access === "write" && role === "path" && arg.spec.contents !== "call";
      for (const path of paths)
        if (!visit(path, at, access, outside)) return { touches, modes: selectedModes(modes, params, agentId, env, args), reads, writes };
      if (role === "patch") {
        // A moved file's content is read from where it was: where it lands keeps that label.
        for (const move of patchMoves(raw)) {
          if (!visit(move.from, at, "read")) return { touches, modes: selectedModes(modes, params, agentId, env, args), reads, writes };
          const from = reads.find((r) => r.raw === move.from);
          const to = writes.find((w) => w.raw === move.to);
          if (from && to) copies.push({ from, to, into: false, contents: false });
        }
      }
      if (role === "path" && access === "read" && cwd === undefined && /workdir|cwd|dir$/i.test(at)) cwd = raw;
    }
  }
  if (command && env.commands) {
    // Variables the call sets for the command can change what its programs do (TAR_OPTIONS, RIPGREP_CONFIG_PATH).
    const names = environmentNames(params, environment);
    const unsafe = names === undefined ? [ENVIRONMENT_UNREAD] : names.filter((name) => !env.commands?.safeEnvironment(name));
    if (unsafe.length > 0) command = { ...command, view: withEnvironment(command.view, unsafe) };
  }
  if (command) {
    // What the command reaches, resolved against its working directory the way the host would.
    const base = cwd !== undefined ? (env.resolver.resolve(cwd, agentId)?.[0] ?? cwd) : env.paths.locations.workspaceFor(agentId);
    command = { ...command, cwd: base };
    const under = (p: string) => (p.startsWith("/") || p.startsWith("~") ? p : `${base.replace(/\/+$/, "")}/${p}`);
    const view = command.view;
    for (const secret of view.secrets) {
      touches.push({
        kind: "secret-read",
        argument: command.argument,
        value: secret,
        label: secret.startsWith("$")
          ? "an environment variable (it may hold a key or token)"
          : secret === ENVIRONMENT
            ? "the environment (it holds keys and tokens)"
            : "stored secrets (keys, tokens, passwords)",
      });
    }
    // A command's read of a directory takes in the files below it (grep -r, rg, cp -r), unless it lists only their names.
    for (const p of view.reads) {
      const listing = view.listings.includes(p);
      if (!visit(under(p), command.argument, "read", false, listing, !listing)) break;
      if (view.codeFiles.includes(p)) {
        const raw = under(p);
        const at = reads.findIndex((r) => r.raw === raw);
        if (at !== -1) reads[at] = { ...reads[at], code: true };
      }
    }
    // A pattern's names are what the program opens: a symlink among them is a read of what it points to.
    for (const link of view.links) {
      // The directory was resolved as one of the command's reads just above.
      const raw = under(link.path);
      const dir = (reads.find((r) => r.raw === raw)?.forms ?? env.resolver.resolve(raw, agentId, true))?.at(-1);
      const found = dir !== undefined ? env.resolver.linksBelow?.(dir, link.names, MAX_ENTRIES_SCANNED) : undefined;
      if (!found) continue;
      if (found.more) {
        touches.push({
          kind: "unreadable-path",
          argument: command.argument,
          value: link.path,
          label: `more than ${MAX_ENTRIES_SCANNED} names below it to check for symlinks`,
        });
      }
      let ok = true;
      for (const target of found.targets) if (!(ok = visit(target, command.argument, "read", false, false, true))) break;
      if (!ok) break;
    }
    if (view.repositories.length > 0) {
      // As spelled, without looking at the disk: git's repositories are looked for only when a label could matter.
      const starts = view.repositories.map((p) => (p.startsWith("~") ? env.resolver.resolve(p, agentId)?.[0] : resolve(under(p))));
      command = { ...command, repositoryStarts: starts.filter((p): p is string => p !== undefined) };
    }
    if (view.madeRepositories.length > 0) {
      // Only a git directory that is not there yet is the clone's: into one that is, the clone fails and it stays what it was.
      const made = view.madeRepositories
        .map((p) => env.resolver.resolve(under(p), agentId)?.[0])
        .filter((p): p is string => p !== undefined && !lstatSync(p, { throwIfNoEntry: false }));
      if (made.length > 0) command = { ...command, madeRepositories: made };
    }
    // Where outside content lands first: a path the command also writes another way (`mkdir -p d &&
    // tar -xf a.tgz -C d`) is one write, and it is the extraction's.
    for (const p of view.fetches)
      if (!visit(under(p), command.argument, "write", view.installs.includes(p) ? "install" : true, false, false, view.inPlace.includes(p))) break;
    for (const p of view.writes) if (!visit(under(p), command.argument, "write", view.network, false, false, view.inPlace.includes(p))) break;
    for (const copy of view.copies) {
      const fromRaw = under(copy.from);
      const toRaw = under(copy.to);
      const from = reads.find((r) => r.raw === fromRaw);
      const to = writes.find((w) => w.raw === toRaw);
      if (from && to) copies.push({ from, to, into: copy.into === true, contents: copy.contents === true });
    }
  }
  return {
    touches,
    modes: selectedModes(modes, params, agentId, env, args),
    reads,
    writes,
    ...(copies.length > 0 ? { copies } : {}),
    ...(command ? { command } : {}),
  };
}

/** The git directories git uses when it starts in a directory (its forms: as spelled, then real); see `repositoriesFrom`. */
function repositoryOf(resolver: PathResolver, forms: readonly string[] | undefined): string[] {
  if (!forms || forms.length === 0) return [];
  const real = forms[forms.length - 1];
  let spelled: string | undefined = forms.length > 1 ? forms[0] : undefined;
  let at = real;
  for (let depth = 0; depth < MAX_REPOSITORY_DEPTH; depth++) {
    const dirs = resolver.gitDirAt(at);
    if (dirs) {
      const out = [...dirs];
      if (spelled !== undefined) for (const dir of dirs) if (dir.startsWith(at)) out.push(spelled + dir.slice(at.length));
      return out;
    }
    const parent = dirname(at);
    if (parent === at) return [];
    at = parent;
    if (spelled !== undefined) spelled = dirname(spelled) === spelled ? undefined : dirname(spelled);
  }
  return [];
}

/** How many levels up git's repository is looked for (git itself stops at the root). */
const MAX_REPOSITORY_DEPTH = 64;

/** How a value at an `environment` argument that is not an object of names is reported. */
const ENVIRONMENT_UNREAD = "an environment ClawOS cannot read";

/** The names of the environment variables a call sets; undefined when one of the values is not an object of names. */
function environmentNames(params: unknown, environment: readonly Segments[]): string[] | undefined {
  const names: string[] = [];
  for (const segments of environment) {
    for (const value of valuesAt(params, segments)) {
      if (value === undefined || value === null) continue;
      if (typeof value !== "object" || Array.isArray(value)) return undefined;
      names.push(...Object.keys(value));
    }
  }
  return names;
}

/** Whether a call sets an argument that names where it acts (a path it writes included). */
function actsSomewhere(args: readonly CompiledArgument[], params: unknown, reads: ReadonlySet<string> | undefined): boolean {
  for (const arg of args) {
    const { role, access } = arg.spec;
    if (!ACTING_ROLES.includes(role) && !(role === "path" && access === "write")) continue;
    if (arg.derived || reads?.has(arg.spec.at)) continue;
    for (const v of valuesAt(params, arg.segments)) if (v !== undefined && v !== null && v !== false && v !== "") return true;
  }
  return false;
}

function touchesOf(
  raw: string,
  argument: string,
  access: "read" | "write",
  agentId: string | undefined,
  env: CallEnvironment,
  out: Touch[],
  below = false,
): readonly string[] | undefined {
  const forms = env.resolver.resolve(raw, agentId, access === "read");
  if (!forms) {
    if (raw.trim()) out.push({ kind: "unreadable-path", argument, value: raw, label: "a path ClawOS cannot resolve" });
    return undefined;
  }
  if (forms.length === 0) return forms;
  const match = env.paths.strictest(forms, agentId);
  const kind = match ? zoneTouch(match.zone, access) : undefined;
  if (match && kind) out.push({ kind, argument, value: forms[forms.length - 1], label: match.label });
  if (below && kind !== "secret-read") {
    // A directory read whole takes in a secret below it (grep -r key ~ reads ~/.ssh): it is a secret read.
    for (const form of forms) {
      const secret = env.paths.secretBelow(form, agentId);
      // Asked of the filesystem only when a secret rule reaches below: a regular file has nothing below it.
      if (secret && !isRegularFile(form)) {
        out.push({ kind: "secret-read", argument, value: form, label: `${HOLDING}${secret.label} below it` });
        break;
      }
    }
  }
  if (access === "write" && env.workspaceOnly && !forms.every((p) => env.paths.writableFor(p, agentId))) {
    out.push({ kind: "outside-workspace", argument, value: forms[forms.length - 1], label: "outside the agent's workspace" });
  }
  return forms;
}

function selectedModes(
  modes: readonly CompiledMode[],
  params: unknown,
  agentId: string | undefined,
  env: CallEnvironment,
  args: readonly CompiledArgument[],
): SelectedMode[] {
  const out: SelectedMode[] = [];
  let reading: SelectedMode | undefined;
  for (const mode of modes) {
    const { spec } = mode;
    let holds: boolean;
    if (spec.readOnly) {
      // Narrowing, so every condition must hold for every value, and the call must act nowhere.
      if (reading || !mode.segments) continue;
      const values = valuesAt(params, mode.segments);
      holds = values.length > 0 && values.every((v) => (typeof v === "string" || typeof v === "number") && modeHolds(mode, v));
      if (holds && mode.alsoSegments) {
        const also = valuesAt(params, mode.alsoSegments);
        holds = also.length > 0 && also.every((v) => mode.alsoEquals.has(v));
      }
      if (holds && spec.when.host) holds = (spec.when.hostEquals ?? []).some((e) => e === env.settings.get(spec.when.host!, agentId));
      if (holds && !actsSomewhere(args, params, mode.reads)) {
        reading = {
          name: spec.name,
          capabilities: spec.capabilities,
          minInputTrust: spec.minInputTrust,
          riskLevel: spec.riskLevel,
          readOnly: true,
          ...(spec.requester ? { requester: spec.requester } : {}),
          ...(spec.output !== undefined ? { output: spec.output } : {}),
          ...(mode.quotes ? { quotes: mode.quotes } : {}),
        };
      }
      continue;
    }
    // Whether the mode is the whole call (every value of its arguments matches): only then may the
    // call be decided by where its arguments came from (`decisions`); a partial match still adds.
    let whole: boolean;
    if (mode.segments) {
      const values = valuesAt(params, mode.segments);
      holds = values.length === 0 ? modeHolds(mode, undefined) : values.some((v) => modeHolds(mode, v));
      whole = values.length > 0 && values.every((v) => (typeof v === "string" || typeof v === "number") && modeHolds(mode, v));
      if (holds && mode.alsoSegments) {
        const also = valuesAt(params, mode.alsoSegments);
        holds = also.some((v) => mode.alsoEquals.has(v));
        whole &&= also.length > 0 && also.every((v) => mode.alsoEquals.has(v));
      }
      if (holds && spec.when.host) {
        const setting = env.settings.get(spec.when.host, agentId);
        holds = (spec.when.hostEquals ?? []).some((e) => e === setting);
      }
    } else if (spec.when.host) {
      holds = modeHolds(mode, env.settings.get(spec.when.host, agentId));
      whole = holds;
    } else {
      holds = false;
      whole = false;
    }
    if (holds) {
      out.push({
        name: spec.name,
        capabilities: spec.capabilities,
        minInputTrust: spec.minInputTrust,
        riskLevel: spec.riskLevel,
        ...(spec.decisions === false || (spec.decisions === true && whole) ? { decisions: spec.decisions } : {}),
        ...(spec.output !== undefined && whole ? { output: spec.output } : {}),
        ...(spec.output !== undefined && whole && mode.quotes ? { quotes: mode.quotes } : {}),
      });
    }
  }
  if (reading) out.unshift(reading);
  return out;
}

/** How a secret read of a directory that holds a secret below it is labelled (see `holdsSecretBelow`). */
const HOLDING = "a directory holding ";

/** The label says the path is a directory read whole with a secret below it, not a secret itself. */
export function holdsSecretBelow(label: string | undefined): boolean {
  return label?.startsWith(HOLDING) === true;
}

/** A regular file (nothing is below it); false for a directory, a missing path or anything else. */
export function isRegularFile(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isFile() === true;
}

/**
 * A file of the host's own configuration: a regular file (not a link) below /etc that root owns and
 * nobody else may write, other than the account and group lists (a user may set their own name
 * there with chfn). What it says is the administrator's, put there by root or by the packages root
 * installed.
 */
export function isRootConfig(path: string, stat: (path: string) => FileMode | undefined = lstatMode): boolean {
  if (!ADMIN_CONFIG.test(path) || path.includes("/../") || path.includes("/./") || path.includes("//")) return false;
  const mode = stat(path);
  return mode?.file === true && mode.uid === 0 && (mode.mode & 0o022) === 0;
}

/** What `isRootConfig` looks at: a regular file (a link is not one), its owner and its permission bits. */
export interface FileMode {
  readonly file: boolean;
  readonly uid: number;
  readonly mode: number;
}

function lstatMode(path: string): FileMode | undefined {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  return stat && { file: stat.isFile(), uid: stat.uid, mode: stat.mode };
}

/**
 * The administrator's own configuration below /etc: servers', the service manager's, package
 * sources, kernel and mount settings. Not what a program writes there from what others send or
 * choose (a printer's announced name in CUPS, a network's name in NetworkManager, a DHCP server's
 * resolv.conf, a generated motd, the account lists a user edits with chfn, cloud-init's network and
 * sshd drop-ins from instance metadata), nor what hosting panels and vendors' jobs write for their
 * users (cron.d, PHP pools, supervisor programs, package source lists, certbot's renewal files).
 */
const ADMIN_CONFIG = new RegExp(
  "^/etc/(?:" +
    [
      "(?:nginx|apache2|httpd|caddy|haproxy|traefik|varnish|systemd|default|sysctl\\.d|logrotate\\.d|postgresql|mysql|redis|docker|containerd|ufw|fail2ban|prometheus|grafana|alertmanager|chrony|rsyslog\\.d|profile\\.d|postfix|apt/(?:apt\\.conf\\.d|preferences\\.d)|security/limits\\.d|modprobe\\.d|udev/rules\\.d|tmpfiles\\.d)/[^/].*",
      "ssh/(?:sshd_config|ssh_config)",
      "(?:sysctl|logrotate|rsyslog|ntp|environment|exports|fstab|hostname|timezone|sudo|nsswitch|login\\.defs|adduser)(?:\\.conf)?",
      "apt/sources\\.list",
      "security/limits\\.conf",
    ].join("|") +
    ")$",
);

/**
 * A command argument as the shell would get it: a string as it is; a list of strings as argv, and
 * as its words joined (a host that takes argv runs all of it, not its first word, and one may join
 * it unquoted); any other value as its JSON text, which is no command ClawOS knows (never read-only).
 */
function commandText(params: unknown, segments: readonly string[]): string | undefined {
  let value: unknown = params;
  for (const segment of segments) {
    if (value === null || typeof value !== "object" || segment === "*") {
      value = undefined;
      break;
    }
    value = (value as Record<string, unknown>)[segment];
  }
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === "string")) {
    // As argv, and as words a host may join with spaces before a shell reads them: both are read.
    const argv = value.map((v) => `'${(v as string).replace(/'/g, "'\\''")}'`).join(" ");
    const joined = value.join(" ");
    return argv === joined ? argv : `${argv}\n${joined}`;
  }
  return JSON.stringify(value);
}
