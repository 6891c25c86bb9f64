import type { Decision } from "../policy/decision.ts";
import type { CallFacts } from "../policy/touches.ts";
import type { OutputSource } from "../policy/manifest-schema.ts";
import type { Segments } from "../policy/arguments.ts";
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
  readonly quotes?: readonly Segments[];
  /** Its result's values were read (after_tool_call and tool_result_persist both carry it). */
  indexed?: boolean;
  /** Its lookup's `selects` fields still wait for a result that carries them (one hook may pass only text). */
  selectPending?: boolean;
}

/**
 * Recent calls by session and tool call id (ids are only unique within a session: some model
 * servers reuse `call_0`). A speed helper: a bounded map in two generations, the young one taking
 * new entries and replacing the old one when full; O(1) per operation with no per-entry
 * bookkeeping, which an LRU does not need here, since a call's memo is read back within a few calls.
 */
export class RecentCalls {
  private young = new Map<string, CallMemo>();
  private old = new Map<string, CallMemo>();
  private readonly half: number;

  constructor(max: number) {
    this.half = Math.max(1, Math.floor(max / 2));
  }

  get(sessionKey: string | undefined, callId: string): CallMemo | undefined {
    const key = `${sessionKey ?? ""}\u0000${callId}`;
    const value = this.young.get(key);
    if (value !== undefined) return value;
    const aged = this.old.get(key);
    if (aged !== undefined) this.put(key, aged);
    return aged;
  }

  set(sessionKey: string | undefined, callId: string, memo: CallMemo): void {
    this.put(`${sessionKey ?? ""}\u0000${callId}`, memo);
  }

  private put(key: string, value: CallMemo): void {
    if (!this.young.has(key) && this.young.size >= this.half) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, value);
  }
}
