import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * What a work tree holds, file by file, to tell afterwards which files a command changed: each
 * path's inode, change time, modification time, size and mode, as `lstat` gives them. The change
 * time is the kernel's (a program cannot set it back), so a file a command wrote or replaced reads
 * as changed even when its modification time was restored. Git directories (`.git`) are left out:
 * what git keeps there is accounted for by the caller.
 */
export type TreeSnapshot = ReadonlyMap<string, string>;

/** The files below `root`, or undefined when there are more than `max` entries or one cannot be read. */
export function snapshotTree(root: string, max: number): TreeSnapshot | undefined {
  const files = new Map<string, string>();
  const dirs = [root];
  let seen = 0;
  try {
    for (let dir = dirs.pop(); dir !== undefined; dir = dirs.pop()) {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (++seen > max) return undefined;
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
          if (entry.name !== ".git") dirs.push(path);
          continue;
        }
        const s = lstatSync(path);
        files.set(path, `${s.ino}:${s.ctimeMs}:${s.mtimeMs}:${s.size}:${s.mode}`);
      }
    }
  } catch {
    return undefined;
  }
  return files;
}

/** The files in `after` that are new or differ from `before`. */
export function changedFiles(before: TreeSnapshot, after: TreeSnapshot): string[] {
  const changed: string[] = [];
  for (const [path, state] of after) if (before.get(path) !== state) changed.push(path);
  return changed;
}
