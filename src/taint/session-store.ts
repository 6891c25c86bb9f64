import { createHash, createHmac, hash, randomBytes, timingSafeEqual } from "node:crypto";
import { appendFileSync, mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { appendFile, unlink, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { LRUCache } from "lru-cache";
import { isResultLabel, resultLabel } from "./labels.ts";
import { isTrustLevel, minTrust, trustRank, TRUST_LEVELS, type TrustLevel } from "./trust.ts";
import type { RequesterTrust } from "./requester.ts";
import { ValueIndex } from "./value-index.ts";
import type { SurfaceFacts } from "./surfaces.ts";

/**
 * L1 session state: each session's input trust and the inputs that lowered it.
 * Memory is an LRU bounded by `maxSessions`; every trust change is written to disk before the
 * call that caused it returns, so a restart or an eviction never turns a tainted session clean.
 * State that exists but cannot be read makes the session `untrusted` (fail closed).
 */

/** What lowered a call's trust; `file` is a file a build or test runs (never stored with a session). */
export const TAINT_KINDS = ["requester", "message", "tool", "subagent", "state", "reset", "file"] as const;
export type TaintKind = (typeof TAINT_KINDS)[number];

export interface TaintSource {
  readonly level: TrustLevel;
  readonly kind: TaintKind;
  /** What entered, in words: "web_fetch result", "message from telegram:123". */
  readonly label: string;
  readonly tool?: string;
  readonly callId?: string;
  readonly at: number;
}

export interface SessionTrust extends SurfaceFacts {
  readonly key: string;
  trust: TrustLevel;
  /** The sources that lowered the trust, oldest first (at most one per level change). */
  lowered: TaintSource[];
  /** The most recent sources at or below the current trust, bounded per session. */
  recent: TaintSource[];
  /**
   * The lowest trust of results that entered only because audit mode let a would-block run.
   * Audit decisions ignore it so that audit and enforce decide a trace alike; enforce counts it,
   * so switching to enforce never forgets what entered.
   */
  shadow?: TrustLevel;
  /** Sub-agent link: the parent session, when known. */
  parent?: string;
  /** Why the durable state could not be used, when it could not. */
  stateError?: string;
  /** The values that entered the session and the trust of their inputs (provenance), once any did. */
  values?: ValueIndex;
  /**
   * Who the session's recent turns came from and why each got its level (for the report; kept in
   * memory only, the trust they caused is in `lowered`), most recent last.
   */
  requesters?: readonly RequesterTrust[];
  updatedAt: number;
}

export interface StoreOptions {
  /** Directory for durable state; undefined keeps state in memory only (tests, benchmarks). */
  dir?: string;
  maxSessions: number;
  maxSourcesPerSession: number;
  /** Values remembered per session (provenance). */
  maxValuesPerSession?: number;
  now?: () => number;
}

interface StoredRecord {
  v: 2;
  key: string;
  trust: TrustLevel;
  lowered: TaintSource[];
  recent: TaintSource[];
  shadow?: TrustLevel;
  parent?: string;
  values?: { table: string; sources: unknown[] };
  updatedAt: number;
}

export interface StoreHealth {
  writeErrors: number;
  lastWriteError?: string;
  readErrors: number;
  lastReadError?: string;
}

/**
 * A fact trust will depend on but that is not settled yet: a spawn whose child is not linked, a
 * channel message whose sender's owner status the next call settles. Journaled beside the state
 * directory so that a restart in between does not forget it.
 */
export type PendingFact =
  | { readonly t: "spawn"; readonly parent: string; readonly trust: TrustLevel; readonly at: number }
  | { readonly t: "linked"; readonly parent: string; readonly at: number }
  | { readonly t: "message"; readonly key: string; readonly channel?: string; readonly senderId?: string; readonly at: number }
  | { readonly t: "settled"; readonly key: string; readonly at: number }
  | { readonly t: "command"; readonly key: string; readonly channel?: string; readonly senderId?: string; readonly at: number }
  /** A label or agent id given to an external harness at its spawn: it names that harness for as long as the host keeps it. */
  | { readonly t: "harness"; readonly name: string; readonly at: number };

/** At most this many harness names are kept in the journal (the latest). */
const MAX_JOURNALED_HARNESSES = 256;

/** Pending facts older than this are not restored (a turn does not outlive it). */
const PENDING_MAX_AGE_MS = 60 * 60 * 1000;

export class SessionStore {
  private readonly cache: LRUCache<string, SessionTrust>;
  private readonly dir?: string;
  private readonly maxSources: number;
  readonly maxValues: number;
  private readonly now: () => number;
  readonly health: StoreHealth = { writeErrors: 0, readErrors: 0 };
  /**
   * The key state files and ledger lines are authenticated with (HMAC-SHA256), kept beside the
   * directory (`<dir>.key`, mode 0600, a secret path to the path rules). A file the agent forged,
   * edited or copied from another session fails its check and loads as untrusted.
   */
  private key?: Buffer;
  private keyError?: string;

  constructor(options: StoreOptions) {
    this.dir = options.dir;
    this.maxSources = options.maxSourcesPerSession;
    this.maxValues = options.maxValuesPerSession ?? 1024;
    this.now = options.now ?? Date.now;
    // Evicting a session loses nothing that matters: its trust and the inputs that lowered it are
    // on disk already. Its other recent sources ride along whenever the record is written; they are
    // diagnostics (the audit log has every one), so they never cost a write of their own.
    this.cache = new LRUCache<string, SessionTrust>({ max: options.maxSessions });
    if (this.dir) {
      // Beside the directory, not in it, so that losing the directory does not lose the ledger.
      this.ledgerFile = join(dirname(this.dir), `${basename(this.dir)}.tainted.log`);
      try {
        mkdirSync(this.dir, { recursive: true });
      } catch (error) {
        this.noteReadError(`state directory ${this.dir} cannot be created: ${(error as Error).message}`);
      }
      this.openKey(join(dirname(this.dir), `${basename(this.dir)}.key`));
      this.tainted = readLedger(this.ledgerFile, this.key);
      this.journalFile = join(dirname(this.dir), `${basename(this.dir)}.pending.log`);
    }
  }

  /**
   * The ledger names (by hash) every session whose trust is below owner, outside the sessions
   * directory: a tainted session whose state file later goes missing (deleted by hand, or the whole
   * directory removed while the gateway was down) fails closed instead of starting clean.
   */
  private ledgerFile?: string;
  private tainted = new Set<number>();
  private journalFile?: string;
  private journalQueue: string[] = [];

  /** Bytes derived from the install's key that seed the value hashes (random without a key). */
  valueSeed(): Uint8Array {
    if (!this.seed) this.seed = this.key ? createHmac("sha256", this.key).update("clawos value index").digest() : randomBytes(32);
    return this.seed;
  }
  private seed?: Uint8Array;

  /** MAC of a stored body (file labels), or undefined without a key. */
  macOf(body: string): string | undefined {
    return this.key ? createHmac("sha256", this.key).update(body).digest("hex") : undefined;
  }

  /** The file beside the session directory that holds the file labels, when state is durable. */
  get labelsFile(): string | undefined {
    return this.dir ? join(dirname(this.dir), `${basename(this.dir)}.labels.json`) : undefined;
  }

  /** The file beside the session directory that holds the owner's grants, when state is durable. */
  get grantsFile(): string | undefined {
    return this.dir ? join(dirname(this.dir), `${basename(this.dir)}.grants.json`) : undefined;
  }

  /** A key for another of ClawOS's files, derived from the state key (undefined without one). */
  derivedKey(purpose: string): Buffer | undefined {
    return this.key ? createHmac("sha256", this.key).update(`clawos ${purpose}`).digest() : undefined;
  }

  /** The session's value index, created on first use. */
  valuesOf(state: SessionTrust): ValueIndex {
    state.values ??= new ValueIndex(this.maxValues);
    return state.values;
  }

  /** New values entered a session without a trust change: its state file is written again. */
  valuesChanged(state: SessionTrust): void {
    state.updatedAt = this.now();
    this.persist(state);
  }

  /** Journals a pending fact (see `PendingFact`), off the caller's path like the ledger. */
  journal(fact: PendingFact): void {
    if (!this.journalFile) return;
    const body = JSON.stringify(fact);
    this.journalQueue.push(`${body} ${ledgerMac(this.key, body)}\n`);
    this.schedule();
  }

  /** The pending facts a previous process journaled (MAC checked, recent ones only), oldest first. */
  restorePending(): PendingFact[] {
    if (!this.journalFile || !this.key) return [];
    let text = "";
    try {
      text = readFileSync(this.journalFile, "utf8");
    } catch {
      return [];
    }
    const since = this.now() - PENDING_MAX_AGE_MS;
    const facts: PendingFact[] = [];
    for (const line of text.split("\n")) {
      const cut = line.lastIndexOf(" ");
      if (cut <= 0) continue;
      const body = line.slice(0, cut);
      if (line.slice(cut + 1) !== ledgerMac(this.key, body)) continue;
      try {
        const fact = JSON.parse(body) as PendingFact;
        // A harness outlives a turn: its name is kept whatever its age.
        if (typeof fact?.at === "number" && (fact.at >= since || fact.t === "harness")) facts.push(fact);
      } catch {
        // A torn last line: skipped.
      }
    }
    // Each harness name once (its latest spawn), the latest few.
    const harnesses = facts.filter((f) => f.t === "harness");
    const latest = new Map(harnesses.map((f, i) => [f.name, i]));
    const keep = new Set(harnesses.filter((f, i) => latest.get(f.name) === i).slice(-MAX_JOURNALED_HARNESSES));
    for (let i = facts.length - 1; i >= 0; i--) {
      const fact = facts[i] as PendingFact;
      if (fact.t === "harness" && !keep.has(fact)) facts.splice(i, 1);
    }
    // Only the recent tail is kept on disk: the file is rewritten with what is still pending.
    try {
      writeFileSync(this.journalFile, facts.map((f) => `${JSON.stringify(f)} ${ledgerMac(this.key, JSON.stringify(f))}\n`).join(""));
    } catch (error) {
      this.noteWriteError(this.journalFile, error);
    }
    return facts;
  }

  private noteLedger(key: string, tainted: boolean): void {
    if (!this.ledgerFile) return;
    const id = ledgerId(key);
    if (this.tainted.has(id) === tainted) return;
    if (tainted) this.tainted.add(id);
    else this.tainted.delete(id);
    const line = `${tainted ? "+" : "-"}${id.toString(16)}`;
    this.ledgerQueue.push(`${line} ${ledgerMac(this.key, line)}\n`);
    this.schedule();
  }

  // ---- durable writes, off the caller's path ----------------------------------------------
  //
  // A trust change is effective in memory at once. Its state file and ledger line are written by
  // the event loop's thread pool (async fs), so the call that lowered the trust does not wait for
  // the disk: the writes are queued, coalesced per session, and issued in the next turn. The file
  // of a session is replaced atomically (temp file, then rename). `flush()` writes everything still
  // pending synchronously: gateway stop and process exit call it. A crash of the process between a
  // trust change and its write (a few milliseconds) can lose that change on disk; the ledger line
  // goes out in the same turn as the state file.

  /** Sessions whose latest state is not on disk yet and no write of it has started. */
  private readonly dirty = new Map<string, SessionTrust>();
  /** Writes in flight, by session: the state being written and its generation. */
  private readonly inFlight = new Map<string, { gen: number; state: SessionTrust }>();
  private generation = 0;
  private scheduled = false;
  private ledgerQueue: string[] = [];
  private ledgerInFlight: string[] = [];

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.writePending());
  }

  private writePending(): void {
    this.scheduled = false;
    this.writeLedgerLines();
    for (const [key, state] of this.dirty) {
      if (this.inFlight.has(key)) continue; // written again when the write in flight lands
      this.dirty.delete(key);
      this.writeAsync(key, state);
    }
  }

  private writeAsync(key: string, state: SessionTrust): void {
    const gen = ++this.generation;
    this.inFlight.set(key, { gen, state });
    const file = this.fileOf(key);
    const temp = `${file}.${process.pid}.${gen}.tmp`;
    writeFile(temp, this.sealed(state))
      .then(() => {
        // Renamed in this callback, synchronously: a flush that ran meanwhile wrote a newer state
        // and took this write over, and a stale rename must not land after it.
        if (this.inFlight.get(key)?.gen !== gen) {
          unlink(temp).catch(() => undefined);
          return;
        }
        renameSync(temp, file);
      })
      .catch((error: unknown) => {
        if (this.inFlight.get(key)?.gen !== gen) return;
        // The directory vanished, or the disk failed: write this one synchronously, with its own retry.
        this.writeSync(state);
        void error;
      })
      .finally(() => {
        if (this.inFlight.get(key)?.gen === gen) this.inFlight.delete(key);
        if (this.dirty.has(key)) this.schedule();
      });
  }

  private writeLedgerLines(): void {
    this.drainJournal();
    if (!this.ledgerFile || this.ledgerInFlight.length > 0 || this.ledgerQueue.length === 0) return;
    const file = this.ledgerFile;
    const batch = this.ledgerQueue;
    this.ledgerQueue = [];
    this.ledgerInFlight = batch;
    appendFile(file, batch.join(""))
      .catch((error: unknown) => this.noteWriteError(file, error))
      .finally(() => {
        if (this.ledgerInFlight === batch) this.ledgerInFlight = [];
        if (this.ledgerQueue.length > 0) this.schedule();
      });
  }

  private drainJournal(): void {
    if (!this.journalFile || this.journalQueue.length === 0) return;
    const lines = this.journalQueue.join("");
    this.journalQueue = [];
    try {
      // Small and rare (spawns, non-owner messages): written synchronously so it is on disk before the turn goes on.
      appendFileSync(this.journalFile, lines);
    } catch (error) {
      this.noteWriteError(this.journalFile, error);
    }
  }

  /** Writes every pending state file and ledger line now, synchronously (shutdown, exit). */
  flush(): void {
    if (!this.dir) return;
    this.drainJournal();
    // A ledger batch still in flight is written again first, so the file keeps the order of changes
    // (a repeated line changes nothing).
    const lines = [...this.ledgerInFlight, ...this.ledgerQueue];
    this.ledgerQueue = [];
    this.ledgerInFlight = [];
    if (lines.length > 0 && this.ledgerFile) {
      try {
        appendFileSync(this.ledgerFile, lines.join(""));
      } catch (error) {
        this.noteWriteError(this.ledgerFile, error);
      }
    }
    const latest = new Map<string, SessionTrust>();
    for (const [key, { state }] of this.inFlight) latest.set(key, state);
    for (const [key, state] of this.dirty) latest.set(key, state);
    this.inFlight.clear();
    this.dirty.clear();
    for (const state of latest.values()) this.writeSync(state);
  }

  /** Writes of state files not yet on disk (for status and tests). */
  get pendingWrites(): number {
    return this.dirty.size + this.inFlight.size;
  }

  get size(): number {
    return this.cache.size;
  }

  /** Looks a session up without creating it. */
  peek(key: string): SessionTrust | undefined {
    return this.cache.get(key) ?? undefined;
  }

  /**
   * The session's state, loaded from disk or created at `initial`. A fresh session starts at
   * the level given by the caller (owner for a top-level session, less for a sub-agent).
   */
  get(key: string, initial: TrustLevel = "owner"): SessionTrust {
    const cached = this.cache.get(key);
    if (cached) return cached;
    // Evicted while its latest state was still on its way to disk: the file is older than that.
    const pending = this.dirty.get(key) ?? this.inFlight.get(key)?.state;
    if (pending) {
      this.cache.set(key, pending);
      return pending;
    }
    const loaded = this.load(key, initial);
    this.cache.set(key, loaded);
    return loaded;
  }

  /** Lowers the trust to at most `level`. Returns true when the trust changed. */
  lower(key: string, source: TaintSource, initial: TrustLevel = "owner"): boolean {
    const state = this.get(key, initial);
    const before = state.trust;
    const after = minTrust(before, source.level);
    state.updatedAt = this.now();
    if (after !== before) {
      state.trust = after;
      // A new exact-size array (most sessions change trust once or twice; a grown array keeps 17 slots).
      const lowered = [...state.lowered, source];
      if (lowered.length > 8) lowered.splice(1, lowered.length - 8);
      state.lowered = lowered;
      this.persist(state);
      return true;
    }
    // Inputs above the session's trust explain nothing about it; keep only those at or below it.
    if (source.level !== "owner" && trustRank(source.level) <= trustRank(state.trust)) this.remember(state, source);
    return false;
  }

  /** Raises a session back to `level` (an explicit owner action or a new session). */
  reset(key: string, source: TaintSource, level: TrustLevel = "owner"): TrustLevel {
    const state = this.get(key);
    const before = state.trust;
    state.trust = level;
    state.lowered = [source];
    state.recent = [];
    state.shadow = undefined;
    state.stateError = undefined;
    state.updatedAt = this.now();
    this.persist(state);
    return before;
  }

  /** Records a result that entered through an audit-mode would-block (see `shadow`). */
  lowerShadow(key: string, source: TaintSource, initial: TrustLevel = "owner"): boolean {
    const state = this.get(key, initial);
    const before = state.shadow ?? "owner";
    const after = minTrust(before, source.level);
    this.remember(state, source);
    if (after === before || trustRank(after) >= trustRank(state.trust)) return false;
    state.shadow = after;
    this.persist(state);
    return true;
  }

  setParent(key: string, parent: string, initial: TrustLevel): SessionTrust {
    const state = this.get(key, initial);
    if (state.parent !== parent) {
      state.parent = parent;
      this.persist(state);
    }
    return state;
  }

  /** Forgets a session entirely (it was deleted by the host). */
  forget(key: string): void {
    this.cache.delete(key);
    if (!this.dir) return;
    this.dirty.delete(key);
    this.inFlight.delete(key);
    this.noteLedger(key, false);
    try {
      unlinkSync(this.fileOf(key));
    } catch {
      // Already gone.
    }
  }

  private remember(state: SessionTrust, source: TaintSource): void {
    if (state instanceof SessionState) {
      if (!state.pushRecent(source, this.maxSources)) return;
    } else {
      const last = state.recent[state.recent.length - 1];
      if (last && last.callId !== undefined && last.callId === source.callId && last.kind === source.kind) return;
      state.recent.push(source);
      if (state.recent.length > this.maxSources) state.recent.shift();
    }
  }

  fileOf(key: string): string {
    return join(this.dir ?? "", sessionFileName(key));
  }

  private fresh(key: string, trust: TrustLevel): SessionTrust {
    return new SessionState(key, trust, [], [], this.now());
  }

  private load(key: string, initial: TrustLevel): SessionTrust {
    if (!this.dir) return this.fresh(key, initial);
    let text: string;
    try {
      text = readFileSync(this.fileOf(key), "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" && this.dirExists()) {
        if (this.tainted.has(ledgerId(key))) return this.unreadable(key, "its state file is missing, but the session was tainted");
        return this.fresh(key, initial);
      }
      if (code === "ENOENT") {
        // The directory vanished: what it held is lost. This session fails closed; the directory is
        // recreated so later sessions and trust changes are durable again.
        this.recreateDir();
        return this.unreadable(key, `state directory ${this.dir} was missing (state lost)`);
      }
      return this.unreadable(key, `state file cannot be read (${code ?? (error as Error).message})`);
    }
    try {
      const record = JSON.parse(text) as StoredRecord & { mac?: unknown };
      if (this.keyError) return this.unreadable(key, `state key ${this.keyError}`);
      if ((record?.v as number) === 1) return this.unreadable(key, "state file is not authenticated (written by an older ClawOS, or forged)");
      if (!this.verify(record)) return this.unreadable(key, "state file failed its authentication check (forged, edited or copied)");
      if (record?.v !== 2 || record.key !== key || !isTrustLevel(record.trust) || !Array.isArray(record.lowered) || !Array.isArray(record.recent)) {
        return this.unreadable(key, "state file is not a ClawOS session record");
      }
      const lowered = record.lowered.filter((s) => isTrustLevel(s?.level));
      // A trust above what its own sources lowered it to means the file was edited by hand.
      if (trustRank(record.trust) > trustRank(levelSinceReset(lowered))) {
        return this.unreadable(key, "state file was edited: its trust is above the inputs that lowered it");
      }
      const state = new SessionState(
        key,
        // A stored level can only lower what the session starts at: a record never raises trust.
        minTrust(record.trust, initial),
        record.lowered.filter((s) => isTrustLevel(s?.level)),
        record.recent.filter((s) => isTrustLevel(s?.level)).slice(-this.maxSources),
        typeof record.updatedAt === "number" ? record.updatedAt : this.now(),
      );
      state.shadow = isTrustLevel(record.shadow) ? record.shadow : undefined;
      state.parent = typeof record.parent === "string" ? record.parent : undefined;
      state.values = ValueIndex.deserialize(record.values, this.maxValues);
      return state;
    } catch (error) {
      return this.unreadable(key, `state file is corrupt (${(error as Error).message})`);
    }
  }

  private openKey(file: string): void {
    try {
      this.key = readFileSync(file);
      if (this.key.length < 32) throw new Error("is too short");
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
        this.key = undefined;
        this.keyError = `${file} cannot be used: ${(error as Error).message}`;
        this.noteReadError(this.keyError);
        return;
      }
    }
    try {
      const key = randomBytes(32);
      writeFileSync(file, key, { mode: 0o600, flag: "wx" });
      this.key = key;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") {
        // Another process made it first: use theirs.
        try {
          this.key = readFileSync(file);
          return;
        } catch {
          // Falls through to the error below.
        }
      }
      this.keyError = `${file} cannot be created: ${(error as Error).message}`;
      this.noteReadError(this.keyError);
    }
  }

  /** The record as stored: its JSON with a MAC over everything else. */
  private sealed(state: SessionTrust): string {
    const record = recordOf(state);
    const body = JSON.stringify(record);
    if (!this.key) return body;
    return `${body.slice(0, -1)},"mac":"${createHmac("sha256", this.key).update(body).digest("hex")}"}`;
  }

  private verify(record: StoredRecord & { mac?: unknown }): boolean {
    if (!this.key || typeof record?.mac !== "string") return false;
    const { mac, ...rest } = record;
    const expected = createHmac("sha256", this.key).update(JSON.stringify(rest)).digest();
    const given = Buffer.from(mac, "hex");
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private recreateDir(): void {
    try {
      mkdirSync(this.dir as string, { recursive: true });
    } catch {
      // Reported by the next write.
    }
  }

  private dirExists(): boolean {
    try {
      return statSync(this.dir as string).isDirectory();
    } catch {
      return false;
    }
  }

  private unreadable(key: string, why: string): SessionTrust {
    this.noteReadError(why);
    const source: TaintSource = { level: "untrusted", kind: "state", label: why, at: this.now() };
    const state = new SessionState(key, "untrusted", [source], [], this.now());
    state.stateError = why;
    return state;
  }

  private noteReadError(why: string): void {
    this.health.readErrors++;
    this.health.lastReadError = why;
  }

  private persist(state: SessionTrust): void {
    if (!this.dir) return;
    this.noteLedger(state.key, state.trust !== "owner");
    this.dirty.set(state.key, state);
    this.schedule();
  }

  private writeSync(state: SessionTrust): void {
    const file = this.fileOf(state.key);
    const temp = `${file}.${process.pid}.tmp`;
    const text = this.sealed(state);
    try {
      writeFileSync(temp, text);
      renameSync(temp, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
        this.noteWriteError(file, error);
        return;
      }
      // The directory vanished: recreate it once and retry, so later restarts keep the taint.
      try {
        mkdirSync(this.dir as string, { recursive: true });
        writeFileSync(temp, text);
        renameSync(temp, file);
      } catch (retryError) {
        this.noteWriteError(file, retryError);
      }
    }
  }

  private noteWriteError(file: string, error: unknown): void {
    this.health.writeErrors++;
    this.health.lastWriteError = `${file}: ${(error as Error).message}`;
  }
}

function recordOf(state: SessionTrust): StoredRecord {
  return {
    v: 2,
    key: state.key,
    trust: state.trust,
    lowered: state.lowered,
    recent: state.recent,
    ...(state.shadow ? { shadow: state.shadow } : {}),
    ...(state.parent ? { parent: state.parent } : {}),
    ...(state.values && state.values.size > 0 ? { values: state.values.serialize() } : {}),
    updatedAt: state.updatedAt,
  };
}

/**
 * The in-memory form of a session. `recent` is kept packed in one string (about 40 bytes per source
 * instead of about 160 for an object with its strings and boxed time), since the store holds up to
 * `maxSessions` sessions with up to `maxSourcesPerSession` recent sources each and reads them back
 * only for `/clawos session` and the state file. `lowered` stays as objects: every decision reads it.
 */
class SessionState implements SessionTrust {
  readonly key: string;
  trust: TrustLevel;
  lowered: TaintSource[];
  updatedAt: number;
  shadow?: TrustLevel;
  parent?: string;
  stateError?: string;
  values?: ValueIndex = undefined;
  requesters?: readonly RequesterTrust[] = undefined;
  trigger?: string = undefined;
  onChannel?: boolean = undefined;
  private packed = "";
  private count = 0;
  private lastCallId: string | undefined = undefined;
  private lastKind: TaintKind | undefined = undefined;

  constructor(key: string, trust: TrustLevel, lowered: TaintSource[], recent: TaintSource[], updatedAt: number) {
    this.key = key;
    this.trust = trust;
    this.lowered = lowered;
    this.updatedAt = updatedAt;
    this.recent = recent;
  }

  get recent(): TaintSource[] {
    return this.packed ? this.packed.split(RECORD).map(unpackSource) : [];
  }

  set recent(list: TaintSource[]) {
    this.packed = flat(list.map(packSource).join(RECORD));
    this.count = list.length;
    const last = list[list.length - 1];
    this.lastCallId = last?.callId;
    this.lastKind = last?.kind;
  }

  /** Appends a source, dropping the oldest beyond `max`; false when it repeats the last one's call. */
  pushRecent(source: TaintSource, max: number): boolean {
    if (this.count > 0 && this.lastCallId !== undefined && this.lastCallId === source.callId && this.lastKind === source.kind) return false;
    const packed = packSource(source);
    let text = this.count > 0 ? `${this.packed}${RECORD}${packed}` : packed;
    let count = this.count + 1;
    while (count > max) {
      text = text.slice(text.indexOf(RECORD) + 1);
      count--;
    }
    this.packed = count > 0 ? flat(text) : "";
    this.count = count;
    this.lastCallId = source.callId;
    this.lastKind = source.kind;
    return true;
  }
}

const RECORD = "\u001e";
const FIELD = "\u001f";
const LEVELS: readonly TrustLevel[] = TRUST_LEVELS;
const KINDS: readonly TaintKind[] = TAINT_KINDS;

/** A flat copy: a concatenation or slice would keep the strings it was made from alive. */
function flat(text: string): string {
  return text.length < 13 ? text : (JSON.parse(JSON.stringify(text)) as string);
}

/** Free text is kept as is unless it holds a control character (our separators) or starts with `~`. */
function packText(text: string | undefined): string {
  if (text === undefined) return "";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the packed form separates fields with control characters
  return /[\u0000-\u001f]/.test(text) || text.startsWith("~") || text === "" ? `~${JSON.stringify(text)}` : text;
}

function unpackText(text: string): string | undefined {
  if (text === "") return undefined;
  return text.startsWith("~") ? (JSON.parse(text.slice(1)) as string) : text;
}

/** level, kind, label ("" when it is the usual result label of its tool), tool, callId, time in base 36. */
function packSource(source: TaintSource): string {
  const level = LEVELS.indexOf(source.level);
  const kind = KINDS.indexOf(source.kind);
  const derived = isResultLabel(source.label, source.tool);
  const label = derived ? "" : packText(source.label);
  const at = Number.isSafeInteger(source.at) && source.at >= 0 ? source.at.toString(36) : `~${JSON.stringify(source.at)}`;
  return [
    level < 0 ? `~${JSON.stringify(source.level)}` : level,
    kind < 0 ? `~${JSON.stringify(source.kind)}` : kind,
    label,
    packText(source.tool),
    packText(source.callId),
    at,
  ].join(FIELD);
}

function unpackSource(record: string): TaintSource {
  const [level, kind, label, tool, callId, at] = record.split(FIELD);
  const t = unpackText(tool);
  const c = unpackText(callId);
  return {
    level: level.startsWith("~") ? JSON.parse(level.slice(1)) : LEVELS[Number(level)],
    kind: kind.startsWith("~") ? JSON.parse(kind.slice(1)) : KINDS[Number(kind)],
    label: label === "" ? resultLabel(t as string) : (unpackText(label) ?? ""),
    ...(t !== undefined ? { tool: t } : {}),
    ...(c !== undefined ? { callId: c } : {}),
    at: at.startsWith("~") ? JSON.parse(at.slice(1)) : Number.parseInt(at, 36),
  };
}

/** The name of a session's state file in the state directory: its key is not a safe file name. */
export function sessionFileName(key: string): string {
  return `${createHash("sha256").update(key).digest("hex").slice(0, 40)}.json`;
}

/**
 * 52 bits of the key's hash: a number, so a ledger of 100k sessions costs little memory. Worked out
 * whenever a session's state is written, so with the one-shot `hash` (no Hash object per call).
 */
function ledgerId(key: string): number {
  return Number.parseInt(hash("sha256", key).slice(0, 13), 16);
}

function ledgerMac(key: Buffer | undefined, line: string): string {
  return key ? createHmac("sha256", key).update(line).digest("hex").slice(0, 16) : "";
}

/**
 * The tainted set from the ledger. A line marking a session tainted is honoured whatever its MAC
 * (more taint is never a risk); a line clearing one counts only with a valid MAC.
 */
function readLedger(file: string, key: Buffer | undefined): Set<number> {
  const set = new Set<number>();
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return set;
  }
  for (const raw of text.split("\n")) {
    const [line, mac] = raw.split(" ");
    const id = Number.parseInt(line.slice(1), 16);
    if (!Number.isSafeInteger(id)) continue;
    if (line.startsWith("+")) set.add(id);
    else if (line.startsWith("-") && key && mac === ledgerMac(key, line)) set.delete(id);
  }
  return set;
}

/** The level the sources since the last reset lowered a session to (owner when none did). */
function levelSinceReset(lowered: readonly TaintSource[]): TrustLevel {
  let level: TrustLevel = "owner";
  for (const source of lowered) level = source.kind === "reset" ? "owner" : minTrust(level, source.level);
  return level;
}
