// ClawOS installed from its tarball (npm pack of a staged copy: the published files and the built entry) into a real OpenClaw 2026.9.6 home:
// a gateway turn fills the audit log, then, with the gateway stopped, the operator CLI
// (`openclaw clawos ...`) reads it back and the host's own `openclaw security audit --deep` runs.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devHostDir } from "../../tools/harness/dev-host.ts";
import { createOpenClawEnv, type OpenClawEnv } from "../../tools/harness/gateway.ts";
import { parseJsonOutput } from "../../tools/harness/processes.ts";
import { startScriptedModel, type ScriptedModel } from "../../tools/harness/scripted-model.ts";
import { stagedClawos } from "../../tools/harness/stage.ts";
import { README_EXEC_MANIFEST } from "../helpers/fixtures.ts";

const REPO = resolve(import.meta.dirname, "../..");
const FIXTURES = join(REPO, "tools/harness/fixtures");
const SESSION = "agent:main:op-1";
const CLI_TIMEOUT = 120_000;

type Json = Record<string, unknown>;
type Finding = { checkId: string; severity: string; title: string; detail: string; remediation?: string };

function decisionLines(file: string): Json[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Json)
    .filter((l) => l.event === "decision");
}

describe("operator CLI and security audit on a tarball install", () => {
  let model: ScriptedModel;
  let env: OpenClawEnv;
  let auditFile: string;

  async function clawos(...args: string[]) {
    const result = await env.openclaw(["clawos", ...args], { timeoutMs: CLI_TIMEOUT });
    expect(result.timedOut, result.stderr).toBe(false);
    return result;
  }

  beforeAll(async () => {
    model = await startScriptedModel();
    env = await createOpenClawEnv({
      model,
      plugins: [
        {
          id: "clawos",
          // Packed from a staged copy: the published files plus the built JavaScript entry.
          dir: stagedClawos(),
          route: "tarball",
          config: { capabilities: { mode: "audit", overrides: { exec: "enforce" } }, manifests: [README_EXEC_MANIFEST] },
        },
        { id: "taint-tools", dir: join(FIXTURES, "taint-tools"), route: "load-path" },
      ],
      config: { plugins: { allow: ["clawos", "taint-tools"] } },
    });
    auditFile = join(env.stateDir, "clawos", "audit.jsonl");
    await env.startGateway({ expectPlugins: ["clawos", "taint-tools"] });
    const blocked = join(env.workspaceDir, "op-blocked.txt");
    model.script({
      label: "injected",
      when: { lastUserIncludes: "OP-ONE" },
      replies: [
        { toolCalls: [{ name: "tool_call", arguments: { id: "fetch_page", args: { url: "https://news.example/op" } } }] },
        { toolCalls: [{ name: "exec", arguments: { command: `touch ${blocked}` } }] },
        { toolCalls: [{ name: "write", arguments: { path: "package.json", content: "{}" } }] },
        { text: "done" },
      ],
    });
    const turn = await env.agentTurn({ sessionKey: SESSION, message: "OP-ONE summarise the page" });
    expect(turn.result.code, turn.result.stderr).toBe(0);
    expect(existsSync(blocked)).toBe(false);
    expect(env.pluginErrors(["clawos"])).toEqual([]);
    await env.stopGateway();
  });

  afterAll(async () => {
    await env?.dispose();
    await model?.close();
  });

  it("`openclaw clawos report --json` matches the audit log", async () => {
    const lines = decisionLines(auditFile);
    expect(lines.map((l) => [l.tool, l.decision])).toEqual(
      expect.arrayContaining([
        ["fetch_page", "allow"],
        ["exec", "block"],
        ["write", "would-block"],
      ]),
    );
    const result = await clawos("report", "--json");
    expect(result.code, result.stderr).toBe(0);
    const report = parseJsonOutput(result.stdout) as {
      file: string;
      decisions: number;
      allow: number;
      block: number;
      wouldBlock: number;
      unmanifested: Record<string, number>;
      rows: { tool: string; rule: string; requester: string; block: number; wouldBlock: number; causes: { label: string }[]; changes: string[] }[];
    };
    expect(report.file).toBe(auditFile);
    expect(report.decisions).toBe(lines.length);
    expect(report.allow).toBe(lines.filter((l) => l.decision === "allow").length);
    expect(report.block).toBe(lines.filter((l) => l.decision === "block").length);
    expect(report.wouldBlock).toBe(lines.filter((l) => l.decision === "would-block").length);
    // Per tool and rule, the rows (summed over requesters) count exactly the log's records.
    const fromLog: Record<string, { block: number; wouldBlock: number }> = {};
    for (const l of lines.filter((x) => x.decision !== "allow")) {
      for (const rule of l.rules as string[]) {
        const row = (fromLog[`${l.tool}/${rule}`] ??= { block: 0, wouldBlock: 0 });
        if (l.decision === "block") row.block++;
        else row.wouldBlock++;
      }
    }
    const fromReport: Record<string, { block: number; wouldBlock: number }> = {};
    for (const r of report.rows) {
      const row = (fromReport[`${r.tool}/${r.rule}`] ??= { block: 0, wouldBlock: 0 });
      row.block += r.block;
      row.wouldBlock += r.wouldBlock;
    }
    expect(fromReport).toEqual(fromLog);
    const exec = report.rows.find((r) => r.tool === "exec" && r.rule === "tool.min-input-trust");
    expect(exec?.causes[0]?.label).toBe("the result of fetch_page");
    expect(exec?.changes.join("\n")).toContain('capabilities.overrides.exec: "audit"');
    expect(report.unmanifested).toMatchObject({ fetch_page: 1 });
  });

  it("status, sessions, findings and verify read the install with the gateway stopped", async () => {
    const status = await clawos("status", "--json");
    expect(status.code, status.stderr).toBe(0);
    const s = parseJsonOutput(status.stdout) as { gate: { decisions: number }; audit: { integrity: { state: string } }; findings: Finding[] };
    expect(s.gate.decisions).toBe(decisionLines(auditFile).length);
    expect(s.audit.integrity.state).toBe("ok");

    const findings = parseJsonOutput((await clawos("findings", "--json")).stdout) as { findings: Finding[] };
    expect(findings.findings).toEqual(s.findings);
    expect(findings.findings.map((f) => f.checkId)).toEqual(["clawos.mode.audit", "clawos.manifests.weaken_builtin", "clawos.tools.unmanifested"]);
    for (const f of findings.findings) expect(f.remediation, f.checkId).toBeTruthy();

    const sessions = parseJsonOutput((await clawos("sessions", "--json")).stdout) as { sessions: { key: string; trust: string }[] };
    expect(sessions.sessions.find((x) => x.key === SESSION)?.trust).toBe("untrusted");

    const verify = await clawos("verify");
    expect(verify.code, `${verify.stdout}\n${verify.stderr}`).toBe(0);
    expect(verify.stdout).toContain("ClawOS's audit log and session state are intact.");
  });

  it("`openclaw security audit --deep --json` reports nothing against ClawOS's own code", async () => {
    const result = await env.openclaw(["security", "audit", "--deep", "--json"], { timeoutMs: CLI_TIMEOUT });
    expect(result.code === 0 || result.code === 1, result.stderr).toBe(true);
    const audit = parseJsonOutput(result.stdout) as { findings: Finding[] };
    const againstClawos = audit.findings.filter(
      (f) => f.checkId.startsWith("plugins.code_safety") || f.checkId === "plugins.clawos.security_audit_failed" || /Plugin "clawos"/.test(f.title),
    );
    expect(againstClawos).toEqual([]);
    // The host lists the installed plugin and scanned it (the scan ran: a dangerous pattern would show here).
    expect(existsSync(join(env.stateDir, "extensions", "clawos", "bin", "clawos.mjs"))).toBe(true);

    // ClawOS's own findings reach this output only where the host runs plugin collectors from the CLI.
    // OpenClaw 2026.9.6 does not: `security audit` loads plugins for metadata only ("validate"), which
    // never registers a collector. Until it does, `openclaw clawos findings` is where they appear.
    const ours = audit.findings.filter((f) => f.checkId.startsWith("clawos."));
    const hostVersion = (JSON.parse(readFileSync(join(devHostDir(), "package.json"), "utf8")) as { version: string }).version;
    if (hostVersion === "2026.9.6") expect(ours).toEqual([]);
    else expect(ours.map((f) => f.checkId)).toEqual(["clawos.mode.audit", "clawos.manifests.weaken_builtin", "clawos.tools.unmanifested"]);
  });

  it("verify fails, and reports it, after the audit log is rewritten", async () => {
    const seal = readFileSync(`${auditFile}.seal`, "utf8");
    writeFileSync(auditFile, readFileSync(auditFile, "utf8").replace('"decision":"block"', '"decision":"allow"'));
    const verify = await clawos("verify");
    expect(verify.code).toBe(1);
    expect(verify.stdout).toMatch(/FAIL {2}audit seal: REWRITTEN/);
    expect(readFileSync(`${auditFile}.seal`, "utf8")).toBe(seal);
    const findings = parseJsonOutput((await clawos("findings", "--json")).stdout) as { findings: Finding[] };
    expect(findings.findings.find((f) => f.checkId === "clawos.audit.tampered")?.severity).toBe("critical");
  });
});
