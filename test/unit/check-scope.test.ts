import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { projectFileMatcher } from "../../src/policy/autoloaded-paths.ts";
import { checkScope, loadedFromAbove } from "../../src/taint/check-scope.ts";

const isProjectFile = projectFileMatcher(false);

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "check-scope-"));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

describe("the scope of a check of the project", () => {
  it("is the check's own directory when nothing above it is a project, with the directories above it", () => {
    const root = tree({ "api/src/app.py": "", "notes.md": "", "other/package.json": "{}" });
    const scope = checkScope(join(root, "api"), root, isProjectFile);
    expect(scope).toEqual({ trees: [{ dir: join(root, "api") }], above: [root] });
  });

  it("is the outermost directory holding a manifest or build file: a monorepo's root above the package", () => {
    const root = tree({ "mono/package.json": "{}", "mono/packages/a/package.json": "{}", "mono/packages/b/index.js": "" });
    const scope = checkScope(join(root, "mono", "packages", "a"), root, isProjectFile);
    expect(scope?.trees).toEqual([{ dir: join(root, "mono") }]);
    expect(scope?.above).toEqual([root]);
  });

  it("takes in what manifests, build files and their scripts name by a relative path, and what those name", () => {
    const root = tree({
      "app/package.json": JSON.stringify({ dependencies: { shared: "file:../shared" }, scripts: { test: "node ../tools/run.js" } }),
      "app/svc/Cargo.toml": '[dependencies]\ncore = { path = "../../core" }\n',
      "app/go.work": "go 1.22\nuse (\n\t.\n\t../golib\n)\n",
      "app/App.csproj": '<ProjectReference Include="..\\Lib\\Lib.csproj" />',
      "app/pnpm-workspace.yaml": "packages:\n  - '../pkgs/*'\n",
      "app/jest.config.js": "module.exports = { moduleNameMapper: { '^@ui/(.*)$': '<rootDir>/../ui/src/$1' } };",
      "shared/package.json": JSON.stringify({ dependencies: { deep: "link:../deep" } }),
      "unrelated/x.js": "",
    });
    const scope = checkScope(join(root, "app"), root, isProjectFile);
    const dirs = scope?.trees.map((t) => t.dir).sort();
    expect(dirs).toEqual(
      [
        join(root, "Lib"),
        join(root, "app"),
        join(root, "core"),
        join(root, "deep"),
        join(root, "golib"),
        join(root, "pkgs"),
        join(root, "shared"),
        join(root, "tools", "run.js"),
        join(root, "ui", "src"),
      ].sort(),
    );
    expect(scope?.trees.find((t) => t.dir === join(root, "deep"))?.namedBy).toBe(join(root, "shared", "package.json"));
  });

  it("reads the settings a tool keeps in a dot-directory of the project (a docs site's source directory)", () => {
    const root = tree({ "website/package.json": "{}", "website/.vitepress/config.mts": "export default { srcDir: '../docs' };", "docs/index.md": "" });
    expect(checkScope(join(root, "website"), root, isProjectFile)?.trees.map((t) => t.dir)).toEqual([join(root, "website"), join(root, "docs")]);
  });

  it("follows the symbolic links in the project and its node_modules (npm link, a linked directory)", () => {
    const root = tree({ "api/package.json": "{}", "shared/package.json": "{}", "ui/package.json": "{}", "common/x.js": "", "other/package.json": "{}" });
    mkdirSync(join(root, "api", "node_modules", "@me"), { recursive: true });
    symlinkSync("../../shared", join(root, "api", "node_modules", "shared"));
    symlinkSync("../../../ui", join(root, "api", "node_modules", "@me", "ui"));
    symlinkSync("../common", join(root, "api", "common"));
    symlinkSync("/nonexistent-target", join(root, "api", "dangling"));
    const scope = checkScope(join(root, "api"), root, isProjectFile);
    expect(scope?.trees.map((t) => t.dir).sort()).toEqual([join(root, "api"), join(root, "common"), join(root, "shared"), join(root, "ui")].sort());
  });

  it("a link to a directory above the project takes in all of it; a path outside the trusted directory adds nothing", () => {
    const root = tree({ "ws/api/pyproject.toml": "[tool.pytest.ini_options]\npythonpath = ['..']\n", "ws/x.py": "" });
    const scope = checkScope(join(root, "ws", "api"), join(root, "ws"), isProjectFile);
    expect(scope?.trees.map((t) => t.dir)).toEqual([join(root, "ws")]);
    const outside = checkScope(join(root, "ws", "api"), join(root, "ws", "api"), isProjectFile);
    expect(outside?.trees.map((t) => t.dir)).toEqual([join(root, "ws", "api")]);
  });

  it("a bare .. goes up once for each on its line; Python that computes its import path leaves the scope unknown", () => {
    const root = tree({ "ws/apps/web/vite.config.ts": "export default { resolve: { alias: { '@': path.join(__dirname, '..', '..', 'lib') } } };" });
    expect(checkScope(join(root, "ws", "apps", "web"), root, isProjectFile)?.trees.map((t) => t.dir)).toEqual([join(root, "ws")]);
    for (const conftest of [
      "import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir))\n",
      "import sys\nfrom pathlib import Path\nsys.path.append(str(Path(__file__).resolve().parents[1]))\n",
    ]) {
      const py = tree({ "ws/api/tests/conftest.py": conftest, "ws/api/pyproject.toml": "" });
      expect(checkScope(join(py, "ws", "api"), py, isProjectFile), conftest).toBeUndefined();
    }
  });

  it("is unknown when the project is too large to look through, so the caller counts the whole trusted directory", () => {
    const files: Record<string, string> = { "big/package.json": "{}" };
    for (let i = 0; i < 450; i++) files[`big/d${i}/f.js`] = "";
    const root = tree(files);
    expect(checkScope(join(root, "big"), root, isProjectFile)).toBeUndefined();
  });

  it("above the project, tools load manifests, build files and dot-files, and what is in node_modules and dot-directories", () => {
    const above = ["/ws/a", "/ws"];
    const autoloaded = isProjectFile;
    expect(loadedFromAbove("/ws/pytest.ini", above, autoloaded)).toBe(true);
    expect(loadedFromAbove("/ws/a/conftest.py", above, autoloaded)).toBe(true);
    expect(loadedFromAbove("/ws/node_modules/left-pad/index.js", above, autoloaded)).toBe(true);
    expect(loadedFromAbove("/ws/.cargo/config.toml", above, autoloaded)).toBe(true);
    expect(loadedFromAbove("/ws/.git/hooks/pre-commit", above, autoloaded)).toBe(false);
    expect(loadedFromAbove("/ws/.npmrc", above, autoloaded)).toBe(true);
    expect(loadedFromAbove("/ws/helper.py", above, autoloaded)).toBe(false);
    expect(loadedFromAbove("/ws/SOUL.md", above, autoloaded)).toBe(false);
    expect(loadedFromAbove("/ws/other/package.json", above, autoloaded)).toBe(false);
    expect(loadedFromAbove("/elsewhere/pytest.ini", above, autoloaded)).toBe(false);
  });
});
