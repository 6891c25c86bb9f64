/**
 * Generates openclaw.plugin.json from the TypeBox config schema, the single source of truth.
 * `node scripts/plugin-json.ts` writes it; `--check` exits 1 when the file is out of date.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PLUGIN_DESCRIPTION, PLUGIN_ID, PLUGIN_NAME, POLICY_ID } from "../src/ids.ts";
import { buildUiHints, configJsonSchema } from "../src/config/config-schema.ts";

export function pluginJson(): Record<string, unknown> {
  return {
    id: PLUGIN_ID,
    name: PLUGIN_NAME,
    description: PLUGIN_DESCRIPTION,
    categories: ["security"],
    activation: { onStartup: true },
    contracts: { trustedToolPolicies: [POLICY_ID] },
    uiHints: buildUiHints(),
    configSchema: configJsonSchema(),
  };
}

export function pluginJsonText(): string {
  return `${JSON.stringify(pluginJson(), null, 2)}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const target = join(dirname(fileURLToPath(import.meta.url)), "..", "openclaw.plugin.json");
  if (process.argv.includes("--check")) {
    const current = readFileSync(target, "utf8");
    if (current !== pluginJsonText()) {
      console.error("openclaw.plugin.json is out of date: run `npm run gen:plugin-json`.");
      process.exit(1);
    }
  } else {
    writeFileSync(target, pluginJsonText());
    console.log(`wrote ${target}`);
  }
}
