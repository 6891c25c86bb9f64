// ClawOS's audit log in a test gateway's state directory, read back as parsed lines.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { OpenClawEnv } from "./gateway.ts";

export type AuditLine = Record<string, unknown>;

export function auditLines(env: Pick<OpenClawEnv, "stateDir">): AuditLine[] {
  const file = join(env.stateDir, "clawos", "audit.jsonl");
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AuditLine);
}
