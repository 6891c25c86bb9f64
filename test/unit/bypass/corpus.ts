import { afterEach, describe, expect, it, vi } from "vitest";
import { clawosHome, resetRuntimeForTests } from "../../../src/host/runtime.ts";
import { sessionFileName } from "../../../src/taint/session-store.ts";
import { join } from "node:path";
import { AUDIT, ctxOf, ENFORCE, MAIN, nextId, OWNER, registered, STRANGER, type GateResult, type Registered } from "../../helpers/fixtures.ts";

/**
 * The bypass corpus, one file per attack class, driven through index.ts register(api) and the
 * handlers the host calls. Every case must end blocked in enforce, or recorded as would-block in audit.
 */

export { AUDIT, ctxOf, ENFORCE, MAIN, nextId, OWNER, STRANGER };
export type Setup = Registered;

export const setup = (config: Record<string, unknown> = ENFORCE, stateDir?: string): Setup => registered(config, stateDir);

export function gate(
  s: Setup,
  toolName: string,
  params: unknown = {},
  ctx: Record<string, unknown> = ctxOf(),
  toolCallId = nextId(),
  extra: Record<string, unknown> = {},
): GateResult {
  return s.gate(toolName, params, ctx, toolCallId, extra);
}

/** An allowed web_fetch whose untrusted result enters the session (after_tool_call). */
export function taint(s: Setup, ctx: Record<string, unknown> = ctxOf(), id = nextId()): void {
  s.taint(ctx, id);
}

/** Enforce: blocked. Audit: allowed, and the audit log counted exactly one more would-block. */
export function expectStopped(s: Setup, run: () => GateResult): void {
  const audit = s.runtime().engine.audit;
  const before = audit.counts.wouldBlock;
  const result = run();
  const mode = (s.config.capabilities as { mode: string }).mode;
  if (mode === "enforce") expect(result?.block, "blocked in enforce").toBe(true);
  else {
    expect(result?.block, "audit allows").not.toBe(true);
    expect(audit.counts.wouldBlock, "recorded as would-block in audit").toBe(before + 1);
  }
}

export function stateFile(stateDir: string, key: string): string {
  return join(clawosHome(stateDir), "sessions", sessionFileName(key));
}

export interface CorpusMode {
  mode: string;
  config: Record<string, unknown>;
  /** Cases about state and plumbing rather than the mode run once, in enforce. */
  enforceOnlyIt: (name: string, fn: () => unknown) => void;
}

/** One attack class, run in enforce and in audit. */
export function bypassCorpus(attackClass: string, body: (m: CorpusMode) => void): void {
  afterEach(() => {
    vi.useRealTimers();
    resetRuntimeForTests();
  });
  describe.each([
    ["enforce", ENFORCE],
    ["audit", AUDIT],
  ])(`bypass corpus (%s): ${attackClass}`, (mode, config) => {
    body({
      mode,
      config: config as Record<string, unknown>,
      enforceOnlyIt: (name, fn) => {
        if (mode === "enforce") it(name, fn);
      },
    });
  });
}
