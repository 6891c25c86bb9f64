import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { existsSync } from "node:fs";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { compileArgumentPath, compileArguments, compileModes, type CompiledArgument, type CompiledMode, type Segments } from "./arguments.ts";
import { BUILTIN_CAPABILITIES, type CapabilityTable } from "./capabilities.ts";
import { ManifestSchema, NAMED_VALUE_ROLES, type CitesSpec, type Manifest, type SelectSpec } from "./manifest-schema.ts";
import type { TrustLevel } from "../taint/trust.ts";
import { normalizeToolName } from "./tool-names.ts";
import { describeErrors } from "../config/validation.ts";

const checkManifest = TypeCompiler.Compile(ManifestSchema);

/** A manifest as loaded, with where it came from. `broken` entries block their tool (fail closed). */
export interface ManifestEntry {
  readonly manifest: Manifest;
  readonly source: string;
  readonly unknownCapabilities: readonly string[];
  /** The arguments that decide what a call does, compiled (see `arguments.ts`). */
  readonly arguments: readonly CompiledArgument[];
  readonly modes: readonly CompiledMode[];
  /** Names an argument with a role in NAMED_VALUE_ROLES (a recipient, URL, host, account, id, target session) or a command. */
  readonly namesValues: boolean;
  /** Names an argument with the role `amount`: a call of it can move money (`SessionTaint.repeatedPayment`). */
  readonly movesMoney: boolean;
  /** Those arguments, in the manifest's order (what a call made at owner trust chose, see `noteChosenValues`). */
  readonly naming: readonly CompiledArgument[];
  /** Where the result names the owner's own things (`provenance.selects`), compiled. */
  readonly selects: readonly CompiledSelect[];
  /** Where the result quotes files (`provenance.cites`), compiled. */
  readonly cites?: CompiledCites;
  /** The arguments that say what the lookup looks for (`provenance.chosenBy`), compiled. */
  readonly chosenBy: readonly Segments[];
  /** The top-level params that some argument with a role reads (the first name of each `at`). */
  readonly declaredTop: ReadonlySet<string>;
  /** Where the call sets environment variables for its command (`environment`), compiled. */
  readonly environment: readonly Segments[];
}

/** One `provenance.selects` entry, compiled. */
export interface CompiledSelect {
  readonly at: string;
  readonly segments: Segments;
  readonly trust: TrustLevel;
  /** With `namedBy`: where each entry of the result sits (the deepest `*` the paths share; none: the whole record)... */
  readonly entry: Segments;
  /** ...the identifiers within an entry... */
  readonly within: Segments;
  /** ...and the fields within it that say whose or which it is... */
  readonly named: readonly Segments[];
  /** ...named by any word of a person's message, not only one written as a name (`anyWord`). */
  readonly anyWord: boolean;
}

/** `provenance.cites`, compiled: where each entry sits, and its fields within it. */
export interface CompiledCites {
  readonly entry: Segments;
  readonly path: Segments;
  readonly quote: Segments;
  readonly where: readonly { readonly at: Segments; readonly equals: readonly string[] }[];
  readonly unless: readonly { readonly at: Segments; readonly equals: readonly string[] }[];
}

/** Compiles `provenance.cites`: the entry is the deepest `*` its paths share (none: the whole record). */
function compileCites(cites: CitesSpec): CompiledCites {
  const path = compileArgumentPath(cites.path);
  const quote = compileArgumentPath(cites.quote);
  const tests = [...(cites.where ?? []), ...(cites.unless ?? [])].map((t) => compileArgumentPath(t.at));
  let shared = path.length;
  for (const other of [quote, ...tests]) {
    let i = 0;
    while (i < shared && i < other.length && other[i] === path[i]) i++;
    shared = i;
  }
  const star = shared > 0 ? path.lastIndexOf("*", shared - 1) : -1;
  const n = star + 1;
  const test = (t: { at: string; equals: string[] }) => ({ at: compileArgumentPath(t.at).slice(n), equals: t.equals });
  return {
    entry: path.slice(0, n),
    path: path.slice(n),
    quote: quote.slice(n),
    where: (cites.where ?? []).map(test),
    unless: (cites.unless ?? []).map(test),
  };
}

/** Compiles a select: with `namedBy`, the result is read entry by entry. */
function compileSelect(select: SelectSpec): CompiledSelect {
  const segments = compileArgumentPath(select.at);
  const namedBy = (select.namedBy ?? []).map(compileArgumentPath);
  let shared = segments.length;
  for (const path of namedBy) {
    let i = 0;
    while (i < shared && i < path.length && path[i] === segments[i]) i++;
    shared = i;
  }
  const star = namedBy.length > 0 && shared > 0 ? segments.lastIndexOf("*", shared - 1) : -1;
  const entry = segments.slice(0, star + 1);
  return {
    at: select.at,
    segments,
    trust: select.trust,
    entry,
    within: segments.slice(entry.length),
    named: namedBy.map((path) => path.slice(entry.length)),
    anyWord: select.anyWord === true,
  };
}

export interface BrokenManifest {
  readonly tool?: string;
  readonly source: string;
  readonly errors: readonly string[];
}

export interface ManifestLoad {
  readonly entries: ManifestEntry[];
  readonly broken: BrokenManifest[];
}

/**
 * Checks one manifest. `capabilities` is the table its capability names are checked against (the
 * built-in one plus the operator's `capabilities.custom`); an unknown name keeps the manifest valid
 * (a call carrying it needs `owner`) and is reported by `unknownCapabilityWarnings`.
 */
export function validateManifest(
  value: unknown,
  source: string,
  capabilities: CapabilityTable = BUILTIN_CAPABILITIES,
): { ok: true; entry: ManifestEntry } | { ok: false; broken: BrokenManifest } {
  if (checkManifest.Check(value)) {
    const manifest = value as Manifest;
    // A copied value may only be read from: a path the call writes is never taken from a page as it stood.
    const copiedWrites = (manifest.arguments ?? []).flatMap((a, i) =>
      a.tainted === "copied" && (a.role === "patch" || (a.role === "path" && a.access === "write")) ? [i] : [],
    );
    // What a call writes can be its own only where it writes.
    const misplaced = (manifest.arguments ?? []).flatMap((a, i) =>
      a.contents !== undefined && !(a.role === "path" && a.access === "write")
        ? [`manifest ${source}: arguments[${i}].contents applies only to a path argument with access "write"; fix: remove contents, or set access to "write"`]
        : [],
    );
    const modeErrors = [...misplaced, ...readingModeErrors(manifest, source), ...citesErrors(manifest, source)];
    if (modeErrors.length > 0) return { ok: false, broken: { tool: normalizeToolName(manifest.tool).name, source, errors: modeErrors } };
    if (copiedWrites.length > 0) {
      const tool = normalizeToolName(manifest.tool).name;
      return {
        ok: false,
        broken: {
          tool,
          source,
          errors: copiedWrites.map(
            (i) =>
              `manifest ${source}: arguments[${i}].tainted is "copied" on a ${manifest.arguments?.[i].role} the call writes; fix: remove tainted (only arguments the call reads or fetches may take a value copied whole from an input)`,
          ),
        },
      };
    }
    const compiledArguments = compileArguments(manifest.arguments);
    const naming = compiledArguments.filter((a) => NAMED_VALUE_ROLES.includes(a.spec.role) || a.spec.role === "command");
    return {
      ok: true,
      entry: {
        manifest,
        source,
        unknownCapabilities: [...manifest.capabilities, ...(manifest.modes ?? []).flatMap((m) => m.capabilities)].filter((c) => !capabilities.isKnown(c)),
        arguments: compiledArguments,
        modes: compileModes(manifest.modes),
        namesValues: naming.length > 0,
        movesMoney: compiledArguments.some((a) => a.spec.role === "amount"),
        naming,
        selects: (manifest.provenance?.selects ?? []).map(compileSelect),
        ...(manifest.provenance?.cites ? { cites: compileCites(manifest.provenance.cites) } : {}),
        chosenBy: (manifest.provenance?.chosenBy ?? []).map(compileArgumentPath),
        declaredTop: new Set([...(manifest.arguments ?? []).map((a) => a.at), ...(manifest.environment ?? [])].map((at) => compileArgumentPath(at)[0])),
        environment: (manifest.environment ?? []).map(compileArgumentPath),
      },
    };
  }
  const tool = typeof (value as { tool?: unknown })?.tool === "string" ? normalizeToolName((value as { tool: string }).tool).name : undefined;
  return { ok: false, broken: { tool, source, errors: describeErrors(checkManifest, value, `manifest ${source}`) } };
}

/** `output: "cited"` reads the result by `provenance.cites`, which means nothing without it. */
function citesErrors(manifest: Manifest, source: string): string[] {
  const cited = manifest.provenance?.output === "cited" || (manifest.modes ?? []).some((m) => m.output === "cited");
  if (cited && !manifest.provenance?.cites) {
    return [
      `manifest ${source}: provenance.output "cited" needs provenance.cites; fix: add provenance.cites (where the result names the files it quotes), or set another output`,
    ];
  }
  if (!cited && manifest.provenance?.cites) {
    return [`manifest ${source}: provenance.cites applies only when the output is "cited"; fix: set provenance.output to "cited", or remove cites`];
  }
  return [];
}

/**
 * A mode's `reads` and `requester` narrow a read-only mode, and `reads` names the manifest's own
 * arguments; `decisions` is for a mode that acts.
 */
function readingModeErrors(manifest: Manifest, source: string): string[] {
  const declared = new Set((manifest.arguments ?? []).map((a) => a.at));
  const errors: string[] = [];
  (manifest.modes ?? []).forEach((mode, i) => {
    for (const field of ["reads", "requester"] as const) {
      if (mode[field] !== undefined && mode.readOnly !== true) {
        errors.push(`manifest ${source}: modes[${i}].${field} applies only to a read-only mode; fix: set modes[${i}].readOnly to true, or remove ${field}`);
      }
    }
    if (mode.quotes !== undefined && mode.output !== "call") {
      errors.push(
        `manifest ${source}: modes[${i}].quotes applies only to a mode whose output is "call"; fix: set modes[${i}].output to "call", or remove quotes`,
      );
    }
    if (mode.hostText !== undefined && mode.quotes === undefined) {
      errors.push(
        `manifest ${source}: modes[${i}].hostText applies only to a mode with quotes; fix: add quotes (the fields it applies to), or remove hostText`,
      );
    }
    (mode.hostText ?? []).forEach((pattern, j) => {
      try {
        new RegExp(pattern, "u");
      } catch (error) {
        errors.push(
          `manifest ${source}: modes[${i}].hostText[${j}] is not a regular expression (${(error as Error).message}); fix: write it as JavaScript's RegExp reads it, matched against the whole value`,
        );
      }
    });
    if (mode.decisions !== undefined && mode.readOnly === true) {
      errors.push(
        `manifest ${source}: modes[${i}].decisions does not apply to a read-only mode (it is decided with its own trust); fix: remove decisions, or readOnly`,
      );
    }
    (mode.reads ?? []).forEach((at, j) => {
      if (!declared.has(at)) {
        errors.push(
          `manifest ${source}: modes[${i}].reads[${j}] "${at}" is not one of the manifest's arguments; fix: name an argument's "at" exactly as in arguments`,
        );
      }
    });
  });
  return errors;
}

/** Loads every `*.json` in a directory. A file that cannot be read or parsed is reported, never skipped silently. */
export function loadManifestDir(dir: string, capabilities: CapabilityTable = BUILTIN_CAPABILITIES): ManifestLoad {
  const entries: ManifestEntry[] = [];
  const broken: BrokenManifest[] = [];
  let files: string[];
  try {
    files = readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .sort();
  } catch (error) {
    broken.push({
      source: dir,
      errors: [`manifest directory ${dir} cannot be read: ${(error as Error).message}. Fix: create it or remove it from manifestDirs.`],
    });
    return { entries, broken };
  }
  for (const file of files) {
    const path = join(dir, file);
    const stem = normalizeToolName(file.slice(0, -".json".length)).name;
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(path, "utf8"));
    } catch (error) {
      broken.push({ tool: stem, source: path, errors: [`manifest ${path} is not valid JSON: ${(error as Error).message}. Fix: correct the file.`] });
      continue;
    }
    const result = validateManifest(parsed, path, capabilities);
    if (result.ok) entries.push(result.entry);
    else broken.push({ ...result.broken, tool: result.broken.tool ?? stem });
  }
  return { entries, broken };
}

/** The package's own manifests directory, found from this module whether it runs from src/ or dist/. */
export function builtinManifestDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    if (existsSync(join(dir, "openclaw.plugin.json")) && existsSync(join(dir, "manifests"))) return join(dir, "manifests");
    dir = dirname(dir);
  }
  throw new Error("ClawOS cannot find its built-in manifests directory next to openclaw.plugin.json");
}

interface PatternEntry {
  readonly regex: RegExp;
  readonly entry: ManifestEntry;
}

function globToRegExp(pattern: string): RegExp {
  const escaped = pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\-]/g, "\\$&"));
  return new RegExp(`^${escaped.join(".*")}$`);
}

/**
 * Name → manifest lookup. Later manifests replace earlier ones of the same name, so operators'
 * manifests override built-ins. Broken manifests shadow their tool so that calls to it block.
 */
export class ManifestRegistry {
  private readonly byName = new Map<string, ManifestEntry>();
  private readonly brokenByName = new Map<string, BrokenManifest>();
  private readonly patterns: PatternEntry[] = [];
  readonly broken: readonly BrokenManifest[];
  readonly entries: readonly ManifestEntry[];

  constructor(loads: readonly ManifestLoad[]) {
    const entries: ManifestEntry[] = [];
    const broken: BrokenManifest[] = [];
    for (const load of loads) {
      for (const entry of load.entries) {
        entries.push(entry);
        const names = [entry.manifest.tool, ...(entry.manifest.aliases ?? [])];
        for (const name of names) {
          this.byName.set(name, entry);
          this.brokenByName.delete(name);
        }
        for (const pattern of entry.manifest.patterns ?? []) this.patterns.unshift({ regex: globToRegExp(pattern), entry });
      }
      for (const bad of load.broken) {
        broken.push(bad);
        if (bad.tool) this.brokenByName.set(bad.tool, bad);
      }
    }
    this.entries = entries;
    this.broken = broken;
  }

  /** The broken manifest that claims this tool, if any: its calls must block. */
  brokenFor(name: string): BrokenManifest | undefined {
    return this.brokenByName.get(name);
  }

  /** The canonical name of a tool called by an alias (`bash` is `exec`); other names are themselves. */
  canonicalName(name: string): string {
    return this.byName.get(name)?.manifest.tool ?? name;
  }

  lookup(name: string): ManifestEntry | undefined {
    const exact = this.byName.get(name);
    if (exact) return exact;
    for (const { regex, entry } of this.patterns) if (regex.test(name)) return entry;
    return undefined;
  }

  /** Distinct manifests (aliases folded), for status output. */
  distinct(): ManifestEntry[] {
    return [...new Set(this.byName.values())];
  }
}

/**
 * One line per unknown capability in a loaded manifest: the name, the file (or config entry) and
 * tool, the closest known name and the known list. Shown at load in the log, by `/clawos` and by
 * `/clawos manifests`.
 */
export function unknownCapabilityWarnings(entries: readonly ManifestEntry[], capabilities: CapabilityTable): string[] {
  const out: string[] = [];
  for (const entry of entries) {
    for (const name of new Set(entry.unknownCapabilities)) {
      out.push(
        `${capabilities.describeUnknown(name, `manifest ${entry.source} (tool ${entry.manifest.tool})`)} Until then a call to ${entry.manifest.tool} needs owner.`,
      );
    }
  }
  return out;
}
