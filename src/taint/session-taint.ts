import { recordHooks } from "./git-hooks.ts";
import { join, resolve as resolvePath } from "node:path";
import type { ChannelMessage, Requester, ToolCall, ToolResult, TurnInput } from "../calls.ts";
import type { CompiledPolicy, ServiceAction } from "../policy/compiled-policy.ts";
import type { Decision } from "../policy/decision.ts";
import { bridgedArgs, normalizeToolName, outerCallIdOf, type ResolvedTool } from "../policy/tool-names.ts";
import { RecentCalls, type CallMemo } from "./recent-calls.ts";
import { BackgroundRuns, endedRunIds, runningId } from "./background-runs.ts";
import { ListedEntries, type ListedEntry, type ListedLookup } from "./listed-entries.ts";
import { ActionRequests, startupNotes, systemEventLines } from "./action-requests.ts";
import { isSendReceipt, namingValues } from "./values.ts";
import { snakeCaseKey, valuesAt, type QuotedFields, type Segments } from "../policy/arguments.ts";
import { resultLabel } from "./labels.ts";
import { OwnerAddresses } from "./owner-addresses.ts";
import type { SessionStore, SessionTrust, TaintSource } from "./session-store.ts";
import { meetsTrust, minTrust, trustRank, type TrustLevel } from "./trust.ts";
import type { CallFacts, FileRef } from "../policy/touches.ts";
import { codeLevel, FileLabels } from "./file-labels.ts";
import {
  isDirectory,
  isEnvelope,
  isHostMask,
  paymentNotes,
  paymentOf,
  Provenance,
  quotedExcerpt,
  resultRecords,
  shownValue,
  textOf,
  wholeResultRecords,
  type ArgumentValue,
  type ArgumentVerdict,
  type Namer,
} from "./provenance.ts";
import { GATEWAY_CHANNEL, RequesterLog, type RequesterBasis, type RequesterTrust } from "./requester.ts";
import type { FileLabel } from "./file-labels.ts";
import { WorkTreeUpdates } from "./work-tree-updates.ts";
import type { ValueSource } from "./value-index.ts";
import type { CompiledSelect, ManifestEntry } from "../policy/manifests.ts";

/**
 * L1: everything a session's trust depends on, and nothing else. The requesters of its turns, the
 * channel messages and tool results that entered it, its sub-agents, resets, and the facts still
 * pending (messages whose sender is settled at the next call, spawns not linked yet, results on a
 * path without result hooks). The gate asks it for the facts before a call, hands it the facts after
 * the call, and never writes session state itself. Trust changes go to the `onTrustChange` sink.
 */

export interface TrustChange {
  readonly event: "trust.lowered" | "trust.reset";
  readonly sessionKey: string;
  readonly from: TrustLevel;
  readonly to: TrustLevel;
  readonly source: TaintSource;
  readonly by?: string;
}

/** A session's trust as the gate sees it at one call. */
export type SessionView = Pick<SessionTrust, "trust" | "shadow" | "lowered">;

/**
 * What `/clawos session` reports, as data: the session's state, who its turns came from and why
 * each got its level, and a summary of its value provenance and of the file labels.
 */
export interface SessionReport {
  readonly state: SessionTrust;
  readonly requesters: readonly RequesterTrust[];
  /** Undefined when value provenance is off. */
  readonly provenance?: {
    /** Values remembered, by the highest trust of an input each was seen in. */
    readonly values: Readonly<Record<TrustLevel, number>>;
    readonly valueCapacity: number;
    /** Values not remembered because the index was full (since this process started). */
    readonly valuesDropped: number;
    readonly files: {
      /** Labels of every session, by level. */
      readonly counts: Readonly<Record<TrustLevel, number>>;
      /** How many paths this session labelled below owner, and the newest of them. */
      readonly loweredHere: number;
      readonly newestHere: readonly { readonly path: string; readonly label: FileLabel }[];
      /** Why labels cannot be relied on, when they cannot. */
      readonly problem?: string;
    };
  };
}

/** What a finished call brought into its session. */
export interface ObservedResult {
  readonly level: TrustLevel;
  readonly tool: string;
  /** The call ran only because audit mode let a would-block through. */
  readonly auditOnly: boolean;
  /** The session's trust after the result entered. */
  readonly sessionTrust?: TrustLevel;
}

export interface SessionTaintOptions {
  readonly store: SessionStore;
  readonly policy: CompiledPolicy;
  readonly onTrustChange: (change: TrustChange) => void;
  readonly now?: () => number;
}

interface PendingMessage {
  readonly channel?: string;
  readonly senderId?: string;
  readonly at: number;
}

interface PendingSpawn {
  readonly parentKey: string;
  readonly trust: TrustLevel;
  readonly at: number;
}

/** At most this many harness names are kept (the oldest go first). */
const MAX_HARNESS_NAMES = 256;
const MAX_PENDING_SPAWNS = 64;
/** Sessions, and payments per session, whose results `pendingPayments` waits for. */
const MAX_PENDING_PAYMENT_SESSIONS = 1024;
const MAX_PENDING_PAYMENTS = 32;
const MAX_PENDING_RESULTS = 64;
const MAX_PENDING_MESSAGES = 16;
const OWNER_VIEW: SessionView = Object.freeze({ trust: "owner", lowered: [] as TaintSource[] });

/**
 * The trust a call is decided at. Results that entered only because audit mode let a would-block
 * run (the shadow) count in enforce, so switching to enforce never forgets what entered, and are
 * ignored in audit, so that audit and enforce decide a trace alike.
 */
export function trustAtCall(view: SessionView, enforced: boolean): TrustLevel {
  return enforced && view.shadow ? minTrust(view.trust, view.shadow) : view.trust;
}

const MAX_CHOSEN_VALUE = 2048;
const OWN_ADDRESS_CONFIGURED = "the owner's own address (OpenClaw's commands.ownerAllowFrom)";
const OWN_ADDRESS_PROVEN = "the owner's own address (a sender the host resolved as the owner)";
const CHOSEN_LABEL = "a call this session made at owner trust";
/** A selected identifier longer than this is not an identifier; a lookup adds at most MAX_SELECTED. */
const MAX_SELECTED_VALUE = 320;
const MAX_SELECTED = 2000;
/** How many identifiers of one entry count, and how much of its naming fields tells it from another. */
const MAX_ENTRY_VALUES = 16;
const MAX_ENTRY_KEY = 1024;

export class SessionTaint {
  readonly store: SessionStore;
  private policy: CompiledPolicy;
  /** Labels and agent ids given to external harnesses at their spawn (most recent last), for `namesHarness`. */
  private readonly harnesses = new Set<string>();
  private readonly onTrustChange: (change: TrustChange) => void;
  private readonly now: () => number;
  /** Recent decided calls: results of blocked calls do not taint, tool_call results use the inner tool. */
  private readonly calls = new RecentCalls(20_000);
  /**
   * Payments allowed whose results have not come back, by session and call id (`repeatedPayment`):
   * two copies in one model step are both gated before either result arrives. In memory, bounded.
   */
  private readonly pendingPayments = new Map<string, Map<string, { tool: string; keys: readonly string[] }>>();
  private readonly background = new BackgroundRuns();
  /** Checks of the project allowed below owner that the host left running, by session and run id: the trusted directories they run. */
  private readonly runningChecks = new Map<string, string[]>();
  private readonly listed = new ListedEntries();
  /** What persons' messages asked to be done to services (see `serviceVerdicts`). */
  private readonly requests = new ActionRequests();
  private readonly pendingMessages = new Map<string, PendingMessage[]>();
  private pendingSpawns: PendingSpawn[] = [];
  /** The owner's own addresses: configured, and channel senders the host resolved as the owner. */
  private readonly owners: OwnerAddresses;
  /** Who sessions' turns came from (for the report). */
  private readonly requesterLog = new RequesterLog();
  /**
   * Whether result hooks (after_tool_call, tool_result_persist) reach ClawOS on this path. Where
   * they do not (`openclaw agent exec` runs only the trusted tool policy), an allowed call's result
   * is assumed to have entered its session by the time the session's next call is decided. The host
   * adapter says which path it is on; a result that arrives anyway proves the hooks are live.
   */
  private resultHooksLive = true;
  private readonly pendingResults = new Map<string, { callId: string; isSubagent: boolean }[]>();

  /** Value provenance and file labels (docs/provenance.md). */
  readonly provenance: Provenance;
  /** Commands updating a repository's work tree where it stands, waiting for their result to narrow their label. */
  private readonly workTrees: WorkTreeUpdates;

  constructor(options: SessionTaintOptions) {
    this.store = options.store;
    this.policy = options.policy;
    this.onTrustChange = options.onTrustChange;
    this.now = options.now ?? Date.now;
    const file = options.store.labelsFile;
    const labels = new FileLabels({
      file,
      max: options.policy.config.provenance.maxFileLabels,
      mac: file ? (body) => options.store.macOf(body) ?? "" : undefined,
    });
    this.provenance = new Provenance(options.store, labels, options.policy.provenance);
    this.workTrees = new WorkTreeUpdates(labels);
    this.owners = new OwnerAddresses(options.policy.ownerAddresses);
    this.restorePending();
  }

  /** Pending spawns and channel messages a previous process journaled and did not settle. */
  private restorePending(): void {
    for (const fact of this.store.restorePending()) {
      if (fact.t === "spawn") this.pendingSpawns.push({ parentKey: fact.parent, trust: fact.trust, at: fact.at });
      else if (fact.t === "linked") {
        const spent = this.pendingSpawns.findIndex((spawn) => spawn.parentKey === fact.parent);
        if (spent >= 0) this.pendingSpawns.splice(spent, 1);
      } else if (fact.t === "message") {
        const list = this.pendingMessages.get(fact.key) ?? [];
        list.push({ channel: fact.channel, senderId: fact.senderId, at: fact.at });
        this.pendingMessages.set(fact.key, list.slice(-MAX_PENDING_MESSAGES));
      } else if (fact.t === "settled") this.pendingMessages.delete(fact.key);
      else if (fact.t === "command") this.dropCommandMessage(fact.key, fact.channel, fact.senderId);
      else if (fact.t === "harness") this.noteHarness(fact.name);
    }
    this.pendingSpawns = this.pendingSpawns.slice(-MAX_PENDING_SPAWNS);
  }

  /** A reload: new trusted senders, ceilings and manifests; every session keeps its trust. */
  usePolicy(policy: CompiledPolicy): void {
    this.policy = policy;
    this.provenance.settings = policy.provenance;
    this.owners.configure(policy.ownerAddresses);
  }

  /** Where each of a call's security-relevant arguments came from, at the trust the call needs. */
  /** The secrets the session read that a call's parameters hold (`Provenance.secretsIn`). */
  secretsIn(call: Pick<ToolCall, "sessionKey" | "params">): string[] | undefined {
    return call.sessionKey ? this.provenance.secretsIn(this.store.peek(call.sessionKey), call.params) : undefined;
  }

  verdicts(call: Pick<ToolCall, "sessionKey" | "agentId" | "requester">, values: readonly ArgumentValue[], required: TrustLevel): ArgumentVerdict[] {
    const state = call.sessionKey ? this.store.peek(call.sessionKey) : undefined;
    const verdicts = values.map(
      (value) =>
        this.ownAddress(value, call.requester?.channel) ?? this.underRunningCheck(value) ?? this.provenance.verdict(state, value, required, call.agentId),
    );
    return state ? this.repeatedPayment(state, values, verdicts, required) : verdicts;
  }

  private notePendingPayment(sessionKey: string, callId: string, tool: string, keys: readonly string[]): void {
    let calls = this.pendingPayments.get(sessionKey);
    if (!calls) {
      if (this.pendingPayments.size >= MAX_PENDING_PAYMENT_SESSIONS) this.pendingPayments.delete(this.pendingPayments.keys().next().value as string);
      this.pendingPayments.set(sessionKey, (calls = new Map()));
    }
    if (calls.size >= MAX_PENDING_PAYMENTS) calls.delete(calls.keys().next().value as string);
    calls.set(callId, { tool, keys });
  }

  /**
   * A payment to an account the session already paid, asked for below the trust it needs: a message
   * asked for one transfer, and it was made, so the same amount to that account again ("the payment
   * failed, please resubmit it") is not endorsed by that message, and neither is another sum to
   * accounts all paid already unless a message at that trust named the sum itself (not a share of
   * one: "the same, in two parts"). A tool that names no account: the same sum, or any sum no such
   * message named after a payment. A payment whose result has not come back counts as made. Its
   * amount is tainted, naming the call that paid.
   */
  private repeatedPayment(state: SessionTrust, values: readonly ArgumentValue[], verdicts: ArgumentVerdict[], required: TrustLevel): ArgumentVerdict[] {
    const payment = values.some((v) => v.role === "amount") ? paymentOf(values) : undefined;
    if (!payment) return verdicts;
    const pending = this.pendingPayments.get(state.key);
    const paid = (key: string): ValueSource | undefined => {
      const made = this.provenance.paid(state, key);
      if (made || !pending) return made;
      for (const [callId, entry] of pending)
        if (entry.keys.includes(key)) return { level: "owner", label: `${entry.tool} call ${callId}, whose result has not come back`, callId };
      return undefined;
    };
    // Every sum is one a message at the trust needed named itself (not a share of one).
    const named = values.every((v) => {
      if (v.role !== "amount" || v.raw.trim() === "") return true;
      const level = this.provenance.levelOf(state, v.raw);
      return level !== undefined && meetsTrust(level, required);
    });
    let earlier: ValueSource | undefined;
    if (payment.accounts.length === 0) {
      earlier = paid(`amount\u0000${payment.amount}`) ?? (named ? undefined : paid("any"));
    } else {
      for (const forms of payment.accounts) for (const form of forms) earlier ??= paid(`to\u0000${form}\u0000${payment.amount}`);
      if (!earlier && !named) {
        let first: ValueSource | undefined;
        const every = payment.accounts.every((forms) => {
          for (const form of forms) {
            const hit = paid(`to\u0000${form}`);
            if (!hit) continue;
            first ??= hit;
            return true;
          }
          return false;
        });
        if (every) earlier = first;
      }
    }
    if (!earlier) return verdicts;
    const source = earlier;
    return verdicts.map((v) =>
      v.role !== "amount"
        ? v
        : {
            argument: v.argument,
            role: v.role,
            value: v.value,
            verdict: "tainted",
            allowed: false,
            source: source.label,
            ...(source.callId ? { callId: source.callId } : {}),
            note: `this session already made a payment to this account (${source.label}): a request for one payment does not endorse another`,
            repeats: true,
          },
    );
  }

  /**
   * A file a call below owner would write where a check of the project that started below owner is
   * still running (the host left it running past its yield window): a test runner that watches its
   * tree runs what is written there next, with nothing more to decide. Not allowed until the check
   * ends (a poll that finds it done) or is stopped.
   */
  private underRunningCheck(value: ArgumentValue): ArgumentVerdict | undefined {
    if (value.role !== "path" || value.reads === true || this.runningChecks.size === 0) return undefined;
    const forms = value.resolved ?? [];
    for (const [run, roots] of this.runningChecks) {
      const root = roots.find((r) => forms.some((path) => path === r || path.startsWith(r.endsWith("/") ? r : `${r}/`)));
      if (root === undefined) continue;
      return {
        argument: value.argument,
        role: value.role,
        value: shownValue(value.raw),
        verdict: "tainted",
        allowed: false,
        note: `a check of the project that started below owner is still running in ${root} (run ${run.slice(run.indexOf("\u0000") + 1)}), and a test runner that watches would run what is written there; wait until it ends, or stop it, then write`,
      };
    }
    return undefined;
  }

  /**
   * The verdicts of a service action's services (`CommandView.serviceAction`): each is endorsed when
   * the session's latest message of a person at the trust needed asked for that action of it
   * (`action-requests.ts`: "restart acme-mailer", "the api is down, start it"), or for one that
   * covers it (a restart asks for a start or a reload), of the kind it is when the message said
   * ("the nginx container" is not the nginx unit), in the namespace the message named (none named:
   * no namespace, or one the service's own name holds, as payments for payments-api). A name only a
   * log, a file or another tool's output held, or a message that named the service as context, in
   * a question or a condition, or said not to touch it, asks for nothing.
   */
  serviceVerdicts(call: Pick<ToolCall, "sessionKey">, action: ServiceAction, required: TrustLevel): ArgumentVerdict[] {
    const requests = call.sessionKey ? this.requests.of(call.sessionKey).filter((r) => meetsTrust(r.level, required)) : [];
    const wanted = action.verbs.length > 0 ? action.verbs : [{ verb: "", alsoBy: [] }];
    const doing =
      wanted
        .map((w) => w.verb)
        .filter(Boolean)
        .join(" and ") || "act on";
    return action.services.map((service) => {
      const base = { argument: `${action.argument}'s service`, role: "id" as const, value: shownValue(service) };
      const naming = requests.filter((r) => r.names.includes(service));
      const acting = naming.filter((r) => wanted.every((w) => w.verb === "" || r.verb === w.verb || w.alsoBy.includes(r.verb)));
      const kinded = acting.filter((r) => r.kinds.length === 0 || action.kinds.every((kind) => r.kinds.includes(kind)));
      const placed = kinded.filter((r) =>
        r.namespaces.length > 0
          ? action.scopes.length > 0 && action.scopes.every((scope) => r.namespaces.includes(scope))
          : action.scopes.every((scope) => service.split("-").includes(scope)),
      );
      const request = placed.at(-1);
      if (request)
        return {
          ...base,
          verdict: "endorsed" as const,
          allowed: true,
          level: request.level,
          source: request.label,
          note: `${request.label} asks to ${request.verb} it`,
        };
      const why =
        kinded.length > 0
          ? action.scopes.length > 0
            ? ` in namespace ${action.scopes.join(", ")}`
            : ` without naming the namespace ${kinded.at(-1)?.namespaces.join(", ")} the message named`
          : acting.length > 0
            ? ` as a ${action.kinds.join(" and ")} service (the message said another kind)`
            : "";
      return {
        ...base,
        verdict: "tainted" as const,
        allowed: false,
        note: `no message of the owner at ${required} asks to ${doing} it${why} (a service action below owner runs only what the latest message of the owner asks for: the action said of the service)`,
      };
    });
  }

  /**
   * The verdicts of a check of the project (`CommandView.projectCheck`: `npm test`, `cargo build`,
   * `go vet ./...`), one per tree it runs: endorsed at owner when the tree is one of the trusted paths
   * and holds no code a session below owner wrote (`Provenance.ownTree`). What the session read
   * cannot change what such a check runs: its arguments are only what the command table lists (no
   * config, plugin or path outside the tree), and its code is the owner's.
   */
  projectVerdicts(call: Pick<ToolCall, "agentId" | "sessionKey">, facts: CallFacts, required: TrustLevel): ArgumentVerdict[] {
    const command = facts.command;
    if (!command?.cwd || !this.policy.tagging) return [];
    const state = call.sessionKey ? this.store.peek(call.sessionKey) : undefined;
    // The working directory is a tree it runs unless it only runs where a cd put it (`cd api && npm test`).
    const named = treeDirsOf(command, this.policy.home);
    const dirs = [...new Set([...(command.view.runsCwd || named.length === 0 ? [command.cwd] : []), ...named])];
    return dirs.map((dir) =>
      ownVerdict(`${command.argument}'s tree`, dir, this.provenance.ownTree(dir, state, required, call.agentId), OWN_TREE, "a check of the project", "in"),
    );
  }

  /**
   * The verdicts of a record in the local repository (`CommandView.localRecord`: `git add x && git
   * commit -m ...`, `git switch -c fix`), one per repository it records in: endorsed at owner when
   * the repository is one of the trusted paths and git runs no hook for it, or only the owner's code
   * (`Provenance.ownRecord`). What the session read cannot change what such a record does: it stores
   * what the named files hold (their labels say who wrote them) under a message, and sends nothing.
   */
  recordVerdicts(call: Pick<ToolCall, "agentId" | "sessionKey">, facts: CallFacts, required: TrustLevel): ArgumentVerdict[] {
    const command = facts.command;
    if (!command?.repositoryStarts || !this.policy.tagging) return [];
    const state = call.sessionKey ? this.store.peek(call.sessionKey) : undefined;
    const argument = `${command.argument}'s repository`;
    const gitDirs = this.policy.repositoriesFrom(command.repositoryStarts);
    const paths = command.view.recordPaths.map((path) => resolvePath(command.cwd, path));
    if (gitDirs.length === 0) {
      return command.repositoryStarts.map((start) => ({
        argument,
        role: "path" as const,
        value: shownValue(start),
        verdict: "unknown" as const,
        allowed: false,
        note: "no git repository was found there, so what git would record and run is not known",
      }));
    }
    return gitDirs.map((gitDir) =>
      ownVerdict(
        argument,
        gitDir,
        this.provenance.ownRecord(gitDir, paths, state, required, call.agentId),
        OWN_RECORD,
        "a record in the local repository",
        "at",
      ),
    );
  }

  /** A recipient that is the owner's own address (`owner-addresses.ts`) is endorsed at owner, whatever the session read. */
  private ownAddress(value: ArgumentValue, requesterChannel: string | undefined): ArgumentVerdict | undefined {
    if (value.role !== "recipient") return undefined;
    const channel = value.channel ?? requesterChannel;
    const basis = this.owners.basisOf(value.raw, channel);
    if (!basis) return undefined;
    return {
      argument: value.argument,
      role: value.role,
      value: shownValue(value.raw),
      verdict: "endorsed",
      allowed: true,
      level: "owner",
      source: basis === "configured" ? OWN_ADDRESS_CONFIGURED : OWN_ADDRESS_PROVEN,
    };
  }

  /**
   * For a build or test, what code below owner its tree holds (for git that runs a repository's
   * settings, its git directory), as a mark that changes with every such write
   * (`FileLabels.codeMark`); undefined for any other call. A grant for the command is bound to the
   * mark the owner saw when approving it.
   */
  treeMark(facts: CallFacts | undefined): string | undefined {
    const dirs = this.policy.tagging ? markedDirs(facts, this.policy.home) : undefined;
    if (!dirs) return undefined;
    const docs = facts?.command?.view.runsDocs === true;
    return dirs.map((dir) => this.provenance.labels.codeMark(dir, docs)).join(";");
  }

  /** The code written below owner last into a build's or test's tree, as a cause: why a grant for it was set aside. */
  treeChange(facts: CallFacts | undefined): TaintSource | undefined {
    let newest: ReturnType<FileLabels["newestCodeUnder"]>;
    const docs = facts?.command?.view.runsDocs === true;
    for (const dir of markedDirs(facts, this.policy.home) ?? []) {
      const code = this.provenance.labels.newestCodeUnder(dir, docs);
      if (code && (!newest || (code.label.seq ?? 0) > (newest.label.seq ?? 0))) newest = code;
    }
    if (!newest) return undefined;
    const by = writerOf(newest.label);
    const level = codeLevel(newest.label);
    return {
      level,
      kind: "file",
      label: `${newest.path}, which ${by} wrote at ${level} after the owner allowed this command always`,
      at: newest.label.at,
    };
  }

  /**
   * What a build or test runs: the least trusted file ClawOS saw written under its working
   * directory, when that is below `trust`. The call runs that file's code, so it has that file's
   * trust (a planted test file does not run in the owner's next session unasked). A command an
   * operator's rule allows below owner is checked against owner: the rule vouches for the command,
   * not for code a less trusted session wrote into the tree it runs.
   */
  treeSource(facts: CallFacts | undefined, trust: TrustLevel): TaintSource | undefined {
    const command = facts?.command;
    if (!this.policy.tagging || !command?.cwd) return undefined;
    const runsFiles = command.view.runsInput || command.view.codeFiles.length !== 0;
    // A record in the local repository runs the tree only through the hooks git runs for it.
    const runsTree = command.view.runsTree || (command.view.localRecord && this.recordRunsHooks(command));
    if (!runsTree && !runsFiles) return undefined;
    const above: TrustLevel = command.view.allowAt !== undefined && command.view.allowAt !== "owner" ? "owner" : trust;
    if (above === "untrusted") return undefined;
    const docs = command.view.runsDocs;
    let low = runsTree ? this.provenance.labels.lowestCodeUnder(command.cwd, above, docs) : undefined;
    for (const dir of runsTree ? treeDirsOf(command, this.policy.home) : []) {
      const other = this.provenance.labels.lowestCodeUnder(dir, above, docs);
      if (other && (!low || trustRank(codeLevel(other.label)) < trustRank(codeLevel(low.label)))) low = other;
    }
    // What it runs from a file it reads or its input (`bash < setup.sh`, `awk -f x.awk`), or a file
    // it runs (`bash docs/setup.txt`), is that file, whatever its kind.
    if (runsFiles) {
      for (const file of facts?.reads ?? []) {
        if (!command.view.runsInput && file.code !== true) continue;
        const { level, label } = this.provenance.fileTrust(file.forms, undefined, "owner");
        if (label && trustRank(level) < trustRank(above) && (!low || trustRank(level) < trustRank(codeLevel(low.label)))) low = { path: file.raw, label };
      }
    }
    if (!low) return undefined;
    const by = writerOf(low.label);
    const level = codeLevel(low.label);
    return { level, kind: "file", label: `${low.path}, which ${by} wrote at ${level}`, at: low.label.at };
  }

  /** Whether git may run a hook for a record (`CommandView.localRecord`) in one of its repositories (`recordHooks`). */
  private recordRunsHooks(command: NonNullable<CallFacts["command"]>): boolean {
    const gitDirs = this.policy.repositoriesFrom(command.repositoryStarts ?? []);
    return gitDirs.length === 0 || gitDirs.some((gitDir) => recordHooks(gitDir, this.policy.home).kind !== "none");
  }

  /**
   * What git runs in a repository whose settings were written below owner (an archive that held a
   * `.git`, a copy of someone's repository): the least trusted label at or under its git directory.
   * Git runs the commands those settings name (`core.fsmonitor`, aliases, a diff driver) even for
   * `git status`, so the call runs code of that trust. A clone's own `.git` is labelled by the
   * clone (`labelWrites`): git wrote its settings, not the remote.
   */
  settingsSource(facts: CallFacts | undefined): { source: TaintSource; repositories: readonly string[] } | undefined {
    const starts = facts?.command?.repositoryStarts;
    const labels = this.provenance.labels;
    if (!this.policy.tagging || !starts || starts.length === 0) return undefined;
    // Git's repositories are looked for on disk only where a label below owner could reach them.
    if (labels.intact && !labels.mayReachSettings(starts)) return undefined;
    const dirs = this.policy.repositoriesFrom(starts);
    let low: { dir: string; label: FileLabel } | undefined;
    for (const dir of dirs) {
      // Settings are code: what a fetch wrote there (objects, refs) is the remote's text, not settings.
      const label = labels.lowestUnder(dir, () => true);
      if (label && label.level !== "owner" && (!low || trustRank(label.level) < trustRank(low.label.level))) low = { dir, label };
    }
    if (!low) return undefined;
    const by = writerOf(low.label);
    const source: TaintSource = {
      level: low.label.level,
      kind: "file",
      label: `the settings of the git repository at ${low.dir}, which ${by} wrote at ${low.label.level}`,
      at: low.label.at,
    };
    return { source, repositories: dirs };
  }

  // ---- around a call ----------------------------------------------------------------------

  /**
   * Records the facts that arrive with a call (its turn's requester, channel messages settled by it,
   * results of earlier calls on a path without result hooks) and returns the session's trust.
   */
  beforeCall(call: Pick<ToolCall, "sessionKey" | "isSubagent" | "requester">): SessionView {
    if (!this.policy.tagging) return OWNER_VIEW;
    const key = call.sessionKey;
    if (!key) {
      const trust = minTrust(this.requesterTrust(call.requester), this.policy.unknownRequesterTrust);
      return { trust, lowered: [{ level: trust, kind: "requester", label: "a call without a session key", at: this.now() }] };
    }
    if (!this.resultHooksLive) this.applyPendingResults(key);
    if (call.isSubagent) {
      // A sub-agent bound to a thread or a conversation gets the messages people post there
      // (message_received on its key): they lower it as they would any session.
      const child = this.store.peek(key) ?? this.store.get(key, this.unlinkedChildTrust());
      this.settlePendingMessages(key, child, call.requester);
      return child;
    }
    const state = this.store.get(key, "owner");
    this.settlePendingMessages(key, state, call.requester);
    const basis = this.requesterBasis(call.requester);
    const level = this.basisTrust(basis);
    state.requesters = this.requesterLog.note(state.requesters, call.requester, basis, level);
    if (trustRank(level) < trustRank(state.trust)) {
      this.lower(key, { level, kind: "requester", label: requesterLabel(call.requester), at: this.now() });
    }
    return state;
  }

  /**
   * The record that keeps what the host said about a session's turns and calls (`SurfaceFacts`,
   * in memory only): the session's own, created as a call or turn would create it.
   */
  surfaceRecord(sessionKey: string, isSubagent: boolean, known?: SessionView): SessionTrust {
    // The record `beforeCall` returned for this call, when it returned one: no second lookup.
    if (known && (known as Partial<SessionTrust>).key === sessionKey) return known as SessionTrust;
    return this.store.peek(sessionKey) ?? this.store.get(sessionKey, isSubagent ? this.unlinkedChildTrust() : "owner");
  }

  /** A decision made in a Tool Search inner call's outer call, reused for the inner one (same tool, same arguments). */
  bridged(call: Pick<ToolCall, "toolCallId" | "sessionKey" | "params">, tool: ResolvedTool): Decision | undefined {
    const outerId = outerCallIdOf(call.toolCallId);
    if (!outerId) return undefined;
    const memo = this.calls.get(call.sessionKey, outerId);
    if (!memo || memo.tool.via === undefined || memo.tool.name !== tool.name) return undefined;
    // The inner call must pass what the outer one was decided on, as the host reads a meta call's arguments.
    const innerArgs = bridgedArgs(memo.paramsRef);
    if (innerArgs === undefined || !sameShallow(innerArgs, call.params)) return undefined;
    if (call.toolCallId) this.calls.set(call.sessionKey, call.toolCallId, { ...memo, paramsRef: undefined });
    return memo.decision;
  }

  /** Records what a decided call means for trust: a message into another session, a spawn, a result to expect. */
  afterCall(call: ToolCall, tool: ResolvedTool, decision: Decision, facts?: CallFacts): void {
    if (call.toolCallId) {
      // Built field by field: this runs on every call.
      const memo: { -readonly [K in keyof CallMemo]: CallMemo[K] } = {
        tool,
        blocked: decision.outcome !== "allow",
        paramsRef: tool.via ? call.params : undefined,
        decision,
        agentId: call.agentId,
      };
      if (facts) {
        if (facts.reads.length > 0 || facts.writes.length > 0 || facts.command) memo.facts = facts;
        for (const mode of facts.modes) {
          if (mode.output === undefined) continue;
          memo.output = mode.output;
          if (mode.quotes) memo.quotes = mode.quotes;
          break;
        }
      }
      // A payment, once its result comes back without an error, is noted (`repeatedPayment`).
      if (decision.outcome === "allow" && call.sessionKey && this.policy.provenance.enabled && this.policy.movesMoney(tool)) {
        const payment = paymentOf(this.policy.argumentValues(tool, call.params, facts, call.agentId));
        if (payment !== undefined) {
          memo.payment = paymentNotes(payment);
          this.notePendingPayment(call.sessionKey, call.toolCallId, tool.name, memo.payment);
        }
      }
      this.calls.set(call.sessionKey, call.toolCallId, memo);
      if (decision.outcome === "allow" && call.sessionKey && !this.resultHooksLive) this.notePendingResult(call.sessionKey, call.toolCallId, call.isSubagent);
    }
    if (decision.outcome !== "allow") return;
    for (const name of this.policy.harnessNames(tool, call.params)) {
      this.noteHarness(name);
      // Kept across restarts: the host keeps a persistent harness, and its label, after one.
      this.store.journal({ t: "harness", name, at: this.now() });
    }
    if (decision.inputTrust === "owner" && call.sessionKey && this.policy.tagging && this.policy.provenance.enabled) this.noteChosenValues(call, tool, facts);
    if (facts && facts.writes.length > 0 && this.policy.tagging) this.labelWrites(call, tool, decision, facts);
    const capabilities = decision.capabilities;
    if (capabilities.includes("message:send")) this.lowerTargetSession(call, tool, decision.inputTrust);
    if (call.sessionKey && capabilities.includes("session:spawn")) {
      // Kept until a link arrives or newer spawns push it out: an unlinked child is held at the
      // lowest recent spawner, however long its spawn took.
      this.pendingSpawns = this.pendingSpawns.slice(-(MAX_PENDING_SPAWNS - 1));
      this.pendingSpawns.push({ parentKey: call.sessionKey, trust: decision.inputTrust, at: this.now() });
      this.store.journal({ t: "spawn", parent: call.sessionKey, trust: decision.inputTrust, at: this.now() });
    }
  }

  // ---- inputs -----------------------------------------------------------------------------

  private noteHarness(name: string): void {
    this.harnesses.delete(name);
    this.harnesses.add(name);
    if (this.harnesses.size > MAX_HARNESS_NAMES) this.harnesses.delete(this.harnesses.values().next().value as string);
  }

  /** Whether any external harness was seen spawned (`namesHarness` has something to find). */
  get knowsHarnesses(): boolean {
    return this.harnesses.size > 0;
  }

  /** Whether a session target (a label, an agent id) names an external harness this gateway saw spawned. */
  namesHarness(value: string): boolean {
    return this.harnesses.has(value);
  }

  /** A tool result entered its session (after_tool_call, tool_result_persist). */
  observeResult(result: ToolResult): ObservedResult | undefined {
    if (!this.resultHooksLive) {
      this.resultHooksLive = true;
      this.pendingResults.clear();
    }
    if (result.sessionKey && result.toolCallId) {
      // A command that updated a work tree in place has finished unless it was left running or cut short.
      const settled = !result.synthetic && !result.failed && runningId(result.content) === undefined;
      this.workTrees.finish(callKey(result.sessionKey, result.toolCallId), this.now(), settled);
    }
    // The host's report that a run ended (a poll, a log, a kill) ends what a check left running held back.
    if (this.runningChecks.size > 0 && result.sessionKey && !result.synthetic) {
      for (const ended of endedRunIds(result.content)) this.runningChecks.delete(`${result.sessionKey}\u0000${ended}`);
    }
    return this.taintFromResult(result);
  }

  /** The adapter's word on whether this path delivers result hooks (see `resultHooksLive`). */
  expectResultHooks(live: boolean): void {
    this.resultHooksLive = live;
    if (live) this.pendingResults.clear();
  }

  /**
   * A model run is about to start (the earliest hook before the session's next model turn). A
   * message another session sent (sessions_send, a sub-agent's announce: inter_session provenance)
   * lowers the session the host actually delivered it to, to the sender's trust now; a non-owner
   * sender lowers it as it would at the next call.
   */
  beforeTurn(turn: TurnInput): void {
    if (!this.policy.tagging || !turn.sessionKey) return;
    const external = turn.provenance === undefined || turn.provenance.kind === "external_user";
    if (turn.requester && external && !turn.isSubagent) {
      const state = this.store.get(turn.sessionKey, "owner");
      const basis = this.requesterBasis(turn.requester);
      state.requesters = this.requesterLog.note(state.requesters, turn.requester, basis, this.basisTrust(basis));
    }
    this.lowerForTurn(turn);
    // In a group or channel, the context OpenClaw adds to the turn (chat history since the last
    // reply, a quoted message) is other members' words: beside the message, or inlined into it.
    const shared = !turn.isSubagent && (SHARED_CONVERSATION.test(turn.sessionKey) || turn.contextHasHistory === true);
    const inlined = shared && turn.contextInPrompt === true;
    const beside = shared && turn.context !== undefined;
    if (inlined || beside) {
      this.lower(turn.sessionKey, { level: "community", kind: "message", label: OTHERS_IN_TURN, at: this.now() });
      if (beside) {
        const state = this.store.get(turn.sessionKey, "owner");
        this.provenance.noteContent(state, turn.context, "community", { level: "community", label: OTHERS_IN_TURN });
      }
    }
    if (turn.prompt) {
      // The daily memory notes the host loads into a new session's first turn: others' words, as
      // the same notes read with a tool are. They lower the session and count as untrusted.
      const { own, notes } = startupNotes(turn.prompt);
      if (notes) {
        this.lower(turn.sessionKey, { level: "untrusted", kind: "file", label: STARTUP_NOTES, at: this.now() });
        const state = this.store.get(turn.sessionKey, "owner");
        this.provenance.noteContent(state, notes, "untrusted", { level: "untrusted", label: STARTUP_NOTES });
      }
      this.notePrompt(notes ? { ...turn, prompt: own } : turn, inlined);
    }
  }

  /** The values a run's starting message names, at the trust of who sent it. */
  private notePrompt(turn: TurnInput & { sessionKey?: string; prompt?: string }, others = false): void {
    const key = turn.sessionKey as string;
    const state = this.store.get(key, turn.isSubagent ? this.unlinkedChildTrust() : "owner");
    const provenance = turn.provenance;
    let level: TrustLevel;
    let label: string;
    if (provenance?.kind === "inter_session") {
      const source = provenance.sourceSessionKey;
      level = source ? (this.store.peek(source)?.trust ?? this.unlinkedChildTrust()) : this.policy.unknownRequesterTrust;
      label = source ? `a message from session ${source}` : "a message from another session";
    } else if (provenance?.kind === "internal_system") {
      level = minTrust(state.trust, "community");
      label = "a message the host wrote (system event, wake or heartbeat)";
    } else if (turn.isSubagent && this.pendingMessages.has(key)) {
      // A turn started by a message someone posted in the sub-agent's bound thread: that person's words.
      level = minTrust(state.trust, "community");
      label = "a message posted in the sub-agent's thread";
    } else if (turn.isSubagent) {
      // The task is the words of the session that spawned the child, at that session's trust now
      // (never more than when it spawned): the ceiling on sub-agents limits what the child may do,
      // not whose the hosts and names in its task are. An unlinked child's task counts at its own trust.
      const parent = state.parent ? this.store.peek(state.parent)?.trust : undefined;
      level = parent ?? state.trust;
      label = state.parent ? `the sub-agent's task from ${state.parent}` : "the sub-agent's task";
    } else {
      level = turn.requester ? this.requesterTrust(turn.requester) : this.policy.unknownRequesterTrust;
      label = level === "owner" ? "the owner's message" : requesterLabel(turn.requester);
    }
    // Context inlined into the message (a turn with no words of its own) is others' words, all of it.
    if (others) {
      level = minTrust(level, "community");
      label = OTHERS_IN_TURN;
    }
    // The system events OpenClaw puts in front of the message (a job's text, a node's notice) are the host's words.
    const { own, host } = systemEventLines(turn.prompt as string);
    this.provenance.noteContent(state, own, level, { level, label });
    this.provenance.noteNames(state, own, level, { level, label });
    if (host) {
      const hostLevel = minTrust(level, "community");
      this.provenance.noteContent(state, host, hostLevel, { level: hostLevel, label: "a system event the host put in the message" });
    }
    // Only a person's message asks for service actions, and only one replaces what the last asked:
    // a system event, another session's message or a sub-agent's task leaves them as they are.
    const person = !turn.isSubagent && (provenance === undefined || provenance.kind === "external_user");
    if (this.policy.provenance.enabled && person) this.requests.note(key, own, level, label);
    this.pickListed(state, turn.sessionKey as string);
  }

  private lowerForTurn(turn: TurnInput): void {
    const key = turn.sessionKey as string;
    const provenance = turn.provenance;
    if (provenance?.kind === "inter_session") {
      const source = provenance.sourceSessionKey;
      if (source === key) return;
      const sourceStart = provenance.sourceIsSubagent ? this.unlinkedChildTrust() : "owner";
      const level = source ? (this.store.peek(source) ?? this.store.get(source, sourceStart)).trust : this.policy.unknownRequesterTrust;
      const via = provenance.sourceTool ? ` through ${provenance.sourceTool}` : "";
      this.lower(
        key,
        {
          level,
          kind: provenance.sourceRole === "subagent" ? "subagent" : "message",
          label: source ? `a message from session ${source}${via}` : `a message from another session${via} (the host named no source)`,
          at: this.now(),
        },
        turn.isSubagent ? this.unlinkedChildTrust() : "owner",
      );
      return;
    }
    if (turn.isSubagent || turn.requester?.senderIsOwner !== false || !turn.requester.senderId) return;
    const level = this.requesterTrust(turn.requester);
    if (trustRank(level) < trustRank(this.store.get(key, "owner").trust)) {
      this.lower(key, { level, kind: "requester", label: requesterLabel(turn.requester), at: this.now() });
    }
  }

  /** A channel message entered the session (message_received). Owner status is settled at the next call. */
  observeMessage(message: ChannelMessage): void {
    if (!this.policy.tagging || !message.sessionKey) return;
    const { sessionKey, channel, senderId } = message;
    if (message.text) {
      const level: TrustLevel = this.owners.isProven(channel, senderId) ? "owner" : this.policy.isTrustedSender(channel, senderId) ? "verified" : "community";
      const state = this.store.get(sessionKey, "owner");
      const label = `a message from ${channel ?? "?"}:${senderId ?? "unknown sender"}`;
      this.provenance.noteContent(state, message.text, level, { level, label });
      this.provenance.noteNames(state, message.text, level, { level, label });
      if (this.policy.provenance.enabled) this.requests.note(sessionKey, message.text, level, label);
      this.pickListed(state, sessionKey);
    }
    if (this.owners.isProven(channel, senderId)) return;
    if (this.policy.isTrustedSender(channel, senderId)) {
      this.lower(sessionKey, { level: "verified", kind: "message", label: `a message from ${channel}:${senderId}`, at: this.now() });
      return;
    }
    const list = this.pendingMessages.get(sessionKey) ?? [];
    list.push({ channel, senderId, at: this.now() });
    this.store.journal({ t: "message", key: sessionKey, channel, senderId, at: this.now() });
    if (list.length > MAX_PENDING_MESSAGES) list.shift();
    this.pendingMessages.set(sessionKey, list);
  }

  /**
   * The host ran one of ClawOS's own commands (`/clawos ...`) for this session: the message that
   * carried it went to the command, never to the model, so it brings nothing in. Its pending entry
   * (the latest from that sender) is dropped. A message the host does not run as a command stays.
   */
  commandHandled(sessionKey: string, channel: string | undefined, senderId: string | undefined): void {
    if (this.dropCommandMessage(sessionKey, channel, senderId)) this.store.journal({ t: "command", key: sessionKey, channel, senderId, at: this.now() });
  }

  private dropCommandMessage(sessionKey: string, channel: string | undefined, senderId: string | undefined): boolean {
    const list = this.pendingMessages.get(sessionKey);
    if (!list) return false;
    for (let i = list.length - 1; i >= 0; i--) {
      if (list[i].channel !== channel || list[i].senderId !== senderId) continue;
      list.splice(i, 1);
      if (list.length === 0) this.pendingMessages.delete(sessionKey);
      return true;
    }
    return false;
  }

  /** The trust a turn's requester brings: owner as the host resolved it, a trusted sender, or less. */
  requesterTrust(requester: Requester | undefined): TrustLevel {
    return this.basisTrust(this.requesterBasis(requester));
  }

  /**
   * The least trust of who reads the session's replies, beside its requester: in a group or a
   * channel (`agent:<id>:<channel>:group:<id>`, `...:channel:<id>`, the host's default routing)
   * every member, whoever spoke. A read whose result reaches only its requester (`forRequester`)
   * reaches them too.
   */
  audienceTrust(sessionKey: string | undefined): TrustLevel {
    return this.policy.tagging && sessionKey && SHARED_SESSION.test(sessionKey) ? "untrusted" : "owner";
  }

  /** Why a requester gets its level (see `RequesterBasis`). */
  requesterBasis(requester: Requester | undefined): RequesterBasis {
    if (!requester) return "unidentified";
    if (requester.senderIsOwner === true) {
      // A channel sender the host resolved as the owner: its later channel messages are the owner's.
      // Not on the gateway's own channel, where a sender id names a kind of client, not a person.
      const { channel, senderId } = requester;
      if (channel && senderId && channel !== GATEWAY_CHANNEL) this.owners.prove(channel, senderId);
      return "host-owner";
    }
    if (this.policy.isTrustedSender(requester.channel, requester.senderId)) return "trusted-sender";
    return "not-owner";
  }

  private basisTrust(basis: RequesterBasis): TrustLevel {
    switch (basis) {
      case "host-owner":
        return "owner";
      case "trusted-sender":
        return "verified";
      case "not-owner":
        return "community";
      default:
        return this.policy.unknownRequesterTrust;
    }
  }

  // ---- sub-agents -------------------------------------------------------------------------

  /** subagent_spawned: the child starts at min(parent's trust now, ceiling), never above what it already is. */
  linkSubagent(childKey: string, parentKey: string | undefined): void {
    if (!this.policy.tagging) return;
    const ceiling = this.policy.subagentMaxTrust;
    const parentTrust = parentKey ? this.store.get(parentKey).trust : this.unlinkedChildTrust();
    const start = minTrust(parentTrust, ceiling);
    const child = this.store.peek(childKey) ?? this.store.get(childKey, start);
    if (parentKey) {
      this.store.setParent(childKey, parentKey, start);
      const spent = this.pendingSpawns.findIndex((spawn) => spawn.parentKey === parentKey);
      if (spent >= 0) {
        this.pendingSpawns.splice(spent, 1);
        this.store.journal({ t: "linked", parent: parentKey, at: this.now() });
      }
    }
    if (trustRank(start) < trustRank(child.trust)) {
      this.lower(
        childKey,
        { level: start, kind: "subagent", label: `its spawn by ${parentKey ?? "an unknown session"} (at ${parentTrust})`, at: this.now() },
        start,
      );
    }
  }

  /** subagent_ended: the child's result re-enters its parent. */
  subagentEnded(childKey: string): void {
    if (!this.policy.tagging) return;
    const child = this.store.get(childKey, this.unlinkedChildTrust());
    if (!child.parent) return;
    this.lower(child.parent, { level: child.trust, kind: "subagent", label: `the result of sub-agent ${childKey}`, at: this.now() });
  }

  // ---- owner actions and session lifecycle ------------------------------------------------

  /** An explicit, authorized owner action: the session returns to owner trust. */
  reset(sessionKey: string, by: string): { from: TrustLevel; to: TrustLevel } {
    const source: TaintSource = { level: "owner", kind: "reset", label: `trust reset by ${by}`, at: this.now() };
    const from = this.store.reset(sessionKey, source, "owner");
    if (this.pendingMessages.delete(sessionKey)) this.store.journal({ t: "settled", key: sessionKey, at: this.now() });
    this.onTrustChange({ event: "trust.reset", sessionKey, from, to: "owner", source, by });
    return { from, to: "owner" };
  }

  /** A new session replaced this key's context (/new, /reset): it starts clean. */
  replaced(sessionKey: string, reason: string): void {
    const from = this.store.peek(sessionKey)?.trust ?? "owner";
    this.store.forget(sessionKey);
    if (this.pendingMessages.delete(sessionKey)) this.store.journal({ t: "settled", key: sessionKey, at: this.now() });
    if (from !== "owner") {
      const source: TaintSource = { level: "owner", kind: "reset", label: `a new session (${reason})`, at: this.now() };
      this.onTrustChange({ event: "trust.reset", sessionKey, from, to: "owner", source, by: `host:${reason}` });
    }
  }

  /**
   * The owner vouches for what is at a path after reviewing it (the caller checked who): its labels
   * below owner, and a directory's label above it that covers it, give way to an `owner` label.
   * Returns the labels that went, lowest first; empty when nothing below owner applied there.
   */
  vouchFile(forms: readonly string[], by: string): FileLabel[] {
    const labels = this.provenance.labels;
    const gone: FileLabel[] = [];
    for (const path of new Set(forms)) {
      const low = labels.lowestUnder(path);
      if (!low || low.level === "owner") continue;
      gone.push(...labels.vouch(path, this.now(), isDirectory(path), by));
    }
    return gone.sort((a, b) => trustRank(a.level) - trustRank(b.level));
  }

  /** A session's state for a report: loaded if it exists on disk, created at owner otherwise. */
  describe(sessionKey: string): SessionTrust {
    return this.store.peek(sessionKey) ?? this.store.get(sessionKey);
  }

  /** Everything `/clawos session` shows, as data (`fileLimit`: how many of the session's file labels to list). */
  report(sessionKey: string, fileLimit = 5): SessionReport {
    const state = this.describe(sessionKey);
    const requesters = state.requesters ?? [];
    if (!this.policy.provenance.enabled) return { state, requesters };
    const index = state.values;
    const labels = this.provenance.labels;
    const here = labels.loweredBy(sessionKey, fileLimit);
    return {
      state,
      requesters,
      provenance: {
        values: index ? index.countsByLevel() : { untrusted: 0, community: 0, verified: 0, owner: 0 },
        valueCapacity: index?.capacity ?? this.store.maxValues,
        valuesDropped: index?.dropped ?? 0,
        files: {
          counts: labels.countsByLevel(),
          loweredHere: here.total,
          newestHere: here.newest,
          ...(labels.problem ? { problem: labels.problem } : {}),
        },
      },
    };
  }

  /** The session's trust now, without loading or creating it. */
  trustNow(sessionKey: string | undefined): TrustLevel | undefined {
    return sessionKey ? this.store.peek(sessionKey)?.trust : undefined;
  }

  // ---- internals --------------------------------------------------------------------------

  private lower(key: string, source: TaintSource, initial: TrustLevel = "owner"): boolean {
    const before = this.store.get(key, initial).trust;
    const changed = this.store.lower(key, source, initial);
    if (changed) this.onTrustChange({ event: "trust.lowered", sessionKey: key, from: before, to: this.store.get(key).trust, source });
    return changed;
  }

  private settlePendingMessages(key: string, state: SessionTrust, requester: Requester | undefined): void {
    const pending = this.pendingMessages.get(key);
    if (!pending) return;
    this.pendingMessages.delete(key);
    this.store.journal({ t: "settled", key, at: this.now() });
    for (const message of pending) {
      const fromOwner = requester?.senderIsOwner === true && requester.channel === message.channel && requester.senderId === message.senderId;
      if (fromOwner) continue;
      if (this.owners.isProven(message.channel, message.senderId)) continue;
      if (state.trust === "untrusted") continue;
      this.lower(key, {
        level: "community",
        kind: "message",
        label: `a message from ${message.channel ?? "?"}:${message.senderId ?? "unknown sender"}`,
        at: message.at,
      });
    }
  }

  /** A sub-agent seen before its spawn link: no higher than the ceiling or any recent spawner. */
  private unlinkedChildTrust(): TrustLevel {
    let trust: TrustLevel = this.policy.subagentMaxTrust;
    let sawSpawn = false;
    for (const spawn of this.pendingSpawns) {
      sawSpawn = true;
      trust = minTrust(trust, minTrust(spawn.trust, this.store.peek(spawn.parentKey)?.trust ?? spawn.trust));
    }
    return sawSpawn ? trust : minTrust(trust, this.policy.unknownRequesterTrust);
  }

  private notePendingResult(sessionKey: string, callId: string, isSubagent: boolean): void {
    const list = this.pendingResults.get(sessionKey) ?? [];
    if (list.length >= MAX_PENDING_RESULTS) list.shift();
    list.push({ callId, isSubagent });
    this.pendingResults.set(sessionKey, list);
  }

  /** Without result hooks: the results of the session's earlier allowed calls have entered it by now. */
  private applyPendingResults(sessionKey: string): void {
    const list = this.pendingResults.get(sessionKey);
    if (!list) return;
    this.pendingResults.delete(sessionKey);
    for (const { callId, isSubagent } of list) this.taintFromResult({ toolCallId: callId, sessionKey, isSubagent });
  }

  /** The output trust of a finished call, or undefined when nothing entered the session. */
  private resultTrust(result: ToolResult):
    | (Omit<ObservedResult, "sessionTrust"> & {
        memo?: CallMemo;
        dir?: string;
        echo?: boolean;
        values?: TrustLevel;
        quoted?: { text: string; level: TrustLevel };
      })
    | undefined {
    if (result.synthetic) return undefined;
    const memo = result.toolCallId ? this.calls.get(result.sessionKey, result.toolCallId) : undefined;
    if (memo?.blocked) return undefined;
    const tool = memo?.tool ?? this.policy.resolve(result.toolName ?? "", result.params, result.toolKind);
    const manifest = this.policy.manifestFor(tool.name)?.manifest;
    const declared: TrustLevel = manifest?.outputTrust ?? "untrusted";
    const source = memo?.output ?? manifest?.provenance?.output;
    const found: { level: TrustLevel; dir?: string; echo?: boolean; values?: TrustLevel; quoted?: { text: string; level: TrustLevel } } | undefined = !this
      .policy.provenance.enabled
      ? undefined
      : source === "process"
        ? this.backgroundOutput(result, tool)
        : source === "call"
          ? memo?.quotes
            ? quotesOutside(result.content, memo.quotes, isOuterResult(result, memo.tool), this.policy.provenance.scanBytes)
              ? undefined
              : listingOf(result, memo, declared)
            : echoOf(result, memo, declared)
          : source === "cited"
            ? this.citedOutput(result, tool, memo, declared)
            : this.outputByProvenance(source, declared, memo);
    // A command left running: its id, and what its output is, for the calls that name it later.
    const runId = source === "command" && result.sessionKey ? runningId(result.content) : undefined;
    if (runId) {
      if (found) this.noteBackground(result, runId, found.level, memo);
      if (this.policy.provenance.enabled) this.noteRunId(result, runId, memo);
    }
    const own = found?.level ?? declared;
    const level = result.resultTrust ? minTrust(own, result.resultTrust) : own;
    const values = found?.values !== undefined ? minTrust(found.values, level) : undefined;
    const quoted = found?.quoted ? { text: found.quoted.text, level: minTrust(found.quoted.level, level) } : undefined;
    return { level, tool: tool.name, auditOnly: memo?.decision.effect === "would-block", memo, dir: found?.dir, echo: found?.echo, values, quoted };
  }

  /**
   * A call allowed while the session was at owner: the recipients, hosts, ids and URLs it names were
   * chosen when only the owner's input had entered, so they are the owner's values from then on (a
   * reply to the thread the session opened, a second ssh to the host it already used). So are the
   * single-word values of arguments its manifest gives no role (the message id a mail tool's read
   * opened, the chat a read named): a later call that acts on them acts on what the owner's session
   * picked. Paths and commands are left to their own rules; free text is never a value.
   */
  private noteChosenValues(call: ToolCall, tool: ResolvedTool, facts: CallFacts | undefined): void {
    const entry = this.policy.manifestFor(tool.name);
    if (!entry) return;
    // A command's text counts when it reaches another host: the hosts and names in it were the
    // owner's session's choice. A local command names nothing a later decision looks up by value.
    const commandText = facts?.command?.view.network === true;
    const params = tool.via ? bridgedArgs(call.params) : call.params;
    let text = "";
    for (const arg of entry.naming) {
      if (arg.spec.role === "command" && !commandText) continue;
      for (const value of valuesAt(params, arg.segments)) {
        if (typeof value === "string" && value.length <= MAX_CHOSEN_VALUE) text += `${value}\n`;
      }
    }
    text += undeclaredWords(params, entry.declaredTop);
    if (!text || !call.sessionKey) return;
    const state = this.store.get(call.sessionKey, "owner");
    this.provenance.noteContent(state, text, "owner", {
      level: "owner",
      label: CHOSEN_LABEL,
      tool: tool.name,
      ...(call.toolCallId ? { callId: call.toolCallId } : {}),
    });
  }

  /**
   * A lookup names the owner's own things (`provenance.selects`): the contact the owner asked
   * for, the event to accept. Whoever chose the lookup chose among them, so those identifiers count
   * at the trust the call was made at, up to what the manifest allows; the rest of the result
   * keeps the output's trust. A lookup made below that trust adds nothing. An entry a person's
   * message named (`namedBy`: "reply to Sofia" and a message from Sofia Marin) is that person's
   * pick, so its identifiers count at that message's trust, whoever chose the lookup.
   */
  private noteSelection(state: SessionTrust, result: ToolResult, output: TrustLevel, toolName: string, memo: CallMemo): void {
    const entry = this.policy.manifestFor(toolName);
    if (!entry || entry.selects.length === 0 || memo.decision.outcome !== "allow") return;
    const chooser = this.lookupChooser(state, result, entry, memo);
    let records: unknown[] | undefined;
    let masked = false;
    let found = 0;
    const bySource = new Map<string, { level: TrustLevel; values: string[] }>();
    const chosen = `the result of ${toolName}, a lookup made at ${chooser}`;
    const listed: ListedEntry[][] = [];
    const recent = result.sessionKey ? this.listed.of(result.sessionKey) : [];
    const add = (label: string, level: TrustLevel, value: unknown) => {
      // The host masks structured fields named like secrets (`key`): what is left names nothing.
      if (typeof value === "string" && isHostMask(value)) masked = true;
      else if ((typeof value === "string" && value.length > 0 && value.length <= MAX_SELECTED_VALUE) || typeof value === "number") {
        const group = bySource.get(label) ?? { level, values: [] };
        if (group.values.length < MAX_SELECTED) group.values.push(String(value));
        bySource.set(label, group);
        found++;
      }
    };
    for (const select of entry.selects) {
      // Values only the owner can put there (the owner's own accounts) are the owner's whoever
      // made the lookup; the rest count at the trust of the one who chose it, up to the cap.
      const level = select.trust === "owner" ? "owner" : minTrust(chooser, select.trust);
      const counts = trustRank(level) > trustRank(output);
      if (!counts && select.named.length === 0) continue;
      records ??= resultRecords(result.content, this.policy.provenance.scanBytes, isOuterResult(result, memo.tool));
      for (const record of records) {
        if (select.named.length === 0) {
          for (const value of valuesAt(record, select.segments)) add(chosen, level, value);
          continue;
        }
        // Entry by entry: one a person's message named counts at that message's trust.
        const entries = namableEntries(listedEntries(record, select), recent, toolName);
        const namers = this.namersOf(state, entries);
        entries.forEach((entry, i) => {
          const namer = namers[i];
          if (namer && trustRank(namer.level) > trustRank(level) && trustRank(namer.level) > trustRank(output)) {
            for (const value of entry.values) add(namedLabel(toolName, namer), namer.level, value);
          } else if (counts) {
            for (const value of entry.values) add(chosen, level, value);
          }
        });
        listed.push(entries);
      }
    }
    // A later message may name one of the entries ("reply to the one from Sofia").
    if (listed.length > 0 && result.sessionKey) {
      this.listed.note(result.sessionKey, {
        tool: toolName,
        ...(result.toolCallId ? { callId: result.toolCallId } : {}),
        groups: listed,
      });
    }
    // A copy that named nothing, or only the host's masks of some fields, is not the last word: the
    // other result hook's copy (the whole text, or Tool Search's envelope) is read for them too.
    if (records) memo.selectPending = found === 0 || masked;
    for (const [label, { level, values }] of bySource) {
      this.provenance.noteSelected(state, values, level, {
        level,
        label,
        tool: toolName,
        ...(result.toolCallId ? { callId: result.toolCallId } : {}),
      });
    }
  }

  /**
   * The person's message that named each entry, if one did. A name picks an entry only when it is
   * that entry's alone: "Tom" with two Toms in the address book picks neither (which Tom is then the
   * model's choice, and the cards' notes are anyone's words); entries that say the same (two
   * messages from one sender) count as one.
   */
  private namersOf(state: SessionTrust, entries: readonly ListedEntry[]): (Namer | undefined)[] {
    const found = entries.map((entry) => (entry.names.length > 0 ? this.provenance.namers(state, entry.names, entry.anyWord === true) : []));
    const holders = new Map<string, Set<string>>();
    entries.forEach((entry, i) => {
      for (const namer of found[i]) holders.set(namer.word, (holders.get(namer.word) ?? new Set()).add(entry.key));
    });
    return found.map((namers) => {
      let best: Namer | undefined;
      for (const namer of namers) {
        if ((holders.get(namer.word)?.size ?? 0) === 1 && (!best || trustRank(namer.level) > trustRank(best.level))) best = namer;
      }
      return best;
    });
  }

  /** A person's message arrived: the entries it names in the session's recent lookups count at its trust. */
  private pickListed(state: SessionTrust, sessionKey: string): void {
    const recent = this.listed.of(sessionKey);
    for (const lookup of recent) {
      for (const listed of lookup.groups) {
        const entries = namableEntries(listed, recent, lookup.tool);
        const namers = this.namersOf(state, entries);
        entries.forEach((entry, i) => {
          const namer = namers[i];
          const values = entry.values.filter((v) => !isHostMask(v));
          if (!namer || values.length === 0) return;
          this.provenance.noteSelected(state, values, namer.level, {
            level: namer.level,
            label: namedLabel(lookup.tool, namer),
            tool: lookup.tool,
            ...(lookup.callId ? { callId: lookup.callId } : {}),
          });
        });
      }
    }
  }

  /**
   * Who chose a lookup: the session's trust when it was made, or the trust its query came from
   * (`provenance.chosenBy`) when every value of it was seen at that trust: a search for the name
   * the owner gave is the owner's search, whatever the session read before.
   */
  private lookupChooser(state: SessionTrust, result: ToolResult, entry: ManifestEntry, memo: CallMemo): TrustLevel {
    const made = memo.decision.inputTrust;
    if (entry.chosenBy.length === 0 || made === "owner") return made;
    const params = resultArgs(result, memo.tool);
    let query: TrustLevel | undefined;
    for (const segments of entry.chosenBy) {
      for (const value of valuesAt(params, segments)) {
        if (typeof value !== "string" && typeof value !== "number") return made;
        const level = this.provenance.levelOf(state, String(value));
        if (!level) return made;
        query = query ? minTrust(query, level) : level;
      }
    }
    return query && trustRank(query) > trustRank(made) ? query : made;
  }

  /** A command left running: remember what its output is, for the polls that read it later. */
  private noteBackground(result: ToolResult, runId: string, level: TrustLevel, memo: CallMemo | undefined): void {
    if (!result.sessionKey) return;
    const command = memo?.facts?.command;
    // A check allowed below owner that keeps running may watch its tree: writes there below owner wait for it.
    if (command?.view.projectCheck && memo?.decision.outcome === "allow" && memo.decision.rules.some((r) => r.rule === "provenance.endorsed")) {
      const roots = [...new Set([command.cwd, ...treeDirsOf(command, this.policy.home)].map((dir) => this.provenance.treeRoot(dir, memo.agentId)))];
      if (this.runningChecks.size >= MAX_RUNNING_CHECKS) this.runningChecks.delete(this.runningChecks.keys().next().value as string);
      this.runningChecks.set(`${result.sessionKey}\u0000${runId}`, roots);
    }
    const tree = command && !command.view.readOnly && command.view.local ? command.cwd : undefined;
    this.background.note(result.sessionKey, runId, { level, ...(tree ? { tree } : {}), ...(memo?.agentId ? { agentId: memo.agentId } : {}) });
  }

  /**
   * The host chose a run's id for this session's own call, so the id counts at the trust the call
   * was made at, whatever the command prints: stopping the run by it (`process` kill, a mode decided
   * by where its arguments came from) stops the session's own run.
   */
  private noteRunId(result: ToolResult, runId: string, memo: CallMemo | undefined): void {
    if (!result.sessionKey || memo?.decision.outcome !== "allow") return;
    const made = memo.decision.inputTrust;
    this.provenance.noteSelected(this.store.get(result.sessionKey, "owner"), [runId], made, {
      level: made,
      label: `the id the host gave a command this session started at ${made}`,
      tool: memo.tool.name,
      ...(result.toolCallId ? { callId: result.toolCallId } : {}),
    });
  }

  /** A poll (or log, or kill) of a command this session left running has that command's trust. */
  private backgroundOutput(result: ToolResult, tool: ResolvedTool): { level: TrustLevel; dir?: string } | undefined {
    if (!result.sessionKey) return undefined;
    const params = resultArgs(result, tool);
    const entry = this.policy.manifestFor(tool.name);
    const idArg = entry?.arguments.find((a) => a.spec.role === "id");
    const runId = idArg ? valuesAt(params, idArg.segments).find((v): v is string => typeof v === "string") : undefined;
    const run = runId ? this.background.get(result.sessionKey, runId) : undefined;
    if (!run) return undefined;
    return { level: run.tree ? minTrust(run.level, this.provenance.treeTrust(run.tree, run.agentId, "untrusted")) : run.level };
  }

  /**
   * A result that quotes files (`provenance.cites`: a memory search's hits) has the trust of the
   * files it quotes, each read as `read` takes it (the memory notes OpenClaw writes itself stay
   * `untrusted`; `USER.md`, which only the agent's own file tools write, counts as a read of it
   * does). Undefined, so that the manifest's word stands, unless every entry of every copy names one
   * file, passes the manifest's tests and quotes what the file holds now.
   */
  private citedOutput(
    result: ToolResult,
    tool: ResolvedTool,
    memo: CallMemo | undefined,
    declared: TrustLevel,
  ): { level: TrustLevel; values: TrustLevel; quoted: { text: string; level: TrustLevel } } | undefined {
    const cites = this.policy.manifestFor(tool.name)?.cites;
    if (!cites) return undefined;
    // Read whole: a text part that is prose, or cut short, is text the files were not checked for.
    // Through Tool Search, the host's envelope (the tool's id, name and description) is not the
    // tool's output: what it wrapped is read, as it is for quotes.
    const bridged = isOuterResult(result, tool);
    const records = wholeResultRecords(result.content, this.policy.provenance.scanBytes, bridged)?.filter((r) => !bridged || !isEnvelope(r));
    if (!records || records.length === 0) return undefined;
    const holds = (item: unknown, test: { at: Segments; equals: readonly string[] }) =>
      valuesAt(item, test.at).some((v) => typeof v === "string" && test.equals.includes(v));
    let level: TrustLevel = "owner";
    const quoted: string[] = [];
    const entries = new Set<object>();
    for (const record of records) {
      for (const item of valuesAt(record, cites.entry)) {
        if (item === null || typeof item !== "object") return undefined;
        const paths = valuesAt(item, cites.path);
        const quotes = valuesAt(item, cites.quote);
        const path = paths[0];
        const quote = quotes[0];
        if (paths.length !== 1 || typeof path !== "string" || quotes.length !== 1 || typeof quote !== "string") return undefined;
        if (!cites.where.every((test) => holds(item, test)) || cites.unless.some((test) => holds(item, test))) return undefined;
        const forms = this.policy.resolvePath(path, memo?.agentId);
        const file = forms && forms.length > 0 ? this.provenance.quotedFile(forms, memo?.agentId, declared) : undefined;
        const excerpt = file ? quotedExcerpt(file.text, quote, path) : undefined;
        if (!file || excerpt === undefined) return undefined;
        // Every other string of the hit is its path, what its file holds now (a trigger phrase), or a word.
        for (const leaf of stringLeaves(item)) {
          if (leaf !== path && leaf !== quote && quotedExcerpt(file.text, leaf, path) === undefined && !isWord(leaf)) return undefined;
        }
        level = minTrust(level, file.level);
        quoted.push(excerpt);
        entries.add(item);
      }
      // Outside the hits, words only (a provider's name, a mode): a warning or an error is text.
      for (const leaf of stringLeaves(record, entries)) if (!isWord(leaf)) return undefined;
    }
    if (entries.size === 0) return undefined;
    // The session keeps the files' trust; only what the files hold counts as their values.
    return { level, values: declared, quoted: { text: quoted.join("\n"), level } };
  }

  /**
   * What an output really was: a file's trust by what ClawOS saw written to it (trusted paths at
   * owner), a read-only or local command's by what it reads. Undefined: the manifest's word stands.
   */
  private outputByProvenance(
    source: string | undefined,
    declared: TrustLevel,
    memo: CallMemo | undefined,
  ): { level: TrustLevel; dir?: string; values?: TrustLevel; quoted?: { text: string; level: TrustLevel } } | undefined {
    const facts = memo?.facts;
    if (!facts || !source || source === "declared") return undefined;
    const agentId = memo?.agentId;
    if (source === "paths") {
      // The files read, or for an edit the files written (it echoes their contents when a match fails).
      let level: TrustLevel = "owner";
      let values: TrustLevel = "owner";
      if (facts.reads.length > 0) {
        for (const file of facts.reads) {
          const read = this.provenance.readTrust(file.forms, agentId, declared);
          level = minTrust(level, read);
          values = minTrust(values, this.provenance.namesTrust(file.forms, read));
        }
      } else if (facts.writes.length > 0) {
        for (const file of facts.writes) level = minTrust(level, this.provenance.fileTrust(file.forms, agentId, declared).level);
        values = level;
      } else return undefined;
      // A listing names files in the directory it lists: `ls src` endorses `src/parser.ts`. A file
      // the owner's session chose to read (at owner, before anything less trusted came in) names
      // itself too: the owner's session picked it, so an edit of it after a page is the owner's
      // pick. A read made later endorses nothing: a page may have named the file.
      const chosen = memo?.decision.inputTrust === "owner";
      const named = chosen ? facts.reads.filter((file) => !file.listing && file.raw !== "").map((file) => file.raw) : [];
      return {
        level,
        values,
        dir: facts.reads.length === 1 ? facts.reads[0].raw : undefined,
        ...(named.length > 0 ? { quoted: { text: named.join("\n"), level: values } } : {}),
      };
    }
    const command = facts.command;
    if (source !== "command" || !command) return undefined;
    const view = command.view;
    // Another host's own facts (`ssh web-2 df -h`) are read like this host's: no file, no log.
    const remoteFacts = view.remoteRead && view.remoteFacts;
    if (!view.parsed || (view.network && !remoteFacts) || view.external || view.fetches.length > 0) return undefined;
    // What a command prints of its own command line (echo, printf, a sed replacement, a format
    // string, a here-document) was written by the call: it counts at the call's trust, not at that of
    // the files it reads, unless the command only prints what its files hold (`printsOwnWords`).
    const own = memo.decision.inputTrust;
    if (remoteFacts) {
      // The host named is the call's: what it reports counts at the call's trust, and a local file
      // read beside it at that file's.
      let level: TrustLevel = own;
      for (const file of facts.reads) level = minTrust(level, this.provenance.readTrust(file.forms, agentId, declared, !file.listing));
      return { level, values: level };
    }
    if (view.readOnly) {
      // A directory it reads is the files below it, unless only their names were listed (ls, find).
      let level: TrustLevel = "owner";
      let values: TrustLevel = "owner";
      for (const file of facts.reads) {
        const read = this.provenance.readTrust(file.forms, agentId, declared, !file.listing);
        level = minTrust(level, read);
        if (file.listing) values = minTrust(values, this.provenance.namesTrust(file.forms, read));
      }
      if (view.printsOwnWords) {
        level = minTrust(level, own);
        values = minTrust(values, own);
      }
      return { level, values };
    }
    // Local build, test and version-control programs run the code in their directory: their output
    // is as trusted as the least trusted file written there, and what else they read (a file named
    // by a substitution, `cat "$(ls -t ~/Downloads/* | head -1)"`, may be any file).
    if (view.local) {
      let level = this.provenance.treeTrust(command.cwd, agentId, declared, view.repositories.length > 0);
      for (const file of facts.reads) {
        // The files the command names (its working directory is the tree, above).
        if (file.argument === command.argument) level = minTrust(level, this.provenance.readTrust(file.forms, agentId, declared, !file.listing));
      }
      if (view.unknownReads) level = "untrusted";
      return { level: minTrust(level, own) };
    }
    return undefined;
  }

  /** An allowed call writes files: each carries the trust of the session that wrote it (and of what it copied). */
  private labelWrites(call: ToolCall, tool: ResolvedTool, decision: Decision, facts: CallFacts): void {
    const at = this.now();
    let level = decision.inputTrust;
    const view = facts.command?.view;
    if (view && !view.readOnly) {
      for (const file of facts.reads) level = minTrust(level, this.provenance.readTrust(file.forms, call.agentId, "untrusted", !file.listing));
      // A file named only at run time ($PWD/../x, find's {}, xargs) may be any file: what the command writes may hold it.
      if (view.unknownReads) level = "untrusted";
    }
    // What a package install brings in is others' text, but the code the project runs, chosen by
    // this call: a build runs it at this trust. A clone, a download or an archive is only text, and
    // so is what a command read from state kept outside files (a pod's logs, the journal, a
    // container's output) and wrote to one (`kubectl logs web-0 > web.log`).
    const chosen = level;
    if (view && !view.readOnly && (view.network || !view.parsed || view.external)) level = "untrusted";
    // A record in the local repository (git add, git commit) writes only git's store: its history
    // (objects, refs, logs, the index, HEAD) now holds what this session chose; its settings and
    // hooks stay what they were, and none of what it wrote is code git runs.
    if (view?.localRecord && facts.command?.repositoryStarts) {
      if (level === "owner") return;
      const labels = this.provenance.labels;
      for (const gitDir of this.policy.repositoriesFrom(facts.command.repositoryStarts)) {
        for (const [part, tree] of RECORD_PARTS) {
          const path = join(gitDir, part);
          const current = labels.effective(path);
          labels.set(path, minTrust(level, current?.level ?? "owner"), at, tree, call.sessionKey, current ? codeLevel(current) : "owner");
        }
      }
      return;
    }
    const overwrite = tool.name === "write";
    for (const file of facts.writes) {
      const path = file.forms[0];
      if (!path) continue;
      if (file.inPlace && this.updateInPlace(call, file, path, chosen, at)) continue;
      if (file.outside) {
        const installed = file.outside === "install" && this.policy.provenance.installed(path, call.agentId);
        this.provenance.labels.set(path, "untrusted", at, true, call.sessionKey, installed ? chosen : undefined);
      } else if (overwrite) this.provenance.labels.set(path, level, at, false, call.sessionKey);
      else this.provenance.labels.merge(path, level, at, this.policy.provenance.trusted(path, call.agentId) ? "owner" : "untrusted", call.sessionKey);
    }
    if (facts.copies) this.provenance.labelCopies(facts.copies, decision.inputTrust, at, call.sessionKey, call.agentId);
    // A clone's own git directory holds settings git wrote, at the trust of the session that chose the clone.
    for (const dir of facts.command?.madeRepositories ?? []) this.provenance.labels.set(dir, decision.inputTrust, at, true, call.sessionKey);
  }

  /**
   * A command that updates the work tree of the repository at `path` where it stands: a fetch brings
   * the remote's content (untrusted text; git writes its own directory, and a remote sends no
   * settings, so that directory's code is the call's), a checkout or merge writes what the
   * repository holds (its git directory's label, or the session's). The whole tree is labelled
   * until the result says which files changed (`WorkTreeUpdates`). False: not a work tree, or
   * nothing below owner is written, and the write is labelled as any other.
   */
  private updateInPlace(call: ToolCall, file: FileRef, path: string, chosen: TrustLevel, at: number): boolean {
    const gitDir = this.policy.repositoriesFrom([path]).find((dir) => dir.endsWith("/.git") && isDirectory(dir));
    if (!gitDir) return false;
    const root = gitDir.slice(0, -"/.git".length) || "/";
    const labels = this.provenance.labels;
    const key = call.sessionKey && call.toolCallId ? callKey(call.sessionKey, call.toolCallId) : undefined;
    if (file.outside) {
      labels.set(gitDir, "untrusted", at, true, call.sessionKey, chosen);
      this.workTrees.begin(key, root, "untrusted", at, call.sessionKey);
      return true;
    }
    const written = minTrust(chosen, labels.lowestUnder(gitDir)?.level ?? "owner");
    if (written === "owner") return false;
    this.workTrees.begin(key, root, written, at, call.sessionKey);
    return true;
  }

  private taintFromResult(result: ToolResult): ObservedResult | undefined {
    if (!this.policy.tagging || !result.sessionKey) return undefined;
    const observed = this.resultTrust(result);
    if (!observed) return undefined;
    const initial = result.isSubagent ? this.unlinkedChildTrust() : "owner";
    const payment = observed.memo?.payment;
    if (observed.memo && payment !== undefined) {
      observed.memo.payment = undefined;
      if (result.toolCallId) this.pendingPayments.get(result.sessionKey)?.delete(result.toolCallId);
    }
    // Made unless the host reported an error: a result it made up for an interrupted call may
    // stand for a transfer the bank executed.
    if (observed.memo && payment !== undefined && !result.failed) {
      const label = `${observed.tool}${result.toolCallId ? ` call ${result.toolCallId}` : ""}`;
      this.provenance.notePayment(this.store.get(result.sessionKey, initial), payment, {
        level: "owner",
        label,
        tool: observed.tool,
        ...(result.toolCallId ? { callId: result.toolCallId } : {}),
      });
    }
    // A result that only repeats the call's arguments brings in no value the session did not have.
    if (result.content !== undefined && !observed.auditOnly && !observed.echo) {
      const memo = observed.memo;
      // after_tool_call and tool_result_persist both carry the result: its values are read once.
      if (memo?.indexed) {
        // The first hook's copy may have lacked the structured fields a lookup selects (a persisted
        // transcript entry's text can be cut short): the second copy is read for them alone.
        if (memo.selectPending) this.noteSelection(this.store.get(result.sessionKey, initial), result, observed.values ?? observed.level, observed.tool, memo);
        return { level: observed.level, tool: observed.tool, auditOnly: false, sessionTrust: this.store.peek(result.sessionKey)?.trust };
      }
      if (memo) memo.indexed = true;
      const state = this.store.get(result.sessionKey, initial);
      const valueLevel = observed.values ?? observed.level;
      const computed = memo !== undefined && runsCode(this.policy.manifests.lookup(memo.tool.name)?.manifest.capabilities);
      // The receipt of a message this session sent (a status, the provider's ids, the channel's
      // name) holds nobody's words; only a sending call's own result is read so.
      const receipt =
        memo !== undefined && !result.failed && memo.decision.capabilities.includes("message:send") && isSendReceipt(textOf(result.content, MAX_RECEIPT_SCAN));
      const trivial =
        receipt ||
        this.provenance.noteContent(
          state,
          result.content,
          valueLevel,
          {
            level: valueLevel,
            label: resultLabel(observed.tool),
            tool: observed.tool,
            ...(result.toolCallId ? { callId: result.toolCallId } : {}),
            ...(computed ? { computed: true } : {}),
          },
          observed.dir,
          // A command's output may repeat its own words (an error naming a path, grep's file names).
          memo?.facts?.command ? { text: memo.facts.command.text, level: memo.decision.inputTrust } : undefined,
        );
      if (memo && !trivial) this.noteSelection(state, result, valueLevel, observed.tool, memo);
      // A secret the session read (a secret file, a password in grep's output or a container's
      // environment) may not leave in a URL the session puts together.
      if (!trivial) {
        const secretRead = memo?.facts?.touches.find((t) => t.kind === "secret-read");
        this.provenance.noteSecrets(
          state,
          result.content,
          {
            level: valueLevel,
            label: secretRead ? `${resultLabel(observed.tool)} of ${secretRead.label}` : resultLabel(observed.tool),
            tool: observed.tool,
            ...(result.toolCallId ? { callId: result.toolCallId } : {}),
          },
          secretRead !== undefined,
        );
      }
      // What a quoted file holds counts at the file's trust; the rest of the result at the output's.
      if (observed.quoted && !trivial && !result.failed) {
        const { text, level } = observed.quoted;
        this.provenance.noteContent(state, text, level, {
          level,
          label: resultLabel(observed.tool),
          tool: observed.tool,
          ...(result.toolCallId ? { callId: result.toolCallId } : {}),
        });
      }
      // A page's relative links, as the links they are on that page: a copy of one is a copy.
      if (!trivial) {
        const links = pageLinks(result.content, this.policy.provenance.scanBytes);
        if (links)
          this.provenance.noteContent(state, links, valueLevel, {
            level: valueLevel,
            label: resultLabel(observed.tool),
            tool: observed.tool,
            ...(result.toolCallId ? { callId: result.toolCallId } : {}),
          });
      }
      // An empty or trivially small result (an exit status, "ok") cannot carry an instruction.
      if (trivial) {
        this.lowerRewrittenTarget(result);
        return { level: observed.level, tool: observed.tool, auditOnly: false, sessionTrust: state.trust };
      }
    } else if (result.content !== undefined && !observed.auditOnly && observed.memo && (!observed.memo.indexed || observed.memo.selectPending)) {
      // A result that repeats the call's words brings no value in, but the host may name what the
      // call made (the path it saved a voice note to): a manifest's selects say which, read from
      // whichever hook's copy holds them.
      observed.memo.indexed = true;
      this.noteSelection(this.store.get(result.sessionKey, initial), result, observed.level, observed.tool, observed.memo);
    }
    const source: TaintSource = {
      level: observed.level,
      kind: "tool",
      label: observed.auditOnly ? `the result of ${observed.tool} (ran only because audit mode allowed a would-block)` : resultLabel(observed.tool),
      tool: observed.tool,
      callId: result.toolCallId,
      at: this.now(),
    };
    if (observed.auditOnly) this.store.lowerShadow(result.sessionKey, source, initial);
    else this.lower(result.sessionKey, source, initial);
    this.lowerRewrittenTarget(result);
    return { ...observed, sessionTrust: this.store.peek(result.sessionKey)?.trust };
  }

  /**
   * A message one session sends into another (sessions_send and the like) enters the target's
   * context at the sender's trust. Short keys ("main") are the sender agent's sessions.
   */
  private lowerTargetSession(call: Pick<ToolCall, "params" | "sessionKey" | "agentId" | "toolCallId">, tool: ResolvedTool, trust: TrustLevel): void {
    if (!this.policy.tagging || trust === "owner") return;
    const params = (tool.via ? bridgedArgs(call.params) : call.params) as Record<string, unknown> | undefined;
    // As the host reads them: each name, else its snake_case form (session_key, agent_id).
    const param = (name: string) => params?.[name] ?? params?.[snakeCaseKey(name)];
    const raw = param("sessionKey") ?? param("targetSessionKey");
    // A send that names only an agent goes to that agent's main session.
    const agent = param("agentId");
    const agentOnly = raw === undefined && param("label") === undefined && typeof agent === "string" ? agent.trim().toLowerCase() : "";
    const key = typeof raw === "string" ? raw.trim() : agentOnly ? `agent:${agentOnly}:main` : "";
    if (!key) return;
    const target = key.includes(":") ? key : `agent:${call.agentId ?? "main"}:${key}`;
    if (target === call.sessionKey) return;
    this.lower(target, {
      level: trust,
      kind: "message",
      label: `a message sent by session ${call.sessionKey ?? "(unknown)"} through ${tool.name}`,
      tool: tool.name,
      callId: call.toolCallId,
      at: this.now(),
    });
  }

  /**
   * A later plugin hook may have rewritten where a message went; the result carries the final
   * parameters, so the session it really reached is lowered too.
   */
  private lowerRewrittenTarget(result: ToolResult): void {
    if (!result.toolCallId || result.params === undefined) return;
    const memo = this.calls.get(result.sessionKey, result.toolCallId);
    if (!memo || memo.blocked || !this.policy.manifestFor(memo.tool.name)?.manifest.capabilities.includes("message:send")) return;
    const tool = isOuterResult(result, memo.tool) ? memo.tool : { ...memo.tool, via: undefined };
    this.lowerTargetSession(
      { params: result.params, sessionKey: result.sessionKey, agentId: memo.agentId, toolCallId: result.toolCallId },
      tool,
      memo.decision.inputTrust,
    );
  }
}

/** A markdown link or an href to a relative address, as a page's text (or its JSON) holds one. */
const RELATIVE_LINK_HINT = /\]\(\.{0,2}\/|href=\\?["']\.{0,2}\//;

/** The most relative links of one page made whole (`pageLinks`). */
const MAX_PAGE_LINKS = 256;

/**
 * The relative links of a fetched page (`[guide](/docs/upgrade)`, `href="../b.html"`) made whole
 * against the address it was fetched from (its `finalUrl`, else its `url`), one per line; undefined
 * when the result names no page address or has no such link. Only the page's own text: nothing
 * the session put together.
 */
function pageLinks(content: unknown, scanBytes: number): string | undefined {
  const text = textOf(content, scanBytes);
  // Most results hold no relative link: nothing more is read from them.
  if (!RELATIVE_LINK_HINT.test(text)) return undefined;
  const records = resultRecords(content, scanBytes, false);
  let base: URL | undefined;
  for (const record of records) {
    const r = record as { finalUrl?: unknown; url?: unknown } | undefined;
    const address = typeof r?.finalUrl === "string" ? r.finalUrl : typeof r?.url === "string" ? r.url : undefined;
    if (address && /^https?:\/\//i.test(address)) {
      try {
        base = new URL(address);
        break;
      } catch {
        // Not an address.
      }
    }
  }
  if (!base) return undefined;
  let out = "";
  let count = 0;
  for (const m of text.matchAll(/\]\(((?:\/|\.\.?\/)[^\s)"'\\]*)|href=\\?["']((?:\/|\.\.?\/)[^"'\s\\]*)/g)) {
    const relative = m[1] ?? m[2];
    if (!relative || relative.startsWith("//")) continue;
    try {
      out += `${new URL(relative, base).href}\n`;
    } catch {
      continue;
    }
    if (++count >= MAX_PAGE_LINKS) break;
  }
  return out || undefined;
}

/** How much of a sending call's result is read to tell a receipt: more is not one. */
const MAX_RECEIPT_SCAN = 1024;

/** A group or channel conversation, where the context the host adds to a turn holds other members' messages. */
const SHARED_CONVERSATION = /:(?:group|channel|room|thread|topic):/i;

const OTHERS_IN_TURN = "chat history or a quoted message from others in the turn";
const STARTUP_NOTES = "the daily memory notes the host loaded into the session's first turn";

/**
 * Whether a result is a Tool Search outer call's (`tool_call`, whose params are `{ id, args }`)
 * rather than its inner call's, which carries the plain arguments. Both share the outer decision.
 */
function isOuterResult(result: Pick<ToolResult, "toolName">, tool: ResolvedTool): boolean {
  return tool.via !== undefined && normalizeToolName(result.toolName).name === tool.via;
}

/** The arguments a result's call was made with, whichever of a Tool Search pair it is. */
function resultArgs(result: Pick<ToolResult, "toolName" | "params">, tool: ResolvedTool): unknown {
  return isOuterResult(result, tool) ? bridgedArgs(result.params) : result.params;
}

function requesterLabel(requester: Requester | undefined): string {
  if (!requester) return "a turn whose sender the host could not identify";
  const who = requester.senderId ? `${requester.channel ?? "?"}:${requester.senderId}` : (requester.channel ?? "an unnamed sender");
  return `a message from ${who}`;
}

function sameShallow(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!a || !b || typeof a !== "object" || typeof b !== "object") return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    const va = (a as Record<string, unknown>)[k];
    const vb = (b as Record<string, unknown>)[k];
    if (va !== vb && JSON.stringify(va) !== JSON.stringify(vb)) return false;
  }
  return true;
}

/**
 * Whether a result may quote outside text in the fields a mode names (`modes[].quotes`): one of them
 * holds something other than null or an empty string, or what it holds cannot be told: the result
 * cannot be read whole (`wholeResultRecords`), or a record lacks the fields' top-level key
 * (another shape than the manifest knows). Tool Search's envelope counts by what it wraps. A text
 * the host writes there itself (`hostText`: a skipped heartbeat's reason code) counts as empty.
 */
function quotesOutside(content: unknown, quotes: QuotedFields, bridged: boolean, limit: number): boolean {
  const records = wholeResultRecords(content, limit, bridged)?.filter((r) => !bridged || !isEnvelope(r));
  if (!records || records.length === 0) return true;
  const roots = quotes.fields.map((at) => at[0]);
  for (const record of records) {
    if (!record || typeof record !== "object" || !roots.some((key) => key !== undefined && Object.hasOwn(record, key))) return true;
  }
  const host = quotes.hostText;
  const outside = (v: unknown) => v !== null && v !== undefined && v !== "" && !(host && typeof v === "string" && host.test(v));
  return records.some((r) => quotes.fields.some((at) => valuesAt(r, at).some(outside)));
}

/**
 * A listing whose `quotes` fields hold no outside text (`quotesOutside`): it does not lower the
 * session below the trust the call was made at, but what it found is remembered at the manifest's
 * `outputTrust`, as any lookup's, so the ids in it are endorsed only as its `selects` say.
 */
function listingOf(result: ToolResult, memo: CallMemo, declared: TrustLevel): { level: TrustLevel; values: TrustLevel } | undefined {
  return result.failed ? undefined : { level: memo.decision.inputTrust, values: declared };
}

/**
 * The output of a call whose result repeats what it was given (`provenance.output` "call"): the
 * trust the call was made at, with nothing in it to remember. A failed call's error counts as the
 * manifest's `outputTrust`, but what it repeats (a path, a name) is remembered at no more than the
 * call's trust; without the call's decision, at `untrusted`: a confirmation never makes the words
 * a lowered session chose the owner's.
 */
function echoOf(result: ToolResult, memo: CallMemo | undefined, declared: TrustLevel): { level: TrustLevel; echo?: true; values?: TrustLevel } {
  if (!memo) return { level: declared, values: "untrusted" };
  return result.failed ? { level: declared, values: minTrust(declared, memo.decision.inputTrust) } : { level: memo.decision.inputTrust, echo: true };
}

/**
 * The single-word values (no whitespace, at most MAX_SELECTED_VALUE characters) of a call's
 * top-level arguments that its manifest does not name, one per line: identifiers, not text.
 */
function undeclaredWords(params: unknown, declared: ReadonlySet<string>): string {
  if (!params || typeof params !== "object" || Array.isArray(params)) return "";
  let text = "";
  const add = (value: unknown) => {
    if (typeof value === "string" && value.length > 0 && value.length <= MAX_SELECTED_VALUE && !/\s/.test(value)) text += `${value}\n`;
  };
  for (const key in params as Record<string, unknown>) {
    if (declared.has(key) || !Object.hasOwn(params, key)) continue;
    const value = (params as Record<string, unknown>)[key];
    if (Array.isArray(value)) value.slice(0, 64).forEach(add);
    else add(value);
  }
  return text;
}

/**
 * The directories whose code a call runs, for binding a grant to it: a build's or test's working
 * tree, or the git directories whose settings a git command runs (`runningSettings`); undefined
 * for any other call.
 */
function markedDirs(facts: CallFacts | undefined, home: string): readonly string[] | undefined {
  const command = facts?.command;
  if (!command) return undefined;
  if (command.view.runsTree) return command.cwd ? [command.cwd, ...treeDirsOf(command, home)] : undefined;
  return command.repositories && !command.view.readOnly ? command.repositories : undefined;
}

/** The other directories whose code a build runs (make -C, npm --prefix, a cd before it, a script's own), absolute. */
function treeDirsOf(command: NonNullable<CallFacts["command"]>, home: string): string[] {
  if (!command.cwd || command.view.treeDirs.length === 0) return [];
  return command.view.treeDirs
    .map((d) => (d === "~" || d.startsWith("~/") ? home + d.slice(1) : d))
    .filter((d) => !d.startsWith("~"))
    .map((d) => resolvePath(command.cwd, d));
}

/**
 * Checks left running that are remembered. Past it the oldest is forgotten (writes there are then
 * decided as before): a gateway rarely has more runs alive at once.
 */
const MAX_RUNNING_CHECKS = 256;

/** Why a check's tree is the owner's, for its verdict. */
const OWN_TREE = "a trusted path whose code no session below owner wrote";
/** What a record in the local repository writes in its git directory, and whether each is a directory. */
const RECORD_PARTS: readonly (readonly [string, boolean])[] = [
  ["objects", true],
  ["refs", true],
  ["logs", true],
  ["index", false],
  ["HEAD", false],
  ["COMMIT_EDITMSG", false],
];
/** A session key of a group or a channel, where every member reads the replies (the host's routing). */
const SHARED_SESSION = /^agent:[^:]+:[^:]+:(?:group|channel):/i;
const OWN_RECORD = "a trusted path where git runs no hook but the owner's";

/**
 * The verdict on a tree or a repository a check or a record below owner runs in (`Provenance.ownTree`,
 * `ownRecord`): endorsed at owner when it runs only the owner's code, else tainted with the reason.
 */
function ownVerdict(
  argument: string,
  dir: string,
  own: { ok: true } | { ok: false; note: string },
  source: string,
  what: string,
  where: string,
): ArgumentVerdict {
  const base = { argument, role: "path" as const, value: shownValue(dir) };
  if (own.ok) return { ...base, verdict: "endorsed", allowed: true, level: "owner", source, note: `${what} ${where} ${dir}, ${source}` };
  return { ...base, verdict: "tainted", allowed: false, note: `${what} below owner runs only the owner's code, and ${own.note}` };
}

/** Who wrote a labelled file, for a reason: the session, when the label says. */
function writerOf(label: FileLabel): string {
  return label.by ? `session ${label.by}` : "a session";
}

/** The entries of one result record a select reads, each with its naming fields and identifiers. */
function listedEntries(record: unknown, select: CompiledSelect): ListedEntry[] {
  return valuesAt(record, select.entry).map((item) => {
    const fields = select.named.flatMap((at) => valuesAt(item, at)).filter((v): v is string => typeof v === "string");
    const values = valuesAt(item, select.within)
      .filter((v) => (typeof v === "string" && v.length > 0 && v.length <= MAX_SELECTED_VALUE) || typeof v === "number")
      .map(String)
      .slice(0, MAX_ENTRY_VALUES);
    return { key: fields.join("\n").slice(0, MAX_ENTRY_KEY), names: namingValues(fields), values, ...(select.anyWord ? { anyWord: true as const } : {}) };
  });
}

/**
 * "One entry only" holds across the session's recent lookups, not only inside each: an entry is not
 * named by a name another entry of a recent lookup of the same tool holds (the look-alike a second
 * search found, after the first listed the real sender), nor, when it is alone in its record (a
 * single message fetched), by one another entry of any recent lookup holds.
 */
function namableEntries(entries: readonly ListedEntry[], recent: readonly ListedLookup[], tool: string): ListedEntry[] {
  if (recent.length === 0) return [...entries];
  const alone = entries.length === 1;
  const heldElsewhere = (name: string, key: string) =>
    recent.some(
      (lookup) => (alone || lookup.tool === tool) && lookup.groups.some((group) => group.some((other) => other.key !== key && other.names.includes(name))),
    );
  return entries.map((entry) => {
    const names = entry.names.filter((name) => !heldElsewhere(name, entry.key));
    return names.length === entry.names.length ? entry : { ...entry, names };
  });
}

function namedLabel(tool: string, namer: Namer): string {
  return `an entry of the result of ${tool} that ${namer.source.label} named ("${namer.word}")`;
}

/** A call's key among a session's calls (ids are only unique within a session). */
function callKey(sessionKey: string, toolCallId: string): string {
  return `${sessionKey}\u0000${toolCallId}`;
}

/**
 * Tools whose output is what code the session chose printed: commands and their background runs
 * (`process` polls and logs), sandboxed code. A value in it may be one the session put together.
 */
function runsCode(capabilities: readonly string[] | undefined): boolean {
  return capabilities?.some((c) => c.startsWith("proc:") || c === "code:sandbox") === true;
}

/**
 * The strings in a JSON value, leaving out the objects in `skip` (and what is below them). Deeper
 * than 16 levels, what is there is not known: it stands as text (" "), which no check takes for a word.
 */
function stringLeaves(value: unknown, skip?: ReadonlySet<object>, depth = 0): string[] {
  if (typeof value === "string") return [value];
  if (value !== null && typeof value === "object" && depth > 16) return [" "];
  if (value === null || typeof value !== "object" || skip?.has(value)) return [];
  const out: string[] = [];
  for (const item of Array.isArray(value) ? value : Object.values(value)) out.push(...stringLeaves(item, skip, depth + 1));
  return out;
}

/** One word of a host's own metadata (`openai`, `hybrid`, `2026-11-10T10:00:00Z`): no space, nothing a sentence needs. */
function isWord(text: string): boolean {
  return /^[\p{L}\p{N}_.:#/+-]{0,64}$/u.test(text);
}
