import { autoloadedMatcher, projectFileMatcher } from "./autoloaded-paths.ts";
import { hostWrittenMatcher } from "./host-written-paths.ts";
import type { CapabilityMode, ClawosConfig } from "../config/config-schema.ts";
import { ownerAddressesOf, type OwnerAddress } from "../taint/owner-addresses.ts";
import { SenderSet } from "../taint/sender-set.ts";
import type { TaintSource } from "../taint/session-store.ts";
import type { TrustLevel } from "../taint/trust.ts";
import { CapabilityTable, type PathEffect, pathEffectOf } from "./capabilities.ts";
import { causeOf, decide, type Decision, type DecisionInput, type RulePolicy } from "./decision.ts";
import { DecisionMemo, type MakeVerdict } from "./decision-memo.ts";
import type { ManifestEntry, ManifestRegistry } from "./manifests.ts";
import { builtinPathRules, PathRules, type HostLocations } from "./path-rules.ts";
import {
  callFacts,
  decidedModes,
  isRootConfig,
  repositoriesFrom,
  type CallEnvironment,
  type CallFacts,
  type HostSettings,
  type PathResolver,
  type SelectedMode,
} from "./touches.ts";
import { valuesAt } from "./arguments.ts";
import { DECISION_ROLES, type ArgumentRole } from "./manifest-schema.ts";
import type { ArgumentValue, ProvenanceSettings } from "../taint/provenance.ts";
import { bridgedArgs, type ResolvedTool } from "./tool-names.ts";
import { ToolResolver } from "./tool-resolver.ts";
import { ApprovalPolicy } from "./approval.ts";
import { IrreversibleRules, SECRET_SEND, secretSendOf } from "./irreversible.ts";
import type { IrreversibleAction } from "./decision.ts";
import { compileCommandRules } from "./commands/command-rules.ts";
import { CommandReaderCache } from "./commands/command-reader.ts";
import type { CommandView } from "./commands/classify.ts";

/** A service action a call makes (`CommandView.serviceAction`), for L1 to match against what persons asked for. */
export interface ServiceAction {
  /** The argument that holds the command, for the reason. */
  readonly argument: string;
  readonly services: readonly string[];
  readonly verbs: CommandView["serviceVerbs"];
  /** Where it acts within what the owner's configuration names (a Kubernetes namespace). */
  readonly scopes: readonly string[];
  readonly kinds: CommandView["serviceKinds"];
}

/** What the status report says about enforcement, from the config alone (the gate's firing is observed elsewhere). */
export interface Enforcement {
  /** The configured mode, or off when the capability layer is disabled. */
  readonly mode: CapabilityMode;
  /** Some tool is enforced: the mode is enforce, or a per-tool override says enforce. */
  readonly enforcing: boolean;
  /** Enforced only for the tools overridden to enforce. */
  readonly partial: boolean;
}

/** What the policy needs from the host: where things are, how a path argument resolves, host settings. */
export interface PolicyHost {
  readonly locations: HostLocations;
  readonly resolver: PathResolver;
  readonly settings: HostSettings;
}

/**
 * The operator's config and the manifests, compiled once on load and on every reload: the answers
 * the gate and L1 ask for on every call (a tool's mode, whether a sender is trusted, the denial
 * sets) are lookups here, never walks over the raw config.
 */
export class CompiledPolicy implements RulePolicy {
  readonly config: ClawosConfig;
  readonly manifests: ManifestRegistry;
  /** L1 tagging is on: inputs lower session trust. */
  readonly tagging: boolean;
  readonly defaultAllow: boolean;
  readonly deniedEverywhere: ReadonlySet<string>;
  readonly deniedToAgent: ReadonlyMap<string, ReadonlySet<string>>;
  readonly deniedToSubagents: ReadonlySet<string>;
  readonly unknownRequesterTrust: TrustLevel;
  readonly subagentMaxTrust: TrustLevel;
  readonly enforcement: Enforcement;
  /** The owner's own addresses from the host's config (`commands.ownerAllowFrom`), compiled once. */
  readonly ownerAddresses: readonly OwnerAddress[];
  private readonly trustedSenders: SenderSet;
  private readonly overrides: ReadonlyMap<string, CapabilityMode>;
  private readonly baseMode: CapabilityMode;
  private readonly memo = new DecisionMemo();
  private readonly resolver: ToolResolver;
  /** Path rules (the operator's, then the built-in ones) over this host's locations. */
  readonly paths: PathRules;
  /** What `~` means to the host's tools (a script named `~/proj/x.py` runs that tree). */
  readonly home: string;
  private readonly callEnv: CallEnvironment;
  /** What L1's value provenance needs from the config, compiled once. */
  readonly provenance: ProvenanceSettings;
  private readonly trustedPaths: PathRules;
  private readonly untrustedPaths: PathRules;
  private readonly autoloadedPaths: PathRules;
  /** The built-in capabilities plus the operator's own (`capabilities.custom`). */
  readonly capabilities: CapabilityTable;
  /** What a call enforce would block does when only the owner can answer it (`approval.ts`). */
  readonly approvals: ApprovalPolicy;
  /** Tool calls and commands that take an irreversible action (each needs a grant). */
  readonly irreversible: IrreversibleRules;
  private readonly irreversibleOff: ReadonlySet<string>;
  /** Every irreversible action by id (commands' and tools'), with what it does: what `/clawos grant` may name. */
  readonly actions: ReadonlyMap<string, string>;

  constructor(config: ClawosConfig, manifests: ManifestRegistry, host: PolicyHost) {
    this.config = config;
    this.manifests = manifests;
    this.paths = new PathRules([...config.paths.rules, ...builtinPathRules()], host.locations, config.paths.writable);
    this.home = host.locations.home;
    const commandRules = compileCommandRules(config.commands.rules, "commands.rules");
    this.callEnv = {
      paths: this.paths,
      resolver: host.resolver,
      settings: host.settings,
      workspaceOnly: config.paths.workspaceOnly,
      commands: new CommandReaderCache(commandRules),
    };
    const actions = new Map<string, string>();
    const off = new Set(config.approvals.irreversible.disabled);
    for (const rule of commandRules.rules) {
      const id = rule.id.replace(/^builtin\./, "");
      if (rule.irreversible && !off.has(id) && !actions.has(id)) actions.set(id, rule.irreversible);
    }
    this.irreversible = new IrreversibleRules(config.approvals.irreversible.actions, config.approvals.irreversible.disabled);
    for (const [id, action] of this.irreversible.actions) if (!actions.has(id)) actions.set(id, action);
    if (!off.has(SECRET_SEND.id) && !actions.has(SECRET_SEND.id)) actions.set(SECRET_SEND.id, SECRET_SEND.action);
    this.actions = actions;
    this.trustedPaths = new PathRules(
      config.provenance.trustedPaths.map((pattern) => ({ pattern, zone: "open" as const, label: "a trusted path" })),
      host.locations,
    );
    this.untrustedPaths = new PathRules(
      config.provenance.untrustedPaths.map((pattern) => ({ pattern, zone: "open" as const, label: "installed dependencies" })),
      host.locations,
    );
    this.autoloadedPaths = new PathRules(
      config.provenance.autoloadedPaths.map((pattern) => ({ pattern, zone: "open" as const, label: "a file the operator listed as loaded by programs" })),
      host.locations,
    );
    const builtinAutoloaded = autoloadedMatcher(host.locations.caseInsensitive);
    const builtinHostWritten = hostWrittenMatcher(host.locations.caseInsensitive);
    this.provenance = {
      enabled: config.provenance.enabled && config.layers.tagging,
      scanBytes: config.provenance.scanBytes,
      unknown: config.provenance.unknown as ProvenanceSettings["unknown"],
      trusted: (path, agentId) => this.trustedPaths.match(path, agentId) !== undefined && this.untrustedPaths.match(path, agentId) === undefined,
      systemConfig: config.provenance.systemConfig ? isRootConfig : () => false,
      installed: (path, agentId) => this.untrustedPaths.match(path, agentId) !== undefined,
      autoloaded: (path, agentId) => this.autoloadedPaths.match(path, agentId)?.label ?? builtinAutoloaded(this.belowRoot(path, agentId)),
      hostWritten: (path, agentId) => {
        const relative = this.belowWorkspace(path, agentId);
        return relative === undefined ? undefined : builtinHostWritten(relative);
      },
      projectFile: projectFileMatcher(host.locations.caseInsensitive),
      workspace: (agentId) => this.paths.locations.workspaceFor(agentId),
      home: host.locations.home,
    };
    this.resolver = new ToolResolver((name) => manifests.canonicalName(name));
    this.capabilities = new CapabilityTable(config.capabilities.custom);
    this.tagging = config.layers.tagging;
    this.defaultAllow = config.capabilities.defaultAllow;
    this.deniedEverywhere = new Set(config.capabilities.deny);
    this.deniedToAgent = new Map(Object.entries(config.capabilities.agents).map(([agent, { deny }]) => [agent, new Set(deny)]));
    this.deniedToSubagents = new Set(config.subagent.denyCapabilities);
    this.unknownRequesterTrust = config.unknownRequesterTrust;
    this.subagentMaxTrust = config.subagent.maxTrust;
    this.trustedSenders = new SenderSet(config.trustedSenders);
    this.ownerAddresses = ownerAddressesOf(host.settings.get("commands.ownerAllowFrom", undefined));
    this.approvals = new ApprovalPolicy(config.approvals);
    this.irreversibleOff = off;
    this.overrides = new Map(Object.entries(config.capabilities.overrides));
    this.baseMode = config.layers.capabilities ? config.capabilities.mode : "off";
    const enforcedOverride = [...this.overrides.values()].includes("enforce");
    this.enforcement = {
      mode: this.baseMode,
      enforcing: config.layers.capabilities && (this.baseMode === "enforce" || enforcedOverride),
      partial: config.layers.capabilities && this.baseMode !== "enforce" && enforcedOverride,
    };
  }

  /** The tool a call runs, by its canonical name (`bash` is `exec`; `tool_call` is its inner tool). */
  resolve(toolName: unknown, params: unknown, toolKind?: unknown): ResolvedTool {
    return this.resolver.resolve(toolName, params, toolKind);
  }

  /** The mode a tool is decided in: its override, else the configured mode; off with the layer off. */
  modeFor(tool: ResolvedTool): CapabilityMode {
    if (!this.config.layers.capabilities) return "off";
    return this.overrides.get(tool.name) ?? this.overrides.get(tool.requested) ?? this.baseMode;
  }

  manifestFor(tool: string): ManifestEntry | undefined {
    return this.manifests.lookup(tool);
  }

  isTrustedSender(channel: string | undefined, senderId: string | undefined): boolean {
    return this.trustedSenders.has(channel, senderId);
  }

  isKnownCapability(name: string): boolean {
    return this.capabilities.isKnown(name);
  }

  /** The trust floor of a capability under this policy; one in no table needs `owner`. */
  capabilityFloor(name: string): TrustLevel {
    return this.capabilities.floor(name);
  }

  /**
   * What a call's arguments touch (files, through the path rules) and select (modes), for a tool
   * whose manifest names its arguments; undefined otherwise.
   */
  factsFor(tool: ResolvedTool, params: unknown, derivedPaths: readonly string[] | undefined, agentId: string | undefined): CallFacts | undefined {
    const entry = this.manifests.lookup(tool.name);
    if (!entry || (entry.arguments.length === 0 && entry.modes.length === 0)) return undefined;
    const args = tool.via ? bridgedArgs(params) : params;
    const facts = callFacts(entry.arguments, entry.modes, args, derivedPaths, agentId, this.callEnv, entry.environment);
    return facts && steersHarness(entry, args, facts, isHarnessKey) ? { ...facts, modes: [...facts.modes, HARNESS_MODE] } : facts;
  }

  /**
   * The call's facts with the harness mode added when it sends into a session named by a label or
   * an agent id that L1 saw given to an external harness at its spawn (`named`).
   */
  withNamedHarness(tool: ResolvedTool, params: unknown, facts: CallFacts | undefined, named: (value: string) => boolean): CallFacts | undefined {
    const entry = this.manifests.lookup(tool.name);
    if (!entry || !facts || facts.modes.includes(HARNESS_MODE)) return facts;
    const args = tool.via ? bridgedArgs(params) : params;
    return steersHarness(entry, args, facts, named) ? { ...facts, modes: [...facts.modes, HARNESS_MODE] } : facts;
  }

  /** A spawn of an external harness (`sessions_spawn` with `runtime: "acp"`): the names a send could reach it by (its label, its agent id). */
  harnessNames(tool: ResolvedTool, params: unknown): string[] {
    if (tool.name !== "sessions_spawn") return [];
    const args = (tool.via ? bridgedArgs(params) : params) as Record<string, unknown> | undefined;
    if (!args || typeof args !== "object" || String(args.runtime ?? "").toLowerCase() !== "acp") return [];
    return [args.label, args.agentId, args.agent_id].filter((v): v is string => typeof v === "string" && v.trim() !== "").map((v) => v.trim().toLowerCase());
  }

  /**
   * Whether a decided call can change which file a path reaches: as its manifest says
   * (`pathChanges`), else as its capabilities do. A tool without a manifest may do anything while
   * it runs; what it leaves running is bounded by the resolver's own time limit.
   */
  pathEffect(decision: Pick<Decision, "manifested" | "capabilities" | "tool">): PathEffect {
    if (!decision.manifested) return "running";
    const manifest = this.manifests.lookup(decision.tool)?.manifest;
    return pathEffectOf(decision.capabilities, manifest?.pathChanges, manifest?.capabilities);
  }

  /** The absolute forms of a path as the host resolves it for a tool (see `PathResolver.resolve`). */
  resolvePath(raw: string, agentId: string | undefined): readonly string[] | undefined {
    return this.callEnv.resolver.resolve(raw, agentId, true);
  }

  /** The git directories git uses from where it starts (`repositoriesFrom`), looked for on this host. */
  repositoriesFrom(starts: readonly string[]): string[] {
    return repositoriesFrom(this.callEnv.resolver, starts);
  }

  /**
   * Whether a call may be decided by where its arguments came from (docs/provenance.md): a mode that
   * holds and says so decides (any that says no wins), else the tool's manifest.
   */
  provenanceDecisions(tool: ResolvedTool, facts?: CallFacts): boolean {
    if (!this.provenance.enabled) return false;
    const entry = this.manifests.lookup(tool.name);
    if (!entry) return false;
    if (facts?.modes.some((m) => m.decisions !== undefined)) return decidedModes(facts) !== undefined;
    const flag = entry.manifest.provenance?.decisions;
    return flag ?? entry.arguments.some((a) => DECISION_ROLES.includes(a.spec.role));
  }

  /**
   * A command that only reads another host's state (`CommandView.remoteRead`): where it sends its
   * request decides it, so its destinations are looked up like a call's hosts. Undefined for any
   * other call, or when provenance is off.
   */
  decidedCommandValues(facts: CallFacts | undefined): ArgumentValue[] | undefined {
    const command = facts?.command;
    if (!this.provenance.enabled || !command) return undefined;
    if (command.view.remoteRead && command.view.destinations.length > 0) {
      // A web request's URL is decided as a URL (by itself or its host, and by what it carries); any other destination as a host.
      return command.view.destinations.map((destination) => ({
        argument: command.argument,
        role: /^https?:\/\//i.test(destination) ? ("url" as const) : ("host" as const),
        raw: destination,
      }));
    }
    return undefined;
  }

  /**
   * A command that only restarts, reloads or starts named services (`CommandView.serviceAction`):
   * what a person's message must have asked for. Undefined for any other call, or when provenance is off.
   */
  serviceActionOf(facts: CallFacts | undefined): ServiceAction | undefined {
    const command = facts?.command;
    if (!this.provenance.enabled || !command?.view.serviceAction || command.view.services.length === 0) return undefined;
    return {
      argument: command.argument,
      services: command.view.services,
      verbs: command.view.serviceVerbs,
      scopes: command.view.serviceScopes,
      kinds: command.view.serviceKinds,
    };
  }

  /** The facts of a check of the project (`CommandView.projectCheck`) that may be decided by its trees, else undefined. */
  projectCheckOf(facts: CallFacts | undefined): CallFacts | undefined {
    return this.provenance.enabled && facts?.command?.view.projectCheck === true && facts.command.cwd ? facts : undefined;
  }

  /** The facts of a record in the local repository (`CommandView.localRecord`) that may be decided by its repositories, else undefined. */
  localRecordOf(facts: CallFacts | undefined): CallFacts | undefined {
    const command = facts?.command;
    return this.provenance.enabled && command?.view.localRecord === true && command.repositoryStarts?.length ? facts : undefined;
  }

  /** A path relative to the agent's workspace, or undefined outside it. */
  private belowWorkspace(path: string | undefined, agentId: string | undefined): string | undefined {
    return below(path, this.paths.locations.workspaceFor(agentId));
  }

  /** A path below the agent's workspace, else below the home directory, else as it is (for the built-in autoloaded list). */
  private belowRoot(path: string, agentId: string | undefined): string {
    return this.belowWorkspace(path, agentId) ?? below(path, this.paths.locations.home) ?? path.replace(/^\/+/, "");
  }

  /** Whether a tool's manifest names an amount among its arguments: a call of it can move money. */
  movesMoney(tool: ResolvedTool): boolean {
    return this.manifests.lookup(tool.name)?.movesMoney === true;
  }

  /** Every string a call's `content` arguments hold (its free text), with the argument each is at. */
  private contentStrings(tool: ResolvedTool, params: unknown): { argument: string; value: string }[] {
    const entry = this.manifests.lookup(tool.name);
    if (!entry) return [];
    const args = tool.via ? bridgedArgs(params) : params;
    const out: { argument: string; value: string }[] = [];
    for (const arg of entry.arguments) {
      if (arg.spec.role !== "content") continue;
      for (const found of valuesAt(args, arg.segments)) {
        for (const value of typeof found === "object" && found !== null ? leavesOf(found) : [found]) {
          if (typeof value === "string") out.push({ argument: arg.spec.at, value });
        }
      }
    }
    return out;
  }

  /**
   * A call's free text, for the owner asked about it: the strings its `content` arguments hold (at
   * most `MAX_TEXTS`, each shortened to `TEXT_LIMIT` characters).
   */
  textsOf(tool: ResolvedTool, params: unknown): { argument: string; value: string }[] {
    return this.contentStrings(tool, params)
      .map(({ argument, value }) => ({ argument, value: value.trim() }))
      .filter((t) => t.value !== "")
      .slice(0, MAX_TEXTS)
      .map(({ argument, value }) => ({ argument, value: value.length > TEXT_LIMIT ? `${value.slice(0, TEXT_LIMIT)}…` : value }));
  }

  /**
   * For a tool whose free text is itself what runs (its manifest turns provenance decisions off:
   * keystrokes, a script, an instruction), that text whole: what a grant of such a call is bound
   * to. Undefined for any other tool.
   */
  runningTextOf(tool: ResolvedTool, params: unknown): string[] | undefined {
    if (this.manifests.lookup(tool.name)?.manifest.provenance?.decisions !== false) return undefined;
    return this.contentStrings(tool, params).map((t) => t.value);
  }

  /**
   * The values of a call's security-relevant arguments (every decision role), with the forms the
   * host resolves a path to (from the call's facts).
   */
  argumentValues(tool: ResolvedTool, params: unknown, facts: CallFacts | undefined, agentId: string | undefined): ArgumentValue[] {
    const entry = this.manifests.lookup(tool.name);
    if (!entry) return [];
    const args = tool.via ? bridgedArgs(params) : params;
    const files = facts ? [...facts.reads, ...facts.writes] : [];
    const out: ArgumentValue[] = [];
    for (const arg of entry.arguments) {
      const role: ArgumentRole = arg.spec.role;
      if (!DECISION_ROLES.includes(role)) continue;
      if (role === "path" || role === "patch") {
        for (const file of files) {
          if (file.argument !== arg.spec.at) continue;
          const abs = file.forms[0];
          const relative = this.belowWorkspace(abs, agentId);
          out.push({
            argument: arg.spec.at,
            role,
            raw: file.raw,
            resolved: file.forms,
            ...(relative !== undefined ? { relative } : {}),
            ...(arg.spec.access === "read" ? { reads: true } : {}),
            // A file read (never one written: the manifest check refuses that) may be named by a value copied whole.
            ...(arg.spec.tainted === "copied" && role === "path" && arg.spec.access !== "write" ? { copied: true } : {}),
          });
        }
        continue;
      }
      if (arg.derived) continue;
      // A recipient is an address on the channel the call names, if it names one.
      const channel = role === "recipient" ? channelArgument(args) : undefined;
      for (const found of valuesAt(args, arg.segments)) {
        // A structured value (`phones: [{ type, value }]`) is decided by every string in it: a role
        // on a field the manifest did not spell out to its leaves never lets a value through unseen.
        for (const value of typeof found === "object" && found !== null ? leavesOf(found) : [found]) {
          if (typeof value === "string" ? value.trim() === "" : typeof value !== "number") continue;
          out.push({
            argument: arg.spec.at,
            role,
            raw: String(value),
            ...(arg.spec.tainted === "copied" ? { copied: true } : {}),
            ...(channel ? { channel } : {}),
          });
        }
      }
    }
    return out;
  }

  /** The irreversible actions a call takes: its tool's (by its arguments) and its command's. */
  irreversibleFor(tool: ResolvedTool, params: unknown, facts: CallFacts | undefined): IrreversibleAction[] {
    const args = tool.via ? bridgedArgs(params) : params;
    const out = this.irreversible.actionsOf(tool.name, args);
    const view = facts?.command?.view;
    if (view) {
      for (const a of view.irreversibleActions) if (!this.irreversibleOff.has(a.id) && !out.some((o) => o.id === a.id)) out.push(a);
    }
    if (!this.irreversibleOff.has(SECRET_SEND.id)) {
      const through = secretSendOf(this.manifests.lookup(tool.name)?.manifest.capabilities, args, facts?.touches ?? []);
      if (through !== undefined) out.push({ id: SECRET_SEND.id, action: `${SECRET_SEND.action}, in its ${through}` });
    }
    return out;
  }

  /**
   * The decision for one call at the trust it has. Pure over this policy: memoized by the call's
   * shape, with what its paths touch and its command's reading when it has them (not when it selects
   * modes or takes an irreversible action); a trust-limited decision carries the input that set the
   * session's trust as its cause.
   */
  decide(
    tool: ResolvedTool,
    mode: CapabilityMode,
    inputTrust: TrustLevel,
    isSubagent: boolean,
    agentId: string | undefined,
    taint: readonly TaintSource[],
    facts?: CallFacts,
    irreversible: readonly IrreversibleAction[] = [],
  ): Decision {
    const verdict =
      irreversible.length > 0 || (facts && facts.modes.length > 0)
        ? decide(this.decisionInput(tool, mode, inputTrust, isSubagent, agentId, irreversible, facts), this)
        : facts && (facts.touches.length > 0 || facts.command)
          ? this.memo.factVerdict(tool, mode, inputTrust, isSubagent, agentId, facts, this.deciding)
          : this.memo.verdict(tool, mode, inputTrust, isSubagent, agentId, this.deciding);
    return verdict.trustLimited ? this.memo.caused(verdict, causeOf(taint, inputTrust)) : verdict;
  }

  /** What `decide` reads for one call (the memo calls it on a miss, with the call's shape and facts). */
  private readonly deciding: MakeVerdict = (tool, mode, inputTrust, isSubagent, agentId, facts) =>
    decide(this.decisionInput(tool, mode, inputTrust, isSubagent, agentId, [], facts), this);

  private decisionInput(
    tool: ResolvedTool,
    mode: CapabilityMode,
    inputTrust: TrustLevel,
    isSubagent: boolean,
    agentId: string | undefined,
    irreversible: readonly IrreversibleAction[],
    facts: CallFacts | undefined,
  ): DecisionInput {
    return {
      tool,
      mode,
      manifest: this.manifests.lookup(tool.name),
      broken: this.manifests.brokenFor(tool.name),
      inputTrust,
      isSubagent,
      agentId,
      ...(irreversible.length > 0 ? { irreversible } : {}),
      ...(facts ? { facts } : {}),
    };
  }
}

/** A path relative to a directory it is below, else undefined. */
function below(path: string | undefined, dir: string): string | undefined {
  const base = dir.replace(/\/+$/, "");
  return path && base && path.startsWith(`${base}/`) ? path.slice(base.length + 1) : undefined;
}

/** The channel a call names to send on (`message`'s `channel` argument), if it names one. */
function channelArgument(args: unknown): string | undefined {
  const channel = args && typeof args === "object" ? (args as { channel?: unknown }).channel : undefined;
  return typeof channel === "string" && channel.trim() ? channel.trim() : undefined;
}

/** At most this many strings and numbers are taken from one structured argument value. */
const MAX_LEAVES = 64;

/** The strings and numbers inside a structured argument value, depth first (bounded in count and depth). */
/** How many free texts (`textsOf`) a decision keeps, and how much of each. */
const MAX_TEXTS = 3;
const TEXT_LIMIT = 400;

function leavesOf(root: object): unknown[] {
  const out: unknown[] = [];
  const visit = (value: unknown, depth: number): void => {
    if (out.length >= MAX_LEAVES) return;
    if (typeof value === "string" || typeof value === "number") out.push(value);
    else if (typeof value === "object" && value !== null && depth < 6) for (const item of Object.values(value)) visit(item, depth + 1);
  };
  visit(root, 0);
  return out;
}

/**
 * A message into an external harness session (ACP: `agent:<agentId>:acp:<id>`, a coding agent
 * OpenClaw runs on the host) is an instruction to a program whose own tool calls ClawOS never sees:
 * lowering that session stops nothing there. Such a send is decided as running a command, as the
 * spawn of the harness was (`sessions_spawn` with `runtime: "acp"`).
 */
const HARNESS_MODE: SelectedMode = {
  name: "instructing an external ACP harness session, which runs a coding agent on the host",
  capabilities: ["proc:exec"],
  minInputTrust: "owner",
  riskLevel: "critical",
  decisions: false,
};
const HARNESS_SESSION = /^agent:[^:\s]+:acp:/i;

function isHarnessKey(value: string): boolean {
  return HARNESS_SESSION.test(value);
}

function steersHarness(entry: ManifestEntry, args: unknown, facts: CallFacts, harness: (value: string) => boolean): boolean {
  if (!entry.manifest.capabilities.includes("message:send") || facts.modes.some((m) => m.readOnly)) return false;
  for (const arg of entry.arguments) {
    if (arg.spec.role !== "target-session") continue;
    for (const value of valuesAt(args, arg.segments)) if (typeof value === "string" && harness(value.trim().toLowerCase())) return true;
  }
  return false;
}
