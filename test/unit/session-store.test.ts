import { describe, expect, it } from "vitest";
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionStore, type TaintSource } from "../../src/taint/session-store.ts";
import { call, makeEngine } from "../helpers/engine.ts";

const KEY = "agent:main:main";
const untrusted: TaintSource = { level: "untrusted", kind: "tool", label: "the result of web_fetch", tool: "web_fetch", callId: "c1", at: 1 };

function store(dir: string, maxSessions = 100) {
  return new SessionStore({ dir, maxSessions, maxSourcesPerSession: 4 });
}

describe("session store durability", () => {
  it("a restart keeps the taint: a new store on the same directory reads it back", () => {
    const dir = mkdtempSync(join(tmpdir(), "clawos-store-"));
    const first = store(dir);
    first.lower(KEY, untrusted);
    first.flush(); // what gateway_stop and process exit do
    const second = store(dir);
    expect(second.get(KEY).trust).toBe("untrusted");
    expect(second.get(KEY).lowered[0]).toMatchObject({ tool: "web_fetch", callId: "c1" });
  });

  it("an engine restarted on the same state blocks what the tainted session asked before", () => {
    const { engine, dir } = makeEngine({ capabilities: { mode: "enforce" } });
    engine.gate(call("web_fetch", { toolCallId: "w1" }));
    engine.observeResult({ toolName: "web_fetch", toolCallId: "w1", sessionKey: KEY, isSubagent: false });
    engine.flush();
    const restarted = makeEngine({ capabilities: { mode: "enforce" } }, { dir }).engine;
    expect(restarted.gate(call("exec")).outcome).toBe("block");
  });

  it("eviction from memory does not clean a session", () => {
    const dir = mkdtempSync(join(tmpdir(), "clawos-store-"));
    const s = store(dir, 2);
    s.lower(KEY, untrusted);
    s.get("b");
    s.get("c");
    expect(s.peek(KEY)).toBeUndefined();
    expect(s.get(KEY).trust).toBe("untrusted");
  });

  it("a truncated or hand-edited state file makes the session untrusted, with the reason", () => {
    const dir = mkdtempSync(join(tmpdir(), "clawos-store-"));
    const s = store(dir);
    s.lower(KEY, { ...untrusted, level: "community" });
    const file = s.fileOf(KEY);
    writeFileSync(file, '{"v":1,"key":"agent:main:main","tru');
    const truncated = store(dir).get(KEY);
    expect(truncated.trust).toBe("untrusted");
    expect(truncated.stateError).toMatch(/corrupt/);
    writeFileSync(file, JSON.stringify({ v: 2, key: KEY, trust: "root", lowered: [], recent: [] }));
    expect(store(dir).get(KEY).trust).toBe("untrusted");
    // A forged or hand-edited record fails its authentication check, whatever it claims.
    writeFileSync(file, JSON.stringify({ v: 2, key: KEY, trust: "owner", lowered: [], recent: [], updatedAt: 1, mac: "00".repeat(32) }));
    const forged = store(dir).get(KEY, "verified");
    expect(forged.trust).toBe("untrusted");
    expect(forged.stateError).toMatch(/authentication/);
    // A record written by an older ClawOS (no MAC) is not trusted either.
    writeFileSync(file, JSON.stringify({ v: 1, key: KEY, trust: "owner", lowered: [], recent: [], updatedAt: 1 }));
    expect(store(dir).get(KEY).stateError).toMatch(/not authenticated/);
  });

  it("state files are authenticated with a key beside the directory: a copy, a new key or a lost key fails closed", () => {
    const dir = mkdtempSync(join(tmpdir(), "clawos-store-"));
    const s = store(dir);
    s.lower(KEY, untrusted);
    s.lower("agent:main:other", { ...untrusted, level: "verified" });
    s.flush();
    expect(statSync(`${dir}.key`).mode & 0o777).toBe(0o600);
    expect(store(dir).get(KEY).trust).toBe("untrusted");
    expect(store(dir).get("agent:main:other").trust).toBe("verified");
    // A valid file of one session copied over another's: its key does not match.
    copyFileSync(s.fileOf("agent:main:other"), s.fileOf(KEY));
    expect(store(dir).get(KEY).trust).toBe("untrusted");
    // The key replaced (or deleted and recreated): every existing file fails its check.
    writeFileSync(`${dir}.key`, Buffer.alloc(32, 7));
    const rekeyed = store(dir).get("agent:main:other");
    expect(rekeyed.trust).toBe("untrusted");
    expect(rekeyed.stateError).toMatch(/authentication/);
  });

  it("a ledger line clearing a taint counts only with its MAC; a line adding one always counts", () => {
    const dir = mkdtempSync(join(tmpdir(), "clawos-store-"));
    const s = store(dir);
    s.lower(KEY, untrusted);
    s.flush();
    const ledger = `${dir}.tainted.log`;
    const added = readFileSync(ledger, "utf8").trim().split(" ")[0];
    unlinkSync(s.fileOf(KEY));
    appendFileSync(ledger, `-${added.slice(1)}\n-${added.slice(1)} 0000000000000000\n`);
    const reloaded = store(dir).get(KEY);
    expect(reloaded.trust).toBe("untrusted");
    expect(reloaded.stateError).toMatch(/missing, but the session was tainted/);
  });

  it("a file copied from another session does not apply", () => {
    const dir = mkdtempSync(join(tmpdir(), "clawos-store-"));
    const s = store(dir);
    s.lower("other", untrusted);
    writeFileSync(s.fileOf(KEY), JSON.stringify({ v: 1, key: "other", trust: "owner", lowered: [], recent: [] }));
    expect(store(dir).get(KEY).trust).toBe("untrusted");
  });

  it("a missing state directory fails closed for sessions not in memory, and is recreated on write", () => {
    const dir = mkdtempSync(join(tmpdir(), "clawos-store-"));
    const s = store(dir);
    rmSync(dir, { recursive: true, force: true });
    const state = s.get("fresh-session");
    expect(state.trust).toBe("untrusted");
    expect(state.stateError).toMatch(/was missing/);
    expect(s.health.readErrors).toBe(1);
    s.lower("next-session", { ...untrusted, level: "community" });
    expect(s.get("next-session").trust).toBe("community");
    s.flush();
    expect(readdirSync(dir).length).toBe(1);
  });

  it("an unreadable state file fails closed", () => {
    const dir = mkdtempSync(join(tmpdir(), "clawos-store-"));
    const s = store(dir);
    // A directory where the file should be cannot be read, even by root (EISDIR).
    mkdirSync(s.fileOf(KEY));
    const state = store(dir).get(KEY);
    expect(state.trust).toBe("untrusted");
    expect(state.stateError).toMatch(/cannot be read \(EISDIR\)/);
  });

  it("write failures are counted and reported, and the trust in memory stays lowered", () => {
    const dir = mkdtempSync(join(tmpdir(), "clawos-store-"));
    const sessions = join(dir, "sessions");
    const s = store(sessions);
    s.lower(KEY, { ...untrusted, level: "community" });
    s.flush();
    rmSync(sessions, { recursive: true });
    writeFileSync(sessions, "a file where the directory was");
    s.lower(KEY, untrusted);
    s.flush();
    expect(s.get(KEY).trust).toBe("untrusted");
    expect(s.health.writeErrors).toBe(1);
    expect(s.health.lastWriteError).toMatch(/ENOTDIR|EEXIST/);
  });

  it("a trust change does not wait for the disk: it is effective at once and written in a later turn", async () => {
    const dir = mkdtempSync(join(tmpdir(), "clawos-store-"));
    const s = store(dir);
    s.lower(KEY, untrusted);
    expect(s.get(KEY).trust).toBe("untrusted");
    expect(existsSync(s.fileOf(KEY))).toBe(false);
    expect(s.pendingWrites).toBe(1);
    for (let i = 0; i < 50 && (s.pendingWrites > 0 || !existsSync(s.fileOf(KEY))); i++) await new Promise((r) => setTimeout(r, 10));
    expect(s.pendingWrites).toBe(0);
    expect(store(dir).get(KEY).trust).toBe("untrusted");
    expect(readFileSync(`${dir}.tainted.log`, "utf8")).toMatch(/^\+[0-9a-f]+ [0-9a-f]{16}\n$/);
  });

  it("a session evicted before its write lands comes back from memory, not from an older file", () => {
    const dir = mkdtempSync(join(tmpdir(), "clawos-store-"));
    const s = store(dir, 2);
    s.lower(KEY, { ...untrusted, level: "community" });
    s.flush();
    s.lower(KEY, untrusted); // on disk: community; pending: untrusted
    s.get("b");
    s.get("c");
    expect(s.peek(KEY)).toBeUndefined();
    expect(s.get(KEY).trust).toBe("untrusted");
  });

  it("flush takes over a write in flight: the newest state is what stays on disk", async () => {
    const dir = mkdtempSync(join(tmpdir(), "clawos-store-"));
    const s = store(dir);
    s.lower(KEY, { ...untrusted, level: "community" });
    await new Promise((r) => setImmediate(r)); // the async write has started
    s.lower(KEY, untrusted);
    s.flush();
    await new Promise((r) => setTimeout(r, 50)); // let the older write finish, if it would
    expect(store(dir).get(KEY).trust).toBe("untrusted");
    expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });
});
