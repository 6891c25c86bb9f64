import type { TaintSource } from "../taint/session-store.ts";
import type { TrustLevel } from "../taint/trust.ts";
import type { Decision } from "./decision.ts";
import type { ResolvedTool } from "./tool-names.ts";

/**
 * Speed helper for the gate: a decision is a pure function of the call's shape under one compiled
 * policy (the resolved tool, its mode, the input trust, sub-agent and agent id), and the same
 * shapes repeat across every session, so verdicts are memoized per policy. A trust-limited
 * decision also names its cause; the decision with a given cause is kept beside its verdict, so a
 * session that keeps hitting the same block gets the same object back (and the same reason text,
 * see `report/reason.ts`) without building either again.
 */
export class DecisionMemo {
  private readonly verdicts = new Map<string, Decision>();
  private readonly withCause = new WeakMap<Decision, WeakMap<TaintSource, Decision>>();
  private static readonly MAX = 4096;

  verdict(tool: ResolvedTool, mode: string, inputTrust: TrustLevel, isSubagent: boolean, agentId: string | undefined, make: () => Decision): Decision {
    const key = `${tool.requested}\u0000${tool.name}\u0000${tool.via ?? ""}\u0000${tool.unresolved ?? ""}\u0000${tool.validName ? 1 : 0}\u0000${mode}\u0000${inputTrust}\u0000${isSubagent ? 1 : 0}\u0000${agentId ?? ""}`;
    const hit = this.verdicts.get(key);
    if (hit) return hit;
    const made = make();
    // Bounded: start over rather than grow.
    if (this.verdicts.size >= DecisionMemo.MAX) this.verdicts.clear();
    this.verdicts.set(key, made);
    return made;
  }

  /** The verdict with its cause attached, one object per (verdict, cause). */
  caused(verdict: Decision, cause: TaintSource | undefined): Decision {
    if (!cause) return verdict;
    let byCause = this.withCause.get(verdict);
    if (!byCause) {
      byCause = new WeakMap();
      this.withCause.set(verdict, byCause);
    }
    let decision = byCause.get(cause);
    if (!decision) {
      decision = { ...verdict, cause };
      byCause.set(cause, decision);
    }
    return decision;
  }
}
