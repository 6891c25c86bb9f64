// Vitest global setup: every temporary directory a test run makes (unit tests' state and audit
// files, end-to-end gateways' homes, staged plugins) goes under one directory that is removed at
// the end, so a run leaves nothing behind on the machine.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), "clawos-tests-"));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = root;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(root, { recursive: true, force: true });
  };
}
