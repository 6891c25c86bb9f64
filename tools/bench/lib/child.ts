import { spawn } from "node:child_process";
import { RESULT } from "./host.ts";

/** Runs a bench script in a fresh Node process and returns its BENCH_RESULT payload. */
export function runChild<T = any>(script: string, args: string[] = [], nodeFlags: string[] = [], opts: { echo?: boolean } = {}): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, script, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (opts.echo) for (const line of d.toString().split("\n")) if (line && !line.startsWith(RESULT)) process.stderr.write(`  ${line}\n`);
    });
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      const line = out.split("\n").find((l) => l.startsWith(RESULT));
      if (code !== 0 || !line) return reject(new Error(`${script} exited ${code}:\n${err.slice(-4000)}\n${out.slice(-2000)}`));
      resolve(JSON.parse(line.slice(RESULT.length)) as T);
    });
  });
}
