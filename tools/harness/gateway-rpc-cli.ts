// Calls one Gateway RPC with explicitly chosen operator scopes and prints the JSON result.
// `openclaw gateway call` always asks for the least-privilege scopes of a method (chat.send gets only
// operator.write, so /new and /reset are refused); this reuses OpenClaw's own client with wider scopes.
// Usage (Node 24, same OPENCLAW_HOME as the gateway): node gateway-rpc-cli.ts <method> <paramsJson> <scopesCsv> [timeoutMs]
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { devHostDir } from "./dev-host.ts";

const dist = join(devHostDir(), "dist");
// The client lives in a content-hashed chunk; find the one that re-exports it by name.
const chunk = readdirSync(dist).find(
  (f) => /^call-.*\.mjs$/.test(f) && /export \{[^}]*\bcallGateway\b[^}]*\bcallGatewayCli\b/.test(readFileSync(join(dist, f), "utf8")),
);
if (!chunk) throw new Error("OpenClaw gateway client chunk not found");
const { callGateway } = await import(pathToFileURL(join(dist, chunk)).href);

const [method, paramsJson = "{}", scopesCsv = "operator.admin,operator.read,operator.write", timeout = "60000"] = process.argv.slice(2);
const result = await callGateway({
  method,
  params: JSON.parse(paramsJson),
  scopes: scopesCsv.split(",").filter(Boolean),
  mode: "cli",
  clientName: "cli",
  timeoutMs: Number(timeout),
});
process.stdout.write(`${JSON.stringify(result ?? null)}\n`);
process.exit(0);
