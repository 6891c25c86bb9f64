import type { OpenClawPluginDefinition } from "openclaw/plugin-sdk/plugin-entry";
import { resolveConfig } from "./src/config/config.ts";
import { buildUiHints, configJsonSchema } from "./src/config/config-schema.ts";
import { registerClawos } from "./src/host/adapter.ts";
import { logLoadWarnings } from "./src/host/runtime.ts";
import { isOperatorCliProcess, registerOperatorCli, registerSecurityAudit, type OperatorApi } from "./src/host/operator-surfaces.ts";
import type { HostApi } from "./src/host/sdk.ts";
import { PLUGIN_DESCRIPTION, PLUGIN_ID, PLUGIN_NAME } from "./src/ids.ts";

/**
 * ClawOS plugin entry: registration only. The entry is the plain object `definePluginEntry`
 * would build, so it loads on hosts whose SDK lacks that helper and needs no runtime import
 * of `openclaw` (an npm-installed plugin does not get one).
 */
const plugin = {
  id: PLUGIN_ID,
  name: PLUGIN_NAME,
  description: PLUGIN_DESCRIPTION,
  configSchema: {
    jsonSchema: configJsonSchema(),
    uiHints: buildUiHints(),
    validate(value: unknown) {
      const result = resolveConfig(value);
      return result.ok ? { ok: true as const, value: result.config } : { ok: false as const, errors: result.errors };
    },
  },
  // The host passes its whole plugin API; ClawOS reads only the parts typed as HostApi and OperatorApi.
  register(api: HostApi & OperatorApi) {
    // `openclaw clawos ...`, in every registration (the host collects CLI descriptors in cli-metadata loads).
    registerOperatorCli(api);
    // cli-metadata loads have no runtime; the `openclaw clawos` process runs only the operator CLI.
    if (api.registrationMode === "cli-metadata" || isOperatorCliProcess()) return;
    const runtime = registerClawos(api);
    // Unknown capabilities in manifests, named with the file and the closest known one (once per set).
    logLoadWarnings(runtime, api.logger);
    // Findings for `openclaw security audit --deep` (the host keeps collectors from full registrations).
    registerSecurityAudit(api, runtime);
  },
} satisfies OpenClawPluginDefinition;

export default plugin;
