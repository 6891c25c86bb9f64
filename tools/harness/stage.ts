// A clean ClawOS plugin directory for the gateway to load: the plugin's files plus production
// dependencies (scripts/stage-plugin.sh). Staged once per test process.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const REPO = resolve(import.meta.dirname, "../..");
let staged: string | undefined;

export function stagedClawos(): string {
  if (!staged) {
    const root = mkdtempSync(join(tmpdir(), "clawos-staged-"));
    // Removed when this process exits, like every other directory a test run makes.
    process.once("exit", () => rmSync(root, { recursive: true, force: true }));
    const dir = join(root, "clawos");
    execFileSync("bash", [join(REPO, "scripts/stage-plugin.sh"), dir], { stdio: ["ignore", "pipe", "inherit"] });
    staged = dir;
  }
  return staged;
}
