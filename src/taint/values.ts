/**
 * Values: the normalised tokens ClawOS remembers from what enters a session (L1), and the forms of a
 * call's argument that are looked up among them (L2 asks through L1). One normalisation serves
 * both sides, so a value matches itself however it was spelled: e-mail addresses and hosts in lower
 * case, URLs without their fragment or trailing slash (and their host), phone numbers as digits,
 * amounts as one canonical number (no currency, no thousands separators, no trailing zeros: `€84.20`,
 * `84,20 EUR` and `84.2` are all `84.2`), IBANs without spaces, paths without a leading `./`.
 *
 * The scanner is a single pass over the text's characters: words are cut at white space, quotes and
 * brackets, and only words that can name something (a digit, `@`, `.`, `/`, `:`) are normalised,
 * except in small inputs (a person's message), where every word counts (a recipient can be "Mom").
 * Values that people write in groups (`NL69 ABNA 0432 1109 87`, `4111 1111 1111 1111`,
 * `+1 (555) 010-2030`, `1 250,00`) are joined as the words go by; text only adds the readings an
 * argument cannot tell apart (`1.250` is 1.25 or, in German, 1250).
 */

/** Inputs up to this size index every word; larger ones only words that look like values. */
export const SMALL_INPUT = 16 * 1024;
/** Longest word kept; longer ones are data, not names. */
const MAX_WORD = 256;
/** Longest URL kept (a URL's query makes it longer than a name). */
const MAX_URL = 2048;
/** Most digits of a grouped number (a card number has up to 19, a phone number 15). */
const MAX_GROUPED_DIGITS = 19;
const MAX_PHONE_DIGITS = 15;
const MIN_GROUPED_DIGITS = 7;
/** Most groups joined into one value; longer runs of numbers are a table, not a name. */
const MAX_GROUPS = 8;

const SPACE = 32;
const QUOTE = 34;
const PERCENT = 37;
const APOS = 39;
const LPAREN = 40;
const RPAREN = 41;
const COMMA = 44;
const DOT = 46;
const SLASH = 47;
const BACKSLASH = 92;
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
const NBSP = 0xa0;
const LSQUO = 0x2018;
const RSQUO = 0x2019;

function isDigit(c: number): boolean {
  return c >= D0 && c <= D9;
}

function isAlnum(c: number): boolean {
  return (c >= D0 && c <= D9) || ((c | 32) >= 97 && (c | 32) <= 122) || (c >= 0xc0 && c !== 0xd7 && c !== 0xf7 && c < 0x2000);
}

/** White space that can sit inside a grouped value: a space, no-break space, thin or figure space. */
function isGroupSpace(c: number): boolean {
  return c === SPACE || c === NBSP || c === 0x202f || c === 0x2009 || c === 0x2007;
}

/** ASCII characters that end a word: controls, white space, quotes, brackets, `,`, `;`, `|`. */
const ASCII_BREAKS = (() => {
  const table = new Uint8Array(128);
  for (let c = 0; c <= SPACE; c++) table[c] = 1;
  for (const c of [QUOTE, APOS, LPAREN, RPAREN, COMMA, SEMI, LT, GT, LBRACKET, RBRACKET, BACKTICK, LBRACE, RBRACE, PIPE]) table[c] = 1;
  return table;
})();

/** `n`, `r`, `t` and `"`: what follows a backslash in a JSON string where a line break, a tab or a quote was. */
const JSON_BREAK_ESCAPES = new Set([110, 114, 116, 34]);

function isBreak(c: number): boolean {
  return c < 128 ? ASCII_BREAKS[c] === 1 : isWideBreak(c);
}

/** Unicode white space, typographic quotes and brackets (« », “ ”, ‹ ›, 「 」, full-width forms). */
function isWideBreak(c: number): boolean {
  return (
    c === NBSP ||
    c === 0xab ||
    c === 0xbb ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200b) ||
    (c >= 0x2018 && c <= 0x201f) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x2039 ||
    c === 0x203a ||
    c === 0x205f ||
    c === 0x3000 ||
    (c >= 0x3008 && c <= 0x3011) ||
    c === 0xfeff ||
    c === 0xff08 ||
    c === 0xff09 ||
    c === 0xff1c ||
    c === 0xff1e
  );
}

/** Trailing characters that end a sentence rather than a value. */
const TRAILING = /[.:!?*=…]+$/;
/** Leading characters that are markup or a key's separator (`**bold**`, `"amount":84.2`), not the value. */
const LEADING = /^(?:[*=]+|:(?=[\d+-]))(?=.)/;
/** Trailing characters that end a sentence (a grouped value does not go on past them). */
const SENTENCE_END = /[.:!?…]/;

/**
 * Calls `emit` with every normalised value in `text`. `scanLimit` bounds the characters read (the
 * budget of one input); `dir`, when given, also emits bare file names joined to it (a listing of
 * `src` names `src/parser.ts`).
 */
export function scanValues(text: string, emit: (value: string) => void, scanLimit = Number.POSITIVE_INFINITY, dir?: string): void {
  const end = Math.min(text.length, scanLimit);
  const everyWord = end <= SMALL_INPUT;
  const groups = new Groups(text, emit);
  let start = -1;
  let marked = false;
  let url = false;
  let depth = 0;
  for (let i = 0; i <= end; i++) {
    const c = i < end ? text.charCodeAt(i) : SPACE;
    // A JSON string's escaped line break, tab or quote (a result printed as JSON) ends a word as
    // the character it stands for would: `…/e-bike-2026\nCheck` holds the link `…/e-bike-2026`.
    const escaped = c === BACKSLASH && i + 1 < end && JSON_BREAK_ESCAPES.has(text.charCodeAt(i + 1));
    if (escaped || isBreak(c)) {
      const at = i;
      if (escaped) i++;
      if (start < 0) continue;
      if (!escaped && i < end && keepsWord(text, c, i, end, url, depth)) {
        if (c === LPAREN) depth++;
        else if (c === RPAREN) depth--;
        continue;
      }
      const length = at - start;
      if (length > (url ? MAX_URL : MAX_WORD)) groups.flush();
      else if (marked || everyWord || groups.letters) {
        const raw = text.slice(start, at);
        const trail = TRAILING.exec(raw);
        const w = (trail ? raw.slice(0, trail.index) : raw).replace(LEADING, "");
        if (marked || everyWord) {
          word(w, emit, dir);
          // Base64 padding (an id like group:VkJ5cHIx...PQ==) is part of the value, not markup.
          if (trail !== null && trail[0][0] === "=" && /^=+$/.test(trail[0])) word(raw.replace(LEADING, ""), emit, undefined);
        }
        if (marked || groups.letters) groups.add(w, start, at, trail !== null && SENTENCE_END.test(trail[0]));
        else groups.flush();
      } else groups.flush();
      start = -1;
      marked = false;
      url = false;
      depth = 0;
      continue;
    }
    if (start < 0) start = i;
    if (!marked && ((c >= D0 && c <= D9) || c === AT || c === DOT || c === SLASH || c === COLON)) marked = true;
    if (c === COLON && !url && text.charCodeAt(i + 1) === SLASH && text.charCodeAt(i + 2) === SLASH) url = true;
  }
  groups.flush();
}

/**
 * Whether a break character inside a word at `i` belongs to it: a comma or apostrophe between
 * digits is a thousands separator (1,250.00, 1'250), an apostrophe between letters is part of the
 * word (O'Brien); a URL keeps its own brackets (wiki/Foo_(bar)). Other commas still end a URL:
 * `url1,url2` and CSV rows are more common than commas in a path.
 */
function keepsWord(text: string, c: number, i: number, end: number, url: boolean, depth: number): boolean {
  if (c === COMMA || c === APOS || c === RSQUO || c === LSQUO) {
    const next = i + 1 < end ? text.charCodeAt(i + 1) : SPACE;
    const prev = text.charCodeAt(i - 1);
    return c === COMMA ? isDigit(prev) && isDigit(next) : isAlnum(prev) && isAlnum(next);
  }
  if (!url) return false;
  // An IPv6 address in brackets straight after `//` is the URL's host (http://[::1]:3000/).
  if (c === LBRACKET) return text.charCodeAt(i - 1) === SLASH && text.charCodeAt(i - 2) === SLASH;
  if (c === RBRACKET) return closesHost(text, i);
  return c === LPAREN || (c === RPAREN && depth > 0);
}

/** Whether the `]` at `i` closes a bracketed host opened straight after `//` (an address, a zone: `[fe80::1%25eth0]`). */
function closesHost(text: string, i: number): boolean {
  for (let j = i - 1; j >= 2 && i - j <= MAX_BRACKETED_HOST; j--) {
    const c = text.charCodeAt(j);
    if (c === LBRACKET) return text.charCodeAt(j - 1) === SLASH && text.charCodeAt(j - 2) === SLASH;
    if (!isAlnum(c) && c !== COLON && c !== DOT && c !== PERCENT) return false;
  }
  return false;
}

/** The longest bracketed host `closesHost` looks back over: an IPv6 address with a zone. */
const MAX_BRACKETED_HOST = 64;

function word(w: string, emit: (value: string) => void, dir: string | undefined): void {
  if (w.length < 2) return;
  for (const value of valueForms(w, true)) emit(value);
  if (/['’‘]/.test(w)) {
    // Bob's, O'Brien's: also the word without the possessive, and the parts (as words were read
    // before an apostrophe joined them).
    const stem = w.replace(/['’‘]s$/i, "");
    if (stem !== w && /['’‘]/.test(stem)) for (const value of valueForms(stem, true)) emit(value);
    for (const part of stem.split(/['’‘]/)) if (part.length >= 2) for (const value of valueForms(part, true)) emit(value);
  }
  if (dir && !w.includes("/") && !w.includes(":") && /^[\w.@+-]+$/.test(w)) emit(normalizePath(`${dir.replace(/\/+$/, "")}/${w}`));
}

/** The length of an IBAN by its country (ISO 13616 registry): where a grouped IBAN ends. */
const IBAN_LENGTHS: ReadonlyMap<string, number> = new Map(
  (
    "AD24 AE23 AL28 AT20 AZ28 BA20 BE16 BG22 BH22 BI27 BR29 BY28 CH21 CR22 CY28 CZ24 DE22 DJ27 DK18 DO28 EE20 EG29 ES24 FI18 FK18 FO18 " +
    "FR27 GB22 GE22 GI23 GL18 GR27 GT28 HN28 HR21 HU28 IE22 IL23 IQ23 IS26 IT27 JO30 KW30 KZ20 LB28 LC32 LI21 LT20 LU20 LV21 LY25 MC27 " +
    "MD24 ME22 MK19 MN20 MR27 MT31 MU30 NI28 NL18 NO15 OM23 PK24 PL28 PS29 PT25 QA29 RO24 RS22 RU33 SA24 SC31 SD18 SE24 SI19 SK24 SM27 " +
    "SO23 ST25 SV28 TL23 TN24 TR26 UA29 VA22 VG24 XK20 YE30"
  )
    .split(" ")
    .map((entry) => [entry.slice(0, 2), Number(entry.slice(2))]),
);

const IBAN_START = /^[A-Za-z]{2}\d{2}$/;
const IBAN_GROUP = /^[A-Za-z0-9]{1,4}$/;
/** A group of a number written with spaces or brackets: digits, dashes between them (010-2030). */
const DIGIT_GROUP = /^\d+(?:-\d+)*$/;
const THOUSANDS_LAST = /^\d{3}(?:[.,]\d{1,2})?$/;

/**
 * Joins values written as groups of words, as the scanner passes them: an IBAN in groups of four
 * (from `CC00` to its country's length) and numbers in groups of digits (cards, accounts, phone
 * numbers with brackets, amounts with space as the thousands separator). Each run emits at most
 * two values, so a large input costs no more than its words.
 */
class Groups {
  private readonly text: string;
  private readonly emit: (value: string) => void;
  /** 0: none, 1: an IBAN, 2: digit groups. */
  private kind: 0 | 1 | 2 = 0;
  private parts: string[] = [];
  private lastEnd = 0;
  private phone = false;
  private bracketed = false;
  private decimal = false;
  private closed = false;
  private dead = false;
  private digits = 0;
  private singles = 0;

  constructor(text: string, emit: (value: string) => void) {
    this.text = text;
    this.emit = emit;
  }

  /** A run that words without digits can continue (an IBAN's letter groups). */
  get letters(): boolean {
    return this.kind === 1;
  }

  /** The next word (`w`, sentence punctuation stripped) at `start..end`; `ended`: a sentence ended after it. */
  add(w: string, start: number, end: number, ended: boolean): void {
    if (this.kind !== 0 && this.continues(w, start)) {
      this.lastEnd = end;
      if (ended) this.flush();
      return;
    }
    this.flush();
    if (ended) return;
    const c = w.charCodeAt(0);
    if (w.length === 4 && !isDigit(c) && IBAN_START.test(w)) {
      this.kind = 1;
      this.parts = [w];
    } else {
      // Only a number (or a currency sign before one) starts a run of digit groups.
      if (!isDigit(c) && c !== 43 && (c < 128 || !SYMBOLS.includes(w[0]))) return;
      const digitsOnly = isDigit(c) && isDigit(w.charCodeAt(w.length - 1));
      if (digitsOnly && !DIGIT_GROUP.test(w)) return;
      const first = digitsOnly ? { number: w, prefix: false, suffix: false } : bareAmount(w);
      const lead = first.number.startsWith("+") ? first.number.slice(1) : first.number;
      if (first.suffix || !DIGIT_GROUP.test(lead)) return;
      this.kind = 2;
      this.parts = [lead];
      this.phone = first.number.startsWith("+");
      this.bracketed = false;
      this.decimal = false;
      this.closed = false;
      this.dead = false;
      this.digits = countDigits(lead);
      this.singles = lead.length === 1 ? 1 : 0;
    }
    this.lastEnd = end;
  }

  private continues(w: string, start: number): boolean {
    const gap = start - this.lastEnd;
    if (gap < 1 || gap > 3) return false;
    if (this.kind === 1) {
      if (gap !== 1 || !isGroupSpace(this.text.charCodeAt(this.lastEnd))) return false;
      if (!IBAN_GROUP.test(w) || this.parts[this.parts.length - 1].length !== 4 || this.parts.length >= 9) return false;
      this.parts.push(w);
      return true;
    }
    // A digit group starts with a digit.
    if (!isDigit(w.charCodeAt(0))) return false;
    let brackets = false;
    for (let k = this.lastEnd; k < start; k++) {
      const g = this.text.charCodeAt(k);
      if (g === LPAREN || g === RPAREN) brackets = true;
      else if (!isGroupSpace(g)) return false;
    }
    if (this.closed) return false;
    const next = isDigit(w.charCodeAt(w.length - 1)) && DIGIT_GROUP.test(w) ? { number: w, prefix: false, suffix: false } : bareAmount(w);
    if (next.prefix) return false;
    // +44 (0) 20 7946 0958: the trunk prefix in brackets is not dialled from abroad.
    if (this.phone && brackets && next.number === "0" && this.parts.length === 1) {
      this.bracketed = true;
      return true;
    }
    if (DIGIT_GROUP.test(next.number)) {
      this.digits += countDigits(next.number);
      if (next.number.length === 1) this.singles++;
      // A longer run is a table of numbers, not one value: it is read to its end and adds nothing.
      if (this.parts.length >= MAX_GROUPS || this.digits > MAX_GROUPED_DIGITS) this.dead = true;
    } else if (THOUSANDS_LAST.test(next.number)) {
      this.decimal = true;
      this.closed = true;
    } else return false;
    // An amount's currency after it ends the value (1 250,00 €).
    if (next.suffix) this.closed = true;
    if (brackets) this.bracketed = true;
    if (!this.dead) this.parts.push(next.number);
    return true;
  }

  flush(): void {
    const { kind, parts } = this;
    this.kind = 0;
    if (kind === 0 || parts.length < 2 || (kind === 2 && this.dead)) return;
    if (kind === 1) {
      let joined = parts[0];
      const length = IBAN_LENGTHS.get(parts[0].slice(0, 2).toUpperCase());
      for (let k = 1; k < parts.length && joined.length !== length; k++) joined += parts[k];
      if (joined.length >= 15 && joined.length <= 34) this.emit(joined.toLowerCase());
      return;
    }
    // An amount with spaces between its thousands: 1 250 000, 1 250,00.
    if (!this.bracketed && !this.phone && /^\d{1,3}$/.test(parts[0]) && parts.slice(1).every((p) => THOUSANDS_LAST.test(p))) {
      const last = parts.length - 1;
      const ok = parts.every((p, k) => k === last || k === 0 || /^\d{3}$/.test(p));
      if (ok) for (const form of numberForms(parts.join(""), true) ?? []) this.emit(form);
    }
    // Single digits in a row are counts, not a number's groups (a phone's country code has its +).
    if (this.decimal || (this.singles > 1 && !this.phone && !this.bracketed)) return;
    const digits = parts.join("").replace(/\D/g, "");
    const max = this.phone || this.bracketed ? MAX_PHONE_DIGITS : MAX_GROUPED_DIGITS;
    if (this.digits >= MIN_GROUPED_DIGITS && this.digits <= max) {
      this.emit(digits);
      if (digits.startsWith("00") && digits.length - 2 >= MIN_GROUPED_DIGITS) this.emit(digits.slice(2));
      // Dialled from abroad: also as `+digits` (`internationalNumber`).
      if (this.phone) this.emit(`+${digits}`);
      else if (digits.startsWith("00") && digits.length - 2 >= MIN_GROUPED_DIGITS) this.emit(`+${digits.slice(2)}`);
    }
  }
}

function countDigits(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) if (isDigit(s.charCodeAt(i))) n++;
  return n;
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
  return valueForms(value, false);
}

/** Currency symbols written before or after an amount. */
const SYMBOLS = "$€£¥₹₩₽₺₴₪฿₫₦₱₲₵₡₭₮₸₼₾¢₿￥＄￡";
/**
 * Currency codes (ISO 4217, the common ones that are not also words or names: no TRY, PHP, ETH, PEN,
 * COP, MAD, RUB), before or after an amount; local abbreviations (kr, zł) after it.
 */
const CODES =
  "usd|eur|gbp|jpy|cny|rmb|chf|cad|aud|nzd|sek|nok|dkk|isk|pln|czk|huf|ron|bgn|rsd|uah|ils|aed|sar|qar|kwd|inr|pkr|idr|myr|sgd|hkd|twd|krw|thb|vnd|brl|mxn|ars|clp|zar|ngn|kes|egp|btc";
const CURRENCY_PREFIX = new RegExp(`^(?:[a-z]{1,3}\\$|[${SYMBOLS}]|(?:${CODES})(?![a-z]))[\\s\\u00a0\\u202f]?`, "i");
const CURRENCY_SUFFIX = new RegExp(`[\\s\\u00a0\\u202f]?(?:[${SYMBOLS}]|(?:${CODES}|kr|zł|kč|lei)\\.?)$`, "i");
/** German and Dutch round amounts: `84,-`, `84.–`. */
const ROUND = /[.,][-–]{1,2}$/;
const SIGN = /^[+\-−]/;
/** What a number is written with: digits, a sign, separators. */
const NUMBER_CHARS = /^[+\-−]?[\d.,'’ \u00a0\u202f]+$/;

/**
 * An amount's number without its currency and sign marks: `€84.20` → `84.20`, `-€5` → `-5`,
 * `84,20 EUR` → `84,20`. `prefix`/`suffix` say whether a currency was found on that side.
 */
function bareAmount(value: string): { number: string; prefix: boolean; suffix: boolean } {
  let v = value;
  let sign = "";
  if (SIGN.test(v)) {
    sign = v[0] === "+" ? "+" : "-";
    v = v.slice(1);
  }
  let prefix = false;
  let suffix = false;
  const p = isDigit(v.charCodeAt(0)) ? null : CURRENCY_PREFIX.exec(v);
  if (p && p[0].length < v.length) {
    v = v.slice(p[0].length);
    prefix = true;
    if (!sign && SIGN.test(v)) {
      sign = v[0] === "+" ? "+" : "-";
      v = v.slice(1);
    }
  }
  if (!prefix && !isDigit(v.charCodeAt(v.length - 1))) {
    // Only the end can be a currency: the regex reads the last few characters, not the whole word.
    const tail = v.slice(-6);
    const s = CURRENCY_SUFFIX.exec(tail);
    const at = s ? v.length - tail.length + s.index : -1;
    if (s && at > 0 && isDigit(v.charCodeAt(at - 1))) {
      v = v.slice(0, at);
      suffix = true;
    }
  }
  if (ROUND.test(v)) v = v.replace(ROUND, "");
  return { number: sign + v, prefix, suffix };
}

/**
 * The canonical forms of a number written any common way: `1,250.00`, `1.250,00`, `1'250`, `84,20`,
 * `0.50`; an integer without leading zeros, a fraction without trailing zeros, `-` kept. A lone
 * separator before three digits is ambiguous (`1,250` is 1250 in English, 1.25 in German): the
 * first form is the reading of a program (a comma groups, a dot is the decimal point); text also
 * gets the other reading, and the magnitude of a negative amount (a statement's `-84.20`, `-€5`).
 * Undefined when `s` is not a number (a date, a version, an IP address, a list).
 */
function numberForms(s: string, text: boolean, money = false): string[] | undefined {
  if (!NUMBER_CHARS.test(s)) return undefined;
  let v = s;
  let negative = false;
  if (SIGN.test(v)) {
    negative = v[0] !== "+";
    v = v.slice(1);
  }
  if (!/^\d|^[.,]\d/.test(v) || !/\d$/.test(v)) return undefined;
  let int: string;
  let frac = "";
  let alternate: [string, string] | undefined;
  if (/['’ \u00a0\u202f]/.test(v)) {
    // Apostrophes and spaces only group thousands (1'250.00, 1 250,00).
    const m = /^(\d{1,3}(?:['’ \u00a0\u202f]\d{3})+)(?:[.,](\d+))?$/.exec(v);
    if (!m) return undefined;
    int = m[1].replace(/\D/g, "");
    frac = m[2] ?? "";
  } else {
    const dot = v.lastIndexOf(".");
    const comma = v.lastIndexOf(",");
    if (dot >= 0 && comma >= 0) {
      const decimal = dot > comma ? "." : ",";
      const group = decimal === "." ? "," : ".";
      const at = Math.max(dot, comma);
      int = v.slice(0, at);
      frac = v.slice(at + 1);
      if (!/^\d+$/.test(frac) || !groupedBy(int, group)) return undefined;
      int = int.split(group).join("");
    } else if (dot >= 0 || comma >= 0) {
      const sep = dot >= 0 ? "." : ",";
      const parts = v.split(sep);
      if (parts.length > 2) {
        // 1,234,567 or 1.234.567; 1.2.3 and 10.0.0.1 are not numbers.
        if (!groupedBy(v, sep)) return undefined;
        int = parts.join("");
      } else {
        [int, frac] = parts;
        if (!/^\d*$/.test(int) || !/^\d+$/.test(frac)) return undefined;
        if (frac.length === 3 && /^[1-9]\d{0,2}$/.test(int)) {
          // 1,250 / 1.250: one reading for programs, both for text.
          const grouped: [string, string] = [int + frac, ""];
          const decimal: [string, string] = [int, frac];
          if (sep === ",") {
            [int, frac] = grouped;
            alternate = decimal;
          } else alternate = grouped;
        }
      }
    } else {
      if (!/^\d+$/.test(v)) return undefined;
      int = v;
    }
  }
  const primary = canonical(int, frac, negative);
  const out = [primary];
  if (text) {
    if (alternate) out.push(canonical(alternate[0], alternate[1], negative));
    // A statement's -84.20 is the amount 84.20; a negative id (a Telegram group, -100...) is not a user's id.
    if (negative && (money || frac !== "") && primary !== "0") {
      out.push(primary.slice(1));
      if (alternate) out.push(canonical(alternate[0], alternate[1], false));
    }
  }
  return out;
}

/** `1,234,567` grouped by `,`: a first group of 1-3 digits, then groups of exactly 3. */
function groupedBy(int: string, sep: string): boolean {
  const parts = int.split(sep);
  if (!/^\d{1,3}$/.test(parts[0]) && !(parts.length === 1 && /^\d+$/.test(parts[0]))) return false;
  for (let k = 1; k < parts.length; k++) if (!/^\d{3}$/.test(parts[k])) return false;
  return true;
}

function canonical(int: string, frac: string, negative: boolean): string {
  const i = int.replace(/^0+(?=\d)/, "") || "0";
  const f = frac.replace(/0+$/, "");
  const n = f ? `${i}.${f}` : i;
  return negative && n !== "0" ? `-${n}` : n;
}

/** A number with spaces, dashes, dots or brackets and no other text: a phone, card or account number. */
const PHONE_LIKE = /^\+?\(?\d[\d\s().\-\u00a0]*$/;
const IBAN_LIKE = /^[a-z]{2}\d{2}(?:[\s\u00a0-]?[a-z0-9]){11,30}$/i;
const EMAIL = /^[^@\s<>:]+@[^@\s<>]+\.[a-z]{2,}$/;
/** The kinds and channels a chat target may carry in front of its id (OpenClaw's `channel:`, `user:`, `telegram:` forms). */
const TARGET_KIND =
  /^(?:channel|user|chat|group|dm|thread|room|conversation|telegram|discord|slack|signal|whatsapp|imessage|matrix|mattermost|msteams|teams|line|googlechat|zalo|irc):(?=[^:/])/;
/** A handle: @ and a name, no domain. */
const HANDLE = /^@[a-z0-9_][a-z0-9_.-]{1,63}$/;

/**
 * The forms of one value. `text`: the value was read from text, so the readings an argument cannot
 * tell apart are added (an ambiguous separator, a negative amount's magnitude, a comma list's items).
 */
/** A host (a name or an IPv4 address) and a port. */
const HOST_PORT = /^([a-z0-9](?:[a-z0-9.-]*[a-z0-9])?):(\d{1,5})$/;
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

function valueForms(value: string, text: boolean): string[] {
  const forms = formsOf(value, text);
  // A number dialled from abroad (+47 55 55 01 34, 0047...) is that country's: kept with its +,
  // apart from the same digits written as a national number (another country's, another person).
  const abroad = internationalNumber(value);
  if (abroad !== undefined) forms.push(abroad);
  // A private address named alone, with no port: any service on it (see `plainForms`).
  if (text && forms.length > 0 && value.length <= 15 && IPV4.test(value.trim()) && PRIVATE_ADDRESS.test(value.trim()))
    forms.push(`${thisMachine(value.trim())}:*`);
  return forms;
}

/** A phone number written with its country code (`+47 55 55 01 34`, `0047 55...`, `tel:+47...`) as `+digits`; undefined for any other value. */
export function internationalNumber(value: string): string | undefined {
  const v = value.trim().replace(/^(?:tel|sms|callto):/i, "");
  if (!/^(?:\+|00)\d/.test(v) || !PHONE_LIKE.test(v) || !/\d$/.test(v)) return undefined;
  const digits = v.replace(/\D/g, "").replace(/^00/, "");
  return digits.length >= MIN_GROUPED_DIGITS && digits.length <= MAX_PHONE_DIGITS ? `+${digits}` : undefined;
}

function formsOf(value: string, text: boolean): string[] {
  const v = value.trim();
  if (!v) return [];
  if (/^\d{1,15}$/.test(v)) {
    // The common case first: a plain number.
    const n = canonical(v, "", false);
    return n.length === v.length || v.length < MIN_GROUPED_DIGITS ? [n] : [n, v];
  }
  const lower = v.toLowerCase();
  const out: string[] = [];
  if (lower.includes("://") && /^[a-z][a-z0-9+.-]*:\/\//.test(lower)) {
    const url = normalizeUrl(v);
    if (url) {
      out.push(url.url);
      // A URL given as an argument is endorsed by its site, or, on a private network, by its host
      // named alone (`HOST:*`, see `plainForms`); one that entered names its host and its site.
      if (url.host && (text || url.site === url.host)) out.push(url.host);
      if (url.host && url.site && url.site !== url.host) out.push(...(text ? [url.site] : [url.site, `${thisMachine(url.host)}:*`]));
      return out;
    }
  }
  if (lower.includes(":")) {
    if (lower.startsWith("mailto:")) return valueForms(v.slice(7).replace(/\?.*$/, ""), text);
    if (/^(?:tel|sms|callto):/.test(lower)) return valueForms(v.slice(v.indexOf(":") + 1), text);
    // A chat target with its kind or channel in front (channel:1177..., user:U04..., telegram:@pieter):
    // the same id or handle as written alone.
    const kind = TARGET_KIND.exec(lower);
    if (kind) {
      // Only an id or a handle, not a plain word ("channel:general" is not the word "general").
      const bare = v.slice(kind[0].length);
      const rest = /[\d_.@-]/.test(bare) ? valueForms(bare, text) : [];
      return [lower, ...rest];
    }
    // A host with its port, as a log or a message writes it (ECONNREFUSED 10.0.1.20:6379,
    // db-1.internal:5432): in what enters, it names the host too. A time (10:30) names nothing.
    const hostPort = HOST_PORT.exec(lower);
    if (hostPort && text && (/[a-z]/.test(hostPort[1]) || IPV4.test(hostPort[1]))) {
      const here = thisMachine(hostPort[1]);
      return here === hostPort[1] ? [lower, hostPort[1]] : [lower, hostPort[1], `${here}:${hostPort[2]}`];
    }
  }
  if (lower.includes("@")) {
    // A handle (@pieter_vd) is the same name as written without its @, when the name cannot be
    // a plain word of a sentence ("text it to me" names no @me, "tonight" no @tonight).
    if (HANDLE.test(lower)) return /[\d_.-]/.test(lower.slice(1)) ? [lower, lower.slice(1)] : [lower];
    if (EMAIL.test(lower)) return [lower];
    // An address with a label in front: to:bob@example.com.
    const labelled = /^[a-z][\w-]{0,15}:([^@\s:/<>]+@[^@\s<>]+\.[a-z]{2,})$/.exec(lower);
    if (labelled) return [lower, labelled[1]];
  }
  if (!/\d/.test(v)) return plainForms(v, lower, text);
  const amount = bareAmount(v);
  if (amount.prefix || amount.suffix || amount.number !== v) {
    const forms = numberForms(amount.number, text, amount.prefix || amount.suffix);
    if (forms) {
      // A code written on the number (EUR385) may also be a name: keep the word too.
      if (/[a-z]/i.test(v) && !/\s/.test(v)) forms.push(lower);
      return forms;
    }
  }
  const numeric = numberForms(v, text);
  if (numeric) {
    out.push(...numeric);
    // Leading zeros are part of a phone or account number (0612345678).
    const digits = v.replace(/\D/g, "");
    if (!/[.,]/.test(v) && digits.length >= MIN_GROUPED_DIGITS && digits !== numeric[0].replace(/^-/, "")) out.push(digits);
    if (text && /^\d+(?:,\d+)+$/.test(v) && !/^\d+,\d{1,2}$/.test(v) && !groupedBy(v, ",")) {
      // 4412,4413 may be a list of numbers as well.
      for (const item of v.split(",")) if (item.length >= 2) out.push(canonical(item, "", false));
    }
    return out;
  }
  if (PHONE_LIKE.test(v) && /\d$/.test(v)) {
    const digits = v.replace(/\D/g, "");
    if (digits.length >= MIN_GROUPED_DIGITS) {
      out.push(digits);
      // 0031 6 ... is +31 6 ...
      if (digits.startsWith("00") && digits.length - 2 >= MIN_GROUPED_DIGITS) out.push(digits.slice(2));
      return out;
    }
    out.push(lower);
    return out;
  }
  if (IBAN_LIKE.test(v)) {
    // IBAN-like: spaces and dashes carry no meaning.
    out.push(lower.replace(/[\s\u00a0-]+/g, ""));
    return out;
  }
  return plainForms(v, lower, text);
}

/** The forms of a value that is no number, address or account: a path, a host, a word. */
function plainForms(v: string, lower: string, text: boolean): string[] {
  const out: string[] = [];
  if (v.includes("/") || v.startsWith("~")) {
    const path = normalizePath(v).toLowerCase();
    out.push(path);
    // A URL written without its scheme (example.com/pricing) names its host.
    const host = /^(?:www\.)?((?:[a-z0-9-]+\.)+[a-z]{2,})(?::\d+)?\//.exec(path);
    if (host && text) out.push(host[1]);
    return out;
  }
  const word = lower.includes("’") || lower.includes("‘") ? lower.replace(/[’‘]/g, "'") : lower;
  out.push(word.startsWith("www.") && word.length > 6 ? word.slice(4) : word);
  // A private host named alone, with no port: any service on it (`ssh nas.local`, then its web UI on 5000).
  if (text && (word === "localhost" || privateShortName(word) !== undefined)) out.push(`${word}:*`);
  if (text && /^[\d,]+$/.test(v) && v.includes(",")) {
    // A list of numbers (1,2,3): its items.
    for (const item of v.split(",")) if (item.length >= 2) out.push(canonical(item, "", false));
  }
  return out;
}

/** The port a URL of a scheme reaches when it names none. */
const DEFAULT_PORTS: Readonly<Record<string, string>> = { "http:": "80", "https:": "443", "ws:": "80", "wss:": "443", "ftp:": "21" };

/**
 * A URL without fragment, default port or trailing slash; its host without `www.`, and `site`: the
 * host, or the host with its port (the scheme's when the URL names none) where the host is on this
 * machine or a private network (`localhost:3000` is one service, `localhost:2375` another).
 */
export function normalizeUrl(raw: string): { url: string; host?: string; site?: string } | undefined {
  try {
    const u = new URL(raw.trim());
    u.hash = "";
    const host = u.hostname
      .toLowerCase()
      .replace(/^www\./, "")
      .replace(/\.$/, "");
    let text = u.toString();
    if (text.endsWith("/") && u.search === "") text = text.slice(0, -1);
    if (!host) return { url: text.toLowerCase() };
    const port = u.port || DEFAULT_PORTS[u.protocol];
    return { url: text.toLowerCase(), host, site: port && onPrivateNetwork(host) ? `${thisMachine(host)}:${port}` : host };
  } catch {
    return undefined;
  }
}

/** This machine's usual names and addresses, which reach the same services (`127.0.0.1:3000` is `localhost:3000`). */
const THIS_MACHINE: ReadonlySet<string> = new Set([
  "localhost",
  "127.0.0.1",
  "::1",
  "[::1]",
  "0.0.0.0",
  "::ffff:127.0.0.1",
  "[::ffff:7f00:1]",
  "[::ffff:127.0.0.1]",
]);

/** A host as its site is kept: `localhost` for this machine however it is written, any other as it is. */
function thisMachine(host: string): string {
  return THIS_MACHINE.has(host) ? "localhost" : host;
}

/** Whether a host argument (`user@host` allowed) names this machine: `localhost` or a loopback address, however written. */
export function isThisMachine(raw: string): boolean {
  const host = raw
    .trim()
    .toLowerCase()
    .replace(/^[^@\s]*@/, "")
    .replace(/\.$/, "");
  return THIS_MACHINE.has(host) || host === "localhost.localdomain" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** A port written as one: after a word that says so (`port: 5173`, `PORT=3000`, `--port 8080`, `listen(3000)`, `EXPOSE 3000`). */
const LABELLED_PORT = /(?:\bport|--port|\blisten|\bexpose)["']?\s*[:=(]?\s*["']?(\d{2,5})\b/gi;
/** A container's published port, as a compose file or `-p` writes it (`"8080:80"`, `- 8080:80`, `-p 5432:5432`): the first is this machine's. */
const PUBLISHED_PORT = /(?:-p\s+|^\s*-\s+["']?|["'])(\d{2,5}):\d{2,5}\b/gim;

/**
 * The ports a text writes as ports (`LABELLED_PORT`, `PUBLISHED_PORT`), not any number it holds: a
 * row count, a sum or a size is no port. What `Provenance` keeps apart so that this machine named
 * without one endorses a service only with its port.
 */
export function portsIn(text: string): string[] {
  const out = new Set<string>();
  for (const pattern of [LABELLED_PORT, PUBLISHED_PORT]) {
    for (const m of text.matchAll(pattern)) {
      const port = Number(m[1]);
      if (port >= 1 && port <= 65535) out.add(String(port));
    }
  }
  return [...out];
}

/**
 * Top-level names reserved for private networks (RFC 6762 appendix G, ICANN's `.internal`, `.home.arpa`):
 * no one outside can register a name under them, so a host there lives in its owner's own DNS.
 */
const PRIVATE_SUFFIX = /\.(?:internal|local|localdomain|lan|intranet|private|corp|home|home\.arpa|test)\.?$/;

/** Loopback, link-local, private and unspecified addresses, IPv4 and IPv6. */
const PRIVATE_ADDRESS =
  /^(?:127\.|10\.|192\.168\.|169\.254\.|172\.(?:1[6-9]|2\d|3[01])\.|0\.|100\.(?:6[4-9]|[7-9]\d|1[01]\d|12[0-7])\.|::1?$|f[cd][0-9a-f]{0,2}:|fe[89ab][0-9a-f]?:|::ffff:)/;

/**
 * Whether a host is this machine or on a private network: `localhost`, a private or link-local
 * address (`127.0.0.1`, `10.x`, `169.254.169.254`), a name under a private suffix (`*.internal`), or
 * a name of one label (`nas`), which only a local resolver answers.
 */
export function onPrivateNetwork(hostname: string): boolean {
  const host = hostname
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, "");
  if (host === "localhost" || host.endsWith(".localhost") || privateShortName(host) !== undefined) return true;
  if (/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/.test(host) && !/^\d+$/.test(host)) return true;
  return PRIVATE_ADDRESS.test(host);
}

/**
 * The short name a private network's host is also called by (`web-1.internal` → `web-1`), the way
 * a resolver's search domain completes it; undefined for any other host.
 */
export function privateShortName(host: string): string | undefined {
  const lower = host.trim().toLowerCase();
  const m = PRIVATE_SUFFIX.exec(lower);
  if (!m || m.index === 0) return undefined;
  const short = lower.slice(0, m.index);
  return /^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$/.test(short) ? short : undefined;
}

/**
 * The forms of an argument's value to look up. Whole values first, then the more specific forms.
 * A value of several words that is no number, address or account (a person's name) is also
 * checked word by word, and a list of addresses (`Bob <bob@example.com>, eve@example.org`) address
 * by address: every word or address must be endorsed.
 */
export function argumentForms(value: string): { whole: string[]; words: string[][] } {
  const written = value.trim();
  // A mailto: link's query can add recipients (`?cc=`, `?bcc=`, `?to=`): each is one of the list.
  const v = /^mailto:[^?]*\?/i.test(written) ? mailtoRecipients(written) : written;
  const words: string[][] = [];
  if (v.includes("@") && /[<,;]/.test(v) && v.length <= MAX_URL) {
    const entries = addressList(v);
    if (entries.length === 1) return { whole: normalizeValue(entries[0]), words };
    if (entries.length > 1) {
      for (const entry of entries) {
        const forms = normalizeValue(entry);
        if (forms.length) words.push(forms);
      }
      return { whole: [], words };
    }
  }
  const whole = normalizeValue(v);
  if (/\s/.test(v) && v.length <= MAX_WORD && !structured(v)) {
    for (const part of v.split(/\s+/)) {
      const forms = normalizeValue(part.replace(TRAILING, ""));
      if (forms.length) words.push(forms);
    }
  }
  return { whole, words };
}

/** A value whose spaces are only grouping: a phone, card or IBAN, an amount with its currency. */
function structured(v: string): boolean {
  if (PHONE_LIKE.test(v) || IBAN_LIKE.test(v) || numberForms(v, false) !== undefined) return true;
  const amount = bareAmount(v);
  return (amount.prefix || amount.suffix) && numberForms(amount.number, false) !== undefined;
}

/**
 * The addresses of a recipient list: split at commas and semicolons outside quotes, each entry
 * reduced to its `<address>` when it has one. Empty when an entry has no address (not a list).
 */
/** A mailto: link as the list of addresses it sends to (`a@x.example, b@y.example`): its own and its query's. */
function mailtoRecipients(link: string): string {
  const query = link.indexOf("?");
  const out = [link.slice(0, query)];
  for (const pair of link.slice(query + 1).split("&")) {
    const eq = pair.indexOf("=");
    const name = (eq === -1 ? pair : pair.slice(0, eq)).toLowerCase();
    let given = eq === -1 ? "" : pair.slice(eq + 1);
    try {
      given = decodeURIComponent(given);
    } catch {
      // Kept as written.
    }
    if (name === "to" || name === "cc" || name === "bcc")
      out.push(
        ...given
          .split(",")
          .map((a) => a.trim())
          .filter(Boolean),
      );
  }
  return out.join(", ");
}

function addressList(v: string): string[] {
  const entries: string[] = [];
  let quoted = false;
  let from = 0;
  for (let i = 0; i <= v.length; i++) {
    const c = v.charCodeAt(i);
    if (c === QUOTE) quoted = !quoted;
    if (i === v.length || (!quoted && (c === COMMA || c === SEMI))) {
      const entry = v.slice(from, i).trim();
      from = i + 1;
      if (!entry) continue;
      const angle = /<([^<>\s]+@[^<>\s]+)>$/.exec(entry);
      const address = angle ? angle[1] : entry;
      if (!EMAIL.test(address.toLowerCase()) && !address.toLowerCase().startsWith("mailto:")) return [];
      entries.push(address);
    }
  }
  return entries;
}

/** At most this many values are taken from one text (`secretValues`). */
const MAX_SECRET_VALUES = 256;
/** The shortest value taken as a secret: shorter ones (a port, a flag) are everywhere. */
const MIN_SECRET_LENGTH = 6;
/** A name that says its setting holds a secret: `DB_PASSWORD`, `api_key`, `token`, `AWS_SECRET_ACCESS_KEY`. */
const SECRET_NAME = /pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key|private[_-]?key|access[_-]?key|credential|auth|signing[_-]?key|salt|dsn/gi;
/** How much of an input that is not a secret file is looked through for secret settings (a dump, grep's lines). */
const SETTINGS_SCAN = 64 * 1024;
/** A connection address's password (`postgres://app:pw@db/x`). */
const ADDRESS_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:([^\s@/]+)@/gi;
/** A long word of a secret file (a key, a token, a line of a PEM block). */
const LONG_WORD = /[^\s"'`,;=:]{20,}/g;
const NOT_SECRET = /^(?:true|false|null|none|yes|no|on|off|changeme|required|optional|\*+|x+|\.+|<[^>]*>|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|[0-9.]+)$/i;

/**
 * The secret values a text holds, lower case: the values of settings whose names say they hold one
 * (`DB_PASSWORD=...`, `"api_key": "..."`, wherever they appear: a file, `grep` output, a container's
 * environment) and connection addresses' passwords; with `whole` (a secret file's text: an
 * environment file, a key), every long word too. What ClawOS remembers of them is their hash,
 * never the text.
 */
export function secretValues(text: string, emit: (value: string) => void, whole = false): void {
  let count = 0;
  const take = (raw: string) => {
    let value = raw.trim();
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.endsWith(quote) && value.length >= 2) value = value.slice(1, -1).trim();
    value = value.toLowerCase();
    if (count >= MAX_SECRET_VALUES || value.length < MIN_SECRET_LENGTH || NOT_SECRET.test(value)) return;
    count++;
    emit(value);
  };
  const scanned = whole ? text : text.slice(0, SETTINGS_SCAN);
  for (const m of scanned.matchAll(SECRET_NAME)) {
    const value = settingValue(scanned, (m.index as number) + m[0].length);
    if (value !== undefined) take(value);
  }
  if (scanned.includes("://")) for (const m of scanned.matchAll(ADDRESS_PASSWORD)) take(m[1] as string);
  if (whole) for (const m of text.matchAll(LONG_WORD)) take(m[0]);
}

/**
 * The value of the setting whose name runs on from `at` (`PASSWORD` in `DB_PASSWORD=x`, `"api_key":
 * "x"`, `token: x`): the rest of the name, a closing quote, `=` or `:`, then a quoted value or a word.
 */
function settingValue(text: string, at: number): string | undefined {
  let i = at;
  while (i < text.length && nameChar(text.charCodeAt(i))) i++;
  if (text[i] === '"' || text[i] === "'") i++;
  while (text[i] === " " || text[i] === "\t") i++;
  if (text[i] !== "=" && text[i] !== ":") return undefined;
  i++;
  while (text[i] === " " || text[i] === "\t") i++;
  const quote = text[i];
  if (quote === '"' || quote === "'") {
    const close = text.indexOf(quote, i + 1);
    const line = text.indexOf("\n", i + 1);
    return close === -1 || (line !== -1 && line < close) ? undefined : text.slice(i + 1, close);
  }
  let end = i;
  while (end < text.length && !VALUE_END.has(text.charCodeAt(end))) end++;
  return end > i ? text.slice(i, end) : undefined;
}

/** A character of a setting's name: a letter, a digit, `_`, `.` or `-`. */
function nameChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 46 || c === 45;
}

/** What ends a setting's unquoted value: a blank, a quote, `,`, `;`, `}` or `]`. */
const VALUE_END: ReadonlySet<number> = new Set([..." \t\r\n\"',;}]"].map((c) => c.charCodeAt(0)));

/**
 * A result that cannot carry an instruction: empty, an exit status, `ok`, a bare number or boolean,
 * a short text with no letter in any script (a duration, a timestamp, an address, a count), or
 * nothing but a package manager's own summary lines (`PACKAGE_SUMMARY`). It does not lower the
 * session's trust; its values are still kept at the result's trust.
 */
export function isTrivialText(text: string): boolean {
  if (text.length <= MAX_SUMMARY_TEXT && isPackageSummary(text)) return true;
  if (text.length <= MAX_RECEIPT_TEXT && isStatusReceipt(text)) return true;
  if (text.length > 96) return false;
  const t = text.trim();
  if (t === "") return true;
  // Only digits, punctuation, spaces and math or currency signs: no word, so no instruction (a
  // duration, a timestamp, an address, a count). Letters of any script are words, and so are the
  // symbols a model reads as letters (circled ⓐ, squared 🅰, parenthesised ⒜, Braille, tag
  // characters, letter-like numerals).
  if (NO_WORD.test(t)) return true;
  // Around the one status word, only the same: a result in another alphabet is words like any other.
  return /^(?:[\p{P}\p{Z}\p{Sm}\p{Sc}\s✓✔✗✘✅❌⚠👍👎]|\u{FE0F})*(?:ok|okay|done|success|succeeded|true|false|null|none|yes|no|\(no output\)|no output|completed|(?:command )?(?:exited|completed|finished)?(?: with)? ?(?:exit )?(?:code|status)[:= ]*-?\d+|-?\d+(?:\.\d+)?)?(?:[\p{P}\p{Z}\p{Sm}\p{Sc}\s✓✔✗✘✅❌⚠👍👎]|\u{FE0F})*$/iu.test(
    t,
  );
}

/**
 * Text with nothing a model could read as a word: decimal digits, punctuation, spaces, math and
 * currency signs, and a few status marks (✓ ✗ ✅ ❌ ⚠ 👍 👎, with their emoji form).
 */
const NO_WORD = /^(?:[\p{Nd}\p{P}\p{Z}\p{Sm}\p{Sc}\s✓✔✗✘✅❌⚠👍👎]|\u{FE0F})*$/u;

/** The longest result read as a status receipt (`isStatusReceipt`). */
const MAX_RECEIPT_TEXT = 512;

/** Keys of a host's bare status receipt: `{ "ok": true }`, `{ "removed": true, "count": 2 }`. */
const RECEIPT_KEYS = new Set([
  "ok",
  "success",
  "sent",
  "removed",
  "deleted",
  "edited",
  "updated",
  "created",
  "cancelled",
  "canceled",
  "count",
  "total",
  "changed",
]);

/**
 * A JSON object (as the host prints a tool's payload) whose keys are all status words and whose
 * values are all booleans, numbers or null: nobody's words are in it.
 */
function isStatusReceipt(text: string): boolean {
  const value = receiptObject(text);
  return (
    value !== undefined &&
    Object.entries(value).every(([key, v]) => RECEIPT_KEYS.has(key) && (v === null || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v))))
  );
}

/** The ids a send's receipt carries (the message, the chat it went to, the run, a time). */
const SEND_RECEIPT_IDS = new Set(["messageId", "message_id", "id", "chatId", "chat_id", "toJid", "jid", "runId", "ts", "timestamp"]);
/** An id: a digit in it, no space, nothing but id characters, short. */
const RECEIPT_ID = /^(?=[^\s]*\d)[A-Za-z0-9._:+@-]{1,64}$/;

/**
 * The receipt of a message the session itself sent (`{"ok": true, "channel": "whatsapp",
 * "messageId": "3EB0F00D21", "toJid": "316…@s.whatsapp.net"}`): status words, the ids the provider
 * assigned and the channel's name. Read only for a sending tool's own result, never for what a
 * page or a command returns.
 */
export function isSendReceipt(text: string): boolean {
  if (text.length > MAX_RECEIPT_TEXT) return false;
  const value = receiptObject(text);
  return (
    value !== undefined &&
    Object.entries(value).every(
      ([key, v]) =>
        (RECEIPT_KEYS.has(key) && (v === null || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v)))) ||
        (SEND_RECEIPT_IDS.has(key) && ((typeof v === "number" && Number.isFinite(v)) || (typeof v === "string" && RECEIPT_ID.test(v)))) ||
        (key === "channel" && typeof v === "string" && /^[a-z]{2,16}$/.test(v)),
    )
  );
}

/** A flat JSON object printed exactly as parsed (a key given twice keeps only its last value in the parse, but a model reads both). */
function receiptObject(text: string): Record<string, unknown> | undefined {
  const t = text.trim();
  if (!t.startsWith("{") || !t.endsWith("}")) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(t);
  } catch {
    return undefined;
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
  if (JSON.stringify(value) !== t.replace(/\s+/g, "")) return undefined;
  return Object.keys(value).length > 0 ? (value as Record<string, unknown>) : undefined;
}

/** The longest result read as a package manager's summary. */
const MAX_SUMMARY_TEXT = 1024;

/**
 * The lines a package manager prints about an install in its own words, with only counts and times
 * in them (npm, uv): "added 612 packages, and audited 613 packages in 14s", "found 0
 * vulnerabilities". No name, version, path or message from a package or a server fits one (a
 * deprecation notice, a lifecycle script's output, a registry's error page), so a result made only
 * of them carries nobody's words.
 */
const PACKAGE_SUMMARY: readonly RegExp[] = [
  /^(?:(?:and )?(?:added|removed|changed|audited) \d+ packages?(?:, |,? and | ))+in \d+(?:\.\d+)?m?s$/,
  /^up to date(?:, audited \d+ packages?)? in \d+(?:\.\d+)?m?s$/,
  /^found \d+ vulnerabilit(?:y|ies)$/,
  /^\d+ vulnerabilit(?:y|ies) \((?:\d+ (?:info|low|moderate|high|critical)(?:, )?)+\)$/,
  /^\d+ packages? (?:is|are) looking for funding$/,
  /^run `npm fund` for details$/,
  /^to address (?:all|issues that do not require attention)(?: issues)?(?: \(including breaking changes\))?, run:$/,
  /^npm audit fix(?: --force)?$/,
  /^run `npm audit` for details\.?$/,
  /^(?:resolved|prepared|installed|uninstalled|audited|built|checked) \d+ packages? in \d+(?:\.\d+)?m?s$/,
];

/** `PACKAGE_SUMMARY` in one alternation (each keeps its anchors): a line is tried once, not once per pattern. */
const ANY_PACKAGE_SUMMARY = new RegExp(PACKAGE_SUMMARY.map((re) => `(?:${re.source})`).join("|"));

function isPackageSummary(text: string): boolean {
  let lines = 0;
  for (const raw of text.split("\n")) {
    const line = raw.trim().toLowerCase();
    if (line === "") continue;
    if (!ANY_PACKAGE_SUMMARY.test(line)) return false;
    lines++;
  }
  return lines > 0;
}

/**
 * Words that say what kind of sender or thing an entry is, or join a sentence, rather than which
 * one: a person who writes "the team" or "reply to support" has not named an entry that says so.
 */
const COMMON_WORDS: ReadonlySet<string> = new Set(
  (
    "the and for not but nor yet you your yours our ours his her hers him she they them their its this that these those " +
    "with from into about over all any are was were has have had who whom what when where why how can will would " +
    "just please thanks also here there then than out off per via new old one two " +
    "mail email e-mail message messages reply team support info admin service services noreply no-reply donotreply " +
    "do-not-reply notification notifications alert alerts news newsletter billing security account accounts help " +
    "hello contact contacts office sales mailer mailer-daemon postmaster calendar invite invitation update updates " +
    "file files folder document documents sheet doc docs copy draft group chat channel list " +
    "het een der die das und les des los las del " +
    // Days, times and the words of a request: "Thursday works", "anything this week?" pick no sender
    // who took them as a name.
    "monday tuesday wednesday thursday friday saturday sunday today tomorrow tonight yesterday morning afternoon " +
    "evening night week weekend month year january february march april june july august september october " +
    "november december anything something nothing everything did does done i'm i'll i've i'd it's that's what's " +
    "let's don't can't won't isn't didn't doesn't may mon tue wed thu fri sat sun jan feb mar apr jun jul aug sep sept oct nov dec " +
    // The verbs a request starts with, capitalised at the head of a sentence ("Forward the invoice").
    "tell send forward check find remind draft move add remove delete cancel book schedule share accept decline archive " +
    "write call text ask make show get give put pay summarise summarize look see open close create invite sign save " +
    "search answer respond set can could would should please hey hi yes okay sure confirm handle follow approve reschedule " +
    "unsubscribe read great thank sorry quick next which who dear urgent important fyi asap rsvp eod eta ooo pto fwd todo " +
    // Roles and offices a message names by their title, which a sender can take as its name.
    "ceo cfo cto coo cio ciso irs hmrc boss manager director accountant lawyer landlord"
  ).split(" "),
);

/**
 * Whether a value from `scanValues` can name a particular entry (a sender, a card, a file, a job): a
 * whole e-mail address, or a word of three characters or more that starts with a letter (`Sofia`,
 * `sc47-legacy-sitemap`) and is not a common word. Hosts, numbers and paths are not names: "my
 * gmail.com address" names no sender at that provider.
 */
function isNamingValue(value: string): boolean {
  if (value.includes("@")) return /^[^@\s/]+@[^@\s/]+\.[^@\s/]+$/.test(value);
  return /^\p{L}[\p{L}\p{M}\p{N}'’_-]{2,}$/u.test(value) && !COMMON_WORDS.has(value);
}

/**
 * Most names one entry may hold and still be named: a sender's name and address, a card's names
 * and addresses, a file's or a job's name hold a few. A field stuffed with names (a display name
 * listing every likely first name) would be named by whatever name the owner says, so it names nothing.
 */
const MAX_NAMES = 8;

/**
 * Mail providers anyone can hold an address at: the domain of an address there names no sender
 * ("the Gmail one" is nobody in particular), only the whole address does.
 */
const MAIL_PROVIDERS: ReadonlySet<string> = new Set(
  (
    "gmail googlemail outlook hotmail live msn yahoo ymail rocketmail aol icloud mac proton protonmail pm tutanota tuta " +
    "gmx web yandex zoho fastmail mailbox posteo hey qq naver t-online freenet orange free laposte libero seznam"
  ).split(" "),
);

/** Labels of a domain that are the registry's or the mail system's, not the sender's (`co.uk`, `bounce.`). */
const NON_NAMING_LABELS: ReadonlySet<string> = new Set(
  "www com org net gov edu mil int biz smtp bounce bounces mailing mailer send sender notify marketing".split(" "),
);

/**
 * The words of an address's domain that say whose it is: `lisa@quintus-talent.example` is
 * Quintus Talent's, so "the Quintus one" names it, as a sender's display name would. The top-level
 * label, the registry's and the mail system's labels name nothing; an address at a mail provider
 * names its holder only by the whole address.
 */
function domainWords(address: string, emit: (value: string) => void): void {
  const labels = address
    .slice(address.lastIndexOf("@") + 1)
    .split(".")
    .slice(0, -1);
  if (labels.some((label) => MAIL_PROVIDERS.has(label))) return;
  for (const label of labels) {
    if (NON_NAMING_LABELS.has(label)) continue;
    emit(label);
    if (label.includes("-")) for (const part of label.split("-")) emit(part);
  }
}

/**
 * The words of a person's message that can name an entry, normalised as `namingValues` reads an
 * entry's fields: a word the person wrote as a name (starting with a capital: "reply to Sofia",
 * "the Quintus one", "Dario emailed"; the verbs and fillers a request starts with, roles and days
 * are common words), an identifier (a digit or an underscore in it: `sc47-legacy-sitemap`), or a
 * whole address. A word written in lower case ("about the offsite", "my accountant", "the
 * follow-up") is what the message is about, not whom it names: a sender that took it as its name
 * is not picked by it. A script without capitals names only by identifiers and addresses, and what
 * the person quotes at length (a pasted message, `>` lines) names nothing.
 */
export function personNames(text: string): string[] {
  const names = new Set<string>();
  // What the person quotes (a pasted message, a reply's `>` lines) is someone else's words.
  const own = text.replace(/^\s*>.*$/gm, " ").replace(/["“„«]([^"”“»]*)["”»]/g, (whole, inner: string) => (inner.trim().split(/\s+/).length > 6 ? " " : whole));
  for (const match of own.matchAll(/[\p{L}\p{N}][\p{L}\p{M}\p{N}'’_.@+-]*/gu)) {
    const token = match[0].replace(/[.'’_-]+$/, "");
    if (!/^\p{Lu}/u.test(token) && !/[\d_@]/.test(token)) continue;
    scanValues(token, (value) => {
      if (isNamingValue(value)) names.add(folded(value));
    });
  }
  return [...names];
}

/** A name without its diacritics (`josé` → `jose`, `zoë` → `zoe`): people type names both ways. */
function folded(name: string): string {
  return name
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .normalize("NFC");
}

/**
 * The names in an entry's naming fields (`isNamingValue`), normalised, each once, sorted; none when
 * there are too many. An address's domain adds the words that say whose it is (`domainWords`).
 */
export function namingValues(fields: readonly string[]): string[] {
  const names = new Set<string>();
  // Written without its accents, a name is the same name: "Jose" fits "José Álvarez" too. A person's
  // words are matched folded (`personNames`); the folded forms do not count towards the limit.
  const plain = new Set<string>();
  const add = (value: string) => {
    if (names.size <= MAX_NAMES && isNamingValue(value)) {
      names.add(value);
      const fold = folded(value);
      if (fold !== value && isNamingValue(fold)) plain.add(fold);
    }
  };
  for (const field of fields) {
    scanValues(field.slice(0, 512), (value) => {
      add(value);
      if (value.includes("@") && isNamingValue(value)) domainWords(value, add);
    });
  }
  return names.size > MAX_NAMES ? [] : [...new Set([...names, ...plain])].sort();
}
