// Point 5b: OpenClaw's bundled `policy` extension. First, what it registers when loaded the way the host
// loads it (its default entry's register(api) with a recording API): in openclaw 2026.9.6 it is a CLI
// command and doctor health checks, and no trusted tool policy or tool hook, so there is no per-call
// check of its own to drive. Second, the per-call check its parts would make if it had one: read the
// workspace policy file (policy.jsonc, as its doctor code does, with fs/promises), parse it with JSON5
// (its dependency) and match the tool with OpenClaw's own tool-policy matcher (`toolPolicy`, which the
// extension uses for tools.denyTools). Prints one BENCH_RESULT line.
import { readFile, writeFile, mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { devHostDir } from "../harness/dev-host.ts";
import { emit, parseArgs } from "./lib/host.ts";
import { summarize } from "./lib/stats.ts";

const args = parseArgs();
const calls = Number(args.calls ?? 20_000);
const require = createRequire(import.meta.url);
const openclawDir = devHostDir();

// 1. What the extension registers.
const registered: Record<string, number> = {};
const count =
  (name: string) =>
  (...rest: unknown[]) => {
    void rest;
    registered[name] = (registered[name] ?? 0) + 1;
  };
const api = new Proxy(
  { id: "policy", pluginConfig: {}, logger: { info() {}, warn() {}, error() {}, debug() {} }, registrationMode: "full" } as Record<string, unknown>,
  { get: (target, key) => (key in target ? target[key as string] : typeof key === "string" ? count(key) : undefined) },
);
const entry = (await import(pathToFileURL(join(openclawDir, "dist/extensions/policy/index.js")).href)).default as { register: (api: unknown) => void };
entry.register(api);

// 2. The reconstructed per-call check.
// From the development host, by its package's exports map: the checkout installs no `openclaw` package.
const exportsMap = JSON.parse(await readFile(join(openclawDir, "package.json"), "utf8")).exports as Record<string, { default: string }>;
const harnessRuntime = join(openclawDir, exportsMap["./plugin-sdk/agent-harness-runtime"]!.default);
const { toolPolicy } = (await import(pathToFileURL(harnessRuntime).href)) as {
  toolPolicy: { createToolPolicyMatcher: (p: { allow?: string[]; deny?: string[] }) => (tool: string) => boolean };
};
const JSON5 = require(require.resolve("json5", { paths: [join(openclawDir, "dist/extensions/policy")] })) as { parse: (t: string) => unknown };
const dir = await mkdtemp(join(tmpdir(), "clawos-policy-"));
const policyPath = join(dir, "policy.jsonc");
await writeFile(
  policyPath,
  `// workspace policy\n{\n  version: 1,\n  tools: { denyTools: ["exec", "process", "group:runtime"], requireMetadata: false },\n  models: { deny: [] },\n  channels: { deny: [] },\n}\n`,
);

async function check(tool: string): Promise<boolean> {
  const policy = JSON5.parse(await readFile(policyPath, "utf-8")) as { tools?: { denyTools?: string[] } };
  return toolPolicy.createToolPolicyMatcher({ deny: policy.tools?.denyTools ?? [] })(tool);
}

const samples = new Float64Array(calls);
let allowed = 0;
for (let i = 0; i < 500; i++) await check("read");
for (let i = 0; i < calls; i++) {
  const t0 = process.hrtime.bigint();
  if (await check(i % 2 ? "exec" : "read")) allowed++;
  samples[i] = Number(process.hrtime.bigint() - t0) / 1000;
}
await rm(dir, { recursive: true, force: true });
emit({
  registered,
  registersTrustedToolPolicy: (registered.registerTrustedToolPolicy ?? 0) > 0,
  hooks: registered.on ?? 0,
  calls,
  allowed,
  ...summarize(samples),
});
