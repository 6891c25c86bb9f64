/**
 * The real paths of existing paths, remembered while nothing can have moved them.
 *
 * Following a path's symlinks costs one system call per directory level, on every call with a path
 * argument; on a busy gateway most calls read paths it resolved a moment ago. Which file a path
 * reaches changes only when something renames, deletes or links files. The agent does that only
 * through tool calls, and ClawOS decides every one of them first, so the gate tells this memo:
 *
 * - `changing(id)`: a call that may move files will run. Everything remembered is forgotten, and
 *   nothing is remembered until that call's result arrives (`changed(id)`), because a command can
 *   move files at any moment while it runs.
 * - `changing(id, true)` or `changed(id, true)`: something outlives the call (a command left
 *   running in the background, a child session, a scheduled command, the gateway itself). Nothing
 *   is remembered again for the life of this process.
 *
 * A call whose result never arrives (a host path without result hooks) keeps the memo off. What
 * the agent does not do (the owner's own terminal, other programs) is bounded by `ttlMs`: an answer
 * older than that is worked out again. That window is of the same kind as the one that always
 * exists between the decision and the tool opening the file.
 */
export class RealPathMemo {
  private readonly entries = new Map<string, { readonly real: string; readonly at: number }>();
  private readonly running = new Set<string>();
  private off = false;
  private readonly max: number;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options: { max?: number; ttlMs?: number; now?: () => number } = {}) {
    this.max = options.max ?? 4096;
    this.ttlMs = options.ttlMs ?? 1000;
    this.now = options.now ?? Date.now;
  }

  /** The real path remembered for `path` (absolute, as spelled), if it may still be used. */
  get(path: string): string | undefined {
    if (this.off || this.running.size > 0) return undefined;
    const entry = this.entries.get(path);
    if (!entry) return undefined;
    if (this.now() - entry.at > this.ttlMs) {
      this.entries.delete(path);
      return undefined;
    }
    return entry.real;
  }

  /** Remembers the real path of `path` (or, for a path that does not exist, where creating it would put it). */
  set(path: string, real: string): void {
    if (this.off || this.running.size > 0) return;
    if (this.entries.size >= this.max) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(path, { real, at: this.now() });
  }

  /** A call that may move files was let through: forget everything until its result (`changed`). */
  changing(callId: string | undefined, lasting = false): void {
    this.forget();
    // A call the result cannot be matched to, or more calls running than anyone would: stay off.
    if (lasting || callId === undefined || this.running.size >= MAX_RUNNING) this.off = true;
    else this.running.add(callId);
  }

  /** A call's result arrived; `lasting`: something it started runs on. */
  changed(callId: string, lasting = false): void {
    // A call that was not running here (one that moves nothing, left running or not) changes nothing.
    if (!this.running.delete(callId)) return;
    this.forget();
    if (lasting) this.off = true;
  }

  /** Forgets every answer (a map cleared allocates a new table, even an empty one: skipped then). */
  private forget(): void {
    if (this.entries.size > 0) this.entries.clear();
  }

  /** Forgets everything, calls running included (tests only: a new runtime in the same process). */
  resetForTests(): void {
    this.entries.clear();
    this.running.clear();
    this.off = false;
  }

  /** Whether answers are remembered now (for status and tests). */
  get remembering(): boolean {
    return !this.off && this.running.size === 0;
  }

  get size(): number {
    return this.entries.size;
  }
}

/** Calls that may move files, in flight at once, beyond which the memo stays off. */
const MAX_RUNNING = 1024;
