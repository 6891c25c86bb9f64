/**
 * Which sessions are sub-agents, read from their session keys the way the host reads them.
 * The host's own classifier is used when its SDK is reachable; the mirror below otherwise.
 */

const SUBAGENT_REST = /^subagent:/;
const CHILD_MARKER = /subagent:|:acp:/i;

let hostIsSubagentSessionKey: ((key: string) => boolean) | undefined;

/** Uses the host's `isSubagentSessionKey` when the plugin SDK can be imported from here. */
export function loadHostSessionKeyClassifier(): Promise<void> {
  const specifier = "openclaw/plugin-sdk/routing";
  return import(specifier).then(
    (mod: { isSubagentSessionKey?: (key: string) => boolean }) => {
      if (typeof mod.isSubagentSessionKey === "function") hostIsSubagentSessionKey = mod.isSubagentSessionKey;
    },
    () => undefined,
  );
}

/** The agent a session key belongs to (`agent:<id>:...`), if it names one. */
export function agentOfSessionKey(sessionKey: string | undefined): string | undefined {
  const parts = sessionKey?.split(":");
  return parts && parts[0] === "agent" && parts.length >= 3 && parts[1] ? parts[1] : undefined;
}

/**
 * Sub-agent and ACP child sessions: the host's classifier (the part after `agent:<id>:` starts
 * with `subagent:`) or our mirror of it, plus ACP children (`agent:<id>:acp:<uuid>`).
 * A key that merely contains `subagent` further in (a spoof inside a normal key) is not a child,
 * which only matters for the stricter child rules; its trust still comes from its own inputs.
 */
export function isSubagentSessionKey(sessionKey: string | undefined): boolean {
  if (!sessionKey) return false;
  // Fast path for the common case (every gate call asks): no marker anywhere, no child.
  if (!CHILD_MARKER.test(sessionKey)) return false;
  if (hostIsSubagentSessionKey?.(sessionKey) === true) return true;
  const key = sessionKey.trim().toLowerCase();
  if (SUBAGENT_REST.test(key)) return true;
  const parts = key.split(":");
  if (parts[0] === "agent" && parts.length >= 3) {
    const rest = parts.slice(2);
    return rest[0] === "subagent" || rest[0] === "acp";
  }
  return false;
}
