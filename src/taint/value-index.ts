import { TRUST_LEVELS, type TrustLevel } from "./trust.ts";

/**
 * One session's value provenance: which normalised values entered it, and the highest trust of an
 * input each was seen in. Compact by design (100k sessions are held in memory): an open-addressed
 * table of 57-bit keyed hashes in one Uint32Array, two words a slot —
 *
 *   word 0: hash bits 0-31 (never 0: 0 marks an empty slot)
 *   word 1: hash bits 32-56 (25 bits) << 7 | trust rank << 5 | source index (0-31)
 *
 * plus the inputs the values came from (at most 32; the last slot is reused by later inputs, so the
 * attribution of very old values can name a later input of the same session). The values
 * themselves are never kept: a lookup hashes the argument's forms the same way.
 *
 * Bounded by `capacity` values. When full, values seen only in untrusted input are dropped first
 * (they only explain blocks; a missing one is "unknown", which the roles that matter treat as
 * tainted); after that new values are not added, which can only make more calls unknown.
 */

export interface ValueSource {
  readonly level: TrustLevel;
  /** What the input was, in words: "the owner's message", "the result of web_fetch". */
  readonly label: string;
  readonly tool?: string;
  readonly callId?: string;
  /**
   * The output of code the call ran (a command, a script): text the session may have put together
   * from what it holds, so a value in it is never taken as a copy of someone else's (`tainted: copied`).
   */
  readonly computed?: boolean;
}

export interface ValueHit {
  readonly level: TrustLevel;
  readonly source?: ValueSource;
}

const MAX_SOURCES = 32;
const MIN_SLOTS = 8;

/** Keyed 57-bit hash of a string: two FNV-1a lanes seeded from the install's key. */
export interface ValueHasher {
  hash(value: string): [number, number];
  /**
   * A hash that starts from `prefix`'s: `keyed(p)(text, start, end)` equals
   * `hash(p + text.slice(start, end))`, without building that string (a scan of every stretch of a
   * text). Its answer is one array, overwritten by the next call: look it up before hashing again.
   */
  keyed(prefix: string): (text: string, start: number, end: number) => [number, number];
}

export function valueHasher(seed: Uint8Array | undefined): ValueHasher {
  let s1 = 0x811c9dc5;
  let s2 = 0x01000193 ^ 0x5bd1e995;
  if (seed) {
    for (let i = 0; i < seed.length; i++) {
      s1 = Math.imul(s1 ^ seed[i], 0x01000193) >>> 0;
      s2 = Math.imul(s2 ^ seed[i], 0x5bd1e995) >>> 0;
    }
  }
  const a = s1 >>> 0;
  const b = s2 >>> 0;
  return {
    hash: (value) => fnv(a, b, value, 0, value.length),
    keyed(prefix) {
      // The lanes' state after the prefix; the finishing mix is `fnv`'s.
      let p1 = a;
      let p2 = b;
      for (let i = 0; i < prefix.length; i++) {
        const c = prefix.charCodeAt(i);
        p1 = Math.imul(p1 ^ c, 0x01000193);
        p2 = Math.imul(p2 ^ c, 0x5bd1e995);
        p2 ^= p2 >>> 15;
      }
      const out: [number, number] = [0, 0];
      return (text, start, end) => fnv(p1, p2, text, start, end, out);
    },
  };
}

/** Both lanes over `text` from `start` to `end`, from the given state, then mixed. */
function fnv(h1: number, h2: number, text: string, start: number, end: number, out: [number, number] = [0, 0]): [number, number] {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  h1 ^= h1 >>> 13;
  h1 = Math.imul(h1, 0x85ebca6b);
  h1 ^= h1 >>> 16;
  h2 ^= h2 >>> 13;
  h2 = Math.imul(h2, 0xc2b2ae35);
  h2 ^= h2 >>> 16;
  out[0] = h1 >>> 0 || 1;
  out[1] = (h2 >>> 7) & 0x1ffffff;
  return out;
}

export class ValueIndex {
  private table: Uint32Array;
  private count = 0;
  readonly capacity: number;
  private sources: ValueSource[] = [];
  /** Values not added because the index was full. */
  dropped = 0;
  /** Goes up at every change of the table: what is worked out from it (`Provenance.secretScan`) is kept until then. */
  changes = 0;

  constructor(capacity: number, table?: Uint32Array, sources?: ValueSource[]) {
    this.capacity = capacity;
    if (table) {
      this.table = table;
      for (let i = 0; i < table.length; i += 2) if (table[i] !== 0) this.count++;
    } else {
      this.table = new Uint32Array(MIN_SLOTS * 2);
    }
    if (sources) this.sources = sources.slice(0, MAX_SOURCES);
  }

  get size(): number {
    return this.count;
  }

  private lastSource?: ValueSource;
  private lastSourceIndex = 0;

  /** The number `source` is kept under; a source is kept only once it brought a value in. */
  private sourceIndex(source: ValueSource): number {
    if (this.lastSource === source) return this.lastSourceIndex;
    this.lastSource = source;
    this.lastSourceIndex = this.addSource(source);
    return this.lastSourceIndex;
  }

  private addSource(source: ValueSource): number {
    if (this.sources.length < MAX_SOURCES) {
      this.sources.push(source);
      return this.sources.length - 1;
    }
    // The last slot is shared once the table is full: a value a command printed must not come to
    // look like a copy of a later page's (`computed` stays).
    const last = this.sources[MAX_SOURCES - 1];
    this.sources[MAX_SOURCES - 1] = last?.computed === true && source.computed !== true ? { ...source, computed: true } : source;
    return MAX_SOURCES - 1;
  }

  /** Notes a value hash seen in an input: the highest trust it was seen at is kept. True when it changed. */
  add(h: readonly [number, number], level: TrustLevel, source: ValueSource): boolean {
    return this.put(h, TRUST_LEVELS.indexOf(level), () => this.sourceIndex(source));
  }

  private put(h: readonly [number, number], rank: number, sourceIndex: () => number): boolean {
    const slot = this.find(h);
    const t = this.table;
    if (t[slot] !== 0) {
      const old = (t[slot + 1] >>> 5) & 3;
      if (rank <= old) return false;
      t[slot + 1] = (h[1] << 7) | (rank << 5) | (sourceIndex() & 31);
      this.changes++;
      return true;
    }
    if (this.count >= this.capacity) {
      if (rank === 0 || !this.dropUntrusted()) {
        this.dropped++;
        return false;
      }
      return this.put(h, rank, sourceIndex);
    }
    if ((this.count + 1) * 4 > (t.length / 2) * 3) {
      this.grow();
      return this.put(h, rank, sourceIndex);
    }
    t[slot] = h[0];
    t[slot + 1] = (h[1] << 7) | (rank << 5) | (sourceIndex() & 31);
    this.count++;
    this.changes++;
    return true;
  }

  get(h: readonly [number, number]): ValueHit | undefined {
    const slot = this.find(h);
    if (this.table[slot] === 0) return undefined;
    const word = this.table[slot + 1];
    const source = this.sources[word & 31];
    return { level: TRUST_LEVELS[(word >>> 5) & 3], ...(source ? { source } : {}) };
  }

  /** How many values were seen at each highest trust, for the session report. */
  countsByLevel(): Record<TrustLevel, number> {
    const counts: Record<TrustLevel, number> = { untrusted: 0, community: 0, verified: 0, owner: 0 };
    const t = this.table;
    for (let i = 0; i < t.length; i += 2) if (t[i] !== 0) counts[TRUST_LEVELS[(t[i + 1] >>> 5) & 3]]++;
    return counts;
  }

  /** The stored form: occupied slots only. */
  serialize(): { table: string; sources: ValueSource[] } {
    const pairs = new Uint32Array(this.count * 2);
    let j = 0;
    for (let i = 0; i < this.table.length; i += 2) {
      if (this.table[i] === 0) continue;
      pairs[j++] = this.table[i];
      pairs[j++] = this.table[i + 1];
    }
    return { table: Buffer.from(pairs.buffer, pairs.byteOffset, pairs.byteLength).toString("base64"), sources: this.sources };
  }

  static deserialize(stored: unknown, capacity: number): ValueIndex | undefined {
    if (!stored || typeof stored !== "object") return undefined;
    const { table, sources } = stored as { table?: unknown; sources?: unknown };
    if (typeof table !== "string" || !Array.isArray(sources)) return undefined;
    const bytes = Buffer.from(table, "base64");
    if (bytes.length % 8 !== 0) return undefined;
    const pairs = new Uint32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
    const index = new ValueIndex(Math.max(capacity, pairs.length / 2), undefined, sources.filter(isSource));
    for (let i = 0; i < pairs.length; i += 2) {
      const word = pairs[i + 1];
      index.put([pairs[i], word >>> 7], (word >>> 5) & 3, () => word & 31);
    }
    return index;
  }

  private find(h: readonly [number, number]): number {
    const t = this.table;
    const mask = t.length / 2 - 1;
    let i = (h[0] ^ (h[1] * 31)) & mask;
    for (;;) {
      const slot = i * 2;
      if (t[slot] === 0 || (t[slot] === h[0] && t[slot + 1] >>> 7 === h[1])) return slot;
      i = (i + 1) & mask;
    }
  }

  private grow(): void {
    const old = this.table;
    this.table = new Uint32Array(old.length * 2);
    this.count = 0;
    for (let i = 0; i < old.length; i += 2) {
      if (old[i] === 0) continue;
      const slot = this.find([old[i], old[i + 1] >>> 7]);
      this.table[slot] = old[i];
      this.table[slot + 1] = old[i + 1];
      this.count++;
    }
  }

  /** Drops the values seen only in untrusted input; true when that made room. */
  private dropUntrusted(): boolean {
    const old = this.table;
    const before = this.count;
    this.table = new Uint32Array(old.length);
    this.count = 0;
    for (let i = 0; i < old.length; i += 2) {
      if (old[i] === 0 || ((old[i + 1] >>> 5) & 3) === 0) continue;
      const slot = this.find([old[i], old[i + 1] >>> 7]);
      this.table[slot] = old[i];
      this.table[slot + 1] = old[i + 1];
      this.count++;
    }
    this.dropped += before - this.count;
    this.changes++;
    return this.count < this.capacity;
  }
}

function isSource(value: unknown): value is ValueSource {
  const s = value as ValueSource;
  return !!s && typeof s === "object" && typeof s.label === "string" && TRUST_LEVELS.includes(s.level);
}
