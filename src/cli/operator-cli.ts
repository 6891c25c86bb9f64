import { CONFIG_LOCATION } from "../config/config.ts";
import { pluginVersion } from "../host/runtime.ts";
import { formatManifests } from "../report/status.ts";
import { isoTime } from "../report/iso-time.ts";
import { parseSince, type AuditRecord } from "./audit-records.ts";
import { inspectInstall, type InProcessObservations, type InstallSnapshot } from "./install-facts.ts";
import { formatRollout, RolloutTally, type RolloutPolicy } from "./rollout.ts";
import { formatFindings, securityFindings } from "./security-findings.ts";
import { describeSession, formatSessions } from "./session-list.ts";
import { formatVerify, verifyInstall } from "./verification.ts";

/**
 * `openclaw clawos ...`: the operator's commands, working with the gateway stopped. Each command is
 * a function from the install (OpenClaw's config and ClawOS's files) to text or JSON and an exit
 * code; `defineOperatorCommands` only maps them onto the host's command tree.
 */

export const CLI_COMMAND = "clawos";
export const CLI_DESCRIPTION = "ClawOS: status, rollout report, session trust, manifests, verify and security findings (works with the gateway stopped)";

export interface OperatorContext {
  /** OpenClaw's whole config. */
  readonly openclawConfig: unknown;
  readonly stateDir?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly resolvePath?: (path: string) => string;
  readonly observed?: InProcessObservations;
  readonly now?: () => number;
}

export interface CommandOutput {
  readonly text: string;
  readonly exitCode: number;
}

export interface JsonOption {
  readonly json?: boolean;
}

function json(value: unknown, exitCode = 0): CommandOutput {
  return { text: JSON.stringify(value, null, 2), exitCode };
}

function inspect(ctx: OperatorContext, onRecord?: (record: AuditRecord) => void): Promise<InstallSnapshot> {
  return inspectInstall({
    openclawConfig: ctx.openclawConfig,
    stateDir: ctx.stateDir,
    env: ctx.env,
    resolvePath: ctx.resolvePath,
    observed: ctx.observed,
    onRecord,
  });
}

function rolloutPolicy(snapshot: InstallSnapshot): RolloutPolicy {
  return {
    manifestFor(tool) {
      const entry = snapshot.registry.lookup(tool);
      if (!entry) return undefined;
      const m = entry.manifest;
      return {
        minInputTrust: m.minInputTrust,
        outputTrust: m.outputTrust,
        capabilities: m.capabilities,
        source: entry.source,
        builtin: entry.source.startsWith(snapshot.builtinDir),
      };
    },
  };
}

export async function statusCommand(ctx: OperatorContext, opts: JsonOption = {}): Promise<CommandOutput> {
  const s = await inspect(ctx);
  const findings = securityFindings(s.facts);
  const c = s.config.config;
  const builtin = s.registry.distinct().filter((e) => e.source.startsWith(s.builtinDir)).length;
  const manifests = s.registry.distinct().length;
  const trustCounts: Record<string, number> = {};
  for (const e of s.sessions.entries) trustCounts[e.trust] = (trustCounts[e.trust] ?? 0) + 1;
  const failing = s.facts.state.failing.length;
  const data = {
    plugin: { version: pluginVersion() },
    host: s.facts.host ?? null,
    stateDir: s.files.stateDir,
    config: {
      location: CONFIG_LOCATION,
      errors: s.config.errors,
      layers: c.layers,
      mode: c.layers.capabilities ? c.capabilities.mode : "off",
      overrides: c.capabilities.overrides,
      defaultAllow: c.capabilities.defaultAllow,
      deny: c.capabilities.deny,
    },
    gate: { decisions: s.audit.decisions, lastDecision: s.audit.lastDecisionAt === undefined ? null : isoTime(s.audit.lastDecisionAt) },
    audit: {
      file: s.audit.file,
      exists: !s.audit.missing,
      size: s.audit.size,
      records: s.audit.records,
      decisions: s.audit.decisions,
      allow: s.audit.allow,
      block: s.audit.block,
      wouldBlock: s.audit.wouldBlock,
      trustChanges: s.audit.trustChanges,
      unparsable: s.audit.unparsable,
      integrity: s.audit.integrity ?? null,
    },
    sessions: { dir: s.sessions.dir, key: s.sessions.key, files: s.sessions.entries.length, byTrust: trustCounts, failing },
    manifests: { loaded: manifests, builtin, operator: manifests - builtin, invalid: s.registry.broken.map((b) => b.tool ?? b.source) },
    unmanifestedTools: s.facts.unmanifestedTools,
    findings,
  };
  if (opts.json) return json(data);
  const mode = data.config.mode;
  const overrides = Object.entries(c.capabilities.overrides).map(([tool, m]) => `${tool}=${m}`);
  const severities = ["critical", "warn", "info"].map((sev) => [sev, findings.filter((f) => f.severity === sev).length] as const).filter(([, n]) => n > 0);
  const lines = [
    `ClawOS ${data.plugin.version}; OpenClaw state directory ${s.files.stateDir}`,
    `Host: ${s.facts.host ? s.facts.host.summary : "no OpenClaw package found from here"}`,
    `Config (${CONFIG_LOCATION}): mode ${mode}${overrides.length ? `; overrides ${overrides.join(", ")}` : ""}; tagging ${c.layers.tagging ? "on" : "OFF"}; tools without a manifest ${c.capabilities.defaultAllow ? "allowed for the owner" : "blocked"}${s.config.errors.length ? `; INVALID (every call is blocked): ${s.config.errors.join(" ")}` : ""}`,
    s.audit.decisions > 0
      ? `Gate: observed, ${s.audit.decisions} decisions recorded, the last at ${data.gate.lastDecision} (allow ${s.audit.allow}, block ${s.audit.block}, would-block ${s.audit.wouldBlock})`
      : "Gate: NOT YET OBSERVED: the audit log holds no decision",
    `Audit log: ${s.audit.file}: ${s.audit.missing ? "does not exist yet" : `${s.audit.size} bytes, ${s.audit.records} records, ${s.audit.trustChanges} trust changes; seal: ${s.audit.integrity?.state ?? "not checked"}`}`,
    `Sessions: ${s.sessions.dir}: ${s.sessions.entries.length} with state (${
      Object.entries(trustCounts)
        .map(([t, n]) => `${t} ${n}`)
        .join(", ") || "none"
    })${failing ? `; ${failing} fail their check` : ""}; sessions without a file are at owner`,
    `Manifests: ${manifests} loaded (${builtin} built-in, ${manifests - builtin} from the operator); invalid: ${data.manifests.invalid.join(", ") || "none"}`,
    `Tools seen without a manifest: ${
      Object.entries(s.facts.unmanifestedTools)
        .map(([tool, n]) => `${tool} (${n})`)
        .join(", ") || "none"
    }`,
    `Security findings: ${findings.length ? `${severities.map(([sev, n]) => `${n} ${sev}`).join(", ")}: ${findings.map((f) => f.checkId).join(", ")} (details: openclaw clawos findings)` : "none"}`,
  ];
  return { text: lines.join("\n"), exitCode: 0 };
}

export async function reportCommand(ctx: OperatorContext, opts: JsonOption & { readonly since?: string } = {}): Promise<CommandOutput> {
  const now = ctx.now?.() ?? Date.now();
  let since: number | undefined;
  try {
    since = opts.since ? parseSince(opts.since, now) : undefined;
  } catch (error) {
    return { text: (error as Error).message, exitCode: 2 };
  }
  const tally = new RolloutTally();
  const s = await inspect(ctx, (record) => {
    if (since === undefined || record.at >= since) tally.add(record);
  });
  const read = s.audit;
  const report = tally.report(rolloutPolicy(s), since);
  if (opts.json) return json({ file: read.file, missing: read.missing, unparsable: read.unparsable, ...report });
  if (read.missing) return { text: `No audit log at ${read.file} yet: no decision has been recorded.`, exitCode: 0 };
  return { text: formatRollout(report, { file: read.file }), exitCode: 0 };
}

export async function sessionsCommand(ctx: OperatorContext, sessionKey: string | undefined, opts: JsonOption = {}): Promise<CommandOutput> {
  const s = await inspect(ctx);
  if (sessionKey && !opts.json) return { text: describeSession(s.files, sessionKey), exitCode: 0 };
  const entries = s.sessions.entries.filter((e) => !sessionKey || e.key === sessionKey);
  if (opts.json) {
    return json({
      dir: s.sessions.dir,
      key: s.sessions.key,
      sessions: entries.map((e) => ({
        key: e.key,
        trust: e.trust,
        ...(e.shadow ? { shadow: e.shadow } : {}),
        ...(e.parent ? { parent: e.parent } : {}),
        updatedAt: isoTime(e.updatedAt),
        lowered: e.lowered.map((l) => ({ ...l, at: isoTime(l.at) })),
        ...(e.problem ? { problem: e.problem } : {}),
        file: e.file,
      })),
      unreadable: s.sessions.unreadable,
    });
  }
  return { text: formatSessions(s.sessions), exitCode: 0 };
}

export async function manifestsCommand(ctx: OperatorContext, tool: string | undefined, opts: JsonOption = {}): Promise<CommandOutput> {
  const s = await inspect(ctx);
  const entries = s.registry.distinct();
  const name = tool?.toLowerCase();
  if (opts.json) {
    const list = name ? entries.filter((e) => e.manifest.tool === name || e.manifest.aliases?.includes(name)) : entries;
    return json({
      manifests: list.map((e) => ({ source: e.source, builtin: e.source.startsWith(s.builtinDir), manifest: e.manifest })),
      invalid: s.registry.broken,
      weakened: s.facts.manifestWeakenings,
    });
  }
  const lines = [formatManifests(entries, name)];
  for (const bad of s.registry.broken) lines.push(`Invalid manifest ${bad.source}: ${bad.errors.join(" ")}`);
  for (const w of s.facts.manifestWeakenings.filter((x) => !name || x.tool === name))
    lines.push(`Weaker than the built-in: ${w.tool} (${w.source}): ${w.changes.join("; ")}`);
  return { text: lines.join("\n"), exitCode: 0 };
}

export async function verifyCommand(ctx: OperatorContext, opts: JsonOption = {}): Promise<CommandOutput> {
  const report = verifyInstall(await inspect(ctx));
  if (opts.json) return json(report, report.ok ? 0 : 1);
  return { text: formatVerify(report), exitCode: report.ok ? 0 : 1 };
}

export async function findingsCommand(ctx: OperatorContext, opts: JsonOption = {}): Promise<CommandOutput> {
  const findings = securityFindings((await inspect(ctx)).facts);
  if (opts.json) return json({ findings });
  return { text: formatFindings(findings), exitCode: 0 };
}

/** The part of a command-line builder (Commander's `Command`, which the host passes) the CLI uses. */
export interface CommandBuilder {
  command(nameAndArgs: string): CommandBuilder;
  description(text: string): CommandBuilder;
  option(flags: string, description: string): CommandBuilder;
  action(fn: (...args: never[]) => unknown): CommandBuilder;
}

export interface CommandIo {
  write(text: string): void;
  exit(code: number): void;
}

const stdio: CommandIo = {
  write: (text) => process.stdout.write(`${text}\n`),
  exit: (code) => {
    if (code !== 0) process.exitCode = code;
  },
};

/** Adds `clawos` and its subcommands under `program`; `context` is read when a command runs. */
export function defineOperatorCommands(program: CommandBuilder, context: () => OperatorContext, io: CommandIo = stdio): void {
  const run = (work: () => Promise<CommandOutput>) => async () => {
    const out = await work();
    io.write(out.text);
    io.exit(out.exitCode);
  };
  const root = program.command(CLI_COMMAND).description(CLI_DESCRIPTION);
  root
    .command("status")
    .description("What ClawOS runs with and what it has recorded: config, gate, audit log, sessions, manifests, findings")
    .option("--json", "print JSON")
    .action((opts: JsonOption) => run(() => statusCommand(context(), opts))());
  root
    .command("report")
    .description("The rollout report: would-blocks and blocks per tool, rule and requester, their causes, and what would change each")
    .option("--since <when>", "only records since a duration back (7d, 36h, 90m) or a date")
    .option("--json", "print JSON")
    .action((opts: JsonOption & { since?: string }) => run(() => reportCommand(context(), opts))());
  root
    .command("sessions [sessionKey]")
    .description("Input trust per session (one session in detail when a key is given)")
    .option("--json", "print JSON")
    .action((key: string | undefined, opts: JsonOption) => run(() => sessionsCommand(context(), key, opts))());
  root
    .command("manifests [tool]")
    .description("The capability manifests in force (one tool's in full when named)")
    .option("--json", "print JSON")
    .action((tool: string | undefined, opts: JsonOption) => run(() => manifestsCommand(context(), tool, opts))());
  root
    .command("verify")
    .description("Check that the audit log matches its seal and every session file passes its authentication check (exit 1 if not)")
    .option("--json", "print JSON")
    .action((opts: JsonOption) => run(() => verifyCommand(context(), opts))());
  root
    .command("findings")
    .description("ClawOS's security findings (what openclaw security audit --deep gets from ClawOS), with severity and fix")
    .option("--json", "print JSON")
    .action((opts: JsonOption) => run(() => findingsCommand(context(), opts))());
}
