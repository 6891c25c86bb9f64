import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { isoTime } from "../report/iso-time.ts";
import { formatSession } from "../report/status.ts";
import { isSubagentSessionKey } from "../host/session-keys.ts";
import { sessionFileName, SessionStore, type TaintSource } from "../taint/session-store.ts";
import type { TrustLevel } from "../taint/trust.ts";
import type { StateFiles } from "./state-files.ts";

/**
 * Every session ClawOS keeps on disk and its input trust, read with the gateway stopped. Each file is
 * loaded through the session store itself, so a file that fails its authentication check (forged,
 * edited, copied) is reported in the store's own words and shown as the gateway will treat it:
 * untrusted. Nothing is written: the store is only opened when its key exists (opening it without
 * one would create a key).
 */

export interface SessionEntry {
  readonly key: string;
  readonly file: string;
  readonly trust: TrustLevel;
  /** The lower trust audit mode let in (enforce counts it), when there is one. */
  readonly shadow?: TrustLevel;
  readonly parent?: string;
  readonly updatedAt: number;
  /** The inputs that lowered it, oldest first. */
  readonly lowered: readonly TaintSource[];
  /** Why the gateway will not trust the file (it then treats the session as untrusted). */
  readonly problem?: string;
}

export interface SessionListing {
  readonly dir: string;
  readonly exists: boolean;
  readonly keyFile: string;
  readonly key: "ok" | "missing" | "unusable";
  readonly entries: readonly SessionEntry[];
  /** Files that are not session records at all. */
  readonly unreadable: readonly { readonly file: string; readonly problem: string }[];
}

function keyState(file: string): SessionListing["key"] {
  try {
    return readFileSync(file).length >= 32 ? "ok" : "unusable";
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? "missing" : "unusable";
  }
}

export function listSessions(files: Pick<StateFiles, "sessionsDir" | "keyFile">): SessionListing {
  const dir = files.sessionsDir;
  const key = keyState(files.keyFile);
  const base = { dir, keyFile: files.keyFile, key };
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .sort();
  } catch {
    return { ...base, exists: existsSync(dir), entries: [], unreadable: [] };
  }
  const store = key === "ok" ? new SessionStore({ dir, maxSessions: names.length + 1, maxSourcesPerSession: 64, maxValuesPerSession: 1 }) : undefined;
  const entries: SessionEntry[] = [];
  const unreadable: { file: string; problem: string }[] = [];
  for (const name of names) {
    const file = join(dir, name);
    let record: { key?: unknown; updatedAt?: unknown };
    try {
      record = JSON.parse(readFileSync(file, "utf8")) as { key?: unknown };
    } catch (error) {
      unreadable.push({ file, problem: `not a session record (${(error as Error).message})` });
      continue;
    }
    if (typeof record?.key !== "string") {
      unreadable.push({ file, problem: "not a session record (no key)" });
      continue;
    }
    const sessionKey = record.key;
    const updatedAt = typeof record.updatedAt === "number" ? record.updatedAt : safeMtime(file);
    // A file ClawOS cannot vouch for counts as untrusted, with the reason.
    const distrusted = (problem: string): SessionEntry => ({ key: sessionKey, file, trust: "untrusted", updatedAt, lowered: [], problem });
    if (sessionFileName(sessionKey) !== name) {
      // The gateway looks a session up by the name its key hashes to: this file is never read for it.
      entries.push(distrusted(`the file name does not match its session (copied or renamed from ${sessionFileName(sessionKey)})`));
      continue;
    }
    if (!store) {
      entries.push(distrusted(`cannot be verified: the state key ${files.keyFile} is ${key === "missing" ? "missing" : "unusable"}`));
      continue;
    }
    const state = store.get(sessionKey);
    entries.push({
      key: sessionKey,
      file,
      trust: state.trust,
      ...(state.shadow ? { shadow: state.shadow } : {}),
      ...(state.parent ? { parent: state.parent } : {}),
      updatedAt: state.updatedAt,
      lowered: state.lowered,
      ...(state.stateError ? { problem: state.stateError } : {}),
    });
  }
  return { ...base, exists: true, entries, unreadable };
}

function safeMtime(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/** The input that set a session's trust: the latest that lowered it to where it is. */
function setBy(entry: SessionEntry): TaintSource | undefined {
  for (let i = entry.lowered.length - 1; i >= 0; i--) if (entry.lowered[i].level === entry.trust) return entry.lowered[i];
  return entry.lowered[entry.lowered.length - 1];
}

export function formatSessions(listing: SessionListing): string {
  if (!listing.exists) return `No session state yet (${listing.dir} does not exist): every session starts at owner.`;
  const counts = new Map<string, number>();
  for (const e of listing.entries) counts.set(e.trust, (counts.get(e.trust) ?? 0) + 1);
  const lines = [
    `Sessions in ${listing.dir}: ${listing.entries.length}${listing.entries.length ? ` (${[...counts].map(([t, n]) => `${t} ${n}`).join(", ")})` : ""}. Sessions without a file are at owner.`,
  ];
  if (listing.key !== "ok")
    lines.push(`WARNING state key ${listing.keyFile} is ${listing.key}: no session file can be verified, so the gateway treats every one as untrusted.`);
  const sorted = [...listing.entries].sort((a, b) => b.updatedAt - a.updatedAt);
  for (const e of sorted) {
    const by = setBy(e);
    const shadow = e.shadow && e.shadow !== e.trust ? ` (${e.shadow} if enforced)` : "";
    lines.push(
      `  ${e.trust.padEnd(9)} ${e.key}${shadow}  updated ${isoTime(e.updatedAt)}${e.parent ? `  parent ${e.parent}` : ""}${e.problem ? `  PROBLEM: ${e.problem}` : by ? `  since ${by.label}` : ""}`,
    );
  }
  for (const u of listing.unreadable) lines.push(`  PROBLEM ${u.file}: ${u.problem}`);
  if (sorted.some((e) => e.trust !== "owner")) lines.push("To raise a session: /new, or /clawos trust reset as the owner after reviewing what entered it.");
  return lines.join("\n");
}

/** One session in the words of `/clawos session`, read from its file (owner when it has none). */
export function describeSession(files: Pick<StateFiles, "sessionsDir" | "keyFile">, sessionKey: string): string {
  const isSubagent = isSubagentSessionKey(sessionKey);
  const file = join(files.sessionsDir, sessionFileName(sessionKey));
  if (keyState(files.keyFile) !== "ok") {
    if (!existsSync(file)) return formatSession(sessionKey, undefined, isSubagent);
    return `Session ${sessionKey}: its file ${file} cannot be verified (the state key ${files.keyFile} is missing or unusable); the gateway treats it as untrusted.`;
  }
  if (!existsSync(files.sessionsDir)) return formatSession(sessionKey, undefined, isSubagent);
  const store = new SessionStore({ dir: files.sessionsDir, maxSessions: 2, maxSourcesPerSession: 64, maxValuesPerSession: 1 });
  // A session with no file is at owner unless the store's ledger says it was tainted (then it fails closed).
  const state = store.get(sessionKey);
  if (!existsSync(file) && !state.stateError) return formatSession(sessionKey, undefined, isSubagent);
  return formatSession(sessionKey, { state, requesters: state.requesters ?? [] }, isSubagent);
}
