import type { Decision } from "../policy/decision.ts";
import type { CallFacts } from "../policy/touches.ts";
import type { OutputSource } from "../policy/manifest-schema.ts";
import type { QuotedFields } from "../policy/arguments.ts";
import type { ResolvedTool } from "../policy/tool-names.ts";

/** What L1 remembers of a decided call until its result arrives. */
export interface CallMemo {
  readonly tool: ResolvedTool;
  readonly blocked: boolean;
  /** The outer call's parameters, for a call made through a meta tool (its inner arguments). */
  readonly paramsRef?: unknown;
  readonly decision: Decision;
  readonly agentId?: string;
  /** What the call reads and runs, for the trust of its output (provenance). */
  readonly facts?: CallFacts;
  /** How its output's trust is found, when a mode that held says (`modes[].output`). */
  readonly output?: OutputSource;
  /** With output `call`: result fields whose text makes the output the manifest's (`modes[].quotes`). */
  readonly quotes?: QuotedFields;
  /** Its result's values were read (after_tool_call and tool_result_persist both carry it). */
  indexed?: boolean;
  /** Its lookup's `selects` fields still wait for a result that carries them (one hook may pass only text). */
  selectPending?: boolean;
  /** The accounts a payment it makes goes to (`paymentKeys`), noted once its result comes back without an error. */
  payment?: readonly string[];
}

/** One session's memo of one call id; the sessions that used the same id are chained. */
interface Slot {
  readonly sessionKey: string;
  memo: CallMemo;
  next: Slot | undefined;
}

/**
 * Sessions kept per call id in one generation. Ids are only unique within a session (some model
 * servers reuse `call_0` in every session): past this many sessions using one id at once, the
 * oldest memo of that id is dropped, as an aged one is, so a lookup walks a short chain.
 */
export const MAX_SESSIONS_PER_ID = 32;

/**
 * Recent calls by tool call id and session. A speed helper: a bounded map in two generations, the
 * young one taking new entries and replacing the old one when full; O(1) per operation with no
 * per-entry bookkeeping, which an LRU does not need here, since a call's memo is read back within a
 * few calls. Keyed by the id the host sent as it is (a string whose hash the engine keeps), not by a
 * string joined from the session and the id, which costs a new string to hash on every call.
 */
export class RecentCalls {
  private young = new Map<string, Slot>();
  private old = new Map<string, Slot>();
  /** Memos in the young generation (chained ones included): the bound. */
  private count = 0;
  private readonly half: number;

  constructor(max: number) {
    this.half = Math.max(1, Math.floor(max / 2));
  }

  get(sessionKey: string | undefined, callId: string): CallMemo | undefined {
    const key = sessionKey ?? "";
    const slot = find(this.young.get(callId), key);
    if (slot !== undefined) return slot.memo;
    const aged = find(this.old.get(callId), key);
    if (aged === undefined) return undefined;
    this.put(key, callId, aged.memo);
    return aged.memo;
  }

  set(sessionKey: string | undefined, callId: string, memo: CallMemo): void {
    this.put(sessionKey ?? "", callId, memo);
  }

  private put(sessionKey: string, callId: string, memo: CallMemo): void {
    let head = this.young.get(callId);
    const slot = find(head, sessionKey);
    if (slot !== undefined) {
      slot.memo = memo;
      return;
    }
    if (this.count >= this.half) {
      this.old = this.young;
      this.young = new Map();
      this.count = 0;
      head = undefined;
    }
    // The chain's oldest memos past the bound go, as aged ones do.
    let kept = 1;
    for (let s = head; s !== undefined; s = s.next) {
      if (++kept === MAX_SESSIONS_PER_ID && s.next !== undefined) {
        for (let cut: Slot | undefined = s.next; cut !== undefined; cut = cut.next) this.count--;
        s.next = undefined;
      }
    }
    this.young.set(callId, { sessionKey, memo, next: head });
    this.count++;
  }
}

function find(head: Slot | undefined, sessionKey: string): Slot | undefined {
  for (let s = head; s !== undefined; s = s.next) if (s.sessionKey === sessionKey) return s;
  return undefined;
}
