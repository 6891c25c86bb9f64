// Where npm installs global packages (`npm root -g`), worked out the way npm's own config does it,
// without running npm: `clawos patch-host` looks for a global OpenClaw there, and what the plugin
// ships starts no processes (OpenClaw's code-safety scan would flag it).
//
// npm's prefix, most specific first: the `npm_config_prefix` environment variable, the global
// prefix npm hands the commands it runs (`npm_config_global_prefix`, so `npx clawos` agrees with
// the npm that started it), `prefix=` in the user's npmrc, then in the global npmrc, then the
// default next to the Node binary (`PREFIX` and `DESTDIR` honoured as npm does). Global packages
// live in `<prefix>/lib/node_modules`, or `<prefix>/node_modules` on Windows.
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, posix, win32 } from "node:path";

export interface NpmGlobalRootInputs {
  readonly env: NodeJS.ProcessEnv;
  readonly platform?: NodeJS.Platform;
  /** The Node binary npm would run under. */
  readonly execPath?: string;
  readonly home?: string;
  /** Reads an npmrc file; undefined when there is none. */
  readonly readFile?: (path: string) => string | undefined;
}

/** An environment variable by name, case-insensitively (npm reads `NPM_CONFIG_PREFIX` too). */
function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(env)) {
    if (key.toLowerCase() === lower && value?.trim()) return value.trim();
  }
  return undefined;
}

function readFileOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** `${VAR}` from the environment and a leading `~`, as npm expands config values. */
function expand(value: string, env: NodeJS.ProcessEnv, home: string): string {
  const unquoted = /^(["']).*\1$/.test(value) ? value.slice(1, -1) : value;
  const vars = unquoted.replace(/\$\{([^}]+)\}/g, (_, name: string) => env[name] ?? "");
  return vars.startsWith("~/") || vars === "~" ? join(home, vars.slice(1)) : vars;
}

/** The `prefix` an npmrc file sets, if it sets one. */
export function npmrcPrefix(text: string | undefined, env: NodeJS.ProcessEnv, home: string): string | undefined {
  if (!text) return undefined;
  let found: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*prefix\s*=\s*(.*?)\s*$/.exec(line);
    if (m?.[1]) found = expand(m[1], env, home);
  }
  return found;
}

/** npm's global prefix. */
export function npmGlobalPrefix(inputs: NpmGlobalRootInputs): string {
  const { env } = inputs;
  const platform = inputs.platform ?? process.platform;
  const path = platform === "win32" ? win32 : posix;
  const home = inputs.home ?? (env.HOME?.trim() || homedir());
  const read = inputs.readFile ?? readFileOrUndefined;
  const execPath = inputs.execPath ?? process.execPath;

  let defaultPrefix = envValue(env, "PREFIX") ?? (platform === "win32" ? path.dirname(execPath) : path.dirname(path.dirname(execPath)));
  const destdir = envValue(env, "DESTDIR");
  if (destdir && platform !== "win32") defaultPrefix = path.join(destdir, defaultPrefix);

  const explicit = envValue(env, "npm_config_prefix") ?? envValue(env, "npm_config_global_prefix");
  if (explicit) return path.resolve(expand(explicit, env, home));
  const userConfig = envValue(env, "npm_config_userconfig") ?? path.join(home, ".npmrc");
  const fromUser = npmrcPrefix(read(expand(userConfig, env, home)), env, home);
  if (fromUser) return path.resolve(fromUser);
  const globalConfig = envValue(env, "npm_config_globalconfig") ?? path.join(defaultPrefix, "etc", "npmrc");
  const fromGlobal = npmrcPrefix(read(expand(globalConfig, env, home)), env, home);
  if (fromGlobal) return path.resolve(fromGlobal);
  return path.resolve(defaultPrefix);
}

/** What `npm root -g` prints. */
export function npmGlobalRoot(inputs: NpmGlobalRootInputs): string {
  const platform = inputs.platform ?? process.platform;
  const prefix = npmGlobalPrefix(inputs);
  return platform === "win32" ? win32.join(prefix, "node_modules") : posix.join(prefix, "lib", "node_modules");
}

/** The global root for this process (its environment, home and Node binary). */
export function currentNpmGlobalRoot(): string {
  return npmGlobalRoot({ env: process.env });
}
