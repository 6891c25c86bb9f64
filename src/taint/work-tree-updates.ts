import type { FileLabels } from "./file-labels.ts";
import { changedFiles, snapshotTree, type TreeSnapshot } from "./tree-snapshot.ts";
import type { TrustLevel } from "./trust.ts";

/** Most entries of a work tree looked through before and after an update; a larger tree keeps its whole-tree label. */
const MAX_TREE_ENTRIES = 50_000;
/** Most files an update may change and still be labelled one by one; more keep the whole-tree label. */
const MAX_CHANGED_FILES = 2_000;
/** Files remembered for updates waiting for their result, all together; past it the oldest keeps its whole-tree label. */
const MAX_PENDING_FILES = 200_000;

interface PendingUpdate {
  readonly root: string;
  /** The whole-tree label's write, taken back once what changed is labelled. */
  readonly seq: number;
  readonly level: TrustLevel;
  readonly by?: string;
  readonly before: TreeSnapshot;
}

/**
 * Commands that update a repository's work tree where it stands (`git pull`, `git checkout` of what
 * a fetch brought in). Such a command is labelled as writing the whole tree when it is decided, so
 * that nothing it writes goes unlabelled if no result ever arrives (fail closed). The tree is looked
 * at then and again when its result arrives: the files it changed carry its label, and the
 * whole-tree label is taken back, so the owner's files it did not touch stay what they were.
 */
export class WorkTreeUpdates {
  private readonly pending = new Map<string, PendingUpdate>();
  private pendingFiles = 0;
  private readonly labels: FileLabels;

  constructor(labels: FileLabels) {
    this.labels = labels;
  }

  /** Labels the tree at `root` as written at `level` now; remembers it as it is when `key` names the call. */
  begin(key: string | undefined, root: string, level: TrustLevel, at: number, by?: string): void {
    const seq = this.labels.set(root, level, at, true, by);
    if (key === undefined) return;
    const before = snapshotTree(root, MAX_TREE_ENTRIES);
    if (!before) return;
    this.take(key);
    for (const oldest of this.pending.keys()) {
      if (this.pendingFiles + before.size <= MAX_PENDING_FILES) break;
      this.take(oldest);
    }
    this.pending.set(key, { root, seq, level, ...(by ? { by } : {}), before });
    this.pendingFiles += before.size;
  }

  /**
   * The call's result arrived. When the command has finished (`settled`: not left running, not cut
   * short), the files it changed are labelled and the whole-tree label is taken back; otherwise the
   * whole-tree label stays.
   */
  finish(key: string, at: number, settled: boolean): void {
    const update = this.take(key);
    if (!update || !settled) return;
    const after = snapshotTree(update.root, MAX_TREE_ENTRIES);
    if (!after) return;
    const changed = changedFiles(update.before, after);
    if (changed.length > MAX_CHANGED_FILES) return;
    for (const path of changed) this.labels.set(path, update.level, at, false, update.by);
    this.labels.remove(update.root, update.seq);
  }

  private take(key: string): PendingUpdate | undefined {
    const update = this.pending.get(key);
    if (!update) return undefined;
    this.pending.delete(key);
    this.pendingFiles -= update.before.size;
    return update;
  }
}
