import type { Integrity } from "../audit/audit-seal.ts";
import { CONFIG_LOCATION } from "../config/config.ts";
import type { ClawosConfig } from "../config/config-schema.ts";
import type { HostWiring } from "../host/legacy-host.ts";
import type { BrokenManifest } from "../policy/manifests.ts";
import { isoTime } from "../report/iso-time.ts";
import type { ManifestWeakening } from "./manifest-weakening.ts";

/**
 * ClawOS's findings for OpenClaw's security audit (`openclaw security audit --deep`, through the
 * plugin's security-audit collector) and for `openclaw clawos findings`: what leaves an install
 * less protected than it looks, each with a severity and the fix. Pure: the facts are gathered
 * elsewhere (`install-facts.ts`); the findings follow from them alone.
 */

export type FindingSeverity = "info" | "warn" | "critical";

/** The host's `SecurityAuditFinding` shape. */
export interface SecurityFinding {
  readonly checkId: string;
  readonly severity: FindingSeverity;
  readonly title: string;
  readonly detail: string;
  readonly remediation?: string;
}

/** Who besides the owner can reach a file: its own mode and every directory above it let them. */
export type Exposure = "group" | "world";

export interface FileAccess {
  readonly path: string;
  /** What the file is, in words ("the audit log"). */
  readonly what: string;
  readonly isDir: boolean;
  /** Reading it forges state (the state key). */
  readonly secret: boolean;
  readonly readableBy?: Exposure;
  readonly writableBy?: Exposure;
}

export interface FindingFacts {
  readonly config: ClawosConfig;
  readonly configErrors: readonly string[];
  /** Config that takes protection away from ClawOS's defaults (`config/weakening.ts`). */
  readonly configWeakenings: readonly string[];
  /** Per-tool overrides below the configured mode. */
  readonly overrideWeakenings: readonly string[];
  readonly manifestWeakenings: readonly ManifestWeakening[];
  readonly brokenManifests: readonly BrokenManifest[];
  /** Tools decided without a manifest, with how many calls. */
  readonly unmanifestedTools: Readonly<Record<string, number>>;
  readonly gate: {
    /** Decisions in the audit log (every one is the gate firing). */
    readonly decisions: number;
    readonly lastAt?: number;
    /** Gate calls seen by this process, when the collector runs inside the gateway. */
    readonly firedInProcess?: number;
  };
  readonly host?: { readonly version: string; readonly wiring: HostWiring; readonly fixCommand?: string; readonly summary: string };
  readonly files: readonly FileAccess[];
  readonly audit: {
    readonly file: string;
    readonly exists: boolean;
    /** This user may write the file (or create it); false: the gateway, running as this user, cannot record. */
    readonly writable: boolean;
    readonly writeErrors: number;
    readonly lastWriteError?: string;
    readonly unparsable: number;
    readonly tornTail: boolean;
    readonly readError?: string;
    readonly integrity?: Integrity;
  };
  readonly state: {
    readonly sessionsDir: string;
    readonly keyFile: string;
    readonly key: "ok" | "missing" | "unusable";
    readonly files: number;
    /** Session files the gateway will not trust (it treats those sessions as untrusted). */
    readonly failing: readonly { readonly file: string; readonly problem: string }[];
  };
}

const MODE = `${CONFIG_LOCATION}.capabilities.mode`;

function list(items: readonly string[], max = 8): string {
  const shown = items.slice(0, max).map((i) => `  - ${i}`);
  if (items.length > max) shown.push(`  - ... and ${items.length - max} more`);
  return shown.join("\n");
}

function configFindings(f: FindingFacts): SecurityFinding[] {
  const out: SecurityFinding[] = [];
  const c = f.config;
  if (f.configErrors.length > 0) {
    out.push({
      checkId: "clawos.config.invalid",
      severity: "warn",
      title: "ClawOS config is invalid: every tool call is blocked",
      detail: `ClawOS fails closed while ${CONFIG_LOCATION} is invalid:\n${list(f.configErrors)}`,
      remediation: `Fix the fields named above (openclaw config validate shows them too).`,
    });
  }
  if (!c.layers.capabilities || c.capabilities.mode === "off") {
    out.push({
      checkId: "clawos.mode.off",
      severity: "critical",
      title: "ClawOS capability control is off: no tool call is checked",
      detail: c.layers.capabilities ? `${MODE} is "off".` : `${CONFIG_LOCATION}.layers.capabilities is false.`,
      remediation: `Set ${MODE} to "audit" to see what would be blocked, then to "enforce" (openclaw clawos report shows the rollout).`,
    });
  } else if (c.capabilities.mode === "audit") {
    const enforced = Object.entries(c.capabilities.overrides).filter(([, mode]) => mode === "enforce");
    out.push({
      checkId: "clawos.mode.audit",
      severity: "warn",
      title: "ClawOS is in audit mode: it records would-blocks and blocks nothing",
      detail: `${MODE} is "audit"${enforced.length ? `; only ${enforced.map(([tool]) => tool).join(", ")} ${enforced.length === 1 ? "is" : "are"} enforced by override` : ""}. An injected tool call runs and is only recorded.`,
      remediation: `Review the would-blocks with openclaw clawos report, add the manifests or overrides it names for expected uses, then set ${MODE} to "enforce".`,
    });
  }
  if (!c.layers.tagging) {
    out.push({
      checkId: "clawos.layer.tagging_off",
      severity: "critical",
      title: "ClawOS input trust tagging is off: every session counts as owner",
      detail: `${CONFIG_LOCATION}.layers.tagging is false, so what enters a session (web pages, files, other senders' messages) never lowers its trust.`,
      remediation: `Remove ${CONFIG_LOCATION}.layers.tagging or set it to true.`,
    });
  }
  if (f.overrideWeakenings.length > 0) {
    out.push({
      checkId: "clawos.config.overrides_weaken",
      severity: "warn",
      title: "ClawOS per-tool overrides exempt tools from the configured mode",
      detail: `These overrides relax ${MODE} ("${c.capabilities.mode}"):\n${list(f.overrideWeakenings)}`,
      remediation: `Remove each override from ${CONFIG_LOCATION}.capabilities.overrides once openclaw clawos report shows the tool's would-blocks are unwanted, or keep it and accept that the tool is not blocked.`,
    });
  }
  if (f.configWeakenings.length > 0) {
    out.push({
      checkId: "clawos.config.weakens_defaults",
      severity: "warn",
      title: "ClawOS config relaxes its defaults",
      detail: `${CONFIG_LOCATION} takes away protection the defaults give:\n${list(f.configWeakenings)}`,
      remediation: "Keep each change only if it is intended; the README's configuration table says what each field protects.",
    });
  }
  return out;
}

function manifestFindings(f: FindingFacts): SecurityFinding[] {
  const out: SecurityFinding[] = [];
  if (f.manifestWeakenings.length > 0) {
    const outputs = f.manifestWeakenings.filter((w) => w.raisesOutputTrust).map((w) => w.tool);
    out.push({
      checkId: "clawos.manifests.weaken_builtin",
      severity: "warn",
      title: "Operator manifests weaken ClawOS's built-in ones",
      detail: `${f.manifestWeakenings.length} operator manifest${f.manifestWeakenings.length === 1 ? " replaces its" : "s replace their"} built-in manifest with a weaker one:\n${list(
        f.manifestWeakenings.map((w) => `${w.tool} (${w.source}): ${w.changes.join("; ")}`),
      )}${outputs.length ? `\nResults of ${outputs.join(", ")} now count as more trusted: text injected into them is not caught.` : ""}`,
      remediation:
        "Remove the manifest (the built-in one applies again) or keep only the changes you mean; openclaw clawos manifests <tool> shows what applies.",
    });
  }
  if (f.brokenManifests.length > 0) {
    out.push({
      checkId: "clawos.manifests.invalid",
      severity: "warn",
      title: "ClawOS manifests failed to load: calls of their tools are blocked",
      detail: list(f.brokenManifests.map((b) => `${b.tool ?? "(unknown tool)"} (${b.source}): ${b.errors[0] ?? "invalid"}`)),
      remediation: "Fix each file named above (ClawOS blocks a tool whose manifest is broken until it is fixed).",
    });
  }
  const unmanifested = Object.entries(f.unmanifestedTools);
  if (unmanifested.length > 0) {
    const defaultAllow = f.config.capabilities.defaultAllow;
    out.push({
      checkId: "clawos.tools.unmanifested",
      severity: "warn",
      title: "Tools were called that have no ClawOS manifest",
      detail: `ClawOS decided calls of tools it has no manifest for: ${unmanifested.map(([tool, n]) => `${tool} (${n})`).join(", ")}. ${
        defaultAllow
          ? "The owner's calls of them are allowed without knowing what they do; below owner they are treated as critical and blocked."
          : "They are blocked (capabilities.defaultAllow is false)."
      }`,
      remediation: `Add a manifest for each (a JSON file in a directory listed in ${CONFIG_LOCATION}.manifestDirs, or ${CONFIG_LOCATION}.manifests) naming its capabilities, the input trust it needs and the trust of its output.`,
    });
  }
  return out;
}

function hostFindings(f: FindingFacts): SecurityFinding[] {
  const out: SecurityFinding[] = [];
  const host = f.host;
  if (host?.wiring === "unpatched-legacy") {
    out.push({
      checkId: "clawos.host.unpatched_legacy",
      severity: "critical",
      title: `OpenClaw ${host.version} never calls tool hooks: ClawOS is not enforcing`,
      detail: host.summary,
      remediation: host.fixCommand ? `Run ${host.fixCommand} and restart the gateway.` : "Upgrade OpenClaw to a release that calls the tool hooks.",
    });
  } else if (host?.wiring === "native-before-only") {
    out.push({
      checkId: "clawos.host.results_unseen",
      severity: "warn",
      title: `OpenClaw ${host.version} does not report tool results to plugins`,
      detail: `${host.summary}. ClawOS lowers a session from stored results only.`,
      remediation: "Upgrade OpenClaw.",
    });
  }
  const fired = f.gate.decisions > 0 || (f.gate.firedInProcess ?? 0) > 0;
  if (!fired && f.config.layers.capabilities && f.config.capabilities.mode !== "off") {
    out.push({
      checkId: "clawos.gate.never_fired",
      severity: host?.wiring === "unpatched-legacy" ? "critical" : "warn",
      title: "ClawOS's gate has never been observed deciding a tool call",
      detail: `The audit log ${f.audit.file} holds no decision${f.audit.exists ? "" : " (it does not exist yet)"}, so nothing shows that tool calls reach ClawOS on this install.`,
      remediation:
        "Restart the gateway, run one tool call (for example ask the agent to list a directory), then check openclaw clawos status. If it still shows no decision, check that the gateway log lists clawos among its plugins.",
    });
  }
  return out;
}

function fileFindings(f: FindingFacts): SecurityFinding[] {
  const out: SecurityFinding[] = [];
  const writable = f.files.filter((x) => x.writableBy);
  if (writable.length > 0) {
    out.push({
      checkId: "clawos.files.writable_by_others",
      severity: writable.some((x) => x.writableBy === "world") ? "critical" : "warn",
      title: "ClawOS's state or audit files can be changed by other users",
      detail: `Another user can rewrite session trust or the audit record:\n${list(writable.map((x) => `${x.what} ${x.path} (${x.writableBy})`))}`,
      remediation: writable.map((x) => `chmod ${x.isDir ? "700" : "600"} ${JSON.stringify(x.path)}`).join("; "),
    });
  }
  const readable = f.files.filter((x) => x.readableBy);
  if (readable.length > 0) {
    const secret = readable.filter((x) => x.secret);
    out.push({
      checkId: "clawos.files.readable_by_others",
      severity: secret.some((x) => x.readableBy === "world")
        ? "critical"
        : readable.some((x) => x.readableBy === "world") || secret.length > 0
          ? "warn"
          : "info",
      title: "ClawOS's state or audit files can be read by other users",
      detail: `${list(readable.map((x) => `${x.what} ${x.path} (${x.readableBy})`))}${
        secret.length ? "\nThe state key authenticates session state: whoever reads it can forge a session's trust." : ""
      }\nThe audit log holds session keys, tool names and redacted previews of call parameters.`,
      remediation: readable.map((x) => `chmod ${x.isDir ? "700" : "600"} ${JSON.stringify(x.path)}`).join("; "),
    });
  }
  return out;
}

function auditFindings(f: FindingFacts): SecurityFinding[] {
  const out: SecurityFinding[] = [];
  const a = f.audit;
  const problems: string[] = [];
  if (!a.writable) problems.push(`${a.file} cannot be written by this user: decisions are not recorded`);
  if (a.writeErrors > 0) problems.push(`${a.writeErrors} write errors in this process${a.lastWriteError ? ` (last: ${a.lastWriteError})` : ""}`);
  if (a.readError) problems.push(`it cannot be read: ${a.readError}`);
  if (a.unparsable > 0) problems.push(`${a.unparsable} lines are not ClawOS records (cut-off or foreign writes)`);
  if (a.tornTail) problems.push("its last line is cut off (a write was interrupted: a crash or a full disk)");
  if (problems.length > 0) {
    out.push({
      checkId: "clawos.audit.write_errors",
      severity: !a.writable || a.writeErrors > 0 ? "critical" : "warn",
      title: "ClawOS's audit log has write errors",
      detail: `The audit log ${a.file}:\n${list(problems)}`,
      remediation: `Make ${a.file} and its directory writable by the user the gateway runs as, with free disk space, then restart the gateway; openclaw clawos verify checks it again.`,
    });
  }
  const state = a.integrity?.state;
  if (state === "truncated" || state === "rewritten" || state === "replaced" || state === "unreadable") {
    out.push({
      checkId: "clawos.audit.tampered",
      severity: "critical",
      title: "ClawOS's audit log no longer matches its seal",
      detail: `${a.integrity?.detail ?? state}${a.integrity?.sealedAt ? ` (sealed ${isoTime(a.integrity.sealedAt)})` : ""}. Records may have been removed or changed.`,
      remediation: `Keep a copy of ${a.file} and ${a.file}.seal, and find who could write ClawOS's state directory. The next gateway start seals the log as it is now.`,
    });
  }
  const s = f.state;
  if (s.files > 0 && s.key !== "ok") {
    out.push({
      checkId: "clawos.state.key_missing",
      severity: "warn",
      title: "ClawOS's state key is missing: session state cannot be verified",
      detail: `${s.keyFile} is ${s.key}; the gateway treats every one of the ${s.files} session files in ${s.sessionsDir} as untrusted.`,
      remediation: "Restore the key from a backup if there is one; otherwise the sessions start again with /new.",
    });
  } else if (s.failing.length > 0) {
    out.push({
      checkId: "clawos.state.failing_check",
      severity: "warn",
      title: "ClawOS session files fail their authentication check",
      detail: `The gateway treats these sessions as untrusted:\n${list(s.failing.map((x) => `${x.file}: ${x.problem}`))}`,
      remediation: "Find who could write ClawOS's state directory; the sessions start clean again with /new.",
    });
  }
  return out;
}

/** Every finding the facts support, config first. */
export function securityFindings(f: FindingFacts): SecurityFinding[] {
  return [...configFindings(f), ...manifestFindings(f), ...hostFindings(f), ...fileFindings(f), ...auditFindings(f)];
}

/** The findings in words, for `openclaw clawos findings` and `status`. */
export function formatFindings(findings: readonly SecurityFinding[]): string {
  if (findings.length === 0) return "No ClawOS security findings.";
  const lines = [`ClawOS security findings: ${findings.length}`];
  for (const x of findings) {
    lines.push(`${x.severity.toUpperCase().padEnd(8)} ${x.checkId}: ${x.title}`);
    for (const line of x.detail.split("\n")) lines.push(`         ${line}`);
    if (x.remediation) lines.push(`         Fix: ${x.remediation}`);
  }
  return lines.join("\n");
}
