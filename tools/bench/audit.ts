// Point 4: audit throughput and completeness. The writer runs in a child process: it makes N decisions
// through the trusted tool policy (yielding between batches so the deferred drain writes them), queues a
// last batch with no yield, and exits normally; the exit flush must write that batch too. The parent then
// reads the JSON-lines file back and checks every decision is there, each line parseable.
import { createReadStream, rmSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { runChild } from "./lib/child.ts";
import { callCtx, emit, parseArgs, startHost, tick } from "./lib/host.ts";

const args = parseArgs();

async function writer(): Promise<void> {
  const decisions = Number(args.decisions ?? 1_000_000);
  const tail = Number(args.tail ?? 777);
  const BATCH = 1000;
  const host = await startHost({ capabilities: { mode: "enforce" } });
  const { evaluate, afterToolCall } = host;
  const sessions = Array.from({ length: 1000 }, (_, i) => `agent:main:a${i}`);
  // A tenth of the sessions are tainted so that blocks (with reasons and taint in the record) are in the mix.
  for (let i = 0; i < sessions.length; i += 10) {
    afterToolCall(
      { toolName: "web_fetch", params: { url: "https://example.com" }, toolCallId: `t${i}`, result: {} },
      callCtx(sessions[i], "web_fetch", `t${i}`),
    );
  }
  await tick();
  const engine = host.runtime.engine;
  const before = { decisions: engine.audit.counts.decisions, trust: engine.audit.counts.trustChanges, written: engine.audit.health.written };
  const tools = ["read", "exec", "web_fetch", "acme_crm_lookup", "write"];
  const call = (i: number) => {
    const key = sessions[i % sessions.length];
    const tool = tools[i % tools.length];
    const id = `c${i}`;
    evaluate({ toolName: tool, params: { path: `notes/${i % 97}.md`, command: "ls -la" }, toolCallId: id, runId: "run-1" }, callCtx(key, tool, id));
  };
  const started = performance.now();
  const body = decisions - tail;
  for (let i = 0; i < body; i++) {
    call(i);
    if ((i + 1) % BATCH === 0) await tick();
  }
  await tick();
  const seconds = (performance.now() - started) / 1000;
  // The tail: queued, never drained by setImmediate; only the exit flush can write it.
  for (let i = body; i < decisions; i++) call(i);
  const made = engine.audit.counts.decisions - before.decisions;
  emit({
    decisions: made,
    trustChanges: engine.audit.counts.trustChanges,
    seconds,
    drainedBeforeExit: engine.audit.health.written - before.written,
    queuedAtExit: tail,
    auditFile: host.auditFile,
    stateDir: host.stateDir,
  });
  process.exit(0); // normal exit: the runtime's exit handler flushes the queue
}

export interface AuditResult {
  decisions: number;
  trustChanges: number;
  seconds: number;
  decisionsPerSec: number;
  linesDecision: number;
  linesTrust: number;
  linesTotal: number;
  unparseable: number;
  queuedAtExit: number;
  lost: number;
  fileBytes: number;
}

export async function runAudit(decisions: number): Promise<AuditResult> {
  const r = await runChild(fileURLToPath(import.meta.url), ["--child", "--decisions", String(decisions)]);
  let linesDecision = 0;
  let linesTrust = 0;
  let linesTotal = 0;
  let unparseable = 0;
  let fileBytes = 0;
  const ids = new Set<string>();
  const input = createReadStream(r.auditFile, { encoding: "utf8" });
  input.on("data", (chunk) => (fileBytes += Buffer.byteLength(chunk as string)));
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    if (!line) continue;
    linesTotal++;
    try {
      const rec = JSON.parse(line) as { event?: string; toolCallId?: string };
      if (rec.event === "decision") {
        linesDecision++;
        if (rec.toolCallId) ids.add(rec.toolCallId);
      } else if (typeof rec.event === "string" && rec.event.startsWith("trust.")) linesTrust++;
    } catch {
      unparseable++;
    }
  }
  rmSync(r.stateDir, { recursive: true, force: true });
  return {
    decisions: r.decisions,
    trustChanges: r.trustChanges,
    seconds: r.seconds,
    decisionsPerSec: (r.decisions - r.queuedAtExit) / r.seconds,
    linesDecision,
    linesTrust,
    linesTotal,
    unparseable,
    queuedAtExit: r.queuedAtExit,
    // Each benchmark call has a distinct id, so distinct ids in the file = distinct decisions written.
    lost: r.decisions - ids.size,
    fileBytes,
  };
}

if (args.child) await writer();
else if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(await runAudit(Number(args.decisions ?? 1_000_000)));
