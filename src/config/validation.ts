import type { TSchema } from "@sinclair/typebox";
import type { TypeCheck } from "@sinclair/typebox/compiler";
import { ValueErrorType, type ValueError } from "@sinclair/typebox/errors";

/**
 * Turns TypeBox validation errors into sentences an operator can act on: the dotted field path,
 * what is wrong, what was found, and what to write instead. Shared by config and manifest checks.
 */
export function describeErrors(check: TypeCheck<TSchema>, value: unknown, where: string): string[] {
  const messages: string[] = [];
  const seen = new Set<string>();
  for (const error of check.Errors(value)) {
    // A union reports its own failure and one per branch; the union's line is the useful one.
    if (isInsideReportedUnion(error, seen)) continue;
    const message = describeError(error, where);
    if (!messages.includes(message)) messages.push(message);
    seen.add(error.path);
    if (messages.length >= 20) break;
  }
  return messages;
}

/** One message per field: a union's branch failures or a missing field's type error add nothing. */
function isInsideReportedUnion(error: ValueError, seenPaths: Set<string>): boolean {
  return seenPaths.has(error.path);
}

export function fieldPath(pointer: string): string {
  if (!pointer) return "(root)";
  return pointer
    .split("/")
    .slice(1)
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((part, index) => (/^\d+$/.test(part) ? `[${part}]` : index === 0 ? part : `.${part}`))
    .join("")
    .replace(/\.\[/g, "[");
}

function shown(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function allowedLiterals(schema: TSchema): string[] | undefined {
  const branches = (schema as { anyOf?: TSchema[] }).anyOf;
  if (!branches?.every((branch) => "const" in branch)) return undefined;
  return branches.map((branch) => JSON.stringify((branch as unknown as { const: unknown }).const));
}

function describeError(error: ValueError, where: string): string {
  const field = fieldPath(error.path);
  const at = `${where}: ${field}`;
  const help = (error.schema as { description?: string }).description;
  switch (error.type) {
    case ValueErrorType.ObjectAdditionalProperties: {
      const patterns = Object.keys((error.schema as { patternProperties?: object }).patternProperties ?? {});
      if (patterns.length) return `${at} is not a name allowed here (names must match ${patterns.join(" or ")}).${help ? ` Fix: ${help}` : ""}`;
      const allowed = Object.keys((error.schema as { properties?: object }).properties ?? {});
      return `${at} is not a known field. Fix: remove it${allowed.length ? ` (known fields here: ${allowed.join(", ")})` : ""}.`;
    }
    case ValueErrorType.ObjectRequiredProperty:
      return `${at} is required. Fix: add it${help ? ` (${help})` : ""}.`;
    case ValueErrorType.Union: {
      const literals = allowedLiterals(error.schema);
      if (literals) return `${at} must be one of ${literals.join(", ")}, got ${shown(error.value)}. Fix: use one of those values.`;
      return `${at} has the wrong shape, got ${shown(error.value)}.${help ? ` Fix: it should be ${help}.` : ""}`;
    }
    case ValueErrorType.StringPattern:
      return `${at} is ${shown(error.value)}, which does not match ${(error.schema as { pattern?: string }).pattern}. Fix: write ${help ?? "a value matching that pattern"}.`;
    default:
      return `${at}: ${error.message.toLowerCase()}, got ${shown(error.value)}.${help ? ` (${help})` : ""}`;
  }
}
