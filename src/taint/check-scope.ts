import { closeSync, openSync, readdirSync, readSync, realpathSync, type Dirent } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

/**
 * What a check of the project (a test run, a build, a lint; `CommandView.projectCheck`) in a
 * directory runs for certain, inside the outermost trusted directory that holds it:
 *
 * - the project: the outermost directory from the check's up to that trusted directory that holds
 *   a manifest, a build file or a tool's settings (a monorepo's root above the package the tests
 *   run in), else the check's own directory;
 * - what the project's manifests, build files and tools' settings (and those in its
 *   dot-directories, `.vitepress/config.mts`) name by a relative path (`file:../shared`,
 *   `path = "../core"`, go.work's `use ../lib`, a script's `../tools/run.js`, `srcDir: '../docs'`),
 *   and what those name in turn: a linked package or docs directory is built and run with it;
 * - the trusted directories above the project (`above`), where tools look for settings and
 *   packages by themselves.
 *
 * Every file in the trees counts, documents included. The caller still counts code elsewhere in
 * the trusted directory: a path written in source code, or computed, is not read here. When the
 * scope cannot be told (a directory that cannot be listed, a project too large to look through,
 * Python start-up code that computes its import path) there is none, and the caller counts every
 * file in the trusted directory.
 */
export interface CheckScope {
  /** Directories every file below which counts. */
  readonly trees: readonly ScopeTree[];
  /** The trusted directories above the project, outermost last: only what tools load from above counts there. */
  readonly above: readonly string[];
}

export interface ScopeTree {
  readonly dir: string;
  /** The manifest or build file that names it, for a linked directory; none for the project. */
  readonly namedBy?: string;
}

/** Directories a project's walk for manifests does not enter: installed packages, build output, tool state. */
const NOT_READ_DOT_DIRS = new Set([
  ".git",
  ".venv",
  ".tox",
  ".nox",
  ".next",
  ".nuxt",
  ".svelte-kit",
  ".turbo",
  ".cache",
  ".parcel-cache",
  ".mypy_cache",
  ".pytest_cache",
  ".ruff_cache",
  ".gradle",
  ".idea",
  ".yarn",
  ".pnpm-store",
]);
/** A tool's settings in a project's dot-directory (`.vitepress/config.mts`, `.storybook/main.ts`). */
const DOT_DIR_SETTINGS = /\.(?:[cm]?[jt]sx?|json5?|toml|ya?ml)$/;
const NOT_WALKED = new Set(["node_modules", "vendor", "target", "dist", "build", "out", "__pycache__", "venv", "env", "site-packages", "bower_components"]);
/** How deep below the project its manifests are looked for (a monorepo's `packages/*` is 2). */
const MAX_DEPTH = 3;
/** How many directories of the project are listed before the scope is given up as unknown. */
const MAX_DIRS = 400;
/** How many manifests are read before the scope is given up as unknown. */
const MAX_MANIFESTS = 200;
/** How much of a manifest is read for the paths it names. */
const MANIFEST_BYTES = 256 * 1024;

/**
 * A relative path in a manifest: `./x`, `../x`, `..` (backslashes too: a .csproj's `..\Lib`), after
 * a quote, a blank, `=`, `:` (`file:../x`), a bracket, a comma, or a `/` or `}` that ends a
 * placeholder (`<rootDir>/../x`, `${__dirname}/../x`; taken from the file's directory, which may
 * name more than the tool would), up to a character no path here holds (a glob's `*` ends it:
 * `./packages/*` names `./packages`).
 */
const RELATIVE_PATH = /(?:^|[\s"'`=:(,[<>/}])(\.\.?(?:[\\/][^\s"'`,;()[\]{}<>*?|&$]*)?)(?![\w.-])/gm;

/** A `..` that is a whole part of a path, not one of `../x`. */
const BARE_PARENT = /(?<![\w./\\])\.\.(?![\w./\\])/g;

/** Python that computes an import path from its own file's place. */
const PYTHON_COMPUTED_PATH = /\bsys\.path\b|\bos\.pardir\b|\.parents?\b|\bPYTHONPATH\b/;

/**
 * The scope of a check in `dir`, which `root` (the outermost trusted directory holding it) holds.
 * `isProjectFile` says whether a file's name makes its directory part of a project.
 */
export function checkScope(dir: string, root: string, isProjectFile: (name: string) => boolean): CheckScope | undefined {
  const chain: string[] = [];
  for (let at = dir; ; at = dirname(at)) {
    chain.push(at);
    if (at === root || dirname(at) === at) break;
  }
  if (chain[chain.length - 1] !== root) return undefined;
  const manifests: string[] = [];
  let project = dir;
  for (const at of chain) {
    const entries = listing(at);
    if (entries === undefined) return undefined;
    const found = entries.filter((e) => !e.isDirectory() && isProjectFile(e.name)).map((e) => join(at, e.name));
    if (found.length > 0) project = at;
    manifests.push(...found);
  }
  const dotSettings = new Set<string>();
  const links: string[] = [];
  const walked = projectManifests(project, isProjectFile, dotSettings, links);
  if (walked === undefined) return undefined;
  manifests.push(...walked);
  const trees: ScopeTree[] = [{ dir: project }];
  // A tree a link or a manifest names counts whole, and what its own manifests name is built with
  // it. Outside the trusted directory is outside what ClawOS vouches for anyway; inside a tree
  // already counted adds nothing.
  const addTree = (target: string, namedBy: string) => {
    if (!within(target, root) || trees.some((t) => within(target, t.dir))) return;
    trees.push({ dir: target, namedBy });
    for (const e of listing(target) ?? []) if (!e.isDirectory() && isProjectFile(e.name)) manifests.push(join(target, e.name));
  };
  for (const link of links) {
    let target: string;
    try {
      target = realpathSync(link);
    } catch {
      continue; // a dangling link runs nothing
    }
    addTree(target, link);
  }
  const read = new Set<string>();
  for (let i = 0; i < manifests.length; i++) {
    const manifest = manifests[i] as string;
    if (read.has(manifest)) continue;
    read.add(manifest);
    if (read.size > MAX_MANIFESTS) return undefined;
    const text = head(manifest);
    // A Python start-up file that computes where to import from (`sys.path`, `Path(__file__).parents[1]`)
    // can name any directory: the scope is not known.
    if (text === undefined || (manifest.endsWith(".py") && PYTHON_COMPUTED_PATH.test(text))) return undefined;
    // A tool's settings in a dot-directory may name paths from the project's directory
    // (VitePress's srcDir) or from its own (Storybook's stories): both count.
    const bases = dotSettings.has(manifest) ? [dirname(manifest), dirname(dirname(manifest))] : [dirname(manifest)];
    for (const match of text.matchAll(RELATIVE_PATH)) {
      const spelled = (match[1] as string).replace(/\\/g, "/");
      for (const base of bases) {
        // `path.join(__dirname, "..", "..")`: a bare `..` goes up once for each on its line.
        const named = spelled === ".." ? upFrom(base, barePartsOnLine(text, match.index ?? 0)) : resolve(base, spelled);
        // A named manifest (`..\Lib\Lib.csproj`, `../core/Cargo.toml`) stands for its project's directory.
        addTree(isProjectFile(basename(named)) ? dirname(named) : named, manifest);
      }
    }
  }
  // A tree that a later link's tree holds counts once, as the larger one.
  const kept = trees.filter((t) => !trees.some((o) => o !== t && o.dir !== t.dir && within(t.dir, o.dir)));
  return { trees: kept, above: chain.slice(chain.indexOf(project) + 1) };
}

/** How many bare `..` parts the line holding `at` has (at least one: the one found there). */
function barePartsOnLine(text: string, at: number): number {
  const start = text.lastIndexOf("\n", at) + 1;
  const end = text.indexOf("\n", at);
  const line = text.slice(start, end === -1 ? undefined : end);
  return Math.max(1, line.match(BARE_PARENT)?.length ?? 0);
}

function upFrom(dir: string, levels: number): string {
  let at = dir;
  for (let i = 0; i < levels; i++) at = dirname(at);
  return at;
}

/**
 * Whether a labelled path above the project is one tools load from there by themselves
 * (`CheckScope.above`): a manifest, a build file or a dot-file (`.npmrc`, `.pytest.ini`,
 * `.tool-versions`) in a directory above, or anything in its `node_modules` or a dot-directory
 * (`.cargo/config.toml`, a `.venv`), not its `.git`.
 */
export function loadedFromAbove(path: string, above: readonly string[], isProjectFile: (name: string) => boolean): boolean {
  for (const dir of above) {
    const prefix = dir.endsWith("/") ? dir : `${dir}/`;
    if (!path.startsWith(prefix)) continue;
    const rest = path.slice(prefix.length);
    const first = rest.split("/")[0] as string;
    if (rest === first) {
      if (isProjectFile(first) || first.startsWith(".")) return true;
    } else if (first === "node_modules" || (first.startsWith(".") && first !== ".git")) return true;
  }
  return false;
}

/**
 * The manifests and build files below the project, a few levels deep, and the settings files in
 * its dot-directories (noted in `dotSettings`); undefined when there are too many directories to
 * look through.
 */
function projectManifests(project: string, isProjectFile: (name: string) => boolean, dotSettings: Set<string>, links: string[]): string[] | undefined {
  const found: string[] = [];
  let dirs = 0;
  const queue: { dir: string; depth: number }[] = [{ dir: project, depth: 0 }];
  while (queue.length > 0) {
    const { dir, depth } = queue.shift() as { dir: string; depth: number };
    if (++dirs > MAX_DIRS) return undefined;
    const entries = listing(dir);
    if (entries === undefined) return undefined;
    for (const e of entries) {
      // A directory linked in (`common -> ../common`), and a package `npm link` or a workspace put
      // in node_modules, is run with the project wherever it is.
      if (e.isSymbolicLink()) links.push(join(dir, e.name));
      else if (e.isDirectory() && e.name === "node_modules") {
        const linked = linkedPackages(join(dir, e.name));
        if (linked === undefined) return undefined;
        links.push(...linked);
      }
      if (e.isDirectory()) {
        if (depth < MAX_DEPTH && !e.name.startsWith(".") && !NOT_WALKED.has(e.name)) queue.push({ dir: join(dir, e.name), depth: depth + 1 });
        // A tool's settings kept in a dot-directory of the project name what it builds too.
        else if (depth === 0 && e.name.startsWith(".") && !NOT_READ_DOT_DIRS.has(e.name)) {
          const inner = listing(join(dir, e.name));
          if (inner === undefined) return undefined;
          for (const f of inner) {
            if (f.isDirectory() || !DOT_DIR_SETTINGS.test(f.name)) continue;
            found.push(join(dir, e.name, f.name));
            dotSettings.add(join(dir, e.name, f.name));
          }
        }
      } else if (depth > 0 && isProjectFile(e.name)) found.push(join(dir, e.name));
    }
  }
  return found;
}

/** The symbolic links among a node_modules directory's packages (`name`, `@scope/name`). */
function linkedPackages(modules: string): string[] | undefined {
  const entries = listing(modules);
  if (entries === undefined) return undefined;
  const out: string[] = [];
  for (const e of entries) {
    if (e.isSymbolicLink()) out.push(join(modules, e.name));
    else if (e.isDirectory() && e.name.startsWith("@")) {
      const scoped = listing(join(modules, e.name));
      if (scoped === undefined) return undefined;
      for (const s of scoped) if (s.isSymbolicLink()) out.push(join(modules, e.name, s.name));
    }
  }
  return out;
}

/** A directory's entries: none when it does not exist (yet), undefined when it cannot be listed. */
function listing(dir: string): Dirent[] | undefined {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" ? [] : undefined;
  }
}

/** The first `MANIFEST_BYTES` of a file as text; undefined when it cannot be read. */
function head(path: string): string | undefined {
  // A manifest that went away since the listing names nothing.
  return fileHead(path, MANIFEST_BYTES, "");
}

/** The first `bytes` of a file as text; `missing` when it is not there, undefined when it cannot be read. */
export function fileHead(path: string, bytes: number, missing?: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const buffer = Buffer.alloc(bytes);
    const n = readSync(fd, buffer, 0, bytes, 0);
    return buffer.subarray(0, n).toString("utf8");
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT" ? missing : undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function within(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith("/") ? dir : `${dir}/`);
}
