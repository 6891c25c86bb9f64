import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LRUCache } from "lru-cache";
import { isTrustLevel, minTrust, trustRank, type TrustLevel } from "./trust.ts";

/**
 * L1 session state: each session's input trust and the inputs that lowered it.
 * Memory is an LRU bounded by `maxSessions`; every trust change is written to disk before the
 * call that caused it returns, so a restart or an eviction never turns a tainted session clean.
 * State that exists but cannot be read makes the session `untrusted` (fail closed).
 */

export type TaintKind = "requester" | "message" | "tool" | "subagent" | "state" | "reset";

export interface TaintSource {
  readonly level: TrustLevel;
  readonly kind: TaintKind;
  /** What entered, in words: "web_fetch result", "message from telegram:123". */
  readonly label: string;
  readonly tool?: string;
  readonly callId?: string;
  readonly at: number;
}

export interface SessionTrust {
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
  updatedAt: number;
}

export interface StoreOptions {
  /** Directory for durable state; undefined keeps state in memory only (tests, benchmarks). */
  dir?: string;
  maxSessions: number;
  maxSourcesPerSession: number;
  now?: () => number;
}

interface StoredRecord {
  v: 1;
  key: string;
  trust: TrustLevel;
  lowered: TaintSource[];
  recent: TaintSource[];
  shadow?: TrustLevel;
  parent?: string;
  updatedAt: number;
}

export interface StoreHealth {
  writeErrors: number;
  lastWriteError?: string;
  readErrors: number;
  lastReadError?: string;
}

export class SessionStore {
  private readonly cache: LRUCache<string, SessionTrust>;
  private readonly dir?: string;
  private readonly maxSources: number;
  private readonly now: () => number;
  private readonly dirty = new Set<string>();
  readonly health: StoreHealth = { writeErrors: 0, readErrors: 0 };

  constructor(options: StoreOptions) {
    this.dir = options.dir;
    this.maxSources = options.maxSourcesPerSession;
    this.now = options.now ?? Date.now;
    this.cache = new LRUCache<string, SessionTrust>({
      max: options.maxSessions,
      // An evicted session with unsaved sources is written out; its trust is on disk already.
      dispose: (value, key, reason) => {
        if (reason === "evict" && this.dirty.has(key)) this.persist(value);
        this.dirty.delete(key);
      },
    });
    if (this.dir) {
      try {
        mkdirSync(this.dir, { recursive: true });
      } catch (error) {
        this.noteReadError(`state directory ${this.dir} cannot be created: ${(error as Error).message}`);
      }
    }
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
      state.lowered.push(source);
      if (state.lowered.length > 8) state.lowered.splice(1, state.lowered.length - 8);
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
    try {
      unlinkSync(this.fileOf(key));
    } catch {
      // Already gone.
    }
  }

  /** Writes every session whose recent sources have not reached disk yet. */
  flush(): void {
    for (const key of this.dirty) {
      const state = this.cache.peek(key);
      if (state) this.persist(state);
    }
    this.dirty.clear();
  }

  private remember(state: SessionTrust, source: TaintSource): void {
    const last = state.recent[state.recent.length - 1];
    if (last && last.callId !== undefined && last.callId === source.callId && last.kind === source.kind) return;
    state.recent.push(source);
    if (state.recent.length > this.maxSources) state.recent.shift();
    if (this.dir) this.dirty.add(state.key);
  }

  fileOf(key: string): string {
    const name = createHash("sha256").update(key).digest("hex").slice(0, 40);
    return join(this.dir ?? "", `${name}.json`);
  }

  private fresh(key: string, trust: TrustLevel): SessionTrust {
    return { key, trust, lowered: [], recent: [], updatedAt: this.now() };
  }

  private load(key: string, initial: TrustLevel): SessionTrust {
    if (!this.dir) return this.fresh(key, initial);
    let text: string;
    try {
      text = readFileSync(this.fileOf(key), "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" && this.dirExists()) return this.fresh(key, initial);
      if (code === "ENOENT") {
        // The directory vanished: what it held is lost. This session fails closed; the directory is
        // recreated so later sessions and trust changes are durable again.
        this.recreateDir();
        return this.unreadable(key, `state directory ${this.dir} was missing (state lost)`);
      }
      return this.unreadable(key, `state file cannot be read (${code ?? (error as Error).message})`);
    }
    try {
      const record = JSON.parse(text) as StoredRecord;
      if (record?.v !== 1 || record.key !== key || !isTrustLevel(record.trust) || !Array.isArray(record.lowered) || !Array.isArray(record.recent)) {
        return this.unreadable(key, "state file is not a ClawOS session record");
      }
      return {
        key,
        // A stored level can only lower what the session starts at: a record never raises trust.
        trust: minTrust(record.trust, initial),
        lowered: record.lowered.filter((s) => isTrustLevel(s?.level)),
        recent: record.recent.filter((s) => isTrustLevel(s?.level)).slice(-this.maxSources),
        shadow: isTrustLevel(record.shadow) ? record.shadow : undefined,
        parent: typeof record.parent === "string" ? record.parent : undefined,
        updatedAt: typeof record.updatedAt === "number" ? record.updatedAt : this.now(),
      };
    } catch (error) {
      return this.unreadable(key, `state file is corrupt (${(error as Error).message})`);
    }
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
    return { key, trust: "untrusted", lowered: [source], recent: [], stateError: why, updatedAt: this.now() };
  }

  private noteReadError(why: string): void {
    this.health.readErrors++;
    this.health.lastReadError = why;
  }

  private persist(state: SessionTrust): void {
    if (!this.dir) return;
    this.dirty.delete(state.key);
    const record: StoredRecord = {
      v: 1,
      key: state.key,
      trust: state.trust,
      lowered: state.lowered,
      recent: state.recent,
      ...(state.shadow ? { shadow: state.shadow } : {}),
      ...(state.parent ? { parent: state.parent } : {}),
      updatedAt: state.updatedAt,
    };
    const file = this.fileOf(state.key);
    const temp = `${file}.${process.pid}.tmp`;
    try {
      writeFileSync(temp, JSON.stringify(record));
      renameSync(temp, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") {
        // The directory vanished: recreate it once and retry, so later restarts keep the taint.
        try {
          mkdirSync(this.dir, { recursive: true });
          writeFileSync(temp, JSON.stringify(record));
          renameSync(temp, file);
          return;
        } catch (retryError) {
          error = retryError;
        }
      }
      this.health.writeErrors++;
      this.health.lastWriteError = `${file}: ${(error as Error).message}`;
    }
  }
}
