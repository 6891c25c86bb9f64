/**
 * Whether a text a call sends out carries a credential (a key, a token, a password). A message that
 * does is the irreversible action `send-secret` (`policy/irreversible.ts`). The check decides a
 * call, so it is narrower than redaction (`redact.ts`, which also hides these formats): a value must look like a
 * secret, not like code that names one (`password: process.env.DB_PASSWORD`), a placeholder
 * (`<your key>`, `REPLACE_ME`, `sk-xxxx`), a path or a reference (`vault:db/pass`), a link's query
 * parameter (an invite link), a commit id or encoded media. Every pattern is linear in the text.
 */

/** Keys and tokens by their provider's format (a Stripe publishable key, `pk_`, is meant to be public). */
export const CREDENTIAL_FORMATS: readonly RegExp[] = [
  /\b(?:sk|rk)-(?=[A-Za-z0-9_-]{0,200}[0-9])(?=[A-Za-z0-9_-]{0,200}[A-Z])[A-Za-z0-9_-]{16,}/,
  /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/,
  /\bgithub_pat_[A-Za-z0-9_]{22,}/,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/,
  /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/,
  /\bnpm_[A-Za-z0-9]{30,}/,
  /\bglpat-[A-Za-z0-9_-]{20,}/,
  /\bAIza[0-9A-Za-z_-]{35}/,
  /\bhf_[A-Za-z0-9]{30,}/,
  /\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/, // SendGrid
  /\b[0-9]{8,10}:AA[A-Za-z0-9_-]{30,}/, // Telegram bot tokens
  /\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,}/, // Discord bot tokens
  /\bhooks\.slack\.com\/services\/T[A-Z0-9]+\/B[A-Z0-9]+\/[A-Za-z0-9]{16,}/,
  /\bdiscord(?:app)?\.com\/api\/webhooks\/[0-9]+\/[A-Za-z0-9_-]{30,}/,
  /\bkey-[0-9a-z]{32}\b/, // Mailgun
  /\bSK[0-9a-f]{32}\b/, // Twilio
  /\bshp(?:at|ss|ca|pa)_[A-Fa-f0-9]{32}\b/, // Shopify
  /\bdop_v1_[a-f0-9]{64}\b/, // DigitalOcean
  /\bpypi-AgE[A-Za-z0-9_-]{50,}/,
  /\bdckr_pat_[A-Za-z0-9_-]{20,}/,
  /\bwhsec_[A-Za-z0-9+/=]{20,}/,
  /\bhvs\.[A-Za-z0-9_-]{24,}/, // Vault
  /\bATATT[A-Za-z0-9_=-]{20,}/, // Atlassian
  /\b(?:gsk|r8|lin_api)_[A-Za-z0-9]{20,}/,
  /\bxai-[A-Za-z0-9]{20,}/,
  /\bya29\.[A-Za-z0-9_-]{20,}/, // Google OAuth access tokens
  /\b(?:secret|ntn)_[A-Za-z0-9]{40,}/, // Notion
  /\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b/, // Airtable
  // A private key's body without its armour: PKCS#1 and PKCS#8 RSA, EC, OpenSSH.
  /\bMII[A-Za-z0-9+/]{2,3}IBA(?:AKC|DANBgkqhkiG9w0BAQEFAASC)/,
  /\bMHcCAQEE[A-Za-z0-9+/]{20}/,
  /\bb3BlbnNzaC1rZXktdjE[A-Za-z0-9+/]{20}/,
];
const TOKEN = new RegExp(CREDENTIAL_FORMATS.map((pattern) => `(?:${pattern.source})`).join("|"), "g");

/** The characters keys and tokens are made of; a run of them long enough to be one is looked into (`survey`). */
const SHORTEST_RUN = 16;

// What `survey` notes besides the runs: each mark is something a later pattern cannot match
// without, so a pattern whose mark is absent is not run at all (most text a call sends holds none
// of them, and each pattern would otherwise read the whole text once more). Words are looked for in
// ASCII only: a case-insensitive pattern without the `u` flag matches an ASCII letter only with an
// ASCII letter, and text with other characters is normalised (NFKC) before it is surveyed.

/**
 * A character outside printable ASCII, tab and line breaks (`[^ -~\t\n\r]`): only then are
 * invisible characters and look-alike dashes looked for (the text is normalised and surveyed again).
 */
const OTHER_CHARACTER = 1;
/** `sec`, `tok`, `pas`, `pwd`, `key`, `cre` or `_au` in any case: what every word of `SETTING_WORDS` holds. */
const SETTING_WORD = 2;
/** `bea` or `aut` in any case: what `bearer` and `authorization` hold (`HEADER`). */
const HEADER_WORD = 4;
/** Three dashes in a row (`PRIVATE_KEY`'s armour). */
const DASHES_3 = 8;
/** An `@` (`URL_PASSWORD`). */
const AT_SIGN = 16;
/** A `%` (`ESCAPE`). */
const PERCENT = 32;
/** `-u`, which `-u` and `--user` hold (`USER_PASSWORD_FLAG`). */
const DASH_U = 64;

/**
 * Per ASCII code: in the low two bits 0 not a key character, 1 a separator inside keys
 * (`_+/=.:-`), 2 a letter, 3 a digit; 4 a character a mark looks at (`-u@%`); 8 a control
 * character (`OTHER_CHARACTER`).
 */
const ASCII = new Uint8Array(128);
for (const c of "_+/=.:-") ASCII[c.charCodeAt(0)] = 1;
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") ASCII[c.charCodeAt(0)] = 2;
for (const c of "0123456789") ASCII[c.charCodeAt(0)] = 3;
for (const c of "-u@%") ASCII[c.charCodeAt(0)] |= 4;
for (let c = 0; c < 128; c++) if ((c < 32 && c !== 9 && c !== 10 && c !== 13) || c === 127) ASCII[c] |= 8;
/** Per ASCII code, the code in lower case. */
const LOWER = new Uint8Array(128);
for (let c = 0; c < 128; c++) LOWER[c] = c >= 65 && c <= 90 ? c + 32 : c;
/**
 * The three-letter words the marks look for, by their last letter (no two share one): the word as
 * three character codes in one number, to compare with the last three characters read, and its mark.
 */
const TRIGRAM = new Int32Array(128);
const TRIGRAM_MARK = new Uint8Array(128);
for (const [word, mark] of [
  ["sec", SETTING_WORD],
  ["tok", SETTING_WORD],
  ["pas", SETTING_WORD],
  ["pwd", SETTING_WORD],
  ["key", SETTING_WORD],
  ["cre", SETTING_WORD],
  ["_au", SETTING_WORD],
  ["bea", HEADER_WORD],
  ["aut", HEADER_WORD],
] as const) {
  const last = word.charCodeAt(2);
  TRIGRAM[last] = (word.charCodeAt(0) << 16) | (word.charCodeAt(1) << 8) | last;
  TRIGRAM_MARK[last] = mark;
}

interface Survey {
  /** The runs of key characters that may hold a key. */
  readonly runs: string[];
  /** The marks found (`OTHER_CHARACTER` ...). */
  readonly marks: number;
}

/**
 * One pass over the text: the runs of key characters at least `SHORTEST_RUN` long that hold a
 * random-looking stretch (12 or more letters and digits in a row, a digit among them: every key
 * format has one; a link or a path of words does not), and the marks the other patterns need
 * (the patterns are only run on text that has theirs). With `stopAtOther`, it stops at the first
 * character outside printable ASCII: the caller normalises the text and surveys that instead.
 */
function survey(text: string, stopAtOther: boolean): Survey {
  const runs: string[] = [];
  const length = text.length;
  let marks = 0;
  let start = -1;
  let streak = 0;
  let digit = false;
  let random = false;
  /** The last three characters read, lower case, one per byte (0 for one outside ASCII). */
  let last3 = 0;
  let previous = 0;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    let info = 0;
    if (c < 128) {
      info = ASCII[c];
      const lower = LOWER[c];
      last3 = ((last3 << 8) | lower) & 0xffffff;
      if (last3 === TRIGRAM[lower]) marks |= TRIGRAM_MARK[lower];
      if ((info & 12) !== 0) {
        if ((info & 8) !== 0) {
          marks |= OTHER_CHARACTER;
          if (stopAtOther) return { runs, marks };
        } else if (c === 45) {
          if (previous === 45 && text.charCodeAt(i - 2) === 45) marks |= DASHES_3;
        } else if (c === 117) {
          if (previous === 45) marks |= DASH_U;
        } else if (c === 64) marks |= AT_SIGN;
        else marks |= PERCENT;
      }
    } else {
      last3 = 0;
      marks |= OTHER_CHARACTER;
      if (stopAtOther) return { runs, marks };
    }
    previous = c;
    const kind = info & 3;
    if (kind === 0) {
      if (random && i - start >= SHORTEST_RUN) runs.push(text.slice(start, i));
      start = -1;
      streak = 0;
      digit = false;
      random = false;
      continue;
    }
    if (start < 0) start = i;
    if (kind === 1) {
      streak = 0;
      digit = false;
      continue;
    }
    streak++;
    if (kind === 3) digit = true;
    if (digit && streak >= 12) random = true;
  }
  if (random && length - start >= SHORTEST_RUN) runs.push(text.slice(start));
  return { runs, marks };
}
/** A private key's armour, however spaced or cased. */
const PRIVATE_KEY = /-{3,}[ \t]*begin[ \t][a-z ]*private[ \t]+key/i;
/** An `Authorization` header's or a bearer token's value. */
const HEADER = /\b(?:authorization:[ \t]*(?:bearer|basic|token)|bearer)[ \t]+([A-Za-z0-9._~+/=-]{12,})/gi;
/** After a URL's `://`: `user:password@`, the user (maybe empty) and the password. */
const URL_PASSWORD = /([^\s:/@]*):([^\s@/]+)@/y;
/**
 * A setting whose name says it holds a secret, and its value (env files, JSON, YAML, `.npmrc`,
 * connection strings, `.netrc`): from the name's last word on, so each occurrence is one short
 * attempt (no scan back over the name, which would be quadratic in a long run of name characters).
 */
const SECRET_SETTING =
  /(?:secret|token|passw(?:or)?d|pass|pwd|_auth|accountkey|client-key-data|cookie|(?:api|access|secret|private|signing|encryption|master|license)[_-]?key|credentials?)(?:[_-]([A-Za-z0-9]{1,12}))?["']?(\s*[:=|>]\s*|[ \t]+(?:(?:is|was|->|=>)[ \t]+)?)["']?([^\s"'`,;<>&|]{8,})/gi;
/** What a setting's name can end in that makes it about a secret without holding one (`token_id`, `API_KEY_HEADER`). */
const NOT_A_SECRET =
  /^(?:id|ids|name|names|type|url|uri|path|file|header|env|var|length|len|policy|hint|expiry|expires|ttl|count|version|field|label|prompt|reset|rotation|endpoint|format|scope|scopes|hash)$/i;
/** `curl -u user:password`. */
const USER_PASSWORD_FLAG = /(?:^|\s)(?:-u|--user)[ \t]+[^\s:]+:([^\s]{6,})/g;
/** The words a secret setting's name ends in, looked for first (a plain scan) before `SECRET_SETTING` runs. */
const SETTING_WORDS = /secret|token|pass|pwd|key|credential|_auth/i;
/** Base64 runs (inside a run of key characters) long enough to hide a key or a file: decoded and looked into once. */
const BASE64_RUN = /[A-Za-z0-9+/]{32,}={0,2}/g;
/** Dashes that stand for a hyphen. */
const DASHES = /[\u2010-\u2015\u2212\uFE58\uFE63]/g;
const ESCAPE = /%[0-9A-Fa-f]{2}/;
const ESCAPES = /%[0-9A-Fa-f]{2}/g;
/** Characters that do not show: stripped before looking (a key with a zero-width space inside is still the key). */
const INVISIBLE = /[\u00AD\u200B-\u200F\u2060-\u2064\uFEFF]/g;

/** Words that mark a value as an example or a stand-in, not a secret (and jwt.io's sample token's signature). */
const STAND_IN =
  /example|sample|dummy|placeholder|replace|your[_-]?|insecure|redacted|masked|todo|xxxx|\*\*\*\*|\.\.\.|\u2026|SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c/i;
/** More words that mark a setting's value as a stand-in (`app_password`, `dev-secret`, `change-me`); a token's format may hold them (`secret_...`). */
const STAND_IN_VALUE = /password|passwd|secret|change|^(?:pass|pwd|test|demo|guest|admin|root|user|default|letmein)[0-9]*$/i;
/** A URL to this machine: its password guards nothing anyone else can reach (`postgres://app:dev@localhost`). */
const LOOPBACK = /^(?:localhost|127(?:\.[0-9]+){3}|\[::1\]|0\.0\.0\.0)(?:[:/]|$)/i;
/** Values that only name where a secret is: a reference (`vault:`, `op://`, `arn:`), a path, code. */
const REFERENCE = /^[a-z][a-z0-9+.-]*:|[\\([{]|^[$%<~.]|^(?:same-origin|include|omit|none|null|undefined|true|false)$/i;
/** Base64 (it may hold `/`), as opposed to a path or a pair like `admin/admin`. */
const BASE64_VALUE = /^(?=[^/]*[0-9])(?=[^/]*[A-Z])(?=[^/]*[a-z])[A-Za-z0-9+/]{20,}={0,2}$/;
/** A dotted identifier (`process.env.DB_PASSWORD`, `settings.API_KEY`, `var.db_password`). */
const IDENTIFIER_CHAIN = /^[A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*)+$/;

const MAX_SCAN = 1 << 20;
const MAX_DECODED_RUNS = 16;

/**
 * Whether a text carries a credential: a provider's key or token by its format, a private key, an
 * `Authorization` header or bearer token, a password in a URL, a value given to a setting named like
 * a secret (`STRIPE_SECRET_KEY=...`, `_authToken=...`, `"password": "..."`, `Pwd=...;`), also inside
 * base64 (an attachment's bytes, a `data:` URL, a kubeconfig's key data). Placeholders, references,
 * code, publishable keys, commit ids and encoded media do not count. Not caught: a bare password in
 * prose, and a key the model split, reversed or encoded otherwise.
 */
export function holdsCredential(text: string): boolean {
  if (text.length <= MAX_SCAN) return scan(text, true);
  // Too long to read whole: encoded media (an image's base64) is read as far as the limit; any
  // other text fails closed, so a key cannot hide behind a megabyte of padding.
  const body = text.startsWith("data:") ? text.slice(text.indexOf(",") + 1) : text;
  const media = /^[A-Za-z0-9+/=\r\n]+$/.test(body) && !printable(Buffer.from(body.slice(0, 4096), "base64").toString("latin1"));
  return media ? scan(text.slice(0, MAX_SCAN), true) : true;
}

function scan(raw: string, decode: boolean): boolean {
  if (raw.length < 7) return false;
  let text = raw;
  let { runs, marks } = survey(raw, true);
  if ((marks & OTHER_CHARACTER) !== 0) {
    // Invisible characters and look-alike dashes cannot hide a key: the text is read as it shows.
    text = raw.replace(INVISIBLE, "").normalize("NFKC").replace(DASHES, "-");
    ({ runs, marks } = survey(text, false));
  }
  // A key is one long run of key characters: the token patterns look only inside such runs.
  for (const run of runs) for (const match of run.matchAll(TOKEN)) if (!standIn(match[0])) return true;
  if ((marks & DASHES_3) !== 0 && PRIVATE_KEY.test(text)) return true;
  if ((marks & HEADER_WORD) !== 0) {
    for (const match of text.matchAll(HEADER)) {
      const value = match[1] ?? "";
      if (!standIn(value) && (/[0-9]/.test(value) || (/[a-z]/.test(value) && /[A-Z]/.test(value)))) return true;
    }
  }
  if ((marks & AT_SIGN) !== 0) {
    for (let at = text.indexOf("://"); at >= 0; at = text.indexOf("://", at + 3)) {
      URL_PASSWORD.lastIndex = at + 3;
      const match = URL_PASSWORD.exec(text);
      if (!match) continue;
      const [, user = "", password = ""] = match;
      const host = text.slice(URL_PASSWORD.lastIndex, URL_PASSWORD.lastIndex + 64);
      if (password !== user && !LOOPBACK.test(host) && secretValue(password, 1)) return true;
    }
  }
  if ((marks & SETTING_WORD) !== 0 && SETTING_WORDS.test(text)) {
    for (const match of text.matchAll(SECRET_SETTING)) {
      const [, suffix, separator = "", value = ""] = match;
      if (suffix !== undefined && NOT_A_SECRET.test(suffix)) continue;
      // `password: x`, `password=x`, `<password>x`, `| password | x` are settings; `password x`
      // (`.netrc`) and `the password is x` only with a value that mixes letters, digits and symbols.
      const kinds = /[:=|>]/.test(separator) ? 2 : 3;
      if (inLink(text, match.index) || !secretValue(value, kinds)) continue;
      return true;
    }
  }
  if ((marks & DASH_U) !== 0) for (const match of text.matchAll(USER_PASSWORD_FLAG)) if (secretValue(match[1] ?? "", 2)) return true;
  if (decode) {
    // Percent-escapes (`sk%2Dproj...`), undone once.
    if (
      (marks & PERCENT) !== 0 &&
      ESCAPE.test(text) &&
      scan(
        text.replace(ESCAPES, (e) => String.fromCharCode(Number.parseInt(e.slice(1), 16))),
        false,
      )
    )
      return true;
    // A whole value in base64 (an attachment's bytes, wrapped at 76 columns), else each long run.
    const whole = text.length >= 32 && /^[A-Za-z0-9+/=\s]+$/.test(text) ? text.replace(/\s+/g, "") : undefined;
    if (whole !== undefined && decodedHolds(whole)) return true;
    let decoded = 0;
    for (const run of runs) {
      if (run.length < 32) continue;
      for (const match of run.matchAll(BASE64_RUN)) {
        if (++decoded > MAX_DECODED_RUNS) return false;
        if (match[0] !== whole && decodedHolds(match[0])) return true;
      }
    }
  }
  return false;
}

/** Whether base64 decodes to text (a look at its start first: media is left alone) that carries a credential. */
function decodedHolds(run: string): boolean {
  if (!printable(Buffer.from(run.slice(0, 4096), "base64").toString("latin1"))) return false;
  return scan(Buffer.from(run, "base64").toString("latin1"), false);
}

/** An example key (`AKIAIOSFODNN7EXAMPLE`, `ghp_xxxx...`, `xoxb-your-token-here`) or a run of one character. */
function standIn(value: string): boolean {
  return STAND_IN.test(value) || /(.)\1{5,}/.test(value);
}

/**
 * A value that could be a secret: not a stand-in, a reference, code or a path, and with at least
 * `kinds` kinds of characters of letters, digits and symbols.
 */
function secretValue(value: string, kinds: number): boolean {
  if (value.length < 4 || standIn(value) || STAND_IN_VALUE.test(value) || REFERENCE.test(value) || IDENTIFIER_CHAIN.test(value)) return false;
  if (value.includes("/") && !BASE64_VALUE.test(value)) return false;
  // A stand-in in base64 (`password: cGFzc3dvcmQ=` in a Kubernetes Secret example).
  if (/^[A-Za-z0-9+/]{8,}={0,2}$/.test(value) && value.length % 4 === 0) {
    const decoded = Buffer.from(value, "base64").toString("latin1");
    if (printable(decoded, 4) && (standIn(decoded) || STAND_IN_VALUE.test(decoded))) return false;
  }
  const found = (/[A-Za-z]/.test(value) ? 1 : 0) + (/[0-9]/.test(value) ? 1 : 0) + (/[^A-Za-z0-9]/.test(value) ? 1 : 0);
  return found >= kinds;
}

/** Whether the setting found at `at` is a parameter of a link (`?token=...` in an invite or a reset link): the link is what is shared. */
function inLink(text: string, at: number): boolean {
  const start = Math.max(0, at - 2048);
  const before = text.slice(start, at);
  const word = before.search(/\S*$/);
  const run = before.slice(word);
  return run.includes("://") || /[?&]/.test(run);
}

/** Decoded bytes that read as text (a file, a header), not as binary media. */
function printable(text: string, shortest = 12): boolean {
  if (text.length < shortest) return false;
  let ok = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c >= 32 && c < 127) || c === 9 || c === 10 || c === 13) ok++;
  }
  return ok >= text.length * 0.95;
}
