// What OpenClaw's own memory tools bring into a session, on a real OpenClaw 2026.9.6 gateway in
// enforce mode. memory_get and memory_search quote workspace files (`provenance.output: "cited"`):
// their output has the trust of the files they quote, read as `read` would take them. A quote of
// USER.md, which OpenClaw never fills from conversations, keeps the owner's session at owner, so an
// owner-floor call (exec) still runs after it; a quote of MEMORY.md or of a memory note, which
// OpenClaw fills from past conversations with anyone, lowers the session to untrusted and the same
// call is blocked with memory's result named as the cause.
//
// The gateway's config differs from the other end-to-end tests in two places, for this file only:
// - Tool Search off: memory_search and memory_get are in the coding profile (group:memory), but they
//   are memory-core's plugin tools, which Tool Search offers only through `tool_call`. Off, the model
//   is offered them by name, as a gateway without Tool Search does.
// - memory.search: provider "none" is the host's deliberate keyword-only mode (no embedding provider,
//   no network, and no provider error text in the result); rememberAcrossConversations off keeps the
//   earlier sessions' transcripts of this run out of the hits.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuditLine, auditLines } from "../../tools/harness/audit-lines.ts";
import { createOpenClawEnv, type OpenClawEnv } from "../../tools/harness/gateway.ts";
import { type ScriptedModel, type ScriptedToolCall, startScriptedModel, toolNamesOffered, toolResultsIn } from "../../tools/harness/scripted-model.ts";
import { stagedClawos } from "../../tools/harness/stage.ts";

const USER_MD = "# User\n\n- Husband: Sam Okafor, phone +1 555 0100 (prefers SMS).\n- Always answer in English.\n";
const MEMORY_MD = "# Memory\n\n- Deploys happen on Fridays after the standup.\n";
const NOTE = "# 2026-01-02\n\n- Retro: the quarterly budget review moved to Tuesday.\n";

type Json = Record<string, unknown>;

describe("memory that quotes files, through a real gateway", () => {
  let model: ScriptedModel;
  let env: OpenClawEnv;

  beforeAll(async () => {
    model = await startScriptedModel();
    env = await createOpenClawEnv({
      model,
      toolSearch: false,
      plugins: [{ id: "clawos", dir: stagedClawos(), route: "load-path", config: { capabilities: { mode: "enforce" } } }],
      config: { memory: { search: { provider: "none", rememberAcrossConversations: false } } },
    });
    // Files on disk before the gateway starts: ClawOS saw no write to them, so each counts by its place.
    writeFileSync(join(env.workspaceDir, "USER.md"), USER_MD);
    writeFileSync(join(env.workspaceDir, "MEMORY.md"), MEMORY_MD);
    mkdirSync(join(env.workspaceDir, "memory"), { recursive: true });
    writeFileSync(join(env.workspaceDir, "memory", "2026-01-02.md"), NOTE);
    await env.startGateway({ expectPlugins: ["clawos", "memory-core"] });
    // The first search after start builds the keyword index and says so in a warning (prose beside
    // the hits, which keeps that one result untrusted): a session of its own takes it.
    await turn("MEM-WARMUP", [{ name: "memory_search", arguments: { query: "Sam Okafor" } }]);
  });

  afterAll(async () => {
    await env?.dispose();
    await model?.close();
  });

  /** One `openclaw agent` turn (the owner) whose model makes `calls` one after another, then answers. */
  async function turn(marker: string, calls: ScriptedToolCall[]): Promise<string> {
    const session = `agent:main:${marker.toLowerCase()}`;
    model.script({
      label: marker,
      when: { lastUserIncludes: marker },
      replies: [...calls.map((c) => ({ toolCalls: [c] })), { text: `${marker} finished` }],
    });
    const run = await env.agentTurn({ sessionKey: session, message: `${marker} check my notes, then mark it done` });
    expect(run.result.code, run.result.stderr).toBe(0);
    expect(model.pendingSteps()).not.toContain(marker);
    return session;
  }

  const touch = (file: string): ScriptedToolCall => ({ name: "exec", arguments: { command: `touch ${file}` } });

  /** The stored result of the session's one call to `tool`: its JSON as the host returned it, and ClawOS's note on it. */
  function resultOf(session: string, tool: string): { json: Json; clawos: Json | undefined } {
    const results = env.toolResults({ sessionKey: session }).filter((r) => r.toolName === tool);
    expect(results, `${tool} results in ${session}`).toHaveLength(1);
    const [stored] = results;
    expect(stored.isError).toBe(false);
    const details = stored.details as Json;
    return { json: JSON.parse(stored.text) as Json, clawos: details.clawos as Json | undefined };
  }

  function sessionLines(session: string): AuditLine[] {
    return auditLines(env).filter((l) => l.session === session);
  }

  function execDecision(session: string): AuditLine | undefined {
    return sessionLines(session).find((l) => l.event === "decision" && l.tool === "exec");
  }

  /** What the model was told about its exec call: the last tool result of the request after it. */
  function execResultText(file: string): string | undefined {
    for (const request of [...model.requests].reverse()) {
      if (!JSON.stringify(request.body).includes(`touch ${file}`)) continue;
      return toolResultsIn(request.body).at(-1)?.text;
    }
    return undefined;
  }

  it("memory_get of USER.md keeps the owner's session at owner: exec runs after it", async () => {
    const file = join(env.workspaceDir, "after-user-get.txt");
    const session = await turn("MEM-GET-USER", [{ name: "memory_get", arguments: { path: "USER.md" } }, touch(file)]);

    // Offered by name, beside the coding profile's own tools.
    expect(toolNamesOffered(model.requests.at(-1)?.body ?? { messages: [] })).toEqual(expect.arrayContaining(["memory_get", "memory_search", "exec"]));
    const got = resultOf(session, "memory_get");
    expect(got.json).toMatchObject({ status: "ok", path: "USER.md" });
    expect(String(got.json.text)).toContain("+1 555 0100");
    expect(got.clawos).toMatchObject({ tool: "memory_get", outputTrust: "owner", sessionTrust: "owner" });

    expect(sessionLines(session).filter((l) => l.event === "trust.lowered")).toEqual([]);
    expect(execDecision(session)).toMatchObject({ decision: "allow", inputTrust: "owner", mode: "enforce" });
    expect(existsSync(file)).toBe(true);
  });

  it("memory_get of MEMORY.md lowers the session to untrusted: exec is blocked, with memory_get named", async () => {
    const file = join(env.workspaceDir, "after-memory-get.txt");
    const session = await turn("MEM-GET-MEMORY", [{ name: "memory_get", arguments: { path: "MEMORY.md" } }, touch(file)]);

    const got = resultOf(session, "memory_get");
    // The same shape as the USER.md read, quoting its file as it is: only the file's place differs.
    expect(got.json).toMatchObject({ status: "ok", path: "MEMORY.md" });
    expect(String(got.json.text)).toContain("Deploys happen on Fridays");
    expect(got.clawos).toMatchObject({ tool: "memory_get", outputTrust: "untrusted", sessionTrust: "untrusted" });

    const lowered = sessionLines(session).filter((l) => l.event === "trust.lowered");
    expect(lowered).toHaveLength(1);
    expect(lowered[0]).toMatchObject({ from: "owner", to: "untrusted", source: { kind: "tool", tool: "memory_get" } });

    const decision = execDecision(session);
    expect(decision).toMatchObject({ decision: "block", inputTrust: "untrusted", mode: "enforce" });
    expect(decision?.rules).toEqual(expect.arrayContaining(["tool.min-input-trust"]));
    expect(decision?.taint).toEqual(expect.arrayContaining([expect.objectContaining({ tool: "memory_get", level: "untrusted" })]));
    expect(existsSync(file)).toBe(false);
    const told = execResultText(file);
    expect(told).toMatch(/^ClawOS blocked exec/);
    expect(told).toContain("since the result of memory_get");
  });

  it("memory_search hitting only USER.md keeps the session at owner: exec runs after it", async () => {
    const file = join(env.workspaceDir, "after-user-search.txt");
    const session = await turn("MEM-SEARCH-USER", [{ name: "memory_search", arguments: { query: "husband phone" } }, touch(file)]);

    const found = resultOf(session, "memory_search");
    const hits = found.json.results as Json[];
    expect(hits.map((h) => h.path)).toEqual(["USER.md"]);
    expect(hits[0]).toMatchObject({ source: "memory", corpus: "memory" });
    expect(String(hits[0].snippet)).toContain("+1 555 0100");
    // No index warning this time (the warm-up search took it): nothing but hits and the host's metadata.
    expect(found.json).not.toHaveProperty("warning");
    expect(found.clawos).toMatchObject({ tool: "memory_search", outputTrust: "owner", sessionTrust: "owner" });

    expect(sessionLines(session).filter((l) => l.event === "trust.lowered")).toEqual([]);
    expect(execDecision(session)).toMatchObject({ decision: "allow", inputTrust: "owner", mode: "enforce" });
    expect(existsSync(file)).toBe(true);
  });

  it("memory_search hitting a memory note lowers the session to untrusted: exec is blocked, with memory_search named", async () => {
    const file = join(env.workspaceDir, "after-note-search.txt");
    const session = await turn("MEM-SEARCH-NOTE", [{ name: "memory_search", arguments: { query: "quarterly budget review" } }, touch(file)]);

    const found = resultOf(session, "memory_search");
    const hits = found.json.results as Json[];
    expect(hits.map((h) => h.path)).toEqual(["memory/2026-01-02.md"]);
    expect(found.json).not.toHaveProperty("warning");
    expect(found.clawos).toMatchObject({ tool: "memory_search", outputTrust: "untrusted", sessionTrust: "untrusted" });

    const decision = execDecision(session);
    expect(decision).toMatchObject({ decision: "block", inputTrust: "untrusted", mode: "enforce" });
    expect(decision?.taint).toEqual(expect.arrayContaining([expect.objectContaining({ tool: "memory_search", level: "untrusted" })]));
    expect(existsSync(file)).toBe(false);
    const told = execResultText(file);
    expect(told).toMatch(/^ClawOS blocked exec/);
    expect(told).toContain("since the result of memory_search");
  });
});
