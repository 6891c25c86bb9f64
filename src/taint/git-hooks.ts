import { readdirSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";

/**
 * The hooks git may run for a record in the local repository (`CommandView.localRecord`: git add,
 * git commit, a new branch): the commit's own, the checkout's, a ref's update, and the automatic
 * garbage collection a commit may start.
 */
const RECORD_HOOKS: ReadonlySet<string> = new Set([
  "pre-commit",
  "pre-merge-commit",
  "prepare-commit-msg",
  "commit-msg",
  "post-commit",
  "post-checkout",
  "post-index-change",
  "post-rewrite",
  "reference-transaction",
  "pre-auto-gc",
]);

/** Where git builds look for the system's settings. */
const SYSTEM_SETTINGS = ["/etc/gitconfig", "/usr/local/etc/gitconfig", "/opt/homebrew/etc/gitconfig"];

/** Environment variables that give git settings this module does not read. */
const SETTINGS_ENV = /^GIT_(?:CONFIG(?:_.*)?|DIR|COMMON_DIR|WORK_TREE)$/;

/** What git runs from its hooks for a record in the repository at `gitDir`. */
export type RecordHooks =
  /** No hook: git runs nothing but itself. */
  | { readonly kind: "none" }
  /** Hooks that run, by name, in `dir`. */
  | { readonly kind: "hooks"; readonly dir: string; readonly names: readonly string[] }
  /** Where the hooks are cannot be told (an include, settings from the environment, a hooks directory that cannot be listed). */
  | { readonly kind: "unknown"; readonly why: string };

/**
 * The hooks a record in the repository whose git directory is `gitDir` runs: those in the hooks
 * directory git uses (`core.hooksPath` in the repository's, the user's or the system's settings,
 * else `<gitDir>/hooks`) that a record triggers. Settings this cannot follow (an `[include]`, git
 * settings from the environment) make it unknown, never none.
 */
export function recordHooks(gitDir: string, home: string, env: NodeJS.ProcessEnv = process.env): RecordHooks {
  const fromEnv = Object.keys(env).find((name) => SETTINGS_ENV.test(name));
  if (fromEnv) return { kind: "unknown", why: `git's settings come in part from ${fromEnv}` };
  const xdg = env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(home, ".config");
  const workTree = dirname(gitDir);
  // The latest setting wins: the system's (where distributions and Homebrew build git to look), then the user's, then the repository's.
  const files = [...SYSTEM_SETTINGS, join(xdg, "git", "config"), join(home, ".gitconfig"), join(gitDir, "config")];
  let hooksDir = join(gitDir, "hooks");
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      return { kind: "unknown", why: `${file} cannot be read` };
    }
    const settings = hooksSettings(text);
    if (settings.includes) return { kind: "unknown", why: `${file} includes other settings` };
    if (settings.hooksPath !== undefined) {
      const value = settings.hooksPath;
      hooksDir = value.startsWith("~/") ? join(home, value.slice(2)) : isAbsolute(value) ? value : resolve(workTree, value);
    }
  }
  let names: string[];
  try {
    names = readdirSync(hooksDir).filter((name) => RECORD_HOOKS.has(name));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "none" };
    return { kind: "unknown", why: `its hooks directory ${hooksDir} cannot be listed` };
  }
  return names.length === 0 ? { kind: "none" } : { kind: "hooks", dir: hooksDir, names: names.sort() };
}

/**
 * `core.hooksPath` in a git settings file (the last one wins), and whether the file includes others
 * (`[include]`, `[includeIf ...]`), whose settings this does not follow.
 */
function hooksSettings(text: string): { hooksPath?: string; includes: boolean } {
  let section = "";
  let hooksPath: string | undefined;
  let includes = false;
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"[^"]*")?\s*\]\s*(.*)$/.exec(line);
    if (header) {
      section = (header[1] as string).toLowerCase();
      if (section === "include" || section === "includeif") includes = true;
      line = (header[2] as string).trim();
      if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    }
    // A key git matches without regard to case, in core (or core.x as a dotted section name).
    const entry = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
    if (!entry || section !== "core" || (entry[1] as string).toLowerCase() !== "hookspath") continue;
    hooksPath = unquote((entry[2] ?? "").replace(/\s+[#;].*$/, "").trim());
  }
  return { ...(hooksPath !== undefined ? { hooksPath } : {}), includes };
}

function unquote(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1).replace(/\\(.)/g, "$1") : value;
}
