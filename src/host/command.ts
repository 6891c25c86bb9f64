import { formatAudit, formatManifests, formatSession, formatStatus } from "../report/status.ts";
import { formatGrants, grantText } from "../report/grant-list.ts";
import { formatFileLabels } from "../report/file-list.ts";
import { statusSnapshot, type ClawosRuntime } from "./runtime.ts";
import type { CommandContext } from "./sdk.ts";
import { redactString } from "../audit/redact.ts";
import { agentOfSessionKey, isSubagentSessionKey } from "./session-keys.ts";

/**
 * The `/clawos` command: status, session trust, the audit and rollout report, manifests, and the
 * owner's trust reset. It reads and acts through the engine's face only.
 */

export const COMMAND_USAGE =
  "Usage: /clawos [status | session | audit [n] | manifests [tool] | trust reset | files | files trust <path> | grants | grants revoke <id> | grant <action> [for <duration>]]";

function parseCount(text: string | undefined, fallback: number): number {
  const n = Number.parseInt(text ?? "", 10);
  return Number.isFinite(n) && n > 0 ? Math.min(n, 500) : fallback;
}

function str(value: unknown): string | undefined {
  return typeof value === "string" && value ? value : undefined;
}

/** Who may raise trust: the owner as resolved by the host, or a gateway operator with admin scope. */
export function ownerAction(ctx: CommandContext): { ok: boolean; by: string } {
  const scopes = Array.isArray(ctx?.gatewayClientScopes) ? ctx.gatewayClientScopes : [];
  const by = `${str(ctx?.channel) ?? "?"}:${str(ctx?.senderId) ?? "operator"}`;
  if (ctx?.senderIsOwner === true) return { ok: true, by: `owner ${by}` };
  if (scopes.includes("operator.admin")) return { ok: true, by: `gateway operator ${by} (operator.admin)` };
  return { ok: false, by };
}

export function handleCommand(runtime: ClawosRuntime, ctx: CommandContext): { text: string } {
  const args = (str(ctx?.args) ?? "").trim().split(/\s+/).filter(Boolean);
  const sessionKey = str(ctx?.sessionKey);
  const engine = runtime.engine;
  // The message that carried this command went to the command, not to the model.
  if (sessionKey) engine.commandHandled(sessionKey, str(ctx?.channel), str(ctx?.senderId));
  switch (args[0] ?? "status") {
    case "status":
      return { text: formatStatus(statusSnapshot(runtime)) };
    case "session":
      return { text: formatSession(sessionKey, sessionKey ? engine.sessionReport(sessionKey) : undefined, isSubagentSessionKey(sessionKey)) };
    case "audit":
      return { text: formatAudit(engine.recentDecisions(parseCount(args[1], 20)), engine.rolloutReport(), engine.approvalTally()) };
    case "manifests":
      return { text: formatManifests(engine.manifestList().entries, args[1]?.toLowerCase(), runtime.capabilityWarnings) };
    case "trust": {
      if (args[1] !== "reset") return { text: "Usage: /clawos trust reset" };
      if (!sessionKey) return { text: "ClawOS: no session to reset here." };
      if (isSubagentSessionKey(sessionKey)) return { text: "ClawOS: a sub-agent session's trust cannot be reset; it follows its parent." };
      const who = ownerAction(ctx);
      if (!who.ok) {
        return { text: `ClawOS: only the owner (or a gateway operator with operator.admin) can reset trust; ${who.by} is not. Nothing changed.` };
      }
      const { from, to } = engine.resetTrust(sessionKey, who.by);
      return { text: `ClawOS: session ${sessionKey} trust reset from ${from} to ${to} by ${who.by}. This was recorded in the audit log.` };
    }
    case "files": {
      if (args[1] === undefined) return { text: formatFileLabels(engine.fileLabels(20)) };
      // A path may hold spaces: everything after "trust" is the path, as the owner typed it.
      const raw = (str(ctx?.args) ?? "").trim().replace(/^files\s+trust\s*/, "");
      if (args[1] !== "trust" || raw === "") return { text: "Usage: /clawos files | /clawos files trust <path>" };
      const who = ownerAction(ctx);
      if (!who.ok) {
        engine.audit.recordFile("file.refused", { path: redactString(raw).slice(0, 200), by: who.by, why: "not the owner" });
        return { text: `ClawOS: only the owner (or a gateway operator with operator.admin) can vouch for a file; ${who.by} is not. Nothing changed.` };
      }
      const result = engine.trustFile(raw, agentOfSessionKey(sessionKey), who.by);
      if (!result.ok) return { text: `ClawOS: nothing changed: ${result.why}.` };
      return {
        text: `ClawOS: ${result.path} now counts as the owner's (it was ${result.from}), vouched for by ${who.by}, until a less trusted session writes it again. Recorded in the audit log.`,
      };
    }
    case "grants": {
      if (args[1] === undefined) return { text: formatGrants(engine.listGrants(), Date.now(), engine.grants) };
      if (args[1] !== "revoke" || !args[2] || args.length > 3) return { text: "Usage: /clawos grants | /clawos grants revoke <id>" };
      const who = ownerAction(ctx);
      if (!who.ok) {
        engine.audit.recordGrant("grant.refused", { request: `revoke ${args[2].slice(0, 80)}`, by: who.by, why: "not the owner" });
        return { text: `ClawOS: only the owner (or a gateway operator with operator.admin) can revoke a grant; ${who.by} is not. Nothing changed.` };
      }
      const gone = engine.revokeGrant(args[2], who.by);
      return {
        text: gone
          ? `ClawOS: grant ${gone.id} revoked by ${who.by}. This was recorded in the audit log.`
          : `ClawOS: there is no grant ${JSON.stringify(args[2])}; /clawos grants lists them.`,
      };
    }
    case "grant": {
      const who = ownerAction(ctx);
      const action = args[1];
      const malformed = !action || (args.length !== 2 && !(args.length === 4 && args[2] === "for"));
      if (malformed) {
        engine.audit.recordGrant("grant.refused", { request: `grant ${args.slice(1).join(" ").slice(0, 120)}`, by: who.by, why: "malformed" });
        return { text: "Usage: /clawos grant <action> [for <duration>], e.g. /clawos grant git-push for 1h. Nothing was granted." };
      }
      if (!who.ok) {
        engine.audit.recordGrant("grant.refused", { request: `grant ${action.slice(0, 80)}`, by: who.by, why: "not the owner" });
        return { text: `ClawOS: only the owner (or a gateway operator with operator.admin) can grant; ${who.by} is not. Nothing was granted.` };
      }
      const result = engine.grantAction(action, args[3], who.by, { sessionKey });
      if (!result.ok) return { text: `ClawOS: nothing was granted: ${result.why}.` };
      return {
        text: `ClawOS: granted. - ${grantText(result.grant, Date.now())} Recorded in the audit log.`,
      };
    }
    default:
      return { text: COMMAND_USAGE };
  }
}
