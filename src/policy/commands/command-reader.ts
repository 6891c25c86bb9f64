import { LRUCache } from "lru-cache";
import { classifyCommand, type CommandView } from "./classify.ts";
import type { CompiledCommandRules } from "./command-rules.ts";

/** Distinct commands whose reading is kept: agents rerun the same few (`npm test`, `git status`). */
const MAX_ENTRIES = 512;
/** Longer commands are read every time rather than kept. */
const MAX_KEPT_LENGTH = 4096;

/**
 * Reads commands under one policy's compiled rules, keeping the readings of recent ones. A reading
 * depends only on the text and the rules, so a kept one is the same as a fresh one.
 */
export class CommandReaderCache {
  readonly rules: CompiledCommandRules;
  private readonly kept = new LRUCache<string, CommandView>({ max: MAX_ENTRIES });

  constructor(rules: CompiledCommandRules) {
    this.rules = rules;
  }

  /** Whether setting this environment variable cannot change what a command does (`safeEnvironment`). */
  safeEnvironment(name: string): boolean {
    return this.rules.safeEnvironment(name);
  }

  read(command: string): CommandView {
    const hit = this.kept.get(command);
    if (hit) return hit;
    const view = classifyCommand(command, this.rules);
    if (command.length <= MAX_KEPT_LENGTH) this.kept.set(command, view);
    return view;
  }
}
