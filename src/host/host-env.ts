import { type Dirent, existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from "node:fs";
import picomatch from "picomatch";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import type { HostLocations } from "../policy/path-rules.ts";
import type { HostSettings, PathResolver } from "../policy/touches.ts";
import { RealPathMemo } from "./real-paths.ts";

/**
 * Where OpenClaw keeps things and how its file tools read a path, worked out the way the installed
 * host does (2026.9.6: `resolveStateDir`, `resolveConfigPath`, `resolveAgentWorkspaceDir`, and the
 * file tools' `~`, `@` and workspace-relative handling), so a path rule decides on the file a call
 * really reaches. Reads the environment and the OpenClaw config once; follows symlinks per call.
 */

export interface CallHost {
  readonly locations: HostLocations;
  readonly resolver: PathResolver;
  readonly settings: HostSettings;
}

export interface HostEnvInputs {
  /** ClawOS's plugin id (its entry under plugins.entries). */
  readonly pluginId?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** OpenClaw's whole config as the host passed it (`api.config`), when it did. */
  readonly openclawConfig?: unknown;
  /** OpenClaw's state directory as the host resolved it. */
  readonly stateDir: string;
  readonly clawos: string;
  readonly audit: string;
  readonly sessions: string;
  readonly platform?: NodeJS.Platform;
  /** Where real paths are remembered between calls (default: the process's one); false: nowhere. */
  readonly realPaths?: RealPathMemo | false;
}

/**
 * The process's memo of real paths: one file system, so one memo for every plugin runtime and
 * config reload in the process (a call a reload's new resolver did not see still keeps it off).
 */
export const processRealPaths = new RealPathMemo();

type Json = Record<string, unknown>;

function obj(value: unknown): Json | undefined {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Json) : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() ? value.trim() : undefined;
}

/** The host's effective home: OPENCLAW_HOME (with `~` expanded), else HOME / USERPROFILE. */
function effectiveHome(env: NodeJS.ProcessEnv): string {
  const osHome = text(env.HOME) ?? text(env.USERPROFILE) ?? homedir();
  const explicit = text(env.OPENCLAW_HOME);
  if (!explicit) return resolve(osHome);
  return resolve(explicit.replace(/^~(?=$|[\\/])/, osHome));
}

/** `~` in config values and env overrides means the effective home (the host's `resolveUserPath`). */
function userPath(input: string, env: NodeJS.ProcessEnv): string {
  const trimmed = input.trim();
  return resolve(trimmed.startsWith("~") ? trimmed.replace(/^~(?=$|[\\/])/, effectiveHome(env)) : trimmed);
}

/** An agent's entry in `agents.entries` (record) or `agents.list` (array). */
function agentEntry(config: Json | undefined, agentId: string): Json | undefined {
  const agents = obj(config?.agents);
  const entries = agents?.entries;
  if (obj(entries)) {
    for (const [id, entry] of Object.entries(entries as Json)) if (id.toLowerCase() === agentId) return obj(entry);
  }
  const list = Array.isArray(entries) ? entries : Array.isArray(agents?.list) ? (agents?.list as unknown[]) : [];
  for (const entry of list) if (text(obj(entry)?.id)?.toLowerCase() === agentId) return obj(entry);
  return undefined;
}

function defaultAgentId(config: Json | undefined): string {
  const agents = obj(config?.agents);
  const entries = agents?.entries ?? agents?.list;
  if (Array.isArray(entries)) {
    const marked = entries.find((e) => obj(e)?.default === true);
    const id = text(obj(marked)?.id) ?? text(obj(entries[0])?.id);
    if (id) return id.toLowerCase();
  } else if (obj(entries)) {
    for (const [id, entry] of Object.entries(entries as Json)) if (obj(entry)?.default === true) return id.toLowerCase();
  }
  return "main";
}

/** Whether OpenClaw lets the plugin see conversation hooks (plugins.entries.<id>.hooks.allowConversationAccess). */
export function conversationAccess(openclawConfig: unknown, pluginId: string): boolean {
  const entry = obj(obj(obj(obj(openclawConfig)?.plugins)?.entries)?.[pluginId]);
  return obj(entry?.hooks)?.allowConversationAccess === true;
}

export function hostEnvironment(inputs: HostEnvInputs): CallHost {
  const env = inputs.env ?? process.env;
  const config = obj(inputs.openclawConfig);
  const platform = inputs.platform ?? process.platform;
  const pluginId = inputs.pluginId ?? "clawos";
  const memo = inputs.realPaths === false ? undefined : (inputs.realPaths ?? processRealPaths);
  const state = resolve(inputs.stateDir);
  const configPath = text(env.OPENCLAW_CONFIG_PATH) ? userPath(env.OPENCLAW_CONFIG_PATH as string, env) : join(state, "openclaw.json");
  const defaultAgent = defaultAgentId(config);
  const workspaces = new Map<string, string>();

  const workspaceFor = (agentId: string | undefined): string => {
    const id = (agentId ?? defaultAgent).toLowerCase();
    let dir = workspaces.get(id);
    if (dir) return dir;
    const configured = text(agentEntry(config, id)?.workspace);
    const fallback = text(obj(obj(config?.agents)?.defaults)?.workspace);
    if (configured) dir = userPath(configured, env);
    else if (id === defaultAgent) {
      dir = fallback ? userPath(fallback, env) : text(env.OPENCLAW_WORKSPACE_DIR) ? resolve(env.OPENCLAW_WORKSPACE_DIR as string) : join(state, "workspace");
    } else dir = fallback ? join(userPath(fallback, env), id) : join(state, `workspace-${id}`);
    workspaces.set(id, dir);
    return dir;
  };

  const locations: HostLocations = {
    // The file tools expand `~` with the OS home (not OPENCLAW_HOME).
    home: resolve(text(env.HOME) ?? homedir()),
    state,
    config: configPath,
    clawos: resolve(inputs.clawos),
    audit: resolve(inputs.audit),
    sessions: resolve(inputs.sessions),
    workspaceFor,
    caseInsensitive: platform === "darwin" || platform === "win32",
  };

  /**
   * A path as spelled, absolute (`spell`), by agent and then raw text: the same every time, and read
   * on every call (two lookups, no key built per call).
   */
  const spellings = new Map<string, Map<string, string | null>>();
  let spelledCount = 0;
  const spell = (raw: string, agentId: string | undefined): string | null | undefined => {
    let p = raw.trim();
    if (!p) return undefined;
    // A URL other than file:// is not a local path (a media argument may hold either).
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(p) && !/^file:\/\//i.test(p)) return null;
    if (/^file:\/\//i.test(p)) {
      try {
        p = decodeURIComponent(new URL(p).pathname);
      } catch {
        return undefined;
      }
    }
    // `@file` is a file reference; `~` is the OS home; relative paths are the workspace's.
    if (p.startsWith("@")) p = p.slice(1);
    if (p === "~" || p.startsWith("~/")) p = locations.home + p.slice(1);
    return isAbsolute(p) ? resolve(p) : resolve(workspaceFor(agentId), p);
  };

  const resolver: PathResolver = {
    resolve(raw, agentId, existing = false) {
      if (typeof raw !== "string" || raw.includes("\u0000")) return undefined;
      const cacheable = raw.length <= MAX_SPELLED_KEY;
      const agentKey = agentId ?? "";
      let spelled = cacheable ? spellings.get(agentKey)?.get(raw) : undefined;
      if (spelled === undefined) {
        const found = spell(raw, agentId);
        if (found === undefined) return undefined;
        spelled = found;
        if (cacheable) {
          if (spelledCount >= MAX_SPELLINGS) {
            spellings.clear();
            spelledCount = 0;
          }
          let byRaw = spellings.get(agentKey);
          if (byRaw === undefined) spellings.set(agentKey, (byRaw = new Map()));
          byRaw.set(raw, spelled);
          spelledCount++;
        }
      }
      // Not a local path: a URL other than file://.
      if (spelled === null) return [];
      let real = memo?.get(spelled);
      if (real === undefined) {
        const found = existing ? realOfExisting(spelled) : undefined;
        real = found ?? realOf(spelled, 0, memo ? (path) => memo.set(spelled, path) : undefined);
        if (found !== undefined) memo?.set(spelled, found);
      }
      return real && real !== spelled ? [spelled, real] : [spelled];
    },
    changing: memo ? (callId, lasting) => memo.changing(callId, lasting) : undefined,
    changed: memo ? (callId, lasting) => memo.changed(callId, lasting) : undefined,
    linksBelow: (dir, names, budget) => linksBelow(dir, names, budget, platform === "darwin" || platform === "win32"),
    gitDirAt,
  };

  const settings: HostSettings = {
    get(name, agentId) {
      // Whether OpenClaw grants ClawOS its conversation hooks (see the adapter): then a message
      // another session sends is accounted for where the host delivers it.
      if (name === "plugins.conversationAccess") return conversationAccess(config, pluginId);
      if (name === "codeMode.executor") {
        const id = (agentId ?? defaultAgent).toLowerCase();
        const own = obj(obj(obj(agentEntry(config, id)?.tools)?.codeMode))?.executor;
        const global = obj(obj(config?.tools)?.codeMode)?.executor;
        return text(own) ?? text(global) ?? "node";
      }
      // The browser profile a call without one drives: the managed openclaw one unless the operator chose another.
      if (name === "browser.defaultProfile") return text(obj(config?.browser)?.defaultProfile);
      // Where the host sends the operator's own messages: the owner's own addresses.
      if (name === "commands.ownerAllowFrom") return obj(config?.commands)?.ownerAllowFrom;
      return undefined;
    },
  };

  return { locations, resolver, settings };
}

/** Spellings kept per host environment, and the longest raw path kept (a long one is rare and cheap to resolve again). */
const MAX_SPELLINGS = 4096;
const MAX_SPELLED_KEY = 512;

/**
 * The real path of a path that exists, in one call (a read's path usually does); undefined when it
 * does not, and `realOf` walks up from there. The same answer as `realOf` for an existing path.
 */
function realOfExisting(path: string): string | undefined {
  try {
    return (realpathSync.native ?? realpathSync)(path);
  } catch {
    return undefined;
  }
}

/**
 * The path with symlinks followed: the nearest existing ancestor's real path plus the rest. A
 * dangling symlink on the way is followed to its target (writing through it creates the target).
 * Written with calls that report a missing file without throwing: this runs on every call with a
 * path argument, and an exception per missing level costs more than the whole decision.
 *
 * `settled` hears the answer when no dangling symlink was followed: then it stays right while
 * nothing renames, deletes or links files. Creating the missing rest as plain files and
 * directories (a write, `mkdir -p`) leaves it as it was.
 */
function realOf(path: string, depth = 0, settled?: (real: string) => void): string | undefined {
  let head = path;
  const rest: string[] = [];
  for (;;) {
    const stat = lstatSync(head, { throwIfNoEntry: false });
    // A symlink whose target is missing: follow it by hand (an existing target is realpath's job).
    if (stat?.isSymbolicLink() && !existsSync(head)) {
      if (depth >= 8) return undefined;
      let target: string;
      try {
        target = readlinkSync(head);
      } catch {
        return undefined;
      }
      const followed = resolve(dirname(head), target);
      return realOf(rest.length ? join(followed, ...rest.reverse()) : followed, depth + 1);
    }
    if (stat) break;
    const parent = dirname(head);
    if (parent === head) return undefined;
    rest.push(basename(head));
    head = parent;
    // A new file in a directory that exists (a write's usual path): the directory's real path in one call.
    if (rest.length === 1) {
      const real = realOfExisting(head);
      if (real !== undefined) return settle(join(real, rest[0] as string), settled);
    }
  }
  const real = realOfExisting(head);
  if (real === undefined) return undefined;
  return settle(rest.length ? join(real, ...rest.reverse()) : real, settled);
}

/** Passes an answer on to `settled` (the walk after a dangling symlink has none: that answer is not kept). */
function settle(real: string, settled: ((real: string) => void) | undefined): string {
  settled?.(real);
  return real;
}

/**
 * The git directories git takes `dir` for when it looks for a repository there, as it does: `dir/.git`
 * (with where a `.git` file or symlink points), or `dir` itself when it is a bare repository (a
 * `HEAD`, an `objects` and a `refs`). Undefined when there is none at this level.
 */
function gitDirAt(dir: string): readonly string[] | undefined {
  const dotGit = join(dir, ".git");
  const stat = lstatSync(dotGit, { throwIfNoEntry: false });
  if (stat) {
    if (stat.isDirectory()) return [dotGit];
    const target = stat.isSymbolicLink() ? realOf(dotGit) : gitdirLine(dotGit, dir);
    return target !== undefined && target !== dotGit ? [dotGit, target] : [dotGit];
  }
  if (!lstatSync(join(dir, "HEAD"), { throwIfNoEntry: false })) return undefined;
  const objects = statSync(join(dir, "objects"), { throwIfNoEntry: false });
  const refs = statSync(join(dir, "refs"), { throwIfNoEntry: false });
  return objects?.isDirectory() && refs?.isDirectory() ? [dir] : undefined;
}

/** Where a `.git` file (a worktree's, a submodule's) points: its `gitdir:` line, resolved from `dir`. */
function gitdirLine(file: string, dir: string): string | undefined {
  try {
    const line = /^gitdir:[ \t]*(.+?)[ \t]*$/m.exec(readFileSync(file, { encoding: "utf8", flag: "r" }).slice(0, 4096));
    return line ? resolve(dir, line[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Compiled pattern names (`*.md`, `[ab]*`), kept: a command's patterns recur with each call. */
const nameMatchers = new Map<string, RegExp>();
const MAX_NAME_MATCHERS = 1024;

function nameMatcher(name: string, nocase: boolean): RegExp {
  const key = `${nocase ? "i" : "s"}${name}`;
  let re = nameMatchers.get(key);
  if (!re) {
    // As the shell expands a name: `*` and `?` do not take a leading dot, and nothing takes a `/`.
    re = picomatch.makeRe(name, { dot: false, nocase, nobrace: true, noglobstar: true });
    if (nameMatchers.size >= MAX_NAME_MATCHERS) nameMatchers.clear();
    nameMatchers.set(key, re);
  }
  return re;
}

/**
 * The symlinks a pattern's expansion can name below `dir`, as the shell walks it: at each depth,
 * the entries whose name matches that depth's name in some alternative; a link is followed to its
 * real path (a link to a directory is read whole there, so it is not walked into), a directory is
 * walked into while some alternative has names left. Without alternatives, every link at any
 * depth. Links that stay below `dir` (its real path) are left out. At most `budget` entries are
 * looked at.
 */
function linksBelow(
  dir: string,
  alternatives: readonly (readonly string[])[] | undefined,
  budget: number,
  nocase: boolean,
): { targets: string[]; more: boolean } {
  const targets: string[] = [];
  let seen = 0;
  // Without names, every entry at every depth: a program that follows all the links below.
  const walk = (at: string, depth: number, live: readonly (readonly string[])[] | undefined): boolean => {
    let entries: Dirent[];
    try {
      entries = readdirSync(at, { withFileTypes: true });
    } catch {
      return true;
    }
    // This depth's name in each alternative, compiled once for all the entries.
    const tests = live?.map((names) => (depth < names.length ? nameMatcher(names[depth], nocase) : undefined));
    for (const entry of entries) {
      if (++seen > budget) return false;
      const link = entry.isSymbolicLink();
      if (!link && !entry.isDirectory()) continue;
      const matching = live?.filter((_, i) => tests?.[i]?.test(entry.name) === true);
      if (matching?.length === 0) continue;
      const path = join(at, entry.name);
      if (link) {
        const real = realOfExisting(path);
        // A link that stays below the directory adds nothing: the directory is read whole already.
        if (real !== undefined && real !== dir && !real.startsWith(`${dir}/`) && !targets.includes(real)) targets.push(real);
      } else if (entry.isDirectory()) {
        const deeper = matching?.filter((names) => depth + 1 < names.length);
        if ((deeper === undefined || deeper.length > 0) && !walk(path, depth + 1, deeper)) return false;
      }
    }
    return true;
  };
  const complete = walk(dir, 0, alternatives);
  return { targets, more: !complete };
}
