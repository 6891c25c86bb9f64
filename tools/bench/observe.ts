// Point 2: result observation (after_tool_call, tool_result_persist) for a 1 KB and a 1 MB tool result,
// through the registered hooks. The handlers read the result's status and identity, never its content,
// so the cost must not depend on the size. Prints one BENCH_RESULT line.
import { callCtx, emit, parseArgs, startHost, tick } from "./lib/host.ts";
import { summarize } from "./lib/stats.ts";

const args = parseArgs();
const iterations = Number(args.iterations ?? 20_000);
const host = await startHost({ capabilities: { mode: "enforce" } });

const sizes = { "1 KB": 1024, "1 MB": 1024 * 1024 };
const rows: Array<Record<string, unknown>> = [];
let seq = 0;

function events(text: string, key: string) {
  const id = `call_${(seq++).toString(36)}`;
  const params = { path: "docs/big.txt" };
  const content = [{ type: "text", text }];
  return {
    ctx: callCtx(key, "read", id),
    after: { toolName: "read", params, toolCallId: id, result: { content, details: { status: "ok" } }, durationMs: 12 },
    persist: {
      toolName: "read",
      toolCallId: id,
      isSynthetic: false,
      message: { role: "toolResult", toolCallId: id, toolName: "read", content, details: { status: "ok" }, isError: false, timestamp: Date.now() },
    },
  };
}

for (const [label, bytes] of Object.entries(sizes)) {
  const text = "x".repeat(bytes);
  for (const phase of ["warmup", "measure"]) {
    const after = new Float64Array(iterations);
    const persist = new Float64Array(iterations);
    for (let i = 0; i < iterations; i++) {
      // A tainted session (steady state: the source is remembered, no trust change, no file write).
      const key = `agent:main:o${i % 100}`;
      const e = events(text, key);
      host.evaluate({ toolName: "read", params: e.after.params, toolCallId: e.after.toolCallId }, e.ctx);
      let t0 = process.hrtime.bigint();
      host.afterToolCall(e.after, e.ctx);
      after[i] = Number(process.hrtime.bigint() - t0) / 1000;
      t0 = process.hrtime.bigint();
      const out = host.toolResultPersist(e.persist, e.ctx) as { message?: { content?: unknown } } | undefined;
      persist[i] = Number(process.hrtime.bigint() - t0) / 1000;
      if (out?.message?.content !== e.persist.message.content) throw new Error("persist must pass the content through by reference");
      if (i % 500 === 499) await tick();
    }
    if (phase === "measure") {
      rows.push({ handler: "after_tool_call", size: label, ...summarize(after) });
      rows.push({ handler: "tool_result_persist", size: label, ...summarize(persist) });
    }
  }
}

// The first untrusted result in a session never seen before: the hook looks for the session's state
// file (a synchronous read that finds nothing), lowers its trust and queues the durable write, which
// the thread pool does after the hook returns. Measured on its own.
const first = new Float64Array(2000);
for (let i = 0; i < first.length; i++) {
  const e = events("x".repeat(1024), `agent:main:first${i}`);
  const t0 = process.hrtime.bigint();
  host.afterToolCall(e.after, e.ctx);
  first[i] = Number(process.hrtime.bigint() - t0) / 1000;
  if (i % 100 === 99) await tick();
}
rows.push({ handler: "after_tool_call, first taint of a new session", size: "1 KB", ...summarize(first) });
emit({ rows, iterations });
host.dispose();
