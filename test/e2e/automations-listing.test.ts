// What a listing of automations brings into a session, on a real OpenClaw 2026.9.6 gateway in
// enforce mode, with the jobs' last errors as the host records them. The gateway has its own home:
// no chat has given the main session a channel, so the heartbeat job every agent has skips for lack
// of a route, as it does on a gateway used only from the CLI.
//
// - The heartbeat's skipped reason ("heartbeat skipped: no-route") is the host's own words
//   (`hostText` in manifests/automations.json): the listing keeps the owner's trust and the add
//   after it goes ahead.
// - A job of the owner's whose run failed records the failure's words: the listing that shows them
//   lowers the session, and the add after it is blocked with the listing named as the cause.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenClawEnv, type OpenClawEnv } from "../../tools/harness/gateway.ts";
import { gatewayJobs, runJobNow } from "../../tools/harness/jobs.ts";
import { type ScriptedModel, startScriptedModel, toolResultsIn } from "../../tools/harness/scripted-model.ts";
import { stagedClawos } from "../../tools/harness/stage.ts";
import { storedTrust } from "../../tools/scenarios/runner.ts";

describe("a listing of automations and the jobs' last errors, through a real gateway", () => {
  let model: ScriptedModel;
  let env: OpenClawEnv;

  beforeAll(async () => {
    model = await startScriptedModel();
    env = await createOpenClawEnv({
      model,
      plugins: [{ id: "clawos", dir: stagedClawos(), route: "load-path", config: { capabilities: { mode: "enforce" } } }],
    });
    await env.startGateway({ expectPlugins: ["clawos"] });
  });

  afterAll(async () => {
    await env?.dispose();
    await model?.close();
  });

  const jobs = () => gatewayJobs(env);

  /** The model's call that adds one job through Tool Search's bridge. */
  const addJob = (job: Record<string, unknown>) => ({ toolCalls: [{ name: "tool_call", arguments: { id: "automations", args: { action: "add", job } } }] });

  /** One owner turn that lists the jobs and adds one; what the model read back for each call. */
  async function listThenAdd(marker: string, session: string, name: string): Promise<string[]> {
    model.script({
      label: marker,
      when: { lastUserIncludes: marker },
      replies: [
        { toolCalls: [{ name: "tool_call", arguments: { id: "automations", args: { action: "list", includeDisabled: true } } }] },
        addJob({ name, schedule: { kind: "cron", expr: "0 11 * * 1-5" }, sessionTarget: "main", payload: { kind: "systemEvent", text: "stretch" } }),
        { text: "done" },
      ],
    });
    const turn = await env.agentTurn({ sessionKey: session, message: `${marker} remind me to stretch on weekdays; check what's scheduled first` });
    expect(turn.result.code, turn.result.stderr).toBe(0);
    // The last request of the turn carries the session's whole history: this turn's results are the ones after the first request's.
    const requests = model.requests.filter((r) => r.answeredBy === marker);
    const earlier = toolResultsIn(requests[0].body).length;
    return toolResultsIn(requests[requests.length - 1].body)
      .slice(earlier)
      .map((r) => r.text);
  }

  it("the heartbeat's skipped reason keeps the owner's trust: the add after the listing goes ahead", async () => {
    const heartbeat = await runJobNow(env, "heartbeat-main");
    expect(heartbeat.state?.lastError).toBe("heartbeat skipped: no-route");
    const session = "agent:main:al-heartbeat";
    const results = await listThenAdd("AL-ONE", session, "al-stretch");
    expect(results[0]).toContain("heartbeat skipped: no-route");
    expect(results[1]).not.toContain("ClawOS blocked");
    expect((await jobs()).some((j) => j.name === "al-stretch")).toBe(true);
    expect(storedTrust(env, session)).toBe("owner");
  });

  it("a failed run's own words lower the session that lists them: the add after it is blocked", async () => {
    // The owner's session adds an isolated job; with no channel to deliver to, its run fails with the delivery's error.
    const session = "agent:main:al-failed";
    model.script({
      label: "AL-ADD",
      when: { lastUserIncludes: "AL-ADD" },
      replies: [
        addJob({
          name: "al-digest",
          schedule: { kind: "every", everyMs: 86_400_000 },
          sessionTarget: "isolated",
          payload: { kind: "agentTurn", message: "send the digest" },
        }),
        { text: "added" },
      ],
    });
    const add = await env.agentTurn({ sessionKey: session, message: "AL-ADD send me a daily digest" });
    expect(add.result.code, add.result.stderr).toBe(0);
    const failed = await runJobNow(env, "al-digest");
    expect(failed.state?.lastError ?? "").not.toBe("");
    expect(storedTrust(env, session)).toBe("owner");
    const results = await listThenAdd("AL-TWO", session, "al-stretch-2");
    expect(results[1]).toContain("ClawOS blocked automations");
    expect(results[1]).toContain("the result of automations");
    expect((await jobs()).some((j) => j.name === "al-stretch-2")).toBe(false);
    expect(storedTrust(env, session)).toBe("untrusted");
  });
});
