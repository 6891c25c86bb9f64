import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { recordingHost, type RecordingHost } from "../../tools/replay/recording-host.ts";

/**
 * A recording stand-in for OpenClaw's plugin API (the trace replay's, tools/replay/recording-host.ts), with a
 * fresh state directory per call. Only for fast unit tests; the real host is exercised by the
 * end-to-end suite.
 */
export interface RecordedApi extends RecordingHost {
  stateDir: string;
}

export function recordingApi(options: { pluginConfig?: unknown; trustedPolicies?: boolean; stateDir?: string } = {}): RecordedApi {
  const stateDir = options.stateDir ?? mkdtempSync(join(tmpdir(), "clawos-api-"));
  return { ...recordingHost({ pluginConfig: options.pluginConfig, trustedPolicies: options.trustedPolicies, stateDir }), stateDir };
}
