// openclaw@2026.1.30 defines before_tool_call / after_tool_call but never calls them. This runs a
// real 2026.1.30 gateway (offline, scripted model on loopback) with a tiny plugin that blocks `exec`,
// rewrites `read` params and throws for `write`: unpatched, all three tools run untouched;
// after `clawos patch-host`, exec is blocked (the model gets the reason), read sees the rewritten
// params, the throwing handler blocks write (fail closed), and after_tool_call reports each call.
import { execFileSync, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanupHostTmp, snapshotHostTmp } from "./harness/host-tmp.ts";
import type { HostTmpSnapshot } from "./harness/host-tmp.ts";
import { freePort, node24, runCommand, startTracked, stopProcess } from "./harness/processes.ts";
import { startScriptedModel, toolResultsIn } from "./harness/scripted-model.ts";
import type { ScriptedModel } from "./harness/scripted-model.ts";

const VERSION = "2026.1.30";
const REPO_ROOT = resolve(import.meta.dirname, "../..");
const CLI = join(REPO_ROOT, "bin", "clawos.mjs");
const PLUGIN_ID = "exec-gate";
const BLOCK_REASON = "exec is disabled by exec-gate";

// The fixture plugin in the shape 2026.1.30 loads: openclaw.plugin.json with id + configSchema,
// package.json `openclaw.extensions`, a default export { id, register(api) } using api.on.
const FIXTURE_INDEX = `import { appendFileSync } from "node:fs";
export default {
  id: "${PLUGIN_ID}",
  name: "Exec gate (test fixture)",
  register(api) {
    const out = api.pluginConfig?.outFile;
    const record = (hook, event, ctx) => {
      if (out) appendFileSync(out, JSON.stringify({ hook, event, ctx }) + "\\n");
    };
    record("register", {}, {});
    api.on("before_tool_call", (event, ctx) => {
      record("before_tool_call", event, ctx);
      if (event.toolName === "exec") return { block: true, blockReason: ${JSON.stringify(BLOCK_REASON)} };
      if (event.toolName === "read") return { params: { path: "rewritten.txt" } };
      if (event.toolName === "write") throw new Error("gate crashed");
      return undefined;
    });
    api.on("after_tool_call", (event, ctx) => {
      record("after_tool_call", { ...event, result: event.result === undefined ? undefined : "[result]" }, ctx);
    });
  },
};
`;

type HookRecord = { hook: string; event: Record<string, unknown>; ctx: Record<string, unknown> };

describe(`legacy host openclaw@${VERSION}: tool hooks`, () => {
  let root: string;
  let hostDir: string; // the OpenClaw package under test (a copy, patched in place)
  let stateDir: string;
  let workspace: string;
  let hooksFile: string;
  let env: NodeJS.ProcessEnv;
  let model: ScriptedModel;
  let gateway: ChildProcess | undefined;
  let hostTmp: HostTmpSnapshot;

  beforeAll(async () => {
    const pristine = execFileSync("bash", [join(REPO_ROOT, "scripts", "ensure-host.sh"), VERSION], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
      timeout: 280_000,
    }).trim();
    hostTmp = snapshotHostTmp();
    root = mkdtempSync(join(tmpdir(), "clawos-legacy-e2e-"));

    // Copy only the openclaw package (the patch edits it); link its installed dependencies.
    const nodeModules = join(root, "host", "node_modules");
    mkdirSync(nodeModules, { recursive: true });
    hostDir = join(nodeModules, "openclaw");
    cpSync(pristine, hostDir, { recursive: true, verbatimSymlinks: true });
    const pristineModules = resolve(pristine, "..");
    for (const name of readdirSync(pristineModules)) {
      if (name !== "openclaw" && name !== ".bin") symlinkSync(join(pristineModules, name), join(nodeModules, name));
    }

    const pluginDir = join(root, "plugin");
    mkdirSync(pluginDir);
    writeFileSync(join(pluginDir, "package.json"), JSON.stringify({ name: PLUGIN_ID, version: "0.0.1", type: "module", openclaw: { extensions: ["./index.js"] } }));
    writeFileSync(
      join(pluginDir, "openclaw.plugin.json"),
      JSON.stringify({ id: PLUGIN_ID, configSchema: { type: "object", additionalProperties: false, properties: { outFile: { type: "string" } } } }),
    );
    writeFileSync(join(pluginDir, "index.js"), FIXTURE_INDEX);

    const home = join(root, "home");
    stateDir = join(home, ".openclaw");
    workspace = join(root, "workspace");
    hooksFile = join(root, "hooks.jsonl");
    for (const dir of [stateDir, workspace, join(root, "tmp")]) mkdirSync(dir, { recursive: true });

    model = await startScriptedModel({ modelId: "scripted-1" });
    const port = await freePort();
    const config = {
      gateway: { mode: "local", port, bind: "loopback", auth: { mode: "token", token: `token-${port}` } },
      models: {
        providers: {
          scripted: {
            baseUrl: model.baseUrl,
            apiKey: "scripted-test-key",
            api: "openai-completions",
            models: [{ id: "scripted-1", name: "Scripted", input: ["text"], contextWindow: 128_000, maxTokens: 4096, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } }],
          },
        },
      },
      agents: { defaults: { model: { primary: "scripted/scripted-1" }, workspace } },
      tools: { profile: "coding" },
      plugins: { load: { paths: [pluginDir] }, entries: { [PLUGIN_ID]: { enabled: true, config: { outFile: hooksFile } } } },
      update: { checkOnStart: false },
      logging: { file: join(root, "openclaw.log"), level: "debug" },
    };
    writeFileSync(join(stateDir, "openclaw.json"), JSON.stringify(config, null, 2));
    // 2026.1.30 has no OPENCLAW_HOME: isolate through HOME and the state/config overrides.
    env = {
      ...process.env,
      HOME: home,
      OPENCLAW_STATE_DIR: stateDir,
      OPENCLAW_CONFIG_PATH: join(stateDir, "openclaw.json"),
      TMPDIR: join(root, "tmp"),
      NO_COLOR: "1",
      FORCE_COLOR: "0",
    };
    for (const key of ["OPENCLAW_HOME", "NODE_OPTIONS", "VITEST", "VITEST_WORKER_ID", "VITEST_POOL_ID"]) delete env[key];
  });

  afterAll(async () => {
    if (gateway) await stopProcess(gateway);
    await model?.close();
    if (stateDir) cleanupHostTmp(hostTmp, stateDir);
    if (root) rmSync(root, { recursive: true, force: true });
  });

  async function startGateway(): Promise<void> {
    const child = startTracked(node24(), [join(hostDir, "openclaw.mjs"), "gateway", "run"], { env, cwd: workspace });
    gateway = child;
    let output = "";
    child.stdout?.on("data", (d) => (output += d));
    child.stderr?.on("data", (d) => (output += d));
    const deadline = Date.now() + 150_000;
    while (!/listening on ws:\/\//.test(output)) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`gateway exited before ready:\n${output.slice(-3000)}`);
      if (Date.now() > deadline) throw new Error(`gateway not ready:\n${output.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  async function stopGateway(): Promise<void> {
    if (gateway) await stopProcess(gateway);
    gateway = undefined;
  }

  function hookRecords(): HookRecord[] {
    if (!existsSync(hooksFile)) return [];
    return readFileSync(hooksFile, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as HookRecord);
  }

  /** One agent turn through the gateway: exec, then read, then write, then a final answer. */
  async function runTurn(tag: string): Promise<{ results: string[] }> {
    rmSync(hooksFile, { force: true });
    for (const f of ["proof.txt", "created.txt"]) rmSync(join(workspace, f), { force: true });
    writeFileSync(join(workspace, "note.txt"), "ORIGINAL-CONTENT\n");
    writeFileSync(join(workspace, "rewritten.txt"), "REWRITTEN-CONTENT\n");
    model.reset();
    model.script({
      label: tag,
      when: { lastUserIncludes: tag },
      replies: [
        { toolCalls: [{ name: "exec", arguments: { command: "echo EXEC-OUTPUT > proof.txt; echo EXEC-OUTPUT" }, id: `call_exec_${tag}` }] },
        { toolCalls: [{ name: "read", arguments: { path: "note.txt" }, id: `call_read_${tag}` }] },
        { toolCalls: [{ name: "write", arguments: { path: "created.txt", content: "CREATED" }, id: `call_write_${tag}` }] },
        { text: `${tag} finished` },
      ],
    });
    const entry = join(hostDir, "openclaw.mjs");
    const args = [entry, "agent", "--agent", "main", "--session-id", `session-${tag}`, "--message", `${tag}: run the tools`, "--json"];
    const turn = await runCommand(node24(), args, { env, cwd: workspace, timeoutMs: 180_000 });
    expect(turn.code, `${turn.stdout}\n${turn.stderr}`).toBe(0);
    expect(model.pendingSteps()).toEqual([]);
    // The last model request carries every tool result of the session (this turn's end in the tag).
    const last = model.requests[model.requests.length - 1]!;
    return { results: toolResultsIn(last.body).filter((r) => r.toolCallId.endsWith(`_${tag}`)).map((r) => r.text) };
  }

  function storedToolResults(): Array<{ toolName: string; isError: boolean; text: string }> {
    const sessionsDir = join(stateDir, "agents", "main", "sessions");
    const out: Array<{ toolName: string; isError: boolean; text: string }> = [];
    for (const file of readdirSync(sessionsDir).filter((f) => f.endsWith(".jsonl"))) {
      for (const line of readFileSync(join(sessionsDir, file), "utf8").split("\n").filter(Boolean)) {
        const entry = JSON.parse(line) as { message?: { role?: string; toolName?: string; isError?: boolean; content?: Array<{ text?: string }> } };
        const m = entry.message;
        if (m?.role === "toolResult") {
          out.push({ toolName: m.toolName ?? "", isError: Boolean(m.isError), text: (m.content ?? []).map((c) => c.text ?? "").join("") });
        }
      }
    }
    return out;
  }

  it("unpatched: the plugin loads but its hooks never run, so every tool executes", async () => {
    const check = spawnSync(process.execPath, [CLI, "patch-host", "--check", "--openclaw", hostDir], { encoding: "utf8" });
    expect(check.status, check.stdout + check.stderr).toBe(1);
    expect(check.stdout).toContain("unpatched");

    await startGateway();
    try {
      const { results } = await runTurn("UNPATCHED");
      expect(results).toHaveLength(3);
      expect(results[0]).toContain("EXEC-OUTPUT");
      expect(results[1]).toContain("ORIGINAL-CONTENT");
      expect(existsSync(join(workspace, "proof.txt"))).toBe(true);
      expect(existsSync(join(workspace, "created.txt"))).toBe(true);
      const hooks = hookRecords().map((r) => r.hook);
      expect(hooks).toContain("register"); // loaded...
      expect(hooks).not.toContain("before_tool_call"); // ...but inert
      expect(hooks).not.toContain("after_tool_call");
    } finally {
      await stopGateway();
    }
  });

  it("patched: exec is blocked with its reason, params are rewritten, a throwing gate fails closed", async () => {
    const patch = spawnSync(process.execPath, [CLI, "patch-host", "--openclaw", hostDir], { encoding: "utf8" });
    expect(patch.status, patch.stdout + patch.stderr).toBe(0);

    await startGateway();
    try {
      const { results } = await runTurn("PATCHED");
      expect(results).toHaveLength(3);
      // exec: blocked, never ran, and the model is told why.
      expect(results[0]).toContain("blocked");
      expect(results[0]).toContain(BLOCK_REASON);
      expect(existsSync(join(workspace, "proof.txt"))).toBe(false);
      // read: ran with the params before_tool_call returned.
      expect(results[1]).toContain("REWRITTEN-CONTENT");
      // write: the handler threw, so the call was blocked.
      expect(results[2]).toContain("blocked");
      expect(results[2]).toContain("gate crashed");
      expect(existsSync(join(workspace, "created.txt"))).toBe(false);

      const records = hookRecords();
      const before = records.filter((r) => r.hook === "before_tool_call");
      expect(before.map((r) => r.event.toolName)).toEqual(["exec", "read", "write"]);
      for (const r of before) {
        expect(r.ctx).toMatchObject({ agentId: "main", sessionKey: expect.stringMatching(/^agent:main:/), toolName: r.event.toolName });
        expect(r.event.toolCallId).toBe(r.ctx.toolCallId);
      }
      expect(before[0]!.event).toMatchObject({ toolCallId: "call_exec_PATCHED", params: { command: expect.stringContaining("EXEC-OUTPUT") } });

      const after = records.filter((r) => r.hook === "after_tool_call");
      expect(after.map((r) => r.event.toolName)).toEqual(["exec", "read", "write"]);
      expect(after[0]!.event.error).toContain(BLOCK_REASON);
      expect(after[1]!.event).toMatchObject({ result: "[result]", params: { path: "rewritten.txt" } });
      expect(after[1]!.event.error).toBeUndefined();
      expect(typeof after[1]!.event.durationMs).toBe("number");
      expect(after[2]!.event.error).toContain("gate crashed");

      // The stored transcript marks the blocked calls as errors.
      const stored = storedToolResults().filter((r) => r.text.includes("blocked by plugin"));
      // (only this turn can have blocked calls: the unpatched turn ran everything)
      expect(stored.map((r) => [r.toolName, r.isError])).toEqual([
        ["exec", true],
        ["write", true],
      ]);
    } finally {
      await stopGateway();
    }

    const check = spawnSync(process.execPath, [CLI, "patch-host", "--check", "--openclaw", hostDir], { encoding: "utf8" });
    expect(check.status, check.stdout + check.stderr).toBe(0);
    expect(check.stdout).toContain("patched");
  });
});
