import { TypeCompiler } from "@sinclair/typebox/compiler";
import { Value } from "@sinclair/typebox/value";
import { ConfigSchema, type ClawosConfig } from "./config-schema.ts";
import { PLUGIN_ID } from "../ids.ts";
import { describeErrors } from "./validation.ts";
import { validateCommandRules } from "../policy/commands/command-rules.ts";
import { CapabilityTable } from "../policy/capabilities.ts";

const checkConfig = TypeCompiler.Compile(ConfigSchema);

/** Where operators write ClawOS's config in openclaw.json. */
export const CONFIG_LOCATION = `plugins.entries.${PLUGIN_ID}.config`;

export type ConfigResult = { ok: true; config: ClawosConfig } | { ok: false; errors: string[] };

/**
 * Applies the schema defaults to the operator's config and validates it. The host validates the
 * same schema first (openclaw.plugin.json); this second check protects older hosts that do not.
 */
export function resolveConfig(raw: unknown): ConfigResult {
  const input = raw === undefined || raw === null ? {} : raw;
  if (typeof input !== "object" || Array.isArray(input)) {
    return { ok: false, errors: [`${CONFIG_LOCATION} must be an object, got ${JSON.stringify(input)}.`] };
  }
  const withDefaults = Value.Default(ConfigSchema, structuredClone(input));
  if (checkConfig.Check(withDefaults)) {
    // What the schema cannot say: a command rule that does nothing, a repeated rule id.
    const errors = [
      ...validateCommandRules(withDefaults.commands.rules, `${CONFIG_LOCATION}.commands.rules`),
      ...unknownCapabilityErrors(withDefaults as ClawosConfig),
    ];
    return errors.length ? { ok: false, errors } : { ok: true, config: withDefaults as ClawosConfig };
  }
  return { ok: false, errors: describeErrors(checkConfig, withDefaults, CONFIG_LOCATION) };
}

/** The capabilities this config knows: the built-in table plus `capabilities.custom`. */
export function capabilityTableOf(config: ClawosConfig): CapabilityTable {
  return new CapabilityTable(config.capabilities.custom);
}

/**
 * Every capability a denial list names must be in the table: a typo there would deny nothing,
 * silently. Each error names the field, the closest known name and the known list. Unknown names
 * in manifests (inline or in manifestDirs) keep their manifest loaded, fail closed (a call carrying
 * one needs owner) and are reported when the manifests load (`unknownCapabilityWarnings`).
 */
export function unknownCapabilityErrors(config: ClawosConfig): string[] {
  const table = capabilityTableOf(config);
  const errors: string[] = [];
  const check = (names: readonly string[], field: string) =>
    names.forEach((name, index) => {
      if (!table.isKnown(name)) errors.push(table.describeUnknown(name, `${CONFIG_LOCATION}: ${field}[${index}]`));
    });
  check(config.capabilities.deny, "capabilities.deny");
  for (const [agent, { deny }] of Object.entries(config.capabilities.agents)) check(deny, `capabilities.agents.${agent}.deny`);
  check(config.subagent.denyCapabilities, "subagent.denyCapabilities");
  return errors;
}

/** The config with every default: what ClawOS runs with when the operator wrote nothing. */
export function defaultConfig(): ClawosConfig {
  const result = resolveConfig({});
  if (!result.ok) throw new Error(`built-in config defaults are invalid: ${result.errors.join("; ")}`);
  return result.config;
}
