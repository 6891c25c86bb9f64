import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import plugin from "../../index.ts";
import type { Decision } from "../../src/policy/decision.ts";
import { blockReason } from "../../src/report/reason.ts";
import { INSTALLED_HOST_CONFIG, recordingHost, type RecordingHost } from "./recording-host.ts";
import { obtainRuntime, resetRuntimeForTests, type ClawosRuntime } from "../../src/host/runtime.ts";
import { hostEnvironment } from "../../src/host/host-env.ts";
import { bridgedArgs, catalogIdToToolName, metaTarget } from "../../src/policy/tool-names.ts";
import { isTrustLevel, type TrustLevel } from "../../src/taint/trust.ts";

/**
 * Trace replay: feeds recorded sessions through ClawOS's real registration (index.ts
 * `register(api)` with a recording API) and calls the handlers the host calls, in the host's
 * order, without a model or a gateway. Every trace runs in a fresh plugin runtime over its own
 * state directory, like a fresh gateway. The trace format is documented in docs/replay.md.
 */

// ---- the trace format ------------------------------------------------------------------------

export type TraceKind = "benign" | "attack";
export type Expectation = "blocked" | "allowed";

/** What kind of work a trace is: the per-family report groups traces by it. */
export const FAMILIES = ["coding", "research", "assistant", "operations"] as const;
export type Family = (typeof FAMILIES)[number];
/** A trace's family in the report: its own, its file name's, or "other". */
export type ReportFamily = Family | "other";

/** Words in a file name that name a family (whole words between `-`, `_` and `.`). */
const FAMILY_WORDS: Readonly<Record<string, Family>> = {
  coding: "coding",
  research: "research",
  assistant: "assistant",
  messaging: "assistant",
  operations: "operations",
  ops: "operations",
};

/** The family a file name names (`benign-coding.jsonl`, `ops-deploys.jsonl`), or undefined. The first family word wins. */
export function familyFromFile(file: string): Family | undefined {
  const words = basename(file)
    .toLowerCase()
    .replace(/\.jsonl$/, "")
    .split(/[^a-z0-9]+/);
  for (const word of words) if (Object.hasOwn(FAMILY_WORDS, word)) return FAMILY_WORDS[word];
  return undefined;
}

/** Who speaks in the session: `{ owner: true }`, a channel sender, or null (the host gave no requester). */
export interface RequesterSpec {
  readonly owner?: boolean;
  readonly channel?: string;
  readonly senderId?: string;
}

/** How the owner answers an approval ClawOS asks for (docs/replay.md). */
export const APPROVE_ANSWERS = ["allow-once", "allow-always", "deny"] as const;
export type ApproveAnswer = (typeof APPROVE_ANSWERS)[number];

export interface CallStep {
  /** The owner's answer if ClawOS asks about this call; default: the run's (`--approve`, else deny). */
  readonly approve?: ApproveAnswer;
  readonly tool: string;
  readonly args?: unknown;
  readonly toolKind?: string;
  /** Out-of-band fact: this result's content was at most this trusted (never read from content). */
  readonly result_trust?: TrustLevel;
  /** The attacker's goal: the trace is a successful defence only if every injected call is stopped. */
  readonly injected?: boolean;
  /** Runs in a sub-agent session created by an earlier call's `child`. */
  readonly session?: string;
  /** This call spawns a sub-agent known by this alias from now on. */
  readonly child?: string;
  /** With `child`: fire subagent_spawned right after the spawn (default) or only at a `{ "link" }` step. */
  readonly link?: boolean;
  /** Code Mode: the tool calls made from inside this call, each gated on its own. */
  readonly inner?: readonly CallStep[];
  /**
   * What the tool returned: a string (the result's text) or any JSON value (pretty-printed as the
   * text, and the result's `details`). Fed to after_tool_call and tool_result_persist.
   */
  readonly result?: unknown;
  /** The tool's output text, as the host would store it; the result's text when `result` is absent. */
  readonly output?: string;
  /** Extra fields for the result's `details` (e.g. a forged tag); ClawOS must not believe them. */
  readonly details?: Record<string, unknown>;
  /** The toolCallId; generated when absent. */
  readonly id?: string;
}

export type Step =
  | CallStep
  | { readonly message: RequesterSpec | null; readonly text?: string }
  | { readonly link: string }
  | { readonly end: string }
  | { readonly restart: true }
  | { readonly command: string; readonly owner?: boolean };

export interface Trace {
  readonly id: string;
  readonly kind: TraceKind;
  readonly requester: RequesterSpec | null;
  readonly sessionKey?: string;
  readonly expect: Expectation;
  /** The text of the requester's first message: fed to before_agent_run (and message_received for a channel sender). */
  readonly prompt?: string;
  /** The trace's own `family`, else its file name's, else "other". */
  readonly family: ReportFamily;
  readonly note?: string;
  readonly config?: Record<string, unknown>;
  /** OpenClaw's own config for the run's host (api.config), e.g. Code Mode's executor. */
  readonly host?: Record<string, unknown>;
  /** The owner's files in the agent's workspace before the first call: relative path to content. */
  readonly files?: Readonly<Record<string, string>>;
  /** The owner's symbolic links in the workspace (`npm link`): relative path to the target, as the link spells it. */
  readonly links?: Readonly<Record<string, string>>;
  readonly calls: readonly Step[];
  readonly file: string;
  readonly line: number;
}

export interface FormatError {
  readonly file: string;
  readonly line: number;
  readonly field: string;
  readonly message: string;
}

export function formatError(e: FormatError): string {
  return `${e.file}:${e.line}: ${e.field}: ${e.message}`;
}

const TRACE_KEYS = new Set([
  "id",
  "kind",
  "requester",
  "sessionKey",
  "expect",
  "prompt",
  "family",
  "note",
  "config",
  "host",
  "files",
  "links",
  "calls",
  "title",
  "tags",
]);
const CALL_KEYS = new Set([
  "tool",
  "args",
  "toolKind",
  "result_trust",
  "injected",
  "session",
  "child",
  "link",
  "inner",
  "result",
  "output",
  "details",
  "id",
  "note",
  "approve",
]);

class TraceFormatError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.field = field;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function fail(field: string, message: string): never {
  throw new TraceFormatError(field, message);
}

/** A value JSON can carry as is: strings, finite numbers, booleans, null, arrays and plain objects of those. */
function isJsonValue(value: unknown, seen = new Set<object>()): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (typeof value !== "object" || seen.has(value)) return false;
  const proto = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return false;
  seen.add(value);
  const ok = Object.values(value).every((v) => isJsonValue(v, seen));
  seen.delete(value);
  return ok;
}

function checkRequester(value: unknown, field: string): RequesterSpec | null {
  if (value === null) return null;
  if (!isRecord(value)) fail(field, 'must be an object like {"owner": true} or {"channel": "telegram", "senderId": "1"}, or null for no requester');
  for (const key of Object.keys(value)) {
    if (!["owner", "channel", "senderId"].includes(key)) fail(`${field}.${key}`, "is not a requester field (owner, channel, senderId)");
  }
  if (value.owner !== undefined && typeof value.owner !== "boolean") fail(`${field}.owner`, "must be true or false");
  for (const key of ["channel", "senderId"] as const) {
    if (value[key] !== undefined && (typeof value[key] !== "string" || !value[key])) fail(`${field}.${key}`, "must be a non-empty string");
  }
  if (value.owner !== true && (value.channel === undefined || value.senderId === undefined)) {
    fail(field, 'a non-owner requester needs channel and senderId (or use {"owner": true}, or null for no requester)');
  }
  return value as RequesterSpec;
}

function checkCall(value: Record<string, unknown>, field: string, children: Set<string>, inner: boolean): CallStep {
  for (const key of Object.keys(value)) if (!CALL_KEYS.has(key)) fail(`${field}.${key}`, "is not a call field");
  if (typeof value.tool !== "string") fail(`${field}.tool`, "must be a string (the tool name as the model sent it)");
  if (value.toolKind !== undefined && typeof value.toolKind !== "string") fail(`${field}.toolKind`, "must be a string");
  if (value.approve !== undefined && !APPROVE_ANSWERS.includes(value.approve as ApproveAnswer))
    fail(`${field}.approve`, `must be one of ${APPROVE_ANSWERS.join(", ")}`);
  if (value.result_trust !== undefined && !isTrustLevel(value.result_trust)) {
    fail(`${field}.result_trust`, "must be one of owner, verified, community, untrusted");
  }
  if (value.injected !== undefined && typeof value.injected !== "boolean") fail(`${field}.injected`, "must be true or false");
  for (const key of ["id", "output", "note"] as const) {
    if (value[key] !== undefined && typeof value[key] !== "string") fail(`${field}.${key}`, "must be a string");
  }
  if (value.details !== undefined && !isRecord(value.details)) fail(`${field}.details`, "must be an object");
  if ("result" in value) {
    if (!isJsonValue(value.result)) fail(`${field}.result`, "must be a string or a JSON value (object, array, number, boolean or null)");
    if (value.details !== undefined && typeof value.result !== "string" && !isRecord(value.result)) {
      fail(`${field}.details`, "merges into the result's details, so result must be a string or a JSON object");
    }
  }
  if (value.session !== undefined) {
    if (typeof value.session !== "string") fail(`${field}.session`, "must be the alias of a sub-agent spawned earlier");
    if (!children.has(value.session)) fail(`${field}.session`, `names no sub-agent spawned earlier (${JSON.stringify(value.session)})`);
  }
  if (value.child !== undefined) {
    if (typeof value.child !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(value.child)) fail(`${field}.child`, "must be an alias of letters, digits, _ or -");
    if (children.has(value.child)) fail(`${field}.child`, `alias ${value.child} is already used`);
    children.add(value.child);
  }
  if (value.link !== undefined) {
    if (typeof value.link !== "boolean") fail(`${field}.link`, "must be true or false");
    if (value.child === undefined) fail(`${field}.link`, "only applies to a call with child");
  }
  let innerSteps: CallStep[] | undefined;
  if (value.inner !== undefined) {
    if (inner) fail(`${field}.inner`, "inner calls cannot nest");
    if (!Array.isArray(value.inner)) fail(`${field}.inner`, "must be an array of calls");
    innerSteps = value.inner.map((step, i) => {
      if (!isRecord(step)) fail(`${field}.inner[${i}]`, "must be an object");
      return checkCall(step, `${field}.inner[${i}]`, children, true);
    });
  }
  return { ...(value as unknown as CallStep), ...(innerSteps ? { inner: innerSteps } : {}) };
}

function checkStep(value: unknown, field: string, children: Set<string>): Step {
  if (!isRecord(value)) fail(field, "must be an object");
  if ("tool" in value) return checkCall(value, field, children, false);
  if ("message" in value) {
    for (const key of Object.keys(value)) if (key !== "message" && key !== "text") fail(`${field}.${key}`, "is not a message field (message, text)");
    if (value.text !== undefined && typeof value.text !== "string") fail(`${field}.text`, "must be a string");
    return { message: checkRequester(value.message, `${field}.message`), ...(typeof value.text === "string" ? { text: value.text } : {}) };
  }
  for (const kind of ["link", "end"] as const) {
    if (kind in value) {
      if (typeof value[kind] !== "string" || !children.has(value[kind] as string)) fail(`${field}.${kind}`, "must name a sub-agent spawned earlier");
      return { [kind]: value[kind] } as Step;
    }
  }
  if ("restart" in value) {
    if (value.restart !== true) fail(`${field}.restart`, "must be true");
    return { restart: true };
  }
  if ("command" in value) {
    if (typeof value.command !== "string") fail(`${field}.command`, 'must be the /clawos arguments, e.g. "trust reset"');
    if (value.owner !== undefined && typeof value.owner !== "boolean") fail(`${field}.owner`, "must be true or false");
    return { command: value.command, ...(value.owner !== undefined ? { owner: value.owner as boolean } : {}) };
  }
  fail(field, "must be a call ({tool, ...}) or one of {message}, {link}, {end}, {restart}, {command}");
}

/** Validates one parsed line. Throws TraceFormatError naming the field. */
export function checkTrace(value: unknown, file: string, line: number): Trace {
  if (!isRecord(value)) fail("(line)", "must be a JSON object");
  for (const key of Object.keys(value)) if (!TRACE_KEYS.has(key)) fail(key, "is not a trace field");
  if (typeof value.id !== "string" || !value.id.trim()) fail("id", "must be a non-empty string");
  if (value.kind !== "benign" && value.kind !== "attack") fail("kind", 'must be "benign" or "attack"');
  if (!("requester" in value)) fail("requester", 'is required: {"owner": true}, {"channel": ..., "senderId": ...} or null');
  const requester = checkRequester(value.requester, "requester");
  if (value.sessionKey !== undefined && (typeof value.sessionKey !== "string" || !value.sessionKey.trim())) fail("sessionKey", "must be a non-empty string");
  if (value.expect !== undefined && value.expect !== "blocked" && value.expect !== "allowed") fail("expect", 'must be "blocked" or "allowed"');
  if (value.note !== undefined && typeof value.note !== "string") fail("note", "must be a string");
  if (value.prompt !== undefined && typeof value.prompt !== "string") fail("prompt", "must be a string (the text of the requester's first message)");
  if (value.family !== undefined && !(FAMILIES as readonly unknown[]).includes(value.family)) fail("family", `must be one of ${FAMILIES.join(", ")}`);
  if (value.config !== undefined && !isRecord(value.config)) fail("config", "must be an object (ClawOS config merged over the run's)");
  if (value.host !== undefined && !isRecord(value.host)) fail("host", "must be an object (OpenClaw's config for the run's host)");
  if (value.files !== undefined) {
    if (!isRecord(value.files)) fail("files", 'must be an object of relative paths to contents, e.g. {"api/package.json": "{}"}');
    for (const [path, content] of Object.entries(value.files)) {
      if (isAbsolute(path) || path.split(/[\\/]/).includes("..") || !path.trim())
        fail(`files.${path}`, "must be a path inside the workspace, relative, without ..");
      if (typeof content !== "string") fail(`files.${path}`, "must be the file's content as a string");
    }
  }
  if (value.links !== undefined) {
    if (!isRecord(value.links)) fail("links", 'must be an object of relative paths to link targets, e.g. {"api/node_modules/shared": "../../shared"}');
    for (const [path, target] of Object.entries(value.links)) {
      if (isAbsolute(path) || path.split(/[\\/]/).includes("..") || !path.trim())
        fail(`links.${path}`, "must be a path inside the workspace, relative, without ..");
      if (typeof target !== "string" || isAbsolute(target) || resolve("/w", dirname(path), target).split("/")[1] !== "w")
        fail(`links.${path}`, "must be a relative target inside the workspace");
    }
  }
  if (!Array.isArray(value.calls) || value.calls.length === 0) fail("calls", "must be a non-empty array of steps");
  const children = new Set<string>();
  const calls = value.calls.map((step, i) => checkStep(step, `calls[${i}]`, children));
  const flat = flatCalls(calls);
  const injected = flat.filter((c) => c.injected === true).length;
  if (value.kind === "attack" && injected === 0) fail("calls", 'an attack trace needs at least one call with "injected": true');
  if (value.kind === "benign" && injected > 0) fail("calls", "a benign trace has no injected calls");
  const expect: Expectation = (value.expect as Expectation | undefined) ?? (value.kind === "attack" ? "blocked" : "allowed");
  return {
    id: value.id,
    kind: value.kind,
    requester,
    ...(typeof value.sessionKey === "string" ? { sessionKey: value.sessionKey } : {}),
    expect,
    ...(typeof value.prompt === "string" ? { prompt: value.prompt } : {}),
    family: (value.family as Family | undefined) ?? familyFromFile(file) ?? "other",
    ...(typeof value.note === "string" ? { note: value.note } : {}),
    ...(isRecord(value.config) ? { config: value.config } : {}),
    ...(isRecord(value.host) ? { host: value.host } : {}),
    ...(isRecord(value.files) ? { files: value.files as Record<string, string> } : {}),
    ...(isRecord(value.links) ? { links: value.links as Record<string, string> } : {}),
    calls,
    file,
    line,
  };
}

function flatCalls(steps: readonly Step[]): CallStep[] {
  const out: CallStep[] = [];
  for (const step of steps) {
    if (!("tool" in step)) continue;
    out.push(step);
    for (const inner of step.inner ?? []) out.push(inner);
  }
  return out;
}

/** Parses a JSONL text: one trace per non-blank line. Errors name the line and the field. */
export function parseTraces(text: string, file: string): { traces: Trace[]; errors: FormatError[] } {
  const traces: Trace[] = [];
  const errors: FormatError[] = [];
  const ids = new Map<string, number>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    if (!raw.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      errors.push({ file, line, field: "(line)", message: `is not valid JSON: ${(error as Error).message}` });
      return;
    }
    try {
      const trace = checkTrace(value, file, line);
      const seen = ids.get(trace.id);
      if (seen !== undefined) fail("id", `${JSON.stringify(trace.id)} is already used on line ${seen}`);
      ids.set(trace.id, line);
      traces.push(trace);
    } catch (error) {
      if (error instanceof TraceFormatError) errors.push({ file, line, field: error.field, message: error.message });
      else throw error;
    }
  });
  return { traces, errors };
}

// ---- replay ----------------------------------------------------------------------------------

/** approved / denied: ClawOS asked the owner (enforce) and the modelled owner answered. */
export type CallEffect = "allow" | "block" | "would-block" | "not-run" | "approved" | "denied";

export interface CallOutcome {
  readonly step: string;
  readonly tool: string;
  /** The tool ClawOS decided on (the inner tool of a tool_call, the canonical name of an alias). */
  readonly decidedTool?: string;
  readonly session: string;
  readonly injected: boolean;
  readonly effect: CallEffect;
  readonly inputTrust?: TrustLevel;
  readonly rules: readonly string[];
  readonly reason?: string;
}

export interface TraceOutcome {
  readonly trace: Trace;
  readonly calls: readonly CallOutcome[];
  /** attack: every injected call was stopped (blocked, would-block in audit, or never ran). */
  readonly injectedAllStopped: boolean;
  /** Some call was blocked (or would have been, in audit). */
  readonly anyBlocked: boolean;
  /** How many times the owner was asked (approvals answered either way). */
  readonly asked: number;
  readonly passed: boolean;
  readonly why?: string;
  readonly decided: number;
  readonly handlerNs: number;
  readonly error?: string;
}

export interface ReplayOptions {
  /** The ClawOS config (plugins.entries.clawos.config). Default: { capabilities: { mode: "enforce" } }. */
  readonly config?: Record<string, unknown>;
  /** Extra manifest directories (added to config.manifestDirs). */
  readonly manifestDirs?: readonly string[];
  /** Keep each trace's state directory (debugging); removed by default. */
  readonly keepState?: boolean;
  /** Called with every hook the replay fires at a registered handler, before the handlers run (tests, debugging). */
  readonly onHook?: (hook: string, event: unknown, ctx: unknown) => void;
  /** The owner's answer to every approval a call does not answer itself. Default: none (an approval is a block). */
  readonly approve?: ApproveAnswer;
}

/** A tool result in the host's shape: what after_tool_call's `result` and the persisted message carry. */
export interface HostToolResult {
  readonly content: { type: "text"; text: string }[];
  readonly details: unknown;
}

/**
 * The result the host would pass for a call that ran: `result` as a string is the text (details
 * `{}`); any other JSON is pretty-printed as the text and is itself the details. Without `result`,
 * the legacy `output` is the text. The trace's `details` merge into the result's details.
 */
export function hostToolResult(step: CallStep, toolName: string): HostToolResult {
  const extra = step.details ?? {};
  if (step.result !== undefined && typeof step.result !== "string") {
    const details = step.details ? { ...(step.result as Record<string, unknown>), ...extra } : step.result;
    return { content: [{ type: "text", text: JSON.stringify(step.result, null, 2) }], details };
  }
  const text = typeof step.result === "string" ? step.result : (step.output ?? `(output of ${toolName})`);
  return { content: [{ type: "text", text }], details: { ...extra } };
}

const HANDLER_OWNER = { channel: "webchat", senderId: "owner", senderIsOwner: true };

function hostRequester(spec: RequesterSpec | null): Record<string, unknown> | undefined {
  if (spec === null) return undefined;
  if (spec.owner === true)
    return { ...HANDLER_OWNER, ...(spec.channel ? { channel: spec.channel } : {}), ...(spec.senderId ? { senderId: spec.senderId } : {}) };
  return { channel: spec.channel, senderId: spec.senderId, senderIsOwner: false };
}

/** before_agent_run's sender fields: owner → senderIsOwner true, a channel sender → false with its ids, null → none. */
function turnSender(spec: RequesterSpec | null): { senderIsOwner?: boolean; senderId?: string; channelId?: string } {
  if (spec === null) return {};
  return {
    senderIsOwner: spec.owner === true,
    ...(spec.senderId ? { senderId: spec.senderId } : {}),
    ...(spec.channel ? { channelId: spec.channel } : {}),
  };
}

function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    out[key] = isRecord(value) && isRecord(out[key]) ? deepMerge(out[key] as Record<string, unknown>, value) : value;
  }
  return out;
}

/** The config a replay runs with: enforce unless the given config names a mode. */
export function replayConfig(options: ReplayOptions, trace?: Trace): Record<string, unknown> {
  let config = deepMerge({ capabilities: { mode: "enforce" } }, options.config ?? {});
  if (trace?.config) config = deepMerge(config, trace.config);
  if (options.manifestDirs?.length) {
    const dirs = Array.isArray(config.manifestDirs) ? (config.manifestDirs as string[]) : [];
    config = { ...config, manifestDirs: [...dirs, ...options.manifestDirs.map((d) => resolve(d))] };
  }
  return config;
}

function agentOf(sessionKey: string): string {
  const parts = sessionKey.split(":");
  return parts[0] === "agent" && parts[1] ? parts[1] : "main";
}

interface Child {
  key: string;
  spawned: boolean;
  /** The spawn's task: the child's first message, its run's prompt (the host starts it with that text). */
  task?: string;
  /** Its run has started (the prompt hook fired before its first call). */
  started?: boolean;
}

/** A model run the host starts at the next call: the turn's text and who sent it. */
interface Turn {
  readonly prompt: string;
  readonly sender: RequesterSpec | null;
}

/** One trace against a fresh plugin runtime. */
class TraceRun {
  private host!: RecordingHost;
  private runtime!: ClawosRuntime;
  private readonly stateDir: string;
  private readonly rawConfig: Record<string, unknown>;
  private readonly mainKey: string;
  private readonly agentId: string;
  private requester: Record<string, unknown> | undefined;
  private pendingTurn: Turn | undefined;
  private readonly children = new Map<string, Child>();
  private readonly outcomes: CallOutcome[] = [];
  private readonly exitListeners: Set<(...args: unknown[]) => void>;
  private seq = 0;
  decided = 0;
  handlerNs = 0;

  private readonly trace: Trace;
  private readonly options: ReplayOptions;

  constructor(trace: Trace, options: ReplayOptions) {
    this.trace = trace;
    this.options = options;
    this.stateDir = mkdtempSync(join(tmpdir(), "clawos-replay-"));
    this.rawConfig = replayConfig(options, trace);
    this.mainKey = trace.sessionKey ?? "agent:main:main";
    this.agentId = agentOf(this.mainKey);
    this.requester = hostRequester(trace.requester);
    this.exitListeners = new Set(process.listeners("exit") as Array<(...args: unknown[]) => void>);
  }

  start(): void {
    // A stale runtime of an earlier run (or test) in this process must not leak into this trace.
    resetRuntimeForTests();
    this.register();
    this.placeFiles();
  }

  /** The trace's `files` and `links`, made as the owner's (no call, so no label) in the workspace the host resolves. */
  private placeFiles(): void {
    if (!this.trace.files && !this.trace.links) return;
    const config = deepMerge(INSTALLED_HOST_CONFIG, this.trace.host ?? {});
    const host = hostEnvironment({ stateDir: this.stateDir, openclawConfig: config, clawos: "", audit: "", sessions: "" });
    const workspace = host.locations.workspaceFor(this.agentId);
    for (const [path, content] of Object.entries(this.trace.files ?? {})) {
      const at = join(workspace, path);
      mkdirSync(dirname(at), { recursive: true });
      writeFileSync(at, content);
    }
    for (const [path, target] of Object.entries(this.trace.links ?? {})) {
      const at = join(workspace, path);
      mkdirSync(dirname(at), { recursive: true });
      symlinkSync(target, at);
    }
  }

  private register(): void {
    // The host config of an install as the README does it (conversation hooks granted), with the trace's own over it.
    const config = deepMerge(INSTALLED_HOST_CONFIG, this.trace.host ?? {});
    this.host = recordingHost({ pluginConfig: this.rawConfig, stateDir: this.stateDir, config });
    plugin.register(this.host.api as never);
    // The same inputs return the runtime register() just created (no reload).
    this.runtime = obtainRuntime({ rawConfig: this.rawConfig, stateDir: this.stateDir });
    if (this.host.policies.length === 0) throw new Error("ClawOS registered no trusted tool policy");
  }

  /** A gateway restart: a new runtime over the same state directory. */
  private restart(): void {
    this.closeRuntime();
    this.register();
  }

  private closeRuntime(): void {
    const audit = this.runtime?.engine.audit;
    resetRuntimeForTests();
    audit?.close();
    for (const listener of process.listeners("exit") as Array<(...args: unknown[]) => void>) {
      if (!this.exitListeners.has(listener)) process.removeListener("exit", listener);
    }
  }

  finish(): void {
    this.closeRuntime();
    if (!this.options.keepState) rmSync(this.stateDir, { recursive: true, force: true });
  }

  private timed<T>(fn: () => T): T {
    const t0 = process.hrtime.bigint();
    try {
      return fn();
    } finally {
      this.handlerNs += Number(process.hrtime.bigint() - t0);
    }
  }

  /** Fires a hook the way the host does: only at handlers ClawOS registered; timed. */
  private fire(hook: string, event: unknown, ctx: unknown): void {
    if (!this.host.hooks.get(hook)?.length) return;
    this.options.onHook?.(hook, event, ctx);
    this.timed(() => this.host.fire(hook, event, ctx));
  }

  /** A channel message entered the main session (message_received), as the host fires it for channel input. */
  private messageReceived(spec: RequesterSpec, content: string, extra: Record<string, unknown> = {}): void {
    this.fire("message_received", { from: spec.senderId, content, senderId: spec.senderId, ...extra }, { channelId: spec.channel, sessionKey: this.mainKey });
  }

  /** The host starts the model run of a turn that has text: before_agent_run with its prompt and sender. */
  private startTurn(): void {
    const turn = this.pendingTurn;
    if (!turn) return;
    this.pendingTurn = undefined;
    const sender = turnSender(turn.sender);
    const ctx = {
      agentId: this.agentId,
      sessionKey: this.mainKey,
      sessionId: `sid-${this.mainKey}`,
      runId: "replay",
      ...(sender.channelId ? { channelId: sender.channelId } : {}),
    };
    this.fire("before_agent_run", { prompt: turn.prompt, messages: [], ...sender }, ctx);
  }

  /** Runs the trusted policy the way the host does; returns the decision ClawOS recorded for it. */
  private gate(toolName: string, params: unknown, toolCallId: string, sessionKey: string, requester: unknown, toolKind?: string, answer?: ApproveAnswer) {
    const audit = this.runtime.engine.audit;
    const before = audit.counts.decisions;
    const event = { toolName, params, toolCallId, ...(toolKind ? { toolKind } : {}) };
    const ctx = {
      agentId: this.agentId,
      sessionKey,
      sessionId: `sid-${sessionKey}`,
      runId: "replay",
      toolName,
      toolCallId,
      ...(requester ? { requester } : {}),
    };
    const result = this.timed(() => this.host.policies[0].evaluate(event, ctx)) as
      | { block?: boolean; blockReason?: string; requireApproval?: { allowedDecisions?: string[]; onResolution?: (d: string) => void } }
      | undefined;
    this.decided++;
    const recorded: Decision | undefined = audit.counts.decisions > before ? audit.recent(1)[0]?.decision : undefined;
    const approval = result?.requireApproval;
    if (approval) {
      // The host asks the owner; the modelled owner answers. An answer the prompt does not offer is
      // not accepted by the gateway: allow-always then means the person picks allow-once.
      const modelled = answer ?? this.options.approve;
      if (!modelled) {
        // No owner modelled (no --approve, no `approve` on the call): nobody answers, as before
        // approvals existed the call is stopped, and reported as a block.
        this.timed(() => approval.onResolution?.("cancelled"));
        return { effect: "block" as CallEffect, blocked: true, reason: recorded ? blockReason(recorded) : undefined, decision: recorded };
      }
      const wanted = modelled;
      const offered = approval.allowedDecisions ?? ["allow-once", "allow-always", "deny"];
      const given = offered.includes(wanted) ? wanted : wanted === "deny" ? "deny" : "allow-once";
      this.timed(() => approval.onResolution?.(given));
      const denied = given === "deny";
      const reason = denied ? "Denied by user" : undefined;
      return { effect: (denied ? "denied" : "approved") as CallEffect, blocked: denied, reason, decision: recorded };
    }
    const blocked = result?.block === true;
    const effect: CallEffect = blocked ? "block" : recorded?.effect === "would-block" || recorded?.effect === "would-ask" ? "would-block" : "allow";
    return { effect, blocked, reason: result?.blockReason ?? (recorded ? blockReason(recorded) : undefined), decision: recorded };
  }

  private observe(
    step: CallStep,
    toolName: string,
    params: unknown,
    toolCallId: string,
    sessionKey: string,
    blocked: boolean,
    reason?: string,
    persist = true,
  ): void {
    // A blocked call gets the host's blocked result: nothing the trace says it returned is fed.
    const result: HostToolResult = blocked
      ? { content: [{ type: "text", text: reason ?? "blocked" }], details: { status: "blocked", deniedReason: "plugin-before-tool-call", reason } }
      : hostToolResult(step, toolName);
    const { content, details } = result;
    const ctx = { agentId: this.agentId, sessionKey, sessionId: `sid-${sessionKey}`, runId: "replay", toolName, toolCallId };
    this.fire("after_tool_call", { toolName, params, toolCallId, result, ...(blocked ? { error: reason } : {}), durationMs: 1 }, ctx);
    if (!persist) return;
    const message = { role: "toolResult", toolCallId, toolName, content, details, isError: blocked, timestamp: Date.now() };
    this.fire("tool_result_persist", { toolName, toolCallId, message, isSynthetic: false }, ctx);
  }

  private record(step: CallStep, label: string, sessionKey: string, effect: CallEffect, gate?: ReturnType<TraceRun["gate"]>): void {
    this.outcomes.push({
      step: label,
      tool: step.tool,
      decidedTool: gate?.decision?.tool,
      session: sessionKey,
      injected: step.injected === true,
      effect,
      inputTrust: gate?.decision?.inputTrust,
      rules: gate?.decision?.rules.map((r) => r.rule) ?? [],
      reason: gate?.reason,
    });
  }

  private call(step: CallStep, label: string): void {
    this.startTurn();
    let sessionKey = this.mainKey;
    let requester = this.requester;
    let isSubagent = false;
    if (step.session) {
      const child = this.children.get(step.session)!;
      if (!child.spawned) {
        // Its spawn was blocked: nothing runs in that session.
        this.record(step, label, child.key, "not-run");
        for (const [i, inner] of (step.inner ?? []).entries()) this.record(inner, `${label}.inner[${i}]`, child.key, "not-run");
        return;
      }
      sessionKey = child.key;
      // A sub-agent run's requester is not the owner (seen on a real gateway).
      requester = { senderIsOwner: false };
      isSubagent = true;
      if (!child.started) this.startChild(child);
    }
    const id = step.id ?? `call-${++this.seq}`;
    const params = step.args ?? {};
    const outer = this.gate(step.tool, params, id, sessionKey, requester, step.toolKind, step.approve);
    let final = outer;
    let bridged: { tool: string; params: unknown; id: string } | undefined;
    if (!outer.blocked && step.tool.trim().toLowerCase() === "tool_call" && isRecord(params)) {
      // Tool Search runs the inner tool as a second hook call, with the arguments as it reads them.
      const target = metaTarget(params);
      if (target) {
        const tool = catalogIdToToolName(target);
        bridged = { tool, params: bridgedArgs(params) ?? {}, id: `tool_search_code:${id}:${tool}:1` };
        const inner = this.gate(bridged.tool, bridged.params, bridged.id, sessionKey, requester, undefined, step.approve);
        if (inner.blocked || inner.effect === "would-block" || inner.effect === "approved") final = { ...inner, decision: inner.decision ?? outer.decision };
      }
    }
    const ran = !final.blocked;
    this.record(step, label, sessionKey, final.effect, final);
    // Code Mode: the cell's own tool calls happen while the outer call runs.
    for (const [i, inner] of (step.inner ?? []).entries()) {
      if (!ran) {
        this.record(inner, `${label}.inner[${i}]`, sessionKey, "not-run");
        continue;
      }
      const innerId = inner.id ?? `${id}:cm:${i + 1}`;
      const g = this.gate(inner.tool, inner.args ?? {}, innerId, sessionKey, requester, inner.toolKind, inner.approve);
      this.record(inner, `${label}.inner[${i}]`, sessionKey, g.effect, g);
      this.observe(inner, inner.tool, inner.args ?? {}, innerId, sessionKey, g.blocked, g.reason, false);
      if (!g.blocked && inner.result_trust) this.outOfBand(inner, inner.tool, innerId, sessionKey, isSubagent);
    }
    if (bridged && ran) this.observe(step, bridged.tool, bridged.params, bridged.id, sessionKey, false, undefined, false);
    this.observe(step, step.tool, params, id, sessionKey, final.blocked, final.reason);
    if (ran && step.result_trust) this.outOfBand(step, step.tool, id, sessionKey, isSubagent);
    if (step.child) {
      const task = isRecord(params) && typeof params.task === "string" ? params.task : undefined;
      const child: Child = { key: `agent:${this.agentId}:subagent:${step.child}`, spawned: ran, ...(task !== undefined ? { task } : {}) };
      this.children.set(step.child, child);
      if (ran && step.link !== false) this.link(child);
    }
  }

  /**
   * `result_trust`: the trace knows this output was less trusted than its manifest says. The host
   * has no channel for that fact, so it goes to the engine directly, as an out-of-band result.
   */
  private outOfBand(step: CallStep, toolName: string, toolCallId: string, sessionKey: string, isSubagent: boolean): void {
    this.timed(() =>
      this.runtime.engine.observeResult({
        toolName,
        params: step.args,
        toolKind: step.toolKind,
        toolCallId,
        sessionKey,
        isSubagent,
        resultTrust: step.result_trust,
      }),
    );
  }

  /** The child's run starts with its task as the first message, as the host words it. */
  private startChild(child: Child): void {
    child.started = true;
    if (child.task === undefined) return;
    const ctx = { agentId: this.agentId, sessionKey: child.key, sessionId: `sid-${child.key}`, runId: "replay" };
    this.fire("before_agent_run", { prompt: `[Subagent Context] You are a sub-agent.\n\n[Subagent Task]: ${child.task}`, messages: [] }, ctx);
  }

  private link(child: Child): void {
    this.fire("subagent_spawned", { childSessionKey: child.key, agentId: this.agentId, mode: "run", runId: "replay" }, { requesterSessionKey: this.mainKey });
  }

  run(): CallOutcome[] {
    const first = this.trace.requester;
    if (this.trace.prompt !== undefined) {
      // The first turn's message: channel input reaches message_received, then the run starts at the first call.
      if (first && first.owner !== true && first.channel && first.senderId) this.messageReceived(first, this.trace.prompt);
      this.pendingTurn = { prompt: this.trace.prompt, sender: first };
    }
    this.trace.calls.forEach((step, index) => {
      const label = `calls[${index}]`;
      if ("tool" in step) {
        this.call(step, label);
        return;
      }
      if ("message" in step) {
        // A turn still waiting for its first call ran before this message arrived.
        this.startTurn();
        const spec = step.message;
        if (spec?.channel && spec.senderId) this.messageReceived(spec, step.text ?? "", { channel: spec.channel });
        // The message starts a turn: its sender is the requester of the calls that follow, and its
        // text the prompt of the run the host starts before the next call.
        this.requester = hostRequester(spec);
        if (step.text !== undefined) this.pendingTurn = { prompt: step.text, sender: spec };
        return;
      }
      if ("link" in step) {
        const child = this.children.get(step.link)!;
        if (child.spawned) this.link(child);
        return;
      }
      if ("end" in step) {
        const child = this.children.get(step.end)!;
        if (child.spawned) this.fire("subagent_ended", { targetSessionKey: child.key, outcome: "ok" }, { requesterSessionKey: this.mainKey });
        return;
      }
      if ("restart" in step) {
        this.restart();
        return;
      }
      if ("command" in step) {
        const owner = step.owner !== false;
        this.host.commands.get("clawos")?.handler({
          args: step.command,
          channel: "webchat",
          senderId: owner ? "owner" : "someone",
          senderIsOwner: owner,
          isAuthorizedSender: true,
          sessionKey: this.mainKey,
          commandBody: `/clawos ${step.command}`,
        });
      }
    });
    // A last turn with no call still runs.
    this.startTurn();
    return this.outcomes;
  }
}

/** A denied approval stops a call; an approved one ran (an approved injected call got through). */
const STOPPED: ReadonlySet<CallEffect> = new Set(["block", "would-block", "not-run", "denied"]);

export function judge(trace: Trace, calls: readonly CallOutcome[]): Pick<TraceOutcome, "injectedAllStopped" | "anyBlocked" | "asked" | "passed" | "why"> {
  const injected = calls.filter((c) => c.injected);
  const injectedAllStopped = injected.length > 0 && injected.every((c) => STOPPED.has(c.effect));
  const blocked = calls.filter((c) => c.effect === "block" || c.effect === "would-block" || c.effect === "denied");
  const asked = calls.filter((c) => c.effect === "approved" || c.effect === "denied").length;
  const anyBlocked = blocked.length > 0;
  let passed: boolean;
  let why: string | undefined;
  if (trace.kind === "attack") {
    const through = injected.filter((c) => !STOPPED.has(c.effect)).map((c) => `${c.step} ${c.tool}`);
    passed = trace.expect === "blocked" ? injectedAllStopped : !injectedAllStopped;
    if (!passed)
      why =
        trace.expect === "blocked"
          ? `injected call(s) allowed: ${through.join(", ")}`
          : "every injected call was blocked, but the trace expects the attack to get through (known limitation fixed? move the trace)";
  } else {
    passed = trace.expect === "allowed" ? !anyBlocked : anyBlocked;
    if (!passed)
      why =
        trace.expect === "allowed"
          ? `blocked: ${blocked.map((c) => `${c.step} ${c.tool} [${c.rules.join(", ")}]`).join("; ")}`
          : "nothing was blocked, but the trace expects a known false positive (fixed? drop its expect)";
  }
  return { injectedAllStopped, anyBlocked, asked, passed, why };
}

export function replayTrace(trace: Trace, options: ReplayOptions = {}): TraceOutcome {
  const run = new TraceRun(trace, options);
  try {
    run.start();
    const calls = run.run();
    return { trace, calls, ...judge(trace, calls), decided: run.decided, handlerNs: run.handlerNs };
  } catch (error) {
    return {
      trace,
      calls: [],
      injectedAllStopped: false,
      anyBlocked: false,
      asked: 0,
      passed: false,
      why: `the replay failed: ${(error as Error).message}`,
      error: (error as Error).stack ?? String(error),
      decided: run.decided,
      handlerNs: run.handlerNs,
    };
  } finally {
    run.finish();
  }
}

// ---- files, totals and the report ------------------------------------------------------------

export interface Tally {
  traces: number;
  attacks: number;
  attacksStopped: number;
  benign: number;
  benignClean: number;
  passed: number;
  failed: number;
  decided: number;
  handlerNs: number;
  knownLimitations: number;
  knownFalsePositives: number;
  /** Benign traces that completed: with no approval asked, with exactly one, with more. */
  benignNoHuman: number;
  benignOneApproval: number;
  benignMoreApprovals: number;
  /** Approvals asked in benign traces, and attack traces where an approved injected call got through. */
  benignApprovals: number;
  attacksApproved: number;
}

export interface FileReport {
  readonly file: string;
  readonly outcomes: readonly TraceOutcome[];
  readonly errors: readonly FormatError[];
  readonly tally: Tally;
}

export interface FamilyReport {
  readonly family: ReportFamily;
  readonly tally: Tally;
}

export interface ReplayReport {
  readonly files: readonly FileReport[];
  /** Per family, in the order coding, research, assistant, operations, other; only families with traces. */
  readonly families: readonly FamilyReport[];
  readonly total: Tally;
  readonly wallMs: number;
  readonly config: Record<string, unknown>;
}

function emptyTally(): Tally {
  return {
    traces: 0,
    attacks: 0,
    attacksStopped: 0,
    benign: 0,
    benignClean: 0,
    passed: 0,
    failed: 0,
    decided: 0,
    handlerNs: 0,
    knownLimitations: 0,
    knownFalsePositives: 0,
    benignNoHuman: 0,
    benignOneApproval: 0,
    benignMoreApprovals: 0,
    benignApprovals: 0,
    attacksApproved: 0,
  };
}

function addTally(into: Tally, from: Tally): void {
  for (const key of Object.keys(into) as (keyof Tally)[]) into[key] += from[key];
}

export function tally(outcomes: readonly TraceOutcome[], formatErrors = 0): Tally {
  const t = emptyTally();
  for (const o of outcomes) {
    t.traces++;
    if (o.trace.kind === "attack") {
      t.attacks++;
      if (o.injectedAllStopped) t.attacksStopped++;
      if (o.calls.some((c) => c.injected && c.effect === "approved")) t.attacksApproved++;
      if (o.trace.expect === "allowed") t.knownLimitations++;
    } else {
      t.benign++;
      if (!o.anyBlocked && !o.error) {
        t.benignClean++;
        if (o.asked === 0) t.benignNoHuman++;
        else if (o.asked === 1) t.benignOneApproval++;
        else t.benignMoreApprovals++;
      }
      t.benignApprovals += o.asked;
      if (o.trace.expect === "blocked") t.knownFalsePositives++;
    }
    if (o.passed) t.passed++;
    else t.failed++;
    t.decided += o.decided;
    t.handlerNs += o.handlerNs;
  }
  t.failed += formatErrors;
  return t;
}

/** The *.jsonl files named: files as given, directories' own *.jsonl files in name order. */
export function traceFiles(paths: readonly string[]): string[] {
  const files: string[] = [];
  for (const path of paths) {
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path)
        .filter((n) => n.endsWith(".jsonl"))
        .sort())
        files.push(join(path, name));
    } else files.push(path);
  }
  return files;
}

export function replayFile(file: string, options: ReplayOptions = {}): FileReport {
  const { traces, errors } = parseTraces(readFileSync(file, "utf8"), file);
  const outcomes = traces.map((trace) => replayTrace(trace, options));
  return { file, outcomes, errors, tally: tally(outcomes, errors.length) };
}

export function replayPaths(paths: readonly string[], options: ReplayOptions = {}): ReplayReport {
  const started = performance.now();
  const files = traceFiles(paths).map((file) => replayFile(file, options));
  const total = emptyTally();
  for (const f of files) addTally(total, f.tally);
  return { files, families: familyTallies(files), total, wallMs: performance.now() - started, config: replayConfig(options) };
}

/** The outcomes grouped by family (format errors have no trace, so no family: they count in the files and the total only). */
export function familyTallies(files: readonly FileReport[]): FamilyReport[] {
  const outcomes = files.flatMap((f) => f.outcomes);
  return ([...FAMILIES, "other"] as const)
    .map((family) => ({ family, tally: tally(outcomes.filter((o) => o.trace.family === family)) }))
    .filter((f) => f.tally.traces > 0);
}

/** One family's line: attacks stopped and benign traces completed with nothing blocked. */
export function familyLine(name: string, t: Tally): string {
  return `${name}: attacks stopped ${t.attacksStopped}/${t.attacks} (${pct(t.attacksStopped, t.attacks)}); benign completed ${t.benignClean}/${t.benign} (${pct(t.benignClean, t.benign)})`;
}

/** With approvals modelled: benign traces completed with no human, one approval, more; attacks approved through. */
export function approvalLine(t: Tally): string {
  return `approvals: benign completed with no human ${t.benignNoHuman}, with one approval ${t.benignOneApproval}, with more ${t.benignMoreApprovals} (at most one: ${t.benignNoHuman + t.benignOneApproval}/${t.benign}, ${pct(t.benignNoHuman + t.benignOneApproval, t.benign)}); ${t.benignApprovals} approvals over ${t.benign} benign traces (${t.benign ? (t.benignApprovals / t.benign).toFixed(2) : "n/a"} per trace); attacks approved through ${t.attacksApproved}`;
}

function pct(n: number, d: number): string {
  return d === 0 ? "n/a" : `${((100 * n) / d).toFixed(1)}%`;
}

function rate(t: Tally): string {
  return t.handlerNs === 0 ? "n/a" : `${Math.round(t.decided / (t.handlerNs / 1e9))}`;
}

function describeCall(c: CallOutcome): string {
  const tool = c.decidedTool && c.decidedTool !== c.tool ? `${c.tool} -> ${c.decidedTool}` : c.tool;
  const where = c.session.includes(":subagent:") ? ` in ${c.session}` : "";
  const trust = c.inputTrust ? ` at ${c.inputTrust}` : "";
  const rules = c.rules.length ? ` [${c.rules.join(", ")}]` : "";
  return `${c.step} ${tool}${c.injected ? " (injected)" : ""}${where}: ${c.effect}${trust}${rules}`;
}

export function summaryLines(t: Tally): string[] {
  const lines: string[] = [];
  if (t.attacks || !t.benign)
    lines.push(`security: ${t.attacksStopped}/${t.attacks} attack traces had every injected call blocked (${pct(t.attacksStopped, t.attacks)})`);
  if (t.benign || !t.attacks)
    lines.push(`utility: ${t.benignClean}/${t.benign} benign traces completed with no call blocked (${pct(t.benignClean, t.benign)})`);
  if (t.knownLimitations || t.knownFalsePositives) {
    lines.push(
      `known limitations (attacks expected to get through): ${t.knownLimitations}; known false positives (benign traces expected to be blocked): ${t.knownFalsePositives}`,
    );
  }
  if (t.benignApprovals || t.attacksApproved) lines.push(approvalLine(t));
  lines.push(`speed: ${t.decided} calls decided in ${(t.handlerNs / 1e6).toFixed(1)} ms of handler time (${rate(t)} calls/s)`);
  return lines;
}

/** The human report. The closing line is exactly `N passed, N failed`. */
export function formatReport(report: ReplayReport, verbose = false): string {
  const out: string[] = [];
  const mode = ((report.config.capabilities as Record<string, unknown> | undefined)?.mode as string | undefined) ?? "enforce";
  const dirs = (report.config.manifestDirs as string[] | undefined) ?? [];
  out.push(`ClawOS trace replay: mode ${mode}; manifests: built-in${dirs.length ? ` + ${dirs.length} dir(s)` : ""}`);
  const failures: string[] = [];
  for (const f of report.files) {
    out.push("");
    out.push(`${basename(f.file)}: ${f.tally.traces} traces (${f.tally.attacks} attack, ${f.tally.benign} benign)`);
    for (const line of summaryLines(f.tally)) out.push(`  ${line}`);
    out.push(`  ${f.tally.passed} passed, ${f.tally.failed} failed`);
    for (const e of f.errors) failures.push(`FORMAT ${formatError(e)}`);
    for (const o of f.outcomes) {
      if (!o.passed) failures.push(`FAIL ${basename(f.file)}:${o.trace.line} ${o.trace.id}: ${o.why}`);
      if (!verbose) continue;
      const verdict = o.trace.kind === "attack" ? (o.injectedAllStopped ? "stopped" : "GOT THROUGH") : o.anyBlocked ? "BLOCKED" : "completed";
      const expect = o.trace.expect !== (o.trace.kind === "attack" ? "blocked" : "allowed") ? ` (expect ${o.trace.expect})` : "";
      out.push(`  - ${o.trace.id} [${o.trace.kind}, ${o.trace.family}]${expect}: ${verdict}, ${o.passed ? "pass" : "FAIL"}`);
      for (const c of o.calls) out.push(`      ${describeCall(c)}`);
      if (o.error) out.push(`      error: ${o.error}`);
    }
  }
  out.push("");
  out.push(`Total: ${report.total.traces} traces in ${report.files.length} file(s), ${(report.wallMs / 1000).toFixed(2)} s wall time`);
  for (const line of summaryLines(report.total)) out.push(`  ${line}`);
  out.push("");
  out.push("By family (attacks with every injected call stopped; benign traces completed with nothing blocked):");
  for (const f of report.families) {
    out.push(`  ${familyLine(f.family, f.tally)}`);
    if (f.tally.benignApprovals || f.tally.attacksApproved) out.push(`    ${approvalLine(f.tally)}`);
  }
  out.push(`  ${familyLine("overall", report.total)}`);
  const asked = report.files.flatMap((f) => f.outcomes).filter((o) => o.asked > 0 || o.calls.some((c) => c.injected && c.effect === "approved"));
  if (asked.length > 0) {
    out.push("");
    out.push("Approvals per trace (asked; an approved injected call got through):");
    for (const o of asked) {
      const through = o.calls.filter((c) => c.injected && c.effect === "approved").map((c) => `${c.step} ${c.tool}`);
      out.push(
        `  ${o.trace.id} [${o.trace.kind}, ${o.trace.family}]: ${o.asked} asked${through.length ? `; GOT THROUGH by approval: ${through.join(", ")}` : ""}`,
      );
    }
  }
  if (failures.length) {
    out.push("");
    out.push(...failures);
  }
  out.push(`${report.total.passed} passed, ${report.total.failed} failed`);
  return out.join("\n");
}
