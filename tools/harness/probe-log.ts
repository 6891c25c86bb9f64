// Reads what the hook-probe fixture plugin recorded (one JSON object per line).
import { existsSync, readFileSync } from "node:fs";

export type ProbeRecord = {
  t: number;
  pid: number;
  label?: string;
  /** Hook name, or "register", "trusted_policy", "command:/probe". */
  hook: string;
  event: Record<string, any>;
  ctx: Record<string, any>;
  decision?: "allow" | "block";
};

export function readProbe(file: string): ProbeRecord[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as ProbeRecord);
}

export function probeHooks(file: string, hook: string, filter?: (r: ProbeRecord) => boolean): ProbeRecord[] {
  return readProbe(file).filter((r) => r.hook === hook && (!filter || filter(r)));
}

/** Polls until `predicate` holds for the probe file (hooks such as session_end fire asynchronously). */
export async function waitForProbe(file: string, predicate: (records: ProbeRecord[]) => boolean, timeoutMs = 30_000): Promise<ProbeRecord[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const records = readProbe(file);
    if (predicate(records)) return records;
    if (Date.now() > deadline) throw new Error(`probe condition not met after ${timeoutMs} ms (${records.length} records)`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
