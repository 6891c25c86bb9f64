// Waiting for something a gateway does after the call that caused it returned (an audit line, a reload).

/** Polls until `probe` gives a value (or a promise of one), or gives undefined after `timeoutMs`. */
export async function poll<T>(probe: () => T | undefined | Promise<T | undefined>, timeoutMs: number, everyMs = 250): Promise<T | undefined> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined || Date.now() > until) return value;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Polls until `probe` gives a value; throws naming `what` after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const value = await poll(probe, timeoutMs, 200);
  if (value === undefined) throw new Error(`timed out waiting for ${what}`);
  return value;
}
