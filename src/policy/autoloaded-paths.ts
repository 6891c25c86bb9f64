import picomatch from "picomatch";

/**
 * Files that a program loads or runs by itself, without the agent reading them: the host's own
 * bootstrap and memory notes, CI and editor configuration, package manifests, build files, test
 * files a runner discovers, shell environment files. A session below a tool's trust floor may
 * create a new file whose path it made up (`provenance.unknown.path` `new-files`), but never one of
 * these: its content would reach a later session or a program with nobody reading it first.
 * Operators add their own with `provenance.autoloadedPaths`.
 *
 * Plain data: globs (`**` any depth, `{a,b}` either) over the path below the agent's workspace, or
 * below the home directory for a path outside it (so that the directories above a workspace never
 * match: a workspace in `~/test/` is not a test directory).
 */
/** A glob over a path below the workspace, and what a file there is. */
export interface LabelledGlob {
  readonly pattern: string;
  readonly label: string;
  /**
   * A file that makes the directory holding it part of a project a build or a test run works on
   * (a manifest, a build file, a tool's settings): a check of the project looks at all of such a
   * directory, and at what the file names by a relative path.
   */
  readonly project?: true;
}

export const AUTOLOADED_PATHS: readonly LabelledGlob[] = [
  { pattern: "memory/**", label: "the agent's memory notes (recent ones load into new sessions)" },
  { pattern: "**/{AGENTS,CLAUDE,GEMINI,SOUL,USER,IDENTITY,TOOLS,BOOT,BOOTSTRAP,HEARTBEAT,MEMORY,DREAMS}.md", label: "agent instruction files" },
  { pattern: "**/{SKILL.md,.cursorrules,.clinerules,.windsurfrules}", label: "agent instruction files" },
  {
    pattern: "**/{.cursor,.claude,.codex,.gemini,.kiro,.windsurf,.roo,.continue,.aider.conf.yml,opencode.json,.mcp.json}/**",
    label: "agent instruction and settings directories",
  },
  { pattern: "**/{.mcp.json,mcp.json,opencode.json,.aider.conf.yml}", label: "agent settings (servers and hooks they start)" },
  { pattern: "**/{.github,.gitlab,.circleci,.buildkite,.husky,.devcontainer,.vscode,.idea,.cargo,.mvn}/**", label: "CI, hook and editor configuration" },
  {
    pattern: "**/{.gitlab-ci.yml,Jenkinsfile,azure-pipelines.yml,bitbucket-pipelines.yml,.pre-commit-config.yaml,lefthook.yml,.gitattributes,.gitmodules}",
    label: "CI and repository configuration",
  },
  {
    pattern: "**/{.env,.env.*,.envrc,.npmrc,.yarnrc,.yarnrc.yml,.pnpmfile.cjs,.tool-versions,.mise.toml,mise.toml,.nvmrc}",
    label: "environment and package-manager settings",
  },
  {
    pattern: "**/{package.json,pnpm-workspace.yaml,deno.json,deno.jsonc,bunfig.toml,tsconfig.json,jsconfig.json}",
    label: "package manifests and build settings",
    project: true,
  },
  {
    pattern:
      "**/{*.config.js,*.config.cjs,*.config.mjs,*.config.ts,*.config.cts,*.config.mts,.*rc,.*rc.js,.*rc.cjs,.*rc.mjs,.*rc.ts,.*rc.json,.*rc.json5,.*rc.yml,.*rc.yaml,.*rc.toml,babel.config.json}",
    label: "tool configuration files (loaded and often run)",
    project: true,
  },
  {
    pattern:
      "**/{setup.py,setup.cfg,pyproject.toml,conftest.py,noxfile.py,tox.ini,pytest.ini,.pytest.ini,pytest.toml,sitecustomize.py,usercustomize.py,*.pth,manage.py}",
    label: "Python build, test and start-up files",
    project: true,
  },
  {
    pattern:
      "**/{Makefile,makefile,GNUmakefile,*.mk,Justfile,justfile,Taskfile.yml,Taskfile.yaml,Rakefile,Gemfile,*.gemspec,composer.json,requirements*.txt,Pipfile,Gruntfile.js,gulpfile.js,karma.conf.js,Vagrantfile,BUILD,BUILD.bazel,WORKSPACE,MODULE.bazel,build.sbt,mix.exs,flake.nix,shell.nix,default.nix,build.rs,Cargo.toml,rust-toolchain,rust-toolchain.toml,go.mod,go.work,go.work.sum,build.gradle,build.gradle.kts,settings.gradle,settings.gradle.kts,pom.xml,CMakeLists.txt,meson.build,*.csproj,*.fsproj,*.vbproj,*.sln,Directory.Build.props,Directory.Build.targets,Directory.Packages.props,NuGet.config,nuget.config}",
    label: "build files",
    project: true,
  },
  {
    pattern:
      "**/{Dockerfile,Containerfile,docker-compose.yml,docker-compose.yaml,docker-compose.*.yml,docker-compose.*.yaml,compose.yml,compose.yaml,compose.*.yml,compose.*.yaml,*.service,*.timer,crontab}",
    label: "container, service and schedule definitions",
  },
  { pattern: "**/{*.test.*,*.spec.*,test_*.py,*_test.py,*_test.go,*_spec.rb}", label: "test files (a test runner finds and runs them)" },
  { pattern: "**/{__tests__,tests,test,spec}/**", label: "test directories (a test runner finds and runs them)" },
  { pattern: "**/{openclaw.json,openclaw.plugin.json,*.plugin.json}", label: "OpenClaw configuration and plugin manifests" },
  { pattern: "**/{.bashrc,.bash_profile,.profile,.zshrc,.zprofile,.zshenv,.bash_login,.inputrc}", label: "shell start-up files" },
];

/** A list of globs compiled once: the label of the first that matches a relative path, else undefined. */
export function globMatcher(list: readonly LabelledGlob[], caseInsensitive: boolean): (relative: string) => string | undefined {
  const compiled = list.map((entry) => ({ re: picomatch.makeRe(entry.pattern, { dot: true, nocase: caseInsensitive }), label: entry.label }));
  return (relative) => compiled.find((entry) => entry.re.test(relative))?.label;
}

/**
 * Whether a file's name makes its directory part of a project (`LabelledGlob.project`): a package
 * manifest, a build file, Python's build and test settings.
 */
export function projectFileMatcher(caseInsensitive: boolean): (name: string) => boolean {
  const compiled = AUTOLOADED_PATHS.filter((entry) => entry.project).map((entry) => picomatch.makeRe(entry.pattern, { dot: true, nocase: caseInsensitive }));
  return (name) => compiled.some((re) => re.test(name));
}

/** The built-in list compiled once: what a path below the workspace (or home) is, if programs load it. */
export function autoloadedMatcher(caseInsensitive: boolean): (relative: string) => string | undefined {
  return globMatcher(AUTOLOADED_PATHS, caseInsensitive);
}
