/**
 * Values: the normalised tokens ClawOS remembers from what enters a session (L1), and the forms of a
 * call's argument that are looked up among them (L2 asks through L1). One normalisation serves
 * both sides, so a value matches itself however it was spelled: e-mail addresses and hosts in lower
 * case, URLs without their fragment or trailing slash (and their host), phone numbers as digits,
 * numbers without thousands separators, paths without a leading `./`.
 *
 * The scanner is a single pass over the text's characters: words are cut at white space, quotes and
 * brackets, and only words that can name something (a digit, `@`, `.`, `/`, `:`) are normalised,
 * except in small inputs (a person's message), where every word counts (a recipient can be "Mom").
 */

/** Inputs up to this size index every word; larger ones only words that look like values. */
export const SMALL_INPUT = 16 * 1024;
/** Longest word kept; longer ones are data, not names. */
const MAX_WORD = 256;

const SPACE = 32;
const QUOTE = 34;
const APOS = 39;
const LPAREN = 40;
const RPAREN = 41;
const COMMA = 44;
const DOT = 46;
const SLASH = 47;
const D0 = 48;
const D9 = 57;
const COLON = 58;
const SEMI = 59;
const LT = 60;
const GT = 62;
const AT = 64;
const LBRACKET = 91;
const RBRACKET = 93;
const BACKTICK = 96;
const LBRACE = 123;
const PIPE = 124;
const RBRACE = 125;

function isDigit(c: number): boolean {
  return c >= D0 && c <= D9;
}

function isBreak(c: number): boolean {
  return (
    c <= SPACE ||
    c === QUOTE ||
    c === APOS ||
    c === LPAREN ||
    c === RPAREN ||
    c === COMMA ||
    c === SEMI ||
    c === LT ||
    c === GT ||
    c === LBRACKET ||
    c === RBRACKET ||
    c === BACKTICK ||
    c === LBRACE ||
    c === RBRACE ||
    c === PIPE
  );
}

/** Trailing characters that end a sentence rather than a value. */
const TRAILING = /[.:!?*=]+$/;
const LEADING = /^[*=]+(?=.)/;

/**
 * Calls `emit` with every normalised value in `text`. `scanLimit` bounds the characters read (the
 * budget of one input); `dir`, when given, also emits bare file names joined to it (a listing of
 * `src` names `src/parser.ts`).
 */
export function scanValues(text: string, emit: (value: string) => void, scanLimit = Number.POSITIVE_INFINITY, dir?: string): void {
  const end = Math.min(text.length, scanLimit);
  const everyWord = end <= SMALL_INPUT;
  let start = -1;
  let marked = false;
  for (let i = 0; i <= end; i++) {
    const c = i < end ? text.charCodeAt(i) : SPACE;
    // A comma between digits is a thousands separator (1,250.00), not the end of a word.
    const separator = c === COMMA && start >= 0 && isDigit(text.charCodeAt(i - 1)) && i + 1 < end && isDigit(text.charCodeAt(i + 1));
    if (!separator && isBreak(c)) {
      if (start >= 0) {
        if ((marked || everyWord) && i - start <= MAX_WORD) word(text.slice(start, i), emit, dir);
        start = -1;
        marked = false;
      }
      continue;
    }
    if (start < 0) start = i;
    if (!marked && ((c >= D0 && c <= D9) || c === AT || c === DOT || c === SLASH || c === COLON)) marked = true;
  }
  if (everyWord) phones(text.slice(0, end), emit);
}

function word(raw: string, emit: (value: string) => void, dir: string | undefined): void {
  const w = raw.replace(TRAILING, "").replace(LEADING, "");
  if (w.length < 2) return;
  for (const value of normalizeValue(w)) emit(value);
  if (dir && !w.includes("/") && !w.includes(":") && /^[\w.@+-]+$/.test(w)) emit(normalizePath(`${dir.replace(/\/+$/, "")}/${w}`));
}

/** Phone numbers written with spaces, dashes or brackets (`+1 (555) 010-2030`) as digits. */
function phones(text: string, emit: (value: string) => void): void {
  const re = /\+?\d[\d ().-]{5,22}\d/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const digits = m[0].replace(/\D/g, "");
    if (digits.length >= 7 && digits.length <= 15) emit(digits);
  }
}

/** `./a/b` and `a/b/` are `a/b`; repeated slashes fold. */
export function normalizePath(path: string): string {
  let p = path.trim().replace(/\/{2,}/g, "/");
  while (p.startsWith("./")) p = p.slice(2);
  if (p.length > 1) p = p.replace(/\/+$/, "");
  return p;
}

/**
 * The normalised forms of one value: the value itself (lower case) and the more specific forms it
 * contains (a URL's host, an e-mail address's canonical form, a number without separators).
 */
export function normalizeValue(value: string): string[] {
  const v = value.trim();
  if (!v) return [];
  const lower = v.toLowerCase();
  const out: string[] = [];
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//.exec(lower);
  if (scheme) {
    const url = normalizeUrl(v);
    if (url) {
      out.push(url.url);
      if (url.host) out.push(url.host);
      return out;
    }
  }
  if (lower.startsWith("mailto:")) return normalizeValue(v.slice(7));
  if (/^[^@\s]+@[^@\s]+\.[a-z]{2,}$/.test(lower)) {
    out.push(lower);
    return out;
  }
  if (/^[+\d][\d ,().-]*$/.test(v)) {
    const digits = v.replace(/\D/g, "");
    // A number: 1,234.50 and 1234.5 are the same amount.
    const numeric = /^[+-]?[\d,]*\.?\d+$/.test(v) ? canonicalNumber(v) : undefined;
    if (numeric !== undefined) out.push(numeric);
    if (digits.length >= 7) out.push(digits);
    if (out.length === 0 && digits) out.push(digits);
    return out;
  }
  if (/^[a-z]{2}\d{2}[a-z0-9 ]{10,40}$/i.test(v)) {
    // IBAN-like: spaces carry no meaning.
    out.push(lower.replace(/\s+/g, ""));
    return out;
  }
  if (v.includes("/") || v.startsWith("~")) {
    out.push(normalizePath(v).toLowerCase());
    return out;
  }
  out.push(lower.startsWith("www.") && lower.length > 6 ? lower.slice(4) : lower);
  return out;
}

function canonicalNumber(v: string): string | undefined {
  const plain = v.replace(/,/g, "").replace(/^\+/, "");
  const n = Number(plain);
  if (!Number.isFinite(n)) return undefined;
  return String(n);
}

/** A URL without fragment, default port or trailing slash; its host without `www.`. */
export function normalizeUrl(raw: string): { url: string; host?: string } | undefined {
  try {
    const u = new URL(raw.trim());
    u.hash = "";
    const host = u.hostname
      .toLowerCase()
      .replace(/^www\./, "")
      .replace(/\.$/, "");
    let text = u.toString();
    if (text.endsWith("/") && u.search === "") text = text.slice(0, -1);
    return { url: text.toLowerCase(), host: host || undefined };
  } catch {
    return undefined;
  }
}

/**
 * The forms of an argument's value to look up. Whole values first (a multi-word recipient is also
 * checked word by word: every word must be endorsed), then the more specific forms.
 */
export function argumentForms(value: string): { whole: string[]; words: string[][] } {
  const v = value.trim();
  const whole = normalizeValue(v);
  const words: string[][] = [];
  if (/\s/.test(v) && v.length <= MAX_WORD && !/^[+\d][\d ().-]*$/.test(v)) {
    for (const part of v.split(/\s+/)) {
      const forms = normalizeValue(part.replace(TRAILING, ""));
      if (forms.length) words.push(forms);
    }
  }
  return { whole, words };
}

/**
 * A result that cannot carry an instruction: empty, an exit status, `ok`, a bare number or boolean.
 * It does not lower the session's trust.
 */
export function isTrivialText(text: string): boolean {
  if (text.length > 96) return false;
  const t = text.trim();
  if (t === "") return true;
  return /^[\s\W]*(?:ok|okay|done|success|succeeded|true|false|null|none|yes|no|\(no output\)|no output|completed|(?:command )?(?:exited|completed|finished)?(?: with)? ?(?:exit )?(?:code|status)[:= ]*-?\d+|-?\d+(?:\.\d+)?)?[\s\W]*$/i.test(
    t,
  );
}
