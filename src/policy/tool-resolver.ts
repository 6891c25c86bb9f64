import { CODE_MODE_EXEC, metaTarget, resolveTool, type ResolvedTool } from "./tool-names.ts";

/**
 * Speed helper: the resolved form of each tool name, made once and shared. A plain tool's
 * resolution depends only on its name (and whether Code Mode ran it), so every call of `read`
 * gets the same object back; a meta call (`tool_call`) is resolved from its arguments each time and
 * its result interned by what it names. The decision memo keys on these objects' identity.
 */
export class ToolResolver {
  private readonly plain = new Map<string, ResolvedTool>();
  private readonly meta = new Map<string, ResolvedTool>();
  /** Names (as written) that turned out to be meta tools. */
  private readonly metaNames = new Set<string>();
  private readonly canonicalName: (name: string) => string;

  constructor(canonicalName: (name: string) => string) {
    this.canonicalName = canonicalName;
  }

  resolve(toolName: unknown, params: unknown, toolKind?: unknown): ResolvedTool {
    if (typeof toolName !== "string" || toolName.length > 256) return this.make(toolName, params, toolKind);
    const key = toolKind === CODE_MODE_EXEC ? `\u0001${toolName}` : toolName;
    const known = this.plain.get(key);
    if (known) return known;
    // A meta call resolves by the target its arguments name; the same name and target, the same tool.
    const metaKey = this.metaNames.has(key) ? `${key}\u0000${metaTarget(params) ?? ""}` : undefined;
    const interned = metaKey === undefined ? undefined : this.meta.get(metaKey);
    if (interned) return interned;
    const tool = this.make(toolName, params, toolKind);
    if (tool.via === undefined) return remember(this.plain, key, tool);
    if (this.metaNames.size >= MAX_NAMES) this.metaNames.clear();
    this.metaNames.add(key);
    return remember(this.meta, metaKey ?? `${key}\u0000${metaTarget(params) ?? ""}`, tool);
  }

  private make(toolName: unknown, params: unknown, toolKind: unknown): ResolvedTool {
    const tool = resolveTool(toolName, params, toolKind);
    const name = this.canonicalName(tool.name);
    return name === tool.name ? tool : { ...tool, name };
  }
}

const MAX_NAMES = 4096;

function remember(map: Map<string, ResolvedTool>, key: string, tool: ResolvedTool): ResolvedTool {
  // Bounded: start over rather than grow (hostile names cannot fill memory).
  if (map.size >= MAX_NAMES) map.clear();
  map.set(key, tool);
  return tool;
}
