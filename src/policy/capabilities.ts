import type { TrustLevel } from "../taint/trust.ts";

/**
 * The capability table: every capability a manifest may name, with the lowest session
 * input trust at which a call carrying it is allowed. A capability not listed here
 * requires `owner` (fail closed) and is reported as unknown.
 */
export interface CapabilityInfo {
  readonly floor: TrustLevel;
  readonly description: string;
}

export const CAPABILITIES = Object.freeze({
  "fs:read": { floor: "untrusted", description: "read files in the agent's workspace" },
  "fs:write": { floor: "verified", description: "create, modify or delete files" },
  "proc:exec": { floor: "owner", description: "run shell commands or programs on the host" },
  "proc:manage": { floor: "verified", description: "inspect, signal or feed running processes" },
  "code:sandbox": { floor: "verified", description: "run model-written code in an isolated sandbox" },
  "net:search": { floor: "untrusted", description: "send a query to a search provider" },
  "net:fetch": { floor: "community", description: "fetch a URL chosen by the model (the URL itself can carry data out)" },
  "net:browse": { floor: "verified", description: "drive a browser: navigate, click, type, submit forms" },
  "net:publish": { floor: "owner", description: "publish to an external service under the owner's identity" },
  "message:send": { floor: "verified", description: "send a message to a person, channel or another session" },
  "session:read": { floor: "community", description: "read other sessions' history or state" },
  "session:spawn": { floor: "community", description: "start sub-agents (children inherit the caller's taint)" },
  "session:control": { floor: "verified", description: "steer, stop or configure agent sessions and goals" },
  "memory:read": { floor: "untrusted", description: "search or read the agent's long-term memory" },
  "memory:write": { floor: "verified", description: "write to the agent's long-term memory or skills" },
  "secrets:read": { floor: "owner", description: "read stored secrets or credentials" },
  "schedule:write": { floor: "owner", description: "create or change scheduled and automated runs (persistence)" },
  "device:control": { floor: "owner", description: "control paired devices, screens or the computer" },
  "media:generate": { floor: "community", description: "generate images, audio or video (costs money)" },
  "ui:render": { floor: "untrusted", description: "render content in the operator's UI" },
  "user:ask": { floor: "untrusted", description: "ask the user a question" },
  "system:admin": { floor: "owner", description: "change the gateway, its config, plugins or agents" },
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
