import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { inspectInstall, type InProcessObservations } from "../cli/install-facts.ts";
import { CLI_COMMAND, CLI_DESCRIPTION, defineOperatorCommands, type CommandBuilder } from "../cli/operator-cli.ts";
import { securityFindings } from "../cli/security-findings.ts";
import { GATE_HOOKS } from "../report/status.ts";
import type { ClawosRuntime } from "./runtime.ts";
import type { HostRuntime } from "./sdk.ts";

/**
 * The operator's surfaces in the host: the `openclaw clawos ...` command tree (the host's plugin CLI
 * registration) and ClawOS's findings for `openclaw security audit --deep` (its security-audit
 * collector). Both read the install through `cli/install-facts.ts`; neither touches the gate.
 */

export type OperatorApi = Partial<Pick<OpenClawPluginApi, "registerCli" | "registerSecurityAuditCollector" | "registrationMode" | "config" | "resolvePath">> & {
  readonly runtime?: HostRuntime;
};

type CliRegistrar = Parameters<OpenClawPluginApi["registerCli"]>[0];
type AuditCollector = Parameters<OpenClawPluginApi["registerSecurityAuditCollector"]>[0];

/**
 * Whether this process is `openclaw clawos ...`: the host runs nothing but that command in it (no
 * agent turn, no tool call), so the plugin there is the operator CLI only and opens no state for
 * writing. Read from the command line the way the host routes it: the first argument.
 */
export function isOperatorCliProcess(argv: readonly string[] = process.argv): boolean {
  return argv[2] === CLI_COMMAND;
}

/** OpenClaw's state directory as the host resolves it, when its runtime may be asked (not in cli-metadata loads). */
function hostStateDir(api: OperatorApi): string | undefined {
  if (api.registrationMode === "cli-metadata") return undefined;
  try {
    return api.runtime?.state?.resolveStateDir?.(process.env);
  } catch {
    return undefined;
  }
}

export function registerOperatorCli(api: OperatorApi): void {
  if (typeof api.registerCli !== "function") return;
  const registrar: CliRegistrar = ({ program, config }) => {
    defineOperatorCommands(program as unknown as CommandBuilder, () => ({
      openclawConfig: config ?? api.config,
      stateDir: hostStateDir(api),
      env: process.env,
      resolvePath: api.registrationMode === "cli-metadata" ? undefined : api.resolvePath?.bind(api),
    }));
  };
  api.registerCli(registrar, { descriptors: [{ name: CLI_COMMAND, description: CLI_DESCRIPTION, hasSubcommands: true }] });
}

/** What the gate in this process saw, for the collector when it runs inside the gateway. */
export function observationsOf(runtime: ClawosRuntime | undefined): InProcessObservations | undefined {
  if (!runtime) return undefined;
  const health = runtime.engine.audit.health;
  return {
    gateFired: GATE_HOOKS.reduce((n, hook) => n + (runtime.hooks[hook]?.fired ?? 0), 0),
    writeErrors: health.writeErrors,
    ...(health.lastWriteError ? { lastWriteError: health.lastWriteError } : {}),
    unmanifestedTools: runtime.engine.audit.unmanifestedTools,
  };
}

export function registerSecurityAudit(api: OperatorApi, runtime?: ClawosRuntime): void {
  if (typeof api.registerSecurityAuditCollector !== "function") return;
  const collector: AuditCollector = async (ctx) => {
    const snapshot = await inspectInstall({
      openclawConfig: ctx.config,
      stateDir: ctx.stateDir,
      env: ctx.env,
      observed: observationsOf(runtime),
    });
    return securityFindings(snapshot.facts);
  };
  api.registerSecurityAuditCollector(collector);
}
