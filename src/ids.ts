/** Identifiers the host knows ClawOS by: the plugin id, its trusted tool policy id and its slash command. */
export const PLUGIN_ID = "clawos";
export const POLICY_ID = "clawos-gate";
export const COMMAND_NAME = "clawos";
