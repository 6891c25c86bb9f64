import { redactString } from "../audit/redact.ts";
import { contextText, formatDuration, type Grant, matchWords, TREE_BOUND_TEXT } from "../grants/grant.ts";
import type { GrantStoreHealth } from "../grants/grant-store.ts";

/** `/clawos grants`: the owner's grants in force, each with what it answers, where, and for how long. */
export function formatGrants(grants: readonly Grant[], now: number, store: { durable: boolean; health: GrantStoreHealth }): string {
  const lines = [
    `ClawOS grants: ${grants.length} in force${store.durable ? "" : " (kept in memory only: ClawOS has no state key, so grants end with the gateway)"}.`,
  ];
  if (store.health.readError) lines.push(`Warning: ${store.health.readError}.`);
  if (store.health.writeErrors > 0) lines.push(`Warning: ${store.health.writeErrors} grant write error(s); last: ${store.health.lastWriteError}.`);
  for (const g of grants) lines.push(`- ${grantText(g, now)}`);
  if (grants.length > 0) lines.push("Revoke one with /clawos grants revoke <id>.");
  else lines.push("Grants come from allow-always answers and from /clawos grant <action> [for <duration>].");
  return lines.join("\n");
}

/** One grant in words: its id, what it answers, where, how long it has left, and who made it. */
export function grantText(g: Grant, now: number): string {
  const what = g.action
    ? `the irreversible action ${g.action}`
    : `${g.tool}${g.values && g.values.length > 0 ? ` with ${g.values.map((v) => `${v.argument} ${matchWords(v)}${JSON.stringify(redactString(v.value).slice(0, 80))}`).join(", ")}` : " (any call)"}${contextText(g.context)}`;
  const where = g.scope === "session" ? `in session ${g.sessionKey}` : g.scope === "agent" ? `for agent ${g.agentId}` : "everywhere";
  const left = g.expiresAt === undefined ? "no expiry" : `expires in ${formatDuration(Math.max(1000, Math.ceil((g.expiresAt - now) / 1000) * 1000))}`;
  return `${g.id}: ${what}, ${where}, ${left}${g.treeMark !== undefined ? `, ${TREE_BOUND_TEXT}` : ""} (by ${g.by})`;
}
