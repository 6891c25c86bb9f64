// Measures which hooks fire, with which event/ctx, on every way a turn can run on the real host.
// Usage (Node 24): node tools/harness/measure-hooks.ts [outDir]
// Writes <outDir>/measurements.json and prints a summary; the run directory is removed afterwards.
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createOpenClawEnv } from "./gateway.ts";
import type { OpenClawEnv } from "./gateway.ts";
import { readProbe, waitForProbe } from "./probe-log.ts";
import type { ProbeRecord } from "./probe-log.ts";
import { lastUserText, sessionKeyOf, startScriptedModel, toolResultsIn } from "./scripted-model.ts";
import type { ScriptedModel } from "./scripted-model.ts";

const FIXTURES = resolve(import.meta.dirname, "fixtures");
const outDir = resolve(process.argv[2] ?? join(process.env.TMPDIR ?? "/tmp", `clawos-measure-${Date.now()}`));
mkdirSync(outDir, { recursive: true });
const probeFile = join(outDir, "probe.jsonl");
const results: Record<string, unknown> = {};
const ADMIN = ["operator.admin", "operator.read", "operator.write"];

function slim(record: ProbeRecord): ProbeRecord {
  // gateway_start carries the whole config; keep the shape readable.
  if (record.ctx?.config) return { ...record, ctx: { ...record.ctx, config: "[config]" } };
  return record;
}

function modelView(model: ScriptedModel, from: number) {
  return model.requests.slice(from).map((q) => ({
    index: q.index,
    answeredBy: q.answeredBy,
    sessionKey: sessionKeyOf(q.body),
    lastUser: lastUserText(q.body).slice(0, 300),
    toolResults: toolResultsIn(q.body),
    tools: (q.body.tools ?? []).map((t) => t.function.name),
    lastMessages: q.body.messages.slice(-3),
  }));
}

async function scenario(name: string, env: OpenClawEnv | undefined, model: ScriptedModel, run: () => Promise<unknown>) {
  const probeFrom = readProbe(probeFile).length;
  const modelFrom = model.requests.length;
  const started = Date.now();
  let outcome: unknown;
  let error: string | undefined;
  try {
    outcome = await run();
  } catch (e) {
    error = String((e as Error)?.stack ?? e);
  }
  await new Promise((r) => setTimeout(r, 1500)); // late hooks (session_end, subagent_ended) land asynchronously
  const record = {
    durationMs: Date.now() - started,
    error,
    outcome,
    probe: readProbe(probeFile).slice(probeFrom).map(slim),
    model: modelView(model, modelFrom),
  };
  results[name] = record;
  writeFileSync(join(outDir, "measurements.json"), JSON.stringify(results, null, 2));
  console.log(
    `## ${name}: ${record.durationMs} ms${error ? ` ERROR ${error.split("\n")[0]}` : ""}; hooks: ${record.probe.map((p) => p.hook + (p.event?.toolName ? `(${p.event.toolName})` : "")).join(", ")}`,
  );
  void env;
}

const model = await startScriptedModel();
const env = await createOpenClawEnv({
  model,
  plugins: [
    { id: "hook-probe", dir: join(FIXTURES, "hook-probe"), config: { outFile: probeFile, label: "v1", blockMarker: "BLOCKME", persistExtraDetails: true } },
    { id: "taint-tools", dir: join(FIXTURES, "taint-tools") },
  ],
});
const touch = (name: string) => `touch ${join(env.workspaceDir, name)}`;

try {
  const ready = await env.startGateway({ expectPlugins: ["hook-probe", "taint-tools"] });
  results.coldStart = ready;
  console.log("gateway ready", ready);

  await scenario("agentTurn_exec_direct", env, model, async () => {
    model.script({
      label: "direct",
      when: { lastUserIncludes: "M-DIRECT" },
      replies: [{ toolCalls: [{ name: "exec", arguments: { command: touch("direct") } }] }, { text: "ok direct" }],
    });
    const r = await env.agentTurn({ sessionKey: "agent:main:m-direct", message: "M-DIRECT run it" });
    return { code: r.result.code, ms: r.result.durationMs, toolResults: env.toolResults({ sessionKey: "agent:main:m-direct" }) };
  });

  await scenario("agentTurn_exec_blocked", env, model, async () => {
    model.script({
      label: "blocked",
      when: { lastUserIncludes: "M-BLOCK" },
      replies: [{ toolCalls: [{ name: "exec", arguments: { command: "echo BLOCKME" } }] }, { text: "ok blocked" }],
    });
    const r = await env.agentTurn({ sessionKey: "agent:main:m-block", message: "M-BLOCK run it" });
    return { code: r.result.code, toolResults: env.toolResults({ sessionKey: "agent:main:m-block" }) };
  });

  await scenario("agentTurn_exec_via_tool_call", env, model, async () => {
    model.script({
      label: "tc",
      when: { lastUserIncludes: "M-TC" },
      replies: [{ toolCalls: [{ name: "tool_call", arguments: { id: "exec", args: { command: touch("via-tool-call") } } }] }, { text: "ok tc" }],
    });
    const r = await env.agentTurn({ sessionKey: "agent:main:m-tc", message: "M-TC run it" });
    return { code: r.result.code, toolResults: env.toolResults({ sessionKey: "agent:main:m-tc" }) };
  });

  await scenario("agentTurn_exec_via_tool_call_blocked", env, model, async () => {
    model.script({
      label: "tcb",
      when: { lastUserIncludes: "M-TCB" },
      replies: [{ toolCalls: [{ name: "tool_call", arguments: { id: "exec", args: { command: "echo BLOCKME" } } }] }, { text: "ok tcb" }],
    });
    const r = await env.agentTurn({ sessionKey: "agent:main:m-tcb", message: "M-TCB run it" });
    return { code: r.result.code, toolResults: env.toolResults({ sessionKey: "agent:main:m-tcb" }) };
  });

  await scenario("agentTurn_plugin_tool_via_tool_call", env, model, async () => {
    model.script({
      label: "fetch",
      when: { lastUserIncludes: "M-FETCH" },
      replies: [{ toolCalls: [{ name: "tool_call", arguments: { id: "fetch_page", args: { url: "http://example.invalid/" } } }] }, { text: "ok fetch" }],
    });
    const r = await env.agentTurn({ sessionKey: "agent:main:m-fetch", message: "M-FETCH read the page" });
    return { code: r.result.code, toolResults: env.toolResults({ sessionKey: "agent:main:m-fetch" }) };
  });

  await scenario("chatSend_exec", env, model, async () => {
    model.script({
      label: "chat",
      when: { lastUserIncludes: "M-CHAT" },
      replies: [{ toolCalls: [{ name: "exec", arguments: { command: touch("chat") } }] }, { text: "ok chat" }],
    });
    const r = await env.chatSend({ sessionKey: "agent:main:m-chat", message: "M-CHAT run it" });
    return { sent: r.sent, reply: r.reply, toolResults: env.toolResults({ sessionKey: "agent:main:m-chat" }) };
  });

  await scenario("chatSend_probe_command", env, model, async () => {
    const sent = await env.gatewayCall("chat.send", { sessionKey: "agent:main:m-chat", message: "/probe hello", idempotencyKey: `probe-${Date.now()}` });
    await new Promise((r) => setTimeout(r, 3000));
    return { sent, history: (await env.chatHistory("agent:main:m-chat")).slice(-2) };
  });

  await scenario("chatSend_new_write_scope", env, model, async () => {
    const r = await env.chatSend({ sessionKey: "agent:main:m-chat", message: "/new" });
    return { reply: r.reply };
  });

  await scenario("chatSend_admin_exec", env, model, async () => {
    model.script({
      label: "chat-admin",
      when: { lastUserIncludes: "M-ADMIN" },
      replies: [{ toolCalls: [{ name: "exec", arguments: { command: "echo admin" } }] }, { text: "ok admin" }],
    });
    const r = await env.chatSend({ sessionKey: "agent:main:m-chat", message: "M-ADMIN run it", scopes: ADMIN });
    return { reply: r.reply };
  });

  await scenario("chatSend_new_admin", env, model, async () => {
    const r = await env.chatSend({ sessionKey: "agent:main:m-chat", message: "/new", scopes: ADMIN });
    await new Promise((res) => setTimeout(res, 2000));
    return { reply: r.reply };
  });

  await scenario("chatSend_after_new", env, model, async () => {
    model.script({ label: "after-new", when: { lastUserIncludes: "M-AFTERNEW" }, replies: [{ text: "ok after new" }] });
    const r = await env.chatSend({ sessionKey: "agent:main:m-chat", message: "M-AFTERNEW hi", scopes: ADMIN });
    return { reply: r.reply };
  });

  await scenario("chatSend_reset_admin", env, model, async () => {
    const r = await env.chatSend({ sessionKey: "agent:main:m-chat", message: "/reset", scopes: ADMIN });
    await new Promise((res) => setTimeout(res, 2000));
    return { reply: r.reply };
  });

  await scenario("subagent_spawn", env, model, async () => {
    model.script(
      {
        label: "parent-spawn",
        when: { lastUserIncludes: "M-PARENT" },
        replies: [
          { toolCalls: [{ name: "tool_call", arguments: { id: "sessions_spawn", args: { task: "M-CHILD please touch a file", mode: "run" } } }] },
          { text: "spawned" },
        ],
      },
      {
        label: "child",
        when: { lastUserIncludes: "M-CHILD" },
        replies: [{ toolCalls: [{ name: "exec", arguments: { command: touch("child") } }] }, { text: "child finished M-CHILD-RESULT" }],
      },
    );
    const r = await env.agentTurn({ sessionKey: "agent:main:m-parent", message: "M-PARENT delegate" });
    // The child runs and announces back to the parent asynchronously.
    await waitForProbe(probeFile, (rs) => rs.some((x) => x.hook === "subagent_ended"), 60_000).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 5000));
    return { code: r.result.code, parentToolResults: env.toolResults({ sessionKey: "agent:main:m-parent" }) };
  });

  await scenario("hot_reload", env, model, async () => {
    const t0 = Date.now();
    env.setPluginConfig("hook-probe", { outFile: probeFile, label: "v2", blockMarker: "BLOCKME", persistExtraDetails: true });
    const recs = await waitForProbe(probeFile, (rs) => rs.some((x) => x.hook === "register" && x.label === "v2"), 30_000);
    const firstV2 = recs.find((x) => x.hook === "register" && x.label === "v2");
    await new Promise((r) => setTimeout(r, 3000));
    model.script({
      label: "after-reload",
      when: { lastUserIncludes: "M-RELOAD" },
      replies: [{ toolCalls: [{ name: "exec", arguments: { command: "echo reload" } }] }, { text: "ok reload" }],
    });
    await env.agentTurn({ sessionKey: "agent:main:m-reload", message: "M-RELOAD" });
    return { reloadMs: firstV2 ? firstV2.t - t0 : undefined, gatewayStillRunning: env.gatewayRunning() };
  });

  await scenario("inner_block_via_tool_call", env, model, async () => {
    env.setPluginConfig("hook-probe", { outFile: probeFile, label: "v3", blockTools: ["exec", "fetch_page"], persistExtraDetails: true });
    await waitForProbe(probeFile, (rs) => rs.some((x) => x.hook === "register" && x.label === "v3"), 30_000);
    await new Promise((r) => setTimeout(r, 3000));
    model.script({
      label: "inner",
      when: { lastUserIncludes: "M-INNER" },
      replies: [
        {
          toolCalls: [
            { name: "tool_call", arguments: { id: "exec", args: { command: "echo inner" } } },
            { name: "tool_call", arguments: { id: "fetch_page", args: { url: "http://example.invalid/" } } },
          ],
        },
        { text: "ok inner" },
      ],
    });
    await env.agentTurn({ sessionKey: "agent:main:m-inner", message: "M-INNER" });
    const toolResults = env.toolResults({ sessionKey: "agent:main:m-inner" });
    env.setPluginConfig("hook-probe", { outFile: probeFile, label: "v4", blockMarker: "BLOCKME", persistExtraDetails: true });
    await waitForProbe(probeFile, (rs) => rs.some((x) => x.hook === "register" && x.label === "v4"), 30_000);
    return { toolResults };
  });

  await scenario("warm_turn_latency", env, model, async () => {
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t0 = Date.now();
      await env.agentTurn({ sessionKey: `agent:main:m-lat-${i}`, message: `latency ${i}` });
      times.push(Date.now() - t0);
    }
    return { cliTurnMs: times };
  });

  results.gatewayPluginErrors = env.pluginErrors(["hook-probe", "taint-tools"]);
  const t0 = Date.now();
  await env.stopGateway();
  results.stopMs = Date.now() - t0;

  await scenario("agentLocal_exec", env, model, async () => {
    model.script({
      label: "local",
      when: { lastUserIncludes: "M-LOCAL" },
      replies: [{ toolCalls: [{ name: "exec", arguments: { command: touch("local") } }] }, { text: "ok local" }],
    });
    const r = await env.agentLocal({ sessionKey: "agent:main:m-local", message: "M-LOCAL run it" });
    return {
      code: r.result.code,
      ms: r.result.durationMs,
      stderrTail: r.result.stderr.slice(-1500),
      toolResults: env.toolResults({ sessionKey: "agent:main:m-local" }),
    };
  });

  await scenario("agentExec_exec", env, model, async () => {
    model.script({
      label: "agentexec",
      when: { lastUserIncludes: "M-EXEC1" },
      replies: [{ toolCalls: [{ name: "exec", arguments: { command: touch("agent-exec") } }] }, { text: "ok exec" }],
    });
    const r = await env.agentExec("M-EXEC1 run it", { cwd: env.workspaceDir });
    return { code: r.result.code, ms: r.result.durationMs, json: r.json, stderrTail: r.result.stderr.slice(-1500) };
  });

  await scenario("agentExec_blocked_and_plugin_tool", env, model, async () => {
    model.script({
      label: "agentexec2",
      when: { lastUserIncludes: "M-EXEC2" },
      replies: [
        {
          toolCalls: [
            { name: "exec", arguments: { command: "echo BLOCKME" } },
            { name: "tool_call", arguments: { id: "fetch_page", args: { url: "http://example.invalid/" } } },
          ],
        },
        { text: "ok exec2" },
      ],
    });
    const r = await env.agentExec("M-EXEC2 run it", { cwd: env.workspaceDir });
    return { code: r.result.code, json: r.json, stderrTail: r.result.stderr.slice(-1500) };
  });
} finally {
  writeFileSync(join(outDir, "measurements.json"), JSON.stringify(results, null, 2));
  writeFileSync(join(outDir, "gateway.log"), env.readLog());
  await env.dispose();
  await model.close();
  console.log(`measurements in ${outDir}`);
}
