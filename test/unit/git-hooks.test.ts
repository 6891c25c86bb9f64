import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { recordHooks } from "../../src/taint/git-hooks.ts";

/** The hooks git runs for a record in the local repository, found the way git finds them. */
describe("recordHooks", () => {
  function repo(config: string, files: Record<string, string> = {}) {
    const dir = mkdtempSync(join(tmpdir(), "clawos-git-hooks-"));
    const home = join(dir, "home");
    const gitDir = join(dir, "work", ".git");
    mkdirSync(join(gitDir, "hooks"), { recursive: true });
    mkdirSync(home, { recursive: true });
    writeFileSync(join(gitDir, "config"), config);
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dir, path, ".."), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return { dir, home, gitDir };
  }

  it("none when the hooks directory holds only samples and hooks a record does not run", () => {
    const { home, gitDir } = repo("[core]\n\tbare = false\n", { "work/.git/hooks/pre-commit.sample": "", "work/.git/hooks/pre-push": "" });
    expect(recordHooks(gitDir, home, {})).toEqual({ kind: "none" });
  });

  it("the hooks a record runs, in the directory core.hooksPath names: relative to the work tree, quoted, any case, the last setting winning", () => {
    const plain = repo("", { "work/.git/hooks/pre-commit": "", "work/.git/hooks/commit-msg": "" });
    expect(recordHooks(plain.gitDir, plain.home, {})).toEqual({ kind: "hooks", dir: join(plain.gitDir, "hooks"), names: ["commit-msg", "pre-commit"] });
    const husky = repo('[core]\n\tbare = false\n\tHooksPath = ".husky" ; set by husky\n', { "work/.husky/pre-commit": "" });
    expect(recordHooks(husky.gitDir, husky.home, {})).toMatchObject({ kind: "hooks", dir: join(husky.dir, "work", ".husky"), names: ["pre-commit"] });
    // The user's setting, then the repository's: the repository's wins.
    const both = repo("[core] hooksPath = tools/hooks\n", { "home/.gitconfig": "[core]\n  hooksPath = ~/hooks\n", "home/hooks/post-commit": "" });
    expect(recordHooks(both.gitDir, both.home, {})).toEqual({ kind: "none" });
    const user = repo("[user]\n\tname = Ann\n", { "home/.gitconfig": "[core]\n  hooksPath = ~/hooks\n", "home/hooks/post-commit": "" });
    expect(recordHooks(user.gitDir, user.home, {})).toMatchObject({ kind: "hooks", dir: join(user.home, "hooks"), names: ["post-commit"] });
  });

  it("unknown, never none, where settings come from what it does not follow: an include, the environment", () => {
    const included = repo('[includeIf "gitdir:~/work/"]\n\tpath = ~/work.gitconfig\n');
    expect(recordHooks(included.gitDir, included.home, {})).toMatchObject({ kind: "unknown", why: expect.stringContaining("includes other settings") });
    const plain = repo("");
    expect(recordHooks(plain.gitDir, plain.home, { GIT_CONFIG_GLOBAL: "/tmp/x" })).toMatchObject({
      kind: "unknown",
      why: expect.stringContaining("GIT_CONFIG_GLOBAL"),
    });
    expect(recordHooks(plain.gitDir, plain.home, { GIT_SSL_CAINFO: "/etc/ssl/certs/ca.crt" })).toEqual({ kind: "none" });
  });
});
