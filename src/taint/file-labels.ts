import { lstatSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { rename, writeFile } from "node:fs/promises";
import { TRUST_LEVELS, trustRank, type TrustLevel } from "./trust.ts";

/**
 * File labels (L1): the trust of what ClawOS saw written to a path. A file written in a session at
 * trust T carries T, across sessions and restarts, so content cannot be laundered through a file.
 * A label on a directory (`tree`) covers everything under it: a clone, a download or an extraction
 * lands there. Among a path's own label and its ancestors' tree labels, the latest write wins.
 *
 * Durable in one MAC-checked file beside the session directory. A file that fails its check, or a
 * table that overflowed its bound with nothing left to drop, makes `intact` false: then no path
 * counts as trusted by its location alone (fail closed), and the report says why.
 */

export interface FileLabel {
  readonly level: TrustLevel;
  readonly at: number;
  readonly tree: boolean;
  /**
   * The trust of whoever chose the code, where it differs from `level`: what a package install
   * brought in, or a fetch wrote into a git directory, is others' text, `untrusted` to read, but code
   * (packages, settings) the call chose, at the trust that call was made at. A build, and git, run it
   * as that (`codeLevel`).
   */
  readonly code?: TrustLevel;
  /** The session that wrote it, for the report. */
  readonly by?: string;
  /** Which of this process's writes it was (not stored: labels read from disk have none). */
  readonly seq?: number;
}

export interface FileLabelsOptions {
  readonly file?: string;
  readonly max: number;
  /** MAC of a stored body with the install's key; undefined when there is no key (memory only). */
  readonly mac?: (body: string) => string;
}

export class FileLabels {
  private readonly labels = new Map<string, FileLabel>();
  private readonly file?: string;
  private readonly max: number;
  private readonly mac?: (body: string) => string;
  /** Why labels cannot be relied on (then trusted paths do not count as owner). */
  problem?: string;
  /**
   * Labels below owner that can reach a repository's settings: a directory's (a tree that may hold a
   * `.git`), or a file's at or under a `.git` or named `config` (a bare repository's). Kept so
   * that git in a tree none of them reaches is decided without looking at the disk.
   */
  private readonly settingsReach = new Set<string>();
  private scheduled = false;
  private writing = false;
  private writes = 0;

  constructor(options: FileLabelsOptions) {
    this.file = options.file;
    this.max = options.max;
    this.mac = options.mac;
    if (this.file) this.load(this.file);
  }

  get intact(): boolean {
    return this.problem === undefined;
  }

  get size(): number {
    return this.labels.size;
  }

  /** Labels a path (or a directory and all under it) with the trust of what was written. */
  set(path: string, level: TrustLevel, at: number, tree = false, by?: string, code?: TrustLevel): number {
    if (this.labels.has(path)) this.labels.delete(path); // re-inserted: the map's order is write order
    const chosen = code !== undefined && trustRank(code) > trustRank(level) ? { code } : {};
    const seq = ++this.writes;
    this.labels.set(path, { level, at, tree, ...chosen, ...(by ? { by } : {}), seq });
    this.noteReach(path, level, tree);
    if (this.labels.size > this.max) this.evict();
    this.schedule();
    return seq;
  }

  /**
   * Takes back a label this process wrote (`seq`), when no later write replaced it: a directory's
   * label that stood in for what a command would write there, once what it wrote is known.
   */
  remove(path: string, seq: number): boolean {
    if (this.labels.get(path)?.seq !== seq) return false;
    this.labels.delete(path);
    this.settingsReach.delete(path);
    this.schedule();
    return true;
  }

  /**
   * The owner reviewed what is at `path` and vouches for it: the labels below owner at or under it
   * go, and it is labelled `owner` now (a directory as a whole), so an older directory label above
   * it no longer covers it. Returns the labels that went, lowest first.
   */
  vouch(path: string, at: number, tree: boolean, by?: string): FileLabel[] {
    const prefix = path.endsWith("/") ? path : `${path}/`;
    const gone: FileLabel[] = [];
    for (const [p, label] of this.labels) {
      if ((p === path || p.startsWith(prefix)) && label.level !== "owner") {
        gone.push(label);
        this.labels.delete(p);
        this.settingsReach.delete(p);
      }
    }
    const covering = this.effective(path);
    if (covering && covering.level !== "owner") gone.push(covering);
    this.set(path, "owner", at, tree, by);
    return gone.sort((a, b) => trustRank(a.level) - trustRank(b.level));
  }

  /** A write that changes part of a file (edit, patch): the file keeps the lower of both. */
  merge(path: string, level: TrustLevel, at: number, fallback: TrustLevel, by?: string): void {
    const label = this.effective(path);
    const current = label?.level ?? fallback;
    const code = label ? codeLevel(label) : fallback;
    this.set(path, trustRank(current) < trustRank(level) ? current : level, at, false, by, trustRank(code) < trustRank(level) ? code : level);
  }

  /** The label in force for a path: its own or an ancestor directory's, the latest write. */
  effective(path: string): FileLabel | undefined {
    let best = this.labels.get(path);
    let dir = parentOf(path);
    while (dir !== undefined) {
      const label = this.labels.get(dir);
      if (label?.tree && (!best || label.at > best.at)) best = label;
      dir = parentOf(dir);
    }
    return best;
  }

  /**
   * Whether a label below owner can reach the settings of a repository git finds from one of
   * `starts` (absolute, as spelled): a directory label at or above a start (it covers every `.git`
   * git could find there), or a file at or under a `.git`, or a `config`, in a start or above it.
   * False means git there runs only settings no session below owner wrote.
   */
  mayReachSettings(starts: readonly string[]): boolean {
    if (this.settingsReach.size === 0) return false;
    for (const path of this.settingsReach) {
      const git = GIT_DIR_PART.exec(path);
      // The directory git must start in (or below) to find it: the repository's, or the tree's.
      const from = git ? path.slice(0, git.index) || "/" : path.endsWith("/config") ? parentOf(path) : this.labels.get(path)?.tree ? path : undefined;
      if (from !== undefined && starts.some((start) => atOrBelow(start, from))) return true;
    }
    return false;
  }

  private noteReach(path: string, level: TrustLevel, tree: boolean): void {
    if (level !== "owner" && (tree || GIT_DIR_PART.test(path) || path.endsWith("/config"))) this.settingsReach.add(path);
    else this.settingsReach.delete(path);
  }

  /**
   * The lowest trust written at or under a directory (what running code there reads), if any. A
   * label at a path `runs` holds counts at its code's trust (`codeLevel`).
   */
  lowestUnder(dir: string, runs?: (path: string) => boolean): FileLabel | undefined {
    const prefix = dir.endsWith("/") ? dir : `${dir}/`;
    let low = this.effective(dir);
    let lowLevel = low && (runs?.(dir) ? codeLevel(low) : low.level);
    for (const [path, label] of this.labels) {
      if (path !== dir && !path.startsWith(prefix)) continue;
      const level = label.code !== undefined && runs?.(path) ? label.code : label.level;
      if (!low || trustRank(level) < trustRank(lowLevel!)) {
        low = label;
        lowLevel = level;
      }
    }
    return low && lowLevel !== low.level ? { ...low, level: lowLevel! } : low;
  }

  /** The labels below a directory (not its own), each with its path relative to it. */
  *under(dir: string): Generator<{ relative: string; label: FileLabel }> {
    const prefix = dir.endsWith("/") ? dir : `${dir}/`;
    for (const [path, label] of this.labels) if (path.startsWith(prefix)) yield { relative: path.slice(prefix.length), label };
  }

  /**
   * The least trusted file written under a directory that a build or test there could run: every
   * label whose code (`codeLevel`) is below `above`, except media, data and logs, and text
   * documents unless the command runs documents too (`docs`: a README a Rust crate includes as doc
   * tests, pytest's `--doctest-glob`; notes a research session saved are not code to `npm test`).
   * Undefined when there is none.
   */
  lowestCodeUnder(
    dir: string,
    above: TrustLevel,
    docs = false,
    skip?: (path: string, label: FileLabel) => boolean,
  ): { path: string; label: FileLabel } | undefined {
    let low: { path: string; label: FileLabel } | undefined;
    for (const code of this.codeBelow(dir, above, docs)) {
      if (skip?.(code.path, code.label)) continue;
      if (!low || trustRank(codeLevel(code.label)) < trustRank(codeLevel(low.label))) low = code;
    }
    return low;
  }

  /**
   * The code below owner a build or test under a directory would run, as a mark that changes
   * whenever such a file is written there ("" when there is none): how many there are and the
   * newest write's sequence number. A grant for a command that runs its tree is bound to the mark
   * the owner approved. Sequence numbers count this process's writes, so after a restart a tree
   * that holds such code gets a new mark (the owner is asked once more), and a clean tree keeps "".
   */
  codeMark(dir: string, docs = false): string {
    let count = 0;
    let newest = 0;
    for (const { label } of this.codeBelow(dir, "owner", docs)) {
      count++;
      newest = Math.max(newest, label.seq ?? 0);
    }
    return count === 0 ? "" : `${count}:${newest}`;
  }

  /** The code below owner written last under a directory (what changed its `codeMark`). */
  newestCodeUnder(dir: string, docs = false): { path: string; label: FileLabel } | undefined {
    let newest: { path: string; label: FileLabel } | undefined;
    for (const code of this.codeBelow(dir, "owner", docs)) if (!newest || (code.label.seq ?? 0) > (newest.label.seq ?? 0)) newest = code;
    return newest;
  }

  /** The labels below `above` at or under a directory that are code, then a tree label covering it. */
  private *codeBelow(dir: string, above: TrustLevel, docs: boolean): Generator<{ path: string; label: FileLabel }> {
    const prefix = dir.endsWith("/") ? dir : `${dir}/`;
    for (const [path, label] of this.labels) {
      if (trustRank(codeLevel(label)) >= trustRank(above) || (path !== dir && !path.startsWith(prefix))) continue;
      if (!label.tree && NOT_CODE.test(path) && !READ_AS_CODE.test(path) && !(docs && DOCUMENT.test(path))) continue;
      yield { path, label };
    }
    // A label on a directory above it (a clone, an extracted archive) covers it too.
    const covering = this.effective(dir);
    if (!covering) return;
    if (trustRank(codeLevel(covering)) < trustRank(above)) yield { path: dir, label: covering };
    else if (covering.code !== undefined) {
      // An install the owner chose over a tree does not replace what an earlier, less trusted write
      // put further down (a download into a directory above the build): that code is still there.
      for (let up: string | undefined = dir; up !== undefined; up = parentOf(up)) {
        const label = this.labels.get(up);
        if (label?.tree && label !== covering && trustRank(codeLevel(label)) < trustRank(above)) yield { path: dir, label };
      }
    }
  }

  /** Labels below owner, newest first, for the report. */
  lowered(limit: number): { path: string; label: FileLabel }[] {
    const out: { path: string; label: FileLabel }[] = [];
    for (const [path, label] of this.labels) if (label.level !== "owner") out.push({ path, label });
    return out.reverse().slice(0, limit);
  }

  /** The labels below owner one session wrote: how many, and the newest (at most `limit`), for its report. */
  loweredBy(by: string, limit: number): { total: number; newest: { path: string; label: FileLabel }[] } {
    const mine: { path: string; label: FileLabel }[] = [];
    for (const [path, label] of this.labels) if (label.level !== "owner" && label.by === by) mine.push({ path, label });
    return { total: mine.length, newest: mine.reverse().slice(0, limit) };
  }

  countsByLevel(): Record<TrustLevel, number> {
    const counts: Record<TrustLevel, number> = { untrusted: 0, community: 0, verified: 0, owner: 0 };
    for (const label of this.labels.values()) counts[label.level]++;
    return counts;
  }

  /** Writes pending labels now (gateway stop, process exit). */
  flush(): void {
    if (!this.file || !this.scheduled) return;
    this.scheduled = false;
    try {
      const temp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(temp, this.body());
      renameSync(temp, this.file);
    } catch {
      // Reported through the store's health by the next failing write; labels stay in memory.
    }
  }

  /**
   * Labels written before clones labelled their own git directory (format 1): a tree below owner
   * that holds a `.git` whose settings were written when the tree arrived or later is taken for a
   * clone, and its git directory gets the owner's label git there had then. An archive restores its
   * files' old times, so a `.git` extracted from one keeps the tree's label (unless it was extracted
   * with times reset, which only labels from before this check can hide).
   */
  private labelOldClones(): void {
    const clones: { path: string; at: number; by?: string }[] = [];
    for (const [path, label] of this.labels) {
      if (!label.tree || label.level === "owner" || GIT_DIR_PART.test(path) || this.labels.has(`${path}/.git`)) continue;
      const settings = lstatSync(`${path}/.git/config`, { throwIfNoEntry: false });
      if (settings?.isFile() && settings.mtimeMs >= label.at - OLD_CLONE_SLACK_MS)
        clones.push({ path: `${path}/.git`, at: label.at, ...(label.by ? { by: label.by } : {}) });
    }
    for (const clone of clones) {
      this.labels.set(clone.path, { level: "owner", at: clone.at, tree: true, ...(clone.by ? { by: clone.by } : {}) });
      this.noteReach(clone.path, "owner", true);
    }
    if (clones.length > 0) this.schedule();
  }

  private evict(): void {
    // Owner labels go first: in a trusted path they say what the location already says.
    for (const [path, label] of this.labels) {
      if (label.level === "owner") {
        this.labels.delete(path);
        this.settingsReach.delete(path);
        if (this.labels.size <= this.max) return;
      }
    }
    if (this.labels.size > this.max) this.problem = `more than ${this.max} files were labelled below owner (provenance.maxFileLabels)`;
  }

  private schedule(): void {
    if (!this.file || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => void this.writeAsync());
  }

  private async writeAsync(): Promise<void> {
    if (!this.file || !this.scheduled || this.writing) return;
    this.scheduled = false;
    this.writing = true;
    const temp = `${this.file}.${process.pid}.async.tmp`;
    try {
      await writeFile(temp, this.body());
      await rename(temp, this.file);
    } catch {
      this.scheduled = true;
    } finally {
      this.writing = false;
      if (this.scheduled) setImmediate(() => void this.writeAsync());
    }
  }

  private body(): string {
    const entries = [...this.labels].map(([p, l]) => {
      const entry: (string | number)[] = [p, TRUST_LEVELS.indexOf(l.level), l.at, l.tree ? 1 : 0, l.by ?? ""];
      if (l.code !== undefined) entry.push(TRUST_LEVELS.indexOf(l.code));
      return entry;
    });
    const body = JSON.stringify({ v: 2, labels: entries, ...(this.problem ? { problem: this.problem } : {}) });
    return this.mac ? `${body}\n${this.mac(body)}\n` : `${body}\n`;
  }

  private load(file: string): void {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") this.problem = `the file labels cannot be read (${(error as Error).message})`;
      return;
    }
    const [body, mac] = text.split("\n");
    if (this.mac && mac !== this.mac(body)) {
      this.problem = "the file labels failed their authentication check (edited or forged)";
      return;
    }
    try {
      const record = JSON.parse(body) as { v: number; labels: [string, number, number, number, string, number?][]; problem?: string };
      for (const [path, level, at, tree, by, code] of record.labels) {
        const l = TRUST_LEVELS[level];
        // A label without its code's trust (or with one not above its own) runs as what it reads as.
        const c = code === undefined ? undefined : TRUST_LEVELS[code];
        if (typeof path === "string" && l) {
          this.labels.set(path, { level: l, at, tree: tree === 1, ...(c && trustRank(c) > trustRank(l) ? { code: c } : {}), ...(by ? { by } : {}) });
          this.noteReach(path, l, tree === 1);
        }
      }
      if (typeof record.problem === "string") this.problem = record.problem;
      if (record.v === 1) this.labelOldClones();
    } catch (error) {
      this.problem = `the file labels are corrupt (${(error as Error).message})`;
    }
  }
}

/** The trust a build runs a labelled file's code at: who chose the code, else what it reads as. */
export function codeLevel(label: FileLabel): TrustLevel {
  return label.code ?? label.level;
}

/** How much earlier than its tree's label a clone's settings may have been written (the label's clock and the disk's). */
const OLD_CLONE_SLACK_MS = 5_000;

/** A `.git` part of a path: what is before it is the repository's directory. */
export const GIT_DIR_PART = /\/\.git(?=\/|$)/;

/** Whether `path` is `dir` or below it. */
function atOrBelow(path: string, dir: string): boolean {
  return path === dir || dir === "/" || path.startsWith(`${dir}/`);
}

function parentOf(path: string): string | undefined {
  const cut = path.lastIndexOf("/");
  if (cut <= 0) return path === "/" || cut < 0 ? undefined : "/";
  return path.slice(0, cut);
}

/**
 * Text files that builds, installs and test runners read as code by default, though named like
 * documents: CMake's lists, pip's requirements and constraints (their options name indexes and
 * run setup code), and the `test*.txt` doctest files pytest collects.
 */
const READ_AS_CODE = /(?:^|\/)(?:CMakeLists\.txt|requirements[^/]*\.txt|constraints[^/]*\.txt|test[^/]*\.txt)$/i;

/** Text documents: a runner of documents' examples (`runsDocs` in the command table) runs them. */
const DOCUMENT = /\.(?:md|markdown|txt|rst|adoc)$/i;

/** Files no build or test runs: documents, media and logs (but see `READ_AS_CODE` and `DOCUMENT`). */
const NOT_CODE =
  /\.(?:md|markdown|txt|rst|adoc|csv|tsv|log|pdf|png|jpe?g|gif|webp|bmp|ico|mp3|wav|ogg|opus|m4a|flac|mp4|mov|webm|docx?|xlsx?|pptx?|odt|ods|odp|rtf|epub)$/i;
