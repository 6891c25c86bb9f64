import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { live, type Grant, GRANT_SCOPES } from "./grant.ts";

/**
 * The owner's grants, kept in one file beside ClawOS's session state and authenticated with a key
 * derived from the state key (HMAC-SHA256): a grants file the agent wrote or edited fails its check,
 * and then no grant is used (ClawOS asks, or blocks, as if there were none). Expired grants are
 * dropped when they are next looked at; every change is written at once (grants are rare).
 */

export interface GrantStoreHealth {
  readError?: string;
  writeErrors: number;
  lastWriteError?: string;
}

const MAX_GRANTS = 500;

export class GrantStore {
  private grants: Grant[] = [];
  readonly health: GrantStoreHealth = { writeErrors: 0 };
  private readonly file: string | undefined;
  private readonly key: Buffer | undefined;

  /** `file` undefined: kept in memory only. `key` undefined: nothing is read back from disk. */
  constructor(file: string | undefined, key: Buffer | undefined) {
    this.file = file;
    this.key = key;
    this.load();
  }

  get durable(): boolean {
    return this.file !== undefined && this.key !== undefined;
  }

  list(): readonly Grant[] {
    return this.grants;
  }

  add(grant: Omit<Grant, "id">): Grant {
    const made: Grant = { id: `g-${randomBytes(4).toString("hex")}`, ...grant };
    this.grants.push(made);
    if (this.grants.length > MAX_GRANTS) this.grants.splice(0, this.grants.length - MAX_GRANTS);
    this.save();
    return made;
  }

  revoke(id: string): Grant | undefined {
    const i = this.grants.findIndex((g) => g.id === id);
    if (i < 0) return undefined;
    const [gone] = this.grants.splice(i, 1);
    this.save();
    return gone;
  }

  /** Removes and returns the grants that have expired by `now`. */
  expire(now: number): Grant[] {
    const expired = this.grants.filter((g) => g.expiresAt !== undefined && g.expiresAt <= now);
    if (expired.length === 0) return expired;
    this.grants = this.grants.filter((g) => !expired.includes(g));
    this.save();
    return expired;
  }

  /** The grants a call may use now (unexpired, not made in the clock's future). */
  usable(now: number): Grant[] {
    return this.grants.filter((g) => live(g, now));
  }

  private mac(body: string): string {
    return createHmac("sha256", this.key as Buffer)
      .update(body)
      .digest("hex");
  }

  private load(): void {
    if (!this.file || !this.key) return;
    let text: string;
    try {
      text = readFileSync(this.file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") this.health.readError = `${this.file}: ${(error as Error).message}`;
      return;
    }
    try {
      const stored = JSON.parse(text) as { grants?: unknown; mac?: unknown };
      const body = JSON.stringify({ grants: stored.grants });
      const given = Buffer.from(typeof stored.mac === "string" ? stored.mac : "", "hex");
      const expected = Buffer.from(this.mac(body), "hex");
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        this.health.readError = `${this.file} failed its authentication check: no grant from it is used`;
        return;
      }
      this.grants = (Array.isArray(stored.grants) ? stored.grants : []).filter(isGrant);
    } catch (error) {
      this.health.readError = `${this.file} is corrupt (${(error as Error).message}): no grant from it is used`;
    }
  }

  private save(): void {
    if (!this.file || !this.key) return;
    const body = JSON.stringify({ grants: this.grants });
    const text = `${JSON.stringify({ grants: this.grants, mac: this.mac(body) })}\n`;
    const temp = `${this.file}.${process.pid}.tmp`;
    try {
      mkdirSync(dirname(this.file), { recursive: true });
      writeFileSync(temp, text, { mode: 0o600 });
      renameSync(temp, this.file);
    } catch (error) {
      this.health.writeErrors++;
      this.health.lastWriteError = `${this.file}: ${(error as Error).message}`;
    }
  }
}

function isGrant(value: unknown): value is Grant {
  if (!value || typeof value !== "object") return false;
  const g = value as Record<string, unknown>;
  return (
    typeof g.id === "string" &&
    typeof g.createdAt === "number" &&
    (g.expiresAt === undefined || typeof g.expiresAt === "number") &&
    (g.treeMark === undefined || typeof g.treeMark === "string") &&
    (g.context === undefined || (typeof g.context === "object" && g.context !== null && !Array.isArray(g.context))) &&
    typeof g.scope === "string" &&
    (GRANT_SCOPES as readonly string[]).includes(g.scope) &&
    typeof g.by === "string" &&
    (typeof g.tool === "string" ? Array.isArray(g.values) : typeof g.action === "string")
  );
}
