// Point 6: end to end on a real OpenClaw gateway, through the e2e harness (tools/harness): the same
// scripted turn of 50 tool calls (`read` of a small workspace file, one call per model reply) with
// ClawOS absent, in audit and in enforce. Reports the turn time inside the gateway (first to last model
// request, so the CLI's own start-up is left out), the added time per tool call against the plugin-absent
// run, and the run-to-run spread of the plugin-absent turns (the noise the added time is compared with).
// Usage: npm run bench:e2e -- [--turns 5] [--calls 50] [--json FILE]. Takes several minutes.
// ClawOS is loaded from a staged plugin directory (scripts/stage-plugin.sh builds it from the current
// sources), as the end-to-end tests do.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createOpenClawEnv } from "../harness/gateway.ts";
import type { OpenClawEnv } from "../harness/gateway.ts";
import { startScriptedModel, toolResultsIn } from "../harness/scripted-model.ts";
import type { ChatRequestBody, ScriptedModel, ScriptedReply } from "../harness/scripted-model.ts";
import { stagedClawos } from "../harness/stage.ts";
import { parseArgs } from "./lib/host.ts";
import { fmt, summarize, table } from "./lib/stats.ts";

const args = parseArgs();
const TURNS = Number(args.turns ?? 5);
const CALLS = Number(args.calls ?? 50);

type Variant = { name: string; plugin?: { mode: "audit" | "enforce" } };
const variants: Variant[] = [
  { name: "plugin absent" },
  { name: "ClawOS audit", plugin: { mode: "audit" } },
  { name: "ClawOS enforce", plugin: { mode: "enforce" } },
];

/** One scripted turn: CALLS replies with one read each, then a final text; stamps each model request. */
function scriptTurn(model: ScriptedModel, marker: string, stamps: number[]) {
  const replies: ScriptedReply[] = [];
  for (let i = 0; i < CALLS; i++) replies.push({ toolCalls: [{ name: "read", arguments: { path: "bench-note.txt" }, id: `call_${marker}_${i}` }] });
  replies.push({ text: `done ${marker}` });
  model.script({
    label: marker,
    when: {
      lastUserIncludes: marker,
      predicate: (body: ChatRequestBody) => {
        const step = toolResultsIn(body).length;
        stamps[step] ??= performance.now();
        return true;
      },
    },
    replies,
  });
}

async function runVariant(model: ScriptedModel, variant: Variant) {
  const env: OpenClawEnv = await createOpenClawEnv({
    model,
    plugins: variant.plugin ? [{ id: "clawos", dir: stagedClawos(), route: "load-path", config: { capabilities: { mode: variant.plugin.mode } } }] : [],
  });
  try {
    writeFileSync(join(env.workspaceDir, "bench-note.txt"), "a small file the scripted model reads\n");
    await env.startGateway({ expectPlugins: variant.plugin ? ["clawos"] : [] });
    const inGateway: number[] = [];
    const wall: number[] = [];
    let toolResults = 0;
    for (let t = 0; t <= TURNS; t++) {
      const marker = `BENCH-${variant.plugin?.mode ?? "none"}-${t}`;
      const stamps: number[] = [];
      scriptTurn(model, marker, stamps);
      const t0 = performance.now();
      const { result } = await env.agentTurn({ sessionKey: `agent:main:bench-${t}`, message: `${marker} read the note ${CALLS} times`, timeoutMs: 600_000 });
      const t1 = performance.now();
      if (result.code !== 0) throw new Error(`turn failed (${variant.name}): ${result.stderr.slice(-2000)}`);
      if (stamps.length < CALLS + 1) throw new Error(`${variant.name}: the model saw ${stamps.length - 1} of ${CALLS} tool results`);
      if (t === 0) continue; // warm-up turn: first-load costs (session files, compiled code) are not the steady state
      inGateway.push(stamps[CALLS] - stamps[0]);
      wall.push(t1 - t0);
      toolResults += CALLS;
    }
    const errors = env.pluginErrors(["clawos"]);
    return { name: variant.name, inGateway, wall, toolResults, pluginErrors: errors.length };
  } finally {
    await env.dispose();
  }
}

const model = await startScriptedModel();
const results: Array<Awaited<ReturnType<typeof runVariant>>> = [];
const failures: Array<{ name: string; error: string }> = [];
try {
  for (const v of variants) {
    process.stderr.write(`... ${v.name}: ${TURNS} turns of ${CALLS} tool calls (after one warm-up turn)\n`);
    try {
      results.push(await runVariant(model, v));
    } catch (error) {
      // One variant failing (e.g. the plugin did not load) still reports the others.
      failures.push({ name: v.name, error: String((error as Error).message ?? error).split("\n")[0] });
    }
  }
} finally {
  await model.close();
}
for (const f of failures) console.log(`FAILED ${f.name}: ${f.error}`);
if (results.length === 0 || results[0].name !== variants[0].name) {
  console.log("no plugin-absent baseline; nothing to compare");
  process.exit(1);
}

const base = summarize(results[0].inGateway);
const spread = (xs: number[]) => (Math.max(...xs) - Math.min(...xs)) / CALLS;
console.log(`## 6. End to end on a real gateway: ${CALLS} tool calls per turn, ${TURNS} turns per variant (ms)`);
console.log(
  table(
    ["variant", "turn p50 ms", "turn min ms", "turn max ms", "added per tool call (p50 vs absent) ms", "run-to-run spread per tool call ms", "plugin errors"],
    results.map((r) => {
      const s = summarize(r.inGateway);
      return [
        r.name,
        fmt(s.p50),
        fmt(Math.min(...r.inGateway)),
        fmt(s.max),
        r === results[0] ? "-" : fmt((s.p50 - base.p50) / CALLS, 3),
        fmt(spread(r.inGateway), 3),
        r.pluginErrors,
      ];
    }),
  ),
);
if (args.json) writeFileSync(args.json, JSON.stringify({ calls: CALLS, turns: TURNS, results, failures }, null, 2));
