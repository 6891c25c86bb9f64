import { compileArgumentPath, DERIVED_PATHS } from "./arguments.ts";
import type { Manifest } from "./manifest-schema.ts";

/**
 * Checks a manifest's argument paths against a JSON schema of its tool's parameters: an `at` that
 * names no parameter never matches a value, so the argument it declares (a path the path rules
 * should see, a recipient a decision should read) is silently never checked. Pure: no I/O.
 *
 * Walking the schema follows `arguments.ts`: a dotted path or a JSON pointer, `*` for every item of
 * an array or every value of an object, and an array where an object key is expected read item by
 * item. A schema step goes through `properties`, `patternProperties`, `additionalProperties` (when
 * it is a schema), `items` / `prefixItems`, `anyOf` / `oneOf` / `allOf` (a path exists when one
 * branch has it) and local `$ref`s. An object that declares no properties (or an empty
 * `properties`) is free-form: anything below it exists. An object that declares properties takes
 * only those (plus a schema-valued `additionalProperties`); `additionalProperties: true` there is
 * tolerance of extras, not a parameter. `@derivedPaths` (what the host derived from the call) is
 * always fine; so is everything when there is no schema (`undefined`) to check against.
 *
 * `accepted` lists paths the host reads although its schema does not define them (aliases a harness
 * relay or a legacy host sends); they are not reported.
 */
export function checkArgumentPaths(
  manifest: Pick<Manifest, "tool" | "arguments" | "modes">,
  paramsSchema: unknown,
  accepted: readonly string[] = [],
): string[] {
  const errors: string[] = [];
  const check = (at: string, where: string) => {
    if (at === DERIVED_PATHS || accepted.includes(at)) return;
    const segments = compileArgumentPath(at);
    const missing = missingSegment(paramsSchema, segments);
    if (missing === undefined) return;
    const under = missing === 0 ? "the top level" : `"${segments.slice(0, missing).join(".")}"`;
    errors.push(
      `${manifest.tool}: ${where} at "${at}" names no parameter of the tool (no "${segments[missing]}" under ${under} of its parameter schema); ` +
        "fix: point it at the parameter the host's schema defines (check its name and nesting), or remove it",
    );
  };
  for (const [index, argument] of (manifest.arguments ?? []).entries()) check(argument.at, `arguments[${index}] (${argument.role})`);
  for (const [index, mode] of (manifest.modes ?? []).entries()) {
    if (mode.when.argument) check(mode.when.argument, `modes[${index}].when.argument`);
    if (mode.when.alsoArgument) check(mode.when.alsoArgument, `modes[${index}].when.alsoArgument`);
  }
  return errors;
}

type Schema = Record<string, unknown>;

const MAX_DEPTH = 64;

/** The index of the first segment the schema does not have, or undefined when the path exists. */
function missingSegment(root: unknown, segments: readonly string[]): number | undefined {
  let deepest = 0;
  const walk = (node: unknown, i: number, depth: number): boolean => {
    if (depth > MAX_DEPTH) return true; // a recursive schema: give the path the benefit of the doubt
    if (node === true || node === undefined) return true;
    if (node === false || node === null || typeof node !== "object" || Array.isArray(node)) return false;
    const schema = node as Schema;
    if (typeof schema.$ref === "string") {
      const target = resolveRef(root, schema.$ref);
      if (target === undefined || walk(target, i, depth + 1)) return true;
    }
    for (const key of ["anyOf", "oneOf", "allOf"]) {
      const branches = schema[key];
      if (Array.isArray(branches) && branches.some((branch) => walk(branch, i, depth + 1))) return true;
    }
    if (i === segments.length) return true;
    deepest = Math.max(deepest, i);
    if (hasBranches(schema) && !hasOwnShape(schema)) return false;
    const segment = segments[i];
    const children = childSchemas(schema, segment);
    if (children === "any") return true;
    if (children.some((child) => walk(child, i + 1, depth + 1))) return true;
    // An array where an object key is expected: its items are read with the same key.
    const items = arrayItems(schema);
    if (!/^\d+$/.test(segment) && segment !== "*" && items.some((item) => walk(item, i, depth + 1))) return true;
    return false;
  };
  return walk(root, 0, 0) ? undefined : deepest;
}

function hasBranches(schema: Schema): boolean {
  return ["anyOf", "oneOf", "allOf", "$ref"].some((key) => schema[key] !== undefined);
}

/** Whether a schema says anything about its own shape besides its union branches. */
function hasOwnShape(schema: Schema): boolean {
  return ["type", "properties", "patternProperties", "additionalProperties", "items", "prefixItems"].some((key) => schema[key] !== undefined);
}

function types(schema: Schema): string[] | undefined {
  if (typeof schema.type === "string") return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.filter((t): t is string => typeof t === "string");
  return undefined;
}

function canBeObject(schema: Schema): boolean {
  const t = types(schema);
  return t === undefined || t.includes("object");
}

function canBeArray(schema: Schema): boolean {
  const t = types(schema);
  return t === undefined ? schema.items !== undefined || schema.prefixItems !== undefined : t.includes("array");
}

function arrayItems(schema: Schema): unknown[] {
  if (!canBeArray(schema)) return [];
  const out: unknown[] = [];
  if (Array.isArray(schema.prefixItems)) out.push(...schema.prefixItems);
  if (Array.isArray(schema.items)) out.push(...schema.items);
  else if (schema.items !== undefined) out.push(schema.items);
  else if (!Array.isArray(schema.prefixItems)) out.push(true);
  return out;
}

/** The schemas one segment can lead to, or "any" when the object is free-form. */
function childSchemas(schema: Schema, segment: string): unknown[] | "any" {
  const out: unknown[] = [];
  if (canBeArray(schema) && (segment === "*" || /^\d+$/.test(segment))) {
    const index = Number(segment);
    if (segment !== "*" && Array.isArray(schema.prefixItems) && index < schema.prefixItems.length) out.push(schema.prefixItems[index]);
    else if (Array.isArray(schema.items)) out.push(...(segment === "*" ? schema.items : schema.items.slice(index, index + 1)));
    else if (schema.items !== undefined) out.push(schema.items);
    else if (segment === "*" && Array.isArray(schema.prefixItems)) out.push(...schema.prefixItems);
    else if (!Array.isArray(schema.prefixItems)) out.push(true);
  }
  if (!canBeObject(schema)) return out;
  const properties = nonEmptyMap(schema.properties);
  const patterns = nonEmptyMap(schema.patternProperties);
  const additional = schema.additionalProperties;
  const additionalSchema = additional !== undefined && typeof additional === "object" && additional !== null ? additional : undefined;
  const declaresShape = properties !== undefined || patterns !== undefined || additionalSchema !== undefined;
  const objectish = types(schema)?.includes("object") || declaresShape;
  if (!declaresShape) {
    // Free-form object (`{ type: "object" }`, `additionalProperties: true`): anything below exists.
    // A schema with no type and no shape at all is anything, too.
    if (additional !== false && (objectish || types(schema) === undefined) && !canBeArray(schema)) return "any";
    return out;
  }
  if (segment === "*") {
    if (properties) out.push(...Object.values(properties));
    if (patterns) out.push(...Object.values(patterns));
    if (additionalSchema) out.push(additionalSchema);
    return out;
  }
  if (properties && Object.hasOwn(properties, segment)) out.push(properties[segment]);
  if (patterns) {
    for (const [pattern, child] of Object.entries(patterns)) {
      if (matches(pattern, segment)) out.push(child);
    }
  }
  if (additionalSchema) out.push(additionalSchema);
  return out;
}

/** A map of schemas with at least one entry (`properties: {}` declares nothing). */
function nonEmptyMap(value: unknown): Record<string, unknown> | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  return Object.keys(value).length > 0 ? (value as Record<string, unknown>) : undefined;
}

function matches(pattern: string, key: string): boolean {
  try {
    return new RegExp(pattern, "u").test(key);
  } catch {
    return false;
  }
}

/** A local `$ref` (`#/$defs/x`, `#/definitions/x`, any JSON pointer into the root). */
function resolveRef(root: unknown, ref: string): unknown {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
