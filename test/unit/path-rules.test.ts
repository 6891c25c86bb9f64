import { describe, expect, it } from "vitest";
import fc from "fast-check";
import picomatch from "picomatch";
import { PathRules, type HostLocations, type PathRule } from "../../src/policy/path-rules.ts";
import { BUILTIN_PATH_RULES } from "../../src/policy/builtin-path-rules.ts";

/**
 * The compiled path rules find the first matching rule with one regular expression over all of
 * them. These tests hold that to the plain reading: each rule's own pattern, tried in order.
 */

const locations = (caseInsensitive: boolean): HostLocations => ({
  home: "/home/o",
  state: "/home/o/.openclaw",
  config: "/home/o/.openclaw/openclaw.json",
  clawos: "/home/o/.openclaw/clawos",
  audit: "/home/o/.openclaw/clawos/audit.jsonl",
  sessions: "/home/o/.openclaw/clawos/sessions",
  workspaceFor: (agentId) => (agentId === "ops" ? "/srv/ops-ws" : "/home/o/.openclaw/workspace"),
  caseInsensitive,
});

function firstByEachPattern(rules: readonly PathRule[], l: HostLocations, agentId: string | undefined, path: string): string | undefined {
  for (const rule of rules) {
    const expanded = rule.pattern.replace(/\{(home|state|config|workspace|clawos|audit|sessions)\}/g, (_, name: string) =>
      name === "workspace" ? l.workspaceFor(agentId) : (l[name as "home"] as string),
    );
    if (picomatch.makeRe(expanded, { dot: true, nocase: l.caseInsensitive }).test(path)) return rule.label;
  }
  return undefined;
}

const SEGMENTS = [
  "home",
  "o",
  ".openclaw",
  "workspace",
  "clawos",
  "sessions",
  ".ssh",
  ".git",
  "hooks",
  "config",
  "skills",
  "AGENTS.md",
  "etc",
  "hosts",
  "cron.d",
  "x",
  "srv",
  "ops-ws",
  "agents",
  "main",
  "agent",
  ".env",
  "openclaw.json",
  "a.ts",
];
const path = fc.array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 7 }).map((parts) => `/${parts.join("/")}`);

describe("path rules: one alternation finds the first matching rule", () => {
  it("agrees with trying each rule's pattern in order (built-in rules, two workspaces, either case rule)", () => {
    for (const caseInsensitive of [false, true]) {
      const l = locations(caseInsensitive);
      const rules = new PathRules(BUILTIN_PATH_RULES, l);
      fc.assert(
        fc.property(path, fc.constantFrom("main", "ops", undefined), (p, agentId) => {
          expect(rules.match(p, agentId)?.label).toBe(firstByEachPattern(BUILTIN_PATH_RULES, l, agentId, p));
        }),
        { numRuns: 1000 },
      );
    }
  });

  it("keeps the order of rules whose patterns overlap and carry groups of their own (braces)", () => {
    const rules: PathRule[] = [
      { pattern: "{workspace}/{a,b}/{c,d}.md", zone: "secret", label: "first" },
      { pattern: "{workspace}/a/**", zone: "protected", label: "second" },
      { pattern: "{workspace}/**", zone: "open", label: "third" },
    ];
    const compiled = new PathRules(rules, locations(false));
    const ws = "/home/o/.openclaw/workspace";
    expect(compiled.match(`${ws}/a/d.md`, "main")?.label).toBe("first");
    expect(compiled.match(`${ws}/a/e.md`, "main")?.label).toBe("second");
    expect(compiled.match(`${ws}/b/x`, "main")?.label).toBe("third");
    expect(compiled.match("/tmp/x", "main")).toBeUndefined();
    expect(new PathRules([], locations(false)).match(`${ws}/a`, "main")).toBeUndefined();
  });
});
