// Gateway RPCs for the legacy-host tests through the host's own client, in one long-lived process
// (each `openclaw gateway call` is a full CLI start of several seconds). Reads one JSON request per
// line on stdin, `{ id, method, params, timeoutMs }`, and answers `{ id, ok, result | error }` per line.
// Usage: node rpc-worker.mjs <openclaw package dir>   (same environment as the gateway)
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const hostDir = process.argv[2];
if (!hostDir) throw new Error("usage: rpc-worker.mjs <openclaw package dir>");

async function loadCallGateway() {
  // 2026.1.x ships unbundled modules; 2026.2.x bundles the client into a content-hashed chunk.
  const unbundled = join(hostDir, "dist", "gateway", "call.js");
  try {
    const mod = await import(pathToFileURL(unbundled).href);
    if (typeof mod.callGateway === "function") return mod.callGateway;
  } catch {
    /* bundled release */
  }
  const dist = join(hostDir, "dist");
  // Some releases ship two copies of the client; the one that imports the CLI entry (entry.js) runs
  // the CLI on import, which would parse this worker's arguments as a command. Sorted: the same
  // choice whatever order the directory lists them in.
  for (const file of readdirSync(dist)
    .filter((f) => /^call-.*\.js$/.test(f))
    .sort()) {
    const source = readFileSync(join(dist, file), "utf8");
    if (/from "\.\/entry\.js"/.test(source)) continue;
    const alias = /\bcallGateway as (\w+)/.exec(source)?.[1];
    if (!alias) continue;
    const mod = await import(pathToFileURL(join(dist, file)).href);
    if (typeof mod[alias] === "function") return mod[alias];
  }
  throw new Error(`no gateway client found in ${hostDir}`);
}

const callGateway = await loadCallGateway();
const write = (obj) => process.stdout.write(`${JSON.stringify(obj)}\n`);
write({ ready: true });
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const { id, method, params, timeoutMs } = JSON.parse(line);
  callGateway({ method, params, timeoutMs: timeoutMs ?? 60_000 }).then(
    (result) => write({ id, ok: true, result: result ?? null }),
    (error) => write({ id, ok: false, error: String(error?.stack ?? error) }),
  );
}
