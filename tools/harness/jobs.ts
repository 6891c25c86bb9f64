// The gateway's automation jobs, for tests that need a job's run to have happened now rather than
// when its schedule fires (the heartbeat's phase is random per gateway).
import type { OpenClawEnv } from "./gateway.ts";
import { poll } from "./wait.ts";

/** A job as `cron.list` gives it: its recorded state holds the last run's time, status and error. */
export type GatewayJob = { id: string; name: string; state?: Record<string, unknown> & { lastRunAtMs?: number | null; lastError?: string } };

/** Every job on the gateway, disabled ones included. */
export async function gatewayJobs(env: OpenClawEnv): Promise<GatewayJob[]> {
  return ((await env.gatewayCall("cron.list", { includeDisabled: true })) as { jobs?: GatewayJob[] }).jobs ?? [];
}

/**
 * Runs the named job now (`cron.run`, forced) and waits until its state records the run; gives the
 * job as it then is. Throws, naming the job, when there is none or its run is not recorded in time.
 */
export async function runJobNow(env: OpenClawEnv, name: string, timeoutMs = 30_000): Promise<GatewayJob> {
  const job = await poll(async () => (await gatewayJobs(env)).find((j) => j.name === name), 20_000);
  if (!job) throw new Error(`no automation job named ${name} on the gateway`);
  await env.gatewayCall("cron.run", { id: job.id, mode: "force" });
  const before = job.state?.lastRunAtMs;
  const ran = await poll(async () => {
    const now = (await gatewayJobs(env)).find((j) => j.id === job.id);
    return now?.state?.lastRunAtMs && now.state.lastRunAtMs !== before ? now : undefined;
  }, timeoutMs);
  if (!ran) throw new Error(`the run of ${name} was not recorded within ${Math.round(timeoutMs / 1000)} s`);
  return ran;
}
