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
  if (at.startsWith("/")) {
    return at
      .slice(1)
      .split("/")
      .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  }
  return at.split(".");
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
  if (!Object.hasOwn(node, key)) return;
  collect((node as Record<string, unknown>)[key], segments, i + 1, out);
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
  /** A read-only mode's arguments that name what it reads (they do not count as acting). */
  readonly reads?: ReadonlySet<string>;
  /** Where the result may quote outside text (`quotes`), compiled. */
  readonly quotes?: readonly Segments[];
}

export function compileArguments(specs: readonly ArgumentSpec[] | undefined): CompiledArgument[] {
  return (specs ?? []).map((spec) => ({ spec, segments: compileArgumentPath(spec.at), derived: spec.at === DERIVED_PATHS }));
}

export function compileModes(specs: readonly ModeSpec[] | undefined): CompiledMode[] {
  return (specs ?? []).map((spec) => ({
    spec,
    segments: spec.when.argument ? compileArgumentPath(spec.when.argument) : undefined,
    alsoSegments: spec.when.alsoArgument ? compileArgumentPath(spec.when.alsoArgument) : undefined,
    ...(spec.reads?.length ? { reads: new Set(spec.reads) } : {}),
    ...(spec.quotes?.length ? { quotes: spec.quotes.map(compileArgumentPath) } : {}),
  }));
}

function same(a: unknown, b: string | number | boolean): boolean {
  if (typeof a === "string" && typeof b === "string") return a.trim().toLowerCase() === b.toLowerCase();
  return a === b;
}

/** A value is one of the listed ones (strings compared without case). */
export function oneOf(value: unknown, list: readonly (string | number | boolean)[]): boolean {
  return list.some((e) => same(value, e));
}

/** Whether a mode's conditions hold for a value (an argument's, or a host setting's). */
export function modeHolds(spec: ModeSpec, value: unknown): boolean {
  const { equals, notEquals, present } = spec.when;
  if (present !== undefined) {
    const set = value !== undefined && value !== null && value !== false && value !== "";
    if (set !== present) return false;
  }
  if (equals && !equals.some((e) => same(value, e))) return false;
  if (notEquals?.some((e) => same(value, e))) return false;
  return true;
}

/** File paths named by patch text (`*** Add File: x`, `*** Update File:`, `*** Delete File:`, `*** Move to:`, `+++ b/x`). */
export function patchPaths(text: string): string[] {
  const out: string[] = [];
  const re = /^(?:\*\*\* (?:Add|Update|Delete) File:|\*\*\* Move to:|\+\+\+ (?:b\/)?|--- (?:a\/)?)[ \t]*(.+?)[ \t]*$/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const path = m[1];
    if (path && path !== "/dev/null") out.push(path);
  }
  return out;
}
