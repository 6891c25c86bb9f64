import type { TaintSource } from "../taint/session-store.ts";
import { TRUST_LEVELS, trustRank, type TrustLevel } from "../taint/trust.ts";
import { MODES, type CapabilityMode } from "../config/config-schema.ts";
import type { Decision } from "./decision.ts";
import type { ResolvedTool } from "./tool-names.ts";
import type { CallFacts } from "./touches.ts";

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
/** Distinct call shapes kept per tool and command reading (a path per call cannot grow it without limit). */
const MAX_SHAPES = 256;
/** The anchor of the shapes of calls without a command. */
const NO_COMMAND = {};

/** Verdicts by agent, then one slot per mode, trust and sub-agent flag. */
type Slots = Map<string, (Decision | undefined)[]>;

/** The verdicts of one tool with one command reading (or none): by shape, and by shape and touches. */
interface FactShapes {
  readonly slots: Slots;
  readonly touched: Map<string, Decision>;
}

function slotted(
  byAgent: Slots,
  mode: CapabilityMode,
  inputTrust: TrustLevel,
  isSubagent: boolean,
  agentId: string | undefined,
  make: () => Decision,
): Decision {
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

export class DecisionMemo {
  /** Per resolved tool (by identity, see `tool-resolver.ts`). */
  private readonly verdicts = new WeakMap<ResolvedTool, Slots>();
  private readonly withCause = new WeakMap<Decision, WeakMap<TaintSource, Decision>>();
  /** Per command reading (or none) and resolved tool (`factVerdict`). */
  private readonly factVerdicts = new WeakMap<object, WeakMap<ResolvedTool, FactShapes>>();

  verdict(tool: ResolvedTool, mode: CapabilityMode, inputTrust: TrustLevel, isSubagent: boolean, agentId: string | undefined, make: () => Decision): Decision {
    let byAgent = this.verdicts.get(tool);
    if (!byAgent) {
      byAgent = new Map();
      this.verdicts.set(tool, byAgent);
    }
    return slotted(byAgent, mode, inputTrust, isSubagent, agentId, make);
  }

  /**
   * The verdict of a call whose arguments add facts: what its paths touch, and its command. A
   * command's reading is the same object for the same text under one policy (`command-reader.ts`),
   * so it keys by identity; the touches (kind, argument, resolved path, label) key by content.
   * Calls that select modes or take irreversible actions are decided afresh by the caller.
   */
  factVerdict(
    tool: ResolvedTool,
    mode: CapabilityMode,
    inputTrust: TrustLevel,
    isSubagent: boolean,
    agentId: string | undefined,
    facts: Pick<CallFacts, "touches" | "command">,
    make: () => Decision,
  ): Decision {
    const anchor: object = facts.command?.view ?? NO_COMMAND;
    let byTool = this.factVerdicts.get(anchor);
    if (!byTool) {
      byTool = new WeakMap();
      this.factVerdicts.set(anchor, byTool);
    }
    let shapes = byTool.get(tool);
    if (!shapes) {
      shapes = { slots: new Map(), touched: new Map() };
      byTool.set(tool, shapes);
    }
    if (facts.touches.length === 0) return slotted(shapes.slots, mode, inputTrust, isSubagent, agentId, make);
    let key = `${mode}\u0000${inputTrust}\u0000${isSubagent ? 1 : 0}\u0000${agentId ?? ""}`;
    for (const t of facts.touches) key += `\u0001${t.kind}\u0000${t.argument}\u0000${t.value}\u0000${t.label}`;
    let verdict = shapes.touched.get(key);
    if (!verdict) {
      if (shapes.touched.size >= MAX_SHAPES) shapes.touched.clear();
      verdict = make();
      shapes.touched.set(key, verdict);
    }
    return verdict;
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
