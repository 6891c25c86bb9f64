import { describe, expect, it } from "vitest";
import fc from "fast-check";
import picomatch from "picomatch";
import { braceAlternatives, PathRules, type HostLocations, type PathRule } from "../../src/policy/path-rules.ts";
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

describe("path rules: a secret below a directory read whole", () => {
  it("never misses one: whenever a secret rule takes a path, every directory above that path has a secret below it", () => {
    const names = fc.constantFrom(
      "home",
      "o",
      ".ssh",
      ".aws",
      ".openclaw",
      ".openclaw-work",
      "credentials",
      "identity",
      "agents",
      "main",
      "agent",
      "proc",
      "4242",
      "environ",
      ".netrc",
      "workspace",
      "x",
    );
    const deep = fc
      .tuple(fc.constantFrom("", "/home/o", "/home/o/.openclaw", "/proc"), fc.array(names, { minLength: 1, maxLength: 5 }))
      .map(([root, parts]) => `${root}/${parts.join("/")}`);
    for (const caseInsensitive of [false, true]) {
      const l = locations(caseInsensitive);
      const rules = new PathRules(BUILTIN_PATH_RULES, l);
      const secrets = BUILTIN_PATH_RULES.filter((r) => r.zone === "secret");
      let checked = 0;
      fc.assert(
        fc.property(deep, fc.constantFrom("main", "ops", undefined), (p, agentId) => {
          if (firstByEachPattern(secrets, l, agentId, p) === undefined) return;
          const parts = p.split("/").filter(Boolean);
          for (let k = 1; k < parts.length; k++) {
            checked++;
            expect(rules.secretBelow(`/${parts.slice(0, k).join("/")}`, agentId), `${p} at ${k}`).toBeDefined();
          }
        }),
        { numRuns: 3000 },
      );
      // The generator is built to reach secrets: the property is not empty.
      expect(checked).toBeGreaterThan(200);
    }
  });

  it("names the secret under home and OpenClaw's state, and none under a project or the workspace", () => {
    const rules = new PathRules(BUILTIN_PATH_RULES, locations(false));
    expect(rules.secretBelow("/home/o", "main")?.label).toBe("ClawOS's state key");
    expect(rules.secretBelow("/home/o/.ssh", "main")?.label).toBe("SSH keys and config");
    expect(rules.secretBelow("/home/o/.openclaw/agents", "main")?.label).toBe("an agent's auth profiles and transcripts");
    expect(rules.secretBelow("/proc/4242", "main")?.label).toBe("a process's environment (it holds keys and tokens)");
    expect(rules.secretBelow("/", "main")).toBeDefined();
    // What only root reads: /etc holds password hashes and private keys.
    expect(rules.secretBelow("/etc", "main")?.label).toBe("the system's password hashes");
    for (const dir of ["/home/o/projects", "/home/o/.openclaw/workspace", "/home/o/.openclaw/workspace/src", "/etc/nginx", "/srv/ops-ws", "/home/o/.ssh.bak"]) {
      expect(rules.secretBelow(dir, "main"), dir).toBeUndefined();
    }
    // A file the pattern names exactly is matched by the rule itself, not found below it.
    expect(rules.secretBelow("/home/o/.netrc", "main")).toBeUndefined();
  });

  it("an operator's secret pattern with ** reaches below every directory it can start from", () => {
    const rules = new PathRules([{ pattern: "**/.env", zone: "secret", label: "dotenv files" }], locations(false));
    expect(rules.secretBelow("/srv/app", "main")?.label).toBe("dotenv files");
    expect(
      new PathRules([{ pattern: "{workspace}/vault/**", zone: "secret", label: "the vault" }], locations(false)).secretBelow("/srv/ops-ws", "ops")?.label,
    ).toBe("the vault");
  });

  it("writes out brace alternatives, nested and escaped, and gives up past a bound", () => {
    expect(braceAlternatives("/h/{.a,.b-*}/{c,d}/**")).toEqual(["/h/.a/c/**", "/h/.a/d/**", "/h/.b-*/c/**", "/h/.b-*/d/**"]);
    expect(braceAlternatives("/h/{a,{b,c}x}")).toEqual(["/h/a", "/h/bx", "/h/cx"]);
    expect(braceAlternatives("/h/\\{a,b\\}")).toEqual(["/h/\\{a,b\\}"]);
    expect(braceAlternatives("/h/{solo}")).toEqual(["/h/{solo}"]);
    expect(braceAlternatives("{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}")).toBeUndefined();
  });
});

describe("path rules: files that run commands or hold logins outside the shell's own start-up files", () => {
  it("protects Git's user config, shell drop-ins, tools' and agents' settings, Python start-up and /etc; marks agents' logins, browser profiles and wallets secret", () => {
    const rules = new PathRules(BUILTIN_PATH_RULES, locations(false));
    const zone = (p: string) => rules.match(p, undefined)?.zone;
    for (const p of [
      "/home/o/.gitconfig",
      "/home/o/.config/git/config",
      "/home/o/.bash_aliases",
      "/home/o/.bashrc.d/10-x.sh",
      "/home/o/.oh-my-zsh/custom/x.zsh",
      "/home/o/.config/pip/pip.conf",
      "/home/o/.curlrc",
      "/home/o/.claude/settings.json",
      "/home/o/.codex/config.toml",
      "/home/o/.gemini/settings.json",
      "/home/o/.ipython/profile_default/startup/00.py",
      "/home/o/.local/lib/python3.12/site-packages/x.pth",
      "/etc/sudoers.d/agent",
      "/etc/apt/apt.conf.d/99hook",
      "/etc/ld.so.preload",
      // The workspace's hooks: OpenClaw loads an enabled one's handler (handler.ts before handler.js) into the gateway.
      "/home/o/.openclaw/workspace/hooks/session-digest/handler.ts",
    ]) {
      expect(zone(p), p).toBe("protected");
    }
    for (const p of [
      "/home/o/.claude/.credentials.json",
      "/home/o/.codex/auth.json",
      "/home/o/.config/google-chrome/Default/Cookies",
      "/home/o/.mozilla/firefox/abc.default/logins.json",
      "/home/o/.bitcoin/wallet.dat",
      // What only root reads: password hashes, host and TLS keys, VPN and Wi-Fi secrets.
      "/etc/shadow",
      "/etc/ssh/ssh_host_ed25519_key",
      "/etc/ssl/private/site.key",
      "/etc/letsencrypt/live/example.org/privkey.pem",
      "/etc/wireguard/wg0.conf",
      // Key material and registry tokens wherever they are kept: a deploy key or a token in a repository.
      "/home/o/.openclaw/workspace/app/deploy/id_ed25519",
      "/home/o/.openclaw/workspace/app/certs/server.key",
      "/home/o/.openclaw/workspace/app/gcp-service-account.json",
      "/home/o/.openclaw/workspace/app/.npmrc",
    ]) {
      expect(zone(p), p).toBe("secret");
    }
    // Their public halves are not secrets.
    for (const p of ["/home/o/.openclaw/workspace/app/deploy/id_ed25519.pub", "/home/o/.openclaw/workspace/app/certs/fullchain.pem"])
      expect(zone(p), p).toBe("open");
    for (const p of ["/etc/ssh/ssh_host_ed25519_key.pub", "/etc/ssh/sshd_config", "/etc/passwd", "/etc/letsencrypt/live/example.org/fullchain.pem"])
      expect(zone(p), p).toBe("protected");
    // The workspace stays open, and an ordinary file in home has no rule.
    expect(zone("/home/o/.openclaw/workspace/src/a.ts")).toBe("open");
    expect(zone("/home/o/notes/todo.md")).toBeUndefined();
  });
});
