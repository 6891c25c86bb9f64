import { expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { bypassCorpus, ctxOf, expectStopped, gate, nextId, setup, taint } from "./corpus.ts";

bypassCorpus("hostile parameters", ({ config, enforceOnlyIt }) => {
  const deep = () => {
    let v: Record<string, unknown> = { command: "curl evil" };
    for (let i = 0; i < 100_000; i++) v = { v };
    return v;
  };
  const cyclic = () => {
    const a: Record<string, unknown> = { command: "curl evil" };
    a.self = a;
    a.list = [a, { a }];
    return a;
  };
  const throwing = () =>
    Object.defineProperty({}, "id", {
      enumerable: true,
      get() {
        throw new Error("boom");
      },
    });
  const proxy = () =>
    new Proxy(
      {},
      {
        ownKeys() {
          throw new Error("no keys");
        },
        get() {
          throw new Error("no get");
        },
      },
    );
  const cases: Array<[string, () => unknown]> = [
    ["a 5 MB string", () => ({ command: `curl evil ${"A".repeat(5_000_000)}` })],
    ["100k levels of nesting", deep],
    ["a cyclic object", cyclic],
    ["50k keys", () => Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, i]))],
    ["a throwing getter", throwing],
    ["a hostile Proxy", proxy],
    ["a BigInt and a Symbol", () => ({ n: 10n, s: Symbol("x"), f: () => 1 })],
  ];
  it.each(cases)("%s: the handlers do not throw and the call is stopped in a tainted session", async (_label, make) => {
    const s = setup(config);
    taint(s);
    const params = make();
    expectStopped(s, () => gate(s, "exec", params));
    expectStopped(s, () => gate(s, "tool_call", { id: "openclaw:core:exec", args: params }));
    const id = nextId();
    expect(() => s.rec.fire("after_tool_call", { toolName: "exec", params, toolCallId: id, result: { details: params } }, ctxOf())).not.toThrow();
    expect(() =>
      s.rec.fire("tool_result_persist", { toolName: "exec", toolCallId: id, message: { role: "toolResult", details: params } }, ctxOf()),
    ).not.toThrow();
    // The audit drain (serialising the records) runs on the next tick and must not throw either.
    await new Promise((r) => setImmediate(r));
    s.runtime().engine.flush();
  });

  // The audit drain hashes params with a budget that only counts primitive characters, so a
  // cyclic object with no primitives (fan-out 4) is walked 4^64 times: the drain never ends and
  // the gateway's event loop hangs. JSON tool arguments cannot be cyclic, but another plugin's
  // before_tool_call rewrite or a host-built params object can. Run in a child with a deadline.
  enforceOnlyIt("a cyclic params object without primitives does not hang the audit drain", () => {
    const script = [
      `import plugin from ${JSON.stringify(join(process.cwd(), "index.ts"))};`,
      `import { recordingHost } from ${JSON.stringify(join(process.cwd(), "tools/replay/recording-host.ts"))};`,
      `import { mkdtempSync } from "node:fs"; import { tmpdir } from "node:os"; import { join } from "node:path";`,
      `const host = recordingHost({ pluginConfig: { capabilities: { mode: "enforce" } }, stateDir: mkdtempSync(join(tmpdir(), "clawos-hang-")) });`,
      `plugin.register(host.api);`,
      `const p = {}; p.a = p; p.b = p; p.c = p; p.d = p;`,
      `host.policies[0].evaluate({ toolName: "read", params: p, toolCallId: "c1" }, { sessionKey: "agent:main:main", requester: { senderIsOwner: true } });`,
      `host.fire("gateway_stop", {}, {});`,
      `console.log("done");`,
    ].join("\n");
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 8000 });
    expect(child.signal, "the child was killed at the deadline (hung)").toBeNull();
    expect(child.stdout).toContain("done");
  });

  it("a tool_call whose target is unreadable blocks even in a clean owner session (enforce) instead of throwing", () => {
    const s = setup(config);
    expectStopped(s, () => gate(s, "tool_call", throwing()));
  });
});
