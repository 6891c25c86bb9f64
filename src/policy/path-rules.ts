import { Type, type Static } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import picomatch from "picomatch";
import { describeErrors } from "../config/validation.ts";
import { BUILTIN_PATH_RULES } from "./builtin-path-rules.ts";

/**
 * Path rules: which files a call may not touch at less than owner trust. Data, first match wins:
 * the operator's rules (config `paths.rules`) come before the built-in ones
 * (`builtin-path-rules.ts`), and both are checked by this one schema.
 *
 *   secret     reading needs owner (secrets:read); writing counts as system:admin
 *   protected  writing needs owner (system:admin); reading is the tool's own business
 *   open       no path rule applies (the workspace, or an operator's carve-out)
 */

export const PATH_ZONES = ["secret", "protected", "open"] as const;
export type PathZone = (typeof PATH_ZONES)[number];

export const PathRuleSchema = Type.Object(
  {
    pattern: Type.String({
      minLength: 1,
      description:
        "a glob over absolute paths (** any depth, * one name, {a,b} either); placeholders {home} {state} {config} {workspace} {clawos} {audit} {sessions}",
    }),
    zone: Type.Union(
      PATH_ZONES.map((zone) => Type.Literal(zone)),
      { description: "secret (reads and writes need owner), protected (writes need owner) or open (no rule)" },
    ),
    label: Type.String({ minLength: 1, description: "what the path is, in words for a block reason" }),
    inDirectoryReads: Type.Optional(
      Type.Boolean({
        description:
          "with secret: whether a read of a whole directory that may hold such a path (grep -r, tar) counts as reading it (default true); false for names found in any project (.env), where it would make every search of a tree a secret read",
      }),
    ),
  },
  { additionalProperties: false },
);
export type PathRule = Static<typeof PathRuleSchema>;

const PathRulesFileSchema = Type.Object({ rules: Type.Array(PathRuleSchema) }, { additionalProperties: false });
const checkRulesFile = TypeCompiler.Compile(PathRulesFileSchema);

/** Where the host keeps what the path rules protect, resolved the way the host resolves them. */
export interface HostLocations {
  /** What `~` means to the host's file tools. */
  readonly home: string;
  readonly state: string;
  readonly config: string;
  readonly clawos: string;
  readonly audit: string;
  readonly sessions: string;
  /** The agent's workspace: relative paths resolve against it. */
  workspaceFor(agentId: string | undefined): string;
  /** The filesystem ignores case (macOS, Windows): patterns match without case. */
  readonly caseInsensitive: boolean;
}

export interface PathMatch {
  readonly zone: PathZone;
  readonly label: string;
  readonly pattern: string;
}

/**
 * The built-in rules, checked by the same schema as operators' rules. Rules that fail the check are
 * a packaging error and fail closed: every path counts as secret, so file calls below owner block.
 */
export function builtinPathRules(): PathRule[] {
  const value = { rules: BUILTIN_PATH_RULES };
  if (checkRulesFile.Check(value)) return [...value.rules];
  const why = describeErrors(checkRulesFile, value, "built-in path rules").join(" ");
  return [{ pattern: "**", zone: "secret", label: `a path ClawOS cannot check (${why})` }];
}

const GLOB_SPECIAL = /[\\*?[\]{}()!+@|]/g;

/** A name with any of these is matched by picomatch (escaped names included); others are compared as they are. */
const GLOB_CHAR = new RegExp(GLOB_SPECIAL.source);

function escapeGlob(path: string): string {
  return path.replace(GLOB_SPECIAL, "\\$&");
}

interface CompiledRule {
  readonly rule: PathRule;
  readonly usesWorkspace: boolean;
  readonly fixed?: RegExp;
}

/** One name of a pattern's path: a name to equal, `**`, or a one-name glob. */
type NameMatcher = string | "**" | RegExp;

/** A secret rule as lists of names (one per brace alternative), for asking what it can match below a directory. */
interface BelowRule {
  readonly rule: PathRule;
  readonly alternatives: readonly (readonly NameMatcher[])[];
}

/** How many directories' secretBelow answers are kept per workspace. */
/** Answers kept per workspace (`match`, `secretBelow`) before that workspace's are emptied. */
const MAX_SEEN = 4096;

/**
 * Keeps an answer that depends on the rules and a path's spelling only (no filesystem), per
 * workspace; a full workspace's answers, or too many workspaces, are emptied. Returns the answer.
 */
function keep(store: Map<string, Map<string, PathMatch | false>>, workspace: string, path: string, found: PathMatch | undefined): PathMatch | undefined {
  let known = store.get(workspace);
  if (!known || known.size >= MAX_SEEN) {
    if (store.size > 64) store.clear();
    known = new Map();
    store.set(workspace, known);
  }
  known.set(path, found ?? false);
  return found;
}

/** More alternatives than this and a pattern is taken to reach below every directory. */
const MAX_BRACE_ALTERNATIVES = 64;

/**
 * Every rule's pattern for one workspace as one alternation, each alternative in its own capturing
 * group: a regular expression tries alternatives in order, so one `exec` finds the first rule that
 * matches (`groupOf[i]` is the group of rule i), instead of one test per rule.
 */
interface WorkspaceRules {
  readonly all: RegExp;
  readonly groupOf: readonly number[];
}

const ZONE_RANK: Record<PathZone, number> = { open: 0, protected: 1, secret: 2 };

/**
 * The compiled path rules for one host. Patterns without `{workspace}` compile once; the others
 * once per workspace. Matching is over absolute, normalised paths.
 */
export class PathRules {
  private readonly compiled: CompiledRule[];
  private readonly perWorkspace = new Map<string, WorkspaceRules>();
  private readonly belowByWorkspace = new Map<string, BelowRule[]>();
  /** secretBelow's answers per workspace (false: none), emptied when full. */
  private readonly belowSeen = new Map<string, Map<string, PathMatch | false>>();
  /** match's answers per workspace (false: none), emptied when full. */
  private readonly matchSeen = new Map<string, Map<string, PathMatch | false>>();
  private readonly writableFixed: RegExp[];
  private readonly writableByWorkspace = new Map<string, RegExp[]>();
  readonly locations: HostLocations;
  private readonly writable: readonly string[];

  constructor(rules: readonly PathRule[], locations: HostLocations, writable: readonly string[] = []) {
    this.locations = locations;
    this.writable = writable;
    this.compiled = rules.map((rule) => {
      const usesWorkspace = rule.pattern.includes("{workspace}");
      return { rule, usesWorkspace, fixed: usesWorkspace ? undefined : this.matcher(rule.pattern, undefined) };
    });
    this.writableFixed = writable.filter((p) => !p.includes("{workspace}")).map((p) => this.matcher(p, undefined));
  }

  /** The first rule a path matches, or undefined when none does. */
  match(path: string, agentId: string | undefined): PathMatch | undefined {
    const workspace = this.locations.workspaceFor(agentId);
    const seen = this.matchSeen.get(workspace)?.get(path);
    if (seen !== undefined) return seen || undefined;
    return keep(this.matchSeen, workspace, path, this.firstMatch(path, workspace));
  }

  private firstMatch(path: string, workspace: string): PathMatch | undefined {
    const rules = this.workspaceMatchers(workspace);
    const m = rules.all.exec(path);
    if (!m) return undefined;
    for (let i = 0; i < rules.groupOf.length; i++) {
      if (m[rules.groupOf[i]] === undefined) continue;
      const rule = this.compiled[i].rule;
      return { zone: rule.zone, label: rule.label, pattern: rule.pattern };
    }
    return undefined;
  }

  /** The stricter match of a path's spelled and real (symlinks followed) forms. */
  strictest(paths: readonly string[], agentId: string | undefined): PathMatch | undefined {
    let best: PathMatch | undefined;
    for (const path of paths) {
      const match = this.match(path, agentId);
      if (match && (!best || ZONE_RANK[match.zone] > ZONE_RANK[best.zone])) best = match;
    }
    return best;
  }

  /**
   * The first secret rule that can match a path strictly below a directory: what a read that takes
   * in a whole directory (`grep -r key ~`, `cat ~/.ss*`) would pull in. Names are compared one by
   * one, so `~` reaches SSH keys and `~/projects` does not; a pattern with `**` before the
   * directory's depth reaches below every directory it can start from.
   */
  secretBelow(dir: string, agentId: string | undefined): PathMatch | undefined {
    const workspace = this.locations.workspaceFor(agentId);
    const seen = this.belowSeen.get(workspace)?.get(dir);
    if (seen !== undefined) return seen || undefined;
    let found: PathMatch | undefined;
    const names = dir.split("/").filter(Boolean);
    for (const { rule, alternatives } of this.belowRules(workspace)) {
      if (alternatives.some((pattern) => reachesBelow(pattern, names, this.locations.caseInsensitive))) {
        found = { zone: rule.zone, label: rule.label, pattern: rule.pattern };
        break;
      }
    }
    return keep(this.belowSeen, workspace, dir, found);
  }

  private belowRules(workspace: string): BelowRule[] {
    let rules = this.belowByWorkspace.get(workspace);
    if (!rules) {
      const nocase = this.locations.caseInsensitive;
      rules = this.compiled
        .filter(({ rule }) => rule.zone === "secret" && rule.inDirectoryReads !== false)
        .map(({ rule }) => {
          const expanded = braceAlternatives(this.expand(rule.pattern, workspace));
          // Too many to list: taken to reach below everything (`**`).
          if (!expanded) return { rule, alternatives: [["**"]] };
          return {
            rule,
            alternatives: expanded.map((alt) =>
              alt
                .split("/")
                .filter(Boolean)
                .map((name): NameMatcher => {
                  if (name === "**") return "**";
                  if (!GLOB_CHAR.test(name)) return nocase ? name.toLowerCase() : name;
                  return picomatch.makeRe(name, { dot: true, nocase });
                }),
            ),
          };
        });
      if (this.belowByWorkspace.size > 64) this.belowByWorkspace.clear();
      this.belowByWorkspace.set(workspace, rules);
    }
    return rules;
  }

  /** Inside the agent's workspace or an operator's writable pattern (the workspace scope). */
  writableFor(path: string, agentId: string | undefined): boolean {
    const workspace = this.locations.workspaceFor(agentId);
    if (this.samePath(path, workspace) || this.writableFixed.some((re) => re.test(path))) return true;
    let matchers = this.writableByWorkspace.get(workspace);
    if (!matchers) {
      matchers = [this.matcher("{workspace}/**", workspace), ...this.writable.filter((p) => p.includes("{workspace}")).map((p) => this.matcher(p, workspace))];
      if (this.writableByWorkspace.size > 64) this.writableByWorkspace.clear();
      this.writableByWorkspace.set(workspace, matchers);
    }
    return matchers.some((re) => re.test(path));
  }

  private samePath(a: string, b: string): boolean {
    return this.locations.caseInsensitive ? a.toLowerCase() === b.toLowerCase() : a === b;
  }

  private workspaceMatchers(workspace: string): WorkspaceRules {
    let rules = this.perWorkspace.get(workspace);
    if (!rules) {
      const each = this.compiled.map((entry) => entry.fixed ?? this.matcher(entry.rule.pattern, workspace));
      // picomatch anchors each pattern (^...$) and may use groups of its own: count them to find ours.
      const groupOf: number[] = [];
      let group = 1;
      for (const re of each) {
        groupOf.push(group);
        group += 1 + (new RegExp(`${re.source}|`).exec("")?.length ?? 1) - 1;
      }
      const all = each.length ? new RegExp(each.map((re) => `(${re.source})`).join("|"), this.locations.caseInsensitive ? "i" : "") : /(?!)/;
      rules = { all, groupOf };
      if (this.perWorkspace.size > 64) this.perWorkspace.clear();
      this.perWorkspace.set(workspace, rules);
    }
    return rules;
  }

  private matcher(pattern: string, workspace: string | undefined): RegExp {
    // A bare regular expression: picomatch's matcher function does more per call than the test.
    return picomatch.makeRe(this.expand(pattern, workspace), { dot: true, nocase: this.locations.caseInsensitive });
  }

  /** The pattern with its placeholders replaced by this host's places (escaped as literal names). */
  private expand(pattern: string, workspace: string | undefined): string {
    const l = this.locations;
    return pattern.replace(/\{(home|state|config|workspace|clawos|audit|sessions)\}/g, (_, name: string) => {
      const value =
        name === "workspace" ? (workspace ?? l.workspaceFor(undefined)) : (l[name as "home" | "state" | "config" | "clawos" | "audit" | "sessions"] as string);
      return escapeGlob(value.replace(/\/+$/, "") || "/");
    });
  }
}

/**
 * Whether a pattern (its names) can match a path strictly below the directory whose names are
 * given: every name of the directory matches the pattern's name at the same depth, and the pattern
 * goes on past it. `**` matches any number of names, so from there on anything can follow.
 */
function reachesBelow(pattern: readonly NameMatcher[], dir: readonly string[], nocase: boolean): boolean {
  for (let i = 0; i < dir.length; i++) {
    const name = pattern[i];
    if (name === undefined) return false;
    if (name === "**") return true;
    const actual = nocase ? dir[i].toLowerCase() : dir[i];
    if (typeof name === "string" ? name !== actual : !name.test(dir[i])) return false;
  }
  return pattern.length > dir.length;
}

/**
 * A glob's brace alternatives written out (`a/{b,c}/d` is `a/b/d` and `a/c/d`), nested braces
 * included; escaped characters stay as they are. A brace without a comma at its own level is
 * literal. Undefined when there would be more than MAX_BRACE_ALTERNATIVES.
 */
export function braceAlternatives(pattern: string): string[] | undefined {
  let open = -1;
  let depth = 0;
  const commas: number[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (c === "{") {
      if (depth === 0) {
        open = i;
        commas.length = 0;
      }
      depth++;
    } else if (c === "}" && depth > 0) {
      depth--;
      if (depth === 0 && commas.length > 0) {
        const head = pattern.slice(0, open);
        const tail = pattern.slice(i + 1);
        const bounds = [open, ...commas, i];
        const out: string[] = [];
        for (let k = 0; k + 1 < bounds.length; k++) {
          const more = braceAlternatives(head + pattern.slice(bounds[k] + 1, bounds[k + 1]) + tail);
          if (!more) return undefined;
          out.push(...more);
          if (out.length > MAX_BRACE_ALTERNATIVES) return undefined;
        }
        return out;
      }
    } else if (c === "," && depth === 1) commas.push(i);
  }
  return [pattern];
}
