import { posix } from "node:path";
import { TRUST_LEVELS, trustRank, type TrustLevel } from "../../taint/trust.ts";
import {
  compileCommandRules,
  matchCommandRules,
  type Behaviour,
  type CompiledCommandRule,
  type CompiledCommandRules,
  type CompiledProgram,
  type ProgramKind,
  type ProgramSpec,
  type ServiceActionSpec,
  type CheckSpec,
  type RecordSpec,
  type SubcommandSpec,
} from "./command-rules.ts";
import { braceAlternatives } from "../path-rules.ts";
import { ARITHMETIC_NAMES, parseShell, type Command, type Redirect, type Script, type SimpleCommand, type Word } from "./shell.ts";

/**
 * What an `exec` command does, from its text alone: the shell is parsed (`shell.ts`), every simple
 * command it would run is found (pipelines, lists, subshells, substitutions, `bash -c` strings,
 * wrappers such as `sudo`, `env`, `xargs`, `find -exec`), and each is looked up in the program table
 * (`builtin-programs.ts`). Pure: the same text and rules give the same facts.
 */

export interface CommandRuleMatch {
  readonly id: string;
  readonly effect: "allow" | "deny";
  readonly trust: TrustLevel;
}

export interface CopyFact {
  readonly from: string;
  readonly to: string;
  /** The destination is a directory the source lands in, as the command says (`-t`, several sources, a trailing slash). */
  readonly into?: boolean;
  /** Only what is in the source directory lands there (`rsync src/ dst`). */
  readonly contents?: boolean;
}

/**
 * A directory whose symlinks a read follows: `names` are the pattern's names below it, one list
 * per brace alternative (`notes/*.md` is `[["*.md"]]`), matched name by name as the shell expands
 * them; without `names`, every symlink at any depth (`grep -R`, `rg -L`, `tar -h` follow them all).
 */
export interface LinkScan {
  readonly path: string;
  readonly names?: readonly (readonly string[])[];
}

export interface CommandView {
  readonly parsed: boolean;
  /** Why the command could not be parsed. */
  readonly error?: string;
  /**
   * Every simple command is a known read-only program with read-only flags and operands, with no
   * write redirection, no network, nothing only known at run time.
   */
  readonly readOnly: boolean;
  /** Paths read, as written (relative paths stay relative, joined to any `cd` before them); "." for the working directory. */
  readonly reads: readonly string[];
  /**
   * The reads whose names alone were taken in: only programs that show names and metadata (`ls`,
   * `du`, `find`) read them. Any other read of a directory takes in the files below it (`grep -r`,
   * `rg`, `cp -r`).
   */
  readonly listings: readonly string[];
  /**
   * Reads that take in what symlinks below a directory point to: a pattern's names (`cat notes/*`
   * reads `notes/k` when it links to `~/.ssh/id_ed25519`). Each is read as its directory (`reads`)
   * and its links are looked up on the filesystem when the call is decided.
   */
  readonly links: readonly LinkScan[];
  /** Paths written: redirection targets, tee, cp/mv destinations, rm targets, sed -i files; "." for a repository. */
  readonly writes: readonly string[];
  /**
   * What a copy, move or sync puts elsewhere (`cp`, `mv`, `rsync`), as written: each source and its
   * destination, a new name or a directory it lands in. A copy carries what its source holds.
   */
  readonly copies: readonly CopyFact[];
  /**
   * A read-only program read state kept outside files (the journal, the service manager, the
   * container daemon): its output is others' text, so it counts as untrusted whatever the paths.
   */
  readonly external: boolean;
  /** Paths where content from outside lands: clone destinations, downloads, extracted archives, node_modules. */
  readonly fetches: readonly string[];
  /**
   * The fetches that are a package install (`npm ci`, `pip install`): others' text, but the code the
   * project runs, chosen by the call that installed it.
   */
  readonly installs: readonly string[];
  /**
   * The writes and fetches that update a repository's work tree where it stands (`git pull`,
   * `git checkout`): only the files the command changes there are new.
   */
  readonly inPlace: readonly string[];
  /**
   * Where git looks for its repository, as written ("." for the working directory). Git runs the
   * commands a repository's settings name (`core.fsmonitor`, aliases, a diff driver, a pager) even
   * for `git status`, so the trust of those settings is the trust of what the command runs.
   */
  readonly repositories: readonly string[];
  /**
   * The git directories a clone creates (`dest/.git`, or `dest` for a bare clone), as written: git
   * writes their settings itself, so they are not the fetched content they sit beside.
   */
  readonly madeRepositories: readonly string[];
  readonly network: boolean;
  /**
   * Runs only programs that work on local files (readers, builds and tests, version control without
   * a remote, file writers): no network, no installs, no interpreter or shell text ClawOS cannot
   * see into, no unknown program. Its output comes from the files where it runs.
   */
  readonly local: boolean;
  /**
   * Runs code that lives in its working tree: a build or test program (`npm test`, `make`,
   * `pytest`) or a program file of the tree (`./gradlew`). What it runs is as trusted as the files
   * written there.
   */
  readonly runsTree: boolean;
  /**
   * With runsTree: it may also run the examples in the tree's documents (`cargo test` runs a README
   * a crate includes as doc tests, pytest collects `--doctest-glob` files, `make` runs whatever the
   * Makefile says), so text documents written there count as code too.
   */
  readonly runsDocs: boolean;
  /**
   * It runs code it reads from a file or its input (`bash < setup.sh`, `cat x.sh | sh`, `awk -f`,
   * `sed -f`, `source`): every file the command reads counts as code, whatever its kind.
   */
  readonly runsInput: boolean;
  /**
   * Files whose content the command runs, whatever their name (`bash docs/setup.txt`, `pip install -r
   * deps.txt`, `ssh -F config`, `curl -K curlrc`), as in `reads`: each counts as code.
   */
  readonly codeFiles: readonly string[];
  /**
   * With runsTree: where the code it runs is, when not only the working directory (make -C ..,
   * npm --prefix ../app, cd ../app && npm test), relative to it.
   */
  readonly treeDirs: readonly string[];
  /**
   * With runsTree: it runs the code of the working directory itself, not only where a cd or a
   * flag put it (`npm test`, `pytest tests/`; not `cd api && npm test`).
   */
  readonly runsCwd: boolean;
  /** A file it reads or copies is named by text only known at run time ($PWD/x, find's {}, xargs): what it writes may hold anything. */
  readonly unknownReads: boolean;
  /**
   * Secrets the command prints whatever its paths: the process environment (`env`, `printenv`,
   * `export -p`) or a variable that may hold a key or token (`echo $OPENAI_API_KEY`).
   */
  readonly secrets: readonly string[];
  /**
   * The command is not read-only only because it reads another host's state: `ssh host` running a
   * read-only command there, `redis-cli` read commands, `dig` queries. Nothing changes anywhere; what
   * it sends goes to `destinations`, so whether it may run below owner depends on where those names
   * came from (the engine checks them like a call's hosts). Its output is others' text.
   */
  readonly remoteRead: boolean;
  /**
   * Where a remote read sends its request (hosts, a resolver, the names it looks up; a web request's
   * whole URL, which says what it sends too); empty for a local daemon.
   */
  readonly destinations: readonly string[];
  /**
   * A remote read that only printed the other host's own facts: `ssh web-2 'df -h; ufw status'`
   * read no file and no state kept outside files there (a log, the journal, a database), so its
   * output is that host's report, as the same command's would be here, not others' text.
   */
  readonly remoteFacts: boolean;
  /**
   * The command is not read-only only because it restarts, reloads or starts services on this host
   * (`sudo systemctl restart api`, `kubectl rollout restart deployment/api`, `docker restart web`:
   * `serviceAction` in the command table), beside read-only parts. Nothing else changes; whether it
   * may run below owner depends on whether the owner's own words name each service (`services`) and
   * the action (`serviceVerbs`): the engine checks them like a call's hosts.
   */
  readonly serviceAction: boolean;
  /** The services a service action names (units without `.service`, workload and container names). */
  readonly services: readonly string[];
  /** Where a service action acts within what the owner's configuration names: a Kubernetes namespace (`-n`). */
  readonly serviceScopes: readonly string[];
  /** What kinds of service its service actions act on (systemd units, containers, Kubernetes workloads). */
  readonly serviceKinds: readonly ("systemd" | "docker" | "kubernetes")[];
  /** The words that name its actions (restart, reload, start), once each, with the other words that ask for them too. */
  readonly serviceVerbs: readonly { readonly verb: string; readonly alsoBy: readonly string[] }[];
  /**
   * The command is not read-only only because it builds, tests or lints the project in its working
   * tree (`npm test`, `npm run build`, `cargo test`, `go vet ./...`, `make test`: `check` in the
   * command table), given nothing else, beside read-only parts: no flag that loads code or changes
   * what runs, no path outside the tree, no write, no download. It runs the code of its trees
   * (`runsTree`); whether it may run below owner depends on whether each tree is the owner's and holds
   * no code a session below owner wrote: the engine checks them.
   */
  readonly projectCheck: boolean;
  /**
   * The command is not read-only only because it records in the local repository what the working
   * tree holds (`git add src/x.ts && git commit -m "..."`, `git switch -c fix`: `record` in the
   * command table), given nothing else, beside read-only parts: no flag that runs code, takes in
   * other content or rewrites history, no path outside the tree, no other write. It writes only the
   * repository's own store, and runs only the repository's hooks; whether it may run below owner
   * depends on whether the repository is the owner's and its hooks run only the owner's code: the
   * engine checks them.
   */
  readonly localRecord: boolean;
  /** The paths a record names (`git add src/a.ts`), relative to the working directory as written: a directory among them takes in every file below it. */
  readonly recordPaths: readonly string[];
  /** Irreversible actions named by matching rules ("push to a remote"). */
  readonly irreversible: readonly string[];
  /** Each irreversible action with its id, what a grant names (`git-push`: a built-in rule's id without `builtin.`). */
  readonly irreversibleActions: readonly { readonly id: string; readonly action: string }[];
  /** The programs run (names without directories), wrappers included, in order, once each. */
  readonly programs: readonly string[];
  /**
   * What it prints may hold words of its own command line: a program that is not `printsFiles` in
   * the command table (echo, printf, sed, awk), one given an `ownWordsFlags` flag (a format, a
   * label, a separator), a here-document or a here-string. False: its output is only what the
   * files it reads hold.
   */
  readonly printsOwnWords: boolean;
  /** Why the command is not read-only, in short phrases. */
  readonly why: readonly string[];
  /** Operator (and built-in) rules with an effect that matched, once each, in the order they matched. */
  readonly rules: readonly CommandRuleMatch[];
  /**
   * Every part of the command that is not read-only matched an allow rule: the trust the strictest
   * of them asks for (each part takes its first matching allow rule). Absent when some part matched
   * none, when the command is read-only, or when it could not be parsed.
   */
  readonly allowAt?: TrustLevel;
  /** A deny rule matched: the command is blocked at this trust and below. */
  readonly denyAt?: TrustLevel;
}

/**
 * The same command run with environment variables the call sets (`exec`'s `env`) that the command
 * rules do not know as inert: what its programs do can change (`TAR_OPTIONS` can make `tar c` run a
 * program, `RIPGREP_CONFIG_PATH` can give `rg` a preprocessor), so it is not read-only, its output
 * may come from elsewhere, and an operator's allow rule for the command as written does not cover it.
 */
export function withEnvironment(view: CommandView, names: readonly string[]): CommandView {
  const why = names.map((name) =>
    /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? `the call sets ${name}, which can change what the command runs` : `the call sets ${name}`,
  );
  return {
    ...view,
    readOnly: false,
    local: false,
    remoteRead: false,
    serviceAction: false,
    projectCheck: false,
    localRecord: false,
    allowAt: undefined,
    why: [...view.why, ...why],
  };
}

let defaultRules: CompiledCommandRules | undefined;

const NONE: readonly string[] = Object.freeze([]);

/** The built-in rules and program table alone, compiled once. */
export function builtinCommandRules(): CompiledCommandRules {
  defaultRules ??= compileCommandRules([]);
  return defaultRules;
}

/** Classifies a shell command. Unparseable text is the most dangerous case: never read-only, network assumed. */
export function classifyCommand(command: string, rules: CompiledCommandRules = builtinCommandRules()): CommandView {
  const result = parseShell(command);
  if (!result.parsed) {
    return {
      parsed: false,
      error: result.error,
      readOnly: false,
      reads: [],
      listings: [],
      links: [],
      writes: [],
      copies: [],
      fetches: [],
      installs: [],
      inPlace: [],
      repositories: [],
      madeRepositories: [],
      network: true,
      external: true,
      local: false,
      runsTree: true,
      runsDocs: true,
      runsInput: true,
      codeFiles: [],
      treeDirs: [],
      runsCwd: true,
      unknownReads: true,
      secrets: [],
      remoteRead: false,
      destinations: [],
      remoteFacts: false,
      serviceAction: false,
      services: [],
      serviceScopes: [],
      serviceKinds: [],
      serviceVerbs: [],
      projectCheck: false,
      localRecord: false,
      recordPaths: [],
      irreversible: [],
      irreversibleActions: [],
      programs: [],
      printsOwnWords: true,
      why: [`the command cannot be parsed (${result.error})`],
      rules: [],
    };
  }
  const walker = new Walker(rules);
  walker.run(result.script);
  return walker.facts();
}

// ---- the walk ---------------------------------------------------------------------------------

interface Context {
  /** The possible working directories relative to the one the command starts in ("" is that one). */
  cwds: readonly string[];
  readonly depth: number;
  /** Inside an ssh remote command: paths are the remote host's, not recorded. */
  readonly remote: boolean;
  /** Run through sudo on this host (`sudo tail /var/log/x`): it reads as root, so only the logs count as plain reads. */
  readonly elevated?: boolean;
  /** The directories pushd left, innermost last (each a set of possibilities, as `cwds`). */
  dirs?: readonly (readonly string[])[];
  /**
   * What the pipe before this command prints: the regular files below these starting points,
   * NUL-separated (`find ROOTS -type f ... -print0`), so `xargs -0` appends files of theirs only.
   */
  listed?: readonly Word[];
}

interface Frame {
  readOnly: boolean;
  /** The rank of the first allow rule that matched this part, if any. */
  allowRank?: number;
}

const KIND_WHY: Record<ProgramKind, string> = {
  read: "reads",
  build: "runs a build, tests or project scripts",
  write: "writes files",
  destructive: "deletes or overwrites files",
  network: "reaches the network",
  install: "installs packages from the network",
  interpreter: "runs code",
  shell: "runs a shell",
  system: "changes the system or other processes",
  privilege: "runs a command as another user",
  wrapper: "runs a command",
  dynamic: "runs text as shell commands",
};

/** Where writes cannot land: the shell's own streams and the null device. */
const HARMLESS_TARGETS = /^\/dev\/(null|stdout|stderr|tty|fd\/[0-2])$/;
/** Directories whose programs are the system's own: `/usr/bin/ls` is `ls`. */
const SYSTEM_BIN = /^\/(?:usr\/(?:local\/)?)?s?bin\/[^/]+$|^\/opt\/homebrew\/bin\/[^/]+$/;
const ASSIGNMENT_NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
const ENV_ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
const MAX_CWDS = 8;
/** What `env`, `printenv` and a shell's variable listings print. */
export const ENVIRONMENT = "the process environment";

/**
 * Whether an awk program can run a command, write a file or read one its operands do not name:
 * `system(`, `getline` (from a file or a command), gawk's `@` (an include, a loaded extension, an
 * indirect call), `ARGV`/`ARGC` (files added at run time), `SYMTAB`/`PROCINFO`/`ENVIRON` (the
 * environment by another name), or a `>` or `|` in a print or printf statement outside
 * parentheses (its output redirected). Elsewhere `>` compares and `||` is a logical or:
 * `$9 >= 500 {print $7}` and `/ERROR|WARN/` only read. Strings, comments and regex literals are set
 * aside first; where the scan cannot be sure how awk reads the text (a `/` that may divide or
 * start a regex, a regex or a string that does not close plainly), the program counts as acting
 * if any of those words, or any `>`, `|` or `@`, appears in it at all.
 */
export function awkActs(program: string): boolean {
  const code = awkCode(program);
  if (code === undefined) return /system|getline|ARGV|ARGC|SYMTAB|PROCINFO|ENVIRON|[>|@]/.test(program);
  if (/\b(?:system|getline|ARGV|ARGC|SYMTAB|PROCINFO|ENVIRON)\b|@/.test(code)) return true;
  const print = /\bprintf?\b/g;
  for (let m = print.exec(code); m; m = print.exec(code)) {
    // To the statement's end (a newline may continue it: after a comma, a backslash, inside brackets).
    let depth = 0;
    for (let k = m.index + m[0].length; k < code.length; k++) {
      const c = code[k];
      if (c === "(" || c === "[") depth++;
      else if (c === ")" || c === "]") depth = Math.max(0, depth - 1);
      else if (depth === 0 && (c === ";" || c === "}")) break;
      else if (depth === 0 && (c === ">" || c === "|")) return true;
    }
  }
  return false;
}

/**
 * The program with its strings (`""`), comments and regex literals (`//`) set aside, or undefined
 * where awk could read it differently: a `/` after a `)` or a word (division or regex), a string or
 * regex that runs to the end of its line, a regex holding a quote or a statement.
 */
function awkCode(program: string): string | undefined {
  let code = "";
  for (let i = 0; i < program.length; i++) {
    const c = program[i] as string;
    if (c === "#") {
      while (i < program.length && program[i] !== "\n") i++;
      code += "\n";
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      while (j < program.length && program[j] !== '"' && program[j] !== "\n") j += program[j] === "\\" ? 2 : 1;
      if (program[j] !== '"') return undefined;
      code += '""';
      i = j;
      continue;
    }
    if (c === "/") {
      const before = code.trimEnd();
      if (/[\w$\]"]$/.test(before) && !/(?:^|[^\w$])(?:print|printf|return|in|else|do)$/.test(before)) {
        code += c;
        continue;
      }
      // After a `)` awk may read a regex (`if (x) /re/`) or a division (`(a) / 2`).
      if (before.endsWith(")") || before.endsWith("++") || before.endsWith("--") || /(?:^|[^\w$])(?:else|do|in)$/.test(before)) return undefined;
      let j = i + 1;
      while (j < program.length && program[j] !== "/" && program[j] !== "\n") j += program[j] === "\\" ? 2 : 1;
      const body = program.slice(i + 1, j);
      if (program[j] !== "/" || /["#;{}]|print/.test(body)) return undefined;
      code += "//";
      i = j;
      continue;
    }
    code += c;
  }
  return code;
}

/** awk options that change only how the program is read: POSIX or traditional mode, bytes, intervals, a sandbox. */
const AWK_PLAIN = new Set([
  "-b",
  "--characters-as-bytes",
  "-c",
  "--traditional",
  "-P",
  "--posix",
  "-r",
  "--re-interval",
  "-S",
  "--sandbox",
  "-N",
  "--use-lc-numeric",
  "-M",
  "--bignum",
]);

/** Names that hold no secret: where things are, who runs, how the terminal looks, the shell's own counters. */
const PLAIN_VARIABLES = new Set([
  "HOME",
  "PWD",
  "OLDPWD",
  "USER",
  "LOGNAME",
  "SHELL",
  "PATH",
  "LANG",
  "LANGUAGE",
  "TERM",
  "HOSTNAME",
  "HOSTTYPE",
  "OSTYPE",
  "MACHTYPE",
  "TMPDIR",
  "TMP",
  "TEMP",
  "RANDOM",
  "SECONDS",
  "LINENO",
  "UID",
  "EUID",
  "PPID",
  "SHLVL",
  "IFS",
  "COLUMNS",
  "LINES",
  "EDITOR",
  "VISUAL",
  "PAGER",
  "BASH_VERSION",
  "BASH_SOURCE",
  "FUNCNAME",
  "PIPESTATUS",
  "REPLY",
  "OPTARG",
  "OPTIND",
  "CI",
  "NODE_ENV",
]);
const PLAIN_PREFIXES = /^(?:LC_|XDG_|BASH_|GIT_AUTHOR_|GIT_COMMITTER_)/;
/** An argument that names a file: a path, or a name with an extension. */
const FILE_LIKE = /\/|^[^=]*\.[A-Za-z][A-Za-z0-9]{0,7}$/;

/**
 * The paths a word may name: itself, or in code text (`exec(open('/root/proj/x.py').read())`) the
 * quoted strings that hold a `/`.
 */
function pathLiterals(word: string | undefined): string[] {
  if (word === undefined) return [];
  if (!/[\s'"()]/.test(word)) return [word];
  return word.split(/[\s'"(),;]+/).filter((part) => part.includes("/"));
}

/** Build files named without an extension. */
const NAMED_FILES =
  /^(?:[Mm]akefile|GNUmakefile|Dockerfile|Containerfile|[Jj]ustfile|Taskfile|Rakefile|Gemfile|Vagrantfile|Jenkinsfile|Procfile|Earthfile|BUILD|WORKSPACE)$/;

/** A path a program is given (not a bare word): `~/proj`, `../app`, `tests/`, `Makefile.ci`, `x.sh`. */
const POINTED_PATH = /^(?:~|\.{1,2}(?:\/|$)|\/)|\/|\.[A-Za-z][A-Za-z0-9]{0,7}$/;

/** Variables that make a program load (and run) a file before anything else. */
const LOADER_VARIABLES: ReadonlySet<string> = new Set([
  "BASH_ENV",
  "ENV",
  "NODE_OPTIONS",
  "PYTHONSTARTUP",
  "PYTHONPATH",
  "PERL5OPT",
  "PERL5LIB",
  "RUBYOPT",
  "RUBYLIB",
  "NODE_PATH",
]);

/** Commands that start a container, and the flags that mount a directory of this host into it. */
const CONTAINER_RUNS = /^(?:docker|podman|nerdctl)(?: container)? (?:run|create)$|^(?:docker|podman)(?:-compose| compose) run$/;
const MOUNT_FLAG = /^(?:-v|--volume|--mount)(?:=|$)|^-v./;

/** A path's text with `$HOME` or `${HOME}` at its start read as `~` (make -C $HOME/proj). */
function homeOf(text: string): string {
  return text.replace(/^\$(?:HOME|\{HOME\})(?=\/|$)/, "~");
}

/** A word's text, with `$HOME` or `${HOME}` at its start read as `~`; undefined for any other word only known at run time. */
function homeText(w: Word | undefined): string | undefined {
  if (w === undefined) return undefined;
  if (!w.dynamic) return w.text;
  const m = /^"?\$(?:HOME|\{HOME\})(\/[^"$`]*)?"?$/.exec(w.raw);
  return m ? `~${m[1] ?? ""}` : undefined;
}

/** Database shells whose scripts may run shell commands (`\!`); sqlite3 and duckdb are `CALCULATORS`. */
const DB_SHELLS: ReadonlySet<string> = new Set(["mysql", "mariadb"]);

/** A versioned Python interpreter's name. */
const VERSIONED_PYTHON = /^(?:python|pypy)\d+(?:\.\d+)?$/;

/** Interpreters of expressions that load no code from the files around them. */
const CALCULATORS: ReadonlySet<string> = new Set(["sqlite3", "duckdb", "bc", "dc"]);

/** Python modules that run a project's tests or documents (`python -m pytest`): its text documents count as code. */
const DOC_MODULES: ReadonlySet<string> = new Set(["pytest", "doctest", "xdoctest", "sphinx", "tox", "nox", "hatch", "coverage"]);

/** Program kinds whose output may come from somewhere other than the files where they run. */
const NOT_LOCAL: ReadonlySet<ProgramKind> = new Set<ProgramKind>(["network", "install", "interpreter", "dynamic", "system", "privilege"]);
/** A program installed into an environment in the working directory: a virtual environment's bin, node_modules/.bin. */
const ENVIRONMENT_BIN = /^(?:\.\/)?(?:(?:\.venv|venv|\.virtualenv)\/bin|node_modules\/\.bin)\/[^/]+$/;
/** A program file inside the working tree (`./gradlew`, `scripts/test.sh`): the tree's own code. */
const TREE_PROGRAM = /^(?!\/|~)(?!.*(?:^|\/)\.\.(?:\/|$))/;

/** A word made up for arguments only known at run time (xargs input, find's `{}`). */
const RUNTIME_WORD: Word = { raw: "", text: "", quoted: false, dynamic: true, glob: false, scripts: [] };

function literalWord(text: string): Word {
  return { raw: text, text, quoted: false, dynamic: false, glob: false, scripts: [] };
}

/**
 * The directory a pattern's names stay below: the names before the first one the shell expands
 * (`src/*.ts` is `src`, `*.md` is `.`, `~/notes/*` is `~/notes`). Undefined when the expansion can
 * leave it or is not over names: another user's home (`~user`), a `~` or `..` from that name on, a
 * brace alternative that starts an absolute path (`{a,/etc}`), or a name that can match `..` itself
 * (`.*` and `.?` do: a leading dot matched explicitly, then a pattern that takes the second dot;
 * a bracket at a name's start is taken to as well).
 */
export function globRoot(text: string): string | undefined {
  const names = text.split("/");
  const first = names.findIndex((name) => /[*?[{]/.test(name));
  if (first === -1) return undefined;
  if (names[0].startsWith("~") && names[0] !== "~") return undefined;
  const rest = names.slice(first).join("/");
  if (rest.includes("..") || rest.includes("~")) return undefined;
  const alternatives = braceAlternatives(rest);
  if (!alternatives) return undefined;
  for (const alternative of alternatives) {
    if (alternative.startsWith("/") || alternative.includes("..")) return undefined;
    for (const name of alternative.split("/")) {
      if (name.startsWith("[") || (name.startsWith(".") && /[*?[]/.test(name[1] ?? ""))) return undefined;
    }
  }
  if (first === 0) return ".";
  return names.slice(0, first).join("/") || "/";
}

/**
 * A pattern's names below its root (`globRoot`), one list per brace alternative: `notes/*.md` is
 * `[["*.md"]]`, `src/{a,b}/*.ts` is `[["a", "*.ts"], ["b", "*.ts"]]`. Undefined when it has none.
 */
export function globNames(text: string): string[][] | undefined {
  const names = text.split("/");
  const first = names.findIndex((name) => /[*?[{]/.test(name));
  if (first === -1) return undefined;
  return braceAlternatives(names.slice(first).join("/"))?.map((alternative) => alternative.split("/").filter((name) => name !== ""));
}

/** find tests and options without a value that only choose among the entries. */
const FIND_LISTING_WORDS: ReadonlySet<string> = new Set([
  "-empty",
  "-xdev",
  "-mount",
  "-readable",
  "-writable",
  "-executable",
  "-nouser",
  "-nogroup",
  "-true",
  "-a",
  "-and",
  "-depth",
  "-P",
]);

/**
 * The starting points of a `find` that prints only regular files, NUL-separated, and does nothing
 * else: `find ROOTS [tests] -type f [tests] -print0`, every test ANDed, no link followed (a link is
 * type l, so none is printed). Anything else prints names ClawOS does not bound.
 */
function filesListed(command: Command): readonly Word[] | undefined {
  if (command.kind !== "simple" || command.assignments.length > 0 || command.redirects.length > 0) return undefined;
  const words = command.words;
  if (words[0]?.dynamic !== false || words[0].text !== "find") return undefined;
  let i = 1;
  const roots: Word[] = [];
  while (i < words.length && !/^[-(!),]/.test(words[i].text)) {
    if (words[i].dynamic || words[i].glob) return undefined;
    roots.push(words[i++]);
  }
  let filesOnly = false;
  let print0 = false;
  for (; i < words.length; i++) {
    const w = words[i];
    if (w.dynamic) return undefined;
    if (print0) return undefined;
    if (w.text === "-print0") print0 = true;
    else if (FIND_LISTING_TESTS.has(w.text)) {
      const value = words[++i];
      if (!value || value.dynamic) return undefined;
      if (w.text === "-type" && value.text === "f") filesOnly = true;
    } else if (!FIND_LISTING_WORDS.has(w.text)) return undefined;
  }
  return filesOnly && print0 ? (roots.length ? roots : [literalWord(".")]) : undefined;
}

/** xargs given only -0 (or --null) and flags that change how many names go to each run. */
function nulSeparatedOnly(flags: readonly Word[]): boolean {
  let nul = false;
  for (let k = 0; k < flags.length; k++) {
    const t = flags[k].text;
    if (t === "-0" || t === "--null") nul = true;
    else if (t === "-r" || t === "--no-run-if-empty" || t === "-x" || t === "--exit" || t === "--") continue;
    else if (/^-[nPs]$/.test(t) && /^\d+$/.test(flags[k + 1]?.text ?? "")) k++;
    else if (/^(?:-[nPs]\d+|--(?:max-args|max-procs|max-chars)=\d+)$/.test(t)) continue;
    else return false;
  }
  return nul;
}

/** An output format that names a template file (`-o go-template-file=x.tmpl`). */
const OUTPUT_FORMAT_FILE = /^(?:go-template|jsonpath|template)-file=(.+)$/;

/** A jq module directive: `import "path" as name;` or `include "path";`, at the start or after a `;`. */
const JQ_IMPORT = /(?:^|[;\s])(?:import|include)\s*"/;

/** An IPv4 or IPv6 address, maybe with a port or a prefix length: nothing to look up. */
const ADDRESS_LITERAL = /^(?:\d{1,3}(?:\.\d{1,3}){3}|\[?[0-9a-f:.]*:[0-9a-f:.]*\]?|\*)$/i;

/**
 * The first host an argument names by its name (`-i TCP@db.example.com:5432`, `@x.example`,
 * `dst x.example`), or one only known at run time; addresses and ports name none.
 */
function hostNamed(args: readonly Word[]): { word: string; host?: string } | undefined {
  for (let i = 0; i < args.length; i++) {
    const word = args[i];
    const after = i > 0 ? args[i - 1].text.toLowerCase() : "";
    const at = word.text.indexOf("@");
    if (at === -1 && after !== "dst" && after !== "src") continue;
    if (word.dynamic) return { word: word.raw };
    let host = at === -1 ? word.text : word.text.slice(at + 1);
    // A port or a range after the host (db.example:5432, [::1]:80, host:ssh).
    if (host.startsWith("[")) host = host.slice(0, host.indexOf("]") + 1) || host;
    else if (host.indexOf(":") === host.lastIndexOf(":")) host = host.replace(/:[^:]*$/, "");
    host = host.replace(/\/\d+$/, "");
    if (host === "" || host.toLowerCase() === "localhost" || ADDRESS_LITERAL.test(host)) continue;
    return { word: word.text, host };
  }
  return undefined;
}

export function joinPath(dir: string, path: string): string {
  if (!dir || dir === ".") return path;
  if (path.startsWith("/") || path.startsWith("~")) return path;
  if (path === "." || path === "./") return dir;
  const rest = path.startsWith("./") ? path.slice(2) : path;
  return dir.endsWith("/") ? `${dir}${rest}` : `${dir}/${rest}`;
}

function has(list: readonly string[] | undefined, value: string): boolean {
  return list?.includes(value) === true;
}

class Walker {
  private readonly rules: CompiledCommandRules;
  private readOnly = true;
  private network = false;
  /** Cleared by a program whose output may come from elsewhere (see CommandView.local). */
  private local = true;
  private runsTree = false;
  private runsDocs = false;
  private runsInput = false;
  private readonly codeFiles: string[] = [];
  private readonly treeDirs: string[] = [];
  private runsCwd = false;
  private unknownReads = false;
  // Short lists: arrays with a membership test are cheaper than sets at these sizes.
  private readonly reads: string[] = [];
  /** Reads by programs other than listers (see CommandView.listings). */
  private readonly contents: string[] = [];
  /** The program being read shows only names and metadata (its behaviour's `listsOnly`). */
  private lister = false;
  /** A read program's pattern operands whose names stay below one directory (`src/*.ts`): each is read as that directory. */
  private patterns: Set<Word> | undefined;
  private readonly patternsRead = new Set<Word>();
  private readonly links: LinkScan[] = [];
  private readonly writes: string[] = [];
  private readonly copies: CopyFact[] = [];
  private readonly fetches: string[] = [];
  private readonly installs: string[] = [];
  private readonly inPlace: string[] = [];
  private readonly irreversible: string[] = [];
  private readonly irreversibleActions: { id: string; action: string }[] = [];
  private readonly secrets: string[] = [];
  private readonly programs: string[] = [];
  /** See CommandView.printsOwnWords. */
  private printsOwnWords = false;
  private readonly why: string[] = [];
  private readonly matched: CommandRuleMatch[] = [];
  private external = false;
  /** Inside a remote read (see CommandView.remoteRead): what is not read-only there is the remote host's. */
  private remoteDepth = 0;
  /** Loop variables and the words they take (`bindLoop`). */
  private readonly loopWords = new Map<string, readonly Word[]>();
  /** A function was defined: it may set any variable where it is called. */
  private functionsDefined = false;
  /** Nothing but remote reads kept the command from being read-only. */
  private onlyRemoteReads = true;
  /** Something inside the current remote read was not read-only. */
  private remoteActs = false;
  private remoteReads = 0;
  /** Remote reads that printed only the other host's facts (see CommandView.remoteFacts). */
  private remoteFactReads = 0;
  /** Files read on another host (they are not this host's paths, so only counted). */
  private remoteFiles = 0;
  /** Programs run on another host that print more than its facts (see `behave`). */
  private remoteOthers = 0;
  private readonly destinations: string[] = [];
  /** Service actions (see CommandView.serviceAction), and what they name. */
  private serviceActs = 0;
  private readonly services: string[] = [];
  private readonly serviceScopes: string[] = [];
  private readonly serviceKinds: ("systemd" | "docker" | "kubernetes")[] = [];
  private readonly serviceVerbs: { verb: string; alsoBy: readonly string[] }[] = [];
  /** Checks of the project (see CommandView.projectCheck). */
  private checkRuns = 0;
  /** Records in the local repository (see CommandView.localRecord), and the repository paths they write. */
  private recordRuns = 0;
  private readonly recordWrites: string[] = [];
  private readonly recordPaths: string[] = [];
  /** Something it starts keeps running after it returns (`&`, nohup, setsid). */
  private detached = false;
  private readonly repositories: string[] = [];
  private readonly madeRepositories: string[] = [];
  private denyRank = -1;
  private allowRank = -1;
  private allowBroken = false;
  private readonly frames: Frame[] = [];

  constructor(rules: CompiledCommandRules) {
    this.rules = rules;
  }

  run(script: Script): void {
    const root = this.begin();
    this.walkScript(script, { cwds: [""], depth: 0, remote: false });
    this.end(root);
  }

  facts(): CommandView {
    const allowAt = !this.readOnly && !this.allowBroken && this.allowRank >= 0 ? TRUST_LEVELS[this.allowRank] : undefined;
    return {
      parsed: true,
      readOnly: this.readOnly,
      reads: this.reads,
      listings: this.contents.length === this.reads.length ? NONE : this.reads.filter((p) => !this.contents.includes(p)),
      links: this.links,
      writes: this.writes,
      copies: this.copies,
      fetches: this.fetches,
      installs: this.installs,
      inPlace: this.inPlace,
      repositories: this.repositories,
      madeRepositories: this.madeRepositories,
      network: this.network,
      external: this.external,
      local: this.local && !this.network && this.fetches.length === 0,
      runsTree: this.runsTree,
      runsDocs: this.runsTree && this.runsDocs,
      runsInput: this.runsInput,
      codeFiles: this.codeFiles,
      treeDirs: this.treeDirs,
      runsCwd: this.runsCwd,
      unknownReads: this.unknownReads,
      secrets: this.secrets,
      // One kind of decidable action at a time: a remote read beside a restart is decided as neither.
      remoteRead: !this.readOnly && this.onlyRemoteReads && this.remoteReads > 0 && this.serviceActs === 0 && this.checkRuns === 0,
      destinations: this.destinations,
      remoteFacts:
        !this.readOnly &&
        this.onlyRemoteReads &&
        this.remoteReads > 0 &&
        this.serviceActs === 0 &&
        this.checkRuns === 0 &&
        this.remoteFactReads === this.remoteReads,
      serviceAction: !this.readOnly && this.onlyRemoteReads && this.serviceActs > 0 && this.remoteReads === 0 && this.checkRuns === 0,
      services: this.services,
      serviceScopes: this.serviceScopes,
      serviceKinds: this.serviceKinds,
      serviceVerbs: this.serviceVerbs,
      projectCheck: this.projectCheck(),
      localRecord: this.localRecord(),
      recordPaths: this.recordPaths,
      irreversible: this.irreversible,
      irreversibleActions: this.irreversibleActions,
      programs: this.programs,
      printsOwnWords: this.printsOwnWords,
      why: this.why,
      rules: this.matched,
      ...(allowAt ? { allowAt } : {}),
      ...(this.denyRank >= 0 ? { denyAt: TRUST_LEVELS[this.denyRank] } : {}),
    };
  }

  /** See CommandView.projectCheck: only checks beside reads, and nothing that writes, downloads or runs other code. */
  private projectCheck(): boolean {
    return this.checkRuns > 0 && this.nothingBeyond(NONE);
  }

  /** See CommandView.localRecord: only records beside reads, and nothing that writes elsewhere, downloads or runs other code. */
  private localRecord(): boolean {
    return this.recordRuns > 0 && this.checkRuns === 0 && !this.runsTree && this.nothingBeyond(this.recordWrites);
  }

  /**
   * Not read-only, but nothing beyond reads and the acts a check or a record makes: no write but to
   * `writes`, no copy, download, install, code file or input it runs, no path known only at run
   * time, secret or irreversible action, nothing on another host, and nothing left running.
   */
  private nothingBeyond(writes: readonly string[]): boolean {
    return (
      !this.readOnly &&
      this.onlyRemoteReads &&
      !this.detached &&
      !this.programs.some((name) => DETACHING.has(name)) &&
      this.remoteReads === 0 &&
      this.serviceActs === 0 &&
      this.writes.every((path) => writes.includes(path)) &&
      this.copies.length === 0 &&
      this.fetches.length === 0 &&
      this.installs.length === 0 &&
      this.codeFiles.length === 0 &&
      !this.runsInput &&
      !this.unknownReads &&
      this.secrets.length === 0 &&
      this.irreversible.length === 0
    );
  }

  // ---- facts ------------------------------------------------------------------------------------

  private notReadOnly(reason: string): void {
    if (this.remoteDepth === 0) this.onlyRemoteReads = false;
    else this.remoteActs = true;
    this.remoteOnly(reason);
  }

  /** Not read-only only because it checks the project (see CommandView.projectCheck). */
  private checkOnly(reason: string): void {
    this.checkRuns++;
    this.remoteOnly(reason);
  }

  /** Not read-only only because it records in the local repository (see CommandView.localRecord). */
  private recordOnly(reason: string): void {
    this.recordRuns++;
    this.remoteOnly(reason);
  }

  /** Not read-only here, but nothing beyond the remote read it is part of (see `remoteRead`). */
  private remoteOnly(reason: string): void {
    this.readOnly = false;
    add(this.why, reason);
    const frame = this.frames[this.frames.length - 1];
    if (frame) frame.readOnly = false;
  }

  private reaches(reason: string): void {
    this.network = true;
    this.notReadOnly(reason);
  }

  private paths(ctx: Context, path: string, base = ""): string[] {
    const p = joinPath(base, path);
    return ctx.cwds.map((cwd) => joinPath(cwd, p) || ".");
  }

  private read(ctx: Context, path: string, base = ""): void {
    // Another host's files are not checked against this host's path rules: a secret-looking one is not a plain read.
    if (ctx.remote && REMOTE_SECRET.test(path)) this.notReadOnly(`reads ${path} on the remote host, which may hold secrets`);
    if (ctx.remote) this.remoteFiles++;
    if (ctx.elevated && !ctx.remote) {
      for (const p of path ? this.paths(ctx, path, base) : [""]) {
        if (!elevatedReadable(p)) this.notReadOnly(`reads ${path || "a file named at run time"} as root (sudo), outside /var/log`);
      }
    }
    this.processPath(path);
    if (!ctx.remote && (path === "" || RUNTIME_PATH.test(path))) this.unknownReads = true;
    if (ctx.remote || !path || path === "-" || HARMLESS_TARGETS.test(path)) return;
    for (const p of this.paths(ctx, path, base)) {
      add(this.reads, p);
      if (!this.lister) add(this.contents, p);
    }
  }

  /**
   * A pattern's names are expanded from `root` (`pattern` given), or the program follows every
   * symlink below `root` (none given): what a link there points to is read (see CommandView.links).
   */
  private followLinks(ctx: Context, root: string, pattern: string | undefined, base: string): void {
    if (ctx.remote || this.lister || !root || root === "-") return;
    const names = pattern !== undefined ? globNames(pattern) : undefined;
    if (pattern !== undefined && !names) return;
    for (const p of this.paths(ctx, root, base)) {
      const known = this.links.findIndex((l) => l.path === p);
      // Following every link below a directory covers a pattern's links there.
      if (known === -1) this.links.push(names ? { path: p, names } : { path: p });
      else if (!names) this.links[known] = { path: p };
    }
  }

  /** A network device (/dev/tcp/host/port) connects; a process's own view of paths leads where ClawOS cannot tell. */
  private processPath(path: string): void {
    if (NETWORK_DEVICE.test(path)) this.reaches(`${path} opens a network connection`);
    else if (PROCESS_VIEW.test(path)) this.notReadOnly(`${path} is a path as the command's own process sees it, which ClawOS cannot resolve`);
  }

  private write(ctx: Context, path: string, base = ""): void {
    this.processPath(path);
    if (ctx.remote || !path || path === "-" || HARMLESS_TARGETS.test(path)) return;
    for (const p of this.paths(ctx, path, base)) add(this.writes, p);
  }

  /** A copy of `from` lands at `to` (see CommandView.copies); both are recorded as read and written by the caller. */
  private copy(ctx: Context, from: string, to: string, base: string, how: { into?: boolean; contents?: boolean }): void {
    if (ctx.remote || !from || !to || from === "-" || to === "-") return;
    const froms = this.paths(ctx, from, base);
    const tos = this.paths(ctx, to, base);
    const into = how.into === true || to.endsWith("/");
    for (let i = 0; i < froms.length; i++) {
      this.copies.push({ from: froms[i], to: tos[i], ...(into ? { into } : {}), ...(how.contents ? { contents: true } : {}) });
    }
  }

  /** Git runs in `path`: the repository it finds from there (and its settings) decide what it runs. */
  private repository(ctx: Context, path: string, base = ""): void {
    if (ctx.remote) return;
    for (const p of this.paths(ctx, path, base)) add(this.repositories, p);
  }

  private fetch(ctx: Context, path: string, base = "", install = false): void {
    if (ctx.remote || !path || path === "-") return;
    for (const p of this.paths(ctx, path, base)) {
      add(this.fetches, p);
      if (install) add(this.installs, p);
    }
  }

  /**
   * An interpreter or a shell runs code of the tree it starts in: a script file, a module
   * (`python -m pytest`), or text that imports or sources files there (`python -c 'import app'`,
   * `node -e 'require("./x")'`). What it runs is as trusted as the files written there and in the
   * script's own directory (`script`, as written), as for a build.
   */
  private runsCode(ctx: Context, script?: string, base = ""): void {
    this.runsTree = true;
    if (ctx.remote) return;
    const dir = script === undefined || !script.includes("/") ? "." : script.slice(0, script.lastIndexOf("/")) || "/";
    // Where an earlier cd put the command counts too (`cd ~/proj/scripts && bash setup.sh`).
    for (const p of this.paths(ctx, dir, base)) this.treeDir(p);
  }

  /** A directory whose code the command runs: the working directory, or one it names (`treeDirs`). */
  private treeDir(p: string): void {
    if (p === ".") this.runsCwd = true;
    else if (!this.treeDirs.includes(p)) this.treeDirs.push(p);
  }

  /** A file whose content the command runs: read, and counted as code whatever its name. */
  private code(ctx: Context, path: string, base = ""): void {
    this.read(ctx, path, base);
    if (ctx.remote || !path || path === "-") return;
    for (const p of this.paths(ctx, path, base)) add(this.codeFiles, p);
  }

  /**
   * A program that runs a tree's code is pointed at another tree by a path it is given (`pytest
   * ~/proj/tests`, `make -f ~/proj/Makefile`, `cargo test --manifest-path ~/proj/Cargo.toml`,
   * `at -f ~/proj/x.sh`): a file's directory is a tree it runs, and a directory is, with the one
   * above it (pytest ~/proj/tests loads ~/proj/conftest.py) unless that is the home or the root.
   * With `files`, a file it is given by a flag is code itself whatever its name (make -f rules.txt);
   * otherwise it may be data (a script's argument), and only its directory counts.
   */
  private pointedTrees(ctx: Context, words: readonly (string | undefined)[], base: string, files = false): void {
    if (ctx.remote) return;
    for (const w of words.flatMap(pathLiterals)) {
      if (w.startsWith("-") || w.includes("://") || !POINTED_PATH.test(w)) continue;
      const trimmed = w.replace(/(.)\/+$/, "$1");
      const last = trimmed.split("/").pop() ?? "";
      const file = !w.endsWith("/") && (/\.[A-Za-z0-9.]+$/.test(last) || NAMED_FILES.test(last));
      if (file && files) this.code(ctx, w, base);
      const above = trimmed.includes("/") ? trimmed.slice(0, trimmed.lastIndexOf("/")) || "/" : ".";
      const dirs = file ? [above] : ["~", "/", ".", ".."].includes(above) ? [trimmed] : [trimmed, above];
      for (const d of dirs) for (const p of this.paths(ctx, d, base)) this.treeDir(p);
    }
  }

  /**
   * The arguments a script is given that name files (`data/in.csv`, `/var/log/app.log`): it may
   * print what they hold, so they count as read.
   */
  private scriptArguments(ctx: Context, args: readonly Word[], base: string): void {
    for (const w of args) if (!w.dynamic && !w.text.startsWith("-") && !w.text.includes("://") && FILE_LIKE.test(w.text)) this.read(ctx, w.text, base);
  }

  /**
   * A variable that makes a program load a file first (`BASH_ENV=x.sh`, `NODE_OPTIONS='--require
   * ./hook.js'`, `PYTHONSTARTUP`): the files it names are code the command runs.
   */
  private loads(ctx: Context, value: string): void {
    this.runsCode(ctx);
    this.runsInput = true;
    for (const word of value.split(/\s+/)) {
      const path = word.includes("=") ? word.slice(word.indexOf("=") + 1) : word;
      if (path && !path.startsWith("-") && POINTED_PATH.test(path)) this.pointedTrees(ctx, [path], "", true);
    }
  }

  private begin(): Frame {
    const frame: Frame = { readOnly: true };
    this.frames.push(frame);
    return frame;
  }

  private end(frame: Frame): void {
    this.frames.pop();
    if (frame.readOnly) return;
    if (frame.allowRank === undefined) this.allowBroken = true;
    else this.allowRank = Math.max(this.allowRank, frame.allowRank);
  }

  /** Matches rules against an argv; allow rules count only for the part the frame stands for. */
  private match(argv: readonly string[], allow: boolean): void {
    const hits = matchCommandRules(this.rules, argv);
    if (hits.length === 0) return;
    const frame = this.frames[this.frames.length - 1];
    for (const rule of hits) this.record(rule, allow, frame);
  }

  private record(rule: CompiledCommandRule, allow: boolean, frame: Frame | undefined): void {
    if (rule.irreversible) {
      add(this.irreversible, rule.irreversible);
      const id = rule.id.replace(/^builtin\./, "");
      if (!this.irreversibleActions.some((a) => a.id === id)) this.irreversibleActions.push({ id, action: rule.irreversible });
    }
    if (!rule.effect) return;
    if (rule.effect === "allow" && !allow) return;
    if (!this.matched.some((m) => m.id === rule.id)) this.matched.push({ id: rule.id, effect: rule.effect, trust: rule.trust });
    if (rule.effect === "deny") this.denyRank = Math.max(this.denyRank, trustRank(rule.trust));
    else if (frame && frame.allowRank === undefined) frame.allowRank = trustRank(rule.trust);
  }

  // ---- scripts and commands ---------------------------------------------------------------------

  private walkScript(script: Script, ctx: Context): void {
    let fallback: readonly string[] | undefined;
    for (const pipeline of script.pipelines) {
      const before = ctx.cwds;
      // A background job outlives the command that started it (see CommandView.projectCheck).
      if (pipeline.next === "&") this.detached = true;
      if (pipeline.commands.length > 1 || pipeline.next === "&") {
        // Each part of a pipeline, and a background job, runs in a subshell.
        pipeline.commands.forEach((command, k) => {
          const listed = k > 0 ? filesListed(pipeline.commands[k - 1]) : undefined;
          const { listed: _outer, ...own } = ctx;
          this.walkCommand(command, listed ? { ...own, listed } : own);
        });
      } else {
        this.walkCommand(pipeline.commands[0], ctx);
      }
      if (ctx.cwds !== before) {
        // A cd: it may fail, and then what follows runs where it was, unless && stops it.
        if (pipeline.next === "&&") fallback = union(fallback ?? [], before);
        else ctx.cwds = union(ctx.cwds, before);
      }
      if (pipeline.next !== "&&" && fallback) {
        ctx.cwds = union(ctx.cwds, fallback);
        fallback = undefined;
      }
      if (ctx.cwds.length > MAX_CWDS) {
        this.notReadOnly("the working directory changes too often to follow");
        ctx.cwds = ctx.cwds.slice(0, MAX_CWDS);
      }
    }
    if (fallback) ctx.cwds = union(ctx.cwds, fallback);
  }

  private walkCommand(command: Command, ctx: Context): void {
    if (command.kind === "simple") {
      this.walkSimple(command, ctx);
      return;
    }
    for (const word of command.words) this.walkWord(word, ctx);
    switch (command.keyword) {
      case "(":
      case "function":
        // A function can set any variable wherever it is called: loops bind nothing once one is defined.
        if (command.keyword === "function") {
          this.functionsDefined = true;
          this.loopWords.clear();
        }
        for (const body of command.bodies) this.walkScript(body, { ...ctx });
        break;
      case "((":
        for (const body of command.bodies) this.walkScript(body, { ...ctx });
        if (command.text !== undefined && ARITHMETIC_NAMES.test(command.text)) {
          this.notReadOnly("an arithmetic command evaluates variables, which can run commands");
        }
        break;
      case "[[":
        if (command.words.some((w) => /^-(eq|ne|lt|le|gt|ge)$/.test(w.text))) {
          this.notReadOnly("an arithmetic test evaluates variables, which can run commands");
        }
        this.checkNames("[[", namesAfter(command.words, ["-v", "-R"]));
        break;
      default:
        if (command.keyword === "for") this.bindLoop(command);
        for (const body of command.bodies) this.walkScript(body, ctx);
    }
    if (command.keyword === "((") this.loopWords.clear();
    this.walkRedirects(command.redirects, ctx);
  }

  /**
   * `for f in src/*.ts a.txt; do head "$f"; done`: the loop variable takes only the words listed,
   * so a command that names it (`"$f"`, `$f`, `${f}`) names one of them. Kept while nothing else
   * can set the variable; a loop over anything only known at run time binds nothing.
   */
  private bindLoop(command: { readonly words: readonly Word[]; readonly text?: string }): void {
    const name = command.text;
    if (!name || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return;
    // The loop sets the variable for what follows, as an assignment does (for HOME in ..., for PATH in ...).
    if (!/[a-z]/.test(name) && !this.rules.safeEnvironment(name)) this.notReadOnly(`for ${name} sets ${name}, which can change how later commands run`);
    const plain =
      !this.functionsDefined &&
      command.words.length > 0 &&
      command.words.length <= MAX_LOOP_WORDS &&
      command.words.every((w) => !w.dynamic && !w.process && w.scripts.length === 0 && w.text !== "");
    if (plain) this.loopWords.set(name, command.words);
    else this.loopWords.delete(name);
  }

  /**
   * A command's words with each reference to a bound loop variable replaced by the words it takes:
   * quoted (`"$f"`), as any of them; bare (`$f`) only when none of them can split or expand.
   */
  private expandLoops(words: readonly Word[]): readonly Word[] {
    if (this.loopWords.size === 0 || !words.some((w) => w.dynamic)) return words;
    const out: Word[] = [];
    for (const w of words) {
      const m = w.dynamic ? LOOP_REFERENCE.exec(w.raw) : null;
      const name = m ? (m[2] ?? m[3] ?? m[4] ?? m[5]) : undefined;
      const bound = name !== undefined ? this.loopWords.get(name) : undefined;
      // Quoted, the value is one word; bare, the shell splits and globs it.
      const quoted = m?.[1] !== undefined;
      if (bound && (quoted || bound.every((b) => !b.glob && !/[\s*?[\]{}~]/.test(b.text)))) out.push(...bound);
      else out.push(w);
    }
    return out;
  }

  private walkWord(word: Word, ctx: Context): void {
    if (this.loopWords.size > 0 && word.dynamic) {
      for (const m of word.raw.matchAll(ASSIGNING_EXPANSION)) this.loopWords.delete(m[1] ?? m[2] ?? "");
    }
    if (word.dynamic && !ctx.remote) for (const name of secretVariables(word.raw)) add(this.secrets, `$${name}`);
    if (word.dynamic && ctx.remote && secretVariables(word.raw).length > 0) this.notReadOnly(`${word.raw} prints a remote variable that may hold a key`);
    for (const script of word.scripts) this.walkScript(script, { ...ctx });
    if (word.arithmetic) this.notReadOnly(`${word.raw} evaluates what a variable holds (as arithmetic or as a prompt), which can run commands`);
  }

  private walkRedirects(redirects: readonly Redirect[], ctx: Context): void {
    for (const r of redirects) {
      if (r.heredoc) {
        this.printsOwnWords = true;
        for (const script of r.heredoc.scripts) this.walkScript(script, { ...ctx });
        if (r.heredoc.arithmetic) this.notReadOnly("a here-document evaluates variables as arithmetic, which can run commands");
        continue;
      }
      const target = r.target;
      if (!target) continue;
      this.walkWord(target, ctx);
      if (r.op === "<<<") this.printsOwnWords = true;
      if (r.op === "<<<" || target.process) continue;
      if ((r.op === ">&" || r.op === "<&") && /^(\d+-?|-)$/.test(target.text)) continue;
      if (r.op === "<" || r.op === "<&") {
        if (target.dynamic || target.glob) this.notReadOnly(`redirection reads ${target.raw}, a path only known at run time`);
        this.read(ctx, target.dynamic ? target.raw : target.text);
        continue;
      }
      const path = target.dynamic ? target.raw : target.text;
      if (r.op === "<>") this.read(ctx, path);
      if (!target.dynamic && HARMLESS_TARGETS.test(path)) continue;
      this.write(ctx, path);
      this.notReadOnly(target.dynamic ? `redirection writes ${path}, a path only known at run time` : `redirection writes ${path}`);
    }
  }

  private walkSimple(command: SimpleCommand, ctx: Context): void {
    const frame = this.begin();
    for (const word of command.assignments) this.walkWord(word, ctx);
    for (const word of command.words) this.walkWord(word, ctx);
    const program = command.words[0]?.text;
    // A loop's binding lasts to its done: past it, the variable may hold anything (the loop may
    // not have run, or ran in a subshell).
    if (command.ends === "done") this.loopWords.clear();
    // Anything that may set a variable ends what a loop bound.
    if (this.loopWords.size > 0) {
      if (program !== undefined && VARIABLE_SETTERS.has(program)) this.loopWords.clear();
      for (const assignment of command.assignments) this.loopWords.delete(ASSIGNMENT_NAME.exec(assignment.raw)?.[0] ?? "");
    }
    for (const assignment of command.assignments) {
      const name = ASSIGNMENT_NAME.exec(assignment.raw)?.[0] ?? assignment.raw;
      if (LOADER_VARIABLES.has(name)) this.loads(ctx, assignment.text.slice(assignment.text.indexOf("=") + 1));
      if (program === undefined) {
        // A shell variable: it reaches later commands only if it was exported already.
        if (!/[a-z]/.test(name) && !this.rules.safeEnvironment(name)) this.notReadOnly(`setting ${name} can change how later commands run`);
      } else if (!this.rules.safeEnvironment(name) && !PLAIN_PAGER.test(assignment.raw)) {
        this.notReadOnly(`setting ${name} can change how ${program} runs`);
      }
    }
    this.walkRedirects(command.redirects, ctx);
    if (command.words.length > 0) this.runArgv(this.expandLoops(command.words), ctx);
    this.end(frame);
  }

  // ---- programs ---------------------------------------------------------------------------------

  private runArgv(words: readonly Word[], ctx: Context): void {
    // A pattern expands to the names in its directory whatever the program does with them
    // (`echo notes/*`, `basename -a ~/Downloads/*`): those names are read, as a listing is.
    if (!ctx.remote) {
      for (const w of words) {
        if (!w.glob || w.dynamic) continue;
        // A brace expansion with a part that starts with `-` hands the program a flag: sort {-o,x}.
        if (w.text.includes("{") && /[{,]-/.test(w.text)) this.notReadOnly(`${w.raw} expands into a flag`);
        const root = globRoot(w.text);
        if (root !== undefined) for (const p of this.paths(ctx, root)) add(this.reads, p);
      }
    }
    const first = words[0];
    if (first.dynamic) {
      this.local = false;
      this.notReadOnly(`the program ${first.raw} is only known at run time`);
      return;
    }
    let name = first.text;
    if (name.includes("/")) {
      // A program of the system is the program it names. So is a build, test or install program of
      // an environment inside the working tree (`.venv/bin/pytest`, `node_modules/.bin/jest`): it runs
      // the tree, whose files (the environment's included) are checked as its code. Any other
      // program there (one named like a reader: `.venv/bin/ls`) is a program file.
      const base = name.slice(name.lastIndexOf("/") + 1);
      const kind = ENVIRONMENT_BIN.test(name) ? this.rules.programs.get(base)?.spec.kind : undefined;
      if (SYSTEM_BIN.test(name) || kind === "build" || kind === "install" || kind === "interpreter") name = base;
      else {
        if (!ctx.remote) add(this.programs, name);
        if (!TREE_PROGRAM.test(name)) this.local = false;
        // A program file runs its own directory's code, wherever it is (`~/proj/scripts/x.sh`, `../app/run`).
        this.runsCode(ctx, name);
        this.match(texts(words), true);
        this.notReadOnly(`${name} is a program file, not a program ClawOS knows`);
        return;
      }
    }
    if (!ctx.remote) add(this.programs, name);
    // A database shell runs what it reads (mysql's \! runs shell commands here).
    if (DB_SHELLS.has(name)) this.runsInput = true;
    // A versioned interpreter (python3.12, pypy3.10) is the interpreter.
    const entry = this.rules.programs.get(name) ?? (VERSIONED_PYTHON.test(name) ? this.rules.programs.get("python3") : undefined);
    const args = words.slice(1);
    if (!this.printsOwnWords && !printsOnlyFiles(entry?.spec.printsFiles, args)) this.printsOwnWords = true;
    if (!entry) {
      this.local = false;
      this.match([name, ...texts(args)], true);
      this.notReadOnly(`unknown program ${name}`);
      // What it runs may be the tree's code (a task runner, a doc builder, a notebook runner), the
      // code at a path it is given (`run-parts ~/proj/scripts`), or what it reads (`parallel < cmds`).
      this.runsCode(ctx);
      this.runsInput = true;
      this.pointedTrees(
        ctx,
        args.map((w) => {
          const text = homeText(w);
          return text?.includes("=") ? text.slice(text.indexOf("=") + 1) : text;
        }),
        "",
      );
      return;
    }
    const spec = entry.spec;
    if (!ctx.remote && disclosesEnvironment(name, args)) add(this.secrets, ENVIRONMENT);
    if (ctx.remote && disclosesEnvironment(name, args)) this.notReadOnly(`${name} prints the remote host's environment`);
    if (name === "test" || name === "[") this.checkNames(name, namesAfter(args, ["-v", "-R"]));
    else if (name === "unset")
      this.checkNames(
        name,
        args.filter((w) => w.dynamic || !w.text.startsWith("-")),
      );
    // A cloud or container copy that downloads (aws s3 cp s3://b/x notes.md): where it lands is outside content.
    if (!ctx.remote) for (const landing of downloadLandings(name, args)) this.fetch(ctx, landing);
    let patterns: Set<Word> | undefined;
    if (spec.kind === "read" && !spec.inert) {
      // The shell expands a pattern into names before the program sees them: which files, only run time knows.
      // A filter flag with its value (--include=*.ts) can only become that flag again, so it names no file.
      // A plain read program's file operand whose names stay below one directory (`cat src/*.ts`) reads
      // that directory whole; any other pattern is not a read ClawOS can bound.
      // On another host the names cannot be checked against the path rules: only a program that shows names
      // and sizes (du -sh /var/log/app/*) may take a pattern there, and only one below a named directory,
      // so that no name it expands to can become a flag.
      const found = args.filter((w) => w.glob && !filterFlag(spec, w.text));
      const plain = !spec.wrapper && spec.handler === undefined && !spec.subcommands && !spec.noSubcommand && !spec.otherSubcommand;
      const bounded = (w: Word) => {
        const root = globRoot(w.text);
        return root !== undefined && (!ctx.remote || (spec.listsOnly === true && root !== "."));
      };
      const unbounded = found.find((w) => !plain || !bounded(w));
      if (unbounded) this.notReadOnly(`${name} ${unbounded.raw} names files by a pattern expanded at run time`);
      else if (found.length > 0) patterns = new Set(found);
    }
    if (spec.infoFlags && args.length === 1 && !args[0].dynamic && spec.infoFlags.includes(args[0].text)) {
      this.match([name, args[0].text], true);
      if (spec.infoBehaviour) this.runBehaviour(spec.infoBehaviour, `${name} ${args[0].text}`, [], ctx, "");
      return;
    }
    if (spec.wrapper) {
      this.runWrapper(spec, name, args, ctx);
      return;
    }
    if (spec.handler === "git") {
      this.runGit(entry, args, ctx);
      return;
    }
    if (spec.subcommands || spec.noSubcommand || spec.otherSubcommand) {
      this.runSubcommand(entry, name, args, ctx, "");
      return;
    }
    this.match([name, ...texts(args)], true);
    this.patterns = patterns;
    try {
      this.runBehaviour(spec, name, args, ctx, "");
    } finally {
      this.patterns = undefined;
    }
    // A pattern the program did not read as a file (a flag's value, grep's search pattern) expands all the same.
    const left = patterns && [...patterns].find((w) => !this.patternsRead.has(w));
    if (left) this.notReadOnly(`${name} ${left.raw} names files by a pattern expanded at run time`);
  }

  /** A program's subcommand (`npm install`, `docker push`): global flags before it are skipped. */
  private runSubcommand(entry: CompiledProgram, name: string, given: readonly Word[], ctx: Context, base: string): void {
    let args = given;
    const spec = entry.spec;
    let i = 0;
    let dir: string | undefined;
    // Global flags go on to the subcommand (npm -g install), except the directory, which is applied here.
    const globals: Word[] = [];
    // A Rust toolchain before the subcommand (cargo +nightly test) only picks the compiler.
    if (name === "cargo" && args[0] && !args[0].dynamic && /^\+[A-Za-z0-9._-]+$/.test(args[0].text)) i = 1;
    /** The first flag before the subcommand that ClawOS does not know to take a value, followed by a word. */
    let unknown: number | undefined;
    while (i < args.length && !args[i].dynamic && args[i].text.startsWith("-") && args[i].text.length > 1) {
      const t = args[i].text;
      const eq = t.indexOf("=");
      const flag = eq === -1 ? t : t.slice(0, eq);
      const takes = has(spec.globalValueFlags, flag) && eq === -1;
      if (
        unknown === undefined &&
        !takes &&
        eq === -1 &&
        !has(spec.globalFlags, flag) &&
        args[i + 1] &&
        !(args[i + 1].text.startsWith("-") && !args[i + 1].dynamic)
      )
        unknown = i;
      // $HOME at a directory's start is the home directory (make -C $HOME/proj).
      const value = eq === -1 ? (homeText(args[i + 1]) ?? args[i + 1]?.text) : t.slice(eq + 1);
      if (takes || eq !== -1) this.remoteProjectFile(name, flag, value);
      if (has(spec.dirFlags, flag) && value !== undefined) dir = value;
      else globals.push(...args.slice(i, i + (takes ? 2 : 1)));
      i += takes ? 2 : 1;
    }
    if (unknown !== undefined) this.flagMayTakeValue(entry, name, args, unknown, args[i]);
    // Files the program reads whatever its subcommand, before or after it (npm --userconfig).
    if (spec.readFlags) this.programReads(spec.readFlags, args, ctx, base);
    const baseDir = dir !== undefined ? joinPath(base, dir) : base;
    if (i >= args.length) {
      this.match([name, ...texts(args)], true);
      this.runBehaviour(spec.noSubcommand ?? spec, name, args, ctx, baseDir);
      return;
    }
    const sub = args[i];
    if (sub.dynamic) {
      this.match([name, ...texts(args.slice(i))], true);
      this.notReadOnly(`${name} runs a subcommand only known at run time`);
      return;
    }
    // A group's own flags between it and its subcommand (`docker compose -f dev.yml logs`): skipped
    // like global flags when the program names subcommands of that group.
    let j = i + 1;
    if (args[j] && !args[j].dynamic && args[j].text.startsWith("-") && entry.groups.has(sub.text)) {
      while (j < args.length && !args[j].dynamic && args[j].text.startsWith("-") && args[j].text.length > 1) {
        const t = args[j].text;
        const takes = t.indexOf("=") === -1 && has(spec.globalValueFlags, t);
        const eq = t.indexOf("=");
        this.remoteProjectFile(name, eq === -1 ? t : t.slice(0, eq), eq === -1 ? (takes ? args[j + 1]?.text : undefined) : t.slice(eq + 1));
        globals.push(...args.slice(j, j + (takes ? 2 : 1)));
        j += takes ? 2 : 1;
      }
      if (j >= args.length || args[j].dynamic || !entry.subcommands.has(`${sub.text} ${args[j].text}`)) {
        globals.length -= j - i - 1;
        j = i + 1;
      } else args = [...args.slice(0, i + 1), ...args.slice(j)];
    }
    const two = args[i + 1] && !args[i + 1].dynamic ? `${sub.text} ${args[i + 1].text}` : undefined;
    const three = two && args[i + 2] && !args[i + 2].dynamic ? `${two} ${args[i + 2].text}` : undefined;
    let found: SubcommandSpec | undefined = three ? entry.subcommands.get(three) : undefined;
    let rest: readonly Word[];
    let label: string;
    if (found) {
      rest = args.slice(i + 3);
      label = `${name} ${three}`;
    } else if ((found = two ? entry.subcommands.get(two) : undefined)) {
      rest = args.slice(i + 2);
      label = `${name} ${two}`;
    } else {
      found = entry.subcommands.get(sub.text);
      rest = args.slice(i + 1);
      label = `${name} ${sub.text}`;
    }
    this.match([name, ...texts(args.slice(i))], true);
    if (!found) {
      if (spec.otherSubcommand) this.runBehaviour(spec.otherSubcommand, label, rest, ctx, baseDir);
      else this.notReadOnly(`${label} is not a subcommand ClawOS knows`);
      return;
    }
    if (found.handler === "clone") {
      this.runClone(label, rest, ctx, baseDir);
      return;
    }
    if (found.handler === "pip-install") {
      this.runPipInstall(label, [...globals, ...rest], ctx, baseDir);
      return;
    }
    if (found.handler === "git-config") {
      this.runGitConfig(found, label, rest, ctx, baseDir);
      return;
    }
    this.runBehaviour(found, label, [...globals, ...rest], ctx, baseDir);
  }

  /**
   * Whether a program given files one by one puts them side by side where it lands them (`cp`,
   * `mv`, `install`, `ln`, `rsync`, `scp`): files from deep in a tree land flat, away from where
   * their labels say they were.
   */
  private copiesFlat(program: Word | undefined): boolean {
    if (!program || program.dynamic) return true;
    const name = program.text.slice(program.text.lastIndexOf("/") + 1);
    return this.rules.programs.get(name)?.spec.handler === "copy" || name === "rsync" || name === "scp";
  }

  /** The values of `flags` anywhere in the words (`--userconfig x`, `--userconfig=x`): files read. */
  private programReads(flags: readonly string[], words: readonly Word[], ctx: Context, base: string): void {
    for (let k = 0; k < words.length; k++) {
      const t = words[k].text;
      const eq = t.indexOf("=");
      const flag = eq === -1 ? t : t.slice(0, eq);
      if (words[k].dynamic || !has(flags, flag)) continue;
      const value = eq === -1 ? words[k + 1] : literalWord(t.slice(eq + 1));
      if (!value) continue;
      if (value.dynamic) this.notReadOnly(`${flag} names a file only known at run time`);
      else this.read(ctx, value.text, base);
    }
  }

  /**
   * A flag before the subcommand that ClawOS does not know (`npm --tag ls install x`): if it takes
   * the next word as its value, the program runs another subcommand than the one read
   * (`install`, not `ls`). Read that way too, the command is not read-only when the other word is a
   * subcommand the program knows, one only known at run time, or any word for a program that runs
   * words it does not list (`systemctl -p status reboot`). Flags the program lists as taking no
   * value (`globalFlags`: `systemctl --user status nginx`) leave the reading as is.
   */
  private flagMayTakeValue(entry: CompiledProgram, name: string, args: readonly Word[], at: number, read: Word | undefined): void {
    const spec = entry.spec;
    let k = at + 2;
    while (k < args.length && !args[k].dynamic && args[k].text.startsWith("-") && args[k].text.length > 1) {
      const t = args[k].text;
      k += t.indexOf("=") === -1 && has(spec.globalValueFlags, t) ? 2 : 1;
    }
    const other = args[k];
    if (!other || (read && !read.dynamic && !other.dynamic && other.text === read.text)) return;
    if (other.dynamic || entry.subcommands.has(other.text) || entry.groups.has(other.text) || spec.otherSubcommand) {
      this.notReadOnly(
        `${name} ${args[at].text}: ClawOS does not know whether this flag takes a value, so the subcommand may be ${other.text} rather than ${read?.text ?? "none"} (write the flag as ${args[at].text}=<value> or after the subcommand)`,
      );
    }
  }

  /**
   * A compose file named by a URL (`-f oci://registry/x`, `-f https://…`, a git address): compose
   * fetches it for any command that loads the project, a read included.
   */
  private remoteProjectFile(name: string, flag: string, value: string | undefined): void {
    if ((flag === "-f" || flag === "--file") && value !== undefined && /^(?:[a-z][a-z0-9+.-]*:|git@)/i.test(value) && !/^[a-z]:[\\/]/i.test(value)) {
      this.reaches(`${name} ${flag} ${value} loads a project file from the network`);
    }
  }

  private runGit(entry: CompiledProgram, args: readonly Word[], ctx: Context): void {
    let i = 0;
    let dir = "";
    // Where git looks for its repository: `-C` moves it, `--git-dir` names it (`--work-tree` does neither).
    let repository = "";
    let gitDir: string | undefined;
    const spec = entry.spec;
    while (i < args.length && !args[i].dynamic && args[i].text.startsWith("-") && args[i].text.length > 1) {
      const t = args[i].text;
      const eq = t.indexOf("=");
      const flag = eq === -1 ? t : t.slice(0, eq);
      const takes = has(spec.globalValueFlags, flag) && eq === -1;
      const value = eq === -1 ? (takes ? args[i + 1] : undefined) : literalWord(t.slice(eq + 1));
      if (flag === "-C" && value) {
        if (value.dynamic) this.notReadOnly("git -C names a directory only known at run time");
        dir = joinPath(dir, value.text);
        repository = joinPath(repository, value.text);
      } else if (flag === "-c" && value && !value.dynamic && GIT_PLAIN_CONFIG.test(value.text)) {
        // How output looks (colour, quoting, dates, a pager that is cat): nothing that runs a program.
      } else if (flag === "-c" || flag === "--config-env") {
        this.notReadOnly(`git ${flag} sets configuration, which can run commands`);
      } else if (flag === "--exec-path" && value) {
        this.notReadOnly("git --exec-path runs git's programs from another directory");
      } else if ((flag === "--git-dir" || flag === "--work-tree") && value) {
        if (value.dynamic) this.notReadOnly(`git ${flag} names a directory only known at run time`);
        if (flag === "--git-dir") gitDir = joinPath(repository, value.text);
        dir = joinPath(dir, value.text);
      }
      i += takes ? 2 : 1;
    }
    const rest = args.slice(i);
    const sub = rest[0]?.text;
    // Every command that works in a repository reads its settings; a clone or init makes a new one.
    if (sub !== undefined && !GIT_OUTSIDE_REPOSITORY.has(sub) && !rest.some((w) => w.text === "--no-index"))
      this.repository(ctx, gitDir ?? (repository || "."));
    if ((sub === "diff" || sub === "grep") && rest.some((w) => w.text === "--no-index")) {
      // Outside a repository: the operands are plain files.
      this.match(["git", ...texts(rest)], true);
      for (const w of rest.slice(1)) if (!w.text.startsWith("-")) this.read(ctx, w.text, dir);
      if (rest.some((w) => w.dynamic)) this.notReadOnly("git gets an argument only known at run time");
      // Its flags do what they do in a repository: `-O` runs a pager, `--output` writes a file.
      const spec = entry.subcommands.get(sub);
      if (spec) {
        const table = flagTable(spec as Behaviour);
        for (const w of rest.slice(1)) {
          if (w.text === "--") break;
          if (!w.text.startsWith("-") || w.text.length < 2) continue;
          const eq = w.text.indexOf("=");
          // A long flag (or its prefix), or every letter of a cluster of short ones (-nO<cmd>; a
          // value's letters too, since which flag takes one differs between subcommands).
          const flags = w.text.startsWith("--") ? [eq === -1 ? w.text : w.text.slice(0, eq)] : [...w.text.slice(1)].map((c) => `-${c}`);
          for (const flag of flags) {
            const bits = (table.get(flag) ?? 0) | (flag.startsWith("--") ? prefixBits(table, flag) : 0);
            if (bits & (F_EXEC | F_WRITE | F_UNSAFE)) this.notReadOnly(`git ${sub} ${flag} runs a program or writes a file`);
          }
        }
      }
      return;
    }
    this.runSubcommand(entry, "git", rest, ctx, dir);
  }

  /**
   * A restart, reload or start of named services on this host (`serviceAction` in the command
   * table): with only the flags the table lists and plain names, it is a service action the engine
   * may decide by where the names came from; anything else (another host, a pattern, a target, a
   * flag it does not list) changes system state like any other such command.
   */
  private runService(b: Behaviour, spec: ServiceActionSpec, label: string, args: readonly Word[], ctx: Context): void {
    const why = `${label} ${b.why ?? KIND_WHY[b.kind]}`;
    const names: string[] = [];
    const scopes: string[] = [];
    let plain = this.remoteDepth === 0 && !ctx.remote;
    for (let i = 0; plain && i < args.length; i++) {
      const w = args[i];
      if (w.dynamic || w.glob || w.process) plain = false;
      else if (w.text.startsWith("-") && w.text.length > 1) {
        const eq = w.text.indexOf("=");
        const flag = eq === -1 ? w.text : w.text.slice(0, eq);
        if (has(spec.valueFlags, flag)) {
          const value = eq === -1 ? args[++i] : literalWord(w.text.slice(eq + 1));
          if (!value || value.dynamic || value.glob) plain = false;
          // Kubernetes' -n: the namespace is part of what is restarted.
          else if (spec.units === "kubernetes" && (flag === "-n" || flag === "--namespace")) scopes.push(value.text.toLowerCase());
        } else if (eq !== -1 || !has(spec.flags, flag)) plain = false;
      } else names.push(w.text);
    }
    const services = plain ? serviceNames(spec.units, names) : undefined;
    if (!services) {
      this.notReadOnly(why);
      return;
    }
    this.remoteOnly(why);
    this.local = false;
    this.external = true;
    this.serviceActs++;
    for (const service of services) add(this.services, service);
    for (const scope of scopes) add(this.serviceScopes, scope);
    if (!this.serviceKinds.includes(spec.units)) this.serviceKinds.push(spec.units);
    const verb = spec.verb;
    if (verb && !this.serviceVerbs.some((v) => v.verb === verb)) this.serviceVerbs.push({ verb, alsoBy: spec.alsoBy ?? NONE });
  }

  private runGitConfig(b: Behaviour, label: string, args: readonly Word[], ctx: Context, base: string): void {
    const t = texts(args);
    const readFlags = ["--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool", "--list", "-l"];
    const writeFlags = ["--add", "--unset", "--unset-all", "--replace-all", "--rename-section", "--remove-section", "-e", "--edit"];
    // -f/--file: the file git reads or writes instead of the repository's configuration.
    let file: string | undefined;
    let fileAt = -1;
    for (let i = 0; i < t.length; i++) {
      if (t[i] === "-f" || t[i] === "--file") {
        file = t[i + 1];
        fileAt = i + 1;
      } else if (t[i].startsWith("--file=")) file = t[i].slice("--file=".length);
    }
    const operands = t.filter((x, i) => !x.startsWith("-") && i !== fileAt);
    const reading =
      !t.some((x) => writeFlags.includes(x)) &&
      (t.some((x) => readFlags.includes(x)) ||
        operands[0] === "get" ||
        operands[0] === "list" ||
        (operands.length === 1 && !["set", "unset", "edit", "rename-section", "remove-section"].includes(operands[0])));
    if (args.some((w) => w.dynamic)) this.notReadOnly(`${label} gets an argument only known at run time`);
    if (reading) {
      this.read(ctx, file ?? ".", base);
      return;
    }
    if (file !== undefined) this.write(ctx, file, base);
    this.write(ctx, b.writes ?? ".", base);
    this.notReadOnly(`${label} changes configuration, which can run commands`);
  }

  /**
   * The generic reading of a program's arguments by its behaviour: flags that take values, read,
   * write, run or change something; then the operands.
   */
  private runBehaviour(b: Behaviour, label: string, args: readonly Word[], ctx: Context, base: string): void {
    const outer = this.lister;
    this.lister = b.listsOnly === true;
    const frame = this.frames[this.frames.length - 1];
    const wasRead = frame?.readOnly === true;
    try {
      this.behave(b, label, args, ctx, base);
    } finally {
      this.lister = outer;
    }
    // A report of the host's own that a flag turned into something else (docker system df -v, another
    // daemon's -H) prints others' text.
    if (b.hostFacts === true && wasRead && frame && !frame.readOnly) {
      this.external = true;
      this.local = false;
    }
  }

  private behave(b: Behaviour, label: string, args: readonly Word[], ctx: Context, base: string): void {
    // On another host, only a program that prints that host's facts, or one that only filters what
    // it is given, keeps a remote read's output that host's report (see `remoteFacts`).
    // (A program without subcommands is its own behaviour: its printsFiles says it only filters.)
    if (ctx.remote && b.hostFacts !== true && (b as ProgramSpec).printsFiles === undefined) this.remoteOthers++;
    if (b.serviceAction) {
      this.runService(b, b.serviceAction, label, args, ctx);
      return;
    }
    switch (b.handler) {
      case "find":
        this.runFind(label, args, ctx, base);
        return;
      case "sed":
        this.runSed(label, args, ctx, base);
        return;
      case "awk":
        this.runAwk(label, args, ctx, base);
        return;
      case "jq":
        this.runJq(b, label, args, ctx, base);
        return;
      case "curl":
        this.runCurl(label, args, ctx, base);
        return;
      case "wget":
        this.runWget(label, args, ctx, base);
        return;
      case "tar":
        this.runTar(label, args, ctx, base);
        return;
      case "unzip":
        this.runUnzip(label, args, ctx, base);
        return;
      case "sevenzip":
        this.runSevenZip(label, args, ctx, base);
        return;
      case "compress":
        this.runCompress(label, args, ctx, base);
        return;
      case "copy":
        this.runCopy(label, args, ctx, base);
        return;
      case "dd":
        this.runDd(label, args, ctx, base);
        return;
      case "chmod":
        this.runChmod(b, label, args, ctx, base);
        return;
      case "remote-copy":
        this.runRemoteCopy(label, args, ctx, base);
        return;
      case "ssh":
        this.runSsh(label, args, ctx);
        return;
      case "redis":
        this.runRedis(label, args, ctx);
        return;
      case "psql":
        this.runPsql(label, args, ctx);
        return;
      case "dig":
        this.runDig(label, args, ctx);
        return;
      case "aws":
        this.runAws(label, args, ctx);
        return;
      case "shell":
        this.runShell(label, args, ctx);
        return;
      case "python":
        this.runPython(label, args, ctx, base);
        return;
      case "pip-install":
        this.runPipInstall(label, args, ctx, base);
        return;
      case "clone":
        this.runClone(label, args, ctx, base);
        return;
      case "cd":
        this.runCd(label, args, ctx);
        return;
      case "popd":
        this.runPopd(label, args, ctx);
        return;
      case "eval":
        this.local = false;
        this.runEval(b, label, args, ctx);
        return;
      case "source":
        this.local = false;
        this.notReadOnly(`${label} ${b.why ?? KIND_WHY.dynamic}`);
        if (args[0] && homeText(args[0]) !== undefined) this.code(ctx, homeText(args[0]) as string, base);
        else if (args[0]) this.read(ctx, args[0].text, base);
        this.runsCode(ctx, args[0] ? homeText(args[0]) : undefined, base);
        this.runsInput = true;
        return;
      case "assign":
        this.runAssign(label, args);
        return;
      case "setvar":
        this.runSetVariable(label, args);
        return;
      case "git-config":
        this.runGitConfig(b, label, args, ctx, base);
        return;
      default:
        break;
    }

    const isRead = b.kind === "read" || (b.queryFlags !== undefined && args.some((w) => !w.dynamic && queries(b, w.text)));
    // A check of the project given only what its entry lists (npm test, cargo test --release).
    const checking = !isRead && b.check !== undefined && this.remoteDepth === 0 && !ctx.remote && checksOnly(b.check, label, args);
    // A record in the local repository given only what its entry lists (git add x, git commit -m ...).
    const recorded = !isRead && !checking && b.record !== undefined && this.remoteDepth === 0 && !ctx.remote ? recordOperands(b.record, args) : undefined;
    const recording = recorded !== undefined;
    if (checking) this.checkOnly(`${label} ${b.why ?? KIND_WHY[b.kind]}`);
    else if (recording) this.recordOnly(`${label} ${b.why ?? KIND_WHY[b.kind]}`);
    else if (!isRead) this.notReadOnly(`${label} ${b.why ?? KIND_WHY[b.kind]}`);
    if (NOT_LOCAL.has(b.kind)) this.local = false;
    // A build runs the tree's code; so does an install (lifecycle scripts, a Gemfile, setup.py, composer scripts).
    // A record runs only the repository's hooks, which the engine looks at itself.
    const runsHere = !recording && (b.kind === "build" || b.kind === "install" || (b.runsTree === true && !isRead));
    if (runsHere) this.runsTree = true;
    if (b.runsDocs === true) this.runsDocs = true;
    if (b.network) this.network = true;
    if (b.namesHosts === true) {
      // A name server learns the name: decided like a DNS query's (dig), by where the name came from.
      const named = hostNamed(args);
      if (named?.host === undefined && named) this.reaches(`${label} ${named.word} looks up a host only known at run time`);
      else if (named?.host !== undefined)
        this.remoteRead([`${label} ${named.word} looks up ${named.host}, which sends the name to a name server`], [named.host]);
    }
    if (b.external) {
      // Its output comes from state kept elsewhere, not from the files where it runs.
      this.external = true;
      this.local = false;
    }
    let changed = false;
    let dir: string | undefined;
    let fetchTo: string | undefined;
    let outside = false;
    let listing = false;
    let patternGiven = false;
    let recursive = false;
    let follows = false;
    const flagged = (flag: string) => `${label} ${flag}`;
    // Flag values that name files (`-f x.mk`, `--manifest-path y`): a build may run what they say.
    const pointed: (string | undefined)[] = [];
    const operands = parseFlags(b, args, (flag, value, bits) => {
      if (value !== undefined) pointed.push(homeOf(value));
      if (bits === 0) return;
      if (bits & F_EXEC) this.notReadOnly(`${flagged(flag)} runs another program`);
      if (bits & F_NETWORK) this.reaches(`${flagged(flag)} reaches the network${value !== undefined ? ` (${value})` : ""}`);
      if (bits & F_UNSAFE) {
        changed = true;
        this.notReadOnly(`${flagged(flag)} ${isRead && b.why ? b.why : "changes something"}`);
      }
      if (bits & F_WRITE && value !== undefined && value !== "-") {
        this.write(ctx, value, base);
        if (!HARMLESS_TARGETS.test(value)) this.notReadOnly(`${flagged(flag)} writes ${value}`);
      }
      if (bits & F_READ && value !== undefined) this.read(ctx, value, base);
      // sort, wc and du --files0-from: the files it reads are named in a list ClawOS does not read.
      if (flag === "--files0-from") this.notReadOnly(`${flagged(flag)} takes the names of the files it reads from a list`);
      // kubectl -o go-template-file=PATH (jsonpath-file, template-file): the format names a file it reads.
      if ((flag === "-o" || flag === "--output") && value !== undefined) {
        const file = OUTPUT_FORMAT_FILE.exec(value)?.[1];
        if (file !== undefined) this.read(ctx, file, base);
      }
      if (bits & F_FETCH && value !== undefined) fetchTo = value;
      if (bits & F_DIR && value !== undefined) dir = homeOf(value);
      if (bits & F_OUTSIDE) outside = true;
      if (bits & F_LIST) listing = true;
      if (bits & F_PATTERN) patternGiven = true;
      if (bits & F_RECURSIVE) recursive = true;
      if (bits & F_FOLLOW) follows = true;
      if (b.secretOperands && value !== undefined && namesSecret(b.secretOperands, value)) add(this.secrets, `${label} ${flag} ${value}`);
    });
    if (b.secretOperands) {
      for (const w of operands) if (namesSecret(b.secretOperands, w.text)) add(this.secrets, `${label} ${w.raw}`);
    }
    const where = dir !== undefined ? joinPath(base, dir) : base;
    // The tree a build runs: where a flag or an earlier cd put it, when not the working directory.
    if (runsHere && !ctx.remote) for (const p of this.paths(ctx, dir ?? ".", base)) this.treeDir(p);
    if (runsHere || b.kind === "interpreter" || b.kind === "dynamic") {
      this.pointedTrees(ctx, pointed, base, runsHere);
      this.pointedTrees(ctx, operands.map(homeText), base);
    }
    // A container with a directory of this host mounted (docker run -v "$PWD":/w img sh /w/x.sh) may run its code.
    if (CONTAINER_RUNS.test(label) && args.some((w) => MOUNT_FLAG.test(w.text))) this.runsCode(ctx);
    // What a calculator or a database shell reads (its input, -f, -init) may hold commands it runs (.shell, !).
    if (b.kind === "interpreter" && CALCULATORS.has(label)) {
      this.runsInput = true;
      for (const v of [...pointed, ...operands.map(homeText)]) if (v !== undefined && !v.startsWith("-") && FILE_LIKE.test(v)) this.code(ctx, v, where);
    }
    // An interpreter runs its script (code whatever its name) and what it loads from there and from
    // the working directory (the script's directory is among the trees above).
    if (b.kind === "interpreter" && !CALCULATORS.has(label)) {
      this.runsCode(ctx);
      const script = operands[0] && !operands[0].text.startsWith("-") && !operands[0].text.includes("://") ? homeText(operands[0]) : undefined;
      if (script !== undefined && FILE_LIKE.test(script)) this.code(ctx, script, where);
      this.scriptArguments(ctx, operands.slice(1), where);
      // No script and no code given: it runs what comes in on its input (`cat x.js | node`).
      if (operands.length === 0) this.runsInput = true;
    }
    const kind = b.operands ?? (isRead ? "paths" : b.kind === "write" || b.kind === "destructive" ? "writes" : "strings");
    let readSome = false;
    const readOperand = (w: Word) => {
      if (w.process) return;
      readSome = true;
      // A pattern reads the directory its names stay below (what a program that writes from it carries, too).
      const root = w.glob && !w.dynamic ? globRoot(w.text) : undefined;
      if (root !== undefined && this.patterns?.has(w)) this.patternsRead.add(w);
      const named = w.dynamic ? w.raw : w.text;
      // binutils (strings, nm, objdump, readelf, size) take @FILE as a file of more arguments, and
      // print each word they cannot open: it reads FILE.
      if (named.startsWith("@") && named.length > 1 && BINUTILS.test(label)) {
        this.read(ctx, named.slice(1), where);
        // Its words are more arguments: files ClawOS cannot see until it runs.
        this.notReadOnly(`${label} takes more arguments from ${named.slice(1)}, known only when it runs`);
      }
      // Another host's path is only checked for secret-looking names, and a pattern's own are those.
      this.read(ctx, ctx.remote ? named : (root ?? named), where);
      if (follows && !w.dynamic) this.followLinks(ctx, root ?? w.text, undefined, where);
      else if (root !== undefined) this.followLinks(ctx, root, w.text, where);
    };
    const writeOperand = (w: Word) => {
      if (w.process) return;
      this.write(ctx, w.dynamic ? w.raw : w.text, where);
    };
    switch (kind) {
      case "paths":
        operands.forEach(readOperand);
        break;
      case "pattern-then-paths":
        operands.slice(patternGiven ? 0 : 1).forEach(readOperand);
        break;
      case "forbidden":
        if (operands.length > 0 && !listing) {
          changed = true;
          this.notReadOnly(`${label} ${operands[0].raw} ${b.why ?? "changes something"}`);
        }
        break;
      case "in-out":
        // A pattern (or a brace expansion) may expand into the output operand too: uniq {-,out}.
        if (operands.some((w) => w.glob)) this.notReadOnly(`${label} ${operands.find((w) => w.glob)?.raw} may expand into the file it writes`);
        if (operands[0]) readOperand(operands[0]);
        // An output of - is standard output.
        if (operands[1] && operands[1].text !== "-") {
          writeOperand(operands[1]);
          this.notReadOnly(`${label} writes ${operands[1].raw}`);
        } else if (!operands[1] && operands[0] && operands[0].text !== "-" && DERIVED_OUTPUT.has(label)) {
          // With no output operand, pdftotext writes one named after its input (paper.pdf: paper.txt).
          const derived = `${operands[0].text.replace(/\.pdf$/i, "")}${DERIVED_OUTPUT.get(label)}`;
          writeOperand(literalWord(derived));
          this.notReadOnly(`${label} writes ${derived}`);
        }
        break;
      case "writes":
        operands.forEach(writeOperand);
        if (isRead && operands.length) this.notReadOnly(`${label} writes ${operands[0].raw}`);
        break;
      case "written-then-paths":
        if (operands[0]) {
          writeOperand(operands[0]);
          this.notReadOnly(`${label} writes ${operands[0].raw}`);
        }
        operands.slice(1).forEach(readOperand);
        break;
      case "first-then-writes":
        operands.slice(1).forEach(writeOperand);
        break;
      case "format":
        for (const w of operands) {
          if (!w.text.startsWith("+")) {
            changed = true;
            this.notReadOnly(`${label} ${w.raw} ${b.why ?? "sets something"}`);
          }
        }
        break;
      default:
        break;
    }
    if (b.implicit && !readSome && (!b.recursiveFlags || recursive)) {
      this.read(ctx, b.implicit, where);
      if (follows) this.followLinks(ctx, b.implicit, undefined, where);
    }
    if (b.writes && (!isRead || changed)) {
      this.write(ctx, b.writes, where);
      if (recording) for (const p of this.paths(ctx, b.writes, where)) add(this.recordWrites, p);
      // What it records is what those files hold: a secret's path is read as any read's is.
      // Only tracked files (git add -u dir) take in nothing new below a directory.
      const tracked = args.some((w) => w.text === "--update" || /^-[A-Za-z]*u[A-Za-z]*$/.test(w.text));
      for (const path of recorded ?? []) {
        this.read(ctx, path, where);
        if (!tracked) for (const p of this.paths(ctx, path, where)) add(this.recordPaths, p);
      }
      if (b.inPlace && !recording) for (const p of this.paths(ctx, b.writes, where)) add(this.inPlace, p);
    }
    if (!outside) {
      if (fetchTo !== undefined) this.fetch(ctx, fetchTo, base, b.kind === "install");
      else if (b.fetches) {
        this.fetch(ctx, b.fetches, where, b.kind === "install");
        if (b.inPlace && !ctx.remote) for (const p of this.paths(ctx, b.fetches, where)) add(this.inPlace, p);
      }
    }
    if (isRead && !b.inert && args.some((w) => w.dynamic)) this.notReadOnly(`${label} gets an argument only known at run time`);
  }

  // ---- wrappers -----------------------------------------------------------------------------------

  private runWrapper(spec: ProgramSpec, name: string, args: readonly Word[], ctx: Context): void {
    const w = spec.wrapper!;
    let i = 0;
    let shell = false;
    let lookup = false;
    let split: string | undefined;
    let shellText: string | undefined;
    for (; i < args.length; i++) {
      const word = args[i];
      const t = word.text;
      if (word.dynamic) break;
      if (t === "--") {
        i++;
        break;
      }
      if (!t.startsWith("-") || t.length < 2) break;
      const lists = [w.valueFlags, w.readFlags, w.writeFlags];
      const takes = (f: string) => lists.some((list) => has(list, f));
      const handle = (flag: string, value: string | undefined) => {
        if (has(w.shellFlags, flag)) shell = true;
        if (has(w.shellFlags, flag) && value !== undefined && has(w.valueFlags, flag)) shellText = value;
        if (has(w.lookupFlags, flag)) lookup = true;
        if (has(w.readFlags, flag) && value !== undefined) this.read(ctx, value);
        if (has(w.writeFlags, flag) && value !== undefined) {
          this.write(ctx, value);
          this.notReadOnly(`${name} ${flag} writes ${value}`);
        }
        if (flag === "-S" || flag === "--split-string") {
          this.notReadOnly(`${name} ${flag} splits text into a command`);
          split = value ?? "";
        }
        if (flag === "-C" || flag === "--chdir" || flag === "-D") {
          this.notReadOnly(`${name} ${flag} runs the command in another directory`);
          // The command runs that directory's tree.
          if (value !== undefined) this.pointedTrees(ctx, [value.endsWith("/") ? value : `${value}/`], "");
        }
        if (name === "xargs" && (flag === "-a" || flag === "--arg-file")) this.runsInput = true;
      };
      if (t.startsWith("--")) {
        const eq = t.indexOf("=");
        const flag = eq === -1 ? t : t.slice(0, eq);
        let value = eq === -1 ? undefined : t.slice(eq + 1);
        if (value === undefined && takes(flag)) value = args[++i]?.text;
        handle(flag, value);
        continue;
      }
      if (takes(t)) {
        handle(t, args[++i]?.text);
        continue;
      }
      for (let j = 1; j < t.length; j++) {
        const flag = `-${t[j]}`;
        if (takes(flag)) {
          let value = t.slice(j + 1);
          if (!value) value = args[++i]?.text ?? "";
          handle(flag, value);
          break;
        }
        handle(flag, undefined);
      }
    }
    if (w.assignments) {
      while (i < args.length && !args[i].dynamic && ENV_ASSIGNMENT.test(args[i].text)) {
        const variable = ASSIGNMENT_NAME.exec(args[i].text)![0];
        if (!this.rules.safeEnvironment(variable)) this.notReadOnly(`${name} sets ${variable}, which can change how the command runs`);
        i++;
      }
    }
    i += w.skip ?? 0;
    let inner: Word[] = args.slice(i);
    if (split !== undefined) {
      // env -S 'python3 x.py': the text is the command (read as shell words), then the rest.
      this.runText(`${name} -S`, [literalWord([split, ...texts(inner)].join(" "))], ctx, false);
      return;
    }
    const argv = [name, ...texts(args)];
    // On another host, `sudo grep …` reads there as another user: what it runs decides, as in any remote read.
    // On this one, a plain `sudo` (no shell, no kept environment, no other directory) in front of a
    // read-only command reads as root: the logs (`sudo tail /var/log/nginx/error.log`, `sudo
    // journalctl -u x`, `sudo ss -ltnp`) are plain reads, any file outside /var/log it reads is not.
    const why = spec.why ? `${name} ${spec.why}` : spec.kind !== "wrapper" ? `${name} ${KIND_WHY[spec.kind]}` : undefined;
    const elevated = why !== undefined && w.remoteRead === true && this.remoteDepth === 0 && !ctx.remote && !shell && !lookup && plainSudo(args.slice(0, i));
    if (why && w.remoteRead && this.remoteDepth > 0 && !shell && !lookup) this.remoteOnly(why);
    else if (why && !elevated) this.notReadOnly(why);
    if (NOT_LOCAL.has(spec.kind)) this.local = false;
    if (spec.kind === "build") {
      this.runsTree = true;
      this.runsCwd = true;
    }
    if (lookup) {
      this.match(argv, true);
      return;
    }
    if (inner.length === 0) {
      if (w.defaultCommand && !shell) inner = [literalWord(w.defaultCommand)];
      else {
        this.match(argv, true);
        if (shell || w.alone === "shell") {
          this.notReadOnly(`${name} runs a shell`);
          // A shell runs in the working tree, and the text it is given is read as commands (su -c 'bash x.sh').
          this.runsCode(ctx);
          if (shellText !== undefined) this.runText(`${name} -c`, [literalWord(shellText)], ctx, false);
        } else if (w.alone !== "read") this.notReadOnly(`${name} has no command to run`);
        return;
      }
    }
    if (shell) this.notReadOnly(`${name} runs the command through a shell`);
    if (w.commandString) {
      this.match(argv, true);
      this.runText(name, inner, ctx, false);
      return;
    }
    if (w.appends && name === "xargs" && ctx.listed && !shell && nulSeparatedOnly(args.slice(0, i)) && !this.copiesFlat(inner[0])) {
      // find ROOTS -type f ... -print0 | xargs -0 CMD: CMD gets regular files below the roots, as
      // find's own -exec CMD {} + would give them (see runFind); it reads the roots whole.
      inner = [...inner, ...ctx.listed];
    } else if (w.appends) {
      // The names it adds (xargs: from its input) are only known at run time, whatever the command does with them.
      inner = [...inner, RUNTIME_WORD];
      if (!ctx.remote) this.unknownReads = true;
    }
    // Only the shell's own builtin and command run a builtin in the shell; the others start a process (a cd there moves nothing).
    const { listed: _listed, ...outer } = ctx;
    const innerCtx = name === "builtin" || name === "command" ? ctx : elevated ? { ...outer, elevated: true } : { ...outer };
    if (w.strong) {
      // The wrapper is its own part: rules see it whole, and the command it runs is another part.
      this.match(argv, true);
      const frame = this.begin();
      const services = this.serviceActs;
      const remotes = this.remoteReads;
      this.runArgv(inner, innerCtx);
      this.end(frame);
      // A root read is plain only while what it runs only reads: otherwise sudo is a part that acts,
      // unless all it did besides was a service action (`sudo systemctl restart api`), decided as one.
      const serviceOnly = this.serviceActs > services && this.remoteReads === remotes && this.onlyRemoteReads;
      if (elevated && !frame.readOnly && why) {
        if (serviceOnly) this.remoteOnly(why);
        else this.notReadOnly(why);
      }
      return;
    }
    // A plain wrapper: deny rules and irreversible names see it whole; the command it runs is this part.
    this.match(argv, false);
    this.runArgv(inner, innerCtx);
  }

  /** Shell text in words (`bash -c`, `eval`, `watch`, `ssh host cmd`): parsed and walked as its own part. */
  private runText(label: string, words: readonly Word[], ctx: Context, remote: boolean, shareCwd = false): void {
    if (words.length === 0) return;
    if (words.some((w) => w.dynamic)) {
      this.notReadOnly(`${label} runs shell text only known at run time`);
      this.network = true;
      // The text may be a file it read (`sh -c "$(cat setup.sh)"`): every file the command reads is code.
      this.runsCode(ctx);
      this.runsInput = true;
      return;
    }
    const text = words.map((w) => w.text).join(" ");
    const result = parseShell(text, { depth: ctx.depth + 1 });
    if (!result.parsed) {
      this.notReadOnly(`${label} runs shell text that cannot be parsed (${result.error})`);
      this.network = true;
      return;
    }
    const inner: Context = { cwds: ctx.cwds, depth: ctx.depth + 1, remote: remote || ctx.remote };
    const frame = this.begin();
    this.walkScript(result.script, inner);
    this.end(frame);
    // eval runs in the shell itself: a cd in its text moves what follows.
    if (shareCwd) ctx.cwds = inner.cwds;
  }

  /**
   * A read of another host's state. `reasons` say how it connects (not read-only, but accounted for
   * by the remote read); `body` walks what runs there. It is a remote read when nothing in the body
   * was other than read-only, and the command may then be decided by where `destinations` came from;
   * otherwise the command is not read-only, as usual.
   */
  private remoteRead(reasons: readonly string[], destinations: readonly string[], body?: () => void): void {
    this.network = true;
    this.readOnly = false;
    for (const reason of reasons) add(this.why, reason);
    const frame = this.frames[this.frames.length - 1];
    if (frame) frame.readOnly = false;
    const outer = this.remoteActs;
    const files = this.remoteFiles;
    const others = this.remoteOthers;
    const external = this.external;
    this.remoteActs = false;
    this.remoteDepth++;
    try {
      body?.();
    } finally {
      this.remoteDepth--;
    }
    const acted = this.remoteActs;
    this.remoteActs = outer || acted;
    if (acted) {
      this.onlyRemoteReads = false;
      return;
    }
    this.remoteReads++;
    this.local = false;
    // Only a command run on another host (ssh) can print nothing but that host's facts; a query of a
    // server (redis-cli, psql, dig, s3) prints what it stores.
    if (body !== undefined && this.remoteFiles === files && this.remoteOthers === others && (!this.external || external)) this.remoteFactReads++;
    else this.external = true;
    for (const destination of destinations) add(this.destinations, WEB_ADDRESS.test(destination) ? destination : destination.toLowerCase());
  }

  private runShell(label: string, args: readonly Word[], ctx: Context): void {
    let i = 0;
    let command = false;
    for (; i < args.length; i++) {
      const t = args[i].text;
      if (args[i].dynamic) break;
      if (t === "--" || t === "-") {
        i++;
        break;
      }
      if (t === "--rcfile" || t === "--init-file" || t === "-o" || t === "+o" || t === "-O" || t === "+O") {
        i++;
        continue;
      }
      if (t.startsWith("--")) continue;
      if (/^[-+][A-Za-z]+$/.test(t)) {
        if (t[0] === "-" && t.includes("c")) command = true;
        continue;
      }
      break;
    }
    const operands = args.slice(i);
    if (command) {
      this.notReadOnly(`${label} -c runs a shell`);
      this.runText(`${label} -c`, operands.slice(0, 1), ctx, false);
      return;
    }
    if (operands.length > 0) {
      this.notReadOnly(`${label} runs the script ${operands[0].raw}`);
      const script = homeText(operands[0]);
      if (script !== undefined) this.code(ctx, script);
      else this.read(ctx, operands[0].text);
      this.runsCode(ctx, script);
      return;
    }
    this.notReadOnly(`${label} runs commands from its input`);
    // What it runs is what comes in: each file the command reads (`cat x.sh | sh`, `sh < x.sh`).
    this.runsInput = true;
  }

  private runEval(b: Behaviour, label: string, args: readonly Word[], ctx: Context): void {
    this.notReadOnly(`${label} ${b.why ?? KIND_WHY.dynamic}`);
    if (label === "eval") this.runText(label, args, ctx, false, true);
    else if (label === "trap" && args[0] && !args[0].text.startsWith("-")) this.runText(label, args.slice(0, 1), ctx, false);
  }

  private runCd(label: string, args: readonly Word[], ctx: Context): void {
    const operands = args.filter((w) => !/^-[LPe@]+$/.test(w.text));
    const target = operands[0];
    if (target && (target.dynamic || target.glob || target.text === "-" || /^[+-]\d+$/.test(target.text))) {
      this.notReadOnly(`${label} changes to a directory only known at run time`);
      return;
    }
    // pushd alone swaps the two directories on top of the stack.
    if (!target && label === "pushd") {
      this.notReadOnly(`${label} changes to a directory only known at run time`);
      return;
    }
    const dir = target ? target.text : "~";
    this.processPath(dir);
    const next = ctx.cwds.map((cwd) => joinPath(cwd, dir));
    if (label === "pushd") ctx.dirs = [...(ctx.dirs ?? []), ctx.cwds];
    ctx.cwds = [...new Set(next)];
  }

  /** popd returns to where the last pushd of this command left (if it failed, the shell stays: see walkScript). */
  private runPopd(label: string, args: readonly Word[], ctx: Context): void {
    const dirs = ctx.dirs ?? [];
    if (args.length > 0 || dirs.length === 0) {
      this.notReadOnly(`${label} returns to a directory only known at run time`);
      return;
    }
    ctx.cwds = dirs[dirs.length - 1];
    ctx.dirs = dirs.slice(0, -1);
  }

  private runAssign(label: string, args: readonly Word[]): void {
    this.checkNames(
      label,
      args.filter((w) => w.dynamic || !/^[-+][A-Za-z]+$/.test(w.text)),
    );
    let exported = label === "export";
    for (const w of args) {
      const t = w.text;
      if (/^[-+][A-Za-z]+$/.test(t)) {
        if (t[0] === "-" && t.includes("x")) exported = true;
        if (t[0] === "-" && (t.includes("i") || t.includes("n"))) this.notReadOnly(`${label} ${t} makes variables evaluate expressions or other names`);
        continue;
      }
      const name = ASSIGNMENT_NAME.exec(t)?.[0];
      if (!name || !t.includes("=")) continue;
      if (this.rules.safeEnvironment(name)) continue;
      if (exported || !/[a-z]/.test(name)) this.notReadOnly(`${label} ${name} can change how later commands run`);
    }
  }

  /**
   * Names of variables a builtin reads or sets (test -v NAME, read NAME, declare NAME=...): an array
   * element's subscript (`a[$(cmd)]`) is evaluated as arithmetic, which runs what it expands; a
   * name only known at run time may be one.
   */
  private checkNames(label: string, names: readonly Word[]): void {
    for (const w of names) {
      const name = w.text.includes("=") ? w.text.slice(0, w.text.indexOf("=")) : w.text;
      if (w.dynamic) this.notReadOnly(`${label} names a variable only known at run time (an array subscript in it runs commands)`);
      else if (name.includes("[")) this.notReadOnly(`${label} names the array element ${name}, whose subscript bash evaluates (it can run commands)`);
    }
  }

  /**
   * Builtins that set a variable named by an argument (read NAME, printf -v NAME, mapfile NAME,
   * getopts spec NAME): setting PATH or another exported setting changes what later commands run.
   */
  private runSetVariable(label: string, args: readonly Word[]): void {
    const names: Word[] = [];
    const t = texts(args);
    if (label === "printf") {
      const at = t.indexOf("-v");
      if (at !== -1 && args[at + 1]) names.push(args[at + 1]);
      for (const w of args) if (w.text.startsWith("-v") && w.text.length > 2) names.push(literalWord(w.text.slice(2)));
    } else if (label === "getopts") {
      if (args[1]) names.push(args[1]);
    } else {
      if (t.some((x) => /^-[A-Za-z]*C/.test(x))) this.notReadOnly(`${label} -C runs a command for each line`);
      // Flags that take a value; every other operand names a variable.
      const values = new Set(["-d", "-n", "-N", "-p", "-t", "-u", "-i", "-O", "-s", "-c", "-C", "-a"]);
      for (let i = 0; i < args.length; i++) {
        if (values.has(t[i])) {
          if (t[i] === "-a" && args[i + 1]) names.push(args[i + 1]);
          i++;
        } else if (!t[i].startsWith("-")) names.push(args[i]);
      }
    }
    this.checkNames(
      label,
      names.filter((w) => !w.dynamic),
    );
    for (const w of names) {
      if (w.dynamic) this.notReadOnly(`${label} sets a variable only known at run time`);
      else if (!/[a-z]/.test(w.text) && !this.rules.safeEnvironment(w.text))
        this.notReadOnly(`${label} sets ${w.text}, which can change how later commands run`);
    }
  }

  // ---- handlers ---------------------------------------------------------------------------------

  private runFind(label: string, args: readonly Word[], ctx: Context, base: string): void {
    let i = 0;
    let follows = false;
    while (i < args.length && /^-[HLP]$|^-O\d$/.test(args[i].text)) if (args[i++].text === "-L") follows = true;
    if (args[i]?.text === "-D") i += 2;
    const starts: Word[] = [];
    while (i < args.length && !/^[-(!),]/.test(args[i].text)) starts.push(args[i++]);
    const roots = starts.length ? starts.map((w) => (w.dynamic ? w.raw : w.text)) : ["."];
    for (const root of roots) this.read(ctx, root, base);
    if (starts.some((w) => w.dynamic)) this.notReadOnly(`${label} searches a directory only known at run time`);
    // -exec gets only regular files below the roots when every test is ANDed with -type f and no
    // symlink is followed (-type f is then the entry itself: a link is type l). Its command then
    // reads the roots whole, as grep -r would; any other -exec gets names only known at run time.
    const rest = args.slice(i).map((w) => w.text);
    const filesOnly =
      !follows && !starts.some((w) => w.dynamic) && rest.some((t, j) => t === "-type" && rest[j + 1] === "f") && !rest.some((t) => FIND_NOT_AND.has(t));
    const found = roots.map(literalWord);
    for (; i < args.length; i++) {
      const t = args[i].text;
      if (t === "-exec" || t === "-execdir" || t === "-ok" || t === "-okdir") {
        const inner: Word[] = [];
        // A copy of them lands each file flat, not below the roots' tree: its names stay unbounded.
        const bounded = filesOnly && t === "-exec" && !this.copiesFlat(args[i + 1]);
        for (i++; i < args.length && args[i].text !== ";" && args[i].text !== "+"; i++) {
          if (bounded && args[i].text === "{}") inner.push(...found);
          else inner.push(args[i].text.includes("{}") ? RUNTIME_WORD : args[i]);
        }
        if (inner.length === 0) continue;
        if (!bounded) this.notReadOnly(`${label} ${t} runs ${inner[0].raw || "a command"}`);
        // What it runs gets the files below its starting points: their trees are the code it may run.
        this.pointedTrees(
          ctx,
          starts.map((w) => (w.dynamic ? undefined : w.text)),
          base,
        );
        const frame = this.begin();
        this.runArgv(inner, { ...ctx });
        this.end(frame);
      } else if (t === "-delete") {
        this.notReadOnly(`${label} -delete deletes files`);
        for (const root of roots) this.write(ctx, root, base);
      } else if (t === "-fprint" || t === "-fprint0" || t === "-fls" || t === "-fprintf") {
        const file = args[++i];
        if (t === "-fprintf") i++;
        if (file) {
          this.write(ctx, file.text, base);
          this.notReadOnly(`${label} ${t} writes ${file.raw}`);
        }
      } else if (t === "-files0-from") {
        // Starting points read from a file: find prints its content back in its errors.
        const value = args[++i];
        if (value && !value.dynamic) this.read(ctx, value.text, base);
        else this.notReadOnly(`${label} -files0-from reads a file only known at run time`);
      } else if (/^-newer[a-zA-Z]{2}$/.test(t) || FIND_ONE_VALUE.has(t)) {
        i++;
      } else if (args[i].dynamic) {
        this.notReadOnly(`${label} gets an argument only known at run time`);
      }
    }
  }

  private runSed(label: string, args: readonly Word[], ctx: Context, base: string): void {
    const scripts: string[] = [];
    let scriptFile = false;
    let inPlace = false;
    let sandbox = false;
    const operands: Word[] = [];
    for (let i = 0; i < args.length; i++) {
      const w = args[i];
      const t = w.text;
      if (w.dynamic) {
        this.notReadOnly(`${label} gets an argument only known at run time`);
        operands.push(w);
        continue;
      }
      if (t === "--") {
        operands.push(...args.slice(i + 1));
        break;
      }
      if (t.startsWith("--")) {
        const eq = t.indexOf("=");
        const flag = eq === -1 ? t : t.slice(0, eq);
        const value = eq === -1 ? undefined : t.slice(eq + 1);
        if (flag === "--expression") scripts.push(value ?? args[++i]?.text ?? "");
        else if (flag === "--file") {
          scriptFile = true;
          this.read(ctx, value ?? args[++i]?.text ?? "", base);
        } else if (flag === "--in-place") inPlace = true;
        else if (flag === "--sandbox") sandbox = true;
        else if (flag === "--line-length" && value === undefined) i++;
        continue;
      }
      if (t.startsWith("-") && t.length > 1) {
        for (let j = 1; j < t.length; j++) {
          const c = t[j];
          if (c === "i") {
            inPlace = true;
            break;
          }
          if (c === "e" || c === "f" || c === "l") {
            const value = t.slice(j + 1) || args[++i]?.text || "";
            if (c === "e") scripts.push(value);
            if (c === "f") {
              scriptFile = true;
              this.read(ctx, value, base);
            }
            break;
          }
        }
        continue;
      }
      operands.push(w);
    }
    if (scripts.length === 0 && !scriptFile && operands.length > 0) scripts.push(operands.shift()!.text);
    if (scriptFile && !sandbox) this.notReadOnly(`${label} -f runs a script from a file`);
    if (scriptFile) this.runsInput = true;
    if (!sandbox) {
      for (const script of scripts) {
        const found = scanSedScript(script);
        for (const file of found.reads) this.read(ctx, file, base);
        for (const file of found.writes) {
          this.write(ctx, file, base);
          if (!HARMLESS_TARGETS.test(file)) this.notReadOnly(`${label} writes ${file}`);
        }
        if (found.unsafe) this.notReadOnly(`${label} ${found.unsafe}`);
      }
    }
    for (const w of operands) {
      const path = w.dynamic ? w.raw : w.text;
      if (inPlace) this.write(ctx, path, base);
      else this.read(ctx, path, base);
    }
    if (inPlace) this.notReadOnly(`${label} -i writes ${operands.map((w) => w.raw).join(" ") || "files"}`);
  }

  private runAwk(label: string, args: readonly Word[], ctx: Context, base: string): void {
    let program: string | undefined;
    let programFile = false;
    const sources: string[] = [];
    const operands: Word[] = [];
    for (let i = 0; i < args.length; i++) {
      const w = args[i];
      const t = w.text;
      if (w.dynamic && program === undefined && !programFile && sources.length === 0) {
        this.notReadOnly(`${label} runs a program only known at run time`);
        program = "";
        continue;
      }
      if (operands.length > 0 || program !== undefined || programFile || (sources.length > 0 && !t.startsWith("-"))) {
        if (t === "--" && operands.length === 0) continue;
        operands.push(w);
        continue;
      }
      if (t === "--") continue;
      if (t.startsWith("-") && t.length > 1) {
        // Only the options that set a field separator or a variable, or give the program text, in
        // full: gawk takes any unique prefix of a long option and clusters short ones, and its other
        // options write files (-o, -d, -p), read them (-f, -E, -D) or load code (-i, -l).
        const long = t.startsWith("--");
        const eq = t.indexOf("=");
        const flag = long ? (eq === -1 ? t : t.slice(0, eq)) : t.slice(0, 2);
        const attached = long ? (eq === -1 ? "" : t.slice(eq + 1)) : t.slice(2);
        const value = () => (long ? (eq === -1 ? (args[++i]?.text ?? "") : attached) : attached || (args[++i]?.text ?? ""));
        if (flag === "-F" || flag === "-v" || flag === "--field-separator" || flag === "--assign") value();
        else if (flag === "-e" || flag === "--source") sources.push(value());
        else if (flag === "-f" || flag === "-E" || flag === "--file" || flag === "--exec") {
          programFile = true;
          this.read(ctx, value(), base);
        } else if (AWK_PLAIN.has(t)) {
          // Changes only how the program is read (POSIX mode, bytes, intervals), or sandboxes it.
        } else {
          this.notReadOnly(`${label} ${t} is an option that may load code or write files`);
          if (!long && t.length > 2) value();
        }
        continue;
      }
      program = t;
    }
    if (programFile) {
      this.notReadOnly(`${label} -f runs a program from a file`);
      this.runsInput = true;
    }
    for (const text of program !== undefined ? [program, ...sources] : sources) {
      if (text && awkActs(text)) this.notReadOnly(`${label} program may run commands or write files (system, getline, print > or |)`);
    }
    for (const w of operands) {
      if (ENV_ASSIGNMENT.test(w.text)) continue;
      if (w.dynamic) this.notReadOnly(`${label} gets an argument only known at run time`);
      this.read(ctx, w.dynamic ? w.raw : w.text, base);
    }
  }

  private runJq(b: Behaviour, label: string, args: readonly Word[], ctx: Context, base: string): void {
    let filterGiven = false;
    let inPlace = false;
    let restAreArgs = false;
    let argsFrom = -1;
    const operands: Word[] = [];
    for (let i = 0; i < args.length; i++) {
      const w = args[i];
      const t = w.text;
      if (w.dynamic) {
        this.notReadOnly(`${label} gets an argument only known at run time`);
        operands.push(w);
        continue;
      }
      if (t === "--args" || t === "--jsonargs") {
        // The words after it are strings, not files; those before it stay what they were.
        restAreArgs = true;
        argsFrom = operands.length;
        continue;
      }
      if (restAreArgs && !t.startsWith("-")) continue;
      if (t === "--arg" || t === "--argjson") {
        i += 2;
        continue;
      }
      if (t === "--slurpfile" || t === "--rawfile") {
        this.read(ctx, args[i + 2]?.text ?? "", base);
        i += 2;
        continue;
      }
      if (t.startsWith("-") && t.length > 1) {
        const eq = t.indexOf("=");
        const flag = t.startsWith("--") && eq !== -1 ? t.slice(0, eq) : t;
        const value = t.startsWith("--") && eq !== -1 ? t.slice(eq + 1) : undefined;
        if (has(b.unsafeFlags, flag)) inPlace = true;
        if (flag === "-L" || flag === "--library-path") {
          // A directory its import and include read modules and JSON from.
          this.read(ctx, value ?? args[++i]?.text ?? "", base);
          continue;
        }
        if (!t.startsWith("--") && t.startsWith("-L")) {
          // The same with the directory attached (jq -L~/.openclaw).
          this.read(ctx, t.slice(2), base);
          continue;
        }
        if (has(b.readFlags, flag)) {
          filterGiven = true;
          const file = value ?? args[++i]?.text ?? "";
          this.read(ctx, file, base);
          // A program ClawOS does not read: it may read the environment, import files, load others.
          this.notReadOnly(`${label} runs a program from ${file || "a file"}, which can read the environment and other files`);
        } else if (has(b.valueFlags, flag) && value === undefined) i++;
        continue;
      }
      operands.push(w);
    }
    let files = operands;
    if (!filterGiven && operands.length > 0) {
      const first = operands[0].text;
      const looksLikeFile = label.startsWith("yq") && operands.length === 1 && /\.(ya?ml|json|xml|toml|properties|csv|tsv|ini|hcl)$/i.test(first);
      if (!looksLikeFile) files = operands.slice(1);
    }
    if (restAreArgs && argsFrom >= 0) files = files.filter((w) => operands.indexOf(w) < argsFrom);
    // jq's import and include load a module or a JSON file from a search path the program itself
    // may name (import "x" as $x {search: "~/.openclaw"}): files ClawOS cannot place.
    if (label.startsWith("jq") || label.startsWith("gojq") || label.startsWith("jaq")) {
      const program = filterGiven ? undefined : operands[0];
      if (program && !program.dynamic && JQ_IMPORT.test(program.text)) this.notReadOnly(`${label} imports a module or data file its program names`);
    }
    // yq's load functions read the file they name (load_str("~/.ssh/id_ed25519")): a read like
    // any other when the name is a literal, a file only known at run time otherwise.
    if (label.startsWith("yq")) {
      for (const w of args) {
        for (const m of w.text.matchAll(YQ_LOAD)) {
          const path = m[1] ?? m[2];
          if (path !== undefined) this.read(ctx, path, base);
          else this.notReadOnly(`${label} loads a file only known at run time`);
        }
      }
    }
    for (const w of files) {
      const path = w.dynamic ? w.raw : w.text;
      if (inPlace) this.write(ctx, path, base);
      else this.read(ctx, path, base);
    }
    if (inPlace) this.notReadOnly(`${label} -i writes ${files.map((w) => w.raw).join(" ") || "files"}`);
  }

  private runCurl(label: string, args: readonly Word[], ctx: Context, base: string): void {
    // A plain GET (or HEAD) that sends nothing but its address and keeps nothing: read like web_fetch, by where it goes.
    const reads = curlGetUrls(args);
    if (reads) {
      this.remoteRead([`${label} reads ${reads.map(urlHost).join(", ")} over the network`], reads);
      return;
    }
    this.reaches(`${label} reaches the network`);
    const valueShort = "ACDEFHKPQTUXYbcdemortuwxyz";
    const urls: string[] = [];
    const outputs: (string | { remote: true })[] = [];
    let outputDir = "";
    let remoteAll = false;
    let fromHeader = false;
    const handle = (flag: string, value: string | undefined) => {
      switch (flag) {
        case "-o":
        case "--output":
          if (value !== undefined) outputs.push(value);
          break;
        case "-O":
        case "--remote-name":
          outputs.push({ remote: true });
          break;
        case "--remote-name-all":
          remoteAll = true;
          break;
        case "--output-dir":
          outputDir = value ?? "";
          break;
        case "-J":
        case "--remote-header-name":
          fromHeader = true;
          break;
        case "--url":
          if (value !== undefined) urls.push(value);
          break;
        case "-D":
        case "--dump-header":
        case "-c":
        case "--cookie-jar":
        case "--trace":
        case "--trace-ascii":
        case "--stderr":
        case "--libcurl":
        case "--etag-save":
        case "--hsts":
        case "--alt-svc":
          if (value !== undefined && value !== "-" && !HARMLESS_TARGETS.test(value)) this.fetch(ctx, value, base);
          break;
        case "-T":
        case "--upload-file":
        case "-K":
        case "--config":
        case "--netrc-file":
          // A config's url and output lines say where it goes and what it writes: it is code.
          if (value !== undefined && (flag === "-K" || flag === "--config")) this.code(ctx, value, base);
          else if (value !== undefined) this.read(ctx, value, base);
          if (flag === "-K" || flag === "--config") fromHeader = true;
          break;
        default:
          if (flag.startsWith("-d") || flag.startsWith("--data") || flag === "-F" || flag === "--form" || flag === "--json") {
            const at = value?.indexOf("@") ?? -1;
            if (value !== undefined && at !== -1 && (at === 0 || flag === "-F" || flag === "--form")) this.read(ctx, value.slice(at + 1).split(";")[0], base);
          }
      }
    };
    for (let i = 0; i < args.length; i++) {
      const w = args[i];
      const t = w.text;
      if (w.dynamic) {
        urls.push(w.raw);
        continue;
      }
      if (t.startsWith("--") && t.length > 2) {
        const eq = t.indexOf("=");
        const flag = eq === -1 ? t : t.slice(0, eq);
        let value = eq === -1 ? undefined : t.slice(eq + 1);
        if (value === undefined && CURL_LONG.has(flag)) value = args[++i]?.text;
        handle(flag, value);
        continue;
      }
      if (t.startsWith("-") && t.length > 1) {
        for (let j = 1; j < t.length; j++) {
          const c = t[j];
          if (valueShort.includes(c)) {
            const value = t.slice(j + 1) || args[++i]?.text;
            handle(`-${c}`, value);
            break;
          }
          handle(`-${c}`, undefined);
        }
        continue;
      }
      urls.push(t);
    }
    if (fromHeader) this.fetch(ctx, outputDir || ".", base);
    let u = 0;
    for (const output of outputs) {
      const url = urls[u++] ?? "";
      const file = typeof output === "string" ? output : remoteName(url, "curl_response");
      if (file === "-" || HARMLESS_TARGETS.test(file)) continue;
      this.fetch(ctx, joinPath(outputDir, file), base);
    }
    if (remoteAll) for (; u < urls.length; u++) this.fetch(ctx, joinPath(outputDir, remoteName(urls[u], "curl_response")), base);
  }

  private runWget(label: string, args: readonly Word[], ctx: Context, base: string): void {
    this.reaches(`${label} reaches the network`);
    const valueShort = "OoaPitTwQlUeBDRAIXY";
    let document: string | undefined;
    let prefix = "";
    let recursive = false;
    let noHostDirs = false;
    let byHeader = false;
    const urls: string[] = [];
    const handle = (flag: string, value: string | undefined) => {
      switch (flag) {
        case "-O":
        case "--output-document":
          document = value;
          break;
        case "-P":
        case "--directory-prefix":
          prefix = value ?? "";
          break;
        case "-o":
        case "--output-file":
        case "-a":
        case "--append-output":
        case "--rejected-log":
          if (value) this.write(ctx, value, base);
          break;
        case "--save-cookies":
          if (value) this.fetch(ctx, value, base);
          break;
        case "-i":
        case "--input-file":
        case "--post-file":
        case "--body-file":
        case "--load-cookies":
        case "--config":
          if (value) this.read(ctx, value, base);
          if (flag === "-i" || flag === "--input-file") byHeader = true;
          break;
        case "-r":
        case "--recursive":
        case "-m":
        case "--mirror":
        case "-p":
        case "--page-requisites":
          recursive = true;
          break;
        case "-nH":
        case "--no-host-directories":
        case "-nd":
        case "--no-directories":
          noHostDirs = true;
          break;
        case "--content-disposition":
        case "--trust-server-names":
          byHeader = true;
          break;
        default:
          break;
      }
    };
    for (let i = 0; i < args.length; i++) {
      const w = args[i];
      const t = w.text;
      if (w.dynamic) {
        urls.push(w.raw);
        continue;
      }
      if (t === "-nH" || t === "-nd" || t === "-nc" || t === "-nv" || t === "-np") {
        handle(t, undefined);
        continue;
      }
      if (t.startsWith("--") && t.length > 2) {
        const eq = t.indexOf("=");
        const flag = eq === -1 ? t : t.slice(0, eq);
        let value = eq === -1 ? undefined : t.slice(eq + 1);
        if (value === undefined && WGET_LONG_VALUES.has(flag)) value = args[++i]?.text;
        handle(flag, value);
        continue;
      }
      if (t.startsWith("-") && t.length > 1) {
        for (let j = 1; j < t.length; j++) {
          const c = t[j];
          if (valueShort.includes(c)) {
            handle(`-${c}`, t.slice(j + 1) || args[++i]?.text);
            break;
          }
          handle(`-${c}`, undefined);
        }
        continue;
      }
      urls.push(t);
    }
    if (document !== undefined) {
      if (document !== "-" && !HARMLESS_TARGETS.test(document)) this.fetch(ctx, document, base);
      return;
    }
    if (byHeader) {
      this.fetch(ctx, prefix || ".", base);
      return;
    }
    for (const url of urls) {
      if (recursive) this.fetch(ctx, noHostDirs ? prefix || "." : joinPath(prefix, urlHost(url) || "."), base);
      else this.fetch(ctx, joinPath(prefix, remoteName(url, "index.html")), base);
    }
  }

  private runTar(label: string, args: readonly Word[], ctx: Context, base: string): void {
    let list = [...args];
    if (list[0] && !list[0].dynamic && /^[A-Za-z]+$/.test(list[0].text)) list = [literalWord(`-${list[0].text}`), ...list.slice(1)];
    const valueShort = "fCTXbHKLNVgIFs";
    let mode: "c" | "x" | "t" | "r" | "u" | "d" | "A" | "delete" | undefined;
    let file: string | undefined;
    let dir: string | undefined;
    let toStdout = false;
    let follows = false;
    const operands: Word[] = [];
    const handle = (flag: string, value: string | undefined) => {
      switch (flag) {
        case "-c":
        case "--create":
          mode = "c";
          break;
        case "-x":
        case "--extract":
        case "--get":
          mode = "x";
          break;
        case "-t":
        case "--list":
          mode = "t";
          break;
        case "-r":
        case "--append":
          mode = "r";
          break;
        case "-u":
        case "--update":
          mode = "u";
          break;
        case "-d":
        case "--diff":
        case "--compare":
          mode = "d";
          break;
        case "-A":
        case "--catenate":
        case "--concatenate":
          mode = "A";
          break;
        case "--delete":
          mode = "delete";
          break;
        case "-f":
        case "--file":
          file = value;
          break;
        case "-C":
        case "--directory":
          dir = value;
          break;
        case "-O":
        case "--to-stdout":
          toStdout = true;
          break;
        case "-h":
        case "--dereference":
          follows = true;
          break;
        case "-T":
        case "--files-from":
          // The files it archives are named in a list ClawOS does not read.
          if (value) this.read(ctx, value, base);
          this.notReadOnly(`${label} ${flag} takes the names of the files it reads from a list`);
          break;
        case "-X":
        case "--exclude-from":
          if (value) this.read(ctx, value, base);
          break;
        case "--remove-files":
          this.notReadOnly(`${label} --remove-files deletes the files it archives`);
          break;
        case "-g":
        case "--listed-incremental":
        case "--volno-file":
          if (value) this.write(ctx, value, base);
          this.notReadOnly(`${label} ${flag} writes ${value ?? "a file"}`);
          break;
        case "-I":
        case "--use-compress-program":
        case "-F":
        case "--info-script":
        case "--new-volume-script":
        case "--to-command":
        case "--rsh-command":
          this.notReadOnly(`${label} ${flag} runs another program`);
          break;
        case "--checkpoint-action":
          if (value?.startsWith("exec")) this.notReadOnly(`${label} ${flag} runs another program`);
          break;
        case "--index-file":
          if (value) this.write(ctx, value, base);
          this.notReadOnly(`${label} ${flag} writes ${value ?? "a file"}`);
          break;
        case "--force-local":
          forceLocal = true;
          break;
        default:
          break;
      }
    };
    let forceLocal = false;
    for (let i = 0; i < list.length; i++) {
      const w = list[i];
      const t = w.text;
      if (w.dynamic) {
        this.notReadOnly(`${label} gets an argument only known at run time`);
        operands.push(w);
        continue;
      }
      if (t.startsWith("--") && t.length > 2) {
        const eq = t.indexOf("=");
        // GNU tar takes any unique prefix of a long option (--use-comp=, --checkpoint-act=).
        const flag = tarLongFlag(eq === -1 ? t : t.slice(0, eq));
        let value = eq === -1 ? undefined : t.slice(eq + 1);
        if (value === undefined && TAR_LONG_VALUES.has(flag)) value = list[++i]?.text;
        handle(flag, value);
        continue;
      }
      if (t.startsWith("-") && t.length > 1) {
        const pending: string[] = [];
        for (let j = 1; j < t.length; j++) {
          const c = t[j];
          if (valueShort.includes(c)) {
            if (i === 0 && !args[0].text.startsWith("-")) {
              // Old style (tar xzf a.tgz): each value letter takes the next argument in turn.
              pending.push(`-${c}`);
              continue;
            }
            handle(`-${c}`, t.slice(j + 1) || list[++i]?.text);
            break;
          }
          handle(`-${c}`, undefined);
        }
        for (const flag of pending) handle(flag, list[++i]?.text);
        continue;
      }
      operands.push(w);
    }
    const archive = file ?? "-";
    // GNU tar takes an archive named host:path (a colon before any slash) to be on another host,
    // reached through rsh or ssh: looking the host up alone sends the name out.
    if (file !== undefined && !forceLocal && /^[^/]*:/.test(file)) this.reaches(`${label} -f ${file} names an archive on another host`);
    const where = dir !== undefined ? joinPath(base, dir) : base;
    switch (mode) {
      case "x":
        this.read(ctx, archive, base);
        if (toStdout) return;
        this.fetch(ctx, where || ".", "");
        this.notReadOnly(`${label} extracts files into ${where || "."}`);
        return;
      case "t":
      case "d":
        this.read(ctx, archive, base);
        return;
      case "c":
      case "r":
      case "u":
      case "A":
      case "delete":
        for (const w of operands) {
          this.read(ctx, w.text, where);
          if (follows) this.followLinks(ctx, w.text, undefined, where);
        }
        if (archive !== "-") {
          this.write(ctx, archive, base);
          this.notReadOnly(`${label} writes ${archive}`);
        }
        return;
      default:
        this.notReadOnly(`${label} without a mode`);
    }
  }

  private runUnzip(label: string, args: readonly Word[], ctx: Context, base: string): void {
    let dir: string | undefined;
    let listing = false;
    const operands: Word[] = [];
    for (let i = 0; i < args.length; i++) {
      const w = args[i];
      const t = w.text;
      if (w.dynamic) {
        this.notReadOnly(`${label} gets an argument only known at run time`);
        operands.push(w);
        continue;
      }
      if (t === "-x") {
        while (i + 1 < args.length && !args[i + 1].text.startsWith("-")) i++;
        continue;
      }
      if (t.startsWith("-") && t.length > 1) {
        for (let j = 1; j < t.length; j++) {
          const c = t[j];
          if (c === "d" || c === "P") {
            const value = t.slice(j + 1) || args[++i]?.text;
            if (c === "d") dir = value;
            break;
          }
          if ("lvtZzpc".includes(c)) listing = true;
        }
        continue;
      }
      operands.push(w);
    }
    if (operands[0]) this.read(ctx, operands[0].text, base);
    if (listing) return;
    const where = dir !== undefined ? joinPath(base, dir) : base;
    this.fetch(ctx, where || ".", "");
    this.notReadOnly(`${label} extracts files into ${where || "."}`);
  }

  private runSevenZip(label: string, args: readonly Word[], ctx: Context, base: string): void {
    const operands = args.filter((w) => !w.text.startsWith("-"));
    const out = args.find((w) => w.text.startsWith("-o"))?.text.slice(2);
    const command = operands[0]?.text ?? "";
    const archive = operands[1]?.text;
    if (archive) this.read(ctx, archive, base);
    if (command === "l" || command === "t" || command === "v") return;
    if (command === "x" || command === "e") {
      const dir = out ?? (label.startsWith("unrar") ? operands[operands.length - 1]?.text : undefined);
      const where = dir && dir !== archive && (label.startsWith("unrar") ? dir.endsWith("/") || out !== undefined : true) ? joinPath(base, dir) : base;
      this.fetch(ctx, where || ".", "");
      this.notReadOnly(`${label} extracts files into ${where || "."}`);
      return;
    }
    if (archive) this.write(ctx, archive, base);
    this.notReadOnly(`${label} ${command || "without a command"} changes an archive`);
  }

  private runCompress(label: string, args: readonly Word[], ctx: Context, base: string): void {
    let toStdout = false;
    const operands: Word[] = [];
    for (const w of args) {
      const t = w.text;
      if (t === "--stdout" || t === "--to-stdout" || t === "--list" || t === "--test") toStdout = true;
      else if (/^-[A-Za-z0-9]+$/.test(t)) {
        if (/[clt]/.test(t.slice(1))) toStdout = true;
        // zstd -o writes where it says whatever -c says; -D reads a dictionary; --rm, a file list
        // (xz --files, zstd --filelist) and other letters: not a plain (de)compression.
        if (!/^-(?:[cdfhklLnNqtvzT0-9#]+)$/.test(t)) this.notReadOnly(`${label} ${t} is a flag ClawOS does not know for this program`);
      } else if (t.startsWith("--")) {
        if (!COMPRESS_PLAIN_LONG.test(t)) this.notReadOnly(`${label} ${t} is a flag ClawOS does not know for this program`);
      } else operands.push(w);
    }
    if (operands.length === 0 || toStdout) {
      for (const w of operands) this.read(ctx, w.dynamic ? w.raw : w.text, base);
      if (args.some((w) => w.dynamic)) this.notReadOnly(`${label} gets an argument only known at run time`);
      return;
    }
    for (const w of operands) this.write(ctx, w.dynamic ? w.raw : w.text, base);
    this.notReadOnly(`${label} replaces ${operands.map((w) => w.raw).join(" ")} with a (de)compressed file`);
  }

  private runCopy(label: string, args: readonly Word[], ctx: Context, base: string): void {
    let target: string | undefined;
    let dirsOnly = false;
    let parents = false;
    const operands: Word[] = [];
    let dashdash = false;
    for (let i = 0; i < args.length; i++) {
      const w = args[i];
      const t = w.text;
      if (dashdash || w.dynamic || !t.startsWith("-") || t.length === 1) {
        operands.push(w);
        continue;
      }
      if (t === "--") {
        dashdash = true;
        continue;
      }
      const eq = t.indexOf("=");
      const flag = t.startsWith("--") && eq !== -1 ? t.slice(0, eq) : t.startsWith("--") ? t : t.slice(0, 2);
      const attached = t.startsWith("--") ? (eq === -1 ? "" : t.slice(eq + 1)) : t.slice(2);
      if (flag === "-t" || flag === "--target-directory") target = attached || args[++i]?.text;
      else if (flag === "--parents" && !label.startsWith("install")) parents = true;
      else if (label.startsWith("install") && flag === "-d") dirsOnly = true;
      else if (COPY_VALUES.has(flag) && !attached && (t.startsWith("--") ? eq === -1 : t.length === 2)) i++;
    }
    // A name only run time gives (find's {}, xargs' input) stands as {}: the copy is recorded, from a file nobody can name.
    const path = (w: Word) => (w.dynamic ? w.raw || RUNTIME_NAME : w.text);
    if (dirsOnly) {
      for (const w of operands) this.write(ctx, path(w), base);
      this.notReadOnly(`${label} -d creates directories`);
      return;
    }
    const sources = target !== undefined ? operands : operands.slice(0, -1);
    const dest = target ?? (operands.length > 1 ? path(operands[operands.length - 1]) : undefined);
    // A pattern (`cp notes/*.md dst/`) copies files from the directory its names stay below: that
    // directory's contents, as far as ClawOS can tell which.
    const from = (w: Word) => (w.glob && !w.dynamic ? globRoot(w.text) : undefined);
    for (const w of sources) {
      const root = from(w);
      this.read(ctx, root ?? path(w), base);
      if (root !== undefined) this.followLinks(ctx, root, w.text, base);
    }
    if (/^(g?mv|git mv)\b/.test(label)) for (const w of sources) this.write(ctx, from(w) ?? path(w), base);
    if (dest !== undefined) {
      this.write(ctx, dest, base);
      for (const w of sources) {
        const root = from(w);
        const source = root ?? path(w);
        // --parents recreates the source's own directories below the destination (cp --parents a/b.md dst: dst/a/b.md).
        const parent = parents ? (root ?? posix.dirname(source)) : undefined;
        const below = parent?.replace(/^\/+/, "");
        const lands: string = below && below !== "." ? joinPath(dest, below) : dest;
        if (lands !== dest) this.write(ctx, lands, base);
        this.copy(ctx, source, lands, base, root !== undefined ? { contents: true } : { into: parents || target !== undefined || sources.length > 1 });
      }
      this.notReadOnly(`${label} writes ${dest}`);
    } else this.notReadOnly(`${label} ${KIND_WHY.write}`);
  }

  private runDd(label: string, args: readonly Word[], ctx: Context, base: string): void {
    let output = false;
    for (const w of args) {
      if (w.text.startsWith("if=")) this.read(ctx, w.text.slice(3), base);
      if (w.text.startsWith("of=")) {
        output = true;
        this.write(ctx, w.text.slice(3), base);
        this.notReadOnly(`${label} writes ${w.text.slice(3)}`);
      }
    }
    if (!output) this.notReadOnly(`${label} copies raw data`);
  }

  private runChmod(b: Behaviour, label: string, args: readonly Word[], ctx: Context, base: string): void {
    this.notReadOnly(`${label} ${b.why ?? KIND_WHY.destructive}`);
    let reference = false;
    const operands: Word[] = [];
    for (const w of args) {
      const t = w.text;
      if (t.startsWith("--")) {
        if (t.startsWith("--reference")) reference = true;
        continue;
      }
      // A mode like -x or -w is an operand; only the known option letters are options.
      if (/^-[RfvchHLP]+$/.test(t)) continue;
      operands.push(w);
    }
    for (const w of operands.slice(reference ? 0 : 1)) this.write(ctx, w.dynamic ? w.raw : w.text, base);
  }

  private runRemoteCopy(label: string, args: readonly Word[], ctx: Context, base: string): void {
    const scp = label.startsWith("scp");
    const values = scp ? SCP_VALUES : RSYNC_VALUES;
    const operands: Word[] = [];
    for (let i = 0; i < args.length; i++) {
      const w = args[i];
      const t = w.text;
      if (w.dynamic || !t.startsWith("-") || t.length === 1) {
        operands.push(w);
        continue;
      }
      const eq = t.indexOf("=");
      const flag = eq === -1 ? t : t.slice(0, eq);
      const value = eq === -1 ? (values.has(flag) ? args[++i]?.text : undefined) : t.slice(eq + 1);
      if ((flag === "-e" || flag === "--rsh" || flag === "--rsync-path" || flag === "-S") && value) this.notReadOnly(`${label} ${flag} runs ${value}`);
      if ((flag === "--exclude-from" || flag === "--include-from" || flag === "--files-from" || flag === "-F" || flag === "-i") && value)
        this.read(ctx, value, base);
      if (flag === "--log-file" && value) this.write(ctx, value, base);
    }
    const isRemote = (w: Word) => /^[a-z]+:\/\//i.test(w.text) || /^[^/]*[^/\\]:/.test(w.text);
    const sources = operands.slice(0, -1);
    const dest = operands[operands.length - 1];
    if (operands.some(isRemote)) this.reaches(`${label} reaches the network`);
    if (!dest) return;
    for (const w of sources) if (!isRemote(w)) this.read(ctx, w.text, base);
    if (isRemote(dest)) {
      this.notReadOnly(`${label} sends files to ${dest.raw}`);
      return;
    }
    if (sources.some(isRemote)) this.fetch(ctx, dest.text, base);
    else this.write(ctx, dest.text, base);
    // rsync copies what is in a source written with a trailing slash, not the directory itself.
    for (const w of sources) {
      if (!isRemote(w)) this.copy(ctx, w.text, dest.text, base, { into: sources.length > 1, contents: !scp && /\/\.?$/.test(w.text) });
    }
    this.notReadOnly(`${label} writes ${dest.raw}`);
  }

  private runSsh(label: string, args: readonly Word[], ctx: Context): void {
    let i = 0;
    let plain = true;
    for (; i < args.length; i++) {
      const t = args[i].text;
      if (args[i].dynamic || !t.startsWith("-") || t.length < 2) break;
      if (t === "--") {
        i++;
        break;
      }
      for (let j = 1; j < t.length; j++) {
        const flag = `-${t[j]}`;
        if (!SSH_PLAIN.has(flag)) plain = false;
        if (SSH_VALUES.has(flag)) {
          // A config file's ProxyCommand and LocalCommand run here: it is code.
          if (flag === "-F") {
            const file = j === t.length - 1 ? args[i + 1] : literalWord(t.slice(j + 1));
            if (file && !file.dynamic) this.code(ctx, file.text);
          }
          if (j === t.length - 1) i++;
          break;
        }
      }
    }
    const host = args[i];
    const remote = args.slice(i + 1);
    // A command run on a host named as it stands, with no forwarding, proxy or other config: a remote read when it reads.
    if (plain && !ctx.remote && host && !host.dynamic && remote.length > 0) {
      this.remoteRead(
        [`${label} connects to ${host.raw}`, `${label} runs ${remote[0].raw} on ${host.raw}`],
        [host.text.slice(host.text.lastIndexOf("@") + 1)],
        () => this.runText(`${label} ${host.raw}`, remote, ctx, true),
      );
      return;
    }
    this.reaches(`${label} connects to ${host?.raw ?? "a host"}`);
    if (remote.length === 0) return;
    this.notReadOnly(`${label} runs ${remote[0].raw} on ${host.raw}`);
    this.runText(`${label} ${host.raw}`, remote, ctx, true);
  }

  /** `redis-cli [-h host] [-p port] [-n db] COMMAND args`: a read command is a remote read of that server. */
  private runRedis(label: string, args: readonly Word[], ctx: Context): void {
    let host: string | undefined;
    let plain = !ctx.remote;
    let scan = false;
    let i = 0;
    for (; i < args.length; i++) {
      const w = args[i];
      if (w.dynamic) {
        plain = false;
        break;
      }
      if (!w.text.startsWith("-")) break;
      const flag = w.text;
      if (REDIS_SCANS.has(flag)) {
        scan = true;
        continue;
      }
      if (REDIS_SCAN_VALUES.has(flag)) {
        const value = args[++i];
        if (!value || value.dynamic) plain = false;
        continue;
      }
      if (REDIS_VALUES.has(flag)) {
        const value = args[++i];
        if (!value || value.dynamic) plain = false;
        else if (flag === "-h") host = value.text;
        else if (flag === "-u") {
          host = redisUriHost(value.text);
          if (host === undefined) plain = false;
        }
        continue;
      }
      if (!REDIS_PLAIN.has(flag)) plain = false;
    }
    const command = args.slice(i);
    const name = command[0]?.text.toLowerCase();
    const two = command[1] ? `${name} ${command[1].text.toLowerCase()}` : undefined;
    const reading =
      plain &&
      (scan
        ? command.length === 0
        : name !== undefined && !command.some((w) => w.dynamic) && (REDIS_READS.has(name) || (two !== undefined && REDIS_READS.has(two))));
    if (!reading) {
      this.reaches(`${label} talks to a Redis server`);
      return;
    }
    // The local server (no -h) is this host's own daemon: nothing to look up.
    const local = !host || host === "localhost" || host === "127.0.0.1" || host === "::1";
    this.remoteRead([`${label} talks to a Redis server`], local || !host ? [] : [host]);
  }

  /**
   * `psql [-h host] [-U user] [-d db] -c 'SQL' ...`: queries that only read (`readOnlySql`) are a
   * remote read of that server. No query (psql reads stdin), a script file, an output or log file,
   * or anything else it cannot tell apart talks to the server as the owner.
   */
  private runPsql(label: string, args: readonly Word[], ctx: Context): void {
    // A script it runs (-f, or its input) may hold \! lines, which run shell commands here.
    this.runsInput = true;
    for (let i = 0; i < args.length; i++) {
      const t = args[i].text;
      const file = t === "-f" || t === "--file" ? args[i + 1] : undefined;
      if (file && !file.dynamic) this.code(ctx, file.text);
      else if (t.startsWith("--file=")) this.code(ctx, t.slice("--file=".length));
      else if (/^-f./.test(t)) this.code(ctx, t.slice(2));
    }
    const hosts: string[] = [];
    const queries: string[] = [];
    let plain = !ctx.remote;
    let listing = false;
    const positional: string[] = [];
    const value = (flag: string, text: string) => {
      if (flag === "h" || flag === "host") hosts.push(...text.split(","));
      else if (flag === "c" || flag === "command") queries.push(text);
      else if (flag === "d" || flag === "dbname") positional.unshift(text);
    };
    for (let i = 0; i < args.length && plain; i++) {
      const w = args[i];
      if (w.dynamic) {
        plain = false;
        break;
      }
      const t = w.text;
      if (t.startsWith("--")) {
        const eq = t.indexOf("=");
        const name = t.slice(2, eq < 0 ? undefined : eq);
        if (PSQL_LONG_PLAIN.has(name) && eq < 0) listing ||= name === "list";
        else if (PSQL_LONG_VALUES.has(name)) {
          const v = eq < 0 ? args[++i] : undefined;
          if (eq < 0 && (!v || v.dynamic)) plain = false;
          else value(name, eq < 0 ? (v as Word).text : t.slice(eq + 1));
        } else plain = false;
        continue;
      }
      if (t.startsWith("-") && t.length > 1) {
        for (let j = 1; j < t.length; j++) {
          const flag = t[j];
          if (PSQL_SHORT_PLAIN.includes(flag)) {
            listing ||= flag === "l";
            continue;
          }
          if (!PSQL_SHORT_VALUES.includes(flag)) {
            plain = false;
            break;
          }
          const rest = t.slice(j + 1);
          const v = rest ? undefined : args[++i];
          if (!rest && (!v || v.dynamic)) plain = false;
          else value(flag, rest || (v as Word).text);
          break;
        }
        continue;
      }
      positional.push(t);
    }
    // The database operand may be a connection URI or string that names the server.
    for (const operand of positional.slice(0, 1)) hosts.push(...psqlConnectionHosts(operand));
    const reading = plain && positional.length <= 2 && (queries.length > 0 || listing) && queries.every(readOnlySql);
    if (!reading) {
      this.reaches(`${label} talks to a PostgreSQL server`);
      return;
    }
    // No host, a socket directory or loopback: this host's own server.
    const remote = hosts.filter((h) => h !== "" && !h.startsWith("/") && h !== "localhost" && h !== "127.0.0.1" && h !== "::1");
    this.remoteRead([`${label} queries a PostgreSQL server`], remote);
  }

  /** `dig [@server] name [type] [+options]`: a lookup sends its names to the resolver and on to their servers. */
  private runDig(label: string, args: readonly Word[], ctx: Context): void {
    const names: string[] = [];
    let plain = !ctx.remote;
    for (let i = 0; i < args.length; i++) {
      const w = args[i];
      const t = w.text;
      if (w.dynamic) {
        plain = false;
        continue;
      }
      if (t.startsWith("+") && label === "dig") continue;
      if (t.startsWith("@")) {
        names.push(t.slice(1));
        continue;
      }
      // nslookup's options are one word each (-type=MX, -debug); host takes a few with a value.
      if (label === "nslookup" && t.startsWith("-") && t.length > 1) {
        const option = t.slice(1).split("=")[0]?.toLowerCase() ?? "";
        if (!NSLOOKUP_OPTIONS.has(option)) plain = false;
        continue;
      }
      if (label === "host" && HOST_VALUES.has(t)) {
        const value = args[++i];
        if (!value || value.dynamic) plain = false;
        continue;
      }
      if (label === "host" && HOST_PLAIN.has(t)) continue;
      if (DIG_VALUES.has(t)) {
        const value = args[++i];
        if (!value || value.dynamic) plain = false;
        else if (t === "-q" || t === "-x") names.push(value.text);
        continue;
      }
      if (DIG_PLAIN.has(t)) continue;
      // -f reads names from a file, -k and -y carry a key: not a plain lookup.
      if (t.startsWith("-")) {
        plain = false;
        continue;
      }
      if (!DNS_WORDS.has(t.toUpperCase())) names.push(t);
    }
    if (!plain || names.length === 0) {
      this.reaches(`${label} sends DNS queries`);
      return;
    }
    this.remoteRead([`${label} sends DNS queries`], names);
  }

  /**
   * `aws s3 ls s3://bucket/...` and `aws s3api head-object|list-objects... --bucket B`: reads of an S3
   * bucket, a remote read whose destination is the bucket (its owner can read the requests in its
   * logs). Every other aws command reaches the network and may change things.
   */
  private runAws(label: string, args: readonly Word[], ctx: Context): void {
    const words: string[] = [];
    let plain = !ctx.remote;
    let bucket: string | undefined;
    for (let i = 0; i < args.length; i++) {
      const w = args[i];
      if (w.dynamic) {
        plain = false;
        continue;
      }
      const t = w.text;
      const eq = t.indexOf("=");
      const flag = t.startsWith("--") && eq !== -1 ? t.slice(0, eq) : t;
      const inline = t.startsWith("--") && eq !== -1 ? t.slice(eq + 1) : undefined;
      if (AWS_VALUES.has(flag)) {
        const value = inline ?? args[++i]?.text;
        if (inline === undefined && (!args[i] || args[i].dynamic)) plain = false;
        if (flag === "--bucket" && value !== undefined) bucket = value;
        continue;
      }
      if (flag.startsWith("--")) {
        if (!AWS_PLAIN.has(flag)) plain = false;
        continue;
      }
      words.push(t);
    }
    const [service, operation, target] = words;
    const s3Uri = target?.startsWith("s3://") ? target.slice(5).split("/")[0] : undefined;
    const reading =
      plain &&
      ((service === "s3" && operation === "ls" && words.length <= 3 && s3Uri !== undefined && s3Uri !== "") ||
        (service === "s3api" && operation !== undefined && AWS_S3API_READS.has(operation) && words.length === 2 && bucket !== undefined));
    if (!reading) {
      this.reaches(`${[label, ...words.slice(0, 2)].join(" ")} reaches the network`);
      return;
    }
    this.remoteRead([`${label} ${service} ${operation} reads an S3 bucket`], [s3Uri ?? bucket ?? ""]);
  }

  private runPython(label: string, args: readonly Word[], ctx: Context, base: string): void {
    for (let i = 0; i < args.length; i++) {
      const t = args[i].text;
      if (t === "-c") {
        this.local = false;
        this.notReadOnly(`${label} -c runs code`);
        // Its imports come from the working directory first, and it may run a file it names.
        this.runsCode(ctx);
        this.pointedTrees(ctx, [args[i + 1]?.dynamic ? undefined : args[i + 1]?.text], base);
        return;
      }
      if (t === "-m" || (t.startsWith("-m") && t.length > 2 && !t.startsWith("--"))) {
        const module = t === "-m" ? args[i + 1]?.text : t.slice(2);
        const rest = args.slice(t === "-m" ? i + 2 : i + 1);
        if (module === "pip") {
          const pip = this.rules.programs.get("pip");
          if (pip) {
            this.runSubcommand(pip, "pip", rest, ctx, base);
            return;
          }
        }
        if ((module === "venv" || module === "virtualenv") && rest.length) {
          // An environment is installed dependencies (its pip, what is installed into it later): the
          // code the call chose, like uv's or npm's, not the project's own files.
          for (const w of rest) if (!w.text.startsWith("-")) this.fetch(ctx, w.text, base, true);
          this.notReadOnly(`${label} -m ${module} creates a virtual environment`);
          return;
        }
        // `python -m pytest`, given only what pytest may be given as a check, is that check.
        const check = i === 0 && module === "pytest" ? this.rules.programs.get("pytest")?.spec.check : undefined;
        if (check && this.remoteDepth === 0 && !ctx.remote && checksOnly(check, "pytest", rest)) this.checkOnly(`${label} -m pytest runs code`);
        else this.notReadOnly(`${label} -m ${module ?? ""} runs code`.replace("  ", " "));
        // The module is looked up in the working directory first, and a test runner runs the tree
        // (and the trees it is pointed at: python -m pytest ~/proj/tests).
        this.runsCode(ctx);
        this.pointedTrees(ctx, rest.map(homeText), base);
        if (module !== undefined && DOC_MODULES.has(module)) this.runsDocs = true;
        return;
      }
      if (t === "-W" || t === "-X" || t === "--check-hash-based-pycs") {
        i++;
        continue;
      }
      if (t.startsWith("-") && t !== "-") continue;
      if (t === "-") this.local = false;
      this.notReadOnly(`${label} runs ${t === "-" ? "code from its input" : args[i].raw}`);
      const script = t === "-" ? undefined : homeText(args[i]);
      if (script !== undefined) this.code(ctx, script, base);
      else if (t !== "-") this.read(ctx, t, base);
      this.runsCode(ctx, script, base);
      this.scriptArguments(ctx, args.slice(i + 1), base);
      if (t === "-") this.runsInput = true;
      // A script prints what it fetches, queries or opens by name (a page, a database's rows, a log):
      // others' text, unlike a build's report on the tree.
      this.local = false;
      return;
    }
    this.local = false;
    this.notReadOnly(`${label} runs code from its input`);
    this.runsCode(ctx);
    this.runsInput = true;
  }

  private runPipInstall(label: string, args: readonly Word[], ctx: Context, base: string): void {
    this.reaches(`${label} installs packages from the network`);
    // A requirements file's options and a local project's setup.py are the tree's: what they say runs.
    this.runsTree = true;
    this.runsCwd = true;
    for (let i = 0; i < args.length; i++) {
      const t = args[i].text;
      const eq = t.indexOf("=");
      const flag = t.startsWith("--") && eq !== -1 ? t.slice(0, eq) : t;
      const value = () => (t.startsWith("--") && eq !== -1 ? t.slice(eq + 1) : args[++i]?.text);
      if (flag === "-t" || flag === "--target" || flag === "--prefix" || flag === "--root" || flag === "--src") {
        const dir = value();
        if (dir) this.fetch(ctx, dir, base);
      } else if (flag === "-r" || flag === "--requirement" || flag === "-c" || flag === "--constraint") {
        // Its options name indexes and URLs to install from, whatever the file is called.
        const file = value();
        if (file) this.code(ctx, file, base);
      } else if (flag === "-e" || flag === "--editable") {
        const path = value();
        if (path && !/^[a-z+]+:/.test(path)) this.read(ctx, path, base);
      } else if (PIP_INSTALL_VALUES.has(flag) && eq === -1) i++;
    }
  }

  private runClone(label: string, args: readonly Word[], ctx: Context, base: string): void {
    this.reaches(`${label} downloads a repository`);
    const operands: Word[] = [];
    for (let i = 0; i < args.length; i++) {
      const w = args[i];
      const t = w.text;
      if (t === "--") {
        // gh repo clone passes what follows to git.
        if (label.startsWith("gh")) break;
        operands.push(...args.slice(i + 1));
        break;
      }
      if (w.dynamic || !t.startsWith("-") || t.length === 1) {
        operands.push(w);
        continue;
      }
      const eq = t.indexOf("=");
      const flag = eq === -1 ? t : t.slice(0, eq);
      if (flag === "-u" || flag === "--upload-pack" || flag === "-c" || flag === "--config" || flag === "--template") {
        this.notReadOnly(`${label} ${flag} can run commands`);
      }
      if (CLONE_VALUES.has(flag) && eq === -1 && !(t.length > 2 && !t.startsWith("--"))) i++;
    }
    const source = operands[0];
    if (!source) return;
    if (source.dynamic || operands[1]?.dynamic) this.notReadOnly(`${label} gets an argument only known at run time`);
    const dest = operands[1] ? (operands[1].dynamic ? operands[1].raw : operands[1].text) : repositoryName(source.text);
    this.fetch(ctx, dest || ".", base);
    // Git writes the new repository's settings itself; a separate git directory is not followed.
    if (ctx.remote || args.some((w) => w.text.startsWith("--separate-git-dir"))) return;
    const bare = args.some((w) => w.text === "--bare" || w.text === "--mirror");
    for (const p of this.paths(ctx, bare ? dest || "." : joinPath(dest || ".", ".git"), base)) add(this.madeRepositories, p);
  }
}

/** Git subcommands that need no repository where they run: they make one, or only print. */
const GIT_OUTSIDE_REPOSITORY = new Set(["clone", "init", "help", "version"]);

const FIND_ONE_VALUE = new Set([
  "-name",
  "-iname",
  "-path",
  "-ipath",
  "-wholename",
  "-iwholename",
  "-regex",
  "-iregex",
  "-type",
  "-xtype",
  "-user",
  "-group",
  "-uid",
  "-gid",
  "-perm",
  "-size",
  "-mtime",
  "-mmin",
  "-atime",
  "-amin",
  "-ctime",
  "-cmin",
  "-newer",
  "-anewer",
  "-cnewer",
  "-maxdepth",
  "-mindepth",
  "-links",
  "-inum",
  "-samefile",
  "-printf",
  "-used",
  "-fstype",
  "-context",
  "-lname",
  "-ilname",
  "-regextype",
  "-files0-from",
]);

/** find tests that take one value and only choose among the entries: no action, no file read as a list. */
const FIND_LISTING_TESTS: ReadonlySet<string> = new Set([...FIND_ONE_VALUE].filter((t) => t !== "-printf" && t !== "-files0-from"));
const CURL_LONG = new Set([
  "--output",
  "--output-dir",
  "--data",
  "--data-raw",
  "--data-binary",
  "--data-urlencode",
  "--data-ascii",
  "--json",
  "--form",
  "--form-string",
  "--header",
  "--user-agent",
  "--user",
  "--request",
  "--referer",
  "--cookie",
  "--cookie-jar",
  "--dump-header",
  "--upload-file",
  "--config",
  "--max-time",
  "--connect-timeout",
  "--retry",
  "--retry-delay",
  "--retry-max-time",
  "--proxy",
  "--proxy-user",
  "--cacert",
  "--capath",
  "--cert",
  "--key",
  "--url",
  "--write-out",
  "--range",
  "--continue-at",
  "--limit-rate",
  "--max-filesize",
  "--resolve",
  "--connect-to",
  "--interface",
  "--trace",
  "--trace-ascii",
  "--stderr",
  "--libcurl",
  "--etag-save",
  "--etag-compare",
  "--hsts",
  "--alt-svc",
  "--time-cond",
  "--netrc-file",
  "--unix-socket",
  "--abstract-unix-socket",
  "--variable",
  "--aws-sigv4",
  "--oauth2-bearer",
  "--pinnedpubkey",
  "--ciphers",
  "--local-port",
  "--dns-servers",
  "--doh-url",
  "--mail-from",
  "--mail-rcpt",
  "--ftp-port",
  "--quote",
  "--telnet-option",
  "--max-redirs",
  "--expect100-timeout",
  "--keepalive-time",
  "--proto",
  "--proto-redir",
  "--preproxy",
  "--noproxy",
  "--happy-eyeballs-timeout-ms",
  "--create-file-mode",
]);
const WGET_LONG_VALUES = new Set([
  "--output-document",
  "--output-file",
  "--append-output",
  "--directory-prefix",
  "--input-file",
  "--tries",
  "--timeout",
  "--wait",
  "--level",
  "--quota",
  "--limit-rate",
  "--accept",
  "--reject",
  "--domains",
  "--exclude-domains",
  "--include-directories",
  "--exclude-directories",
  "--execute",
  "--header",
  "--user",
  "--password",
  "--post-data",
  "--post-file",
  "--body-file",
  "--body-data",
  "--load-cookies",
  "--save-cookies",
  "--method",
  "--referer",
  "--user-agent",
  "--base",
  "--config",
  "--ca-certificate",
  "--certificate",
  "--private-key",
  "--cut-dirs",
  "--bind-address",
  "--dns-timeout",
  "--connect-timeout",
  "--read-timeout",
  "--waitretry",
  "--progress",
  "--restrict-file-names",
  "--default-page",
  "--rejected-log",
]);
/** Programs of binutils, which read `@FILE` operands as files of more arguments. */
const BINUTILS = /^(?:strings|nm|objdump|readelf|size|addr2line|c\+\+filt|ar|ranlib|objcopy|strip|elfedit)\b/;

/** Long flags of gzip, bzip2, xz, zstd and lz4 that only choose how to (de)compress and where the output goes (stdout). */
const COMPRESS_PLAIN_LONG =
  /^--(?:stdout|to-stdout|list|test|decompress|uncompress|keep|force|quiet|verbose|fast|best|no-name|name|rsyncable|threads=\d+|no-progress|ultra|long(?:=\d+)?|single-thread|sparse|no-sparse|memlimit=\w+|format=\w+|check=\w+|extreme|[1-9])$/;

/** tar's long options ClawOS acts on: a prefix of one (and of no other) stands for it. */
const TAR_LONG_NAMES = [
  "--create",
  "--extract",
  "--get",
  "--list",
  "--append",
  "--update",
  "--diff",
  "--compare",
  "--catenate",
  "--concatenate",
  "--delete",
  "--file",
  "--directory",
  "--to-stdout",
  "--dereference",
  "--files-from",
  "--exclude-from",
  "--use-compress-program",
  "--info-script",
  "--new-volume-script",
  "--to-command",
  "--rsh-command",
  "--checkpoint-action",
  "--index-file",
  "--force-local",
  "--remove-files",
  "--listed-incremental",
  "--volno-file",
];

/**
 * The long option a word stands for: itself, or the one option ClawOS acts on that it is a prefix
 * of (tar takes unique prefixes). A prefix of several stands for the most dangerous of them.
 */
function tarLongFlag(flag: string): string {
  if (TAR_LONG_NAMES.includes(flag) || flag.length < 4) return flag;
  const found = TAR_LONG_NAMES.filter((name) => name.startsWith(flag));
  const runs = found.find((name) => TAR_RUNS.has(name));
  return runs ?? (found.length === 1 ? found[0] : flag);
}
const TAR_RUNS = new Set([
  "--use-compress-program",
  "--info-script",
  "--new-volume-script",
  "--to-command",
  "--rsh-command",
  "--checkpoint-action",
  "--remove-files",
]);

const TAR_LONG_VALUES = new Set([
  "--file",
  "--directory",
  "--files-from",
  "--exclude-from",
  "--exclude",
  "--use-compress-program",
  "--info-script",
  "--new-volume-script",
  "--to-command",
  "--rsh-command",
  "--checkpoint-action",
  "--index-file",
  "--transform",
  "--xform",
  "--strip-components",
  "--owner",
  "--group",
  "--mode",
  "--mtime",
  "--format",
  "--blocking-factor",
  "--newer",
  "--after-date",
  "--label",
  "--suffix",
  "--warning",
  "--listed-incremental",
]);
const SCP_VALUES = new Set(["-c", "-F", "-i", "-J", "-l", "-o", "-P", "-S", "-D", "-X"]);
const RSYNC_VALUES = new Set([
  "-e",
  "--rsh",
  "--rsync-path",
  "-f",
  "--filter",
  "--exclude",
  "--include",
  "--exclude-from",
  "--include-from",
  "--files-from",
  "-B",
  "--port",
  "--password-file",
  "--log-file",
  "--partial-dir",
  "--temp-dir",
  "-T",
  "--backup-dir",
  "--suffix",
  "--chmod",
  "--chown",
  "--timeout",
  "--contimeout",
  "--bwlimit",
  "--max-size",
  "--min-size",
  "--compare-dest",
  "--copy-dest",
  "--link-dest",
  "-M",
  "--remote-option",
  "--info",
  "--debug",
  "--out-format",
  "--log-file-format",
  "--sockopts",
  "--iconv",
]);
const COPY_VALUES = new Set(["-S", "--suffix", "-m", "--mode", "-o", "--owner", "-g", "--group", "-Z", "--context", "--reference", "--target-directory", "-t"]);
/** redis-cli flags that take a value; -h and -u name the server. */
const REDIS_VALUES = new Set(["-h", "-p", "-n", "-u", "-a", "--user", "--pass", "--tls-server-name", "--sni"]);
/** redis-cli flags that change nothing beyond the one request (no --eval, --pipe, --rdb, -x, -r). */
const REDIS_PLAIN = new Set(["--tls", "--no-auth-warning", "--raw", "--no-raw", "--csv", "--json", "-c", "-e", "--verbose", "-3", "-2"]);
/** redis-cli's sampling modes, which send only SCAN, TYPE, MEMORY USAGE and INFO (not --rdb, --pipe, --eval). */
const REDIS_SCANS = new Set(["--scan", "--bigkeys", "--memkeys", "--keystats", "--stat"]);
/** Their settings: a key pattern, a batch size, a sample count, an interval. */
const REDIS_SCAN_VALUES = new Set(["--pattern", "--quoted-pattern", "--count", "--memkeys-samples", "-i"]);
/** Redis commands that only read (one word, or a command and its subcommand). CONFIG GET is not one: it prints requirepass. */
const REDIS_READS = new Set([
  "info",
  "ping",
  "time",
  "dbsize",
  "lastsave",
  "role",
  "get",
  "mget",
  "exists",
  "ttl",
  "pttl",
  "type",
  "strlen",
  "llen",
  "lrange",
  "lindex",
  "hget",
  "hmget",
  "hgetall",
  "hkeys",
  "hlen",
  "smembers",
  "scard",
  "sismember",
  "zrange",
  "zrangebyscore",
  "zcard",
  "zscore",
  "scan",
  "sscan",
  "hscan",
  "zscan",
  "keys",
  "xlen",
  "xrange",
  "xrevrange",
  "slowlog get",
  "slowlog len",
  "client list",
  "client info",
  "memory usage",
  "memory stats",
  "memory doctor",
  "latency latest",
  "latency history",
  "latency doctor",
  "cluster info",
  "cluster nodes",
  "object encoding",
  "object freq",
  "object idletime",
]);

/** aws options that take a value (global ones and the S3 read operations'). --endpoint-url names another server: not among them. */
const AWS_VALUES = new Set([
  "--region",
  "--profile",
  "--output",
  "--query",
  "--bucket",
  "--key",
  "--prefix",
  "--delimiter",
  "--max-items",
  "--page-size",
  "--starting-token",
  "--max-keys",
  "--version-id",
  "--expected-bucket-owner",
  "--color",
]);
/** aws options that change nothing: output shape, paging, the S3 listing's own switches. */
const AWS_PLAIN = new Set(["--human-readable", "--summarize", "--recursive", "--no-paginate", "--no-cli-pager"]);
/** s3api operations that only read a bucket or an object's metadata (get-object writes a file; not here). */
const AWS_S3API_READS = new Set([
  "head-object",
  "head-bucket",
  "list-objects",
  "list-objects-v2",
  "list-object-versions",
  "get-bucket-location",
  "get-bucket-versioning",
  "get-bucket-lifecycle-configuration",
  "get-bucket-encryption",
  "get-object-tagging",
]);

/** dig options that take a value (-q and -x give a name to look up). */
const DIG_VALUES = new Set(["-t", "-c", "-p", "-b", "-q", "-x"]);
/** host's flags with a value (type, class, wait, retries, ndots) and without; -l lists a zone by transfer. */
const HOST_VALUES = new Set(["-t", "-c", "-W", "-R", "-N"]);
const HOST_PLAIN = new Set(["-a", "-v", "-4", "-6", "-r", "-T", "-U", "-C", "-s", "-i", "-d"]);
/** nslookup's options that change how it asks, not what or whom (-type=MX, -timeout=5). */
const NSLOOKUP_OPTIONS = new Set([
  "type",
  "querytype",
  "q",
  "class",
  "timeout",
  "retry",
  "debug",
  "nodebug",
  "d2",
  "nod2",
  "recurse",
  "norecurse",
  "vc",
  "novc",
  "port",
  "fail",
  "nofail",
]);
const DIG_PLAIN = new Set(["-4", "-6", "-u", "-m", "-r", "-i"]);
/** Query types and classes: operands of dig that are not names. */
const DNS_WORDS = new Set([
  "A",
  "AAAA",
  "MX",
  "TXT",
  "NS",
  "CNAME",
  "SOA",
  "PTR",
  "SRV",
  "CAA",
  "ANY",
  "DS",
  "DNSKEY",
  "NAPTR",
  "HTTPS",
  "SVCB",
  "TLSA",
  "SSHFP",
  "SPF",
  "AXFR",
  "IXFR",
  "IN",
  "CH",
  "HS",
]);

/** psql flags that take a value (a short flag's value may follow it in the same word: `-Upostgres`, `-Atc`). */
const PSQL_SHORT_VALUES = ["h", "p", "U", "d", "c", "F", "R", "P"];
/**
 * psql flags that only shape the output or the session: no script (-f), output or log file (-o,
 * -L), and no variables (-v: PROMPT1 and friends can run shell commands).
 */
const PSQL_SHORT_PLAIN = ["A", "t", "q", "X", "x", "w", "W", "a", "b", "e", "E", "n", "H", "1", "l", "0", "z"];
const PSQL_LONG_VALUES = new Set(["host", "port", "username", "dbname", "command", "field-separator", "record-separator", "pset"]);
const PSQL_LONG_PLAIN = new Set([
  "no-align",
  "tuples-only",
  "quiet",
  "no-psqlrc",
  "expanded",
  "no-password",
  "password",
  "echo-all",
  "echo-errors",
  "echo-queries",
  "echo-hidden",
  "no-readline",
  "html",
  "csv",
  "single-transaction",
  "list",
  "field-separator-zero",
  "record-separator-zero",
]);

/** The servers a psql database operand names: a postgres:// URI's host(s), or a connection string's host=. */
export function psqlConnectionHosts(operand: string): string[] {
  const uri = /^postgres(?:ql)?:\/\/(?:[^@/]*@)?([^/?#]*)/i.exec(operand);
  if (uri) {
    const hosts = uri[1].split(",").map((h) => h.replace(/:\d+$/, "").replace(/^\[|\]$/g, ""));
    // A query's host= or hostaddr= overrides the host before the path (libpq).
    const query = operand.slice(operand.indexOf("?") + 1 || operand.length);
    for (const m of query.matchAll(/(?:^|&)host(?:addr)?=([^&#]*)/gi)) hosts.push(...decodeURIComponentSafe(m[1]).split(","));
    return hosts;
  }
  const hosts: string[] = [];
  for (const m of operand.matchAll(/(?:^|\s)host(?:addr)?\s*=\s*'?([^'\s]+)/g)) hosts.push(...m[1].split(","));
  return hosts;
}

/**
 * Functions a read-only query may call: aggregates, text and time helpers, and the server's
 * statistics and size functions. Anything else may write (nextval, set_config, lo_import), reach out
 * (dblink), read the server's files (pg_read_file) or be the database's own code.
 */
const SQL_READ_FUNCTIONS = new Set(
  (
    "count sum avg min max stddev variance bool_and bool_or string_agg array_agg json_agg jsonb_agg percentile_cont percentile_disc " +
    "row_number rank dense_rank lag lead first_value last_value ntile coalesce nullif greatest least round trunc floor ceil ceiling abs " +
    "now extract date_trunc date_part to_char to_timestamp to_date age make_interval justify_interval date " +
    "lower upper length char_length octet_length substr substring left right trim btrim ltrim rtrim split_part replace concat concat_ws " +
    "format position strpos regexp_replace regexp_match quote_ident array_length cardinality unnest json_build_object " +
    "jsonb_build_object row_to_json to_json to_jsonb pg_typeof to_regclass " +
    "pg_size_pretty pg_database_size pg_relation_size pg_total_relation_size pg_table_size pg_indexes_size pg_tablespace_size " +
    "pg_column_size pg_last_xact_replay_timestamp pg_last_wal_receive_lsn pg_last_wal_replay_lsn pg_current_wal_lsn " +
    "pg_current_wal_insert_lsn pg_current_wal_flush_lsn pg_wal_lsn_diff pg_is_in_recovery pg_is_wal_replay_paused " +
    "pg_postmaster_start_time pg_conf_load_time pg_blocking_pids pg_backend_pid pg_get_userbyid pg_get_viewdef pg_get_indexdef " +
    "pg_get_constraintdef pg_get_expr pg_get_triggerdef version current_setting current_database current_schema current_user " +
    "session_user inet_server_addr inet_client_addr has_table_privilege has_database_privilege has_schema_privilege"
  ).split(" "),
);

/** Words that may stand before a parenthesis without calling a function. */
const SQL_PAREN_WORDS = new Set(
  "in exists any all some cast over filter within as from join on and or not where select values using when then else array row by partition group order having distinct is".split(
    " ",
  ),
);

/** Words that make a statement do more than read, wherever they stand (FOR UPDATE, SELECT INTO, a DELETE in a CTE). */
const SQL_ACTING_WORDS = new Set(
  "into update delete insert merge lock copy call do create drop alter truncate grant revoke vacuum analyze cluster reindex refresh notify listen prepare execute deallocate commit rollback savepoint set reset discard load import checkpoint security".split(
    " ",
  ),
);

/**
 * Whether a psql `-c` text only reads: SELECT, SHOW, TABLE, VALUES and EXPLAIN without ANALYZE,
 * calling only SQL_READ_FUNCTIONS, or a catalog meta-command (`\dt`, `\l`). Anything it cannot read
 * (a dollar quote, another backslash command, an unknown function) is not a read.
 */
export function readOnlySql(text: string): boolean {
  const t = text.trim();
  if (t.startsWith("\\")) return /^\\(?:d[A-Za-z]*\+?|l\+?|conninfo)(?:\s+[A-Za-z0-9_.*"$-]+)?$/.test(t);
  if (t.includes("$$") || /\$[A-Za-z_]\w*\$/.test(t) || t.includes("\\")) return false;
  // String literals and quoted names carry no statement; comments are dropped. One pass, left to
  // right, as the server reads it: a comment marker inside a string is part of the string.
  const bare = t.replace(/[Ee]?'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|\/\*[\s\S]*?\*\//g, (m) =>
    m.startsWith("--") || m.startsWith("/*") ? " " : m.startsWith('"') ? " q " : " 'x' ",
  );
  if (/['"]|\/\*/.test(bare.replace(/'x'/g, ""))) return false;
  const statements = bare.split(";").filter((s) => s.trim() !== "");
  if (statements.length === 0) return false;
  for (const statement of statements) {
    const words: string[] = statement.toLowerCase().match(/[a-z_][a-z0-9_$]*(?:\s*\.\s*[a-z_][a-z0-9_$]*)*|\(/g) ?? [];
    const first = words[0];
    if (first !== "select" && first !== "show" && first !== "table" && first !== "values" && first !== "explain") return false;
    if (first === "explain" && !words.includes("select")) return false;
    for (let i = 0; i < words.length; i++) {
      const word = words[i];
      if (word === "(") continue;
      const name = word.slice(word.lastIndexOf(".") + 1).trim();
      if (SQL_ACTING_WORDS.has(name)) return false;
      if (words[i + 1] === "(" && !SQL_PAREN_WORDS.has(name) && !SQL_READ_FUNCTIONS.has(name) && !name.startsWith("pg_stat_get_")) return false;
    }
  }
  return true;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The host of a redis:// or rediss:// URI, or undefined when it is not one. */
function redisUriHost(uri: string): string | undefined {
  const m = /^rediss?:\/\/(?:[^@/]*@)?(\[[^\]]+\]|[^:/?#]+)/i.exec(uri);
  return m ? m[1].replace(/^\[|\]$/g, "") : undefined;
}

/**
 * `git -c key=value` settings that only change how output looks: colours, path quoting, dates,
 * abbreviation, diff prefixes and renames, the pager when it is `cat` (or off). Anything else a
 * `-c` sets (a pager, an editor, a diff or merge driver, an alias, fsmonitor, hooks) can run a program.
 */
const GIT_PLAIN_CONFIG =
  /^(?:color\.[a-z.]+=(?:always|never|auto|true|false)|core\.quotepath=(?:true|false|on|off|0|1)|log\.(?:date=[a-z-]+|decorate=(?:short|full|auto|no|true|false)|abbrevcommit=(?:true|false))|core\.abbrev=\d{1,2}|diff\.(?:noprefix|mnemonicprefix|renames|relative)=(?:true|false|copies)|core\.pager=(?:cat)?|pager\.[a-z-]+=(?:false|true|cat)?)$/i;

/** Programs that, given only an input, write an output named after it, and the ending it gets. */
const DERIVED_OUTPUT = new Map([["pdftotext", ".txt"]]);

/** The most words a loop's variable is followed through (`bindLoop`). */
const MAX_LOOP_WORDS = 32;
/** A word that is only a loop variable: `$f`, `"$f"`, `${f}`, `"${f}"`. */
const LOOP_REFERENCE = /^(?:(")\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))"|\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*)))$/;
/** A parameter expansion that assigns (`${f:=x}`, `${f=x}`) or a descriptor named into a variable (`{f}>x`). */
const ASSIGNING_EXPANSION = /\$\{([A-Za-z_][A-Za-z0-9_]*):?=|\{([A-Za-z_][A-Za-z0-9_]*)\}[<>]/g;
/** Builtins that can set a variable by name (read, declare, printf -v, getopts ...), or run text that can. */
const VARIABLE_SETTERS = new Set([
  "read",
  "mapfile",
  "readarray",
  "printf",
  "declare",
  "typeset",
  "local",
  "export",
  "readonly",
  "getopts",
  "eval",
  "source",
  ".",
  "unset",
  "let",
  "set",
  "shift",
  "select",
  "builtin",
  "command",
]);

/** A pager set to `cat` (or to nothing) for one command: `GIT_PAGER=cat git log`, `PAGER= systemctl status x`. */
const PLAIN_PAGER = /^(?:GIT_PAGER|PAGER|SYSTEMD_PAGER|MANPAGER)=(?:cat|''|"")?$/;

/** sudo's flags that change only who runs the command and how it asks: a user or group, no prompt, a fresh timestamp, the target's home. */
const SUDO_PLAIN = new Set(["-n", "--non-interactive", "-k", "--reset-timestamp", "-H", "--set-home", "-S", "--stdin"]);
const SUDO_PLAIN_VALUES = new Set(["-u", "--user", "-g", "--group"]);

/**
 * A check's arguments are only what its entry lists (`check` in the command table): its target (a
 * script, a make target, the test runner npx runs), flags that neither load code nor change what
 * runs, plain values for the value flags (a test name), and paths inside the working tree. Anything
 * else (a config file, a plugin, a variable assignment, an absolute path, a URL, a module address)
 * may run other code, so the command is decided as any build.
 */
function checksOnly(spec: CheckSpec, label: string, args: readonly Word[]): boolean {
  let target = spec.targets === undefined || spec.targetIsSubcommand === true;
  if (spec.targetIsSubcommand && spec.targets && !spec.targets.some((t) => targetMatches(t, label.slice(label.lastIndexOf(" ") + 1)))) return false;
  let forwarded = false;
  for (let i = 0; i < args.length; i++) {
    const w = args[i];
    if (w.dynamic || w.process) return false;
    const t = w.text;
    if (t === "--" && !forwarded) {
      if (spec.forwards !== true || !target) return false;
      forwarded = true;
      continue;
    }
    if (t.startsWith("-") && t.length > 1) {
      const eq = t.indexOf("=");
      const flag = eq === -1 ? t : t.slice(0, eq);
      // A one-letter value flag may hold its value (make -j4, pytest -n2).
      const attached = eq === -1 && !t.startsWith("--") && t.length > 2 && !has(spec.flags, t) && has(spec.valueFlags, t.slice(0, 2));
      if (attached) {
        if (!CHECK_VALUE.test(t.slice(2))) return false;
      } else if (has(spec.valueFlags, flag)) {
        const value = eq === -1 ? args[++i] : literalWord(t.slice(eq + 1));
        if (!value || value.dynamic || value.process || !CHECK_VALUE.test(value.text)) return false;
      } else if (eq !== -1 || !has(spec.flags, flag)) return false;
      continue;
    }
    if (!target && !forwarded) {
      if (!spec.targets?.some((pattern) => targetMatches(pattern, t))) return false;
      target = true;
      continue;
    }
    const operands = spec.operands ?? "none";
    if (operands === "none") return false;
    if (operands === "packages" ? !GO_LOCAL_PACKAGE.test(t) || t.split("/").includes("..") : !treePathOperand(t)) return false;
  }
  return target || spec.noTarget === true;
}

/**
 * The operands of a record (see CommandView.localRecord) whose arguments are only what its entry lists, else undefined: known
 * flags, plain-word values, free text where the program only stores it (a commit message), and
 * operands inside the working tree short of the whole tree (a pathspec like `.`, `:/` or a pattern
 * stages what nobody named, files .gitignore was to keep out included).
 */
function recordOperands(spec: RecordSpec, args: readonly Word[]): string[] | undefined {
  const operands: string[] = [];
  // A value flag's value: free text for a text flag, else a plain name.
  const fits = (flag: string, value: Word | undefined) =>
    value !== undefined && !value.dynamic && !value.process && (has(spec.textFlags, flag) || RECORD_NAME.test(value.text));
  for (let i = 0; i < args.length; i++) {
    const w = args[i];
    if (w.dynamic || w.process) return undefined;
    const t = w.text;
    if (t === "--") continue;
    if (t.startsWith("--")) {
      const eq = t.indexOf("=");
      const flag = eq === -1 ? t : t.slice(0, eq);
      if (has(spec.textFlags, flag) || has(spec.valueFlags, flag)) {
        if (!fits(flag, eq === -1 ? args[++i] : literalWord(t.slice(eq + 1)))) return undefined;
      } else if (eq !== -1 || !has(spec.flags, flag)) return undefined;
      continue;
    }
    if (t.startsWith("-") && t.length > 1) {
      // Short flags, bundled or not (-am "msg", -qc name): a value flag takes the rest, else the next word.
      for (let j = 1; j < t.length; j++) {
        const flag = `-${t[j]}`;
        if (has(spec.flags, flag)) continue;
        if (!has(spec.textFlags, flag) && !has(spec.valueFlags, flag)) return undefined;
        if (!fits(flag, j + 1 < t.length ? literalWord(t.slice(j + 1)) : args[++i])) return undefined;
        break;
      }
      continue;
    }
    const kind = spec.operands ?? "none";
    if (kind === "none") return undefined;
    if (kind === "names" ? !RECORD_NAME.test(t) : !treePathOperand(t) || t === "." || t === "./" || /[*?[\]{}:]/.test(t)) return undefined;
    if (kind === "paths") operands.push(t);
  }
  return operands;
}

/** A branch's name: a plain word git would take as a ref, never a flag, a path above or a range. */
const RECORD_NAME = /^(?!-)(?!.*\.\.)[A-Za-z0-9_./+-]{1,200}$/;

/** A check's target against a name of the table: exact, or a prefix before a trailing `*` (test:*). */
function targetMatches(pattern: string, name: string): boolean {
  return pattern.endsWith("*") ? name.startsWith(pattern.slice(0, -1)) && name.length >= pattern.length : name === pattern;
}

/**
 * A check's flag value: a word such as a test name or a number, never a path, a URL, an assignment,
 * a directory above (`tsc -p ..`) or what a shell would expand (some package managers hand the
 * arguments they forward to a shell again: `$(...)`, a pipe).
 */
const CHECK_VALUE = /^(?!\.+$)[A-Za-z0-9_ .,:^[\]*+?{}-]{1,200}$/;
/** The characters of a check's path or filter operand: none a shell would read again (a quote, `$`, `;`, a space). */
const TREE_OPERAND = /^[A-Za-z0-9_./*?[\]{}+,%^-]+$/;
/** Programs that leave what they start running after the command returns. */
const DETACHING: ReadonlySet<string> = new Set(["nohup", "setsid", "disown", "daemonize", "start-stop-daemon", "screen", "tmux"]);
/** Go's own packages: `.`, `./...`, `./internal/x`. */
const GO_LOCAL_PACKAGE = /^\.(?:\/[A-Za-z0-9_.\-/]*)?$/;

/**
 * A test file, directory or name filter inside the working tree: relative, no `..`, no URL, no
 * assignment, no package address (pytest's `tests/test_api.py::test_login` is a test in a file).
 */
function treePathOperand(text: string): boolean {
  if (text === "" || /^[~/]/.test(text) || !TREE_OPERAND.test(text.replaceAll("::", ""))) return false;
  return !text.split("/").includes("..");
}

/** The words before sudo's command are only plain flags (`SUDO_PLAIN`, `-u root`). */
function plainSudo(flags: readonly Word[]): boolean {
  for (let i = 0; i < flags.length; i++) {
    const t = (flags[i] as Word).text;
    if (t === "--") continue;
    if (SUDO_PLAIN.has(t)) continue;
    if (SUDO_PLAIN_VALUES.has(t)) {
      i++;
      continue;
    }
    if (/^-[ukHnS]+$/.test(t) && !t.includes("u")) continue;
    if (/^--(?:user|group)=/.test(t) || /^-[ug]\S+$/.test(t)) continue;
    return false;
  }
  return true;
}

/** A path a root read may take as plain: /var/log and below (no `..`). */
function elevatedReadable(path: string): boolean {
  if (!path || path.split("/").includes("..") || REMOTE_SECRET.test(path)) return false;
  return path === "/var/log" || path.startsWith("/var/log/");
}

/** ssh flags that change nothing beyond the one connection: no forwarding, proxy, jump host, config, control socket or log file. */
const SSH_PLAIN = new Set(["-p", "-l", "-i", "-t", "-T", "-q", "-v", "-4", "-6", "-C", "-n", "-x", "-a", "-k", "-y", "-c", "-e", "-m"]);

/** A path on another host that may hold keys or passwords (this host's own are checked by the path rules). */
const REMOTE_SECRET =
  /(^|\/)(\.ssh|\.aws|\.kube|\.gnupg|\.docker|\.config\/gh|\.password-store|private)(\/|$)|(^|\/)(\.netrc|\.git-credentials|\.npmrc|\.pypirc|\.pgpass|\.my\.cnf|\.env[^/]*|credentials[^/]*|secrets?[^/]*|[^/]*\.(pem|key|p12|pfx|kdbx)|id_(rsa|ed25519|ecdsa|dsa)[^/]*)$|(^|\/)ssh_host_[^/]*_key$|^\/etc\/(shadow|gshadow|sudoers)|^\/proc\/[^/]*\/environ|^\/root(\/|$)|^~root/;

const SSH_VALUES = new Set(["-b", "-B", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O", "-o", "-p", "-Q", "-R", "-S", "-W", "-w"]);
const PIP_INSTALL_VALUES = new Set([
  "-i",
  "--index-url",
  "--extra-index-url",
  "-f",
  "--find-links",
  "--platform",
  "--python-version",
  "--implementation",
  "--abi",
  "--progress-bar",
  "--upgrade-strategy",
  "--config-settings",
  "-C",
  "--global-option",
  "--no-binary",
  "--only-binary",
  "--trusted-host",
  "--cert",
  "--client-cert",
  "--proxy",
  "--timeout",
  "--retries",
  "--log",
  "--cache-dir",
]);
const CLONE_VALUES = new Set([
  "-b",
  "--branch",
  "-o",
  "--origin",
  "-u",
  "--upload-pack",
  "--template",
  "-c",
  "--config",
  "--reference",
  "--reference-if-able",
  "--separate-git-dir",
  "--depth",
  "--shallow-since",
  "--shallow-exclude",
  "-j",
  "--jobs",
  "--filter",
  "--server-option",
  "--bundle-uri",
  "--ref-format",
  "--upstream-remote-name",
]);

// ---- helpers ----------------------------------------------------------------------------------

function add(list: string[], value: string): void {
  if (!list.includes(value)) list.push(value);
}

function texts(words: readonly Word[]): string[] {
  return words.map((w) => w.text);
}

function union(a: readonly string[], b: readonly string[]): readonly string[] {
  const out = [...a];
  for (const x of b) if (!out.includes(x)) out.push(x);
  return out;
}

const F_VALUE = 1;
const F_READ = 2;
const F_WRITE = 4;
const F_FETCH = 8;
const F_DIR = 16;
const F_EXEC = 32;
const F_UNSAFE = 64;
const F_QUERY = 4096;
const F_PLAIN = 8192;
const F_NETWORK = 16384;
const F_LIST = 128;
const F_PATTERN = 256;
const F_RECURSIVE = 512;
const F_OUTSIDE = 1024;
const F_FOLLOW = 2048;
const F_TAKES = F_VALUE | F_READ | F_WRITE | F_FETCH | F_DIR;

const flagTables = new WeakMap<Behaviour, ReadonlyMap<string, number>>();

/** What each flag of a behaviour means, as bits; built once per behaviour (the table is immutable data). */
function flagTable(b: Behaviour): ReadonlyMap<string, number> {
  let table = flagTables.get(b);
  if (table) return table;
  const map = new Map<string, number>();
  const add = (list: readonly string[] | undefined, bit: number) => {
    for (const flag of list ?? []) map.set(flag, (map.get(flag) ?? 0) | bit);
  };
  add(b.valueFlags, F_VALUE);
  add(b.readFlags, F_READ);
  add(b.writeFlags, F_WRITE);
  add(b.fetchFlags, F_FETCH);
  add(b.dirFlags, F_DIR);
  add(b.execFlags, F_EXEC);
  add(b.unsafeFlags, F_UNSAFE);
  add(b.listFlags, F_LIST);
  add(b.patternFlags, F_PATTERN);
  add(b.recursiveFlags, F_RECURSIVE);
  add(b.outsideFlags, F_OUTSIDE);
  add(b.followFlags, F_FOLLOW);
  add(b.queryFlags, F_QUERY);
  add(b.plainFlags, F_PLAIN);
  add(b.networkFlags, F_NETWORK);
  table = map;
  flagTables.set(b, table);
  return table;
}

/**
 * A long flag given by a prefix (`--comp=sh` for `--compress-program`, `--out=f` for `--output`):
 * getopt_long and git's option parser take any unique prefix. What every long flag it can stand
 * for does, together, so a shortened dangerous flag is as dangerous as the whole one.
 */
function prefixBits(table: ReadonlyMap<string, number>, flag: string): number {
  if (flag.length < 3) return 0;
  let bits = 0;
  for (const [name, b] of table) if (name.length > flag.length && name.startsWith(flag) && name.startsWith("--")) bits |= b;
  return bits;
}

/** A word that puts a program in its query mode (`queryFlags`): the flag itself, or a cluster holding its letter (`rpm -qa`, `iptables -nvL`). */
function queries(b: Behaviour, word: string): boolean {
  const table = flagTable(b);
  if (((table.get(word) ?? 0) & F_QUERY) !== 0) return true;
  if (!/^-[A-Za-z]{2,}$/.test(word)) return false;
  for (let i = 1; i < word.length; i++) if (((table.get(`-${word[i]}`) ?? 0) & F_QUERY) !== 0) return true;
  return false;
}

const NUMBER_FLAG = /^-\d+$/;
/** A long flag and its attached value, as one word (--include=*.ts). */
const FLAG_WITH_VALUE = /^--[A-Za-z0-9][A-Za-z0-9-]*=/;

/** A flag and its value in one word, where the value is a pattern or setting, not a file the program reads or writes. */
function filterFlag(spec: ProgramSpec, word: string): boolean {
  if (!FLAG_WITH_VALUE.test(word)) return false;
  const flag = word.slice(0, word.indexOf("="));
  return has(spec.valueFlags, flag) && !has(spec.readFlags, flag) && !has(spec.writeFlags, flag);
}

/** A word naming one of a read's secret kinds, alone or between commas and slashes (secret,pod; secrets/db). */
function namesSecret(kinds: readonly string[], word: string): boolean {
  // A path's query and fragment are not its names (kubectl get --raw /api/v1/secrets?limit=500),
  // and kubectl decodes its escapes (%73ecrets).
  const path = decodeURIComponentSafe(word.replace(/[?#].*$/s, ""));
  for (const part of path.toLowerCase().split(/[,/.]/)) if (kinds.includes(part)) return true;
  return false;
}

/**
 * Splits a program's arguments into flags (reported through `onFlag` with what they mean, and the
 * value of flags that take one) and operands. Unknown flags take no value, so an operand is never
 * mistaken for one.
 */
function parseFlags(b: Behaviour, args: readonly Word[], onFlag: (flag: string, value: string | undefined, bits: number) => void): Word[] {
  const table = flagTable(b);
  const operands: Word[] = [];
  let dashdash = false;
  for (let i = 0; i < args.length; i++) {
    const w = args[i];
    const t = w.text;
    if (dashdash || w.dynamic || w.process || t.length < 2 || t.charCodeAt(0) !== 45 /* - */) {
      operands.push(w);
      continue;
    }
    if (t === "--") {
      dashdash = true;
      continue;
    }
    if (t.charCodeAt(1) === 45) {
      const eq = t.indexOf("=");
      const flag = eq === -1 ? t : t.slice(0, eq);
      const bits = table.get(flag) ?? prefixBits(table, flag);
      let value = eq === -1 ? undefined : t.slice(eq + 1);
      if (value === undefined && bits & F_TAKES) value = args[++i]?.text;
      onFlag(flag, value, bits);
      continue;
    }
    // A whole short flag longer than one letter (-cols), or a cluster of one-letter flags (-rn).
    const whole = t.length > 2 ? table.get(t) : undefined;
    if (whole !== undefined) {
      onFlag(t, whole & F_TAKES ? args[++i]?.text : undefined, whole);
      continue;
    }
    // A whole short flag with its value after `=` (openssl's -out=FILE, Go's -cpuprofile=FILE).
    const eq = t.indexOf("=");
    const named = eq > 2 ? table.get(t.slice(0, eq)) : undefined;
    if (named !== undefined) {
      onFlag(t.slice(0, eq), t.slice(eq + 1), named);
      continue;
    }
    if (NUMBER_FLAG.test(t)) {
      onFlag(t, undefined, 0);
      continue;
    }
    for (let j = 1; j < t.length; j++) {
      const flag = `-${t[j]}`;
      const bits = table.get(flag) ?? 0;
      if (bits & F_TAKES) {
        const value = t.slice(j + 1) || args[++i]?.text;
        onFlag(flag, value, bits);
        break;
      }
      onFlag(flag, undefined, bits);
    }
  }
  return operands;
}

/** The last path segment of a URL, without query or fragment: what `curl -O` and `wget` name a download. */
export function remoteName(url: string, fallback: string): string {
  const path = url.replace(/[?#].*$/, "").replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, "");
  const name = path.slice(path.lastIndexOf("/") + 1);
  return name && name !== "." && name !== ".." ? decodeSafe(name) : fallback;
}

function decodeSafe(text: string): string {
  try {
    const decoded = decodeURIComponent(text);
    return decoded.includes("/") ? text : decoded;
  } catch {
    return text;
  }
}

/** curl's flags that change neither what a GET sends nor where its answer goes (-o /dev/null aside). */
const CURL_GET_FLAGS: ReadonlySet<string> = new Set([
  "-s",
  "--silent",
  "-S",
  "--show-error",
  "-f",
  "--fail",
  "--fail-with-body",
  "-L",
  "--location",
  "-i",
  "--include",
  "-I",
  "--head",
  "-v",
  "--verbose",
  "-k",
  "--insecure",
  "-4",
  "--ipv4",
  "-6",
  "--ipv6",
  "--compressed",
  "--http1.1",
  "--http2",
  "-N",
  "--no-buffer",
  "-g",
  "--globoff",
]);
/** curl's flags whose value is a plain number or a format of the answer, never a file. */
const CURL_GET_VALUES: ReadonlySet<string> = new Set([
  "-m",
  "--max-time",
  "--connect-timeout",
  "--retry",
  "--retry-delay",
  "--retry-max-time",
  "-w",
  "--write-out",
  "--max-redirs",
]);
/** An address curl only reads: http(s), a plain host name or address, no credentials, no URL globbing. */
const CURL_GET_URL = /^https?:\/\/([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?(?:[/?#][^\s{}[\]]*)?$/;
/** A web address among a remote read's destinations (decided as a URL, not a host). */
const WEB_ADDRESS = /^https?:\/\//i;

/**
 * The URLs of a curl command that only GETs (or HEADs) addresses given as literals and shows the
 * answer (`curl -fsS -m 5 https://api.example/healthz`, `-o /dev/null -w '%{http_code}'`), else
 * undefined: any flag that sends data, headers, cookies or credentials, reads a file (`-w @file`,
 * `-K`), writes one or changes the method, or an address it would expand, keeps it a network
 * command. What the URL itself carries is decided with it, as for web_fetch.
 */
function curlGetUrls(args: readonly Word[]): string[] | undefined {
  const urls: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const w = args[i];
    if (w.dynamic || w.process) return undefined;
    const t = w.text;
    if (t.startsWith("-") && t.length > 1) {
      const eq = t.startsWith("--") ? t.indexOf("=") : -1;
      const flag = eq === -1 ? (t.startsWith("--") ? t : t.slice(0, 2)) : t.slice(0, eq);
      if (CURL_GET_FLAGS.has(t)) continue;
      if (!t.startsWith("--") && t.length > 2 && [...t.slice(1)].every((c) => CURL_GET_FLAGS.has(`-${c}`))) continue;
      const value = eq !== -1 ? t.slice(eq + 1) : !t.startsWith("--") && t.length > 2 ? t.slice(2) : args[++i]?.text;
      if (value === undefined || (i < args.length && args[i]?.dynamic)) return undefined;
      if (flag === "-o" || flag === "--output") {
        if (value !== "/dev/null") return undefined;
      } else if (flag === "-X" || flag === "--request") {
        if (value !== "GET" && value !== "HEAD") return undefined;
      } else if (!CURL_GET_VALUES.has(flag) || value.startsWith("@") || /%output\{/i.test(value)) return undefined;
      continue;
    }
    if (!CURL_GET_URL.test(t)) return undefined;
    add(urls, t);
  }
  return urls.length > 0 ? urls : undefined;
}

function urlHost(url: string): string {
  const m = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?([^/:?#]+)/i.exec(url);
  return m ? m[1].toLowerCase() : (url.split("/")[0] ?? "");
}

/** Where `git clone URL` puts the repository: the last path segment without `.git` (or `.bundle`). */
export function repositoryName(url: string): string {
  let path = url.replace(/[?#].*$/, "").replace(/\/+$/, "");
  path = path.replace(/\/\.git$/, "");
  const cut = Math.max(path.lastIndexOf("/"), path.includes("://") ? -1 : path.lastIndexOf(":"));
  let name = path.slice(cut + 1);
  name = name.replace(/\.(git|bundle)$/, "");
  return name === "." || name === ".." ? "" : name;
}

interface SedFindings {
  readonly reads: string[];
  readonly writes: string[];
  unsafe?: string;
}

/**
 * Reads a sed script for the commands that reach outside the stream: `w`/`W` and the `w` flag of `s`
 * write files, `e` and the `e` flag of `s` run commands, `r`/`R` read files. Anything it cannot
 * read counts as unsafe.
 */
export function scanSedScript(script: string): SedFindings {
  const found: SedFindings = { reads: [], writes: [] };
  const s = script;
  let i = 0;
  const toLineEnd = () => {
    const end = s.indexOf("\n", i);
    const text = s.slice(i, end === -1 ? s.length : end).trim();
    i = end === -1 ? s.length : end + 1;
    return text;
  };
  const skipTo = (chars: string) => {
    while (i < s.length && !chars.includes(s[i])) i++;
  };
  const delimited = (delim: string): boolean => {
    // From just after an opening delimiter to just after the closing one.
    while (i < s.length) {
      const c = s[i];
      if (c === "\\") i += 2;
      else if (c === delim) {
        i++;
        return true;
      } else if (c === "\n" && delim !== "\n") return false;
      else i++;
    }
    return false;
  };
  const address = () => {
    const c = s[i];
    if (c === undefined) return;
    if (/\d/.test(c)) {
      while (/[\d~]/.test(s[i] ?? "")) i++;
    } else if (c === "$") i++;
    else if (c === "/" || c === "\\") {
      const delim = c === "\\" ? s[i + 1] : "/";
      i += c === "\\" ? 2 : 1;
      if (!delimited(delim)) found.unsafe ??= "has a sed script ClawOS cannot read";
      while (s[i] === "I" || s[i] === "M") i++;
    } else if (c === "+" || c === "~") {
      i++;
      while (/\d/.test(s[i] ?? "")) i++;
    }
  };
  while (i < s.length && !found.unsafe) {
    const c0 = s[i];
    if (c0 === " " || c0 === "\t" || c0 === "\n" || c0 === ";" || c0 === "{" || c0 === "}") {
      i++;
      continue;
    }
    if (c0 === "#") {
      toLineEnd();
      continue;
    }
    address();
    while (s[i] === " ") i++;
    if (s[i] === ",") {
      i++;
      while (s[i] === " ") i++;
      address();
    }
    while (s[i] === " " || s[i] === "!") i++;
    const cmd = s[i++];
    if (cmd === undefined) break;
    switch (cmd) {
      case "{":
      case "}":
      case ";":
      case "\n":
        break;
      case ":":
      case "b":
      case "t":
      case "T":
        skipTo(";\n}");
        break;
      case "a":
      case "i":
      case "c": {
        // Text to the end of the line; a trailing backslash continues it.
        for (;;) {
          const end = s.indexOf("\n", i);
          const line = s.slice(i, end === -1 ? s.length : end);
          i = end === -1 ? s.length : end + 1;
          if (!line.endsWith("\\") || end === -1) break;
        }
        break;
      }
      case "r":
      case "R":
        found.reads.push(toLineEnd());
        break;
      case "w":
      case "W":
        found.writes.push(toLineEnd());
        break;
      case "e":
        found.unsafe = "e runs a command";
        break;
      case "s": {
        const delim = s[i++];
        if (delim === undefined || delim === "\n" || delim === "\\" || !delimited(delim) || !delimited(delim)) {
          found.unsafe ??= "has a sed script ClawOS cannot read";
          break;
        }
        while (i < s.length && /[gpiImMe0-9w]/.test(s[i])) {
          const f = s[i++];
          if (f === "e") found.unsafe = "s///e runs a command";
          if (f === "w") {
            found.writes.push(toLineEnd());
            break;
          }
        }
        break;
      }
      case "y": {
        const delim = s[i++];
        if (delim === undefined || !delimited(delim) || !delimited(delim)) found.unsafe ??= "has a sed script ClawOS cannot read";
        break;
      }
      case "l":
      case "L":
      case "q":
      case "Q":
        while (/[\d ]/.test(s[i] ?? "") && s[i] !== "\n") i++;
        break;
      case "v":
        skipTo(";\n}");
        break;
      case "=":
      case "d":
      case "D":
      case "g":
      case "G":
      case "h":
      case "H":
      case "n":
      case "N":
      case "p":
      case "P":
      case "x":
      case "z":
      case "F":
        break;
      default:
        found.unsafe = `has a sed command ClawOS does not know (${cmd})`;
    }
  }
  return found;
}

/**
 * The variables a word expands whose value may be a secret: upper-case names (the environment's
 * convention; lower-case names are the script's own) other than the plain ones, and indirect
 * expansions (`${!name}`, `${!PREFIX*}`), whose target is only known at run time. Single-quoted
 * text and escaped dollars expand nothing.
 */
export function secretVariables(raw: string): string[] {
  let out: string[] | undefined;
  let quote = "";
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (quote === "'") {
      if (c === "'") quote = "";
      continue;
    }
    if (c === "\\") {
      i++;
      continue;
    }
    if (c === "'" && quote === "") {
      quote = "'";
      continue;
    }
    if (c === '"') {
      quote = quote === '"' ? "" : '"';
      continue;
    }
    if (c !== "$") continue;
    let j = i + 1;
    const braced = raw[j] === "{";
    if (braced) j++;
    if (braced && raw[j] === "!") {
      (out ??= []).push(raw.slice(i + 1, raw.indexOf("}", j) + 1 || raw.length));
      continue;
    }
    const start = j;
    while (j < raw.length && /[A-Za-z0-9_]/.test(raw[j])) j++;
    const name = raw.slice(start, j);
    if (!name || /^[0-9]/.test(name) || /[a-z]/.test(name) || PLAIN_VARIABLES.has(name) || PLAIN_PREFIXES.test(name)) continue;
    (out ??= []).push(name);
  }
  return out ?? [];
}

/** A program run so that it prints the environment or the shell's variables. */
function disclosesEnvironment(name: string, args: readonly Word[]): boolean {
  switch (name) {
    case "printenv":
      // Named variables print only those: plain ones (HOME, PATH) hold no key, as `echo $HOME`.
      return (
        args.every((w) => !w.dynamic && w.text.startsWith("-")) ||
        args.some((w) => w.dynamic || (!w.text.startsWith("-") && secretVariables(`$${w.text}`).length > 0))
      );
    case "env":
    case "genv":
      // Alone (or with only its own flags and assignments) env prints the environment.
      return args.every((w) => w.text.startsWith("-") || ENV_ASSIGNMENT.test(w.text));
    case "set":
      return args.length === 0;
    case "export":
    case "declare":
    case "typeset":
    case "readonly":
    case "local":
      // A listing: no names given, only flags (`export -p`, `declare -x`, `set`).
      return args.every((w) => /^[-+][A-Za-z]*$/.test(w.text));
    case "compgen":
      return args.some((w) => w.text === "-v" || w.text === "-e" || w.text === "-A");
    case "ps":
      return psShowsEnvironment(args);
    case "jq":
    case "gojq":
    case "jaq":
      // jq's env builtin and $ENV hold the whole environment (`jq -n env`, `$ENV.API_KEY`).
      return args.some((w) => JQ_ENVIRONMENT.test(w.text));
    case "yq":
      return args.some((w) => YQ_ENVIRONMENT.test(w.text));
    case "awk":
    case "gawk":
    case "mawk":
    case "nawk":
      return args.some((w) => w.text.includes("ENVIRON"));
    default:
      return false;
  }
}

const YQ_LOAD = /\bload(?:_[a-z0-9]+)?\s*\(\s*(?:"([^"\\]*)"\s*\)|'([^'\\]*)'\s*\))?/g;
/**
 * Copy commands of storage and container tools, by program: the words before the verb, the verbs
 * that copy, and how a source that is not on this machine is spelled.
 */
const COPY_COMMANDS: ReadonlyMap<string, { readonly before: readonly string[]; readonly verbs: ReadonlySet<string>; readonly remote: RegExp }> = new Map([
  ["aws", { before: ["s3"], verbs: new Set(["cp", "mv", "sync"]), remote: /^s3:\/\// }],
  ["gsutil", { before: [], verbs: new Set(["cp", "mv", "rsync"]), remote: /^gs:\/\// }],
  ["s3cmd", { before: [], verbs: new Set(["get", "sync", "cp", "mv"]), remote: /^s3:\/\// }],
  ["rclone", { before: [], verbs: new Set(["copy", "copyto", "sync", "move", "moveto", "bisync", "copyurl"]), remote: /^[^/]*:|^https?:\/\// }],
  ["kubectl", { before: [], verbs: new Set(["cp"]), remote: /^[^/]*:/ }],
  ["docker", { before: [], verbs: new Set(["cp"]), remote: /^[^/]*:/ }],
  ["podman", { before: [], verbs: new Set(["cp"]), remote: /^[^/]*:/ }],
  ["azcopy", { before: [], verbs: new Set(["copy", "cp", "sync"]), remote: /^https?:\/\// }],
]);

/**
 * Where a copy that downloads puts what it brings: its operands on this machine, when the last one
 * is here and an earlier one is not (an upload's last operand is remote: nothing lands). A flag's
 * value may be taken for an operand; it names no file, so labelling it changes nothing.
 */
function downloadLandings(name: string, args: readonly Word[]): string[] {
  const copy = COPY_COMMANDS.get(name);
  if (!copy) return [];
  const words = args.filter((w) => !w.dynamic && !w.text.startsWith("-")).map((w) => w.text);
  let i = 0;
  for (const word of copy.before) if (words[i] === word) i++;
  if (i < copy.before.length || !copy.verbs.has(words[i] ?? "")) return [];
  const operands = words.slice(i + 1);
  const last = operands[operands.length - 1];
  if (last === undefined || copy.remote.test(last) || !operands.some((w) => copy.remote.test(w))) return [];
  return operands.filter((w) => !copy.remote.test(w));
}

/** The words right after any of `flags` (test -v NAME). */
function namesAfter(words: readonly Word[], flags: readonly string[]): Word[] {
  const out: Word[] = [];
  for (let i = 0; i + 1 < words.length; i++) if (!words[i].dynamic && flags.includes(words[i].text)) out.push(words[i + 1]);
  return out;
}

/**
 * A path seen through a process's own view (/proc/self/cwd, /proc/123/root, /dev/fd/3): a command
 * resolves it in its own process, not where ClawOS resolves paths, so where it leads is unknown.
 */
const PROCESS_VIEW = /^\/(?:proc\/(?:self|thread-self|\d+)\/(?:cwd|root|fd|map_files)|dev\/fd)(?:\/|$)/;
/**
 * A path only run time names: an expansion or a command substitution, `~+` or `~-` (the shell's
 * own directories), or `{}` (find's and xargs' names, as a copy's source is recorded), alone or
 * joined below a directory.
 */
export const RUNTIME_PATH = /[$`]|^~[+-](?:\/|$)|(?:^|\/)\{\}$/;
/** How a copy's source only run time names is recorded. */
const RUNTIME_NAME = "{}";

/** Bash's network redirections: opening one connects (and looks the host up). */
const NETWORK_DEVICE = /^\/dev\/(?:tcp|udp)\//;

/** find operators that make a test other than ANDed with the rest (or follow links): -exec's names are then not bounded by -type f. */
const FIND_NOT_AND: ReadonlySet<string> = new Set(["-o", "-or", ",", "!", "-not", "(", ")", "-follow", "-xtype"]);

const JQ_ENVIRONMENT = /\$ENV\b|\$__prog_env\b|(?:^|[^\w.$])env\b/;
const YQ_ENVIRONMENT = /\b(?:env|strenv|envsubst)\b|\$ENV\b/;
/** ps's flags that take a value: a value is never read as BSD options. */
const PS_VALUE_FLAGS = new Set([
  "-o",
  "-O",
  "-p",
  "-q",
  "-u",
  "-U",
  "-G",
  "-g",
  "-t",
  "-C",
  "-s",
  "--format",
  "--pid",
  "--ppid",
  "--user",
  "--group",
  "--sort",
  "--cols",
  "--columns",
  "--rows",
  "--width",
]);

/**
 * Whether ps prints each process's environment: the BSD option `e` (`ps eww`, `ps auxe`), or `-E`
 * (the BSDs' and macOS's spelling).
 */
function psShowsEnvironment(args: readonly Word[]): boolean {
  for (let i = 0; i < args.length; i++) {
    const t = args[i].text;
    if (t === "-E") return true;
    if (PS_VALUE_FLAGS.has(t)) {
      i++;
      continue;
    }
    if (/^[A-Za-z]+$/.test(t) && t.includes("e")) return true;
  }
  return false;
}

/**
 * Whether a program prints only what its files hold (`printsFiles` in the command table) with these
 * arguments: none of its `ownWordsFlags`, whole (`--format`), with a value (`--format=%s`), as a
 * long flag's prefix (`--form=%s`, which programs take for the whole flag), or, for a one-letter
 * flag, anywhere in a bundle of them (`-nsX`).
 */
function printsOnlyFiles(prints: { readonly ownWordsFlags?: readonly string[] } | undefined, args: readonly Word[]): boolean {
  if (!prints) return false;
  const own = prints.ownWordsFlags ?? [];
  if (own.length === 0) return true;
  for (const arg of args) {
    const t = arg.text;
    if (!t.startsWith("-") || t === "-" || t === "--") continue;
    const whole = t.includes("=") ? t.slice(0, t.indexOf("=")) : t;
    if (own.includes(whole)) return false;
    if (t.startsWith("--")) {
      if (whole.length > 3 && own.some((flag) => flag.startsWith(whole))) return false;
    } else if (/^-[A-Za-z0-9]/.test(t) && [...t.slice(1)].some((letter) => own.includes(`-${letter}`))) return false;
  }
  return true;
}

/** A systemd unit a service action may name: a service (`api`, `api.service`, `getty@tty1`), never a target, socket, mount or timer. */
const SERVICE_UNIT = /^[A-Za-z0-9][A-Za-z0-9_.:@-]*$/;
/** Units of other types than a service: a target (poweroff.target), a socket, a mount ... */
const OTHER_UNIT = /\.(?:target|socket|timer|mount|automount|swap|path|slice|scope|device)$/i;
/** A workload `kubectl rollout restart` may name, with its name after a slash or as the next operand. */
const KUBE_WORKLOAD = /^(?:deployments?|deploy|daemonsets?|ds|statefulsets?|sts)(?:\.apps)?$/i;
const KUBE_NAME = /^[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?$/;
const CONTAINER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** The names a service action's operands give, or undefined when one is not a plain name of its kind (or none is given). */
function serviceNames(units: ServiceActionSpec["units"], operands: readonly string[]): string[] | undefined {
  if (operands.length === 0) return undefined;
  const out: string[] = [];
  if (units === "systemd") {
    for (const unit of operands) {
      if (!SERVICE_UNIT.test(unit) || OTHER_UNIT.test(unit) || unit.includes("..")) return undefined;
      out.push(unit.replace(/\.service$/, "").toLowerCase());
    }
    return out;
  }
  if (units === "docker") {
    for (const name of operands) {
      // An operand of hex digits may be taken as an id's prefix ("dead", "cafe"): not a name.
      if (!CONTAINER_NAME.test(name) || /^[0-9a-f]+$/i.test(name)) return undefined;
      out.push(name.toLowerCase());
    }
    return out;
  }
  for (let i = 0; i < operands.length; i++) {
    const slash = operands[i].indexOf("/");
    const kind = slash === -1 ? operands[i] : operands[i].slice(0, slash);
    if (!KUBE_WORKLOAD.test(kind)) return undefined;
    const name = slash === -1 ? operands[++i] : operands[i].slice(slash + 1);
    if (name === undefined || !KUBE_NAME.test(name)) return undefined;
    out.push(name);
  }
  return out;
}
