// The owner at an approval-capable client: a child process (approver-client.ts) connected to a test
// gateway that answers ClawOS's plugin approvals with the decisions a test queues, one per request,
// in order. Events and answers are kept as parsed lines.
import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import type { OpenClawEnv } from "./gateway.ts";
import { node24, startTracked, stopProcess } from "./processes.ts";

export type ApproverLine = { at: number; kind: string; event?: string; id?: string; decision?: string; payload?: Record<string, unknown>; error?: string };
export type ApprovalDecision = "allow-once" | "allow-always" | "deny" | "none";

export type Approver = {
  /** Answers the next approval request with this decision (`none`: leave it to time out). */
  next: (decision: ApprovalDecision) => void;
  /** Drops the decisions queued and not used (a test that failed midway leaves none to the next). */
  clear: () => void;
  /** Resolves once the client is connected (it reconnects by itself when the gateway drops it). */
  connected: (timeoutMs?: number) => Promise<void>;
  lines: () => ApproverLine[];
  /** The `plugin.approval.requested` payloads seen so far. */
  requests: () => Array<Record<string, unknown>>;
  stop: () => Promise<void>;
};

export async function startApprover(env: Pick<OpenClawEnv, "port" | "token" | "env" | "rootDir">, readyTimeoutMs = 30_000): Promise<Approver> {
  const child: ChildProcess = startTracked(node24(), [join(import.meta.dirname, "approver-client.ts"), String(env.port), env.token], {
    env: env.env,
    cwd: env.rootDir,
    stdin: "pipe",
  });
  const lines: ApproverLine[] = [];
  let buffer = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    buffer += chunk.toString();
    let nl = buffer.indexOf("\n");
    while (nl >= 0) {
      const text = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (text) {
        try {
          lines.push(JSON.parse(text) as ApproverLine);
        } catch {
          lines.push({ at: Date.now(), kind: "output", error: text });
        }
      }
      nl = buffer.indexOf("\n");
    }
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const until = Date.now() + readyTimeoutMs;
  while (!lines.some((l) => l.kind === "ready")) {
    if (child.exitCode !== null || Date.now() > until) {
      await stopProcess(child);
      throw new Error(`the approver did not connect: ${JSON.stringify(lines)} ${stderr.slice(0, 2000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    next: (decision) => {
      child.stdin?.write(`${decision}\n`);
    },
    clear: () => {
      child.stdin?.write("clear\n");
    },
    connected: async (timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const last = [...lines].reverse().find((l) => l.kind === "ready" || l.kind === "closed");
        if (last?.kind === "ready") return;
        if (child.exitCode !== null || Date.now() > deadline) {
          throw new Error(`the approver is not connected: ${JSON.stringify(lines.slice(-10))} ${stderr.slice(0, 2000)}`);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    lines: () => [...lines],
    requests: () => lines.filter((l) => l.kind === "event" && l.event === "plugin.approval.requested").map((l) => l.payload ?? {}),
    stop: () => stopProcess(child, 3_000),
  };
}
