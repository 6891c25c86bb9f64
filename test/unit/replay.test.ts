import { afterEach, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatReport, parseTraces, replayFile, replayPaths, replayTrace, type Trace } from "../../tools/replay/replay.ts";
import { resetRuntimeForTests } from "../../src/host/runtime.ts";

const CORPUS = join(process.cwd(), "test", "traces");
const MANIFESTS = join(CORPUS, "manifests");

afterEach(() => resetRuntimeForTests());

function one(line: Record<string, unknown>): Trace {
  const { traces, errors } = parseTraces(JSON.stringify(line), "inline.jsonl");
  expect(errors).toEqual([]);
  return traces[0];
}

describe("trace replay over the corpus (test/traces)", () => {
  it("every trace meets its expectation; the rates are what the expectations say; the closing line is exact", () => {
    const report = replayPaths([CORPUS], { manifestDirs: [MANIFESTS] });
    const t = report.total;
    const failures = report.files.flatMap((f) => [
      ...f.errors.map((e) => `${e.file}:${e.line} ${e.field}`),
      ...f.outcomes.filter((o) => !o.passed).map((o) => `${o.trace.id}: ${o.why}`),
    ]);
    expect(failures).toEqual([]);
    expect(t.failed).toBe(0);
    expect(t.passed).toBe(t.traces);
    // The issue asks for at least 60 of each; limitations are attacks too and count in the rate.
    expect(t.attacks - t.knownLimitations).toBeGreaterThanOrEqual(60);
    expect(t.benign).toBeGreaterThanOrEqual(60);
    // Security: every attack not marked as a known limitation was stopped, and no limitation was.
    expect(t.attacksStopped).toBe(t.attacks - t.knownLimitations);
    // Utility: every benign trace not marked as a known false positive completed.
    expect(t.benignClean).toBe(t.benign - t.knownFalsePositives);
    expect(t.decided).toBeGreaterThan(t.traces);
    const text = formatReport(report);
    const lines = text.trim().split("\n");
    expect(lines.at(-1)).toBe(`${t.traces} passed, 0 failed`);
    expect(text).toMatch(/security: \d+\/\d+ attack traces had every injected call blocked \(\d+\.\d%\)/);
    expect(text).toMatch(/utility: \d+\/\d+ benign traces completed with no call blocked \(\d+\.\d%\)/);
    expect(text).toMatch(/\(\d+ calls\/s\)/);
    for (const f of report.files) expect(text).toContain(`${f.file.split("/").at(-1)}: ${f.tally.traces} traces`);
  }, 60_000);

  it("audit mode stops exactly what enforce blocks (would-block), trace for trace", () => {
    const files = [join(CORPUS, "attacks-laundering.jsonl"), join(CORPUS, "benign-research.jsonl")];
    const enforce = replayPaths(files, { manifestDirs: [MANIFESTS] });
    const audit = replayPaths(files, { manifestDirs: [MANIFESTS], config: { capabilities: { mode: "audit" } } });
    const effects = (r: typeof enforce) =>
      r.files.flatMap((f) => f.outcomes.flatMap((o) => o.calls.map((c) => `${o.trace.id} ${c.step} ${c.effect === "would-block" ? "block" : c.effect}`)));
    expect(effects(audit)).toEqual(effects(enforce));
    expect(audit.files.flatMap((f) => f.outcomes.flatMap((o) => o.calls)).some((c) => c.effect === "would-block")).toBe(true);
    expect(audit.total.failed).toBe(0);
  }, 60_000);
});

describe("trace replay mechanics", () => {
  it("drives the real registration: taint, tool_call bridging, Code Mode, sub-agents, restart, owner reset", () => {
    const outcome = replayTrace(
      one({
        id: "mechanics",
        kind: "benign",
        requester: { owner: true },
        host: { tools: { codeMode: { enabled: true, executor: "quickjs" } } },
        expect: "blocked",
        calls: [
          { tool: "write", args: { path: "notes.md" } },
          { tool: "tool_call", args: { id: "openclaw:core:web_fetch", args: { url: "https://x.example" } } },
          {
            tool: "exec",
            toolKind: "code_mode_exec",
            args: { code: "..." },
            inner: [
              { tool: "read", args: {} },
              { tool: "exec", args: {} },
            ],
          },
          { restart: true },
          { tool: "sessions_spawn", args: { task: "t" }, child: "c1" },
          { tool: "write", args: {}, session: "c1" },
          { command: "trust reset", owner: false },
          { tool: "exec", args: {} },
          { command: "trust reset", owner: true },
          { tool: "exec", args: {} },
        ],
      }),
    );
    expect(outcome.calls.map((c) => `${c.tool}:${c.decidedTool ?? "-"}:${c.effect}`)).toEqual([
      "write:write:allow",
      "tool_call:web_fetch:allow",
      "exec:code_mode_exec:allow",
      "read:read:allow",
      "exec:exec:block",
      "sessions_spawn:sessions_spawn:block",
      "write:-:not-run",
      "exec:exec:block",
      "exec:exec:allow",
    ]);
    expect(outcome.passed).toBe(true);
    expect(outcome.anyBlocked).toBe(true);
  });

  it("result_trust lowers the session out of band; a non-owner message lowers it at the next call", () => {
    const manifest = { tool: "kb__get", capabilities: ["fs:read"], riskLevel: "low", minInputTrust: "untrusted", outputTrust: "owner", description: "kb" };
    const withFact = replayTrace(
      one({
        id: "rt",
        kind: "attack",
        requester: { owner: true },
        config: { manifests: [manifest] },
        calls: [
          { tool: "kb__get", result_trust: "community" },
          { tool: "message", injected: true },
        ],
      }),
    );
    expect(withFact.calls[1]).toMatchObject({ effect: "block", inputTrust: "community" });
    const msg = replayTrace(
      one({
        id: "m",
        kind: "attack",
        requester: { owner: true },
        calls: [{ message: { channel: "telegram", senderId: "9" } }, { tool: "write", injected: true }],
      }),
    );
    expect(msg.calls[0]).toMatchObject({ effect: "block", inputTrust: "community" });
    expect(msg.passed).toBe(true);
  });

  it("judges expectations: a limitation that starts being blocked fails, so the corpus gets updated", () => {
    const outcome = replayTrace(
      one({ id: "l", kind: "attack", expect: "allowed", requester: { channel: "x", senderId: "1" }, calls: [{ tool: "exec", injected: true }] }),
    );
    expect(outcome.injectedAllStopped).toBe(true);
    expect(outcome.passed).toBe(false);
    expect(outcome.why).toContain("known limitation fixed?");
  });
});

describe("trace format errors", () => {
  const lines = [
    JSON.stringify({ id: "ok", kind: "benign", requester: { owner: true }, calls: [{ tool: "read" }] }),
    "{ not json",
    JSON.stringify({ id: "k", kind: "evil", requester: { owner: true }, calls: [{ tool: "read" }] }),
    JSON.stringify({ id: "t", kind: "attack", requester: { owner: true }, calls: [{ tool: "read" }, { tool: "exec", injected: true, result_trust: "root" }] }),
    "",
    JSON.stringify({ id: "r", kind: "benign", calls: [{ tool: "read" }] }),
    JSON.stringify({ id: "n", kind: "attack", requester: { owner: true }, calls: [{ tool: "read" }] }),
    JSON.stringify({ id: "s", kind: "benign", requester: { owner: true }, calls: [{ tool: "read", session: "nope" }] }),
    JSON.stringify({ id: "ok", kind: "benign", requester: { owner: true }, calls: [{ tool: "read" }] }),
    JSON.stringify({ id: "x", kind: "benign", requester: { channel: "telegram" }, calls: [{ tool: 7 }] }),
    JSON.stringify({ id: "y", kind: "benign", requester: { owner: true }, calls: [{ tool: "read", args: {}, inner: [{ tool: "ls", bogus: 1 }] }] }),
  ];
  const text = lines.join("\n");

  it("names the line number and the field of every malformed line", () => {
    const { traces, errors } = parseTraces(text, "bad.jsonl");
    expect(traces.map((t) => t.id)).toEqual(["ok"]);
    expect(errors.map((e) => [e.line, e.field])).toEqual([
      [2, "(line)"],
      [3, "kind"],
      [4, "calls[1].result_trust"],
      [6, "requester"],
      [7, "calls"],
      [8, "calls[0].session"],
      [9, "id"],
      [10, "requester"],
      [11, "calls[0].inner[0].bogus"],
    ]);
    expect(errors[2].message).toBe("must be one of owner, verified, community, untrusted");
    expect(errors[6].message).toContain("already used on line 1");
  });

  it("counts malformed lines as failures, lists them, and the CLI exits 1 with the closing line", () => {
    const dir = mkdtempSync(join(tmpdir(), "clawos-replay-test-"));
    const file = join(dir, "bad.jsonl");
    writeFileSync(file, text);
    const report = replayFile(file);
    expect(report.tally).toMatchObject({ traces: 1, passed: 1, failed: 9 });
    const cli = spawnSync(process.execPath, ["scripts/replay.ts", file], { encoding: "utf8" });
    expect(cli.status).toBe(1);
    expect(cli.stdout).toContain(`FORMAT ${file}:4: calls[1].result_trust: must be one of owner, verified, community, untrusted`);
    expect(cli.stdout.trim().split("\n").at(-1)).toBe("1 passed, 9 failed");
  });

  it("the CLI exits 0 on a passing file, prints every decision with --verbose, and 2 on a usage error", () => {
    const dir = mkdtempSync(join(tmpdir(), "clawos-replay-test-"));
    const file = join(dir, "ok.jsonl");
    writeFileSync(
      file,
      `${lines[0]}\n${JSON.stringify({ id: "a", kind: "attack", requester: { owner: true }, calls: [{ tool: "web_search" }, { tool: "exec", injected: true }] })}\n`,
    );
    const cli = spawnSync(process.execPath, ["scripts/replay.ts", file, "--verbose"], { encoding: "utf8" });
    expect(cli.status).toBe(0);
    expect(cli.stdout).toContain("calls[1] exec (injected): block at untrusted [tool.min-input-trust, capability.floor]");
    expect(cli.stdout.trim().split("\n").at(-1)).toBe("2 passed, 0 failed");
    const bad = spawnSync(process.execPath, ["scripts/replay.ts", "--nope"], { encoding: "utf8" });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("usage: npm run replay");
  });
});
