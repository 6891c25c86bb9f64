/**
 * How a tool call is named and what it really runs. Meta tools (Tool Search's `tool_call`,
 * Code Mode's outer `exec`) are resolved to the tool behind them, so the real tool is what
 * gets checked.
 */

/** A tool name as OpenClaw registers it: lower-case letters, digits, `_`, `-`, `.`; at most 64 characters (MCP and plugin tools). */
export const TOOL_NAME_PATTERN = "^[a-z0-9][a-z0-9_.-]{0,63}$";
const VALID_TOOL_NAME = new RegExp(TOOL_NAME_PATTERN);

export const TOOL_CALL = "tool_call";
/** Virtual name of Code Mode's outer call: the host names it `exec` with toolKind code_mode_exec. */
export const CODE_MODE_EXEC = "code_mode_exec";

export interface ResolvedTool {
  /** The name the call arrived with, as given by the host. */
  readonly requested: string;
  /** The normalized name of the tool that actually runs (the inner tool for `tool_call`). */
  readonly name: string;
  /** The meta tool the call came through, if any. */
  readonly via?: string;
  /** False when the name cannot be a real OpenClaw tool name (look-alike characters, too long, empty). */
  readonly validName: boolean;
  /** Set when a meta call's target could not be read from its parameters. */
  readonly unresolved?: string;
}

/** NFKC folds compatibility forms (full-width letters and the like); case and whitespace are not identity. */
export function normalizeToolName(raw: unknown): { name: string; valid: boolean } {
  if (typeof raw !== "string") return { name: "", valid: false };
  // A valid name is lower-case ASCII already, which NFKC, trim and lower-casing leave alone.
  if (VALID_TOOL_NAME.test(raw)) return { name: raw, valid: true };
  const name = raw.normalize("NFKC").trim().toLowerCase();
  return { name, valid: VALID_TOOL_NAME.test(name) };
}

/**
 * Reads a Tool Search catalog id: `openclaw:core:exec` and `openclaw:<plugin>:<tool>` name the tool
 * itself, `mcp:<server>:<tool>` names the MCP tool `<server>__<tool>`; a bare name is itself.
 */
export function catalogIdToToolName(id: string): string {
  const parts = id.split(":");
  if (parts.length >= 3 && parts[0] === "openclaw") return parts.slice(2).join(":");
  if (parts.length >= 3 && parts[0] === "mcp") return `${parts[1]}__${parts.slice(2).join(":")}`;
  return id;
}

/** The keys a meta call (`tool_call`) names its tool with, in the order the host reads them. */
const SELECTOR_KEYS = ["id", "toolId", "name"] as const;

/** The tool a meta call (`tool_call`) names in its parameters, as written (the host's `id ?? toolId ?? name`). */
export function metaTarget(params: unknown): string | undefined {
  if (!params || typeof params !== "object") return undefined;
  const record = params as Record<string, unknown>;
  const key = SELECTOR_KEYS.find((k) => record[k] != null);
  const value = key ? record[key] : record.tool;
  return typeof value === "string" && value.trim() ? value.trim() : undefined;
}

/**
 * The arguments a meta call (`tool_call`) passes to its tool, read as the host reads them: `args`,
 * else `input`, with `args.<name>` keys merged in; with neither (or an empty one), every other key
 * of the call but the one naming the tool. A selector key the host would also drop (a second one
 * that names the same tool) stays in: an argument more to decide, never one less.
 */
export function bridgedArgs(params: unknown): unknown {
  if (!params || typeof params !== "object" || Array.isArray(params)) return undefined;
  const record = params as Record<string, unknown>;
  const dotted: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) if (key.startsWith("args.") && key.length > 5) dotted[key.slice(5)] = value;
  const nested = record.args ?? record.input;
  const empty = isRecord(nested) && Object.keys(nested).length === 0;
  if (nested != null && !empty) return isRecord(nested) ? { ...dotted, ...nested } : nested;
  const selector = SELECTOR_KEYS.find((k) => record[k] != null) ?? "id";
  const flat: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (key === "args" || key === "input" || key === selector || (key.startsWith("args.") && key.length > 5)) continue;
    flat[key] = value;
  }
  return { ...dotted, ...flat };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

export function resolveTool(toolName: unknown, params: unknown, toolKind?: unknown): ResolvedTool {
  const requested = typeof toolName === "string" ? toolName : String(toolName);
  const outer = normalizeToolName(toolName);
  if (toolKind === CODE_MODE_EXEC) {
    return { requested, name: CODE_MODE_EXEC, validName: true };
  }
  if (outer.name === TOOL_CALL) {
    const target = metaTarget(params);
    if (!target) return { requested, name: TOOL_CALL, via: TOOL_CALL, validName: true, unresolved: "no tool id in its parameters" };
    const inner = normalizeToolName(catalogIdToToolName(target));
    return { requested, name: inner.name, via: TOOL_CALL, validName: inner.valid };
  }
  return { requested, name: outer.name, validName: outer.valid };
}

/** Tool Search's inner call ids look like `tool_search_code:<outer call id>:<tool>:<n>`. */
export function outerCallIdOf(toolCallId: string | undefined): string | undefined {
  if (!toolCallId?.startsWith("tool_search_code:")) return undefined;
  const rest = toolCallId.slice("tool_search_code:".length);
  const parts = rest.split(":");
  return parts.length >= 3 ? parts.slice(0, -2).join(":") : undefined;
}
