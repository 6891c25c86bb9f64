import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A recording stand-in for OpenClaw's plugin API: it keeps what the plugin registers so a test can
 * call the handlers the way the host would. Only for fast unit tests; the real host is exercised
 * by the end-to-end suite.
 */
export interface RecordedApi {
  api: Record<string, unknown>;
  hooks: Map<string, Array<(event: unknown, ctx: unknown) => unknown>>;
  policies: Array<{ id: string; evaluate: (event: unknown, ctx: unknown) => unknown }>;
  commands: Map<string, { handler: (ctx: unknown) => unknown; requireAuth?: boolean; acceptsArgs?: boolean }>;
  logs: { level: string; message: string }[];
  stateDir: string;
  fire: (hook: string, event: unknown, ctx?: unknown) => unknown[];
}

export function recordingApi(options: { pluginConfig?: unknown; trustedPolicies?: boolean; stateDir?: string } = {}): RecordedApi {
  const hooks = new Map<string, Array<(event: unknown, ctx: unknown) => unknown>>();
  const policies: RecordedApi["policies"] = [];
  const commands: RecordedApi["commands"] = new Map();
  const logs: RecordedApi["logs"] = [];
  const stateDir = options.stateDir ?? mkdtempSync(join(tmpdir(), "clawos-api-"));
  const api: Record<string, unknown> = {
    id: "clawos",
    pluginConfig: options.pluginConfig,
    registrationMode: "full",
    logger: {
      info: (message: string) => logs.push({ level: "info", message }),
      warn: (message: string) => logs.push({ level: "warn", message }),
      error: (message: string) => logs.push({ level: "error", message }),
    },
    runtime: { version: "2026.9.6", state: { resolveStateDir: () => stateDir } },
    resolvePath: (p: string) => p,
    on: (hook: string, handler: (event: unknown, ctx: unknown) => unknown) => {
      const list = hooks.get(hook) ?? [];
      list.push(handler);
      hooks.set(hook, list);
    },
    registerCommand: (command: { name: string; handler: (ctx: unknown) => unknown }) => commands.set(command.name, command),
  };
  if (options.trustedPolicies !== false) {
    api.registerTrustedToolPolicy = (policy: RecordedApi["policies"][number]) => policies.push(policy);
  }
  const fire = (hook: string, event: unknown, ctx: unknown = {}) => (hooks.get(hook) ?? []).map((h) => h(event, ctx));
  return { api, hooks, policies, commands, logs, stateDir, fire };
}
