import { LRUCache } from "lru-cache";
import type { ApprovalSurface } from "../policy/approval.ts";

/**
 * L1: who could answer an approval in each session, from what the host said about its latest turn
 * (the run's trigger, whether it named a requester on a channel). Bounded; kept in memory only (a
 * restart starts again with the next turn, and until then a session counts by its calls' requesters).
 *
 * The host asks only on the channel a turn came in on: a turn with none (an `openclaw agent` CLI
 * turn, whose requester is the owner but names no channel) is refused before anyone is asked, so
 * ClawOS counts it as headless and blocks with its own reason.
 */

interface SurfaceFacts {
  /** The latest model run's trigger (`user`, `cron`, `heartbeat`, ...), when the host gave one. */
  trigger?: string;
  /** Whether the latest turn or call named a requester on a channel (someone the host can ask). */
  onChannel?: boolean;
}

const MAX_SESSIONS = 10_000;
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

export class ApprovalSurfaces {
  // An LRU, not a Map trimmed from its front: at many live sessions every call would evict, and a
  // Map's first live key sits behind the tombstones of every key deleted before it.
  private readonly sessions = new LRUCache<string, SurfaceFacts>({ max: MAX_SESSIONS });

  private facts(key: string): SurfaceFacts {
    let f = this.sessions.get(key);
    if (!f) {
      f = {};
      this.sessions.set(key, f);
    }
    return f;
  }

  /** A model run starts: its trigger and whether the host named who asked, on a channel. */
  noteTurn(sessionKey: string | undefined, trigger: string | undefined, onChannel: boolean | undefined): void {
    if (!sessionKey) return;
    const f = this.facts(sessionKey);
    f.trigger = trigger;
    if (onChannel !== undefined) f.onChannel = onChannel;
  }

  /** A call arrives: whether its context names a requester on a channel. */
  noteCall(sessionKey: string | undefined, onChannel: boolean): void {
    if (!sessionKey) return;
    const f = this.sessions.get(sessionKey);
    if (f) f.onChannel = onChannel;
    // A session seen only through its calls needs an entry only to say it can be asked.
    else if (onChannel) this.sessions.set(sessionKey, { onChannel });
  }

  /**
   * Who could answer an approval for a call in this session. A sub-agent's question goes to its
   * parent's owner: it is answerable only when its parent (as L1 linked it) is.
   */
  surfaceOf(
    sessionKey: string | undefined,
    isSubagent: boolean,
    onChannel: boolean,
    parentOf: (key: string) => string | undefined,
  ): { surface: ApprovalSurface; parent?: string } {
    const own = surfaceOfKey(sessionKey) ?? surfaceOfTrigger(sessionKey ? this.sessions.get(sessionKey)?.trigger : undefined);
    if (own) return { surface: own };
    if (isSubagent) {
      let key = sessionKey ? parentOf(sessionKey) : undefined;
      for (let depth = 0; key && depth < MAX_DEPTH; depth++) {
        const fromKey = surfaceOfKey(key);
        const f = this.sessions.get(key);
        const s = fromKey ?? surfaceOfTrigger(f?.trigger);
        if (s) return { surface: "subagent", parent: key };
        if (!/(^|:)(subagent|acp):/i.test(key)) return f?.onChannel ? { surface: "interactive", parent: key } : { surface: "subagent", parent: key };
        key = parentOf(key);
      }
      return key ? { surface: "subagent", parent: key } : { surface: "subagent" };
    }
    return onChannel ? { surface: "interactive" } : { surface: "headless" };
  }
}
