import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RealPathMemo } from "../../../src/host/real-paths.ts";
import type { Engine } from "../../../src/engine.ts";
import { call, makeEngine, taintWithPage } from "../../helpers/engine.ts";
import { nextId } from "../../helpers/fixtures.ts";

/**
 * Real paths are reused between calls only while nothing can have moved them. A symlink swapped
 * by a command (while it runs, after it returns, or by what it left running) must be seen by the
 * next decision, or a read the workspace allowed a moment ago would reach the credentials now.
 */
const ENFORCE = { capabilities: { mode: "enforce" } };
const LOWERED = "agent:main:lowered";

function setup(realPaths: RealPathMemo, config: Record<string, unknown> = ENFORCE) {
  const te = makeEngine(config, { realPaths });
  const notes = join(te.workspace, "real-notes");
  const credentials = join(te.state, "credentials");
  mkdirSync(notes, { recursive: true });
  mkdirSync(credentials, { recursive: true });
  writeFileSync(join(notes, "config.json"), '{"theme":"dark"}');
  writeFileSync(join(credentials, "config.json"), '{"token":"x"}');
  symlinkSync(notes, join(te.workspace, "notes"));
  taintWithPage(te.engine, LOWERED);
  /** What the owner's `ln -sfn` does to the workspace's link while it runs. */
  const swap = () => {
    rmSync(join(te.workspace, "notes"));
    symlinkSync(credentials, join(te.workspace, "notes"));
  };
  const read = () => te.engine.gate(call("read", { params: { path: "notes/config.json" }, sessionKey: LOWERED, toolCallId: nextId() }));
  return { ...te, swap, read };
}

/** The owner's command that relinks `notes`; its result is delivered by the caller. */
function relink(engine: Engine): string {
  const id = nextId();
  const d = engine.gate(call("exec", { params: { command: "ln -sfn ~/.openclaw/credentials notes" }, toolCallId: id }));
  expect(d.outcome).toBe("allow");
  return id;
}

function result(engine: Engine, id: string, details?: Record<string, unknown>) {
  engine.observeResult({
    toolName: "exec",
    toolCallId: id,
    sessionKey: "agent:main:main",
    isSubagent: false,
    content: { content: [], ...(details ? { details } : {}) },
  });
}

describe("real paths reused between calls", () => {
  it("a read reuses the real path it resolved, and a lowered session's read of the workspace runs", () => {
    const memo = new RealPathMemo();
    const s = setup(memo);
    expect(s.read().outcome).toBe("allow");
    expect(memo.size).toBeGreaterThan(0);
    expect(s.read().outcome).toBe("allow");
  });

  it("a link swapped while the owner's command runs is followed by the reads made meanwhile and after", () => {
    const memo = new RealPathMemo();
    const s = setup(memo);
    expect(s.read().outcome).toBe("allow");
    const id = relink(s.engine);
    s.swap();
    expect(memo.remembering).toBe(false);
    expect(s.read().outcome).not.toBe("allow");
    result(s.engine, id);
    expect(s.read().outcome).not.toBe("allow");
  });

  it("a command whose result never arrives keeps real paths from being reused", () => {
    const memo = new RealPathMemo();
    const s = setup(memo);
    expect(s.read().outcome).toBe("allow");
    relink(s.engine);
    expect(s.read().outcome).toBe("allow");
    s.swap();
    expect(s.read().outcome).not.toBe("allow");
  });

  it("a command left running in the background: real paths are never reused again", () => {
    const memo = new RealPathMemo();
    const s = setup(memo);
    const id = nextId();
    expect(
      s.engine.gate(call("exec", { params: { command: "sleep 5; ln -sfn ~/.openclaw/credentials notes", background: true }, toolCallId: id })).outcome,
    ).toBe("allow");
    result(s.engine, id, { status: "running", sessionId: "proc-1" });
    expect(s.read().outcome).toBe("allow");
    s.swap();
    expect(s.read().outcome).not.toBe("allow");
    expect(memo.remembering).toBe(false);
  });

  it("a spawned child session outlives its call: real paths are never reused again", () => {
    const memo = new RealPathMemo();
    const s = setup(memo);
    const id = nextId();
    expect(s.engine.gate(call("sessions_spawn", { params: { task: "tidy the notes", runtime: "acp", agentId: "codex" }, toolCallId: id })).outcome).toBe(
      "allow",
    );
    s.engine.observeResult({ toolName: "sessions_spawn", toolCallId: id, sessionKey: "agent:main:main", isSubagent: false, content: { content: [] } });
    expect(s.read().outcome).toBe("allow");
    s.swap();
    expect(s.read().outcome).not.toBe("allow");
  });

  it("a call the owner was asked about holds until the answer, and a denial ends it", () => {
    const memo = new RealPathMemo();
    const s = setup(memo, { ...ENFORCE, approvals: { default: "approve" } });
    const asking = call("exec", { params: { command: "touch notes/seen" }, sessionKey: LOWERED, toolCallId: nextId() });
    const asked = s.engine.gate(asking);
    expect(asked.outcome).toBe("approve");
    expect(memo.remembering).toBe(false);
    s.engine.approvalResolved(asking, asked, "deny");
    expect(memo.remembering).toBe(true);
  });

  it("a write goes through the link to its file and moves nothing: real paths stay reused, and still right", () => {
    const memo = new RealPathMemo();
    const s = setup(memo);
    expect(s.read().outcome).toBe("allow");
    const id = nextId();
    const path = "notes/config.json";
    expect(s.engine.gate(call("write", { params: { path, content: '{"theme":"light"}' }, toolCallId: id })).outcome).toBe("allow");
    expect(memo.remembering).toBe(true);
    // What OpenClaw's write does on the host: it rewrites the file the link leads to, in place.
    writeFileSync(join(s.workspace, path), '{"theme":"light"}');
    s.engine.observeResult({ toolName: "write", toolCallId: id, sessionKey: "agent:main:main", isSubagent: false, content: { content: [] } });
    expect(memo.remembering).toBe(true);
    expect(memo.size).toBeGreaterThan(0);
    expect(s.read().outcome).toBe("allow");
    // The link still leads where it did: moving it is a command's doing, and that is seen.
    const moved = relink(s.engine);
    s.swap();
    result(s.engine, moved);
    expect(s.read().outcome).not.toBe("allow");
  });

  it("a change nobody's call made is seen once the answer is older than the time limit", () => {
    const clock = { now: 1_000 };
    const memo = new RealPathMemo({ ttlMs: 1000, now: () => clock.now });
    const s = setup(memo);
    expect(s.read().outcome).toBe("allow");
    s.swap();
    clock.now += 1001;
    expect(s.read().outcome).not.toBe("allow");
  });
});

describe("RealPathMemo", () => {
  it("forgets on a call that may move files, remembers nothing until its result, and stays off after a lasting one", () => {
    const memo = new RealPathMemo();
    memo.set("/w/a", "/r/a");
    expect(memo.get("/w/a")).toBe("/r/a");
    memo.changing("c1");
    expect(memo.get("/w/a")).toBeUndefined();
    memo.set("/w/a", "/r/a");
    expect(memo.size).toBe(0);
    memo.changed("c2");
    expect(memo.remembering).toBe(false);
    memo.changed("c1");
    expect(memo.remembering).toBe(true);
    memo.set("/w/a", "/r/a");
    memo.changing("c3");
    memo.changed("c3", true);
    expect(memo.remembering).toBe(false);
    memo.set("/w/b", "/r/b");
    expect(memo.get("/w/b")).toBeUndefined();
  });

  it("a call without an id, or one the caller marks lasting, turns it off", () => {
    const a = new RealPathMemo();
    a.changing(undefined);
    expect(a.remembering).toBe(false);
    const b = new RealPathMemo();
    b.changing("c1", true);
    b.changed("c1");
    expect(b.remembering).toBe(false);
  });

  it("a result for a call it was not told about changes nothing, even one left running", () => {
    const memo = new RealPathMemo();
    memo.set("/w/a", "/r/a");
    memo.changed("read-1", true);
    expect(memo.get("/w/a")).toBe("/r/a");
  });

  it("is bounded: the oldest answer goes first", () => {
    const memo = new RealPathMemo({ max: 2 });
    memo.set("/a", "/ra");
    memo.set("/b", "/rb");
    memo.set("/c", "/rc");
    expect(memo.size).toBe(2);
    expect(memo.get("/a")).toBeUndefined();
    expect(memo.get("/c")).toBe("/rc");
  });
});
