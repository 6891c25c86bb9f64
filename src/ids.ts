/** Identifiers the host knows ClawOS by: the plugin id and its trusted tool policy id. */
export const PLUGIN_ID = "clawos";
export const POLICY_ID = "clawos-gate";
