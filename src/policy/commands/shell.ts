/**
 * A shell parser for deciding what an `exec` command does: it reads the POSIX/bash grammar the way
 * bash splits it (operators, quotes, escapes, expansions, here-documents, compound commands) into
 * plain data, and nothing more. It never expands a variable or a glob: a word that depends on run
 * time is marked `dynamic`, and the commands inside command and process substitutions are parsed
 * into `scripts` so the classifier sees them too.
 *
 * Where bash would reject input the parser may be more lenient (a stray `fi` is an empty command):
 * leniency only ever makes the classifier look at commands that would not run. Where the parser
 * cannot be sure what bash would run (unbalanced quotes, an unterminated here-document or
 * substitution, a NUL byte, input or nesting past the limits) it returns `parsed: false`.
 */

export const SHELL_LIMITS = {
  /** Characters of input. */
  maxLength: 64 * 1024,
  /** Nested subshells, groups, substitutions and `bash -c` strings. */
  maxDepth: 24,
  /** Words and operators in one parse, substitutions included. */
  maxTokens: 8192,
  /** Here-documents in one parse. */
  maxHeredocs: 64,
} as const;

export interface Word {
  /** The word as written. */
  readonly raw: string;
  /** The word after quote removal; expansions stay as written (`$HOME`, `$(...)`). */
  readonly text: string;
  /** Some part of the word was quoted or escaped. */
  readonly quoted: boolean;
  /** The word holds an expansion whose value is only known at run time. */
  readonly dynamic: boolean;
  /**
   * The word expands to names only known at run time: an unquoted glob character (`*`, `?`, `[`), a
   * brace expansion (`{a,b}`, `{1..3}`), or a tilde other than the home directory (`~user`, `~+`).
   */
  readonly glob: boolean;
  /**
   * The word evaluates arithmetic over variables (`$((x+1))`, `${a[i]}`): bash evaluates a
   * variable's value as an expression there, and an array subscript in it can run a command.
   */
  readonly arithmetic?: boolean;
  /** A process substitution, `<(...)` or `>(...)`: the word is a pipe, not a file the command names. */
  readonly process?: boolean;
  /** Command and process substitutions inside the word, parsed. */
  readonly scripts: readonly Script[];
}

export const REDIRECT_OPS = ["<", ">", ">>", ">|", "<>", "&>", "&>>", ">&", "<&", "<<", "<<-", "<<<"] as const;
export type RedirectOp = (typeof REDIRECT_OPS)[number];

export interface HereDoc {
  readonly delimiter: string;
  readonly body: string;
  /** The delimiter was unquoted: the body undergoes expansion (its substitutions run). */
  readonly expands: boolean;
  readonly scripts: readonly Script[];
  /** The body evaluates arithmetic over variables (see `Word.arithmetic`). */
  readonly arithmetic?: boolean;
}

export interface Redirect {
  readonly op: RedirectOp;
  /** The file descriptor written before the operator (`2>`), when one was. */
  readonly fd?: number;
  /** The file (or descriptor for `>&`, `<&`, or the string for `<<<`); absent for here-documents. */
  readonly target?: Word;
  readonly heredoc?: HereDoc;
}

export interface SimpleCommand {
  readonly kind: "simple";
  /** `NAME=value` words before the command name. */
  readonly assignments: readonly Word[];
  readonly words: readonly Word[];
  readonly redirects: readonly Redirect[];
  /** The reserved word that ends a compound here (`done`, `fi`, `esac`): the command has no words. */
  readonly ends?: string;
}

/**
 * Everything that is not a simple command. `(` subshell, `{` group, `((` arithmetic command, `[[`
 * conditional, `for`/`select` header (the loop body follows as ordinary commands), `case`,
 * `function` definition. `words` are the words the construct expands, `bodies` the lists it runs.
 */
export interface CompoundCommand {
  readonly kind: "compound";
  readonly keyword: "(" | "{" | "((" | "[[" | "for" | "case" | "function";
  readonly words: readonly Word[];
  readonly bodies: readonly Script[];
  readonly redirects: readonly Redirect[];
  /** For `((`: the arithmetic text. For `function`: the name. For `for`: the loop variable. */
  readonly text?: string;
}

export type Command = SimpleCommand | CompoundCommand;

/** What follows a pipeline: how the next one runs. "" at the end of a list. */
export type Separator = ";" | "&" | "&&" | "||" | "";

export interface Pipeline {
  readonly commands: readonly Command[];
  readonly negated: boolean;
  readonly next: Separator;
}

export interface Script {
  readonly pipelines: readonly Pipeline[];
}

export type ParseResult = { readonly parsed: true; readonly script: Script } | { readonly parsed: false; readonly error: string };

export interface ParseOptions {
  /** Nesting already used by the caller (a `bash -c` string inside a command). */
  readonly depth?: number;
}

/** Parses shell text. Pure; bounded by `SHELL_LIMITS`. */
export function parseShell(source: string, options: ParseOptions = {}): ParseResult {
  if (typeof source !== "string") return { parsed: false, error: "the command is not text" };
  if (source.length > SHELL_LIMITS.maxLength) return { parsed: false, error: `the command is longer than ${SHELL_LIMITS.maxLength} characters` };
  if (source.includes("\0")) return { parsed: false, error: "the command holds a NUL byte" };
  const depth = options.depth ?? 0;
  if (depth > SHELL_LIMITS.maxDepth) return { parsed: false, error: `the command nests deeper than ${SHELL_LIMITS.maxDepth} levels` };
  try {
    const parser = new Parser(source, depth, { tokens: 0, heredocs: 0 });
    return { parsed: true, script: parser.parseAll() };
  } catch (error) {
    if (error instanceof ShellSyntaxError) return { parsed: false, error: error.message };
    throw error;
  }
}

class ShellSyntaxError extends Error {}

interface Budget {
  tokens: number;
  heredocs: number;
}

interface PendingHereDoc {
  delimiter: string;
  stripTabs: boolean;
  expands: boolean;
  body: string;
  scripts: Script[];
  arithmetic?: boolean;
}

type Stop = ")" | "}" | "case" | "`" | undefined;

const RESERVED_PREFIX = new Set(["if", "then", "else", "elif", "do", "while", "until"]);
const RESERVED_END = new Set(["fi", "done", "esac"]);
const NAME_START = /[A-Za-z_]/;
const NAME_CHAR = /[A-Za-z0-9_]/;
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;
const SPECIAL_PARAMS = "@*#?-$!0123456789";
const NO_SCRIPTS: readonly Script[] = Object.freeze([]);

/** Characters (below 128) that stand for themselves in a word: not metacharacters, quotes, expansions or globs. */
const PLAIN = (() => {
  const table = new Uint8Array(128);
  for (let code = 33; code < 127; code++) table[code] = 1;
  for (const c of ";&|()<> \t\n\\'\"$`*?[") table[c.charCodeAt(0)] = 0;
  return table;
})();

/** Arithmetic that names a variable (or expands one): its value is evaluated as an expression. */
export const ARITHMETIC_NAMES = /[A-Za-z_$`]/;

function isMeta(c: string | undefined): boolean {
  return c === " " || c === "\t" || c === "\n" || c === ";" || c === "&" || c === "|" || c === "(" || c === ")" || c === "<" || c === ">";
}

function describe(c: string | undefined): string {
  if (c === undefined) return "the end of the command";
  if (c === "\n") return "a line break";
  return `"${c}"`;
}

class Parser {
  private pos = 0;
  /** Set while reading a word when it evaluates arithmetic over names. */
  arith = false;
  private readonly pending: PendingHereDoc[] = [];
  private readonly src: string;
  private depth: number;
  private readonly budget: Budget;

  constructor(src: string, depth: number, budget: Budget) {
    this.src = src;
    this.depth = depth;
    this.budget = budget;
  }

  parseAll(): Script {
    const script = this.parseList(undefined);
    this.skipBlanks();
    if (this.pos < this.src.length) throw new ShellSyntaxError(`unexpected ${describe(this.src[this.pos])} at offset ${this.pos}`);
    if (this.pending.length > 0) throw new ShellSyntaxError(`unterminated here-document (no line "${this.pending[0].delimiter}")`);
    return script;
  }

  // ---- lists, pipelines, commands -------------------------------------------------------------

  private nest<T>(run: () => T): T {
    if (this.depth + 1 > SHELL_LIMITS.maxDepth) throw new ShellSyntaxError(`the command nests deeper than ${SHELL_LIMITS.maxDepth} levels`);
    this.depth++;
    try {
      return run();
    } finally {
      this.depth--;
    }
  }

  private count(): void {
    if (++this.budget.tokens > SHELL_LIMITS.maxTokens) throw new ShellSyntaxError(`the command has more than ${SHELL_LIMITS.maxTokens} words`);
  }

  private parseList(stop: Stop): Script {
    const pipelines: Pipeline[] = [];
    for (;;) {
      this.skipBlanksAndNewlines();
      if (this.atStop(stop) || this.pos >= this.src.length) break;
      const c = this.src[this.pos];
      if (c === ";" || c === "&" || c === "|" || c === ")") {
        if (c === ")" && stop === undefined) throw new ShellSyntaxError(`unexpected ")" at offset ${this.pos}`);
        if (c === ";" && this.src[this.pos + 1] === ";" && stop === "case") break;
        if (c === ")") break;
        throw new ShellSyntaxError(`unexpected "${c}" at offset ${this.pos}`);
      }
      const { commands, negated } = this.parsePipeline(stop);
      const next = this.parseSeparator(stop);
      pipelines.push({ commands, negated, next });
      if (next === "") break;
    }
    return { pipelines };
  }

  private parseSeparator(stop: Stop): Separator {
    this.skipBlanks();
    const s = this.src;
    const c = s[this.pos];
    if (c === undefined) return "";
    if (c === "\n") {
      this.newline();
      return ";";
    }
    if (c === "&" && s[this.pos + 1] === "&") {
      this.pos += 2;
      this.skipBlanksAndNewlines();
      return "&&";
    }
    if (c === "|" && s[this.pos + 1] === "|") {
      this.pos += 2;
      this.skipBlanksAndNewlines();
      return "||";
    }
    if (c === "&") {
      this.pos++;
      return "&";
    }
    if (c === ";") {
      if (s[this.pos + 1] === ";" || s[this.pos + 1] === "&") {
        if (stop === "case") return "";
        throw new ShellSyntaxError(`unexpected "${s.slice(this.pos, this.pos + 2)}" outside a case statement`);
      }
      this.pos++;
      return ";";
    }
    if (this.atStop(stop) || c === ")") return "";
    throw new ShellSyntaxError(`unexpected ${describe(c)} at offset ${this.pos}`);
  }

  private atStop(stop: Stop): boolean {
    if (stop === ")") return this.src[this.pos] === ")";
    if (stop === "}") return this.peekReserved() === "}";
    if (stop === "case") {
      const c = this.src[this.pos];
      return (c === ";" && (this.src[this.pos + 1] === ";" || this.src[this.pos + 1] === "&")) || this.peekReserved() === "esac";
    }
    return false;
  }

  private parsePipeline(stop: Stop): Omit<Pipeline, "next"> {
    let negated = false;
    while (this.peekReserved() === "!") {
      this.pos++;
      negated = !negated;
      this.skipBlanks();
    }
    const commands: Command[] = [this.parseCommand(stop)];
    for (;;) {
      this.skipBlanks();
      const s = this.src;
      if (s[this.pos] === "|" && s[this.pos + 1] !== "|") {
        this.pos += s[this.pos + 1] === "&" ? 2 : 1;
        this.skipBlanksAndNewlines();
        commands.push(this.parseCommand(stop));
        continue;
      }
      return { commands, negated };
    }
  }

  private parseCommand(stop: Stop): Command {
    this.skipBlanks();
    const s = this.src;
    this.count();
    if (s[this.pos] === "(") {
      if (s[this.pos + 1] === "(") {
        const arith = this.tryArithmetic(this.pos + 2);
        if (arith !== undefined) {
          this.pos = arith.end;
          return { kind: "compound", keyword: "((", words: [], bodies: arith.scripts, redirects: this.parseRedirects(), text: arith.text };
        }
      }
      this.pos++;
      const body = this.nest(() => this.parseList(")"));
      this.expect(")", "a subshell");
      return { kind: "compound", keyword: "(", words: [], bodies: [body], redirects: this.parseRedirects() };
    }
    const reserved = this.peekReserved();
    if (reserved !== undefined) {
      if (reserved === "{") {
        this.pos++;
        const body = this.nest(() => this.parseList("}"));
        if (this.peekReserved() !== "}") throw new ShellSyntaxError('a "{" group has no closing "}"');
        this.pos++;
        return { kind: "compound", keyword: "{", words: [], bodies: [body], redirects: this.parseRedirects() };
      }
      if (reserved === "}") {
        if (stop === "}") return { kind: "simple", assignments: [], words: [], redirects: [] };
        throw new ShellSyntaxError(`unexpected "}" at offset ${this.pos}`);
      }
      if (RESERVED_PREFIX.has(reserved)) {
        this.pos += reserved.length;
        this.skipBlanksAndNewlines();
        if (this.pos >= s.length || this.atStop(stop)) return { kind: "simple", assignments: [], words: [], redirects: [] };
        return this.parseCommand(stop);
      }
      if (RESERVED_END.has(reserved) && !(reserved === "esac" && stop === "case")) {
        this.pos += reserved.length;
        return { kind: "simple", assignments: [], words: [], redirects: this.parseRedirects(), ends: reserved };
      }
      if (reserved === "for" || reserved === "select") return this.parseFor(reserved.length);
      if (reserved === "case") return this.parseCase();
      if (reserved === "function") return this.parseFunction();
      if (reserved === "[[") return this.parseConditional();
    }
    return this.parseSimple();
  }

  private parseFor(keywordLength: number): CompoundCommand {
    this.pos += keywordLength;
    this.skipBlanks();
    const s = this.src;
    if (s[this.pos] === "(" && s[this.pos + 1] === "(") {
      const arith = this.tryArithmetic(this.pos + 2);
      if (arith === undefined) throw new ShellSyntaxError("an unterminated (( in a for loop");
      this.pos = arith.end;
      return { kind: "compound", keyword: "((", words: [], bodies: arith.scripts, redirects: [], text: arith.text };
    }
    const name = this.readWord();
    if (!name) throw new ShellSyntaxError("a for loop without a variable name");
    const words: Word[] = [];
    this.skipBlanksAndNewlines();
    if (this.peekReserved() === "in") {
      this.pos += 2;
      for (;;) {
        this.skipBlanks();
        const c = s[this.pos];
        if (c === undefined || c === ";" || c === "\n" || c === "&") break;
        const word = this.readWord();
        if (!word) throw new ShellSyntaxError(`unexpected ${describe(c)} in a for loop`);
        words.push(word);
      }
    }
    return { kind: "compound", keyword: "for", words, bodies: [], redirects: [], text: name.text };
  }

  private parseCase(): CompoundCommand {
    this.pos += 4;
    this.skipBlanks();
    const subject = this.readWord();
    if (!subject) throw new ShellSyntaxError("a case statement without a word");
    this.skipBlanksAndNewlines();
    if (this.peekReserved() !== "in") throw new ShellSyntaxError('a case statement without "in"');
    this.pos += 2;
    const words: Word[] = [subject];
    const bodies: Script[] = [];
    for (;;) {
      this.skipBlanksAndNewlines();
      if (this.pos >= this.src.length) throw new ShellSyntaxError('a case statement without "esac"');
      if (this.peekReserved() === "esac") {
        this.pos += 4;
        break;
      }
      if (this.src[this.pos] === "(") this.pos++;
      for (;;) {
        this.skipBlanks();
        const pattern = this.readWord();
        if (!pattern) throw new ShellSyntaxError(`unexpected ${describe(this.src[this.pos])} in a case pattern`);
        words.push(pattern);
        this.skipBlanks();
        if (this.src[this.pos] === "|") {
          this.pos++;
          continue;
        }
        this.expect(")", "a case pattern");
        break;
      }
      bodies.push(this.nest(() => this.parseList("case")));
      const s = this.src;
      if (s[this.pos] === ";") {
        this.pos += s.startsWith(";;&", this.pos) ? 3 : 2;
      }
    }
    return { kind: "compound", keyword: "case", words, bodies, redirects: this.parseRedirects() };
  }

  private parseFunction(): CompoundCommand {
    this.pos += 8;
    this.skipBlanks();
    const name = this.readWord();
    if (!name) throw new ShellSyntaxError("a function without a name");
    this.skipBlanks();
    if (this.src[this.pos] === "(") {
      this.pos++;
      this.skipBlanks();
      this.expect(")", "a function definition");
    }
    return this.functionBody(name.text);
  }

  private functionBody(name: string): CompoundCommand {
    this.skipBlanksAndNewlines();
    const body = this.nest(() => this.parseCommand(undefined));
    return {
      kind: "compound",
      keyword: "function",
      words: [],
      bodies: [{ pipelines: [{ commands: [body], negated: false, next: "" }] }],
      redirects: [],
      text: name,
    };
  }

  private parseConditional(): CompoundCommand {
    this.pos += 2;
    const words: Word[] = [];
    for (;;) {
      this.skipBlanksAndNewlines();
      if (this.pos >= this.src.length) throw new ShellSyntaxError('a "[[" test has no closing "]]"');
      if (this.peekReserved() === "]]") {
        this.pos += 2;
        break;
      }
      const s = this.src;
      const two = s.slice(this.pos, this.pos + 2);
      if (two === "&&" || two === "||") {
        this.pos += 2;
        continue;
      }
      const c = s[this.pos];
      if (c === "(" || c === ")" || c === "<" || c === ">" || c === "!" || c === "|") {
        this.pos++;
        continue;
      }
      const word = this.readWord();
      if (!word) throw new ShellSyntaxError(`unexpected ${describe(c)} in a "[[" test`);
      this.count();
      words.push(word);
    }
    return { kind: "compound", keyword: "[[", words, bodies: [], redirects: this.parseRedirects() };
  }

  private parseSimple(): Command {
    const assignments: Word[] = [];
    const words: Word[] = [];
    const redirects: Redirect[] = [];
    const s = this.src;
    for (;;) {
      this.skipBlanks();
      const c = s[this.pos];
      if (c === undefined || c === "\n" || c === ";" || c === ")" || c === "|") break;
      if (c === "&" && s[this.pos + 1] !== ">") break;
      if (c === "(") {
        if (words.length === 1 && assignments.length === 0) {
          this.pos++;
          this.skipBlanks();
          this.expect(")", "a function definition");
          return this.functionBody(words[0].text);
        }
        throw new ShellSyntaxError(`unexpected "(" at offset ${this.pos}`);
      }
      if ((c === "<" || c === ">") && s[this.pos + 1] === "(") {
        words.push(this.readProcessSubstitution());
        continue;
      }
      const redirect = this.tryRedirect(undefined);
      if (redirect) {
        redirects.push(redirect);
        continue;
      }
      const start = this.pos;
      let word = this.readWord();
      if (!word) throw new ShellSyntaxError(`unexpected ${describe(c)} at offset ${this.pos}`);
      this.count();
      const after = s[this.pos];
      if ((after === "<" || after === ">") && /^\d{1,4}$/.test(word.raw) && s[this.pos + 1] !== "(") {
        const fdRedirect = this.tryRedirect(Number(word.raw));
        if (fdRedirect) {
          redirects.push(fdRedirect);
          continue;
        }
      }
      const assignment = ASSIGNMENT.test(word.raw);
      // An array value, NAME=(a b), here or as an argument of declare, local, export ...
      if (assignment && after === "(" && word.raw.endsWith("=")) word = this.readArrayAssignment(word, start);
      if (words.length === 0 && assignment) {
        assignments.push(word);
        continue;
      }
      words.push(word);
    }
    return { kind: "simple", assignments, words, redirects };
  }

  private readArrayAssignment(head: Word, start: number): Word {
    this.pos++;
    const scripts: Script[] = [...head.scripts];
    let dynamic = head.dynamic;
    let glob = head.glob;
    const parts: string[] = [];
    for (;;) {
      this.skipBlanksAndNewlines();
      const c = this.src[this.pos];
      if (c === undefined) throw new ShellSyntaxError("an unterminated array assignment");
      if (c === ")") {
        this.pos++;
        break;
      }
      const word = this.readWord();
      if (!word) throw new ShellSyntaxError(`unexpected ${describe(c)} in an array assignment`);
      this.count();
      parts.push(word.text);
      scripts.push(...word.scripts);
      dynamic ||= word.dynamic;
      glob ||= word.glob;
    }
    const raw = this.src.slice(start, this.pos);
    return { raw, text: `${head.text}(${parts.join(" ")})`, quoted: true, dynamic, glob, scripts };
  }

  private parseRedirects(): Redirect[] {
    const redirects: Redirect[] = [];
    for (;;) {
      this.skipBlanks();
      const start = this.pos;
      let fd: number | undefined;
      const digits = /^\d{1,4}(?=[<>])/.exec(this.src.slice(this.pos, this.pos + 5));
      if (digits) {
        fd = Number(digits[0]);
        this.pos += digits[0].length;
      }
      const redirect = this.tryRedirect(fd);
      if (!redirect) {
        this.pos = start;
        return redirects;
      }
      redirects.push(redirect);
    }
  }

  private tryRedirect(fd: number | undefined): Redirect | undefined {
    const s = this.src;
    const p = this.pos;
    let op: RedirectOp | undefined;
    const c = s[p];
    if (c === "<") {
      if (s.startsWith("<<<", p)) op = "<<<";
      else if (s.startsWith("<<-", p)) op = "<<-";
      else if (s.startsWith("<<", p)) op = "<<";
      else if (s.startsWith("<&", p)) op = "<&";
      else if (s.startsWith("<>", p)) op = "<>";
      else if (s[p + 1] !== "(") op = "<";
    } else if (c === ">") {
      if (s.startsWith(">>", p)) op = ">>";
      else if (s.startsWith(">&", p)) op = ">&";
      else if (s.startsWith(">|", p)) op = ">|";
      else if (s[p + 1] !== "(") op = ">";
    } else if (c === "&" && s[p + 1] === ">" && fd === undefined) {
      op = s[p + 2] === ">" ? "&>>" : "&>";
    }
    if (!op) return undefined;
    this.pos += op.length;
    this.count();
    this.skipBlanks();
    if (op === "<<" || op === "<<-") return this.readHereDocStart(op, fd);
    const target = this.readWord();
    if (!target) throw new ShellSyntaxError(`the redirection "${op}" has no target`);
    return fd === undefined ? { op, target } : { op, fd, target };
  }

  private readHereDocStart(op: "<<" | "<<-", fd: number | undefined): Redirect {
    const word = this.readWord();
    if (!word) throw new ShellSyntaxError(`the here-document "${op}" has no delimiter`);
    if (++this.budget.heredocs > SHELL_LIMITS.maxHeredocs) throw new ShellSyntaxError(`the command has more than ${SHELL_LIMITS.maxHeredocs} here-documents`);
    // The delimiter is the word after quote removal, with no expansion.
    const pending: PendingHereDoc = { delimiter: unquoteDelimiter(word.raw), stripTabs: op === "<<-", expands: !word.quoted, body: "", scripts: [] };
    this.pending.push(pending);
    return fd === undefined ? { op, heredoc: pending } : { op, fd, heredoc: pending };
  }

  /** Consumes an unquoted line break; here-document bodies begin on the next line. */
  private newline(): void {
    this.pos++;
    while (this.pending.length > 0) this.readHereDocBody(this.pending.shift()!);
  }

  private readHereDocBody(doc: PendingHereDoc): void {
    const s = this.src;
    const lines: string[] = [];
    for (;;) {
      if (this.pos >= s.length) throw new ShellSyntaxError(`unterminated here-document (no line "${doc.delimiter}")`);
      let end = s.indexOf("\n", this.pos);
      if (end === -1) end = s.length;
      let line = s.slice(this.pos, end);
      this.pos = Math.min(end + 1, s.length);
      if (doc.stripTabs) line = line.replace(/^\t+/, "");
      if (line === doc.delimiter) break;
      lines.push(line);
    }
    doc.body = lines.length ? `${lines.join("\n")}\n` : "";
    if (doc.expands && /[$`]/.test(doc.body)) {
      const inner = new Parser(doc.body, this.depth + 1, this.budget);
      doc.scripts = inner.scanExpansions();
      if (inner.arith) doc.arithmetic = true;
    }
  }

  /** Reads text that undergoes expansion but no word splitting (a here-document body). */
  scanExpansions(): Script[] {
    const scripts: Script[] = [];
    const s = this.src;
    while (this.pos < s.length) {
      const c = s[this.pos];
      if (c === "\\") this.pos += 2;
      else if (c === "$") this.readDollar(scripts, true);
      else if (c === "`") this.readBacktick(scripts);
      else this.pos++;
    }
    return scripts;
  }

  // ---- words ----------------------------------------------------------------------------------

  /** A word, or undefined when the next character starts no word. */
  private readWord(): Word | undefined {
    const s = this.src;
    const start = this.pos;
    let text = "";
    let quoted = false;
    let dynamic = false;
    let glob = false;
    let scripts: Script[] | undefined;
    const outerArith = this.arith;
    this.arith = false;
    const length = s.length;
    for (;;) {
      // Runs of plain characters are copied at once.
      let end = this.pos;
      for (let code = s.charCodeAt(end); end < length && (code >= 128 || PLAIN[code] === 1); code = s.charCodeAt(++end));
      if (end > this.pos) {
        text += s.slice(this.pos, end);
        this.pos = end;
      }
      const c = s[this.pos];
      if (c === undefined || isMeta(c)) break;
      if (c === "\\") {
        const next = s[this.pos + 1];
        if (next === "\n") {
          this.pos += 2;
          continue;
        }
        quoted = true;
        if (next === undefined) {
          this.pos++;
          continue;
        }
        text += next;
        this.pos += 2;
      } else if (c === "'") {
        const end = s.indexOf("'", this.pos + 1);
        if (end === -1) throw new ShellSyntaxError("unterminated single quote");
        text += s.slice(this.pos + 1, end);
        quoted = true;
        this.pos = end + 1;
      } else if (c === '"') {
        scripts ??= [];
        const part = this.readDoubleQuoted(scripts);
        text += part.text;
        dynamic ||= part.dynamic;
        quoted = true;
      } else if (c === "$") {
        const next = s[this.pos + 1];
        if (next === "'") {
          text += this.readAnsiC();
          quoted = true;
        } else if (next === '"') {
          this.pos++;
          scripts ??= [];
          const part = this.readDoubleQuoted(scripts);
          text += part.text;
          dynamic ||= part.dynamic;
          quoted = true;
        } else {
          scripts ??= [];
          const from = this.pos;
          dynamic = this.readDollar(scripts, false) || dynamic;
          text += s.slice(from, this.pos);
        }
      } else if (c === "`") {
        scripts ??= [];
        const from = this.pos;
        this.readBacktick(scripts);
        text += s.slice(from, this.pos);
        dynamic = true;
      } else {
        if (c === "*" || c === "?" || c === "[") glob = true;
        text += c;
        this.pos++;
      }
    }
    const arithmetic = this.arith;
    this.arith = outerArith;
    if (this.pos === start) return undefined;
    const raw = s.slice(start, this.pos);
    if (!glob && (raw.includes("{") || (raw.length > 1 && raw[0] === "~" && raw[1] !== "/"))) glob = expandsNames(raw);
    const word: Word = { raw, text: text === raw ? raw : text, quoted, dynamic, glob, scripts: scripts?.length ? scripts : NO_SCRIPTS };
    return arithmetic ? { ...word, arithmetic } : word;
  }

  private readDoubleQuoted(scripts: Script[]): { text: string; dynamic: boolean } {
    const s = this.src;
    this.pos++;
    let text = "";
    let dynamic = false;
    for (;;) {
      const c = s[this.pos];
      if (c === undefined) throw new ShellSyntaxError("unterminated double quote");
      if (c === '"') {
        this.pos++;
        return { text, dynamic };
      }
      if (c === "\\") {
        const next = s[this.pos + 1];
        if (next === "\n") this.pos += 2;
        else if (next === "$" || next === "`" || next === '"' || next === "\\") {
          text += next;
          this.pos += 2;
        } else {
          text += c;
          this.pos++;
        }
      } else if (c === "$") {
        const from = this.pos;
        dynamic = this.readDollar(scripts, true) || dynamic;
        text += s.slice(from, this.pos);
      } else if (c === "`") {
        const from = this.pos;
        this.readBacktick(scripts);
        text += s.slice(from, this.pos);
        dynamic = true;
      } else {
        text += c;
        this.pos++;
      }
    }
  }

  private readAnsiC(): string {
    const s = this.src;
    this.pos += 2;
    let text = "";
    for (;;) {
      const c = s[this.pos];
      if (c === undefined) throw new ShellSyntaxError("unterminated $'...' quote");
      if (c === "'") {
        this.pos++;
        return text;
      }
      if (c !== "\\") {
        text += c;
        this.pos++;
        continue;
      }
      const e = s[this.pos + 1];
      if (e === undefined) throw new ShellSyntaxError("unterminated $'...' quote");
      this.pos += 2;
      const simple: Record<string, string> = {
        n: "\n",
        t: "\t",
        r: "\r",
        a: "\x07",
        b: "\b",
        e: "\x1b",
        E: "\x1b",
        f: "\f",
        v: "\v",
        "\\": "\\",
        "'": "'",
        '"': '"',
        "?": "?",
      };
      if (e in simple) text += simple[e];
      else if (e === "x" || e === "u" || e === "U") {
        const max = e === "x" ? 2 : e === "u" ? 4 : 8;
        const m = new RegExp(`^[0-9A-Fa-f]{1,${max}}`).exec(s.slice(this.pos, this.pos + max));
        if (!m) text += `\\${e}`;
        else {
          this.pos += m[0].length;
          const code = Number.parseInt(m[0], 16);
          text += code <= 0x10ffff ? String.fromCodePoint(code) : "";
        }
      } else if (e >= "0" && e <= "7") {
        const m = /^[0-7]{0,2}/.exec(s.slice(this.pos, this.pos + 2))!;
        this.pos += m[0].length;
        text += String.fromCharCode(Number.parseInt(e + m[0], 8) & 0xff);
      } else if (e === "c") {
        const ch = s[this.pos];
        if (ch !== undefined) {
          this.pos++;
          text += String.fromCharCode(ch.charCodeAt(0) & 0x1f);
        }
      } else text += `\\${e}`;
    }
  }

  /**
   * Reads an expansion at `$`. Returns true when it is dynamic (a parameter, substitution or
   * arithmetic), false for a literal `$`.
   */
  private readDollar(scripts: Script[], inDouble: boolean): boolean {
    const s = this.src;
    const next = s[this.pos + 1];
    if (next === "(") {
      if (s[this.pos + 2] === "(") {
        const arith = this.tryArithmetic(this.pos + 3);
        if (arith !== undefined) {
          this.pos = arith.end;
          scripts.push(...arith.scripts);
          if (ARITHMETIC_NAMES.test(arith.text)) this.arith = true;
          return true;
        }
      }
      this.pos += 2;
      scripts.push(this.nest(() => this.parseList(")")));
      this.expect(")", "a $( command substitution");
      return true;
    }
    if (next === "{") {
      const from = this.pos;
      this.pos += 2;
      this.readBraced(scripts);
      const body = this.src.slice(from + 2, this.pos - 1);
      // An array subscript is evaluated as arithmetic; @P expands the value as a prompt and zsh's
      // (e) flag as words: each runs what the value holds.
      if (bracedArithmetic(body) || EVALUATING_EXPANSION.test(body)) this.arith = true;
      return true;
    }
    if (next === "[") {
      // $[...]: the old arithmetic expansion.
      const end = s.indexOf("]", this.pos + 2);
      if (end === -1) throw new ShellSyntaxError("unterminated $[...] expansion");
      if (ARITHMETIC_NAMES.test(s.slice(this.pos + 2, end))) this.arith = true;
      this.pos = end + 1;
      return true;
    }
    if (next !== undefined && NAME_START.test(next)) {
      this.pos += 2;
      while (this.pos < s.length && NAME_CHAR.test(s[this.pos])) this.pos++;
      return true;
    }
    if (next !== undefined && SPECIAL_PARAMS.includes(next)) {
      this.pos += 2;
      return true;
    }
    if (!inDouble && (next === "'" || next === '"')) {
      // Handled by the caller; keeps the literal otherwise.
      this.pos++;
      return false;
    }
    this.pos++;
    return false;
  }

  /** `${...}`: to the matching brace, parsing substitutions inside. */
  private readBraced(scripts: Script[]): void {
    const s = this.src;
    let depth = 1;
    for (;;) {
      const c = s[this.pos];
      if (c === undefined) throw new ShellSyntaxError("unterminated $" + "{...} expansion");
      if (c === "\\") this.pos += 2;
      else if (c === "'") {
        const end = s.indexOf("'", this.pos + 1);
        if (end === -1) throw new ShellSyntaxError("unterminated single quote");
        this.pos = end + 1;
      } else if (c === '"') this.readDoubleQuoted(scripts);
      else if (c === "$") this.readDollar(scripts, true);
      else if (c === "`") this.readBacktick(scripts);
      else if (c === "{") {
        depth++;
        this.pos++;
      } else if (c === "}") {
        this.pos++;
        if (--depth === 0) return;
      } else this.pos++;
    }
  }

  /**
   * `((...))` from just inside the parentheses: the end, its text and the substitutions inside, or
   * undefined when the parentheses do not close as arithmetic (then bash reads a nested subshell).
   */
  private tryArithmetic(from: number): { end: number; text: string; scripts: Script[] } | undefined {
    const s = this.src;
    const saved = this.pos;
    const scripts: Script[] = [];
    this.pos = from;
    let depth = 0;
    try {
      for (;;) {
        const c = s[this.pos];
        if (c === undefined) return undefined;
        if (c === "(") {
          depth++;
          this.pos++;
        } else if (c === ")") {
          if (depth === 0) {
            if (s[this.pos + 1] !== ")") return undefined;
            const text = s.slice(from, this.pos);
            return { end: this.pos + 2, text, scripts };
          }
          depth--;
          this.pos++;
        } else if (c === "$") this.readDollar(scripts, true);
        else if (c === "`") this.readBacktick(scripts);
        else if (c === "\\") this.pos += 2;
        else if (c === "'" || c === '"') {
          const end = s.indexOf(c, this.pos + 1);
          if (end === -1) return undefined;
          this.pos = end + 1;
        } else this.pos++;
      }
    } catch (error) {
      if (error instanceof ShellSyntaxError) return undefined;
      throw error;
    } finally {
      this.pos = saved;
    }
  }

  private readBacktick(scripts: Script[]): void {
    const s = this.src;
    let inner = "";
    let p = this.pos + 1;
    for (;;) {
      const c = s[p];
      if (c === undefined) throw new ShellSyntaxError("unterminated backtick substitution");
      if (c === "`") break;
      if (c === "\\") {
        const next = s[p + 1];
        if (next === "`" || next === "$" || next === "\\") {
          inner += next;
          p += 2;
          continue;
        }
      }
      inner += c;
      p++;
    }
    this.pos = p + 1;
    if (this.depth + 1 > SHELL_LIMITS.maxDepth) throw new ShellSyntaxError(`the command nests deeper than ${SHELL_LIMITS.maxDepth} levels`);
    const child = new Parser(inner, this.depth + 1, this.budget);
    scripts.push(child.parseAll());
  }

  private readProcessSubstitution(): Word {
    const start = this.pos;
    this.pos += 2;
    const body = this.nest(() => this.parseList(")"));
    this.expect(")", "a process substitution");
    this.count();
    const raw = this.src.slice(start, this.pos);
    return { raw, text: raw, quoted: false, dynamic: false, glob: false, process: true, scripts: [body] };
  }

  // ---- characters -----------------------------------------------------------------------------

  private expect(c: string, what: string): void {
    this.skipBlanks();
    if (this.src[this.pos] !== c) throw new ShellSyntaxError(`${what} is not closed ("${c}" expected, found ${describe(this.src[this.pos])})`);
    this.pos++;
  }

  /** Spaces, tabs, line continuations and a comment up to (not including) the line break. */
  private skipBlanks(): void {
    const s = this.src;
    for (;;) {
      const c = s[this.pos];
      if (c === " " || c === "\t") this.pos++;
      else if (c === "\\" && s[this.pos + 1] === "\n") this.pos += 2;
      else if (c === "#") {
        const end = s.indexOf("\n", this.pos);
        this.pos = end === -1 ? s.length : end;
      } else return;
    }
  }

  private skipBlanksAndNewlines(): void {
    for (;;) {
      this.skipBlanks();
      if (this.src[this.pos] === "\n") this.newline();
      else return;
    }
  }

  /** A reserved word at the position (followed by a metacharacter or the end), without consuming it. */
  private peekReserved(): string | undefined {
    const s = this.src;
    const c = s[this.pos];
    if (c === "{" || c === "}" || c === "!") {
      return isMeta(s[this.pos + 1]) || s[this.pos + 1] === undefined ? c : undefined;
    }
    if (c === "[" && s[this.pos + 1] === "[") return isMeta(s[this.pos + 2]) || s[this.pos + 2] === undefined ? "[[" : undefined;
    if (c === "]" && s[this.pos + 1] === "]") return isMeta(s[this.pos + 2]) || s[this.pos + 2] === undefined ? "]]" : undefined;
    if (c === undefined || !"itedwufcs".includes(c)) return undefined;
    let end = this.pos;
    for (let code = s.charCodeAt(end); code >= 97 && code <= 122; code = s.charCodeAt(++end));
    if (end - this.pos > 8 || !(isMeta(s[end]) || end === s.length)) return undefined;
    const word = s.slice(this.pos, end);
    return RESERVED_PREFIX.has(word) || RESERVED_END.has(word) || word === "for" || word === "select" || word === "case" || word === "function" || word === "in"
      ? word
      : undefined;
  }
}

/** `${x@P}` (prompt expansion, bash) and `${(e)x}` or other zsh flags that include e or %. */
const EVALUATING_EXPANSION = /@P\s*$|^\([^)]*[e%][^)]*\)/;

/**
 * Whether a `${...}` body evaluates arithmetic over names: an array subscript (`a[i]`) or a substring
 * offset (`x:i:2`), not the `:-`, `:=`, `:+`, `:?` operators.
 */
function bracedArithmetic(body: string): boolean {
  const subscript = /\[([^\]]*)\]/.exec(body);
  if (subscript && /[A-Za-z_$`]/.test(subscript[1]) && subscript[1] !== "@" && subscript[1] !== "*") return true;
  const offset = /^[#!]?(?:[A-Za-z_][A-Za-z0-9_]*|\d+|[@*])(?:\[[^\]]*\])?:(?![-=+?])(.*)$/s.exec(body);
  return offset !== null && ARITHMETIC_NAMES.test(offset[1]);
}

const BRACE_EXPANSION = /\{[^{}\s]*(,|\.\.)[^{}\s]*\}/;
const QUOTED_OR_ESCAPED = /'[^']*'|"(?:\\.|[^"\\])*"|\\./g;

/** Brace expansion outside quotes, or a tilde prefix other than `~` and `~/`. */
function expandsNames(raw: string): boolean {
  if (raw[0] === "~" && raw.length > 1 && raw[1] !== "/") return true;
  return BRACE_EXPANSION.test(raw.replace(QUOTED_OR_ESCAPED, "").replace(/\$\{[^}]*\}/g, ""));
}

function unquoteDelimiter(raw: string): string {
  let out = "";
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === "\\") {
      if (i + 1 < raw.length) out += raw[++i];
    } else if (c === "'" || c === '"') {
      const end = raw.indexOf(c, i + 1);
      if (end === -1) continue;
      out += raw.slice(i + 1, end);
      i = end;
    } else if (!(c === "$" && (raw[i + 1] === "'" || raw[i + 1] === '"'))) out += c;
  }
  return out;
}

/** The simple commands of a script, substitutions and nested bodies included, in source order. */
export function simpleCommands(script: Script): SimpleCommand[] {
  const out: SimpleCommand[] = [];
  const visitWord = (word: Word) => {
    for (const inner of word.scripts) visit(inner);
  };
  const visitRedirects = (redirects: readonly Redirect[]) => {
    for (const r of redirects) {
      if (r.target) visitWord(r.target);
      for (const inner of r.heredoc?.scripts ?? []) visit(inner);
    }
  };
  const visit = (s: Script) => {
    for (const pipeline of s.pipelines) {
      for (const command of pipeline.commands) {
        if (command.kind === "simple") {
          out.push(command);
          command.assignments.forEach(visitWord);
          command.words.forEach(visitWord);
        } else {
          command.words.forEach(visitWord);
          command.bodies.forEach(visit);
        }
        visitRedirects(command.redirects);
      }
    }
  };
  visit(script);
  return out;
}
