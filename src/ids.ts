/** Identifiers the host knows ClawOS by: the plugin id, its trusted tool policy id and its slash command. */
export const PLUGIN_ID = "clawos";
export const PLUGIN_NAME = "ClawOS";
export const PLUGIN_DESCRIPTION = "Input-trust taint tracking (L1) and capability control (L2) for every OpenClaw tool call.";
export const POLICY_ID = "clawos-gate";
export const COMMAND_NAME = "clawos";
