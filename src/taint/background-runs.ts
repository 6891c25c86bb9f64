import type { TrustLevel } from "./trust.ts";

/**
 * Commands a session left running in the background (`exec` with `background`, or one that outlived
 * its yield window): the host's id for each, and the trust its output had when it started. A later
 * poll of that id reads the same command's output, so it has the same trust, not the generic trust
 * of the tool that polls. In memory only: the runs end with the gateway process that owns them.
 */
export interface BackgroundRun {
  readonly level: TrustLevel;
  /** A command whose output is its tree's: the tree's trust is read again at each poll (a file may have changed since). */
  readonly tree?: string;
  readonly agentId?: string;
}

export class BackgroundRuns {
  private readonly runs = new Map<string, BackgroundRun>();
  private readonly max: number;

  constructor(max = 4096) {
    this.max = max;
  }

  note(sessionKey: string, runId: string, run: BackgroundRun): void {
    const key = `${sessionKey}\u0000${runId}`;
    this.runs.delete(key);
    if (this.runs.size >= this.max) {
      const oldest = this.runs.keys().next().value;
      if (oldest !== undefined) this.runs.delete(oldest);
    }
    this.runs.set(key, run);
  }

  /** Only the session that started a run finds it: another session's poll keeps the tool's own trust. */
  get(sessionKey: string, runId: string): BackgroundRun | undefined {
    return this.runs.get(`${sessionKey}\u0000${runId}`);
  }
}

/** The host's id of a command left running, from its exec result (`details.status` running, `details.sessionId`). */
export function runningId(content: unknown): string | undefined {
  if (!content || typeof content !== "object") return undefined;
  const details = (content as { details?: unknown }).details;
  if (!details || typeof details !== "object") return undefined;
  const { status, sessionId } = details as { status?: unknown; sessionId?: unknown };
  return status === "running" && typeof sessionId === "string" && sessionId.length > 0 && sessionId.length <= 128 ? sessionId : undefined;
}

/**
 * The host's ids of runs its result reports ended: a poll, a log or a kill (`details.status`
 * completed or failed, `details.sessionId`), or a listing (`details.sessions`, each with its status).
 */
export function endedRunIds(content: unknown): string[] {
  if (!content || typeof content !== "object") return [];
  const details = (content as { details?: unknown }).details;
  if (!details || typeof details !== "object") return [];
  const { status, sessionId, sessions } = details as { status?: unknown; sessionId?: unknown; sessions?: unknown };
  const ended: string[] = [];
  if ((status === "completed" || status === "failed") && isRunId(sessionId)) ended.push(sessionId);
  if (Array.isArray(sessions)) {
    for (const run of sessions.slice(0, 1_000)) {
      if (!run || typeof run !== "object") continue;
      const { status: each, sessionId: id } = run as { status?: unknown; sessionId?: unknown };
      if (typeof each === "string" && each !== "running" && isRunId(id)) ended.push(id);
    }
  }
  return ended;
}

function isRunId(value: unknown): value is string {
  return typeof value === "string" && value.length > 0 && value.length <= 128;
}
