// ClawOS's findings for OpenClaw's security audit: each rule from plain facts, who can reach a file,
// and operator manifests weaker than the built-in ones.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultConfig, resolveConfig } from "../../src/config/config.ts";
import type { ClawosConfig } from "../../src/config/config-schema.ts";
import { exposureOf, inspectInstall, type StatMode } from "../../src/cli/install-facts.ts";
import { manifestChanges, manifestWeakenings } from "../../src/cli/manifest-weakening.ts";
import { securityFindings, formatFindings, type FindingFacts } from "../../src/cli/security-findings.ts";
import { builtinManifestDir, loadManifestDir, validateManifest, type ManifestEntry } from "../../src/policy/manifests.ts";
import { LEGACY_HOOK_PATCH_FILE } from "../../src/host/legacy-host.ts";
import { README_EXEC_MANIFEST } from "../helpers/fixtures.ts";

function config(raw: unknown): ClawosConfig {
  const r = resolveConfig(raw);
  if (!r.ok) throw new Error(r.errors.join("\n"));
  return r.config;
}

/** Facts of a healthy, enforcing install; each test changes one thing. */
function facts(change: Partial<FindingFacts> = {}): FindingFacts {
  return {
    config: config({ capabilities: { mode: "enforce" } }),
    configErrors: [],
    configWeakenings: [],
    overrideWeakenings: [],
    manifestWeakenings: [],
    brokenManifests: [],
    unmanifestedTools: {},
    gate: { decisions: 12, lastAt: Date.parse("2026-11-22T10:00:00Z") },
    host: { version: "2026.9.6", wiring: "native", summary: "OpenClaw 2026.9.6: tool hooks called natively" },
    files: [],
    audit: { file: "/s/clawos/audit.jsonl", exists: true, writable: true, writeErrors: 0, unparsable: 0, tornTail: false, integrity: { state: "ok" } },
    state: { sessionsDir: "/s/clawos/sessions", keyFile: "/s/clawos/sessions.key", key: "ok", files: 3, failing: [] },
    ...change,
  };
}

const ids = (f: FindingFacts) => securityFindings(f).map((x) => `${x.severity} ${x.checkId}`);

describe("security findings", () => {
  it("a healthy enforcing install has none", () => {
    expect(securityFindings(facts())).toEqual([]);
    expect(formatFindings([])).toBe("No ClawOS security findings.");
  });

  it("mode audit or off, tagging off, invalid config", () => {
    expect(ids(facts({ config: config({ capabilities: { mode: "audit" } }) }))).toEqual(["warn clawos.mode.audit"]);
    expect(ids(facts({ config: config({ capabilities: { mode: "off" } }) }))).toEqual(["critical clawos.mode.off"]);
    expect(ids(facts({ config: config({ layers: { capabilities: false } }) }))).toEqual(["critical clawos.mode.off"]);
    expect(ids(facts({ config: config({ capabilities: { mode: "enforce" }, layers: { tagging: false } }) }))).toEqual(["critical clawos.layer.tagging_off"]);
    const invalid = securityFindings(facts({ configErrors: ["plugins.entries.clawos.config.capabilities.mode: must be one of ..."] }));
    expect(invalid[0]).toMatchObject({ checkId: "clawos.config.invalid", severity: "warn" });
    expect(invalid[0].detail).toContain("capabilities.mode");
    const audit = securityFindings(facts({ config: config({ capabilities: { mode: "audit", overrides: { exec: "enforce" } } }) }))[0];
    expect(audit.detail).toContain("only exec is enforced by override");
    expect(audit.remediation).toContain("openclaw clawos report");
  });

  it("overrides and config that weaken, from config/weakening.ts", async () => {
    const dir = mkdtempSync(join(tmpdir(), "clawos-findings-"));
    const snapshot = await inspectInstall({
      openclawConfig: {
        plugins: {
          entries: {
            clawos: {
              config: {
                capabilities: { mode: "enforce", overrides: { exec: "audit", read: "enforce" } },
                subagent: { denyCapabilities: [] },
                unknownRequesterTrust: "owner",
                paths: { rules: [{ pattern: "{home}/.ssh/**", zone: "open", label: "my keys" }] },
              },
            },
          },
        },
      },
      stateDir: join(dir, ".openclaw"),
      env: { HOME: dir },
      hostPackageDir: null,
    });
    expect(snapshot.facts.overrideWeakenings).toEqual(["capabilities.overrides.exec: enforce → audit"]);
    expect(snapshot.facts.configWeakenings).toEqual([
      "subagent.denyCapabilities no longer denies system:admin, schedule:write, secrets:read",
      "unknownRequesterTrust community → owner",
      "paths.rules opens {home}/.ssh/**",
    ]);
    const found = securityFindings(snapshot.facts);
    expect(found.map((f) => f.checkId)).toEqual(["clawos.config.overrides_weaken", "clawos.config.weakens_defaults", "clawos.gate.never_fired"]);
    expect(found[1].detail).toContain("unknownRequesterTrust community → owner");
  });

  it("tools seen without a manifest, broken manifests", () => {
    const f = securityFindings(
      facts({ unmanifestedTools: { github__create_issue: 4 }, brokenManifests: [{ tool: "jira", source: "/m/jira.json", errors: ["bad"] }] }),
    );
    expect(f.map((x) => x.checkId)).toEqual(["clawos.manifests.invalid", "clawos.tools.unmanifested"]);
    expect(f[1].detail).toContain("github__create_issue (4)");
    expect(f[1].remediation).toContain("manifestDirs");
  });

  it("a gate never observed; an unpatched legacy host makes it critical, with the fix command", () => {
    expect(ids(facts({ gate: { decisions: 0 } }))).toEqual(["warn clawos.gate.never_fired"]);
    expect(ids(facts({ gate: { decisions: 0, firedInProcess: 3 } }))).toEqual([]);
    const legacy = facts({
      gate: { decisions: 0 },
      host: { version: "2026.1.30", wiring: "unpatched-legacy", fixCommand: "npx clawos patch-host --openclaw /x", summary: "never calls" },
    });
    expect(ids(legacy)).toEqual(["critical clawos.host.unpatched_legacy", "critical clawos.gate.never_fired"]);
    expect(securityFindings(legacy)[0].remediation).toBe("Run npx clawos patch-host --openclaw /x and restart the gateway.");
    expect(ids(facts({ host: { version: "2026.2.5", wiring: "native-before-only", summary: "before only" } }))).toEqual(["warn clawos.host.results_unseen"]);
  });

  it("an unpatched legacy host found on disk", async () => {
    const dir = mkdtempSync(join(tmpdir(), "clawos-legacy-"));
    const pkg = join(dir, "node_modules", "openclaw");
    mkdirSync(join(pkg, "dist", "agents"), { recursive: true });
    writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "openclaw", version: "2026.1.30" }));
    writeFileSync(join(pkg, LEGACY_HOOK_PATCH_FILE), "export {};\n");
    const snapshot = await inspectInstall({ openclawConfig: {}, stateDir: join(dir, ".openclaw"), env: { HOME: dir }, hostPackageDir: pkg });
    const f = securityFindings(snapshot.facts);
    expect(f.map((x) => `${x.severity} ${x.checkId}`)).toContain("critical clawos.host.unpatched_legacy");
    expect(f.find((x) => x.checkId === "clawos.host.unpatched_legacy")?.remediation).toContain("clawos patch-host --openclaw");
  });

  it("files other users can read or write: writable is critical for world, the readable key too", () => {
    const f = securityFindings(
      facts({
        files: [
          { path: "/s/clawos/audit.jsonl", what: "the audit log", isDir: false, secret: false, readableBy: "world" },
          { path: "/s/clawos/sessions", what: "the session state directory", isDir: true, secret: false, writableBy: "group" },
        ],
      }),
    );
    expect(f.map((x) => `${x.severity} ${x.checkId}`)).toEqual(["warn clawos.files.writable_by_others", "warn clawos.files.readable_by_others"]);
    expect(f[0].remediation).toBe('chmod 700 "/s/clawos/sessions"');
    expect(f[1].remediation).toBe('chmod 600 "/s/clawos/audit.jsonl"');
    const key = securityFindings(
      facts({ files: [{ path: "/s/k", what: "the state key", isDir: false, secret: true, readableBy: "world", writableBy: "world" }] }),
    );
    expect(key.map((x) => `${x.severity} ${x.checkId}`)).toEqual(["critical clawos.files.writable_by_others", "critical clawos.files.readable_by_others"]);
    expect(key[1].detail).toContain("can forge a session's trust");
  });

  it("an audit log with write errors, cut-off lines or a broken seal; session files failing their check", () => {
    const base = facts().audit;
    expect(ids(facts({ audit: { ...base, writeErrors: 2, lastWriteError: "ENOSPC" } }))).toEqual(["critical clawos.audit.write_errors"]);
    expect(ids(facts({ audit: { ...base, writable: false } }))).toEqual(["critical clawos.audit.write_errors"]);
    const torn = securityFindings(facts({ audit: { ...base, unparsable: 1, tornTail: true } }));
    expect(torn.map((x) => `${x.severity} ${x.checkId}`)).toEqual(["warn clawos.audit.write_errors"]);
    expect(torn[0].detail).toContain("its last line is cut off");
    expect(ids(facts({ audit: { ...base, integrity: { state: "truncated", detail: "shorter" } } }))).toEqual(["critical clawos.audit.tampered"]);
    expect(ids(facts({ audit: { ...base, integrity: { state: "unsealed" } } }))).toEqual([]);
    const state = facts().state;
    expect(ids(facts({ state: { ...state, failing: [{ file: "/s/a.json", problem: "forged" }] } }))).toEqual(["warn clawos.state.failing_check"]);
    expect(ids(facts({ state: { ...state, key: "missing" } }))).toEqual(["warn clawos.state.key_missing"]);
  });
});

describe("who can reach a file", () => {
  const modes =
    (table: Record<string, number>): StatMode =>
    (path) =>
      table[path] === undefined ? undefined : { mode: table[path], isDir: !path.endsWith(".jsonl") };

  it("takes every directory above into account", () => {
    const open = modes({ "/": 0o755, "/home": 0o755, "/home/o": 0o755, "/home/o/.openclaw": 0o755, "/home/o/.openclaw/audit.jsonl": 0o644 });
    expect(exposureOf("/home/o/.openclaw/audit.jsonl", open)).toEqual({ readableBy: "world" });
    const privateDir = modes({ "/": 0o755, "/home": 0o755, "/home/o": 0o755, "/home/o/.openclaw": 0o700, "/home/o/.openclaw/audit.jsonl": 0o666 });
    expect(exposureOf("/home/o/.openclaw/audit.jsonl", privateDir)).toEqual({});
    const groupOnly = modes({ "/": 0o755, "/home": 0o755, "/home/o": 0o750, "/home/o/.openclaw": 0o770, "/home/o/.openclaw/audit.jsonl": 0o664 });
    expect(exposureOf("/home/o/.openclaw/audit.jsonl", groupOnly)).toEqual({ readableBy: "group", writableBy: "group" });
    expect(exposureOf("/home/o/missing.jsonl", open)).toBeUndefined();
  });
});

describe("operator manifests weaker than the built-in ones", () => {
  const builtins = loadManifestDir(builtinManifestDir()).entries;
  const entry = (m: unknown, source = "config manifests[0]"): ManifestEntry => {
    const r = validateManifest(m, source);
    if (!r.ok) throw new Error(r.broken.errors.join("\n"));
    return r.entry;
  };

  it("the README's exec manifest: command output marked owner, arguments dropped", () => {
    const readme = entry(README_EXEC_MANIFEST);
    const [w] = manifestWeakenings(builtins, [readme]);
    expect(w).toMatchObject({ tool: "exec", raisesOutputTrust: true });
    expect(w.changes[0]).toBe(
      "outputTrust untrusted (by command) → owner (its results no longer lower a session; instructions injected into them are not caught)",
    );
    expect(w.changes[1]).toMatch(/^no longer declares the arguments command, cmd, workdir, host, node/);
  });

  it("a lower input trust floor and a dropped capability; an equal or stricter manifest is not reported", () => {
    const write = builtins.find((b) => b.manifest.tool === "write") as ManifestEntry;
    expect(manifestChanges(write.manifest, { ...write.manifest, minInputTrust: "community", capabilities: [] }).changes).toEqual([
      "minInputTrust verified → community (calls are allowed at lower input trust)",
      "no longer declares fs:write",
    ]);
    expect(manifestWeakenings(builtins, [entry({ ...write.manifest, minInputTrust: "owner" })])).toEqual([]);
    expect(manifestWeakenings(builtins, [entry({ ...write.manifest, tool: "my_own_tool" })])).toEqual([]);
  });

  it("a manifest that says a tool moves no files when its capabilities say it may is reported", () => {
    const exec = builtins.find((b) => b.manifest.tool === "exec") as ManifestEntry;
    expect(manifestChanges(exec.manifest, { ...exec.manifest, pathChanges: "none" }).changes).toEqual([
      "pathChanges running → none (real paths stay kept across its calls: a symlink it moves is followed up to a second late)",
    ]);
    expect(manifestChanges(exec.manifest, { ...exec.manifest, pathChanges: "lasting" }).changes).toEqual([]);
  });

  it("a manifest that counts a fetch's result at its call's trust (provenance.output call) is reported; tts's own is not", () => {
    const fetch = builtins.find((b) => b.manifest.tool === "web_fetch") as ManifestEntry;
    const tts = builtins.find((b) => b.manifest.tool === "tts") as ManifestEntry;
    expect(manifestWeakenings(builtins, [entry(tts.manifest)])).toEqual([]);
    const echoing = manifestChanges(fetch.manifest, { ...fetch.manifest, provenance: { ...fetch.manifest.provenance, output: "call" } });
    expect(echoing.raisesOutputTrust).toBe(true);
    expect(echoing.changes).toEqual([expect.stringMatching(/^provenance.output "call": its results count at the trust the call was made at, not untrusted/)]);
  });

  it("a manifest that counts a result at the files it quotes (output cited) is reported, as is the built-in's with fewer tests; the built-in memory tools are not", () => {
    const search = builtins.find((b) => b.manifest.tool === "memory_search") as ManifestEntry;
    const fetch = builtins.find((b) => b.manifest.tool === "web_fetch") as ManifestEntry;
    expect(manifestWeakenings(builtins, [entry(search.manifest)])).toEqual([]);
    const cites = { path: "results.*.path", quote: "results.*.text" };
    const quoting = manifestChanges(fetch.manifest, { ...fetch.manifest, provenance: { output: "cited", cites } });
    expect(quoting.changes).toEqual([expect.stringMatching(/^provenance.output "cited": its results count at the trust of the files they quote/)]);
    const fewer = manifestChanges(search.manifest, {
      ...search.manifest,
      provenance: { output: "cited", cites: { path: "results.*.path", quote: "results.*.snippet" } },
    });
    expect(fewer.changes).toEqual([expect.stringMatching(/^provenance.output "cited" with fewer tests on the entries/)]);
  });

  it("a read-only mode the built-in manifest does not have is reported; the built-in ones are not", () => {
    const process = builtins.find((b) => b.manifest.tool === "process") as ManifestEntry;
    expect(manifestWeakenings(builtins, [entry(process.manifest)])).toEqual([]);
    const wider = {
      ...process.manifest,
      modes: [
        ...(process.manifest.modes ?? []),
        { name: "typing", when: { argument: "action", equals: ["write"] }, capabilities: ["proc:read"], readOnly: true },
      ],
    };
    expect(manifestChanges(process.manifest, wider).changes).toEqual(["decides typing as read-only (such calls skip the tool's own trust requirement)"]);
    // Typing decided by where the run's id came from, as the built-in kill is, lets a lowered session type into its own shell.
    const typing = {
      ...process.manifest,
      modes: [
        ...(process.manifest.modes ?? []),
        { name: "typing", when: { argument: "action", equals: ["write"] }, capabilities: ["proc:manage"], decisions: true },
      ],
    };
    expect(manifestChanges(process.manifest, typing).changes).toEqual([
      "decides typing by where its arguments came from (such calls may run below the tool's trust)",
    ]);
  });

  it("a copy of message's read mode that any requester may use, or that reads more arguments, is reported", () => {
    const message = builtins.find((b) => b.manifest.tool === "message") as ManifestEntry;
    expect(manifestWeakenings(builtins, [entry(message.manifest)])).toEqual([]);
    const [reading, ...others] = message.manifest.modes ?? [];
    const anyone = { ...message.manifest, modes: [{ ...reading, requester: undefined }, ...others] };
    expect(manifestChanges(message.manifest, anyone).changes).toEqual([expect.stringMatching(/^decides reading conversations.* as read-only/)]);
    const sends = { ...message.manifest, modes: [{ ...reading, reads: [...(reading.reads ?? []), "to"] }, ...others] };
    expect(manifestChanges(message.manifest, sends).changes).toEqual([expect.stringMatching(/^decides reading conversations.* as read-only/)]);
  });

  it("the defaults weaken nothing", () => {
    expect(defaultConfig().manifests).toEqual([]);
  });
});
