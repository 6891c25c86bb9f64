// Runs scenario files (docs/scenarios.md) against real OpenClaw gateways with a scripted model.
// Scenarios that share a path kind and install route share one gateway; each scenario writes its
// own ClawOS config first (a hot reload), so session keys must be unique across scenario files.
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createOpenClawEnv, messageTextOf, type OpenClawEnv } from "../harness/gateway.ts";
import type { CliResult } from "../harness/processes.ts";
import { startScriptedModel, toolResultsIn, type ScriptedModel, type ScriptedReply, type ScriptStep } from "../harness/scripted-model.ts";
import { REPO, stagedClawos } from "../harness/stage.ts";
import { type AuditLine, auditLines } from "../harness/audit-lines.ts";
import { type GatewayJob, runJobNow } from "../harness/jobs.ts";
import { poll } from "../harness/wait.ts";
import { clawosHome } from "../../src/host/runtime.ts";
import { sessionFileName } from "../../src/taint/session-store.ts";
import { parseScenario, type CallSpec, type ChildSpec, type CommandStep, type Scenario, type TurnStep } from "./format.ts";

const FIXTURES = resolve(import.meta.dirname, "../harness/fixtures");
const ADMIN_SCOPES = ["operator.admin", "operator.read", "operator.write"];

export interface ScenarioResult {
  name: string;
  file: string;
  passed: boolean;
  failures: string[];
  durationMs: number;
}

interface Group {
  key: string;
  route: NonNullable<Scenario["install"]>;
  gateway: boolean;
  scenarios: Scenario[];
}

function groupScenarios(scenarios: Scenario[]): Group[] {
  const groups = new Map<string, Group>();
  for (const scenario of scenarios) {
    const route = scenario.install ?? "load-path";
    const gateway = scenario.path === "gateway" || scenario.path === "chat";
    const key = `${route}|${gateway ? "gateway" : "cli"}`;
    const group = groups.get(key) ?? { key, route, gateway, scenarios: [] };
    group.scenarios.push(scenario);
    groups.set(key, group);
  }
  return [...groups.values()];
}

function sessionFile(env: OpenClawEnv, sessionKey: string): string {
  return join(clawosHome(env.stateDir), "sessions", sessionFileName(sessionKey));
}

/** The trust ClawOS holds durably for a session: its state file, or owner when none was written. */
export function storedTrust(env: OpenClawEnv, sessionKey: string): string {
  const file = sessionFile(env, sessionKey);
  if (!existsSync(file)) return "owner";
  return (JSON.parse(readFileSync(file, "utf8")) as { trust: string }).trust;
}

function fill(value: unknown, env: OpenClawEnv): unknown {
  if (typeof value === "string")
    return value.replaceAll("{workspace}", env.workspaceDir).replaceAll("{state}", env.stateDir).replaceAll("{config}", env.configPath);
  if (Array.isArray(value)) return value.map((v) => fill(v, env));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, env)]));
  return value;
}

function replies(calls: CallSpec[], text: string | undefined, env: OpenClawEnv): ScriptedReply[] {
  return [
    ...calls.map((call) => ({ toolCalls: [{ name: call.tool, arguments: fill(call.args ?? {}, env) as Record<string, unknown> }] })),
    { text: text ?? "done" },
  ];
}

function childrenOf(calls: CallSpec[]): ChildSpec[] {
  return calls.flatMap((call) => (call.child ? [call.child, ...childrenOf(call.child.calls)] : []));
}

/** A field matches when equal; a string when it contains the given text; an object field by field. */
function matches(got: unknown, want: unknown): boolean {
  if (JSON.stringify(got) === JSON.stringify(want)) return true;
  if (typeof want === "string") return typeof got === "string" && got.includes(want);
  if (!want || typeof want !== "object" || Array.isArray(want) || !got || typeof got !== "object") return false;
  return Object.entries(want).every(([key, value]) => matches((got as Record<string, unknown>)[key], value));
}

/** The host refused a reload while a run still held ClawOS; applyClawosConfig retries it, so it is no ClawOS error. */
const RETRIED_RELOAD = /still has active retained work; retry after the work finishes/;
const APPLIED = /config hot reload applied \([^)]*plugins\.entries\.clawos/g;
const FAILED = /config reload failed/g;

function count(text: string, pattern: RegExp): number {
  return text.match(pattern)?.length ?? 0;
}

/**
 * Writes the ClawOS config and waits until the running gateway reports the hot reload applied.
 * The host refuses a replacement while a run still holds the plugin (background work after a
 * turn); then the write is repeated with a harmless difference until it is taken.
 */
async function applyPluginConfig(env: OpenClawEnv, id: string, config: Record<string, unknown>): Promise<void> {
  const current = (env.readConfig().plugins as { entries?: Record<string, { config?: unknown }> } | undefined)?.entries?.[id]?.config;
  if (JSON.stringify(current ?? {}) === JSON.stringify(config)) return;
  env.setPluginConfig(id, config);
  // The fixture has no retained work of its own; give the reload a moment.
  await new Promise((r) => setTimeout(r, 2000));
}

/**
 * A scenario states what enforce does to a call; one that says nothing about approvals gets
 * `approvals.default: "block"`, so an askable call blocks with ClawOS's reason instead of waiting on
 * an approver the scenario does not run. Approvals on a gateway: test/e2e/approvals.test.ts.
 */
export function blocksUnlessAsked(config: Record<string, unknown>): Record<string, unknown> {
  return "approvals" in config ? config : { ...config, approvals: { default: "block" } };
}

export async function applyClawosConfig(env: OpenClawEnv, config: Record<string, unknown>): Promise<void> {
  const current = (env.readConfig().plugins as { entries?: Record<string, { config?: unknown }> } | undefined)?.entries?.clawos?.config;
  if (JSON.stringify(current ?? {}) === JSON.stringify(config)) return;
  for (let attempt = 0; attempt < 8; attempt++) {
    const log = env.readLog();
    const applied = count(log, APPLIED);
    const failed = count(log, FAILED);
    const audit = (config.audit as Record<string, unknown> | undefined) ?? {};
    // A retry must differ from the refused write, or the host sees no change to apply.
    env.setPluginConfig("clawos", attempt === 0 ? config : { ...config, audit: { ...audit, recent: 200 + attempt } });
    const outcome = await poll(() => {
      const now = env.readLog();
      if (count(now, APPLIED) > applied) return "applied";
      if (count(now, FAILED) > failed) return "failed";
      return undefined;
    }, 20_000);
    if (outcome === "applied") return;
    await new Promise((r) => setTimeout(r, 2000));
  }
  throw new Error("the gateway did not apply the ClawOS config change");
}

class ScenarioRun {
  readonly failures: string[] = [];
  private turnCount = 0;

  private readonly scenario: Scenario;
  private readonly env: OpenClawEnv;
  private readonly model: ScriptedModel;

  constructor(scenario: Scenario, env: OpenClawEnv, model: ScriptedModel) {
    this.scenario = scenario;
    this.env = env;
    this.model = model;
  }

  fail(message: string): void {
    this.failures.push(message);
  }

  async run(): Promise<void> {
    for (const [index, step] of this.scenario.steps.entries()) {
      const where = `step ${index + 1}`;
      if ("turn" in step) await this.turn(step.turn as TurnStep, where);
      else if ("command" in step) await this.command(step.command, where);
      else if ("restart" in step) await this.env.restartGateway({ expectPlugins: ["clawos"] });
      else if ("config" in step) await applyClawosConfig(this.env, blocksUnlessAsked(step.config as Record<string, unknown>));
      else if ("runJob" in step) await this.runJob(step.runJob, step.expectState, where);
    }
  }

  /**
   * Runs a gateway automation job now and waits until its state records the run (`runJobNow`): the
   * job's state is then what a later listing shows, whenever the host's own schedule would have
   * run it.
   */
  private async runJob(name: string, expectState: Record<string, unknown> | undefined, where: string): Promise<void> {
    let ran: GatewayJob;
    try {
      ran = await runJobNow(this.env, name);
    } catch (error) {
      this.fail(`${where}: ${(error as Error).message}`);
      return;
    }
    for (const [key, want] of Object.entries(expectState ?? {})) {
      const got = ran.state?.[key];
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        this.fail(`${where}: after its run, ${name}'s state.${key} is ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
      }
    }
  }

  private async turn(turn: TurnStep, where: string): Promise<void> {
    const marker = `[${this.scenario.name.replace(/\W+/g, "-")}-t${++this.turnCount}-${Date.now().toString(36)}]`;
    const text = `${turn.text} ${marker}`;
    const steps: ScriptStep[] = [{ label: `${where} turn`, when: { lastUserIncludes: marker }, replies: replies(turn.calls, turn.reply, this.env) }];
    for (const child of childrenOf(turn.calls)) {
      steps.push({
        label: `${where} child ${child.marker}`,
        when: { lastUserIncludes: child.marker },
        replies: replies(child.calls, child.reply ?? "child done", this.env),
      });
    }
    this.model.script(...steps);
    const before = auditLines(this.env).length;
    const path = this.scenario.path;
    const session = turn.session ?? "";
    let result: CliResult | undefined;
    if (path === "gateway") result = (await this.env.agentTurn({ sessionKey: session, message: text })).result;
    else if (path === "local") result = (await this.env.agentLocal({ sessionKey: session, message: text })).result;
    else if (path === "exec") result = (await this.env.agentExec(text)).result;
    else {
      await this.env.chatSend({ sessionKey: session, message: text, scopes: turn.from === "non-owner" ? undefined : ADMIN_SCOPES });
    }
    if (result && result.code !== 0) this.fail(`${where}: the ${path} turn failed (exit ${result.code}): ${result.stderr.slice(-400)}`);

    const ownCalls = turn.calls.length;
    const inSession = (l: AuditLine) =>
      l.event === "decision" && (path === "exec" ? String(l.session ?? "").startsWith("agent:main:explicit:") : l.session === session);
    const decisions =
      (await poll(() => {
        const found = auditLines(this.env).slice(before).filter(inSession);
        return found.length >= ownCalls ? found : undefined;
      }, 15_000)) ?? auditLines(this.env).slice(before).filter(inSession);
    this.checkDecisions(turn.calls, decisions, `${where}`);
    for (const call of turn.calls) await this.checkFile(call, where);
    this.checkResults(turn.calls, `${where} turn`, where);

    for (const child of childrenOf(turn.calls)) {
      const childDecisions =
        (await poll(() => {
          const found = auditLines(this.env)
            .slice(before)
            .filter((l) => l.event === "decision" && (child.session ? l.session === child.session : l.subagent === true));
          return found.length >= child.calls.length ? found : undefined;
        }, 90_000)) ?? [];
      this.checkDecisions(child.calls, childDecisions, `${where} child ${child.marker}`);
      // A sub-agent's decision is recorded before its tool runs, and its run goes on in the background.
      for (const call of child.calls) await this.checkFile(call, `${where} child`, 15_000);
      const childKey = childDecisions[0]?.session as string | undefined;
      if (child.expectTrust && childKey) await this.checkTrust(childKey, child.expectTrust, `${where} child`);
      if (child.expectTrust && !childKey) this.fail(`${where} child ${child.marker}: no decision from the sub-agent was recorded`);
    }

    if (turn.expectTrust) {
      const key = path === "exec" ? (decisions[0]?.session as string | undefined) : session;
      if (key) await this.checkTrust(key, turn.expectTrust, where);
      else this.fail(`${where}: no session to check the trust of`);
    }
    if (turn.expectAudit) await this.checkAudit(turn.expectAudit, before, where);
  }

  private checkDecisions(calls: CallSpec[], decisions: AuditLine[], where: string): void {
    // Without any `expect` the scenario does not rely on the audit log (it may point elsewhere).
    if (!calls.some((call) => call.expect)) return;
    if (decisions.length !== calls.length) {
      this.fail(
        `${where}: expected ${calls.length} decisions, ClawOS recorded ${decisions.length}: ${decisions.map((d) => `${d.tool}=${d.decision}`).join(", ") || "none"}`,
      );
    }
    calls.forEach((call, i) => {
      const got = decisions[i];
      if (!call.expect || !got) return;
      if (got.decision !== call.expect) {
        this.fail(
          `${where}: call ${i + 1} (${call.tool}) expected ${call.expect}, got ${got.decision} (${got.tool}, trust ${got.inputTrust}${got.reason ? `: ${got.reason}` : ""})`,
        );
      }
    });
  }

  /** Whether the call's file shows it ran; a call that should have run may be given `waitMs` to finish. */
  private async checkFile(call: CallSpec, where: string, waitMs = 0): Promise<void> {
    if (!call.file) return;
    const ran = call.ran ?? call.expect !== "block";
    const path = join(this.env.workspaceDir, call.file);
    // With `contains`, the proof is the text the call writes (for files that exist anyway, like AGENTS.md).
    const written = () => existsSync(path) && (call.contains === undefined || readFileSync(path, "utf8").includes(call.contains));
    if (ran && waitMs > 0) await poll(() => (written() ? true : undefined), waitMs);
    const exists = existsSync(path);
    const done = written();
    if (done !== ran) {
      const state =
        call.contains === undefined
          ? exists
            ? "exists"
            : "does not exist"
          : done
            ? `contains ${JSON.stringify(call.contains)}`
            : `does not contain ${JSON.stringify(call.contains)}`;
      this.fail(`${where}: ${call.tool} ${ran ? "should have run" : "should not have run"}: ${call.file} ${state}`);
    }
  }

  /**
   * What the model read back for each call: the script answers one request per call, and the request
   * after it carries that call's result (the tool message with the call's id).
   */
  private checkResults(calls: CallSpec[], label: string, where: string): void {
    const answered = this.model.requests.filter((r) => r.answeredBy === label);
    calls.forEach((call, i) => {
      if (!call.resultContains) return;
      const made = answered[i];
      const next = answered[i + 1];
      // The scripted model names a reply's one tool call call_<request index>_0; the host may drop the underscores.
      const id = `call${made?.index}0`;
      const result = made && next ? toolResultsIn(next.body).find((r) => r.toolCallId.replace(/[^A-Za-z0-9]/g, "") === id) : undefined;
      if (!result) {
        this.fail(`${where}: call ${i + 1} (${call.tool}): the model never received its result`);
        return;
      }
      for (const text of call.resultContains.map((t) => fill(t, this.env) as string)) {
        if (!result.text.includes(text)) {
          this.fail(`${where}: call ${i + 1} (${call.tool}) result lacks ${JSON.stringify(text)}; it was: ${result.text.slice(0, 600)}`);
        }
      }
    });
  }

  private async checkTrust(sessionKey: string, want: string, where: string): Promise<void> {
    const got = await poll(() => (storedTrust(this.env, sessionKey) === want ? want : undefined), 20_000);
    if (got === undefined) this.fail(`${where}: session ${sessionKey} trust expected ${want}, is ${storedTrust(this.env, sessionKey)}`);
  }

  private async checkAudit(patterns: Record<string, unknown>[], before: number, where: string): Promise<void> {
    for (const pattern of patterns) {
      const found = await poll(
        () =>
          auditLines(this.env)
            .slice(before)
            .find((l) => matches(l, pattern)),
        10_000,
      );
      if (!found) this.fail(`${where}: no audit record matching ${JSON.stringify(pattern)}`);
    }
  }

  private async command(command: CommandStep, where: string): Promise<void> {
    const before = auditLines(this.env).length;
    const sent = await this.env.chatSend({ sessionKey: command.session, message: command.text, scopes: command.as === "operator" ? undefined : ADMIN_SCOPES });
    const reply = messageTextOf(sent.reply);
    for (const text of command.replyContains ?? []) {
      if (!reply.includes(text)) this.fail(`${where}: reply to ${command.text} lacks ${JSON.stringify(text)}; it was: ${reply.slice(0, 600)}`);
    }
    if (command.expectTrust) await this.checkTrust(command.session, command.expectTrust, where);
    if (command.expectAudit) await this.checkAudit(command.expectAudit, before, where);
  }
}

export interface RunOptions {
  log?: (line: string) => void;
}

/** Runs the scenarios in the given files and reports one result per scenario. */
export async function runScenarioFiles(files: string[], options: RunOptions = {}): Promise<ScenarioResult[]> {
  const log = options.log ?? (() => {});
  const results: ScenarioResult[] = [];
  const scenarios: Scenario[] = [];
  for (const file of files) {
    try {
      scenarios.push(parseScenario(file));
    } catch (error) {
      const result = { name: file, file, passed: false, failures: [(error as Error).message], durationMs: 0 };
      results.push(result);
      log(`FAIL ${file}: ${(error as Error).message}`);
    }
  }
  for (const group of groupScenarios(scenarios)) {
    const model = await startScriptedModel();
    const env = await createOpenClawEnv({
      model,
      plugins: [
        // The link route links this checkout itself, as the README's install does; the other routes
        // take the staged copy (the published files, the built entry, production dependencies).
        { id: "clawos", dir: group.route === "link" ? REPO : stagedClawos(), route: group.route, config: {} },
        { id: "taint-tools", dir: join(FIXTURES, "taint-tools"), route: "load-path" },
      ],
    });
    try {
      if (group.gateway) {
        try {
          await env.startGateway({ expectPlugins: ["clawos", "taint-tools"] });
        } catch (error) {
          for (const scenario of group.scenarios) {
            results.push({
              name: scenario.name,
              file: scenario.file,
              passed: false,
              failures: [`the gateway did not start with ClawOS: ${(error as Error).message.slice(0, 2000)}`],
              durationMs: 0,
            });
            log(`FAIL ${scenario.name}: the gateway did not start with ClawOS`);
          }
          continue;
        }
      }
      for (const scenario of group.scenarios) {
        const started = Date.now();
        const errorsBefore = group.gateway ? env.pluginErrors(["clawos"]).length : 0;
        const run = new ScenarioRun(scenario, env, model);
        try {
          const pageConfig = { ...(scenario.pageText ? { pageText: scenario.pageText } : {}), ...(scenario.contacts ? { contacts: scenario.contacts } : {}) };
          if (group.gateway) {
            await applyPluginConfig(env, "taint-tools", pageConfig);
            await applyClawosConfig(env, blocksUnlessAsked((scenario.clawos ?? {}) as Record<string, unknown>));
          } else {
            env.setPluginConfig("taint-tools", pageConfig);
            env.setPluginConfig("clawos", (scenario.clawos ?? {}) as Record<string, unknown>);
          }
          await run.run();
        } catch (error) {
          run.fail(`crashed: ${(error as Error).stack ?? error}`);
        }
        if (group.gateway) {
          const errors = env
            .pluginErrors(["clawos"])
            .slice(errorsBefore)
            .filter((e) => !RETRIED_RELOAD.test(e));
          if (errors.length) run.fail(`the gateway logged ClawOS errors: ${errors.join(" | ")}`);
        }
        model.reset();
        const result = {
          name: scenario.name,
          file: scenario.file,
          passed: run.failures.length === 0,
          failures: run.failures,
          durationMs: Date.now() - started,
        };
        results.push(result);
        log(
          `${result.passed ? "PASS" : "FAIL"} ${scenario.name} (${(result.durationMs / 1000).toFixed(1)}s)${result.passed ? "" : `\n  ${run.failures.join("\n  ")}`}`,
        );
      }
    } finally {
      await env.dispose();
      await model.close();
    }
  }
  return results;
}
