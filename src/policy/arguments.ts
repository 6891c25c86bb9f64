import type { ArgumentSpec, ModeSpec } from "./manifest-schema.ts";

/**
 * Reading a manifest's arguments out of a call's params. An argument is named by a dotted path
 * (`edits.*.path`, `*` for every array item or object key) or a JSON pointer (`/edits/0/path`).
 * Compiled once per manifest; reading is a walk over the params with no allocation beyond the
 * values found.
 */

export type Segments = readonly string[];

/** The host's own derived facts (apply_patch's target paths) are read through this pseudo-argument. */
export const DERIVED_PATHS = "@derivedPaths";

export function compileArgumentPath(at: string): Segments {
  const segments = at.startsWith("/")
    ? at
        .slice(1)
        .split("/")
        .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    : at.split(".");
  for (const segment of segments) {
    const snake = snakeCaseKey(segment);
    if (snake !== segment) SNAKE_CASE.set(segment, snake);
  }
  return segments;
}

/**
 * OpenClaw reads a camelCase param under its snake_case name too when the camelCase one is absent
 * (`filePath` or `file_path`, `mediaUrls` or `media_urls`): both are read, so a manifest naming one
 * covers the other. Filled as manifests compile; read on the hot path without allocating.
 */
const SNAKE_CASE = new Map<string, string>();

/** The host's snake_case form of a key (`resolveSnakeCaseParamKey`): `mediaURLs` -> `media_urls`. */
export function snakeCaseKey(key: string): string {
  return key
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase();
}

/** Every scalar at a path (strings, numbers, booleans), arrays at the end included item by item. */
export function valuesAt(root: unknown, segments: Segments): unknown[] {
  const out: unknown[] = [];
  collect(root, segments, 0, out);
  return out;
}

function collect(node: unknown, segments: Segments, i: number, out: unknown[]): void {
  if (node === undefined || node === null) return;
  if (i === segments.length) {
    if (Array.isArray(node)) for (const item of node) collect(item, segments, i, out);
    else out.push(node);
    return;
  }
  if (typeof node !== "object") return;
  const key = segments[i];
  if (key === "*") {
    const values = Array.isArray(node) ? node : Object.values(node);
    for (const value of values) collect(value, segments, i + 1, out);
    return;
  }
  if (Array.isArray(node) && !/^\d+$/.test(key)) {
    // An array where an object was expected: every item is read (a batch of edits, say).
    for (const item of node) collect(item, segments, i, out);
    return;
  }
  if (Object.hasOwn(node, key)) collect((node as Record<string, unknown>)[key], segments, i + 1, out);
  const snake = SNAKE_CASE.get(key);
  if (snake !== undefined && Object.hasOwn(node, snake)) collect((node as Record<string, unknown>)[snake], segments, i + 1, out);
}

export interface CompiledArgument {
  readonly spec: ArgumentSpec;
  readonly segments: Segments;
  readonly derived: boolean;
}

export interface CompiledMode {
  readonly spec: ModeSpec;
  readonly segments?: Segments;
  readonly alsoSegments?: Segments;
  /** `when.equals`, `when.notEquals` and `when.alsoEquals`, compiled (see `ValueList`). */
  readonly equals?: ValueList;
  readonly notEquals?: ValueList;
  readonly alsoEquals: ValueList;
  /** A read-only mode's arguments that name what it reads (they do not count as acting). */
  readonly reads?: ReadonlySet<string>;
  /** Where the result may quote outside text (`quotes`, `hostText`), compiled. */
  readonly quotes?: QuotedFields;
}

/** A mode's `quotes`: the result's fields that may hold outside text, and the texts the host writes there itself. */
export interface QuotedFields {
  readonly fields: readonly Segments[];
  /** `hostText`, one expression matched against a whole value. */
  readonly hostText?: RegExp;
}

export function compileArguments(specs: readonly ArgumentSpec[] | undefined): CompiledArgument[] {
  return (specs ?? []).map((spec) => ({ spec, segments: compileArgumentPath(spec.at), derived: spec.at === DERIVED_PATHS }));
}

export function compileModes(specs: readonly ModeSpec[] | undefined): CompiledMode[] {
  return (specs ?? []).map((spec) => ({
    spec,
    segments: spec.when.argument ? compileArgumentPath(spec.when.argument) : undefined,
    alsoSegments: spec.when.alsoArgument ? compileArgumentPath(spec.when.alsoArgument) : undefined,
    ...(spec.when.equals ? { equals: new ValueList(spec.when.equals) } : {}),
    ...(spec.when.notEquals ? { notEquals: new ValueList(spec.when.notEquals) } : {}),
    alsoEquals: new ValueList(spec.when.alsoEquals ?? []),
    ...(spec.reads?.length ? { reads: new Set(spec.reads) } : {}),
    ...(spec.quotes?.length ? { quotes: compileQuotes(spec.quotes, spec.hostText) } : {}),
  }));
}

function compileQuotes(fields: readonly string[], hostText: readonly string[] | undefined): QuotedFields {
  return {
    fields: fields.map(compileArgumentPath),
    ...(hostText?.length ? { hostText: new RegExp(`^(?:${hostText.map((p) => `(?:${p})`).join("|")})$`, "u") } : {}),
  };
}

/**
 * A list of values an argument is compared with (a mode's `equals`), compiled once: a value is in it
 * when it is one of the listed ones, a string trimmed and without case (`" Send"` is `send`), any
 * other value as it is. Looked up, not compared item by item: a mode may list dozens of actions.
 */
export class ValueList {
  /** The listed strings, lower case. */
  private readonly strings: ReadonlySet<string>;
  /** The listed numbers and booleans. */
  private readonly others: readonly (number | boolean)[];

  constructor(list: readonly (string | number | boolean)[]) {
    this.strings = new Set(list.filter((e): e is string => typeof e === "string").map((e) => e.toLowerCase()));
    this.others = list.filter((e): e is number | boolean => typeof e !== "string");
  }

  has(value: unknown): boolean {
    if (typeof value === "string") return this.strings.size > 0 && this.strings.has(value.trim().toLowerCase());
    for (const e of this.others) if (e === value) return true;
    return false;
  }
}

/** Whether a mode's conditions hold for a value (an argument's, or a host setting's). */
export function modeHolds(mode: CompiledMode, value: unknown): boolean {
  const { present } = mode.spec.when;
  if (present !== undefined) {
    const set = value !== undefined && value !== null && value !== false && value !== "";
    if (set !== present) return false;
  }
  if (mode.equals && !mode.equals.has(value)) return false;
  if (mode.notEquals?.has(value)) return false;
  return true;
}

/**
 * The files a patch moves (`*** Update File: a` then `*** Move to: b`): what is in `a` lands in `b`,
 * so `b` keeps `a`'s label.
 */
export function patchMoves(text: string): { from: string; to: string }[] {
  const out: { from: string; to: string }[] = [];
  const re = /^[ \t]*\*\*\* (Update File|Move to):[ \t]*(.+?)[ \t]*$/gm;
  let from: string | undefined;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[1] === "Update File") from = m[2];
    else if (from !== undefined && m[2]) {
      out.push({ from, to: m[2] });
      from = undefined;
    }
  }
  return out;
}

/** File paths named by patch text (`*** Add File: x`, `*** Update File:`, `*** Delete File:`, `*** Move to:`, `+++ b/x`). */
export function patchPaths(text: string): string[] {
  const out: string[] = [];
  const re = /^[ \t]*(?:\*\*\* (?:Add|Update|Delete) File:|\*\*\* Move to:|\+\+\+ (?:b\/)?|--- (?:a\/)?)[ \t]*(.+?)[ \t]*$/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const path = m[1];
    if (path && path !== "/dev/null") out.push(path);
  }
  return out;
}
