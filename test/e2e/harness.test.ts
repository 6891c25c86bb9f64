// Proves the end-to-end harness against a real OpenClaw gateway: scripted model -> exec tool call ->
// file on disk, with the hook-probe plugin loaded and seeing the call.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenClawEnv } from "../../tools/harness/gateway.ts";
import type { OpenClawEnv } from "../../tools/harness/gateway.ts";
import { probeHooks } from "../../tools/harness/probe-log.ts";
import { startScriptedModel, toolResultsIn } from "../../tools/harness/scripted-model.ts";
import type { ScriptedModel } from "../../tools/harness/scripted-model.ts";

const FIXTURES = resolve(import.meta.dirname, "../../tools/harness/fixtures");

describe("e2e harness on a real gateway", () => {
  let model: ScriptedModel;
  let env: OpenClawEnv;
  let probeFile: string;

  beforeAll(async () => {
    model = await startScriptedModel();
    env = await createOpenClawEnv({
      model,
      plugins: [{ id: "hook-probe", dir: join(FIXTURES, "hook-probe"), route: "load-path" }],
    });
    probeFile = join(env.rootDir, "probe.jsonl");
    env.setPluginConfig("hook-probe", { outFile: probeFile });
    await env.startGateway({ expectPlugins: ["hook-probe"] });
  });

  afterAll(async () => {
    await env?.dispose();
    await model?.close();
  });

  it("runs a scripted exec through the gateway and the probe sees it", async () => {
    const target = join(env.workspaceDir, "made-by-exec.txt");
    model.script({
      label: "exec-touch",
      when: { lastUserIncludes: "HARNESS-EXEC" },
      replies: [{ toolCalls: [{ name: "exec", arguments: { command: `touch ${target}` } }] }, { text: "file created" }],
    });

    const { result, json } = await env.agentTurn({ sessionKey: "agent:main:harness-1", message: "HARNESS-EXEC create the file" });

    expect(result.code, result.stderr).toBe(0);
    expect(JSON.stringify(json)).toContain("file created");
    expect(existsSync(target)).toBe(true);
    expect(model.pendingSteps()).toEqual([]);

    // The model got the exec result back in its follow-up request.
    const followUp = model.requests.find((q) => q.answeredBy === "exec-touch" && toolResultsIn(q.body).length > 0);
    expect(followUp).toBeDefined();

    const seen = probeHooks(probeFile, "before_tool_call", (r) => r.event.toolName === "exec");
    expect(seen).toHaveLength(1);
    expect(seen[0].ctx.sessionKey).toBe("agent:main:harness-1");
    expect(seen[0].event.params.command).toBe(`touch ${target}`);

    const stored = env.toolResults({ sessionKey: "agent:main:harness-1" });
    expect(stored.map((r) => r.toolName)).toContain("exec");

    expect(env.pluginErrors(["hook-probe"])).toEqual([]);
  });
});
