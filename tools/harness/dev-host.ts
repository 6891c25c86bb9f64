// The OpenClaw release ClawOS is developed and tested against. scripts/dev-host.sh installs it into
// the development cache and links it at `.dev-host` in the checkout (not under node_modules, so that
// the checkout itself can be linked into a gateway).
import { existsSync, realpathSync } from "node:fs";
import { join, resolve } from "node:path";

const REPO_ROOT = resolve(import.meta.dirname, "../..");

/** The development host's package directory (the real path behind `.dev-host`). */
export function devHostDir(): string {
  const link = join(REPO_ROOT, ".dev-host");
  if (!existsSync(join(link, "package.json"))) {
    throw new Error("The development OpenClaw is not installed: run the command through npm (npm test, npm run ...), or bash scripts/dev-host.sh");
  }
  return realpathSync(link);
}

/** OpenClaw's CLI entry in the development host. */
export function openclawEntry(): string {
  return join(devHostDir(), "openclaw.mjs");
}
