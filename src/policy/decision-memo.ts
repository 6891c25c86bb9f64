import type { TaintSource } from "../taint/session-store.ts";
import { TRUST_LEVELS, trustRank, type TrustLevel } from "../taint/trust.ts";
import { MODES, type CapabilityMode } from "../config/config-schema.ts";
import type { Decision } from "./decision.ts";
import type { ResolvedTool } from "./tool-names.ts";

/**
 * Speed helper for the gate: a decision is a pure function of the call's shape under one compiled
 * policy (the resolved tool, its mode, the input trust, sub-agent and agent id), and the same
 * shapes repeat across every session, so verdicts are memoized per policy, keyed without building
 * a string. A trust-limited
 * decision also names its cause; the decision with a given cause is kept beside its verdict, so a
 * session that keeps hitting the same block gets the same object back (and the same reason text,
 * see `report/reason.ts`) without building either again.
 */
const MAX_AGENTS = 1024;

export class DecisionMemo {
  /** Per resolved tool (by identity, see `tool-resolver.ts`) and agent: one slot per mode, trust and sub-agent flag. */
  private readonly verdicts = new WeakMap<ResolvedTool, Map<string, (Decision | undefined)[]>>();
  private readonly withCause = new WeakMap<Decision, WeakMap<TaintSource, Decision>>();

  verdict(tool: ResolvedTool, mode: CapabilityMode, inputTrust: TrustLevel, isSubagent: boolean, agentId: string | undefined, make: () => Decision): Decision {
    let byAgent = this.verdicts.get(tool);
    if (!byAgent) {
      byAgent = new Map();
      this.verdicts.set(tool, byAgent);
    }
    const agent = agentId ?? "";
    let slots = byAgent.get(agent);
    if (!slots) {
      // Bounded: an agent id per call cannot grow it without limit.
      if (byAgent.size >= MAX_AGENTS) byAgent.clear();
      slots = new Array(MODES.length * TRUST_LEVELS.length * 2);
      byAgent.set(agent, slots);
    }
    const slot = (MODES.indexOf(mode) * TRUST_LEVELS.length + trustRank(inputTrust)) * 2 + (isSubagent ? 1 : 0);
    return (slots[slot] ??= make());
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
