// OpenClaw writes a few fixed paths under the OS temp root regardless of TMPDIR (lock files,
// terminal staging). This removes what one isolated run left there, and nothing belonging to others.
import { existsSync, readdirSync, rmdirSync, rmSync } from "node:fs";
import { join } from "node:path";

const uid = process.getuid?.() ?? 0;
const HOST_DIRS = ["/tmp/openclaw", `/tmp/openclaw-state-locks-${uid}`, `/tmp/.openclaw-terminal-staging-${uid}`];

export type HostTmpSnapshot = { existedBefore: Set<string> };

export function snapshotHostTmp(): HostTmpSnapshot {
  return { existedBefore: new Set(HOST_DIRS.filter((d) => existsSync(d))) };
}

/** Lock-file hashes OpenClaw derived for this state dir, as seen in its private tmp copy. */
function stateHashes(stateDir: string): Set<string> {
  const hashes = new Set<string>();
  const walk = (dir: string, depth: number) => {
    if (depth > 3 || !existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name), depth + 1);
      const m = entry.name.match(/\.([0-9a-f]{8})\.lock/);
      if (m) hashes.add(m[1]);
    }
  };
  walk(join(stateDir, "tmp"), 0);
  return hashes;
}

export function cleanupHostTmp(snapshot: HostTmpSnapshot, stateDir: string): void {
  const hashes = stateHashes(stateDir);
  for (const dir of HOST_DIRS) {
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      if ([...hashes].some((h) => name.includes(`.${h}.`))) rmSync(join(dir, name), { force: true, recursive: true });
    }
    if (!snapshot.existedBefore.has(dir) && readdirSync(dir).length === 0) {
      try {
        rmdirSync(dir);
      } catch {
        /* another run is using it */
      }
    }
  }
}
