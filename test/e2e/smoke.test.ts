// First proof on the real host: ClawOS loaded into an OpenClaw 2026.9.6 gateway gates exec by the
// session's input trust, records would-blocks in audit mode, and /clawos reports what it observed.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenClawEnv, messageTextOf, type OpenClawEnv } from "../../tools/harness/gateway.ts";
import { startScriptedModel, toolResultsIn, type ScriptedModel } from "../../tools/harness/scripted-model.ts";
import { stagedClawos } from "../../tools/harness/stage.ts";
import { applyClawosConfig } from "../../tools/scenarios/runner.ts";
import { auditLines } from "../../tools/harness/audit-lines.ts";
import { waitFor } from "../../tools/harness/wait.ts";

const FIXTURES = resolve(import.meta.dirname, "../../tools/harness/fixtures");
const ADMIN = ["operator.admin", "operator.read", "operator.write"];
const OWNER_ADDRESS = "telegram:5551234";

describe("ClawOS on a real OpenClaw gateway (smoke)", () => {
  let model: ScriptedModel;
  let env: OpenClawEnv;

  beforeAll(async () => {
    model = await startScriptedModel();
    env = await createOpenClawEnv({
      model,
      plugins: [
        { id: "clawos", dir: stagedClawos(), route: "load-path", config: { capabilities: { mode: "enforce" } } },
        { id: "taint-tools", dir: join(FIXTURES, "taint-tools"), route: "load-path" },
      ],
      // The owner's own address, as the host's heartbeat alerts use it.
      config: { commands: { ownerAllowFrom: [OWNER_ADDRESS] } },
    });
    await env.startGateway({ expectPlugins: ["clawos", "taint-tools"] });
  });

  afterAll(async () => {
    await env?.dispose();
    await model?.close();
  });

  it("owner exec runs; in a session that read an untrusted page, exec is blocked with the reason", async () => {
    const session = "agent:main:smoke-1";
    const ownerSession = "agent:main:smoke-0";
    const first = join(env.workspaceDir, "smoke-owner.txt");
    const second = join(env.workspaceDir, "smoke-injected.txt");
    model.script(
      {
        label: "owner-exec",
        when: { lastUserIncludes: "SMOKE-ONE" },
        replies: [{ toolCalls: [{ name: "exec", arguments: { command: `touch ${first}` } }] }, { text: "created" }],
      },
      {
        label: "injected",
        when: { lastUserIncludes: "SMOKE-TWO" },
        replies: [
          { toolCalls: [{ name: "tool_call", arguments: { id: "fetch_page", args: { url: "https://news.example/article" } } }] },
          { toolCalls: [{ name: "exec", arguments: { command: `touch ${second}` } }] },
          { text: "summary done" },
        ],
      },
    );
    const one = await env.agentTurn({ sessionKey: ownerSession, message: "SMOKE-ONE make the file" });
    expect(one.result.code, one.result.stderr).toBe(0);
    expect(existsSync(first)).toBe(true);

    const two = await env.agentTurn({ sessionKey: session, message: "SMOKE-TWO summarise the page" });
    expect(two.result.code, two.result.stderr).toBe(0);
    expect(existsSync(second)).toBe(false);

    // The model was told why, in its next request.
    const told = model.requests
      .flatMap((r) => toolResultsIn(r.body))
      .map((r) => r.text)
      .find((t) => t.includes("ClawOS blocked exec"));
    expect(told).toContain("exec needs input trust owner");
    expect(told).toContain("the result of fetch_page");

    const decisions = await waitFor("audit records", () => {
      const lines = auditLines(env).filter((l) => l.event === "decision" && (l.session === session || l.session === ownerSession));
      return lines.length >= 3 ? lines : undefined;
    });
    expect(decisions.map((d) => [d.session, d.tool, d.decision])).toEqual([
      [ownerSession, "exec", "allow"],
      [session, "fetch_page", "allow"],
      [session, "exec", "block"],
    ]);
    expect(decisions[1]).toMatchObject({ via: "tool_call", manifested: false });
    expect(decisions[2]).toMatchObject({ inputTrust: "untrusted", rules: ["tool.min-input-trust", "capability.floor"] });
  });

  it("/clawos via chat.send reports the observed enforcement, and /clawos session the taint", async () => {
    const status = await env.chatSend({ sessionKey: "agent:main:smoke-1", message: "/clawos", scopes: ADMIN });
    const text = messageTextOf(status.reply);
    expect(text).toContain("Enforcement: ENFORCING");
    expect(text).toMatch(/trusted_tool_policy fired [1-9]\d*x/);
    expect(text).toContain("Tools seen without a manifest: fetch_page");
    const session = await env.chatSend({ sessionKey: "agent:main:smoke-1", message: "/clawos session", scopes: ADMIN });
    expect(messageTextOf(session.reply)).toContain("input trust untrusted");
    expect(messageTextOf(session.reply)).toContain("the result of fetch_page");
  });

  it("after a page lowered the session, a send to the owner's own address (commands.ownerAllowFrom) goes ahead; one to the page's id does not", async () => {
    const session = "agent:main:smoke-own";
    const send = (target: string) => ({
      name: "tool_call",
      arguments: { id: "message", args: { action: "send", channel: "telegram", target, message: "12C" } },
    });
    model.script({
      label: "own-address",
      when: { lastUserIncludes: "SMOKE-OWN" },
      replies: [
        { toolCalls: [{ name: "tool_call", arguments: { id: "fetch_page", args: { url: "https://weather.example/berlin" } } }] },
        { toolCalls: [send("5551234")] },
        { toolCalls: [send("5559999")] },
        { text: "sent" },
      ],
    });
    const turn = await env.agentTurn({ sessionKey: session, message: "SMOKE-OWN find tonight's weather and send it to my telegram" });
    expect(turn.result.code, turn.result.stderr).toBe(0);
    const sends = await waitFor("the two sends' records", () => {
      const lines = auditLines(env).filter((l) => l.event === "decision" && l.session === session && l.tool === "message");
      return lines.length >= 2 ? lines : undefined;
    });
    expect(sends[0]).toMatchObject({
      decision: "allow",
      inputTrust: "untrusted",
      rules: ["provenance.endorsed"],
      arguments: [{ argument: "target", value: "5551234", verdict: "endorsed", level: "owner", source: expect.stringContaining("commands.ownerAllowFrom") }],
    });
    expect(sends[1]).toMatchObject({ decision: "block", arguments: [{ argument: "target", value: "5559999", allowed: false }] });
  });

  it("after a hot reload to audit, the same attack runs and is recorded as a would-block", async () => {
    // Waits until the gateway's log says the reload was applied (a fixed pause was too short on a busy machine).
    await applyClawosConfig(env, { capabilities: { mode: "audit" } });
    const session = "agent:main:smoke-2";
    const target = join(env.workspaceDir, "smoke-audit.txt");
    model.script({
      label: "audit-run",
      when: { lastUserIncludes: "SMOKE-THREE" },
      replies: [
        { toolCalls: [{ name: "tool_call", arguments: { id: "fetch_page", args: { url: "https://news.example/b" } } }] },
        { toolCalls: [{ name: "exec", arguments: { command: `touch ${target}` } }] },
        { text: "ok" },
      ],
    });
    const turn = await env.agentTurn({ sessionKey: session, message: "SMOKE-THREE go" });
    expect(turn.result.code, turn.result.stderr).toBe(0);
    expect(existsSync(target)).toBe(true);
    const lines = await waitFor("would-block record", () => {
      const found = auditLines(env).filter((l) => l.session === session && l.tool === "exec");
      return found.length ? found : undefined;
    });
    expect(lines[0]).toMatchObject({ decision: "would-block", mode: "audit" });
    expect(env.pluginErrors(["clawos"])).toEqual([]);
  });
});
