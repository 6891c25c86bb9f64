import { createHash } from "node:crypto";
import { holdsSecret } from "../audit/redact.ts";
import type { Decision, RuleHit } from "../policy/decision.ts";
import type { ArgumentValue } from "../taint/provenance.ts";
import { normalizeUrl, normalizeValue } from "../taint/values.ts";

/**
 * A grant: the owner's standing answer to a question ClawOS would otherwise ask. It is bound to what
 * was approved and never widens by itself:
 *
 * - a call grant (from `allow-always`) names the tool and the value of every argument that decides
 *   where the call acts (this recipient, this path, this command or command prefix; for a tool that
 *   only reads the web, the URL's host); a call with any other value asks again;
 * - an action grant (`/clawos grant <action>`) names one irreversible action (`git-push`,
 *   `npm-publish`, `message-broadcast`, ...), the only question it answers.
 *
 * A grant answers only questions the owner can answer (trust floors, where an argument came from,
 * irreversible actions); path rules, denials and everything else still block. Each one has a scope
 * (this session, this agent, everywhere) and an expiry. Pure data and pure functions; the store
 * keeps them (`grant-store.ts`).
 */

export const GRANT_SCOPES = ["session", "agent", "everywhere"] as const;
export type GrantScope = (typeof GRANT_SCOPES)[number];

/** One approved argument: where it sits (as the manifest names it), its role, and its canonical value. */
export interface GrantValue {
  readonly argument: string;
  readonly role: string;
  /** Canonical: a path as the host resolves it, a value in its normalised form, a command as written. */
  readonly value: string;
  /**
   * For a command: the approved command in plain words (`npm run build`), matched against the
   * call's own whole command. (Grants made before this meant the same words, as a prefix stopping
   * at the first flag: they still cover exactly those words.)
   */
  readonly prefix?: boolean;
  /**
   * For a URL a reading tool fetches: the approved host (`doi.org`), matched against the URL's host;
   * a URL there that carries a key, a token or an encoded blob is not covered.
   */
  readonly host?: boolean;
}

/** At most this many values, each at most this long, in a grant offered with allow-always: what a prompt shows whole. */
export const MAX_OFFER_VALUES = 4;
export const OFFER_VALUE_LIMIT = 120;

/** A grant of these values can be offered: the prompt shows each of them whole (see `MAX_OFFER_VALUES`). */
export function offerShowable(values: readonly GrantValue[]): boolean {
  return values.length <= MAX_OFFER_VALUES && values.every((v) => v.value.length <= OFFER_VALUE_LIMIT);
}

/** How a grant value matches, in words before the value: `starting with`, `on host`, or nothing. */
export function matchWords(v: Pick<GrantValue, "prefix" | "host">): string {
  return v.prefix ? "" : v.host ? "on host " : "";
}

/** A call grant's circumstances in words (` on telegram, as account work, in mode kill, taking git-push`), or "". */
export function contextText(context: GrantContext | undefined): string {
  if (!context) return "";
  const parts: string[] = [];
  if (context.channel) parts.push(`on ${context.channel}`);
  if (context.account) parts.push(`as account ${context.account}`);
  if (context.modes?.length) parts.push(`in mode ${context.modes.join(", ")}`);
  const shape = context.shape ?? [];
  const picks = shape.filter((s) => !s.startsWith(EXACT_CALL) && !s.startsWith(EXACT_TEXT));
  if (picks.length > 0) parts.push(`with ${picks.join(", ")}`);
  if (shape.some((s) => s.startsWith(EXACT_TEXT))) parts.push("with exactly this text");
  if (shape.some((s) => s.startsWith(EXACT_CALL))) parts.push("with exactly these parameters");
  if (context.actions?.length) parts.push(`taking ${context.actions.join(", ")}`);
  return parts.length > 0 ? ` ${parts.join(", ")}` : "";
}

/** One grant value as a pattern line writes it: `command starting with "npm test"`, `to="boss@example.com"`. */
export function valuePattern(v: Pick<GrantValue, "argument" | "prefix" | "host">, shown: string): string {
  return v.prefix || v.host ? `${v.argument} ${matchWords(v)}${shown}` : `${v.argument}=${shown}`;
}

/**
 * Capabilities that only read the web: a URL there picks a page to read, so the owner's answer is
 * about the site. A tool with any other capability keeps its URL whole (a webhook's path is where
 * its data goes).
 */
const READING_WEB = new Set(["net:fetch", "net:search", "net:browse", "net:read"]);

export interface Grant {
  readonly id: string;
  /** A call grant's tool; an action grant has none. */
  readonly tool?: string;
  readonly values?: readonly GrantValue[];
  /** An action grant's irreversible action id. */
  readonly action?: string;
  /**
   * A grant for a build or test: the code below owner its working tree held when the owner
   * approved it (`FileLabels.codeMark`, "" for none). It answers only while the tree it runs holds
   * the same: code a less trusted session writes there later is not what the owner approved.
   */
  readonly treeMark?: string;
  /** A call grant's circumstances, beyond its values (see `GrantContext`); none: the plain call. */
  readonly context?: GrantContext;
  readonly scope: GrantScope;
  readonly sessionKey?: string;
  readonly agentId?: string;
  readonly createdAt: number;
  /** Undefined only when the operator configured grants that never expire. */
  readonly expiresAt?: number;
  /** Who made it: the approval's resolution, or the owner's command and who sent it. */
  readonly by: string;
}

/**
 * What a call grant was approved for besides its values: the modes of the tool that needed more
 * trust (`process` submit is not `process` kill), the irreversible actions the call would take
 * (`gateway` update.run is not config.get, a broadcast is not a send), and the channel and account
 * it used (the same number on WhatsApp is not the one on SMS). A call answered by the grant is in
 * the same modes, takes no other irreversible action, and uses the same channel and account.
 */
export interface GrantContext {
  /**
   * What the owner answered: the session's trust being below the tool's (`trust`), where an
   * argument came from (`argument`), an irreversible action (`irreversible`). A grant answers a
   * later call only for these: one approved for a push in the owner's session does not answer the
   * same push after a page lowered the session. Grants made before this carry none and answer all.
   */
  readonly answers?: readonly RuleClass[];
  readonly modes?: readonly string[];
  readonly actions?: readonly string[];
  readonly channel?: string;
  readonly account?: string;
  /** Who drove the turn it was approved on (`owner`, or a sender's channel and id): a grant answers only that one's turns. */
  readonly driver?: string;
  /**
   * What the call does beyond its values (`callShape`): the actions it picks, the switches it turns
   * on, the text that runs (for a tool whose free text is what runs), and for a call that names no
   * value, its exact parameters. A grant answers only calls of the same shape; grants made before
   * this carry none and answer only calls that have none.
   */
  readonly shape?: readonly string[];
}

/** What `allow-always` on an approval would grant: made when ClawOS asks, shown in the prompt. */
export interface GrantOffer {
  readonly tool: string;
  readonly values: readonly GrantValue[];
  readonly context?: GrantContext;
  readonly scope: GrantScope;
  /** Undefined: the operator configured grants that never expire. */
  readonly expiresInMs?: number;
  /** A build or test: the tree's code mark the grant will be bound to (see `Grant.treeMark`). */
  readonly treeMark?: string;
}

/** What a grant is matched against: the decision and the call's decision-relevant argument values. */
export interface GrantQuestion {
  readonly decision: Decision;
  readonly values: readonly ArgumentValue[];
  readonly sessionKey?: string;
  readonly agentId?: string;
  /** A build or test: its tree's code mark now (see `Grant.treeMark`). */
  readonly treeMark?: string;
  /** The channel the call sends on (its `channel` param, else the turn's) and its `accountId` (see `GrantContext`). */
  readonly channel?: string;
  readonly account?: string;
  /** Who drove the turn (see `GrantContext.driver`). */
  readonly driver?: string;
  /** What the call does beyond its values (see `GrantContext.shape`, `callShape`). */
  readonly shape?: readonly string[];
}

/**
 * The parameters that pick what a multi-purpose tool does: OpenClaw's tools take an `action`
 * (`navigate` is not `act`, `inspect` is not `uninstall`), some a `kind` or a `mode` inside a request.
 */
const SELECTORS = new Set(["action", "kind", "mode", "method", "operation", "op", "type", "subcommand", "verb"]);
/** A shape entry that stands for a call's exact parameters (a call whose grant names no value). */
const EXACT_CALL = "call#";
/** A shape entry that stands for a call's free text, where that text is what runs (`callShape`). */
const EXACT_TEXT = "text#";
/** How deep and how many of a call's parameters `callShape` reads: past either, the call is bound whole. */
const SHAPE_DEPTH = 4;
const SHAPE_ENTRIES = 64;

/**
 * What a call does beyond the values a grant names, sorted: each parameter that picks an action
 * (`SELECTORS`, at any depth: `request.kind=evaluate`, each step of a batch `actions[].kind=click`)
 * and each switch turned on (`elevated`, written `true`, `"true"` or `1`). Two digests bind more:
 * `freeText`, for a tool whose free text is itself what runs (keystrokes, a script, a node
 * command's parameters, an instruction), and the call's exact parameters where it names no value
 * (a listing): what such a grant approves is that text, that call, not any call of the tool. A
 * call too deep or too large to read is bound whole.
 */
export function callShape(params: unknown, namesValues: boolean, freeText?: readonly string[]): string[] | undefined {
  if (!params || typeof params !== "object" || Array.isArray(params)) return undefined;
  const out = new Set<string>();
  let whole = !namesValues;
  const pick = (key: string, value: unknown, depth: number) => {
    if (out.size >= SHAPE_ENTRIES || depth > SHAPE_DEPTH) {
      whole = true;
      return;
    }
    const name = key.slice(key.lastIndexOf(".") + 1).replace(/\[\]$/, "");
    // A switch turned on, also as a host's validation would read it (`"true"`, `1`).
    if (value === true || value === 1 || (typeof value === "string" && /^\s*(?:true|1)\s*$/i.test(value))) out.add(key);
    else if (typeof value === "string" && SELECTORS.has(name) && value.trim() !== "") out.add(`${key}=${value.trim().toLowerCase().slice(0, 64)}`);
    else if (Array.isArray(value)) for (const item of value) pick(`${key}[]`, item, depth + 1);
    else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) pick(`${key}.${k}`, v, depth + 1);
  };
  for (const [key, value] of Object.entries(params)) {
    if (key === "channel" || key === "accountId") continue;
    pick(key, value, 0);
  }
  if (freeText && freeText.length > 0) out.add(`${EXACT_TEXT}${digest(stableJson(freeText))}`);
  if (whole) out.add(`${EXACT_CALL}${digest(stableJson(params))}`);
  return out.size > 0 ? [...out].sort() : undefined;
}

function digest(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/** JSON with each object's keys sorted: the same parameters in another order are the same call. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export type RuleClass = "trust" | "argument" | "irreversible";

/** The kind of question a rule asks the owner (see `GrantContext.answers`). */
function ruleClass(rule: string): RuleClass | undefined {
  if (rule === "tool.min-input-trust" || rule === "capability.floor" || rule === "tool.mode") return "trust";
  if (rule === "argument.tainted" || rule === "argument.unknown") return "argument";
  return rule === "action.irreversible" ? "irreversible" : undefined;
}

/** The circumstances a call grant for this question is bound to (see `GrantContext`). */
export function contextOf(question: GrantQuestion): GrantContext | undefined {
  const modes = new Set<string>();
  const actions = new Set<string>();
  const answers = new Set<RuleClass>();
  for (const hit of question.decision.rules) {
    const kind = ruleClass(hit.rule);
    if (kind) answers.add(kind);
    if (hit.rule === "tool.mode" && hit.mode !== undefined) modes.add(hit.mode);
    if (hit.rule === "action.irreversible" && hit.value !== undefined) actions.add(hit.value);
  }
  const context: GrantContext = {
    ...(answers.size > 0 ? { answers: [...answers].sort() } : {}),
    ...(modes.size > 0 ? { modes: [...modes].sort() } : {}),
    ...(actions.size > 0 ? { actions: [...actions].sort() } : {}),
    ...(question.channel !== undefined ? { channel: question.channel } : {}),
    ...(question.account !== undefined ? { account: question.account } : {}),
    ...(question.driver !== undefined ? { driver: question.driver } : {}),
    ...(question.shape?.length ? { shape: question.shape } : {}),
  };
  return Object.keys(context).length > 0 ? context : undefined;
}

/** The call's circumstances are within what the grant was approved for. */
function withinContext(granted: GrantContext | undefined, question: GrantQuestion): boolean {
  const asked = contextOf(question);
  if ((granted?.channel ?? undefined) !== asked?.channel || (granted?.account ?? undefined) !== asked?.account) return false;
  if ((granted?.driver ?? undefined) !== asked?.driver) return false;
  // The same action, switches and (for a call that names no value) parameters.
  if ((granted?.shape ?? []).join("\n") !== (asked?.shape ?? []).join("\n")) return false;
  // Only the kinds of question the owner answered (a grant from before this answers all).
  if (granted?.answers && asked?.answers?.some((kind) => !granted.answers?.includes(kind))) return false;
  // The same modes: one can widen the tool (a submit to a process) or narrow it (a kill).
  if ((asked?.modes ?? []).join("\n") !== (granted?.modes ?? []).join("\n")) return false;
  return asked?.actions?.every((action) => granted?.actions?.includes(action) === true) ?? true;
}

/** Rules a grant can answer (the askable ones, see `policy/approval.ts`). */
const CALL_RULES = new Set(["tool.min-input-trust", "capability.floor", "tool.mode", "argument.tainted", "argument.unknown"]);

/**
 * The canonical value of one argument as the gate read it: a path where the host would really
 * write or read it (symlinks followed: a file replaced by a link elsewhere is another file), an
 * amount with its currency (84.20 EUR is not 84.20 BTC), a command as written.
 */
function canonical(value: ArgumentValue): string {
  const real = value.resolved?.at(-1);
  if (real) return real;
  if (value.role === "command") return value.raw.trim();
  // A mailto: link with a query (`?bcc=`) sends to more than its address: kept whole.
  if (/^\s*mailto:[^?]*\?/i.test(value.raw)) return value.raw.trim().toLowerCase();
  const normal = normalizeValue(value.raw)[0] ?? value.raw.trim().toLowerCase();
  if (value.role === "amount") {
    const unit = value.raw.replace(/[\d\s.,'+-]/g, "").toLowerCase();
    return unit ? `${normal} ${unit}` : normal;
  }
  return normal;
}

/**
 * A URL's site: its host, lower case without `www.`, with the port on a private network; undefined
 * for anything that is not a URL with a host.
 */
function urlHost(value: ArgumentValue): string | undefined {
  return normalizeUrl(value.raw.trim())?.site;
}

/**
 * What `allow-always` on this decision would grant: the tool and every decision-relevant argument's
 * value (a single local command by its prefix, any other command as written, a URL a tool that only
 * reads the web fetches by its host). Undefined when the decision names something a grant cannot
 * answer.
 */
export function callPattern(question: GrantQuestion): Pick<Grant, "tool" | "values"> | undefined {
  const { decision } = question;
  if (!decision.manifested || decision.rules.length === 0) return undefined;
  if (!decision.rules.every((hit) => CALL_RULES.has(hit.rule) || hit.rule === "action.irreversible")) return undefined;
  const prefix = decision.command?.whole;
  const readsWeb = decision.capabilities.length > 0 && decision.capabilities.every((c) => READING_WEB.has(c));
  const values: GrantValue[] = [];
  const seen = new Set<string>();
  for (const v of question.values) {
    const host = readsWeb && v.role === "url" ? urlHost(v) : undefined;
    const entry: GrantValue =
      v.role === "command" && prefix
        ? { argument: v.argument, role: v.role, value: prefix, prefix: true }
        : host
          ? { argument: v.argument, role: v.role, value: host, host: true }
          : { argument: v.argument, role: v.role, value: canonical(v) };
    const key = `${entry.argument}\u0000${entry.value}`;
    if (seen.has(key)) continue;
    seen.add(key);
    values.push(entry);
  }
  return { tool: decision.tool, values };
}

function inScope(grant: Grant, question: GrantQuestion): boolean {
  if (grant.scope === "session") return grant.sessionKey !== undefined && grant.sessionKey === question.sessionKey;
  if (grant.scope === "agent") return grant.agentId !== undefined && grant.agentId === (question.agentId ?? "main");
  return true;
}

/** Every value the call carries was approved by this call grant (a new value asks again). */
function coversCall(grant: Grant, question: GrantQuestion): boolean {
  if (grant.tool === undefined || grant.tool !== question.decision.tool || !grant.values) return false;
  if (question.treeMark !== undefined && (grant.treeMark ?? "") !== question.treeMark) return false;
  if (!withinContext(grant.context, question)) return false;
  // A grant for named values answers calls that name some of them, not a call that names none (a
  // click on whatever page is open is not the site the owner approved).
  if (grant.values.length > 0 && question.values.length === 0) return false;
  const prefix = question.decision.command?.whole;
  for (const v of question.values) {
    const ok = grant.values.some((g) => {
      if (g.argument !== v.argument || g.role !== v.role) return false;
      if (g.prefix) return v.role === "command" && prefix === g.value;
      // As with a host the owner named: the site, but not a URL that carries a key or a blob there.
      if (g.host) return v.role === "url" && urlHost(v) === g.value && !holdsSecret(v.raw, { url: true });
      return g.value === canonical(v);
    });
    if (!ok) return false;
  }
  return true;
}

/** The askable hits no grant of this kind answers. */
function unanswered(hits: readonly RuleHit[], grant: Grant, question: GrantQuestion): RuleHit[] {
  if (grant.action !== undefined) return hits.filter((h) => !(h.rule === "action.irreversible" && h.value === grant.action));
  return coversCall(grant, question) ? [] : [...hits];
}

/**
 * The grants that together answer every rule this decision breaks, or undefined when some rule is
 * left: a call grant answers all of them for the values it names, an action grant its own action.
 * Expired grants and grants from a scope the call is not in answer nothing.
 */
export function answeringGrants(grants: Iterable<Grant>, question: GrantQuestion, now: number): Grant[] | undefined {
  let left: RuleHit[] = [...question.decision.rules];
  if (left.length === 0 || !left.every((h) => CALL_RULES.has(h.rule) || h.rule === "action.irreversible")) return undefined;
  const used: Grant[] = [];
  for (const grant of grants) {
    if (!live(grant, now) || !inScope(grant, question)) continue;
    const rest = unanswered(left, grant, question);
    if (rest.length < left.length) {
      used.push(grant);
      left = rest;
      if (left.length === 0) return used;
    }
  }
  return undefined;
}

/** Not expired, and not made in what the clock now says is the future (a clock set back). */
export function live(grant: Grant, now: number): boolean {
  if (grant.createdAt > now + CLOCK_SLACK_MS) return false;
  return grant.expiresAt === undefined || grant.expiresAt > now;
}

/** How far a grant's creation may sit in the future before the clock counts as set back. */
export const CLOCK_SLACK_MS = 5 * 60_000;

/** `24h`, `30m`, `7d`, `90s` → milliseconds; undefined for anything else. */
export function parseDuration(text: string): number | undefined {
  const m = /^(\d{1,6})\s*(s|m|h|d)$/i.exec(text.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  if (n <= 0) return undefined;
  const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2].toLowerCase() as "s" | "m" | "h" | "d"];
  return n * unit;
}

/** What binds a build's or test's grant to its tree, in words (prompt and `/clawos grants`). */
export const TREE_BOUND_TEXT = "while no less trusted session adds code to the tree it runs";

/** A duration in words a person reads: `24 h`, `30 min`, `2 d`. */
export function formatDuration(ms: number): string {
  if (ms % 86_400_000 === 0 && ms >= 2 * 86_400_000) return `${ms / 86_400_000} d`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Math.round(ms / 1000)} s`;
}
