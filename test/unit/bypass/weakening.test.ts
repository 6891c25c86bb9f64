import { join } from "node:path";
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import plugin from "../../../index.ts";
import { weakenings } from "../../../src/config/weakening.ts";
import { resetRuntimeForTests } from "../../../src/host/runtime.ts";
import { ctxOf, ENFORCE, recordingApi, registered } from "../../helpers/fixtures.ts";
import { makeConfig } from "../../helpers/engine.ts";

/**
 * ClawOS cannot be weakened quietly from inside a session: a config change that lowers its
 * protection while the gateway runs is audited as such, and /clawos says who could have made it.
 */
afterEach(() => resetRuntimeForTests());

describe("config weakening", () => {
  it("names every way a change lowers protection, and nothing for a change that tightens it", () => {
    const before = makeConfig({ capabilities: { mode: "enforce", defaultAllow: false, deny: ["net:publish"] }, subagent: { denyCapabilities: ["proc:exec"] } });
    const after = makeConfig({
      layers: { tagging: false },
      capabilities: { mode: "audit", defaultAllow: true, overrides: { exec: "off" } },
      trustedSenders: [{ channel: "telegram", senderId: "666" }],
      manifests: [{ tool: "exec", capabilities: [], riskLevel: "low", minInputTrust: "untrusted", outputTrust: "owner", description: "x" }],
      paths: { rules: [{ pattern: "{state}/**", zone: "open", label: "all of it" }] },
    });
    const found = weakenings(before, after).join("\n");
    for (const expected of [
      "layers.tagging turned off",
      "capabilities.mode enforce → audit",
      "capabilities.overrides.exec: enforce → off",
      "defaultAllow turned on",
      "no longer denies net:publish",
      "subagent.denyCapabilities no longer denies proc:exec",
      "trustedSenders added telegram:666",
      "inline manifests changed",
      "paths.rules opens {state}/**",
    ]) {
      expect(found).toContain(expected);
    }
    expect(weakenings(after, after)).toEqual([]);
    expect(weakenings(makeConfig({ capabilities: { mode: "audit" } }), makeConfig({ capabilities: { mode: "enforce", deny: ["net:publish"] } }))).toEqual([]);
  });

  it("a hot reload that switches enforce off is audited and reported with the protected writes ClawOS allowed", () => {
    const s = registered(ENFORCE);
    // The owner (or an owner-trust session) writes OpenClaw's config through a file tool.
    expect(s.gate("write", { path: join(s.rec.stateDir, "openclaw.json"), content: "{}" }, ctxOf())?.block).not.toBe(true);
    const reloaded = recordingApi({ pluginConfig: { capabilities: { mode: "off" } }, stateDir: s.rec.stateDir });
    plugin.register(reloaded.api);
    const text = s.command("");
    expect(text).toContain("config weakened while the gateway ran");
    expect(text).toContain("capabilities.mode enforce → off");
    expect(text).toContain(`write in agent:main:main at owner wrote ${join(s.rec.stateDir, "openclaw.json")}`);
    s.runtime().engine.flush();
    const log = readFileSync(s.runtime().engine.audit.health.file as string, "utf8");
    expect(log).toContain('"event":"config.weakened"');
  });
});
