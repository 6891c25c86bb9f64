import type { TrustLevel } from "../taint/trust.ts";

/**
 * The capability table: every capability a manifest may name, with the lowest session
 * input trust at which a call carrying it is allowed. A capability not listed here
 * requires `owner` (fail closed) and is reported as unknown.
 */
export interface CapabilityInfo {
  readonly floor: TrustLevel;
  readonly description: string;
  /** What a call carrying it can do to where paths lead (renames, deletions, links): see `PathEffect`. */
  readonly pathChanges: PathEffect;
}

/**
 * Whether a call can change which file a path reaches: `none`; `running` (only until its result
 * arrives: a write, a command); `lasting` (what it starts outlives the call: a child session, a
 * scheduled command, a paired device, the gateway itself). Real paths are reused between calls only
 * while nothing is changing them (`src/host/real-paths.ts`).
 */
export type PathEffect = "none" | "running" | "lasting";

/** The path effects, weakest first (a manifest's `pathChanges` takes one of these). */
export const PATH_EFFECTS: readonly PathEffect[] = ["none", "running", "lasting"];

export const PATH_EFFECT_RANK: Readonly<Record<PathEffect, number>> = { none: 0, running: 1, lasting: 2 };

/**
 * The strongest path effect of a call's capabilities; an operator's own or an unknown capability is
 * `lasting`. `declared` (a manifest's `pathChanges`) stands for the capabilities in `covered` (the
 * tool's own); one a mode adds counts as the table says.
 */
export function pathEffectOf(capabilities: readonly string[], declared?: PathEffect, covered?: readonly string[]): PathEffect {
  let effect: PathEffect = declared ?? "none";
  for (const name of capabilities) {
    if (declared !== undefined && covered?.includes(name)) continue;
    const own: PathEffect = isKnownCapability(name) ? CAPABILITIES[name].pathChanges : "lasting";
    if (PATH_EFFECT_RANK[own] > PATH_EFFECT_RANK[effect]) effect = own;
  }
  return effect;
}

export const CAPABILITIES = Object.freeze({
  "fs:read": { floor: "untrusted", description: "read files in the agent's workspace", pathChanges: "none" },
  "fs:write": { floor: "verified", description: "create, modify or delete files", pathChanges: "running" },
  "proc:exec": { floor: "owner", description: "run shell commands or programs on the host", pathChanges: "running" },
  "proc:manage": { floor: "verified", description: "inspect, signal or feed running processes", pathChanges: "running" },
  "proc:read": { floor: "untrusted", description: "read the status and output of the agent's own background processes", pathChanges: "none" },
  "code:sandbox": { floor: "verified", description: "run model-written code in an isolated sandbox", pathChanges: "running" },
  "net:search": { floor: "untrusted", description: "send a query to a search provider", pathChanges: "none" },
  "net:fetch": { floor: "community", description: "fetch a URL chosen by the model (the URL itself can carry data out)", pathChanges: "none" },
  "net:browse": { floor: "verified", description: "drive a browser: navigate, click, type, submit forms", pathChanges: "running" },
  "net:read": { floor: "untrusted", description: "read what an open browser tab already shows (no navigation, no input)", pathChanges: "none" },
  "net:publish": { floor: "owner", description: "publish to an external service under the owner's identity", pathChanges: "running" },
  "message:send": { floor: "verified", description: "send a message to a person, channel or another session", pathChanges: "none" },
  "message:read": {
    floor: "untrusted",
    description: "read conversations, members and channel lists on the bot's accounts (other people's text)",
    pathChanges: "none",
  },
  "session:read": { floor: "community", description: "read other sessions' history or state", pathChanges: "none" },
  "session:spawn": { floor: "community", description: "start sub-agents (children inherit the caller's taint)", pathChanges: "lasting" },
  "session:control": { floor: "verified", description: "steer, stop or configure agent sessions and goals", pathChanges: "lasting" },
  "memory:read": { floor: "untrusted", description: "search or read the agent's long-term memory", pathChanges: "none" },
  "memory:write": { floor: "verified", description: "write to the agent's long-term memory or skills", pathChanges: "running" },
  "secrets:read": { floor: "owner", description: "read stored secrets or credentials", pathChanges: "none" },
  "schedule:write": { floor: "owner", description: "create or change scheduled and automated runs (persistence)", pathChanges: "lasting" },
  "schedule:read": { floor: "untrusted", description: "list scheduled automations and read their run history (other runs' output)", pathChanges: "none" },
  "device:control": { floor: "owner", description: "control paired devices, screens or the computer", pathChanges: "lasting" },
  "media:generate": { floor: "community", description: "generate images, audio or video (costs money)", pathChanges: "running" },
  "ui:render": { floor: "untrusted", description: "render content in the operator's UI", pathChanges: "none" },
  "user:ask": { floor: "untrusted", description: "ask the user a question", pathChanges: "none" },
  "system:admin": { floor: "owner", description: "change the gateway, its config, plugins or agents", pathChanges: "lasting" },
  "system:read": { floor: "verified", description: "read the gateway's config and schema (the host redacts secrets)", pathChanges: "none" },
} satisfies Record<string, CapabilityInfo>);

export type KnownCapability = keyof typeof CAPABILITIES;

/** Capability names look like `area:verb`; the schema uses this to catch typos early. */
export const CAPABILITY_NAME_PATTERN = "^[a-z][a-z0-9_-]*:[a-z][a-z0-9_-]*$";

export function isKnownCapability(name: string): name is KnownCapability {
  return Object.hasOwn(CAPABILITIES, name);
}

/** The trust floor of a capability; unknown capabilities require `owner`. */
export function capabilityFloor(name: string): TrustLevel {
  return isKnownCapability(name) ? CAPABILITIES[name].floor : "owner";
}

/** The built-in capability names, in table order. */
export const CAPABILITY_NAMES: readonly string[] = Object.freeze(Object.keys(CAPABILITIES));

/** The areas of the built-in capabilities (`fs`, `proc`, ...): an operator's own capability needs an area of its own. */
export const BUILTIN_AREAS: readonly string[] = Object.freeze([...new Set(CAPABILITY_NAMES.map((name) => name.split(":")[0] as string))]);

/** An operator's own capability (config `capabilities.custom`): the trust a call carrying it needs, and its risk. */
export interface CustomCapability {
  readonly minInputTrust: TrustLevel;
  readonly riskLevel: "low" | "medium" | "high" | "critical";
  readonly description?: string;
}

/** Levenshtein distance, for "did you mean" (names are short, so the plain table is fine). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/** The known name closest to `name` by edit distance (ties: table order). */
export function closestCapability(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * The capabilities one policy knows: the built-in table plus the operator's own
 * (`capabilities.custom`). A name in neither is unknown: a call carrying it needs `owner`.
 */
export class CapabilityTable {
  private readonly custom: ReadonlyMap<string, CustomCapability>;

  constructor(custom: Readonly<Record<string, CustomCapability>> = {}) {
    // A custom entry never changes a built-in one (the config check rejects such names).
    this.custom = new Map(Object.entries(custom).filter(([name]) => !isKnownCapability(name)));
  }

  isKnown(name: string): boolean {
    return isKnownCapability(name) || this.custom.has(name);
  }

  floor(name: string): TrustLevel {
    if (isKnownCapability(name)) return CAPABILITIES[name].floor;
    return this.custom.get(name)?.minInputTrust ?? "owner";
  }

  /** Every known name: built-in ones first, then the operator's. */
  names(): string[] {
    return [...CAPABILITY_NAMES, ...this.custom.keys()];
  }

  customNames(): string[] {
    return [...this.custom.keys()];
  }

  customCapability(name: string): CustomCapability | undefined {
    return this.custom.get(name);
  }

  /** Why `name` is not known, at `where`: the closest known name, the known list and the fix. */
  describeUnknown(name: string, where: string): string {
    const closest = closestCapability(name, this.names());
    const custom = this.customNames();
    return (
      `${where}: unknown capability "${name}"${closest ? ` (closest known: "${closest}")` : ""}. ` +
      `Known: ${CAPABILITY_NAMES.join(", ")}${custom.length ? `; defined in capabilities.custom: ${custom.join(", ")}` : ""}. ` +
      `Fix: use a known name, or define it under capabilities.custom with a minInputTrust and a riskLevel.`
    );
  }
}

/** The table of a config without operator capabilities: the built-in one. */
export const BUILTIN_CAPABILITIES = new CapabilityTable();
