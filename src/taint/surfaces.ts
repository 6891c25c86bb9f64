import type { ApprovalSurface } from "../policy/approval.ts";

/**
 * L1: who could answer an approval in each session, from what the host said about its latest turn
 * (the run's trigger, whether it named a requester on a channel). Kept on the session's record
 * (`SurfaceFacts`), in memory only: a restart starts again with the next turn, and until then a
 * session counts by its calls' requesters.
 *
 * The host asks only on the channel a turn came in on: a turn with none (an `openclaw agent` CLI
 * turn, whose requester is the owner but names no channel) is refused before anyone is asked, so
 * ClawOS counts it as headless and blocks with its own reason.
 */

export interface SurfaceFacts {
  /** The latest model run's trigger (`user`, `cron`, `heartbeat`, ...), when the host gave one. */
  trigger?: string;
  /** Whether the latest turn or call named a requester on a channel (someone the host can ask). */
  onChannel?: boolean;
}

const MAX_DEPTH = 4;

/** The part after `agent:<id>:` (or the whole key) starting with `cron:` or `explicit:`, in any case. */
const RUN_KIND = /^\s*(?:agent:[^:]*:)?(cron|explicit):/i;

/** Cron runs (`agent:<id>:cron:<job>...`, the host's isCronSessionKey) and `openclaw agent exec` (`agent:<id>:explicit:<uuid>`). */
export function surfaceOfKey(sessionKey: string | undefined): ApprovalSurface | undefined {
  if (!sessionKey) return undefined;
  const kind = RUN_KIND.exec(sessionKey)?.[1];
  if (kind === undefined) return undefined;
  return kind.toLowerCase() === "cron" ? "cron" : "headless";
}

function surfaceOfTrigger(trigger: string | undefined): ApprovalSurface | undefined {
  if (!trigger || trigger === "user") return undefined;
  return trigger === "cron" ? "cron" : trigger === "heartbeat" ? "heartbeat" : "headless";
}

/** A model run starts: its trigger and whether the host named who asked, on a channel. */
export function noteTurnSurface(facts: SurfaceFacts, trigger: string | undefined, onChannel: boolean | undefined): void {
  facts.trigger = trigger;
  if (onChannel !== undefined) facts.onChannel = onChannel;
}

/**
 * Who could answer an approval for a call in this session (`facts`: its record, with its parent
 * link). A sub-agent's question goes to its parent's owner: it is answerable only when its parent
 * (as L1 linked it) is.
 */
export function surfaceOf(
  sessionKey: string | undefined,
  facts: (SurfaceFacts & { parent?: string }) | undefined,
  isSubagent: boolean,
  onChannel: boolean,
  recordOf: (key: string) => (SurfaceFacts & { parent?: string }) | undefined,
): { surface: ApprovalSurface; parent?: string } {
  const own = surfaceOfKey(sessionKey) ?? surfaceOfTrigger(facts?.trigger);
  if (own) return { surface: own };
  if (isSubagent) {
    let key = facts ? facts.parent : sessionKey ? recordOf(sessionKey)?.parent : undefined;
    for (let depth = 0; key && depth < MAX_DEPTH; depth++) {
      const fromKey = surfaceOfKey(key);
      const f = recordOf(key);
      const s = fromKey ?? surfaceOfTrigger(f?.trigger);
      if (s) return { surface: "subagent", parent: key };
      if (!/(^|:)(subagent|acp):/i.test(key)) return f?.onChannel ? { surface: "interactive", parent: key } : { surface: "subagent", parent: key };
      key = f?.parent;
    }
    return key ? { surface: "subagent", parent: key } : { surface: "subagent" };
  }
  return onChannel ? { surface: "interactive" } : { surface: "headless" };
}
