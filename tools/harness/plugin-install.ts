// The ways a plugin reaches a test gateway. Each route ends with the plugin enabled in openclaw.json;
// the caller then sets plugins.entries.<id>.config.
import { cpSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { CliResult } from "./processes.ts";
import type { JsonObject } from "./openclaw-config.ts";

export type PluginInstallRoute =
  /** `plugins.load.paths: [dir]` (TypeScript entries load on this route). */
  | "load-path"
  /** Copy into `<state dir>/extensions/<id>`, the auto-discovered global plugin root. */
  | "extensions-dir"
  /** `openclaw plugins install --link <dir> --force --accept-capabilities`. */
  | "link"
  /** `npm pack` the dir, then `openclaw plugins install <tarball>`; needs built JS entries. */
  | "tarball";

export type PluginSpec = {
  id: string;
  dir: string;
  route?: PluginInstallRoute;
  config?: JsonObject;
};

export type InstallContext = {
  stateDir: string;
  scratchDir: string;
  readConfig: () => JsonObject;
  writeConfig: (config: JsonObject) => void;
  openclaw: (args: string[]) => Promise<CliResult>;
  npm: (args: string[], cwd: string) => Promise<CliResult>;
};

function assertOk(what: string, result: CliResult): void {
  if (result.code !== 0) {
    throw new Error(`${what} failed (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
  }
}

function editPlugins(ctx: InstallContext, edit: (plugins: JsonObject) => void): void {
  const config = ctx.readConfig();
  const plugins = (config.plugins ??= {}) as JsonObject;
  plugins.load ??= {};
  plugins.entries ??= {};
  edit(plugins);
  ctx.writeConfig(config);
}

function enableEntry(ctx: InstallContext, id: string): void {
  editPlugins(ctx, (plugins) => {
    const entries = plugins.entries as JsonObject;
    // ClawOS is installed as the README says: with conversation hooks granted, so that input from
    // other sessions lowers its target before the model turn.
    const hooks = id === "clawos" ? { hooks: { allowConversationAccess: true } } : {};
    entries[id] = { ...((entries[id] as JsonObject) ?? {}), enabled: true, ...hooks };
  });
}

export async function npmPack(ctx: InstallContext, dir: string): Promise<string> {
  const out = join(ctx.scratchDir, "packs");
  mkdirSync(out, { recursive: true });
  const result = await ctx.npm(["pack", "--pack-destination", out, "--json"], dir);
  assertOk("npm pack", result);
  const [first] = JSON.parse(result.stdout) as Array<{ filename: string }>;
  const tarball = first?.filename ? join(out, first.filename.replace(/^@.*\//, "").replace(/\//g, "-")) : undefined;
  if (tarball) return tarball;
  const found = readdirSync(out).find((f) => f.endsWith(".tgz"));
  if (!found) throw new Error(`npm pack produced no tarball in ${out}`);
  return join(out, found);
}

export async function installPlugin(ctx: InstallContext, spec: PluginSpec): Promise<void> {
  const route = spec.route ?? "load-path";
  if (route === "load-path") {
    editPlugins(ctx, (plugins) => {
      const load = plugins.load as JsonObject;
      const paths = (load.paths as string[] | undefined) ?? [];
      if (!paths.includes(spec.dir)) load.paths = [...paths, spec.dir];
    });
    enableEntry(ctx, spec.id);
  } else if (route === "extensions-dir") {
    // The directory is copied as an operator would unpack a plugin with its dependencies.
    const target = join(ctx.stateDir, "extensions", spec.id);
    cpSync(spec.dir, target, { recursive: true });
    enableEntry(ctx, spec.id);
  } else if (route === "link") {
    assertOk("plugins install --link", await ctx.openclaw(["plugins", "install", "--link", spec.dir, "--force", "--accept-capabilities"]));
    enableEntry(ctx, spec.id);
  } else if (route === "tarball") {
    const tarball = await npmPack(ctx, spec.dir);
    assertOk("plugins install <tarball>", await ctx.openclaw(["plugins", "install", tarball, "--force", "--accept-capabilities"]));
    enableEntry(ctx, spec.id);
  } else {
    throw new Error(`unknown plugin install route: ${String(route)}`);
  }
  if (spec.config) setPluginConfigIn(ctx, spec.id, spec.config);
}

export function setPluginConfigIn(ctx: Pick<InstallContext, "readConfig" | "writeConfig">, id: string, pluginConfig: JsonObject): void {
  const config = ctx.readConfig();
  const plugins = (config.plugins ??= {}) as JsonObject;
  const entries = (plugins.entries ??= {}) as JsonObject;
  entries[id] = { enabled: true, ...((entries[id] as JsonObject) ?? {}), config: pluginConfig };
  ctx.writeConfig(config);
}
