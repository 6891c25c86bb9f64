import { expect, it, vi } from "vitest";
import { STRANGER, bypassCorpus, ctxOf, expectStopped, gate, setup } from "./corpus.ts";

bypassCorpus("sub-agents", ({ config, enforceOnlyIt }) => {
  it("a sub-agent marker spoofed inside a normal session key does not escape the sender's trust", () => {
    const s = setup(config);
    for (const key of ["agent:main:telegram:group:subagent:1", "agent:main:main:subagent:x", "agent:main:telegram:direct:agent:main:subagent:9"]) {
      expectStopped(s, () => gate(s, "message", { action: "send", to: "@x" }, ctxOf(key, STRANGER)));
      expectStopped(s, () => gate(s, "write", { path: "AGENTS.md" }, ctxOf(key, STRANGER)));
    }
  });

  it("a sub-agent key with no requester and no known spawner starts low", () => {
    const s = setup(config);
    expectStopped(s, () => gate(s, "write", { path: "SOUL.md" }, ctxOf("agent:main:subagent:orphan", null)));
  });

  it("a child's calls before subagent_spawned arrives are held at the spawner's level", () => {
    const s = setup(config);
    const group = "agent:main:telegram:group:-100";
    s.rec.fire("message_received", { senderId: "777", content: "@bot start a helper" }, { channelId: "telegram", sessionKey: group });
    expect(gate(s, "sessions_spawn", { task: "x" }, ctxOf(group))?.block).not.toBe(true);
    const child = "agent:main:subagent:early";
    expectStopped(s, () => gate(s, "write", { path: "AGENTS.md" }, ctxOf(child, { senderIsOwner: false })));
    s.rec.fire("subagent_spawned", { childSessionKey: child, agentId: "main" }, { requesterSessionKey: group });
    expectStopped(s, () => gate(s, "write", { path: "AGENTS.md" }, ctxOf(child, { senderIsOwner: false })));
  });

  enforceOnlyIt("a child whose link never arrives does not inherit a clean spawner's level once its own spawn is over 10 minutes old", () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-11-22T10:00:00Z"));
    const s = setup(config);
    const group = "agent:main:telegram:group:-100";
    gate(s, "read", {}, ctxOf(group, STRANGER));
    expect(gate(s, "sessions_spawn", { task: "x" }, ctxOf(group, STRANGER))?.block).not.toBe(true);
    vi.setSystemTime(new Date("2026-11-22T10:11:00Z"));
    expect(gate(s, "sessions_spawn", { task: "y" })?.block).not.toBe(true); // the owner's clean spawn
    // The community-spawned child (no subagent_spawned ever arrived) makes its first call now.
    expectStopped(s, () => gate(s, "write", { path: "AGENTS.md" }, ctxOf("agent:main:subagent:from-group", { senderIsOwner: false })));
  });
});
