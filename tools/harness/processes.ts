// Child-process plumbing for the harness: Node 24 lookup, CLI runs with timeouts, and PID-based cleanup.
import { execFileSync, spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";

export const REPO_ROOT = resolve(import.meta.dirname, "../..");

let cachedNode: string | undefined;

/** A Node >= 24.16 binary: this process's own when new enough, else the repo's cached runtime. */
export function node24(): string {
  if (cachedNode) return cachedNode;
  const [major, minor] = process.versions.node.split(".").map(Number);
  if (major > 24 || (major === 24 && minor >= 16)) {
    cachedNode = process.execPath;
  } else {
    const bin = execFileSync("bash", [join(REPO_ROOT, "scripts/node24.sh")], { encoding: "utf8" }).trim();
    cachedNode = join(bin, "node");
  }
  if (!existsSync(cachedNode)) throw new Error(`Node 24 not found at ${cachedNode}`);
  return cachedNode;
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolvePort(port));
    });
  });
}

// Every child we start, so an aborted test run still stops them (by their own PID group).
const liveChildren = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of liveChildren) killGroup(child, "SIGKILL");
});

export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    // Children are started detached, so -pid is the group they lead (it includes e.g. exec tool shells).
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      /* already gone */
    }
  }
}

export function startTracked(command: string, args: string[], options: { env: NodeJS.ProcessEnv; cwd: string; stdin?: "pipe" }): ChildProcess {
  const { stdin = "ignore", ...rest } = options;
  const child = spawn(command, args, { ...rest, detached: true, stdio: [stdin, "pipe", "pipe"] });
  liveChildren.add(child);
  child.once("exit", () => liveChildren.delete(child));
  return child;
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves when the process has exited. */
export async function stopProcess(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  killGroup(child, "SIGTERM");
  const timer = setTimeout(() => killGroup(child, "SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
  // The group may still hold orphans (a shell the agent started): finish them too.
  killGroup(child, "SIGKILL");
}

export type CliResult = { code: number | null; stdout: string; stderr: string; durationMs: number; timedOut: boolean };

export async function runCommand(
  command: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd: string; timeoutMs?: number; input?: string },
): Promise<CliResult> {
  const started = Date.now();
  const child = startTracked(command, args, options);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d) => (stdout += d));
  child.stderr?.on("data", (d) => (stderr += d));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child, "SIGKILL");
  }, options.timeoutMs ?? 180_000);
  const code = await new Promise<number | null>((done) => child.once("close", (c) => done(c)));
  clearTimeout(timer);
  killGroup(child, "SIGKILL");
  return { code, stdout, stderr, durationMs: Date.now() - started, timedOut };
}

/** Parses the last JSON document in CLI output (the CLI may print log lines before it). */
export function parseJsonOutput(text: string): unknown {
  const trimmed = text.trim();
  try {
    return JSON.parse(trimmed);
  } catch {
    for (let i = trimmed.lastIndexOf("\n{"); i >= 0; i = trimmed.lastIndexOf("\n{", i - 1)) {
      try {
        return JSON.parse(trimmed.slice(i + 1));
      } catch {
        /* keep looking further up */
      }
      if (i === 0) break;
    }
    const first = trimmed.indexOf("{");
    if (first >= 0) return JSON.parse(trimmed.slice(first));
    throw new Error(`no JSON in CLI output: ${trimmed.slice(0, 300)}`);
  }
}
