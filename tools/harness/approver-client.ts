// An operator client that answers OpenClaw's plugin approvals, run as a child process by
// approver.ts with the gateway's environment (its OPENCLAW_HOME holds the device identity the
// gateway pairs on loopback). It stays connected with operator.admin and the plugin-approvals
// capability, which is what the host requires of an approval-capable client; a client holding only
// operator.approvals cannot see a request an agent run made.
// Usage (Node 24): node approver-client.ts <port> <token>
// stdin: one decision per line (allow-once, allow-always, deny or none) for the next request, in order;
// `clear` drops the decisions not used yet.
// stdout: one JSON line per plugin.approval.* event and per answer.
import { createInterface } from "node:readline";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { devHostDir } from "./dev-host.ts";

type Client = {
  start(): void;
  stop(): void;
  request(method: string, params: unknown): Promise<unknown>;
};
type ClientCtor = new (options: Record<string, unknown>) => Client;

const [port, token] = process.argv.slice(2);
if (!port || !token) {
  process.stderr.write("usage: node approver-client.ts <port> <token>\n");
  process.exit(2);
}
const { GatewayClient } = (await import(pathToFileURL(join(devHostDir(), "dist/plugin-sdk/gateway-runtime.js")).href)) as { GatewayClient: ClientCtor };

const out = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify({ at: Date.now(), ...line })}\n`);
const decisions: string[] = [];
const waiting: string[] = [];
const seen = new Set<string>();

async function answer(): Promise<void> {
  while (decisions.length > 0 && waiting.length > 0) {
    const decision = decisions.shift() as string;
    const id = waiting.shift() as string;
    if (decision === "none") {
      out({ kind: "unanswered", id });
      continue;
    }
    try {
      await client.request("plugin.approval.resolve", { id, decision });
      out({ kind: "answered", id, decision });
    } catch (error) {
      out({ kind: "answer-failed", id, decision, error: String((error as Error)?.message ?? error) });
    }
  }
}

function requested(id: unknown): void {
  if (typeof id !== "string" || seen.has(id)) return;
  seen.add(id);
  waiting.push(id);
  void answer();
}

const client: Client = new GatewayClient({
  url: `ws://127.0.0.1:${port}`,
  token,
  clientName: "gateway-client",
  clientDisplayName: "clawos-test-approver",
  mode: "backend",
  role: "operator",
  scopes: ["operator.admin", "operator.approvals", "operator.read"],
  caps: ["plugin-approvals"],
  onHelloOk: async () => {
    out({ kind: "ready" });
    const pending = (await client.request("plugin.approval.list", {}).catch(() => [])) as Array<{ id?: unknown }>;
    for (const p of pending ?? []) requested(p.id);
  },
  onEvent: (event: { event?: string; payload?: { id?: unknown } }) => {
    if (!event?.event?.startsWith("plugin.approval.")) return;
    out({ kind: "event", event: event.event, payload: event.payload });
    if (event.event === "plugin.approval.requested") requested(event.payload?.id);
  },
  onConnectError: (error: unknown) => out({ kind: "connect-error", error: String((error as Error)?.message ?? error) }),
  onClose: (code: unknown, reason: unknown) => out({ kind: "closed", code, reason: String(reason ?? "") }),
});
client.start();

createInterface({ input: process.stdin }).on("line", (line) => {
  const decision = line.trim();
  if (!decision) return;
  if (decision === "clear") {
    out({ kind: "cleared", unused: decisions.splice(0) });
    return;
  }
  decisions.push(decision);
  void answer();
});
const stop = () => {
  client.stop();
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
