import { isoTime } from "../report/iso-time.ts";
import type { InstallSnapshot } from "./install-facts.ts";

/**
 * `openclaw clawos verify`: whether the audit log and the session state are intact, from an
 * install snapshot (the audit log checked against its seal by `AuditSeal`, each session file by the
 * session store). Pure: the snapshot in, the checks out; a failed check makes the command exit 1.
 */

export type CheckState = "ok" | "warn" | "fail";

export interface VerifyCheck {
  readonly name: string;
  readonly state: CheckState;
  readonly detail: string;
}

export interface VerifyReport {
  readonly ok: boolean;
  readonly checks: readonly VerifyCheck[];
}

function auditChecks(s: InstallSnapshot): VerifyCheck[] {
  const a = s.audit;
  if (a.missing) return [{ name: "audit log", state: "warn", detail: `${a.file} does not exist yet: no decision has been recorded` }];
  const checks: VerifyCheck[] = [];
  if (a.error) checks.push({ name: "audit log", state: "fail", detail: `${a.file} cannot be read: ${a.error}` });
  const integrity = a.integrity;
  switch (integrity?.state) {
    case "ok":
      checks.push({ name: "audit seal", state: "ok", detail: `${a.file} matches its seal${integrity.sealedAt ? ` of ${isoTime(integrity.sealedAt)}` : ""}` });
      break;
    case "unsealed":
      checks.push({ name: "audit seal", state: "warn", detail: `${a.file} has no seal yet (the gateway seals it while it runs)` });
      break;
    case undefined:
    case "checking":
      checks.push({ name: "audit seal", state: "warn", detail: `${a.file} could not be checked against its seal` });
      break;
    default:
      checks.push({ name: "audit seal", state: "fail", detail: `${integrity?.state.toUpperCase()}: ${integrity?.detail ?? ""}` });
  }
  const bad = a.unparsable > 0 || a.tornTail;
  checks.push({
    name: "audit records",
    state: bad ? "fail" : "ok",
    detail: `${a.records} records (${a.decisions} decisions, ${a.trustChanges} trust changes)${a.unparsable ? `; ${a.unparsable} lines are not records (lines ${a.unparsableLines.join(", ")}${a.unparsable > a.unparsableLines.length ? ", ..." : ""})` : ""}${a.tornTail ? "; the last line is cut off" : ""}`,
  });
  if (!s.facts.audit.writable) checks.push({ name: "audit writable", state: "fail", detail: `${a.file} cannot be written by this user` });
  return checks;
}

function stateChecks(s: InstallSnapshot): VerifyCheck[] {
  const l = s.sessions;
  if (!l.exists) return [{ name: "session state", state: "ok", detail: `${l.dir} does not exist yet: every session starts at owner` }];
  const checks: VerifyCheck[] = [];
  if (l.key !== "ok") {
    checks.push({
      name: "state key",
      state: l.entries.length > 0 ? "fail" : "warn",
      detail: `${l.keyFile} is ${l.key}${l.entries.length ? `: none of the ${l.entries.length} session files can be verified (the gateway treats them as untrusted)` : ""}`,
    });
    return checks;
  }
  checks.push({ name: "state key", state: "ok", detail: `${l.keyFile} is present` });
  const failing = l.entries.filter((e) => e.problem);
  checks.push({
    name: "session files",
    state: failing.length + l.unreadable.length > 0 ? "fail" : "ok",
    detail:
      failing.length + l.unreadable.length === 0
        ? `${l.entries.length} session files pass their authentication check`
        : [
            `${failing.length + l.unreadable.length} of ${l.entries.length + l.unreadable.length} session files fail (the gateway treats those sessions as untrusted):`,
            ...failing.map((e) => `${e.file} (${e.key}): ${e.problem}`),
            ...l.unreadable.map((u) => `${u.file}: ${u.problem}`),
          ].join("\n  "),
  });
  return checks;
}

export function verifyInstall(s: InstallSnapshot): VerifyReport {
  const checks = [...auditChecks(s), ...stateChecks(s)];
  const writable = s.facts.files.filter((f) => f.writableBy);
  if (writable.length > 0) {
    checks.push({ name: "permissions", state: "fail", detail: `writable by other users: ${writable.map((f) => `${f.path} (${f.writableBy})`).join(", ")}` });
  }
  return { ok: checks.every((c) => c.state !== "fail"), checks };
}

export function formatVerify(report: VerifyReport): string {
  const lines = report.checks.map((c) => `${c.state === "ok" ? "OK  " : c.state === "warn" ? "WARN" : "FAIL"}  ${c.name}: ${c.detail}`);
  lines.push(report.ok ? "ClawOS's audit log and session state are intact." : "ClawOS's audit log or session state is NOT intact (see FAIL above).");
  return lines.join("\n");
}
