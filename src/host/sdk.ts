import type { OpenClawPluginApi, PluginCommandContext, PluginTrustedToolPolicyRegistration } from "openclaw/plugin-sdk/plugin-entry";

/**
 * The part of OpenClaw's plugin API that ClawOS uses, typed from the installed SDK and narrowed
 * with `Pick<>`. Members that older hosts lack are optional: 2026.1.x has no trusted tool policies,
 * and not every host passes a runtime or a registration mode. The adapter, the trace replay's
 * recording host and the unit tests' stand-in all implement this one type, so a change in the SDK
 * shows up in `tsc`, not in an end-to-end run.
 */

type On = OpenClawPluginApi["on"];
declare const on: On;

/** Every hook name the SDK knows. */
export type HookName = Parameters<On>[0];
/** The handler the SDK expects for one hook. */
export type HookHandler<K extends HookName> = Parameters<typeof on<K>>[1];
export type HookEvent<K extends HookName> = Parameters<HookHandler<K>>[0];
export type HookContext<K extends HookName> = Parameters<HookHandler<K>>[1];

export type TrustedToolPolicy = Pick<PluginTrustedToolPolicyRegistration, "id" | "description" | "evaluate">;
export type ToolEvent = Parameters<TrustedToolPolicy["evaluate"]>[0];
export type ToolContext = Parameters<TrustedToolPolicy["evaluate"]>[1];

/** What a `/clawos` handler reads of the command context. */
export type CommandContext = Partial<Pick<PluginCommandContext, "args" | "sessionKey" | "senderId" | "channel" | "senderIsOwner" | "gatewayClientScopes">>;
export interface CommandDefinition {
  name: string;
  description: string;
  acceptsArgs?: boolean;
  requireAuth?: boolean;
  handler: (ctx: CommandContext) => { text: string } | Promise<{ text: string }>;
}

/** The runtime members read at registration, all optional (older hosts pass less). */
export interface HostRuntime {
  readonly version?: string;
  readonly state?: { readonly resolveStateDir?: (env?: NodeJS.ProcessEnv) => string };
}

export type HostApi = Pick<OpenClawPluginApi, "logger" | "on"> &
  Partial<Pick<OpenClawPluginApi, "config" | "pluginConfig" | "resolvePath" | "registrationMode" | "registerTrustedToolPolicy">> & {
    readonly runtime?: HostRuntime;
    readonly registerCommand?: (command: CommandDefinition) => void;
  };
