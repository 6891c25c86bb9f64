/**
 * A recording stand-in for OpenClaw's plugin API, for the trace replay: it keeps what the plugin
 * registers (trusted tool policies, hooks, commands) so the replay can call the same handlers the
 * host calls, in the host's order, without a model or a gateway. The unit tests' helper
 * (test/helpers/fixtures.ts) wrap it.
 */

import { PLUGIN_ID } from "../../src/ids.ts";
import type { HostApi } from "../../src/host/sdk.ts";

/**
 * OpenClaw's config (`api.config`) for ClawOS installed as the README says: enabled, with the
 * conversation hooks granted (`hooks.allowConversationAccess`), so ClawOS registers
 * before_agent_run and before_prompt_build. The replay merges a trace's `host` config over it.
 */
export const INSTALLED_HOST_CONFIG: Readonly<Record<string, unknown>> = {
  plugins: { entries: { [PLUGIN_ID]: { enabled: true, hooks: { allowConversationAccess: true } } } },
};

export type HostHandler = (event: unknown, ctx: unknown) => unknown;

export interface RecordingHost {
  /** The plugin API as ClawOS uses it: the same type the adapter is written against. */
  api: HostApi;
  hooks: Map<string, HostHandler[]>;
  policies: Array<{ id: string; evaluate: HostHandler }>;
  commands: Map<string, { handler: (ctx: unknown) => unknown; requireAuth?: boolean; acceptsArgs?: boolean }>;
  logs: { level: string; message: string }[];
  /** Calls every handler registered for a hook, in registration order, and returns their results. */
  fire: (hook: string, event: unknown, ctx?: unknown) => unknown[];
}

export interface RecordingHostOptions {
  pluginConfig?: unknown;
  /** OpenClaw's whole config (api.config). */
  config?: Record<string, unknown>;
  /** OpenClaw's state directory as the host would resolve it. */
  stateDir: string;
  /** Hosts before trusted tool policies: the plugin falls back to before_tool_call. */
  trustedPolicies?: boolean;
  hostVersion?: string;
}

export function recordingHost(options: RecordingHostOptions): RecordingHost {
  const hooks = new Map<string, HostHandler[]>();
  const policies: RecordingHost["policies"] = [];
  const commands: RecordingHost["commands"] = new Map();
  const logs: RecordingHost["logs"] = [];
  const on = ((hook: string, handler: HostHandler) => {
    const list = hooks.get(hook) ?? [];
    list.push(handler);
    hooks.set(hook, list);
  }) as HostApi["on"];
  const api: HostApi = {
    pluginConfig: options.pluginConfig as HostApi["pluginConfig"],
    ...(options.config ? { config: options.config as HostApi["config"] } : {}),
    registrationMode: "full",
    logger: {
      info: (message: string) => logs.push({ level: "info", message }),
      warn: (message: string) => logs.push({ level: "warn", message }),
      error: (message: string) => logs.push({ level: "error", message }),
    },
    runtime: { version: options.hostVersion ?? "2026.9.6", state: { resolveStateDir: () => options.stateDir } },
    resolvePath: (p: string) => p,
    on,
    registerCommand: (command) => commands.set(command.name, command as RecordingHost["commands"] extends Map<string, infer C> ? C : never),
    ...(options.trustedPolicies !== false
      ? {
          registerTrustedToolPolicy: (policy: Parameters<NonNullable<HostApi["registerTrustedToolPolicy"]>>[0]) =>
            void policies.push(policy as unknown as RecordingHost["policies"][number]),
        }
      : {}),
  };
  const fire = (hook: string, event: unknown, ctx: unknown = {}) => (hooks.get(hook) ?? []).map((h) => h(event, ctx));
  return { api, hooks, policies, commands, logs, fire };
}
