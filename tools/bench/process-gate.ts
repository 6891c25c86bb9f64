// Point 5a: the process-per-call gate. Spawns `node hook-script.mjs` per call with the call on stdin and
// waits for its JSON answer; sequential, as a host waits for its hook before running the tool.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { emit, parseArgs } from "./lib/host.ts";
import { summarize } from "./lib/stats.ts";

const args = parseArgs();
const calls = Number(args.calls ?? 30);
const script = fileURLToPath(new URL("./hook-script.mjs", import.meta.url));

function once(payload: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, [script], { stdio: ["pipe", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      const us = Number(process.hrtime.bigint() - t0) / 1000;
      try {
        if (code !== 0) throw new Error(`hook exited ${code}`);
        JSON.parse(out);
        resolve(us);
      } catch (error) {
        reject(error);
      }
    });
    child.stdin.end(JSON.stringify(payload));
  });
}

const samples: number[] = [];
await once({ tool_name: "read", tool_input: {} }); // warm the file cache
for (let i = 0; i < calls; i++) {
  samples.push(await once({ session_id: "s1", tool_name: i % 2 ? "exec" : "read", tool_input: { path: "a.md", command: "ls" }, tainted: i % 3 === 0 }));
}
emit({ calls, ...summarize(samples) });
