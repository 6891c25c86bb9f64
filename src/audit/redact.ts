import { hash } from "node:crypto";
import { CREDENTIAL_FORMATS } from "./credentials.ts";

/**
 * Parameters go to the audit log as a hash (to correlate calls) and a short preview with
 * secrets removed: values under secret-looking keys and strings that look like credentials.
 */

const SECRET_KEY = /pass(word|phrase)?|secret|token|api[-_]?key|auth|cookie|credential|private[-_]?key|bearer|session[-_]?id/i;
const BASE64_BLOB = /\b[A-Za-z0-9+/_-]{48,}={0,2}/g;
const LONG_HEX = /\b[A-Fa-f0-9]{40,}\b/g;
/**
 * A long run that is a path or a name, not encoded bytes: it mixes `/` with `-` or `_` (standard
 * base64 has `+` and `/`, URL-safe base64 `-` and `_`, never both kinds), or it lacks a digit or a
 * letter case (random bytes encode to all three).
 */
function notABlob(match: string): boolean {
  if (match.includes("/") && /[-_]/.test(match)) return true;
  return !/[0-9]/.test(match) || !/[a-z]/.test(match) || !/[A-Z]/.test(match);
}

/** What follows a setting named like a secret (`DB_PASSWORD=...`, `"apiKey": "..."`): hidden, whatever it looks like. */
const SECRET_SETTING_VALUE =
  /(?<=(?:secret|token|passw(?:or)?d|pwd|_auth|(?:api|access|private|signing|encryption|master|license)[_-]?key|credentials?)(?:[_-][A-Za-z0-9]{1,12})?["']?[ \t]*[:=][ \t]*["']?)[^\s"'`,;<>&]{8,}/gi;

const SECRET_VALUE: readonly RegExp[] = [
  /\b(sk|pk|rk)-[A-Za-z0-9_-]{16,}/g, // provider API keys
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g, // GitHub tokens
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, // Slack tokens
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key ids
  /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g, // JWTs
  /\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{12,}/gi, // Authorization header values
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  /(:\/\/[^\s:/@]+:)[^\s@/]+@/g, // passwords in URLs
  // Every format the credential check knows (`credentials.ts`), and the value of a setting named like a secret.
  ...CREDENTIAL_FORMATS.map((format) => new RegExp(format.source, "g")),
  SECRET_SETTING_VALUE,
  LONG_HEX, // long hex secrets
  BASE64_BLOB, // long base64-like blobs (not paths and names: see `notABlob`)
];

export const PREVIEW_LIMIT = 240;
const MAX_DEPTH = 6;
const MAX_KEYS = 40;
const MAX_NODES = 2000;

/** Every secret pattern in one alternation: one pass over a string instead of one per pattern. */
const ANY_SECRET = new RegExp(SECRET_VALUE.map((pattern) => `(?:${pattern.source})`).join("|"), "gi");
/** Strings this short hold none of the patterns above (the shortest match, a password in a URL, `://a:b@`, has 7). */
const SHORTEST_SECRET = 7;

/**
 * Strings found to hold no secret, kept so that the same value (a command the agent reruns, a
 * recipient) is not scanned again: bounded in count and length. Only secret-free strings are kept.
 */
const CLEAN = new Set<string>();
const MAX_CLEAN = 1024;
const MAX_CLEAN_LENGTH = 512;

export function redactString(text: string): string {
  if (text.length < SHORTEST_SECRET) return text;
  const keep = text.length <= MAX_CLEAN_LENGTH;
  if (keep && CLEAN.has(text)) return text;
  ANY_SECRET.lastIndex = 0;
  if (!ANY_SECRET.test(text)) {
    if (keep) {
      if (CLEAN.size >= MAX_CLEAN) CLEAN.clear();
      CLEAN.add(text);
    }
    return text;
  }
  let out = text;
  for (const pattern of SECRET_VALUE) {
    out = out.replace(pattern, (match, prefix) => {
      if (pattern === BASE64_BLOB && notABlob(match)) return match;
      return typeof prefix === "string" && match.startsWith(prefix) && prefix.startsWith("://") ? `${prefix}[redacted]@` : "[redacted]";
    });
  }
  return out;
}

/**
 * Whether a string holds a value that looks like a credential or encoded data (the patterns
 * above). `url`: read as a URL, where long hex runs are mostly commit and object ids (left out) and
 * a long path is not a blob (blobs are looked for between its separators).
 */
export function holdsSecret(text: string, options: { url?: boolean } = {}): boolean {
  if (text.length < SHORTEST_SECRET) return false;
  const parts = options.url ? text.split(/[/?&=#;]/) : [text];
  for (const pattern of SECRET_VALUE) {
    // A setting's value is hidden from logs whatever it is, but is not by itself a secret-looking value.
    if (pattern === SECRET_SETTING_VALUE || (options.url && pattern === LONG_HEX)) continue;
    for (const part of pattern === BASE64_BLOB ? parts : [text]) {
      for (const match of part.matchAll(pattern)) if (pattern !== BASE64_BLOB || !notABlob(match[0])) return true;
    }
  }
  if (options.url) {
    const runs = joinedUrlParts(text);
    if (runs === undefined) return true;
    for (const run of runs) {
      CREDENTIAL.lastIndex = 0;
      if (CREDENTIAL.test(run)) return true;
    }
  }
  return false;
}

/** The credential patterns (keys, tokens, JWTs, header values) in one alternation, for `joinedUrlParts`. */
const CREDENTIAL = new RegExp(
  SECRET_VALUE.slice(0, 6)
    .map((pattern) => `(?:${pattern.source})`)
    .join("|"),
  "g",
);

/** A URL with more parts than this is not read part by part: it counts as holding a secret (`joinedUrlParts`). */
const MAX_URL_PARTS = 256;
/** At most this many neighbouring parts are put back together (a key cut into more pieces is cut very fine). */
const MAX_RUN_PARTS = 16;

/**
 * A URL's path segments and query values (or names), percent-decoded, each alone and put back
 * together without their separators, every run of up to `MAX_RUN_PARTS` neighbouring parts
 * anywhere in the URL: a key escaped (`sk%2Dproj%2D...`) or split over the parts
 * (`/sk-ant/api03/...`, `?a=AKIA&b=IOSF...`) is whole again. Credential patterns only (not blobs: a
 * long path joined up is a long run of letters). Undefined for a URL of more than `MAX_URL_PARTS`
 * parts.
 */
function joinedUrlParts(url: string): string[] | undefined {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0 || url.length - start < SHORTEST_SECRET) return [];
  let rest = url.slice(start);
  try {
    rest = decodeURIComponent(rest);
  } catch {
    // Malformed escapes: read as written.
  }
  const query = rest.indexOf("?");
  const path = (query < 0 ? rest : rest.slice(0, query)).split(/[/;#]/);
  const pairs = query < 0 ? [] : rest.slice(query + 1).split(/[&#;]/);
  if (path.length + pairs.length > MAX_URL_PARTS) return undefined;
  const out: string[] = [];
  joinFrom(path.concat(pairs.map((pair) => pair.slice(pair.indexOf("=") + 1))), out);
  if (pairs.length > 1) joinFrom(path.concat(pairs.map((pair) => pair.split("=")[0] ?? "")), out);
  return out;
}

/** Every part alone and every run of neighbouring parts, joined (so a key has a word boundary at both ends). */
function joinFrom(pieces: string[], out: string[]): void {
  const kept = pieces.filter((piece) => piece.length > 0);
  for (let i = 0; i < kept.length; i++) {
    let run = kept[i] as string;
    out.push(run);
    for (let j = i + 1; j < kept.length && j - i < MAX_RUN_PARTS; j++) {
      run += kept[j];
      out.push(run);
    }
  }
}

/**
 * A bounded, secret-free copy of a value: depth, key count, string length and the total number of
 * nodes visited are capped, and cycles are cut, so hostile parameters cannot stall the audit drain.
 */
export function redactValue(value: unknown, depth = 0, budget = { nodes: MAX_NODES }, seen = new WeakSet<object>()): unknown {
  if (typeof value === "string") return redactString(value.length > PREVIEW_LIMIT ? `${value.slice(0, PREVIEW_LIMIT)}...` : value);
  if (value === null || typeof value !== "object") return typeof value === "bigint" ? String(value) : value;
  if (depth >= MAX_DEPTH || --budget.nodes <= 0) return "[nested]";
  // `seen` holds the objects on the path from the root: a cycle is cut, an object shared by two
  // branches is shown in both (the node budget bounds the work either way).
  if (seen.has(value)) return "[cycle]";
  seen.add(value);
  let out: unknown;
  if (Array.isArray(value)) out = value.slice(0, MAX_KEYS).map((item) => redactValue(item, depth + 1, budget, seen));
  else {
    const copy: Record<string, unknown> = {};
    let count = 0;
    for (const key of Object.keys(value)) {
      if (count++ >= MAX_KEYS) {
        copy["..."] = `${Object.keys(value).length - MAX_KEYS} more keys`;
        break;
      }
      copy[key] = SECRET_KEY.test(key) ? "[redacted]" : redactValue((value as Record<string, unknown>)[key], depth + 1, budget, seen);
    }
    out = copy;
  }
  seen.delete(value);
  return out;
}

export function paramsPreview(params: unknown, hidden?: readonly string[]): string {
  let text: string;
  try {
    text = hideValues(JSON.stringify(redactValue(params)) ?? "", hidden, true);
  } catch {
    text = "[unserializable]";
  }
  return text.length > PREVIEW_LIMIT ? `${text.slice(0, PREVIEW_LIMIT)}...` : text;
}

/**
 * The text with each of `hidden` (values known to be secret, whatever they look like) shown as
 * `[redacted]`, in any case; `json`: also as JSON writes them.
 */
export function hideValues(text: string, hidden: readonly string[] | undefined, json = false): string {
  if (!hidden || hidden.length === 0) return text;
  const forms = new Set<string>();
  for (const value of hidden) {
    forms.add(value);
    // A letter lowercased to a letter and a combining mark (`İ` to `i̇`) is written as one.
    if (/[\u0300-\u036f]/.test(value)) forms.add(value.toUpperCase().normalize("NFC"));
    if (json) forms.add(JSON.stringify(value).slice(1, -1));
  }
  // Longest first: a secret that holds another is hidden whole.
  const pattern = [...forms]
    .sort((a, b) => b.length - a.length)
    .map(escapeRegExp)
    .join("|");
  let out = text.replace(new RegExp(pattern, "gi"), "[redacted]");
  // A value shortened where a secret was (`…docs/Wint3r-Bi…`, `…rch-22/x`): the part of it that is left.
  if (out.includes("…")) {
    for (const value of hidden) {
      for (let k = value.length - 1; k >= MIN_CUT; k--) {
        const head = new RegExp(`${escapeRegExp(value.slice(0, k))}…`, "gi");
        const tail = new RegExp(`…${escapeRegExp(value.slice(value.length - k))}`, "gi");
        out = out.replace(head, "[redacted]…").replace(tail, "…[redacted]");
      }
    }
  }
  return out;
}

/** The shortest end of a secret a shortened value may keep and still have it hidden. */
const MIN_CUT = 3;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A stable hash of the full parameters (key order does not matter); bounded work for huge inputs. */
export function paramsHash(params: unknown): string {
  // The canonical text is built once and hashed in one call. Every node costs budget, not only
  // text: a wide or cyclic object of empty objects is bounded too.
  const parts: string[] = [];
  let budget = 1_000_000;
  const seen = new WeakSet<object>();
  const visit = (value: unknown, depth: number): void => {
    if (--budget <= 0) return;
    if (value === null || typeof value !== "object") {
      const text = typeof value === "string" ? JSON.stringify(value) : String(value);
      budget -= text.length;
      parts.push(text);
      return;
    }
    if (depth > 64) {
      parts.push("[deep]");
      return;
    }
    if (seen.has(value)) {
      parts.push("[cycle]");
      return;
    }
    seen.add(value);
    if (Array.isArray(value)) {
      parts.push("[");
      for (const item of value) visit(item, depth + 1);
      parts.push("]");
      return;
    }
    parts.push("{");
    for (const key of Object.keys(value).sort()) {
      parts.push(JSON.stringify(key));
      visit((value as Record<string, unknown>)[key], depth + 1);
    }
    parts.push("}");
  };
  visit(params, 0);
  return hash("sha256", parts.join(""), "hex").slice(0, 16);
}
