/**
 * The Control UI's hints for ClawOS's settings (`uiHints` in openclaw.plugin.json), made from the
 * config schema: one hint per field the host's settings page shows, keyed the way the host keys
 * them (dotted paths, `[]` for array items, `*` for the entries of a map). Each hint has a label
 * (the field's `title`, else a label below, else its name in words), help (its `description`, else
 * its container's) and a tier: `advanced: false` for what a newcomer sets, `advanced: true` for
 * the rest. The host treats a path without a tier as advanced; every path here has one.
 */

/** A config hint the host reads (OpenClaw's `PluginConfigUiHint`, the parts ClawOS uses). */
export interface UiHint {
  label: string;
  help?: string;
  advanced: boolean;
  /** The field holds a secret: the host redacts it. No ClawOS field does today. */
  sensitive?: boolean;
}

/**
 * Common settings (`false`) and advanced ones (`true`). A path takes the tier of its nearest
 * listed ancestor (or itself); a top-level field must be listed (a unit test checks it), so a new
 * field is classified when it is added. Advanced: what turns protection off or needs the docs to
 * get right (layers, operator capabilities, inline manifests, path rules, provenance, storage).
 */
export const UI_TIERS: Readonly<Record<string, boolean>> = {
  layers: true,
  capabilities: false,
  "capabilities.custom": true,
  unknownRequesterTrust: false,
  trustedSenders: false,
  subagent: true,
  manifestDirs: false,
  manifests: true,
  paths: false,
  "paths.rules": true,
  commands: false,
  provenance: true,
  approvals: false,
  "approvals.capabilities": true,
  "approvals.risk": true,
  "approvals.timeoutSeconds": true,
  "approvals.grants": false,
  "approvals.irreversible": true,
  audit: true,
  state: true,
};

/** Paths whose fields hold secrets (the host redacts them in config output). */
export const UI_SENSITIVE: readonly string[] = [];

/** Labels for paths whose schema has no title (array items, map entries, nested manifest fields). */
const LABELS: Readonly<Record<string, string>> = {
  "capabilities.overrides.*": "Mode of this tool",
  "capabilities.deny[]": "Capability",
  "capabilities.agents.*": "Agent",
  "capabilities.agents.*.deny": "Capabilities denied to this agent",
  "capabilities.agents.*.deny[]": "Capability",
  "capabilities.custom.*": "Capability",
  "trustedSenders[]": "Sender",
  "trustedSenders[].channel": "Channel",
  "trustedSenders[].senderId": "Sender id",
  "subagent.denyCapabilities[]": "Capability",
  "manifestDirs[]": "Directory",
  "manifests[]": "Manifest",
  "manifests[].$schema": "JSON Schema",
  "manifests[].tool": "Tool",
  "manifests[].minInputTrust": "Minimum input trust",
  "manifests[].outputTrust": "Output trust",
  "manifests[].riskLevel": "Risk",
  "manifests[].arguments[].at": "Where in the params",
  "manifests[].modes[].when": "When",
  "manifests[].modes[].minInputTrust": "Minimum input trust",
  "manifests[].modes[].riskLevel": "Risk",
  "manifests[].meta": "Meta tool",
  "paths.rules[]": "Path rule",
  "paths.writable[]": "Glob",
  "commands.rules[]": "Command rule",
  "commands.rules[].id": "Rule id",
  "commands.rules[].withAny": "Only with any of these arguments",
  "provenance.trustedPaths[]": "Glob",
  "provenance.untrustedPaths[]": "Glob",
  "provenance.unknown.url": "URL",
  "manifests[].aliases[]": "Alias",
  "manifests[].patterns[]": "Pattern",
  "manifests[].capabilities[]": "Capability",
  "manifests[].arguments[]": "Argument",
  "manifests[].modes[]": "Mode",
  "manifests[].modes[].capabilities[]": "Capability",
  "manifests[].modes[].when.alsoEquals[]": "Value",
  "manifests[].modes[].when.hostEquals[]": "Value",
  "manifests[].modes[].when.equals[]": "Value",
  "manifests[].modes[].when.notEquals[]": "Value",
  "commands.rules[].withAny[]": "Argument",
  "commands.rules[].withPrefix": "Or an argument starting with",
  "commands.rules[].withPrefix[]": "Start of an argument",
  "approvals.tools.*": "Tool",
  "approvals.capabilities.*": "Capability",
  "approvals.irreversible.actions[].equals[]": "Value",
  "approvals.irreversible.disabled[]": "Action id",
};

/** Help for the sections, whose schema carries only a title. */
const SECTION_HELP: Readonly<Record<string, string>> = {
  layers: "Turn L1 (input trust) or L2 (capability control) off. Leave both on unless you are measuring one alone.",
  capabilities: "How tool calls are decided: the mode (roll out in audit, then enforce), per-tool modes and the capabilities denied outright.",
  subagent: "What sub-agents start with: a trust ceiling and capabilities they never get.",
  paths: "Which files tools may read and write: confine writes to the workspace, or add path rules.",
  commands: "Rules for shell commands run by exec: allow a command from lower trust, deny one, or name an irreversible one.",
  provenance: "Decisions by where a call's arguments came from (docs/provenance.md). The defaults suit most gateways.",
  approvals: "Whether a call ClawOS would block can instead be put to the owner for approval.",
  audit: "The JSON-lines audit log of every decision and trust change.",
  state: "Where session trust is kept across restarts, and how much is kept in memory.",
};

interface SchemaNode {
  title?: string;
  description?: string;
  type?: string;
  properties?: Record<string, SchemaNode>;
  patternProperties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
}

/** `senderId` → `Sender id`, `target-session` → `Target session`. */
export function words(key: string): string {
  const text = key
    .replace(/^\$/, "")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[-_]/g, " ")
    .toLowerCase();
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The tier of a path: its own or its nearest listed ancestor's; advanced when none is listed. */
export function tierOf(path: string): boolean {
  let at = path;
  for (;;) {
    if (Object.hasOwn(UI_TIERS, at)) return UI_TIERS[at] as boolean;
    const cut = Math.max(at.lastIndexOf("."), at.lastIndexOf("["));
    if (cut <= 0) return true;
    at = at.slice(0, cut);
  }
}

/** Every field of a JSON/TypeBox schema, keyed as the host keys it, with its hint. */
export function uiHintsFor(schema: unknown): Record<string, UiHint> {
  const hints: Record<string, UiHint> = {};
  const visit = (node: SchemaNode, path: string, key: string, inherited: string | undefined, parentLabel?: string) => {
    const help = node.description ?? SECTION_HELP[path] ?? inherited;
    hints[path] = {
      label: node.title ?? LABELS[path] ?? (parentLabel && (key === "item" || key === "entry") ? parentLabel : words(key)),
      ...(help ? { help } : {}),
      advanced: tierOf(path),
      ...(UI_SENSITIVE.includes(path) ? { sensitive: true } : {}),
    };
    children(node, path, help, hints[path]?.label);
  };
  const children = (node: SchemaNode, path: string, help: string | undefined, label?: string) => {
    // Objects inside a union (a rule of one of several shapes) contribute their fields at the same path.
    const shapes = [node, ...(node.anyOf ?? []).filter((branch) => branch.type === "object")];
    for (const shape of shapes) {
      for (const [key, child] of Object.entries(shape.properties ?? {})) {
        const childPath = path ? `${path}.${key}` : key;
        if (!hints[childPath]) visit(child, childPath, key, undefined);
      }
      const entries = [...Object.values(shape.patternProperties ?? {})];
      if (shape.additionalProperties && typeof shape.additionalProperties === "object") entries.push(shape.additionalProperties);
      for (const entry of entries) visit(entry, `${path}.*`, "entry", help, label);
      if (shape.items && typeof shape.items === "object") visit(shape.items, `${path}[]`, "item", help, label);
    }
  };
  children(schema as SchemaNode, "", undefined);
  return hints;
}
