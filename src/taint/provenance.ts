import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { isRegularFile, type FileCopy } from "../policy/touches.ts";
import { RUNTIME_PATH } from "../policy/commands/classify.ts";
import type { ArgumentRole } from "../policy/manifest-schema.ts";
import { holdsSecret, redactString } from "../audit/redact.ts";
import { recordHooks } from "./git-hooks.ts";
import { checkScope, fileHead, loadedFromAbove, type ScopeTree } from "./check-scope.ts";
import { codeLevel, GIT_DIR_PART, type FileLabel, type FileLabels } from "./file-labels.ts";
import type { SessionStore, SessionTrust } from "./session-store.ts";
import { meetsTrust, minTrust, trustRank, type TrustLevel } from "./trust.ts";
import {
  argumentForms,
  internationalNumber,
  isThisMachine,
  isTrivialText,
  normalizePath,
  onPrivateNetwork,
  personNames,
  portsIn,
  privateShortName,
  scanValues,
  secretValues,
} from "./values.ts";
import { valueHasher, type ValueHasher, type ValueIndex, type ValueSource } from "./value-index.ts";

/**
 * L1 at value level: the values each session saw and the trust of their inputs, and the trust of
 * files by what ClawOS saw written to them. The gate asks it for the verdict of an argument; it
 * never reads trust from text, only which values a text names.
 */

/**
 * Files only the kernel or the system's packages write, holding facts about the machine (memory,
 * CPUs, load, the OS release): no text anyone else chose. Read as the owner's input, like a
 * trusted path, unless ClawOS saw a less trusted write to them. Not a trusted path otherwise (a new
 * file is not made there).
 */
const SYSTEM_FACTS =
  /^(?:\/proc\/(?:meminfo|cpuinfo|loadavg|uptime|version|stat|swaps|partitions|filesystems)|\/(?:usr\/lib|etc)\/os-release|\/etc\/(?:lsb-release|debian_version|redhat-release|alpine-release|hostname|timezone))$/;

export type UnknownPolicy = "tainted" | "allow" | "new-files";

export interface ProvenanceSettings {
  readonly enabled: boolean;
  readonly scanBytes: number;
  readonly unknown: Readonly<Record<ArgumentRole, UnknownPolicy>>;
  /** A path counts as owner input by its location (the trusted paths), unless a label says less. */
  readonly trusted: (path: string, agentId: string | undefined) => boolean;
  /** A path is the host's own configuration (`provenance.systemConfig`): owner input like a trusted path. */
  readonly systemConfig: (path: string) => boolean;
  /** A path holds installed dependencies (`provenance.untrustedPaths`): others' text, but code the project runs. */
  readonly installed: (path: string, agentId: string | undefined) => boolean;
  /** What a path is when programs load it by themselves (`autoloaded-paths.ts`), else undefined. */
  readonly autoloaded: (path: string, agentId: string | undefined) => string | undefined;
  /** What a path is when OpenClaw writes it from conversations (`host-written-paths.ts`), else undefined. */
  readonly hostWritten: (path: string, agentId: string | undefined) => string | undefined;
  /** Whether a file of this name makes its directory part of a project (`autoloaded-paths.ts`). */
  readonly projectFile: (name: string) => boolean;
  /** The agent's workspace (where OpenClaw keeps those files). */
  readonly workspace: (agentId: string | undefined) => string;
  /** The home directory the host resolves `~` to (where git keeps the user's settings). */
  readonly home: string;
}

export type Verdict = "endorsed" | "tainted" | "unknown";

/** A name or address in a lookup's entry that a person's message held: that person picked the entry. */
export interface Namer {
  readonly level: TrustLevel;
  /** The name as normalised ("sofia"). */
  readonly word: string;
  readonly source: ValueSource;
}

/** One security-relevant argument of a call, and where its value came from. */
export interface ArgumentVerdict {
  /** Where the argument sits, as the manifest names it. */
  readonly argument: string;
  readonly role: ArgumentRole;
  /** The value, shortened and with secrets redacted. */
  readonly value: string;
  readonly verdict: Verdict;
  /** The verdict lets the call go ahead (endorsed, or unknown where the role's policy allows). */
  readonly allowed: boolean;
  /** The highest trust of an input the value was seen in. */
  readonly level?: TrustLevel;
  /** The input that brought it in (for a tainted value: the most trusted input it was seen in). */
  readonly source?: string;
  readonly callId?: string;
  /** Why an unknown value was allowed (a new file), or why a path was not taken as one. */
  readonly note?: string;
  /** A payment the session already made, asked for again (`SessionTaint.repeatedPayment`). */
  readonly repeats?: true;
}

/** An argument's value as the gate read it: raw, and for paths the forms the host resolves it to. */
export interface ArgumentValue {
  readonly argument: string;
  readonly role: ArgumentRole;
  readonly raw: string;
  /** Absolute forms of a path argument (spelled, symlinks followed). */
  readonly resolved?: readonly string[];
  /** The manifest allows a less-trusted value copied whole from an input (`tainted: "copied"`). */
  readonly copied?: boolean;
  /** The path relative to the agent's workspace, when it is inside it. */
  readonly relative?: string;
  /** A path the call reads (`access: "read"`): it names a file that is there, never a new one. */
  readonly reads?: boolean;
  /** For a recipient: the channel the call names to send on (its `channel` argument), if any. */
  readonly channel?: string;
}

const VALUE_SHOWN = 120;
/** Source code by its extension, as a build or a test runner would take it. */
const SOURCE_CODE =
  /\.(?:py|pyw|pyi|pth|js|mjs|cjs|jsx|ts|mts|cts|tsx|vue|svelte|astro|mdx|sh|bash|zsh|fish|ps1|bat|cmd|go|rs|rb|php|pl|pm|java|kt|kts|scala|groovy|gradle|swift|m|mm|c|cc|cpp|cxx|h|hpp|cs|fs|fsx|vb|lua|ex|exs|erl|hs|ml|clj|dart|jl|r|zig|nim|wasm|node|so|dylib|dll|jar|pyc|whl)$/i;
/**
 * Data by its extension: outside a check's scope, a program loads it as data, not as code (see
 * `Provenance.ownTree`; a manifest or a tool's settings among these still counts).
 */
const DATA = /\.(?:json|jsonl|ndjson|geojson|ya?ml|xml|toml|ini|cfg|conf|parquet|sqlite3?|db)$/i;
/** An attachment pytest collects as a doctest by its name (`--doctest-glob`'s default, `test*.txt`). */
const RECEIVED_DOCTEST = /^test[^/]*\.txt$/i;
/** Attachments looked at for code; past it, the directory counts as holding some. */
const MAX_RECEIVED_LOOKED_AT = 2_000;
/** Inputs that come from a person (or a parent session) rather than from a tool's output. */
const PERSON_KINDS: ReadonlySet<string> = new Set(["requester", "message", "subagent"]);
const MAX_STRINGS = 20_000;

export class Provenance {
  private readonly store: SessionStore;
  readonly labels: FileLabels;
  private readonly hasher: ValueHasher;
  /** The value index's mark that a session read a secret (`noteSecrets`). */
  private readonly secretMark: ReturnType<ValueHasher["hash"]>;
  /** Marks of the lengths of the secrets a session read, by length (`within`). */
  private readonly lengthMarks: ReadonlyArray<ReturnType<ValueHasher["hash"]> | undefined>;
  /**
   * The buckets of the starts of a session's secrets (`startBucket`), in memory only, for an index
   * all of whose secrets were noted here: `within` looks only where one starts. An index without
   * them (secrets noted before a restart) is looked through everywhere.
   */
  private readonly starts = new WeakMap<ValueIndex, Uint32Array>();
  /** A secret's hash from a stretch of a text. */
  private readonly secretAt: ReturnType<ValueHasher["keyed"]>;
  /** The lengths of a session's secrets (`lengthMarks`), kept until its index changes (`secretScan`). */
  private readonly lengths = new WeakMap<ValueIndex, { changes: number; lengths: readonly number[] }>();
  settings: ProvenanceSettings;

  constructor(store: SessionStore, labels: FileLabels, settings: ProvenanceSettings) {
    this.store = store;
    this.labels = labels;
    this.settings = settings;
    this.hasher = valueHasher(store.valueSeed());
    this.secretMark = this.hasher.hash(SECRET_KEY);
    this.lengthMarks = Array.from({ length: MAX_SECRET_WINDOW + 1 }, (_, n) => (n >= MIN_SECRET_WINDOW ? this.hasher.hash(`${SECRET_KEY}#${n}`) : undefined));
    this.secretAt = this.hasher.keyed(SECRET_KEY);
  }

  /**
   * Notes the values a message or result names, at the trust of that input. Returns whether the
   * input was trivial (nothing in it can carry an instruction). `echoed`: a text the call itself
   * wrote (a command line) and its trust: a value of the result that it also names may be only an
   * echo of it (`ls: cannot access '<value>'`), so it counts at no more than that trust.
   */
  noteContent(state: SessionTrust, content: unknown, level: TrustLevel, source: ValueSource, dir?: string, echoed?: EchoedValues): boolean {
    const text = textOf(content, this.settings.scanBytes);
    if (isTrivialText(text) && !carriesMedia(content)) return true;
    if (!this.settings.enabled) return false;
    const index = this.store.valuesOf(state);
    const echoes = echoed && trustRank(echoed.level) < trustRank(level) ? this.valueKeys(echoed.text) : undefined;
    let changed = false;
    scanValues(
      text,
      (value) => {
        const h = this.hasher.hash(value);
        const at = echoes?.has(`${h[0]}:${h[1]}`) ? (echoed as EchoedValues).level : level;
        if (index.add(h, at, source)) changed = true;
      },
      this.settings.scanBytes,
      dir,
    );
    // Ports written as ports, apart from other numbers (`lookup`: this machine named without one).
    if (text.length > 0) for (const port of portsIn(text)) if (index.add(this.hasher.hash(`${PORT_KEY}${port}`), level, source)) changed = true;
    if (changed) this.store.valuesChanged(state);
    return false;
  }

  /**
   * The values a command line names, as keys of their hashes: as written, and with quotes and
   * escapes taken out and option values split off (`NL18''RABO...`, `--group-separator=<value>`,
   * `--time-style=+<value>`), as the program sees its words.
   */
  private valueKeys(text: string): Set<string> {
    const keys = new Set<string>();
    const add = (value: string) => {
      const h = this.hasher.hash(value);
      keys.add(`${h[0]}:${h[1]}`);
    };
    scanValues(text, add);
    const words = text.replace(/["'\\`]/g, "").replace(/[=+:,;|&(){}<>]/g, " ");
    if (words !== text) scanValues(words, add);
    return keys;
  }

  /**
   * Notes the secret values an input holds (`secretValues`: secret settings' values wherever they
   * appear; with `whole`, a secret file's, its long words too), by hash only: a URL endorsed by its
   * host alone may not carry one (`carriesSecret`), whatever it looks like.
   */
  noteSecrets(state: SessionTrust, content: unknown, source: ValueSource, whole: boolean): void {
    if (!this.settings.enabled) return;
    let index: ValueIndex | undefined;
    let starts: Uint32Array | undefined;
    let changed = false;
    secretValues(
      textOf(content, this.settings.scanBytes),
      (value) => {
        if (!index) {
          index = this.store.valuesOf(state);
          // Starts are kept for an index whose first secret is noted here.
          starts = this.starts.get(index);
          if (!starts && index.get(this.secretMark) === undefined) this.starts.set(index, (starts = new Uint32Array(START_BUCKETS / 32)));
          // The mark that the session holds secrets at all (`secretsIn` looks only then).
          if (index.add(this.secretMark, source.level, source)) changed = true;
        }
        if (index.add(this.hasher.hash(`${SECRET_KEY}${value}`), source.level, source)) changed = true;
        // The value's length and its start, so that `within` knows which stretches of a text to look up.
        const mark = this.lengthMarks[value.length];
        if (mark && index.add(mark, source.level, source)) changed = true;
        if (starts) {
          const bucket = startBucket(value.charCodeAt(0), value.charCodeAt(1), value.charCodeAt(2));
          starts[bucket >>> 5] = (starts[bucket >>> 5] as number) | (1 << (bucket & 31));
        }
      },
      whole,
    );
    if (changed) this.store.valuesChanged(state);
  }

  /**
   * The secret values the session read (`noteSecrets`) that a call's parameters hold, as written
   * there (escaped, encoded or backwards, the word that holds it): its prose and audit lines show
   * them `[redacted]`. Looked for only in a session that read one: anywhere in the first
   * `MAX_WINDOW_TEXT` characters of the parameters' strings (`within`), then word by word up to
   * `SECRET_SCAN`. A secret read backwards is one of the values noted (`noteSecrets`); a session
   * noted before it was is also read backwards.
   */
  secretsIn(state: SessionTrust | undefined, params: unknown): string[] | undefined {
    const index = state?.values;
    if (!index || index.get(this.secretMark) === undefined) return undefined;
    const found = new Set<string>();
    const scan = this.secretScan(index);
    const text = textOf(params, SECRET_SCAN);
    // Anywhere in the text, and in it read backwards (`rev`; turned before it is lowercased, as
    // the secret was: `İ` lowercases to two characters).
    const head = text.slice(0, MAX_WINDOW_TEXT);
    for (const [written, back] of [
      [head, false],
      [reversed(head), true],
    ] as const) {
      for (let at = 0; ; ) {
        const hit = this.within(index, written, scan, at);
        if (!hit) break;
        found.add(back ? reversed(asWritten(written, hit)) : asWritten(written, hit));
        at = hit.at + hit.value.length;
      }
    }
    const check = (piece: string) => {
      const lowered = piece.toLowerCase();
      return index.get(this.secretAt(lowered, 0, lowered.length)) !== undefined;
    };
    const holds = (form: string) => check(form) || form.split(DECODED_WORDS).some((piece) => piece.length >= MIN_SECRET_WINDOW && check(piece));
    // The shortest secret, and what it becomes in base64 (hex is longer): a shorter word cannot
    // hold one with text around it, or encoded. (Only known when every secret's length is.)
    const shortest = scan.starts ? (scan.lengths[0] ?? MAX_SECRET_WINDOW) : MIN_SECRET_WINDOW;
    const encodedLength = Math.max(MIN_ENCODED, Math.ceil((shortest * 4) / 3));
    const looked = new Set<string>();
    for (let at = 0; at < text.length; ) {
      // The next word (what `isWordBreak` separates), if it is long enough to hold a secret.
      while (at < text.length && isWordBreak(text.charCodeAt(at))) at++;
      const start = at;
      while (at < text.length && !isWordBreak(text.charCodeAt(at))) at++;
      if (at - start < MIN_SECRET_WINDOW) continue;
      const word = text.slice(start, at);
      if (looked.has(word)) continue;
      looked.add(word);
      if (check(word)) found.add(word);
      for (const piece of word.split(/[:|=,;]+/)) if (piece !== word && piece.length >= MIN_SECRET_WINDOW && check(piece)) found.add(piece);
      // With text around it in the word, as written or turned around, past the part looked through
      // above: the secret as the word writes it.
      const decoded = word.includes("%") ? lenientDecode(word) : word;
      const back = reversed(decoded);
      if (decoded === word && word.length > shortest && at > MAX_WINDOW_TEXT) {
        const ahead = this.within(index, word, scan);
        if (ahead) found.add(asWritten(word, ahead));
        const behind = this.within(index, back, scan);
        if (behind) found.add(reversed(asWritten(back, behind)));
      }
      // Escaped, turned around or encoded: the word as written is the secret.
      if (
        (decoded !== word && (holds(decoded) || this.within(index, decoded, scan) || this.within(index, back, scan))) ||
        holds(back) ||
        (decoded.length >= encodedLength && encodedForms(decoded).some((form) => holds(form) || this.within(index, form, scan)))
      ) {
        found.add(word);
      }
    }
    if (found.size === 0) return undefined;
    // One form of each value (hiding ignores case), and the longest first: a word that holds one.
    const seen = new Set<string>();
    return [...found].sort((a, b) => b.length - a.length).filter((v) => !seen.has(v.toLowerCase()) && seen.add(v.toLowerCase()));
  }

  /** The input that brought in a secret file's value a URL carries in its path or query (`noteSecrets`), if any. */
  private secretCarried(state: SessionTrust, url: string): { source: ValueSource; value: string } | undefined {
    const index = state.values;
    if (!index || index.get(this.secretMark) === undefined) return undefined;
    // Everything after the host: a path, or a query or fragment straight after it (`https://x?p=...`).
    const authority = url.indexOf("//") + 2;
    const after = url.slice(authority).search(/[/?#]/);
    if (after < 0) return undefined;
    const raw = url.slice(authority + after);
    const rest = lenientDecode(raw.replace(/\+/g, " "));
    // Path segments and query values, and path segments and query names: neighbours in each are joined below.
    const query = rest.indexOf("?");
    const path = (query < 0 ? rest : rest.slice(0, query)).split(/[/;#,]/);
    const pairs = query < 0 ? [] : rest.slice(query + 1).split(/[&#;,]/);
    const values = path.concat(pairs.map((pair) => pair.slice(pair.indexOf("=") + 1)));
    const names = pairs.map((pair) => (pair.includes("=") ? pair.slice(0, pair.indexOf("=")) : ""));
    const find = (piece: string) => {
      if (piece.length < 6) return undefined;
      const hit = index.get(this.hasher.hash(`${SECRET_KEY}${piece.toLowerCase()}`));
      return hit ? { source: hit.source ?? { level: hit.level, label: "a secret the session read" }, value: piece } : undefined;
    };
    // Texts looked through for a secret anywhere in them (`within`): the URL read unescaped, as
    // written (a `+` of base64 kept), and what its parts, their words and runs decode to.
    const texts = [rest, lenientDecode(raw)];
    for (const parts of [values.slice(0, MAX_URL_SECRET_PARTS), names.slice(0, MAX_URL_SECRET_PARTS)]) {
      for (let i = 0; i < parts.length; i++) {
        // Each part, its words (a value sent with a label: `pw:Wint3r-Birch-22`), and it joined with
        // the parts after it (a value split over them: `?a=Larch-Orb&b=it-5521`).
        const part = parts[i] as string;
        for (const piece of [part, ...part.split(/[\s:|=.]+/)]) {
          const found = find(piece);
          if (found) return found;
          // The piece encoded or turned around (`base64`, `xxd -p`, `rev`), once or twice: the value inside it.
          if (piece.length >= 6) for (const once of decodings(piece)) texts.push(once, ...(once.length >= MIN_ENCODED ? decodings(once) : []));
        }
        let run = part;
        let joined = part;
        for (let j = i + 1; j < parts.length && j - i < MAX_SECRET_RUN; j++) {
          run += parts[j];
          joined += `/${parts[j]}`;
          const found = find(run);
          if (found) return found;
          if (run.length >= MIN_ENCODED) texts.push(...decodings(run), ...decodings(joined));
        }
      }
    }
    const scan = this.secretScan(index);
    for (const text of texts) {
      const found = this.within(index, text, scan);
      if (found) return { source: found.source, value: found.value };
    }
    return undefined;
  }

  /** The lengths and starts of the secrets a session noted (`noteSecrets`); the lengths read off its index once per change. */
  private secretScan(index: ValueIndex): SecretScan {
    const starts = this.starts.get(index);
    const kept = this.lengths.get(index);
    if (kept && kept.changes === index.changes) return { lengths: kept.lengths, starts };
    const lengths: number[] = [];
    for (let n = MIN_SECRET_WINDOW; n <= MAX_SECRET_WINDOW; n++) if (index.get(this.lengthMarks[n] as [number, number]) !== undefined) lengths.push(n);
    this.lengths.set(index, { changes: index.changes, lengths });
    return { lengths, starts };
  }

  /**
   * A secret the session read found anywhere in a text from `from`, by the starts and lengths of
   * the secrets it noted (`noteSecrets`): where a secret's start is, the stretch of each such length
   * is looked up, so a secret with text around it (`pw-Wint3r-Birch-22.json`) is found too.
   */
  private within(index: ValueIndex, text: string, scan: SecretScan, from = 0): { source: ValueSource; value: string; at: number } | undefined {
    const { lengths, starts } = scan;
    const shortest = lengths[0];
    if (shortest === undefined || text.length - from < shortest) return undefined;
    const lower = text.length > MAX_WINDOW_TEXT ? text.slice(0, MAX_WINDOW_TEXT).toLowerCase() : text.toLowerCase();
    // The three characters at `i` (`startBucket`), read one new character a step.
    let second = lower.charCodeAt(from);
    let third = lower.charCodeAt(from + 1);
    for (let i = from; i + shortest <= lower.length; i++) {
      const first = second;
      second = third;
      third = lower.charCodeAt(i + 2);
      // Only where a noted secret starts (everywhere in a session whose starts are not known).
      if (starts) {
        const bucket = startBucket(first, second, third);
        if (((starts[bucket >>> 5] as number) & (1 << (bucket & 31))) === 0) continue;
      }
      for (const n of lengths) {
        if (i + n > lower.length) break;
        const hit = index.get(this.secretAt(lower, i, i + n));
        if (hit) return { source: hit.source ?? { level: hit.level, label: "a secret the session read" }, value: lower.slice(i, i + n), at: i };
      }
    }
    return undefined;
  }

  /**
   * Notes identifiers a lookup found (`provenance.selects`) at the trust of whoever chose the lookup.
   * Each is scanned on its own, so a short id or a bare number counts too.
   */
  noteSelected(state: SessionTrust, values: readonly string[], level: TrustLevel, source: ValueSource): void {
    if (!this.settings.enabled || values.length === 0) return;
    const index = this.store.valuesOf(state);
    let changed = false;
    for (const value of values) {
      scanValues(value, (form) => {
        if (index.add(this.hasher.hash(form), level, source)) changed = true;
      });
    }
    if (changed) this.store.valuesChanged(state);
  }

  /**
   * Notes the words of a person's message that can name an entry (`personNames`), apart from its
   * values: what `namers` looks up.
   */
  noteNames(state: SessionTrust, text: string, level: TrustLevel, source: ValueSource): void {
    if (!this.settings.enabled) return;
    const names = personNames(text.slice(0, this.settings.scanBytes));
    if (names.length === 0) return;
    const index = this.store.valuesOf(state);
    let changed = false;
    for (const name of names) if (index.add(this.hasher.hash(`${NAME_KEY}${name}`), level, source)) changed = true;
    if (changed) this.store.valuesChanged(state);
  }

  /**
   * Notes a payment the session made (`paymentNotes`), once the call's result came back without an
   * error: what `paid` finds.
   */
  notePayment(state: SessionTrust, keys: readonly string[], source: ValueSource): void {
    if (!this.settings.enabled) return;
    const index = this.store.valuesOf(state);
    let changed = false;
    for (const key of keys) if (index.add(this.hasher.hash(`${PAID_KEY}${key}`), "owner", source)) changed = true;
    if (changed) this.store.valuesChanged(state);
  }

  /** The call that made a payment noted under `key` (`paymentNotes`) in the session, if one did. */
  paid(state: SessionTrust, key: string): ValueSource | undefined {
    const hit = state.values?.get(this.hasher.hash(`${PAID_KEY}${key}`));
    return hit ? (hit.source ?? { level: hit.level, label: "an earlier call" }) : undefined;
  }

  /**
   * Which of an entry's names (`namingValues` of its fields: a sender, a card's name) a person's
   * message named (the owner's, a requester's; `noteNames`, or with `anyWord` any word it held),
   * each at the trust of the most trusted such message. A tool's output never names: the point is
   * that a person picked the entry.
   */
  namers(state: SessionTrust, names: readonly string[], anyWord = false): Namer[] {
    const index = state.values;
    if (!this.settings.enabled || !index) return [];
    const out: Namer[] = [];
    for (const name of names) {
      const hit = index.get(this.hasher.hash(anyWord ? name : `${NAME_KEY}${name}`));
      if (hit?.source && hit.source.tool === undefined) out.push({ level: hit.level, word: name, source: hit.source });
    }
    return out;
  }

  /** The highest trust of an input a value was seen in, read as an argument value is; undefined if never seen. */
  levelOf(state: SessionTrust, raw: string): TrustLevel | undefined {
    return state.values ? this.lookup(state, { argument: "", role: "id", raw })?.level : undefined;
  }

  /** The verdict of one argument value at the trust the call needs. */
  verdict(state: SessionTrust | undefined, arg: ArgumentValue, required: TrustLevel, agentId?: string): ArgumentVerdict {
    const shown = shownValue(arg.raw);
    const hit = state?.values ? this.lookup(state, arg) : undefined;
    const base = { argument: arg.argument, role: arg.role, value: shown };
    if (hit) {
      const endorsed = meetsTrust(hit.level, required);
      const carried = endorsed && state !== undefined ? this.carriesSecret(state, arg, required) : undefined;
      if (carried) {
        return {
          ...base,
          // The value is shown without the secret it carries, even where it does not look like one.
          ...(carried === true ? {} : { value: shownValue(withoutSecret(arg.raw, carried.value)) }),
          verdict: "tainted",
          allowed: false,
          level: hit.level,
          ...(hit.source ? { source: hit.source.label, ...(hit.source.callId ? { callId: hit.source.callId } : {}) } : {}),
          note:
            carried === true
              ? `only its host came from ${hit.source?.label ?? "an input"} (${hit.level}); the session put the rest together, and it carries a value that looks like a key, a token or encoded data, which a request there would hand over`
              : `only its host came from ${hit.source?.label ?? "an input"} (${hit.level}); the session put the rest together, and it carries a secret the session read (${carried.source.label}${carried.source.callId ? `, call ${carried.source.callId}` : ""}), which a request there would hand over`,
        };
      }
      // A copy of a whole value as an input held it (not a value built around a host it named).
      const copied = !endorsed && arg.copied === true && state !== undefined && copiable(arg) && this.seenWhole(state, arg);
      return {
        ...base,
        verdict: endorsed ? "endorsed" : "tainted",
        allowed: endorsed || copied,
        level: hit.level,
        ...(hit.source ? { source: hit.source.label, ...(hit.source.callId ? { callId: hit.source.callId } : {}) } : {}),
        ...(copied ? { note: "copied whole from that input: it carries nothing the session put together" } : {}),
      };
    }
    const share = arg.role === "amount" && state?.values ? this.shareOf(state, arg.raw, required) : undefined;
    if (share) {
      return {
        ...base,
        verdict: "endorsed",
        allowed: true,
        level: share.hit.level,
        ...(share.hit.source ? { source: share.hit.source.label, ...(share.hit.source.callId ? { callId: share.hit.source.callId } : {}) } : {}),
        note: share.note,
      };
    }
    const policy = this.settings.unknown[arg.role] ?? "tainted";
    if (policy === "allow") return { ...base, verdict: "unknown", allowed: true };
    if (policy === "new-files" && arg.reads === true) {
      return { ...base, verdict: "unknown", allowed: false, note: "the call reads it, so it is not a new file; no input named it" };
    }
    if (policy === "new-files" && arg.resolved && arg.resolved.length > 0) {
      const file = this.writableFile(arg.resolved, state, required, agentId);
      return { ...base, verdict: "unknown", allowed: file.ok, note: file.note };
    }
    return { ...base, verdict: "unknown", allowed: false };
  }

  /**
   * Whether a session may write a path it made up (`new-files`): a file that does not exist yet, or
   * one ClawOS saw written at no more than the session's trust (nothing more trusted is lost), and
   * never a file programs load by themselves. What is written carries the session's trust.
   */
  private writableFile(
    forms: readonly string[],
    state: SessionTrust | undefined,
    required: TrustLevel,
    agentId: string | undefined,
  ): { ok: boolean; note: string } {
    // Only the model's own choice for the owner: where a person below the floor drives the session
    // (a stranger's message, a sub-agent's task), a path nobody named is that person's choice.
    const driver = drivenBelow(state, required);
    if (!state || driver) return { ok: false, note: `a person below ${required} drives this session (${driver}), so a made-up path is theirs` };
    const trust = state.trust;
    // Only in the owner's trusted paths (the workspace by default): elsewhere a new file can be a
    // program on the PATH or a dotfile something sources (~/bin/git, ~/.gitconfig, ~/.bash_aliases).
    if (!forms.every((path) => this.settings.trusted(path, agentId))) {
      return { ok: false, note: "it is outside the trusted paths (provenance.trustedPaths), where a new file can be one something runs" };
    }
    for (const path of forms) {
      const loaded = this.settings.autoloaded(path, agentId);
      if (loaded) return { ok: false, note: `programs load it by themselves (${loaded}), so a made-up path here is not taken as a new file` };
      // A name that starts with `-` becomes a flag to any command a pattern hands it to (`wc *`).
      // So does one after a space, to a command that splits names on white space (`ls | xargs sort`).
      if (path.split("/").some((part) => /(?:^|\s)-/.test(part))) {
        return { ok: false, note: "a name in it starts with - (or has one after a space), which a command given it reads as a flag" };
      }
    }
    const existing = forms.filter((p) => existsSync(p));
    if (existing.length === 0) return { ok: true, note: "a new file" };
    const low = existing.every((p) => {
      const label = this.labels.effective(p);
      return label !== undefined && trustRank(label.level) <= trustRank(trust);
    });
    if (low) return { ok: true, note: `a file ClawOS saw written at ${trust} or less` };
    return { ok: false, note: "the file exists and holds input more trusted than this session" };
  }

  /**
   * Whether a check of the project (`CommandView.projectCheck`) in `dir` runs only the owner's code:
   * the session is the owner's, the directory is one of the trusted paths, and nothing a session
   * below owner wrote is there for the check to run. In what the check runs for certain
   * (`checkScope`: its project, what its manifests, tools' settings and links name), every file
   * counts, documents included (a docs site's pages, Go's testscript files). Elsewhere in the
   * outermost trusted directory that holds `dir`, every file but data and documents counts
   * (source, files without an extension, clones and extractions, other projects' code; manifests,
   * tools' settings and what tools load from the directories above count whatever their
   * extension): a new file can win an import the owner's code makes by a path no manifest names
   * (`require("../common/x")` finds x.js before x/index.js). When the scope cannot be told, every
   * file there counts. The memory notes OpenClaw writes itself never do. The note says why not.
   */
  ownTree(dir: string, state: SessionTrust | undefined, required: TrustLevel, agentId: string | undefined): { ok: true } | { ok: false; note: string } {
    // Only the owner's own work: a check a stranger or a sub-agent's task asks for is theirs to ask.
    const driver = drivenBelow(state, required);
    if (driver) return { ok: false, note: `a person below ${required} drives this session (${driver})` };
    if (!this.labels.intact) return { ok: false, note: "the file labels could not be read, so what wrote its code is not known" };
    if (!this.settings.trusted(dir, agentId))
      return { ok: false, note: "it is outside the trusted paths (provenance.trustedPaths), so its code is not known to be the owner's" };
    const root = this.treeRoot(dir, agentId);
    const scope = checkScope(dir, root, this.settings.projectFile);
    const trees: readonly ScopeTree[] = scope?.trees ?? [{ dir: root }];
    const hostWritten = (path: string) => this.settings.hostWritten(path, agentId) !== undefined;
    let low: { path: string; label: FileLabel; where: string } | undefined;
    const consider = (found: { path: string; label: FileLabel } | undefined, where: string) => {
      if (found && (!low || trustRank(codeLevel(found.label)) < trustRank(codeLevel(low.label)))) low = { ...found, where };
    };
    for (const tree of trees) {
      const where =
        tree.namedBy !== undefined
          ? `${tree.dir}, which ${tree.namedBy} names,`
          : tree.dir === dir
            ? "it"
            : scope
              ? `${tree.dir}, its project,`
              : `${tree.dir}, where it runs,`;
      const received = this.receivedCode(tree.dir, agentId);
      if (received) return { ok: false, note: `${where} holds ${received}, which OpenClaw saved from a message (a test runner may collect it)` };
      consider(this.labels.lowestCodeUnder(tree.dir, "owner", true, hostWritten), where);
    }
    if (scope) {
      // Documents, media and logs are left out by the walk itself; data is left out here.
      const code = (path: string, label: FileLabel) =>
        label.tree === true || !DATA.test(path) || this.settings.projectFile(basename(path)) || loadedFromAbove(path, scope.above, this.settings.projectFile);
      consider(
        this.labels.lowestCodeUnder(root, "owner", false, (path, label) => hostWritten(path) || !code(path, label)),
        `${root}, where it runs (code there may be imported by a path no manifest names),`,
      );
    }
    if (!low) return { ok: true };
    const by = low.label.by ? `session ${low.label.by}` : "a session";
    return { ok: false, note: `${low.where} holds ${low.path}, which ${by} wrote at ${codeLevel(low.label)}` };
  }

  /**
   * Whether a record in the local repository (`CommandView.localRecord`: git add, git commit, a new
   * branch) whose git directory is `gitDir` stays the owner's: the session is the owner's, the work
   * tree is one of the trusted paths, and git runs no hook for it, or its hooks' tree is the owner's
   * (`ownTree`: a pre-commit hook runs the project's linters on what is staged). The record itself
   * only stores what the tree holds, whoever wrote it; the file labels say that, and a push is
   * decided on its own. The note says why not.
   */
  ownRecord(
    gitDir: string,
    paths: readonly string[],
    state: SessionTrust | undefined,
    required: TrustLevel,
    agentId: string | undefined,
  ): { ok: true } | { ok: false; note: string } {
    const driver = drivenBelow(state, required);
    if (driver) return { ok: false, note: `a person below ${required} drives this session (${driver})` };
    if (!this.labels.intact) return { ok: false, note: "the file labels could not be read, so what wrote the repository's hooks is not known" };
    if (basename(gitDir) !== ".git") return { ok: false, note: `its git directory ${gitDir} is not a work tree's own .git` };
    const root = dirname(gitDir);
    if (!this.settings.trusted(root, agentId))
      return { ok: false, note: "it is outside the trusted paths (provenance.trustedPaths), so it is not known to be the owner's" };
    // A directory takes in every file below it that .gitignore leaves (an environment file, a key): files are named.
    const dir = paths.find((path) => isDirectory(path));
    if (dir !== undefined)
      return {
        ok: false,
        note: `${dir} is a directory, and git add takes in every file below it that .gitignore leaves (a key, an environment file): name the files`,
      };
    // What git add takes in is what .gitignore leaves out: a lowered session's .gitignore (`!.env`)
    // picks it. A repository inside the tree that a lowered session made (a `.git` file pointing at a
    // directory it wrote) would be added as one, and git then runs its settings at every status.
    for (const { relative, label } of this.labels.under(root)) {
      if (label.level === "owner") continue;
      const by = label.by ? `session ${label.by}` : "a session";
      if (basename(relative) === ".gitignore")
        return { ok: false, note: `${join(root, relative)}, which ${by} wrote at ${label.level}, decides what git add takes in` };
      if (relative.split("/").indexOf(".git") > 0)
        return { ok: false, note: `${join(root, relative)}, which ${by} wrote at ${label.level}, makes a repository inside it` };
    }
    const hooks = recordHooks(gitDir, this.settings.home);
    if (hooks.kind === "none") return { ok: true };
    const runs =
      hooks.kind === "hooks"
        ? `its ${hooks.names.join(", ")} ${hooks.names.length > 1 ? "hooks" : "hook"} in ${hooks.dir} ${hooks.names.length > 1 ? "run" : "runs"}`
        : `${hooks.why}, so its hooks may run`;
    const own = this.ownTree(root, state, required, agentId);
    return own.ok ? own : { ok: false, note: `${runs}, and ${own.note}` };
  }

  /** The outermost trusted directory that holds `dir` (`dir` itself when its parent is not trusted). */
  treeRoot(dir: string, agentId: string | undefined): string {
    let root = dir;
    for (let up = dirname(root); up !== root && this.settings.trusted(up, agentId); up = dirname(up)) root = up;
    return root;
  }

  /** The trust of a file as input: its label, else owner in a trusted path, else `fallback`. */
  fileTrust(forms: readonly string[], agentId: string | undefined, fallback: TrustLevel): { level: TrustLevel; label?: FileLabel } {
    let level: TrustLevel = "owner";
    let label: FileLabel | undefined;
    for (const path of forms) {
      const l = this.labels.effective(path);
      if (l) {
        if (trustRank(l.level) < trustRank(level)) {
          level = l.level;
          label = l;
        }
        continue;
      }
      const byPlace =
        this.labels.intact && (this.settings.trusted(path, agentId) || SYSTEM_FACTS.test(path) || this.settings.systemConfig(path)) ? "owner" : fallback;
      level = minTrust(level, byPlace);
    }
    return { level: forms.length === 0 ? fallback : level, ...(label ? { label } : {}) };
  }

  /**
   * The trust of a file's content as a read brings it in: `fileTrust`, and `untrusted` at most for a
   * file OpenClaw also writes from conversations (`host-written-paths.ts`), whatever ClawOS saw
   * written to it before: the host may have added to it since. With `below`, a directory counts as
   * the files in it (a read that takes in what is below it: `grep -r`, `rg`, `cp -r`): the least
   * trusted file ClawOS saw written there, and OpenClaw's own notes when it holds the workspace.
   */
  readTrust(forms: readonly string[], agentId: string | undefined, fallback: TrustLevel, below = false): TrustLevel {
    let level = this.fileTrust(forms, agentId, fallback).level;
    if (forms.some((path) => this.settings.hostWritten(path, agentId) !== undefined)) level = minTrust(level, "untrusted");
    if (!below) return level;
    for (const dir of forms) {
      if (level === "untrusted") break;
      // Nothing is below a file, and the walk costs a pass over every label: only a directory (or a
      // path not there yet) is walked.
      if (isRegularFile(dir)) continue;
      const low = this.labels.lowestUnder(dir);
      if (low) level = minTrust(level, low.level);
      if (this.hostWrittenBelow(dir, agentId) !== undefined) level = "untrusted";
    }
    return level;
  }

  /**
   * A file a result quotes (`output: "cited"`): its text as it is now (the first 256 KB) and its
   * trust as a read takes it; undefined when it is not a regular file or cannot be read.
   */
  quotedFile(forms: readonly string[], agentId: string | undefined, fallback: TrustLevel): { text: string; level: TrustLevel } | undefined {
    const real = forms.at(-1);
    if (!real || !isRegularFile(real)) return undefined;
    const text = fileHead(real, QUOTED_FILE_BYTES);
    return text === undefined ? undefined : { text, level: this.readTrust(forms, agentId, fallback) };
  }

  /**
   * The trust of the names a listing of these paths shows (`ls`, `find`, `git status`): the
   * directory's own trust, and below it the least trusted file ClawOS saw written there. A name a
   * lowered session gave a new file (`notes/to attacker@evil.example`) is that session's word, not
   * the owner's, however trusted the directory; the listing itself still lowers nothing. `read`:
   * the paths' own trust as a read takes it (`readTrust`).
   */
  namesTrust(forms: readonly string[], read: TrustLevel): TrustLevel {
    let level = read;
    // No label at all, no name to doubt: no walk (a file's own label is in `read` already).
    if (this.labels.size === 0) return level;
    for (const dir of forms) {
      if (level === "untrusted") break;
      const low = this.labels.lowestUnder(dir);
      if (low) level = minTrust(level, low.level);
    }
    return level;
  }

  /**
   * A file of source code among the attachments OpenClaw saved in the workspace from messages
   * (`media/inbound/`, written without a tool call, so without a label), when `root` holds the
   * workspace: a test runner collects such a file by its name (pytest's `test_*.py`) whoever sent it.
   */
  private receivedCode(root: string, agentId: string | undefined): string | undefined {
    const workspace = this.settings.workspace(agentId);
    if (root !== workspace && !workspace.startsWith(root.endsWith("/") ? root : `${root}/`)) return undefined;
    const inbound = join(workspace, "media", "inbound");
    let names: string[];
    try {
      names = readdirSync(inbound, { recursive: true }) as string[];
    } catch {
      return undefined;
    }
    const code = names.slice(0, MAX_RECEIVED_LOOKED_AT).find((name) => SOURCE_CODE.test(name) || RECEIVED_DOCTEST.test(basename(name)));
    return code === undefined ? (names.length > MAX_RECEIVED_LOOKED_AT ? join(inbound, names[MAX_RECEIVED_LOOKED_AT]) : undefined) : join(inbound, code);
  }

  /**
   * What OpenClaw writes from conversations below a directory that holds the agent's workspace (the
   * workspace or one above it), if any of it exists: its label. Those files sit at the workspace's
   * top level, so its entries are all that is looked at.
   */
  private hostWrittenBelow(dir: string, agentId: string | undefined): string | undefined {
    const workspace = this.settings.workspace(agentId);
    if (dir !== workspace && !workspace.startsWith(dir.endsWith("/") ? dir : `${dir}/`)) return undefined;
    let names: string[];
    try {
      names = readdirSync(workspace);
    } catch {
      return undefined;
    }
    for (const name of names) {
      const label = this.settings.hostWritten(join(workspace, name), agentId);
      if (label !== undefined) return label;
    }
    return undefined;
  }

  /**
   * A copy carries what its source holds to where it lands (`cp`, `mv`, `rsync`): into a directory
   * under its own name, else as the destination. A source below owner as a whole (its own label, a
   * directory over it, its place, OpenClaw's notes in it), or a copy made by a lowered session,
   * labels all of the copy; otherwise each label below the source is carried to the same place
   * below the copy, and the owner's own files add none.
   */
  labelCopies(copies: readonly FileCopy[], sessionTrust: TrustLevel, at: number, by: string | undefined, agentId: string | undefined): void {
    for (const { from, to, into, contents } of copies) {
      const source = from.forms[0];
      const dest = to.forms[0];
      if (!dest) continue;
      if (RUNTIME_PATH.test(from.raw)) {
        // A source only run time names ($PWD/../x, find's {}, xargs' input) may be any file: where
        // it lands holds outside content. Its file name, when written out, says where it lands.
        const name = basename(from.raw.replace(/\/+$/, ""));
        const known = !contents && name && !RUNTIME_PATH.test(name) && name !== ".." && name !== ".";
        const lands = !contents && (into || isDirectory(dest)) ? (known ? join(dest, name) : dest) : dest;
        this.labels.set(lands, "untrusted", at, true, by);
        continue;
      }
      if (!source) continue;
      const lands = !contents && (into || isDirectory(dest)) ? join(dest, basename(source)) : dest;
      let whole = minTrust(sessionTrust, this.readTrust(from.forms, agentId, "untrusted"));
      if (this.hostWrittenBelow(source, agentId) !== undefined) whole = "untrusted";
      if (whole !== "owner") {
        this.labels.set(lands, whole, at, true, by);
        continue;
      }
      if (isRegularFile(source)) continue;
      // Collected first: setting labels while walking them would walk the new ones too.
      const carried = [...this.labels.under(source)].filter(({ label }) => label.level !== "owner");
      for (const { relative, label } of carried) this.labels.set(join(lands, relative), label.level, at, label.tree, by, label.code);
    }
  }

  /**
   * The lowest trust of what running code in a directory reads: the directory's files by their
   * labels. Installed dependencies count as the code the install chose: what they print when the
   * project runs them is theirs to print, as for dependencies installed where ClawOS did not see it.
   * So does what a fetch wrote into a git directory, unless the command runs git (`readsGit`),
   * which prints the commits it holds: a build does not read them.
   */
  treeTrust(dir: string, agentId: string | undefined, fallback: TrustLevel, readsGit = true): TrustLevel {
    const low = this.labels.lowestUnder(dir, (path) => this.settings.installed(path, agentId) || (!readsGit && GIT_DIR_PART.test(path)));
    const byPlace = this.labels.intact && this.settings.trusted(dir, agentId) ? "owner" : fallback;
    return low ? minTrust(low.level, byPlace) : byPlace;
  }

  /**
   * A URL endorsed by its host alone that carries a secret-looking value (`holdsSecret`: a key, a
   * token, a password, a long encoded blob; true) or a value of a secret file the session read
   * (`noteSecrets`; the input that brought it): the owner named where, not what is sent there, and a
   * form or a collector on a host the owner uses takes what a GET carries. Not when the whole URL
   * came from input at the trust needed, or (where the manifest allows copies) from any input: then
   * the session did not put it together.
   */
  private carriesSecret(state: SessionTrust, arg: ArgumentValue, required: TrustLevel): true | { source: ValueSource; value: string } | undefined {
    if (arg.role !== "url") return undefined;
    const carried = holdsSecret(arg.raw, { url: true }) ? true : this.secretCarried(state, arg.raw);
    if (!carried) return undefined;
    const first = argumentForms(arg.raw).whole[0];
    const whole = first === undefined ? undefined : state.values?.get(this.hasher.hash(first));
    return whole === undefined || (!meetsTrust(whole.level, required) && arg.copied !== true) ? carried : undefined;
  }

  /** Whether the value's own whole form (the full URL, not only its host) was seen in some input. */
  private seenWhole(state: SessionTrust, arg: ArgumentValue): boolean {
    const first = argumentForms(arg.raw).whole[0];
    const hit = first === undefined ? undefined : state.values?.get(this.hasher.hash(first));
    // A link a command printed may be one the session built from what it read (`printf 'https://x/?d=%s' "$(base64 < .env)"`).
    return hit !== undefined && hit.source?.computed !== true;
  }

  /**
   * An amount no input held that is a share of one that input at the required trust held: "half of
   * the €825 deposit" pays 412.50. Only shares of up to 1/MAX_SHARE, cents rounded either way, and
   * never a multiple: what a page can make of a sum the owner gave is less of it, to a recipient
   * decided by its own argument.
   */
  private shareOf(state: SessionTrust, raw: string, required: TrustLevel): { hit: { level: TrustLevel; source?: ValueSource }; note: string } | undefined {
    const index = state.values;
    const cents = centsOf(argumentForms(raw).whole[0]);
    if (!index || cents === undefined || cents <= 0) return undefined;
    for (let n = 2; n <= MAX_SHARE; n++) {
      for (let off = 0; off <= n >> 1; off++) {
        for (const whole of off === 0 ? [cents * n] : [cents * n - off, cents * n + off]) {
          if (Math.round(whole / n) !== cents) continue;
          const hit = index.get(this.hasher.hash(formOfCents(whole)));
          if (hit && meetsTrust(hit.level, required)) {
            return { hit, note: `1/${n} of ${formOfCents(whole)}, which came from ${hit.source?.label ?? "an input"}` };
          }
        }
      }
    }
    return undefined;
  }

  private lookup(state: SessionTrust, arg: ArgumentValue): { level: TrustLevel; source?: ValueSource } | undefined {
    const index = state.values;
    if (!index) return undefined;
    let best: { level: TrustLevel; source?: ValueSource } | undefined;
    const consider = (form: string) => {
      const hit = index.get(this.hasher.hash(form));
      if (hit && (!best || trustRank(hit.level) > trustRank(best.level))) best = hit;
    };
    const { whole, words } = argumentForms(arg.raw);
    // A web address's host names the site, not whoever its path names: only a URL or a host is
    // endorsed by its host (a recipient https://t.me/name is not endorsed by the owner's t.me page).
    // (A chat target's kind in front, `telegram:https://t.me/x`, does not make it any less a link.)
    const byHost = arg.role === "url" || arg.role === "host" || !LINK_INSIDE.test(arg.raw.trim());
    // A host argument on this machine (`ssh localhost`, `redis-cli -h 127.0.0.1`) is not another
    // host: a command there runs here, on a port the argument does not say. Only the owner can tell.
    const here = arg.role === "host" && isThisMachine(arg.raw);
    // A number dialled from abroad counts only as written with its country code: the same digits
    // written as a national number are another country's (`internationalNumber`).
    const abroad = arg.role === "recipient" || arg.role === "account" ? internationalNumber(arg.raw) : undefined;
    const forms = abroad !== undefined ? [abroad] : whole;
    const looked = here ? [] : byHost ? forms : forms.slice(0, 1);
    for (const form of looked) {
      if (form.startsWith(LOCAL_ANY_PORT)) continue;
      consider(form);
    }
    // This machine named with no port (`localhost`, `127.0.0.1`) endorses a service on it only
    // together with its port, written as a port (`port: 5173`, `PORT=3000`, `--port`, a published
    // container port) in input at the trust needed, at the lower of the two, or the web's own ports
    // (80, 443): the gateway, a database or a container engine listens here too, and naming the
    // machine is not naming them.
    if (byHost && whole.includes(LOCAL_ANY_PORT)) {
      const machine = index.get(this.hasher.hash(LOCAL_ANY_PORT));
      const port = whole.find((form) => form.startsWith("localhost:") && form !== LOCAL_ANY_PORT)?.slice("localhost:".length);
      const web = port === "80" || port === "443";
      const portHit = port !== undefined && !web ? index.get(this.hasher.hash(`${PORT_KEY}${port}`)) : undefined;
      if (machine && (web || portHit)) {
        const hit = portHit && trustRank(portHit.level) < trustRank(machine.level) ? portHit : machine;
        if (!best || trustRank(hit.level) > trustRank(best.level)) best = hit;
      }
    }
    if (arg.relative !== undefined) consider(normalizePath(arg.relative).toLowerCase());
    for (const path of arg.resolved ?? []) consider(path.toLowerCase());
    // A host on a private network counts as named by its short name too: `ssh web-1` reaches the same machine.
    const short = arg.role === "host" ? privateShortName(arg.raw) : undefined;
    if (short !== undefined) consider(short);
    if (best || words.length === 0) return best;
    // A value of several words (a person's name) counts when every word was seen: at the lowest of them.
    let all: { level: TrustLevel; source?: ValueSource } | undefined;
    for (const forms of words) {
      let wordBest: { level: TrustLevel; source?: ValueSource } | undefined;
      for (const form of forms) {
        const hit = index.get(this.hasher.hash(form));
        if (hit && (!wordBest || trustRank(hit.level) > trustRank(wordBest.level))) wordBest = hit;
      }
      if (!wordBest) return undefined;
      if (!all || trustRank(wordBest.level) < trustRank(all.level)) all = wordBest;
    }
    return all;
  }
}

/** This machine named with no port, as the value index keeps it (`values.ts`, `thisMachine`). */
const LOCAL_ANY_PORT = "localhost:*";
/** Where a port written as one is kept in the value index (`portsIn`). */
const PORT_KEY = "\u0000port:";

/** The shortest and longest secret `within` looks for anywhere in a text (longer ones: whole pieces only). */
const MIN_SECRET_WINDOW = 6;
const MAX_SECRET_WINDOW = 128;
/** How much of one text `within` looks through. */
const MAX_WINDOW_TEXT = 4096;
/**
 * The buckets secrets' starts (their first three characters) fall in (`startBucket`), one bit
 * each: a stretch of text is hashed only when its start's bucket holds one.
 */
const START_BITS = 12;
const START_BUCKETS = 1 << START_BITS;

/** What `within` looks for: the lengths of a session's secrets, shortest first, and the buckets of their starts (unknown for secrets noted before a restart). */
interface SecretScan {
  readonly lengths: readonly number[];
  readonly starts: Uint32Array | undefined;
}

/** What `within` found as the text writes it (its case), where lowercasing kept the text's length. */
function asWritten(text: string, hit: { value: string; at: number }): string {
  const lower = text.length > MAX_WINDOW_TEXT ? text.slice(0, MAX_WINDOW_TEXT) : text;
  return lower.toLowerCase().length === lower.length ? lower.slice(hit.at, hit.at + hit.value.length) : hit.value;
}

/**
 * The bucket of three characters of a lowercased text, mixed so that the trigrams common in one
 * text (source code, prose) spread over all buckets.
 */
function startBucket(first: number, second: number, third: number): number {
  return Math.imul((first * 31 + second) * 31 + third, 0x9e3779b1) >>> (32 - START_BITS);
}

/**
 * The text read backwards, by characters: a surrogate pair stays in order, and so do combining
 * marks after their letter (`İ` lowercases to `i` and a combining dot, which must stay behind it).
 */
function reversed(text: string): string {
  // Latin-1 text has neither, and a long one is turned as bytes.
  if (text.length > 64 && !BEYOND_LATIN1.test(text)) return Buffer.from(text, "latin1").reverse().toString("latin1");
  let out = "";
  let marks = "";
  for (let i = text.length - 1; i >= 0; i--) {
    const c = text.charCodeAt(i);
    if (c >= 0x300 && c <= 0x36f) {
      marks = text[i] + marks;
      continue;
    }
    const pair = c >= 0xdc00 && c <= 0xdfff && i > 0 && text.charCodeAt(i - 1) >= 0xd800 && text.charCodeAt(i - 1) <= 0xdbff;
    out += (pair ? text[--i] + text[i + 1] : text[i]) + marks;
    marks = "";
  }
  return out + marks;
}

/** A character that is not Latin-1: `reversed` turns text without one as bytes. */
const BEYOND_LATIN1 = /[\u0100-\uffff]/;

/** Percent escapes decoded where they are valid UTF-8; the rest of the text as written. */
function lenientDecode(text: string): string {
  if (!text.includes("%")) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run;
      }
    });
  }
}

/** How much of a call's parameters `secretsIn` reads. */
const SECRET_SCAN = 16 * 1024;
/**
 * What separates the words of a call's parameters (`secretsIn`): white space (as a regular
 * expression's `\s` has it), quotes, and a URL's and a shell's punctuation.
 */
function isWordBreak(code: number): boolean {
  if (code < 128) return WORD_BREAKS[code] === 1;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}
const WORD_BREAKS = new Uint8Array(128);
for (const c of " \t\n\v\f\r\"'`?&/<>()[]{}$") WORD_BREAKS[c.charCodeAt(0)] = 1;
/** What separates a decoded value's words: a setting's name, quotes, JSON's punctuation, lines. */
const DECODED_WORDS = /[\s:|=&"'{},;]+/;
/** The shortest encoded part worth decoding: what six characters of a secret become. */
const MIN_ENCODED = 8;

/**
 * What a URL part may hold in another form: read backwards, and decoded from base64 (either
 * alphabet, padded or not) or hex when it is one and decodes to text. A secret sent that way is
 * still the secret.
 */
function decodings(written: string): string[] {
  return written.length >= 6 ? [reversed(written), ...encodedForms(written)] : [];
}

/** What a text decodes to from base64 or hex, and that read backwards (`decodings` without turning the text itself around). */
function encodedForms(written: string): string[] {
  const out: string[] = [];
  if (written.length < MIN_ENCODED) return out;
  // A `+` of base64 read as a space in a query.
  const part = written.includes(" ") && !/\s\S*\s/.test(written.trim()) ? written.replace(/ /g, "+") : written;
  const hex = /^0x/i.test(part) ? part.slice(2) : part;
  if (/^(?:[0-9a-f]{2})+$/i.test(hex)) {
    const text = printable(Buffer.from(hex, "hex"));
    if (text !== undefined) out.push(text, reversed(text));
  }
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(part) && part.replace(/=+$/, "").length % 4 !== 1) {
    const text = printable(Buffer.from(part.replace(/-/g, "+").replace(/_/g, "/"), "base64"));
    if (text !== undefined) out.push(text, reversed(text));
  }
  return out;
}

/** The bytes as text when they are printable UTF-8 (what an encoded secret or setting decodes to). */
function printable(bytes: Buffer): string | undefined {
  if (bytes.length < 4) return undefined;
  const text = bytes.toString("utf8");
  return /^[\t\n\r\x20-\x7e\u00a0-\uffff]+$/.test(text) && !text.includes("\ufffd") ? text : undefined;
}

/** A value written as a web address (scheme and `//`). */
/** A web address, maybe after a chat target's kind (`telegram:https://t.me/name`). */
const LINK_INSIDE = /^(?:[a-z][\w-]*:)?[a-z][a-z0-9+.-]*:\/\//i;

function shorten(text: string): string {
  return text.length > VALUE_SHOWN ? `${text.slice(0, VALUE_SHOWN - 1)}…` : text;
}

/** An argument's value as a verdict shows it: shortened, secrets redacted. */
export function shownValue(raw: string): string {
  return shorten(redactString(raw));
}

/**
 * Whether a value may be taken as a copy of an input (`tainted: copied`): a path, or a web address
 * on a public host. A `file:` or `data:` address, or one on this machine or a private network
 * (`localhost`, `127.0.0.1`, `169.254.169.254`, `10.x`, `*.internal`), is where a page cannot send
 * the agent by writing a link: the link reads what only this machine can reach.
 */
function copiable(arg: ArgumentValue): boolean {
  // A path argument given an address (view_image's image, pdf's pdf) is the address.
  if (arg.role !== "url" && !/^[a-z][a-z0-9+.-]*:/i.test(arg.raw.trim())) return true;
  let url: URL;
  try {
    url = new URL(arg.raw.trim());
  } catch {
    return false;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return false;
  return !onPrivateNetwork(url.hostname);
}

/**
 * Whether a result has a part that is not text (an image, audio, a resource): a model reads what is
 * in it, and none of it is text ClawOS can look at, so the result is never trivial.
 */
function carriesMedia(content: unknown): boolean {
  const parts = Array.isArray(content) ? content : (content as { content?: unknown } | undefined)?.content;
  if (!Array.isArray(parts)) return false;
  return parts.some(
    (part) => typeof part === "object" && part !== null && typeof (part as { type?: unknown }).type === "string" && (part as { type: string }).type !== "text",
  );
}

/**
 * The text of a message or a tool result: a string, or the string leaves of the host's result
 * object (`content[].text`, structured details), up to `limit` characters. Images' data is skipped.
 */
export function textOf(content: unknown, limit: number): string {
  if (typeof content === "string") return content.length > limit ? content.slice(0, limit) : content;
  const parts: string[] = [];
  let size = 0;
  let nodes = 0;
  const seen = new Set<object>();
  const walk = (node: unknown, key: string | undefined, depth: number): void => {
    if (size >= limit || nodes++ > MAX_STRINGS || depth > 12) return;
    if (typeof node === "string") {
      if (key === "type" || key === "mimeType" || key === "data") return;
      const piece = node.length > limit - size ? node.slice(0, limit - size) : node;
      parts.push(piece);
      size += piece.length + 1;
      return;
    }
    if (typeof node === "number" || typeof node === "bigint") {
      parts.push(String(node));
      size += 8;
      return;
    }
    if (!node || typeof node !== "object" || seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) for (const item of node) walk(item, undefined, depth + 1);
    else for (const [k, v] of Object.entries(node)) walk(v, k, depth + 1);
  };
  // The host's result object: its text content is what the model reads; structured details only when there is none.
  const record = content as { content?: unknown; details?: unknown } | undefined;
  if (record && typeof record === "object" && Array.isArray(record.content)) {
    walk(record.content, undefined, 0);
    if (parts.length === 0) walk(record.details, undefined, 0);
  } else walk(content, undefined, 0);
  return parts.join("\n");
}

/**
 * The structured records a tool result carries, where `provenance.selects` looks: an MCP tool's
 * `structuredContent`, the tool's own details, a text part that is a JSON document (up to `limit`
 * characters; one the host cut short gives its complete values), or the result itself when it is a
 * plain object. `bridged`: the result is Tool Search's `tool_call`, whose `{ tool, result }` wraps
 * the called tool's own result, which is read the same way.
 */
export function resultRecords(content: unknown, limit: number, bridged = false): unknown[] {
  return recordsIn(content, bridged, (text) => parsedJson(text, limit)) ?? [];
}

/**
 * The same records, each read whole, for a check that must see all of a result (`modes[].quotes`):
 * undefined when a text part is not one whole JSON document of at most `limit` characters (the host
 * cut it, or it is prose), so what it holds cannot be told.
 */
export function wholeResultRecords(content: unknown, limit: number, bridged = false): unknown[] | undefined {
  return recordsIn(content, bridged, (text) => {
    if (text.length > limit) return undefined;
    try {
      return [JSON.parse(text)];
    } catch {
      return undefined;
    }
  });
}

/** The walk both share; `parse` reads one text part, undefined when the result cannot be read. */
function recordsIn(content: unknown, bridged: boolean, parse: (text: string) => unknown[] | undefined): unknown[] | undefined {
  if (!content || typeof content !== "object") return typeof content === "string" ? parse(content) : [];
  const record = content as { content?: unknown; details?: unknown };
  if (!Array.isArray(record.content)) return [content];
  const out: unknown[] = [];
  const details = record.details as { structuredContent?: unknown } | undefined;
  if (details && typeof details === "object") {
    if (details.structuredContent && typeof details.structuredContent === "object") out.push(details.structuredContent);
    out.push(details);
  }
  for (const part of record.content) {
    const text = (part as { type?: unknown; text?: unknown } | undefined)?.text;
    if (typeof text !== "string") continue;
    const found = parse(text.startsWith("structuredContent:\n") ? text.slice(19) : text);
    if (!found) return undefined;
    out.push(...found);
  }
  if (!bridged) return out;
  // Tool Search's envelope, in its details or its text: the called tool's result inside.
  const inner: unknown[] = [];
  for (const r of out) {
    if (!isEnvelope(r)) continue;
    const found = recordsIn((r as { result: unknown }).result, false, parse);
    if (!found) return undefined;
    inner.push(...found);
  }
  return [...out, ...inner];
}

/** Tool Search's `tool_call` result: `{ tool, result }`, the called tool's own result inside. */
export function isEnvelope(r: unknown): boolean {
  const wrapped = (r as { tool?: unknown; result?: unknown } | undefined)?.result;
  return !!r && typeof r === "object" && !!(r as { tool?: unknown }).tool && !!wrapped && typeof wrapped === "object";
}

function parsedJson(text: string, limit: number): unknown[] {
  const t = text.trimStart();
  if (t.length > limit || (t[0] !== "{" && t[0] !== "[")) return [];
  try {
    return [JSON.parse(t)];
  } catch {
    const prefix = parsedPrefix(t);
    return prefix === undefined ? [] : [prefix];
  }
}

/**
 * A JSON document cut short (the host cuts a long text part and appends "…(truncated)…"): the
 * values complete before the cut, the containers left open closed. A value the cut went through
 * (a key cut to "agent:main:sc3") is left out, never kept in part.
 */
function parsedPrefix(text: string): unknown {
  const stack: string[] = [];
  let inString = false;
  let escaped = false;
  let cut = -1;
  let closers = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === "\\") escaped = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === "{") stack.push("}");
    else if (c === "[") stack.push("]");
    else if (c === "}" || c === "]") {
      if (stack.pop() !== c || stack.length === 0) return undefined;
      cut = i + 1;
      closers = stack.slice().reverse().join("");
    } else if (c === ",") {
      cut = i;
      closers = stack.slice().reverse().join("");
    }
  }
  if (cut < 0) return undefined;
  try {
    return JSON.parse(text.slice(0, cut) + closers);
  } catch {
    return undefined;
  }
}

/**
 * What the host's redaction leaves of a value it masks in structured results (a field named like a
 * secret: `key`, `token`, `session`...): "***", or the first 6 and last 4 characters around "…".
 */
export function isHostMask(value: string): boolean {
  return value === "***" || (value.length === 11 && value[6] === "\u2026");
}

export function isDirectory(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}

/** The smallest share of an amount taken as derived from it (1/9: a bill split nine ways); 1/10 would be a slipped decimal point. */
const MAX_SHARE = 9;

/** An amount's canonical form (`argumentForms`: no currency, no trailing zeros) in cents; undefined if it is not one. */
function centsOf(form: string | undefined): number | undefined {
  const m = form === undefined ? null : /^(\d{1,12})(?:\.(\d{1,2}))?$/.exec(form);
  if (!m) return undefined;
  return Number(m[1]) * 100 + Number((m[2] ?? "").padEnd(2, "0"));
}

/** Cents back to the canonical form the value index holds: 41250 → 412.5, 82500 → 825. */
function formOfCents(cents: number): string {
  const whole = Math.floor(cents / 100);
  const rest = cents % 100;
  if (rest === 0) return String(whole);
  return `${whole}.${String(rest).padStart(2, "0").replace(/0$/, "")}`;
}

/** A text a call wrote itself and the trust it was written at (see `Provenance.noteContent`). */
export interface EchoedValues {
  readonly text: string;
  readonly level: TrustLevel;
}

/**
 * Who drives a session below `required`, when a person does: a person's message below it (a
 * stranger's, a sub-agent's task), or the session started below it (a sub-agent, an unidentified
 * requester: no tool output is the reason for its trust). Undefined when only what tools returned
 * lowered it, so that the owner still drives it.
 */
function drivenBelow(state: SessionTrust | undefined, required: TrustLevel): string | undefined {
  if (!state) return "no session state";
  const driver = state.lowered.find((s) => PERSON_KINDS.has(s.kind) && trustRank(s.level) < trustRank(required));
  if (driver) return driver.label;
  const byOutput = state.lowered.some((s) => s.kind === "tool" && s.level === state.trust);
  return byOutput ? undefined : `it started at ${state.trust}`;
}

/** What sets a name a person wrote apart from the same word as a value in the value index. */
const NAME_KEY = "\u0000name:";
/** Where the payments a session made are kept in its value index (`notePayment`). */
const PAID_KEY = "\u0000paid:";

/** A payment a call makes: the normal forms of each account and recipient it names, and its amounts. */
export interface Payment {
  readonly accounts: readonly (readonly string[])[];
  /** Its amounts in their canonical forms (`argumentForms`), sorted and joined. */
  readonly amount: string;
}

/** The payment a call makes (`Payment`), or undefined when it names no amount. */
export function paymentOf(values: readonly ArgumentValue[]): Payment | undefined {
  const amounts = values.filter((v) => v.role === "amount" && v.raw.trim() !== "");
  if (amounts.length === 0) return undefined;
  // Every form an endorsement could match, the words of a value of several too ("IBAN NL69 ...").
  const forms = (v: ArgumentValue) => {
    const raw = v.raw.trim().replace(/[.,;:]+$/, "");
    const { whole, words } = argumentForms(raw);
    // And written without its spaces or a label in front ("IBAN: NL69 ABNA ...").
    const bare = raw.replace(/^[a-z]{2,12}:?\s+(?=\S*\d)/i, "").replace(/\s+/g, "");
    const all = [...whole, ...words.flat(), ...(bare !== raw ? argumentForms(bare).whole : [])];
    return all.length > 0 ? all : [raw.toLowerCase()];
  };
  const accounts = values.filter((v) => (v.role === "account" || v.role === "recipient") && v.raw.trim() !== "").map(forms);
  return {
    accounts,
    amount: amounts
      .map((v) => argumentForms(v.raw).whole[0] ?? v.raw.trim().toLowerCase())
      .sort()
      .join("\u0001"),
  };
}

/**
 * The keys a payment that was made is noted under (`Provenance.notePayment`): each form of each
 * account, alone and with the amount; for a tool that names no account, the amount and that a
 * payment was made at all.
 */
export function paymentNotes(payment: Payment): string[] {
  if (payment.accounts.length === 0) return ["any", `amount\u0000${payment.amount}`];
  const out: string[] = [];
  for (const forms of payment.accounts) for (const form of forms) out.push(`to\u0000${form}`, `to\u0000${form}\u0000${payment.amount}`);
  return out;
}
/** A URL with a secret file's value it carries shown as [redacted] (read unescaped when it was sent escaped). */
function withoutSecret(url: string, value: string): string {
  const pattern = new RegExp(value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "gi");
  if (pattern.test(url)) return url.replace(pattern, "[redacted]");
  const decoded = lenientDecode(url.replace(/\+/g, " "));
  if (pattern.test(decoded)) return decoded.replace(pattern, "[redacted]");
  // Encoded or split: show only where the URL goes.
  const authority = url.indexOf("//") + 2;
  const after = url.slice(authority).search(/[/?#]/);
  return after < 0 ? url : `${url.slice(0, authority + after)}/[redacted]`;
}

/** What sets a secret file's value apart from the same text as a value in the value index (`noteSecrets`). */
const SECRET_KEY = "\u0000secret:";
/** How many of a URL's parts are looked up for a secret file's values, and how many neighbours are joined. */
const MAX_URL_SECRET_PARTS = 64;
const MAX_SECRET_RUN = 8;

/** How much of a quoted file is read to find an excerpt in it (`Provenance.quotedTrust`). */
const QUOTED_FILE_BYTES = 256 * 1024;

/**
 * The excerpt `quote` makes of a file's `text` (the same words in the same order, spacing aside),
 * once a search's citation line naming this file (`Source: USER.md#L8-L9`) and the ellipses of a
 * cut excerpt are taken off its ends; undefined when the file does not hold it.
 */
export function quotedExcerpt(text: string, quote: string, path: string): string | undefined {
  const squeeze = (s: string) => s.replace(/\s+/g, " ").trim();
  const own = path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const cited = quote.replace(new RegExp(`\\n\\s*Source: ${own}(?:#L\\d+(?:-L\\d+)?)?\\s*$`), "");
  const excerpt = squeeze(cited.replace(/^(?:\.\.\.|…)/, "").replace(/(?:\.\.\.|…)$/, ""));
  return excerpt === "" || squeeze(text).includes(excerpt) ? excerpt : undefined;
}
