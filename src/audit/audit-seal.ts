import { createHash, type Hash } from "node:crypto";
import { createReadStream, fstatSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";

/**
 * The audit log's seal: the size and SHA-256 of everything the log held when it was last sealed,
 * kept beside it (`<log>.seal`, a ClawOS path the path rules protect). The log only ever grows, so
 * at the next start its first `size` bytes must hash to the seal: a truncated or rewritten log is
 * detected and reported by /clawos. While the gateway runs, the file is also checked for being
 * replaced (another inode) or shortened.
 *
 * It detects; it cannot prevent. A process that can write the log and its seal (a shell at owner
 * trust) can forge both; keeping the log on a remote or append-only sink is the stronger answer.
 */

export type IntegrityState = "ok" | "checking" | "unsealed" | "truncated" | "rewritten" | "replaced" | "unreadable";

export interface Integrity {
  state: IntegrityState;
  detail?: string;
  /** When the seal being checked was written. */
  sealedAt?: number;
}

interface SealRecord {
  v: 1;
  size: number;
  sha256: string;
  at: number;
}

const SEAL_EVERY_MS = 30_000;

export class AuditSeal {
  readonly integrity: Integrity = { state: "checking" };
  private readonly sealFile: string;
  private hash?: Hash;
  private pending: Buffer[] | undefined = [];
  private size: number;
  private ino: number;
  private lastSealAt = 0;
  /** Resolves once the existing log has been checked against its seal. */
  readonly checked: Promise<void>;

  private readonly file: string;
  private readonly fd: number;
  private readonly now: () => number;
  /** Checks only, never writes the seal (the operator CLI's `verify`, with the gateway stopped). */
  private readonly readOnly: boolean;

  constructor(file: string, fd: number, now: () => number = Date.now, options: { readOnly?: boolean } = {}) {
    this.file = file;
    this.fd = fd;
    this.now = now;
    this.readOnly = options.readOnly === true;
    this.sealFile = `${file}.seal`;
    const stat = fstatSync(fd);
    this.size = stat.size;
    this.ino = stat.ino;
    this.checked = this.checkExisting(stat.size, true);
  }

  /** Bytes appended by this process (called after each write). */
  appended(data: Buffer): void {
    this.size += data.length;
    if (this.pending) this.pending.push(data);
    else this.hash?.update(data);
  }

  /** Writes the seal when it is due (or now, when `force`): after the existing log was hashed. */
  seal(force = false): void {
    if (!this.hash || this.pending || this.readOnly) return;
    const at = this.now();
    if (!force && at - this.lastSealAt < SEAL_EVERY_MS) return;
    this.lastSealAt = at;
    try {
      const size = fstatSync(this.fd).size;
      if (size !== this.size) {
        // Another process appended to the same log: hash the file again before sealing it.
        this.hash = undefined;
        this.pending = [];
        this.size = size;
        void this.checkExisting(size, false);
        return;
      }
    } catch {
      return;
    }
    const record: SealRecord = { v: 1, size: this.size, sha256: this.hash.copy().digest("hex"), at };
    const temp = `${this.sealFile}.${process.pid}.tmp`;
    try {
      writeFileSync(temp, JSON.stringify(record), { mode: 0o600 });
      renameSync(temp, this.sealFile);
    } catch {
      // A seal that cannot be written leaves the previous one: the next check covers less.
    }
  }

  /** The live check: the file at the path is still the one being written, and no shorter. */
  checkLive(): Integrity {
    if (this.integrity.state === "truncated" || this.integrity.state === "rewritten" || this.integrity.state === "replaced") return this.integrity;
    try {
      const stat = statSync(this.file);
      if (stat.ino !== this.ino) this.set("replaced", `${this.file} was replaced (deleted, moved or rewritten as a new file) while the gateway ran`);
      else if (stat.size < this.size) this.set("truncated", `${this.file} is ${stat.size} bytes, ${this.size - stat.size} fewer than ClawOS wrote`);
    } catch (error) {
      this.set("replaced", `${this.file} cannot be read: ${(error as Error).message}`);
    }
    return this.integrity;
  }

  private set(state: IntegrityState, detail?: string): void {
    this.integrity.state = state;
    this.integrity.detail = detail;
  }

  private async checkExisting(sizeAtOpen: number, compare: boolean): Promise<void> {
    let seal: SealRecord | undefined;
    if (compare)
      try {
        const parsed = JSON.parse(readFileSync(this.sealFile, "utf8")) as SealRecord;
        if (parsed?.v === 1 && Number.isSafeInteger(parsed.size) && typeof parsed.sha256 === "string") seal = parsed;
        else this.set("unreadable", `${this.sealFile} is not a ClawOS seal`);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") this.set("unreadable", `${this.sealFile} cannot be read: ${(error as Error).message}`);
      }
    if (!compare && this.integrity.state === "checking") this.set("ok");
    if (seal) this.integrity.sealedAt = seal.at;
    if (seal && sizeAtOpen < seal.size) {
      this.set("truncated", `${this.file} is ${sizeAtOpen} bytes, but it held ${seal.size} when it was sealed`);
    }
    const hash = createHash("sha256");
    let read = 0;
    let atSeal: string | undefined = seal && seal.size === 0 ? hash.copy().digest("hex") : undefined;
    try {
      if (sizeAtOpen > 0) {
        for await (const chunk of createReadStream(this.file, { start: 0, end: sizeAtOpen - 1 }) as AsyncIterable<Buffer>) {
          if (seal && atSeal === undefined && read + chunk.length >= seal.size) {
            const cut = seal.size - read;
            hash.update(chunk.subarray(0, cut));
            atSeal = hash.copy().digest("hex");
            hash.update(chunk.subarray(cut));
          } else hash.update(chunk);
          read += chunk.length;
        }
      }
    } catch (error) {
      this.set("unreadable", `${this.file} cannot be read back: ${(error as Error).message}`);
      this.pending = undefined;
      return;
    }
    for (const data of this.pending ?? []) hash.update(data);
    this.pending = undefined;
    this.hash = hash;
    if (this.integrity.state === "checking") {
      if (!seal) this.set("unsealed", "no seal yet: the log is checked from the next start on");
      else if (atSeal !== seal.sha256) this.set("rewritten", `${this.file}'s first ${seal.size} bytes changed since it was sealed`);
      else this.set("ok");
    }
    this.seal(true);
  }
}
