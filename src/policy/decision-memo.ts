import type { TaintSource } from "../taint/session-store.ts";
import { TRUST_LEVELS, trustRank, type TrustLevel } from "../taint/trust.ts";
import { MODES, type CapabilityMode } from "../config/config-schema.ts";
import type { Decision } from "./decision.ts";
import type { ResolvedTool } from "./tool-names.ts";
import type { CallFacts } from "./touches.ts";

/**
 * Speed helper for the gate: a decision is a pure function of the call's shape under one compiled
 * policy (the resolved tool, its mode, the input trust, sub-agent and agent id, and what its
 * arguments add: the command's reading and the files its paths touch), and the same shapes repeat
 * across every session, so verdicts are memoized per policy, keyed without building a string where
 * the shape allows. A trust-limited decision also names its cause, the input that lowered its
 * session: that copy is made per call (a table of every session's causes cost more to look up
 * than the copy). The verdict's rules array is shared by every copy, so what is made of the rules
 * alone (the reason's rule text, the prompt's call lines, the rollout rows) is made once.
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

/** Decides a call of this shape (and facts) when the memo holds no verdict for it. */
export type MakeVerdict = (
  tool: ResolvedTool,
  mode: CapabilityMode,
  inputTrust: TrustLevel,
  isSubagent: boolean,
  agentId: string | undefined,
  facts: CallFacts | undefined,
) => Decision;

function slotted(
  byAgent: Slots,
  tool: ResolvedTool,
  mode: CapabilityMode,
  inputTrust: TrustLevel,
  isSubagent: boolean,
  agentId: string | undefined,
  facts: CallFacts | undefined,
  make: MakeVerdict,
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
  return (slots[slot] ??= make(tool, mode, inputTrust, isSubagent, agentId, facts));
}

export class DecisionMemo {
  /** Per resolved tool (by identity, see `tool-resolver.ts`). */
  private readonly verdicts = new WeakMap<ResolvedTool, Slots>();
  /** Per command reading (or none) and resolved tool (`factVerdict`). */
  private readonly factVerdicts = new WeakMap<object, WeakMap<ResolvedTool, FactShapes>>();

  verdict(tool: ResolvedTool, mode: CapabilityMode, inputTrust: TrustLevel, isSubagent: boolean, agentId: string | undefined, make: MakeVerdict): Decision {
    let byAgent = this.verdicts.get(tool);
    if (!byAgent) {
      byAgent = new Map();
      this.verdicts.set(tool, byAgent);
    }
    return slotted(byAgent, tool, mode, inputTrust, isSubagent, agentId, undefined, make);
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
    facts: CallFacts,
    make: MakeVerdict,
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
    if (facts.touches.length === 0) return slotted(shapes.slots, tool, mode, inputTrust, isSubagent, agentId, facts, make);
    let key = `${mode}\u0000${inputTrust}\u0000${isSubagent ? 1 : 0}\u0000${agentId ?? ""}`;
    for (const t of facts.touches) key += `\u0001${t.kind}\u0000${t.argument}\u0000${t.value}\u0000${t.label}`;
    let verdict = shapes.touched.get(key);
    if (!verdict) {
      if (shapes.touched.size >= MAX_SHAPES) shapes.touched.clear();
      verdict = make(tool, mode, inputTrust, isSubagent, agentId, facts);
      shapes.touched.set(key, verdict);
    }
    return verdict;
  }

  /** The verdict with its cause attached. */
  caused(verdict: Decision, cause: TaintSource | undefined): Decision {
    if (!cause) return verdict;
    // Every field named, in one order: a spread of verdicts of many shapes takes V8's slow path,
    // and the type makes a field added to Decision an error here until it is copied.
    const v = verdict;
    const out: { readonly [K in keyof Required<Decision>]: Decision[K] | undefined } = {
      outcome: v.outcome,
      effect: v.effect,
      mode: v.mode,
      tool: v.tool,
      requestedTool: v.requestedTool,
      via: v.via,
      unresolved: v.unresolved,
      capabilities: v.capabilities,
      inputTrust: v.inputTrust,
      manifested: v.manifested,
      rules: v.rules,
      trustLimited: v.trustLimited,
      cause,
      arguments: v.arguments,
      approval: v.approval,
      grants: v.grants,
      offer: v.offer,
      hidden: v.hidden,
      texts: v.texts,
      command: v.command,
    };
    return out as Decision;
  }
}
