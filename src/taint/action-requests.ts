import type { TrustLevel } from "./trust.ts";

/**
 * What a person's message asks to be done to services: "restart acme-mailer please", "the api is
 * down, check the journal and start it". A service action below owner (`CommandView.serviceAction`)
 * runs only what such a request names: the action, said of the service, in the namespace the
 * request names. The reading is deliberately narrow, so that words elsewhere in a message ask for
 * nothing: a service named as context ("the api can't reach postgresql"), a negated or conditional
 * action ("don't restart postgresql", "if you restart it, tell me"), a question ("should I restart
 * redis?"), quoted or reported words ("the runbook says to restart redis", `systemctl restart x`),
 * and what a log or a file says. What it cannot read asks the owner.
 *
 * Only the latest person's message of a session asks for anything: a request lasts for the turn it
 * started. Requests are kept in memory, like the listed entries: a gateway restart forgets them.
 */
export interface ActionRequest {
  /** The action, as the program table names it: restart, reload, start. */
  readonly verb: string;
  /** The names it was said of: its object, or what a pronoun object stood for (lower case). */
  readonly names: readonly string[];
  /** What kind of service the owner said it is, when they did: systemd, docker or kubernetes. */
  readonly kinds: readonly ServiceKind[];
  /** Kubernetes namespaces the request names ("in staging", "the payments namespace"), if any. */
  readonly namespaces: readonly string[];
  readonly level: TrustLevel;
  /** Whose message it was, for the record ("the owner's message"). */
  readonly label: string;
}

export type ServiceKind = "systemd" | "docker" | "kubernetes";

export type FoundRequest = Omit<ActionRequest, "level" | "label">;

/** Sessions kept, requests kept per message, and words of a session's latest message kept for a follow-up. */
export const MAX_REQUEST_SESSIONS = 512;
export const MAX_REQUESTS = 16;
export const MAX_WORDS_KEPT = 64;
/** Characters of a message read for requests: a request after a long paste is not read (it asks). */
export const MAX_REQUEST_TEXT = 16_000;

/** OpenClaw's marker on the context it adds to a turn's text (chat history, a quoted message, metadata). */
const CONTEXT_MARKER = "\u27E6openclaw:ctx\u27E7";

/** The action words, in the form a request uses (imperative, or the noun: "give it a restart"). */
const VERBS: ReadonlyMap<string, string> = new Map([
  ["restart", "restart"],
  ["bounce", "restart"],
  ["reload", "reload"],
  ["start", "start"],
]);
/** "bring X back up", "bring it up": a start of X. */
const BRING = "bring";
const BACK_UP = new Set(["back", "up"]);

/** Words that say not to do what follows, anywhere before it in the sentence ("do NOT, ever, restart"). */
const NEGATIONS = new Set(["not", "no", "never", "don't", "dont", "without", "avoid", "hold", "refrain", "skip", "nor", "neither", "instead"]);
/** A word ending in n't negates only within its clause ("nginx isn't responding, restart it" asks for a restart). */
const NEGATED = /n['\u2019]t$|^(?:dont|wont|cant|isnt|doesnt|didnt|wasnt|werent|arent|couldnt|shouldnt|wouldnt|hasnt|havent|aint)$/;

/** Words before an action, in its clause, that make it no request: a condition, a question, someone else's words. */
const NOT_ASKED = new Set([
  "if",
  "when",
  "whenever",
  "whether",
  "unless",
  "once",
  "after",
  "before",
  "until",
  "why",
  "how",
  "what",
  "does",
  "did",
  "is",
  "are",
  "was",
  "were",
  "should",
  "shall",
  "might",
  "may",
  "must",
  "says",
  "say",
  "said",
  "suggests",
  "suggested",
  "recommends",
  "recommended",
  "tells",
  "told",
  "wants",
  "asks",
  "asked",
]);
/** A question that is a request ("can you restart nginx?", "could u bounce it?"). */
const ASKING = /^(?:(?:ok|okay|so|and|also|then|hey|hi)\s+)*(?:(?:can|could|would|will)\s+(?:you|u)|please|pls)\b/;

/** A message that asks only to look: it asks for no action at all. */
const LOOK_ONLY =
  /\b(?:change nothing|touch nothing|do nothing|don['\u2019]?t (?:change|touch|fix|do|modify)|do not (?:change|touch|fix|do|modify)|read[- ]only|only (?:read|look|check)|just (?:read|look|check)|no changes)\b/;

/** Objects that are no service: "start by", "restart nothing", "start with the logs". */
const NOT_AN_OBJECT = new Set(["by", "with", "from", "off", "over", "at", "to", "nothing", "none", "anything", "everything", "working", "out"]);
/** Where an object ends. */
const OBJECT_END = new Set([
  ",",
  "(",
  ")",
  "[",
  "]",
  "{",
  "}",
  "<",
  ">",
  "-",
  "without",
  "except",
  "but",
  "not",
  "nor",
  "so",
  "to",
  "for",
  "because",
  "since",
  "while",
  "until",
  "unless",
  "if",
  "when",
  "then",
  "as",
  "once",
  "after",
  "before",
  "too",
  "also",
  "and",
  "or",
  "in",
  "on",
  "at",
  "with",
  "from",
  "there",
  "again",
  "now",
  "please",
  "pls",
  "asap",
  "back",
]);
/** What may follow an action that ends its sentence: "restart.", "restart please", "reload now". */
const BARE_END = new Set(["please", "pls", "now", "asap", "again"]);
/** Words after a name that say which part of it, not which service: "reload the nginx config". */
const DESCRIPTORS = new Set(["config", "configuration", "conf", "settings", "process", "processes", "instance", "instances"]);

/** Words that say nothing about which service. */
const FILLER = new Set(["the", "a", "an", "of", "its", "their", "my", "our", "your", "this", "that", "rolling", "quick", "graceful", "up", "just"]);
/** Nouns that say what kind of service a name is. */
const KIND_NOUNS: ReadonlyMap<string, ServiceKind> = new Map([
  ["service", "systemd"],
  ["services", "systemd"],
  ["unit", "systemd"],
  ["units", "systemd"],
  ["daemon", "systemd"],
  ["container", "docker"],
  ["containers", "docker"],
  ["deployment", "kubernetes"],
  ["deployments", "kubernetes"],
  ["deploy", "kubernetes"],
  ["statefulset", "kubernetes"],
  ["daemonset", "kubernetes"],
  ["pod", "kubernetes"],
  ["pods", "kubernetes"],
  ["workload", "kubernetes"],
]);
/** Objects that stand for something named before ("restart it", "a rolling restart of the deployment"). */
const PRONOUNS = new Set(["it", "them", "both", "all", "these", "those", "one"]);

/**
 * Services of the host itself, whose restart stops or cuts off everything else (every container,
 * the node, the owner's own connection): only a request that names them as its object asks for them.
 */
const HOST_SERVICES =
  /^(?:docker|dockerd|containerd|podman|kubelet|k3s|k3s-agent|crio|ssh|sshd|dbus|dbus-broker|network|networking|networkmanager|systemd-.*|firewalld|ufw|nftables|iptables|netfilter-persistent|cron|crond|rsyslog|polkit|getty@.*|libvirtd|multipathd|snapd)$/;

/** Words that are not a service's name: function words, and what people say about services. */
const COMMON = new Set(
  (
    "a an the and or but if then so to of in on at by for with from as is are was were be been being am it its it's this that these those " +
    "i me my we our you your he she they them their there here what which who why how when where all any some no not one two both each " +
    "do does did done doing have has had can could would should will may might must shall please pls ok okay hey hi thanks thank just also " +
    "again now still already yet very really quite too more most less about into onto over under up down out off back after before since " +
    "check look see show tell find get give make take let run keep keeps kept seems seem seemed looks look looked appear appears " +
    "stuck slow slower broken crash crashed crashing crashes fail fails failed failing dead died dying hung hang hangs hanging down up " +
    "stopped stop stops answering responding working running restarted started reloaded timing timeout timeouts erroring error errors " +
    "log logs journal status state health healthy fine good normal issue issues problem problems wrong weird again today tonight morning " +
    "box server host machine node cluster config configuration memory cpu disk load traffic requests request queue something thing " +
    "anything everything nothing why again ago hour hours minute minutes since last night yesterday old new stale latest current previous " +
    "rolling quick graceful full hard soft same other another first second way bit lot like need needs want wants think " +
    "describe grab inspect review investigate read tail list print pull examine diagnose debug figure report verify confirm ensure " +
    "test try fix happened happening see saw watch monitor priority same go goes going ahead proceed carry " +
    "right away soon quickly fast immediately today tonight later then once more"
  ).split(" "),
);
/** Words after a name that say it is well: it is not what "restart it" stands for. */
const WELL = new Set(["fine", "ok", "okay", "healthy", "good", "normal", "green", "alright"]);

const TOKEN = /(?<![a-z0-9])--?[a-z][a-z-]*|[a-z0-9](?:[a-z0-9_.@/'\u2019-]*[a-z0-9])?|[,()[\]{}<>\u2014\u2013]|\s-\s/g;

interface Sentence {
  readonly words: readonly string[];
  readonly question: boolean;
  readonly asking: boolean;
}

/**
 * A turn's text split into the lines OpenClaw wrote into it, its queued system events
 * ("System: [time] ..."), and the rest.
 */
export function systemEventLines(text: string): { own: string; host: string } {
  if (!text.includes("System:")) return { own: text, host: "" };
  const own: string[] = [];
  const host: string[] = [];
  for (const line of text.split("\n")) (SYSTEM_LINE.test(line) ? host : own).push(line);
  return { own: own.join("\n"), host: host.join("\n") };
}
const SYSTEM_LINE = /^\s*System:\s/;

/**
 * The daily memory notes OpenClaw puts into the first turn after a bare `/new` or `/reset`
 * (`[Startup context loaded by runtime]`, then `[Untrusted daily memory: path]` blocks quoted
 * between `BEGIN_QUOTED_NOTES` and `END_QUOTED_NOTES`), and the rest of the text. The notes are
 * what earlier conversations with anyone left: the host itself labels them untrusted.
 */
export function startupNotes(text: string): { own: string; notes: string } {
  const start = text.indexOf(STARTUP_HEADER);
  if (start === -1) return { own: text, notes: "" };
  // The block runs to its last END_QUOTED_NOTES (or, with none, to the end: a truncated block is notes too).
  const last = text.lastIndexOf(NOTES_END);
  const end = last > start ? last + NOTES_END.length : text.length;
  return { own: `${text.slice(0, start)}${text.slice(end)}`, notes: text.slice(start, end) };
}
const STARTUP_HEADER = "[Startup context loaded by runtime]";
const NOTES_END = "END_QUOTED_NOTES";

/** The person's own words of a turn's text: the context blocks and system events OpenClaw adds taken out; undefined when that cannot be done. */
export function ownWords(whole: string): string | undefined {
  const text = systemEventLines(startupNotes(whole).own).own;
  if (!text.includes(CONTEXT_MARKER)) return text;
  const lines = text.split("\n");
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].trimEnd().endsWith(CONTEXT_MARKER)) {
      kept.push(lines[i]);
      continue;
    }
    // A header line, then its block: a fenced JSON block, or lines up to an empty one.
    let j = i + 1;
    if (lines[j]?.trim() === "```json") {
      j++;
      while (j < lines.length && lines[j].trim() !== "```") j++;
    } else {
      while (j < lines.length && lines[j].trim() !== "") j++;
    }
    i = j;
  }
  const own = kept.join("\n");
  return own.includes(CONTEXT_MARKER) ? undefined : own;
}

/** The words of a message, as a later "restart it" may look back at them. */
export function wordsOf(text: string): string[] {
  const own = ownWords(text.length > MAX_REQUEST_TEXT ? text.slice(0, MAX_REQUEST_TEXT) : text);
  return own === undefined ? [] : tokens(unquoted(own.toLowerCase())).filter((w) => /^[a-z0-9]/.test(w));
}

/**
 * The requests a message makes, in order. `before`: the words of the same person's previous
 * message, which a pronoun object of a short follow-up ("ok, restart it") may stand for.
 */
export function requestsIn(text: string, before: readonly string[] = []): FoundRequest[] {
  const own = ownWords(text.length > MAX_REQUEST_TEXT ? text.slice(0, MAX_REQUEST_TEXT) : text);
  if (own === undefined) return [];
  const lower = unquoted(own.toLowerCase());
  if (LOOK_ONLY.test(lower)) return [];
  const sentences = sentencesOf(lower);
  const out: FoundRequest[] = [];
  sentences.forEach((sentence, s) => {
    if (sentence.question && !sentence.asking) return;
    const words = sentence.words;
    for (let i = 0; i < words.length && out.length < MAX_REQUESTS; i++) {
      let verb = VERBS.get(words[i]);
      let end = words.length;
      if (!verb && words[i] === BRING) {
        const back = words.findIndex((w, j) => j > i && j <= i + 6 && BACK_UP.has(w));
        if (back === -1) continue;
        verb = "start";
        end = back;
      }
      if (!verb || !asked(words, i)) continue;
      const items = objectOf(words, i + 1, end);
      if (items === undefined) continue;
      // No object ("start on the logs", "bring up the journal"): no request, unless the action ends
      // its sentence ("the mailer is stuck, restart."), where it is said of what the sentence named.
      if (items.length === 0 && (end < words.length || words.slice(i + 1).some((w) => !FILLER.has(w) && !BARE_END.has(w)))) continue;
      const object = items.flat();
      const kinds = new Set<ServiceKind>();
      for (const w of object) if (KIND_NOUNS.has(w)) kinds.add(KIND_NOUNS.get(w) as ServiceKind);
      // Each item is one name: "the postgres exporter container" is postgres-exporter, not postgres.
      let names = items.flatMap((item) => {
        const words = item.filter((w) => !KIND_NOUNS.has(w) && !PRONOUNS.has(w) && !DESCRIPTORS.has(w));
        if (words.length <= 1) return words;
        // "nginx right away" is nginx; "the postgres exporter" is postgres-exporter, never postgres.
        const named = words.filter((w) => !COMMON.has(w));
        return [words.join("-"), ...(named.length > 0 && named.length < words.length ? [named.join("-")] : [])];
      });
      const refers = names.length === 0;
      let around = clauseOf(words, i);
      if (refers) {
        // The sentence before the action, the (up to three) sentences before it, the person's previous message.
        const windows = [
          words.slice(0, i),
          ...sentences
            .slice(Math.max(0, s - 3), s)
            .reverse()
            .map((e) => e.words),
          before,
        ];
        const wanted = [...kinds][0];
        const found = referents(windows, wanted, plural(object));
        if (!found) continue;
        names = found.names;
        for (const kind of found.kinds) kinds.add(kind);
        around = [...found.window, ",", ...around];
      }
      const namespaces = namespacesIn(around);
      out.push({ verb, names: [...new Set(names.flatMap(forms))], kinds: [...kinds], namespaces });
    }
  });
  return out;
}

/** Double-quoted, backticked and fenced text: someone else's words, or a command to read about. */
function unquoted(text: string): string {
  return text
    .replace(/```[\s\S]*?```/g, " . ")
    .replace(/`[^`\n]*`/g, " ")
    .replace(/"[^"\n]*"|\u201c[^\u201d\n]*\u201d/g, " ")
    .replace(/^\s*>.*$/gm, " ");
}

function tokens(text: string): string[] {
  const out: string[] = [];
  for (const t of text.match(TOKEN) ?? []) {
    if (t.trim() === "-" || t === "\u2014" || t === "\u2013") out.push("-");
    // "nginx's down": the name, then "is".
    else if (/^[a-z0-9].*['\u2019]s$/.test(t)) out.push(t.slice(0, -2), "is");
    else out.push(t);
  }
  return out;
}

function sentencesOf(text: string): Sentence[] {
  const out: Sentence[] = [];
  // A sentence ends at . ! ? or ; before a space or the end (not inside php8.2-fpm), and at a line break.
  for (const m of text.split(/(?<=[.!?;])(?=\s|$)|\n/)) {
    const body = m.trim();
    if (!body) continue;
    const words = tokens(body);
    if (words.length === 0) continue;
    out.push({ words, question: /\?\s*$/.test(body), asking: ASKING.test(body) });
  }
  return out;
}

/** The action at `at` is asked for: no negation before it in the sentence, no condition, question or reported speech in its clause. */
function asked(words: readonly string[], at: number): boolean {
  let sameClause = true;
  for (let j = at - 1; j >= 0 && j >= at - 8; j--) {
    const w = words[j];
    if (w === "," || w === "-" || w === "(" || w === ")") {
      sameClause = false;
      continue;
    }
    if (NEGATIONS.has(w)) return false;
    if (!sameClause) continue;
    if (w === "and" || w === "then" || w === "so" || w === "please" || w === "pls") {
      sameClause = false;
      continue;
    }
    if (NEGATED.test(w)) return false;
    // "can you restart it?" is asked; "you should restart it" and "what if I restart it" are not.
    if (NOT_ASKED.has(w)) return false;
  }
  return true;
}

/** The object after an action, as its items: up to three words each, more joined by "and" or commas while each ends the list. */
function objectOf(words: readonly string[], from: number, to: number): string[][] | undefined {
  let j = from;
  while (j < to && FILLER.has(words[j])) j++;
  if (j < to && NOT_AN_OBJECT.has(words[j])) return undefined;
  const out: string[][] = [[]];
  let item = 0;
  for (; j < to; j++) {
    const w = words[j];
    if (w === "and" || w === ",") {
      // Another item only when it is a name that ends the list ("nginx and php-fpm", "api, worker and cron").
      const next = words[j + 1];
      const after = words[j + 2];
      if (next === undefined || OBJECT_END.has(next) || COMMON.has(next)) break;
      if (after !== undefined && after !== "and" && after !== "," && !OBJECT_END.has(after) && !KIND_NOUNS.has(after)) break;
      item = 0;
      out.push([]);
      continue;
    }
    if (OBJECT_END.has(w) || w.startsWith("-")) break;
    if (FILLER.has(w)) continue;
    if (item >= 3) break;
    out[out.length - 1].push(w);
    item++;
  }
  return out.filter((i) => i.length > 0);
}

function plural(object: readonly string[]): boolean {
  return object.some((w) => w === "them" || w === "both" || w === "all" || w === "these" || w === "those" || w.endsWith("s"));
}

/**
 * What a pronoun or a generic object stands for, looking in each window in turn (the sentence before
 * it, the sentences before that, the person's previous message): a name said with a kind noun ("the
 * fraud-scorer deployment ... restart the deployment", of the kind the object says if it says one),
 * else a name said to be in trouble ("nginx is throwing 502s", "minio went down"), else the only name
 * there is. Never a name
 * after a preposition ("talks to postgresql"), or in a clause that clears or negates it
 * ("postgresql isn't the problem", "postgresql is up", "the database is perfectly fine"), or one of
 * the host's own daemons. All of them for "them" and "both"; for "it", two different names in the
 * window that decides are no answer (the owner is asked). Undefined when no window names one.
 */
function referents(
  windows: readonly (readonly string[])[],
  wanted: ServiceKind | undefined,
  many: boolean,
): { names: string[]; kinds: ServiceKind[]; window: readonly string[] } | undefined {
  const passes: ((words: readonly string[], j: number) => boolean)[] = [
    (words, j) => {
      // "the fraud-scorer deployment", "the service keycloak".
      const kind = KIND_NOUNS.get(words[j + 1] ?? "") ?? KIND_NOUNS.get(words[j - 1] ?? "");
      return kind !== undefined && (wanted === undefined || kind === wanted);
    },
    (words, j) => inTrouble(words, j),
  ];
  const only = (words: readonly string[], j: number) => candidates(words).every((k) => words[k] === words[j]);
  // The action's own sentence decides first; then the message's earlier sentences (a name said so,
  // then the only name one holds); the person's previous message last.
  const [own, ...rest] = windows;
  const previous = rest.length > 0 ? rest[rest.length - 1] : [];
  const earlier = rest.slice(0, -1);
  const order = [
    ...[...passes, only].map((pass) => ({ window: own, pass })),
    ...earlier.flatMap((window) => passes.map((pass) => ({ window, pass }))),
    ...earlier.map((window) => ({ window, pass: only })),
    ...[...passes, only].map((pass) => ({ window: previous, pass })),
  ];
  for (const { window, pass } of order) {
    const found = candidates(window).filter((j) => pass(window, j));
    if (found.length === 0) continue;
    const distinct = [...new Set(found.map((j) => window[j]))];
    if (!many && distinct.length > 1) return undefined;
    const kinds = found.map((j) => KIND_NOUNS.get(window[j + 1] ?? "") ?? KIND_NOUNS.get(window[j - 1] ?? "")).filter((k): k is ServiceKind => k !== undefined);
    return { names: distinct, kinds, window };
  }
  return undefined;
}

/** The positions of the names a window holds that a pronoun may stand for. */
function candidates(words: readonly string[]): number[] {
  const out: number[] = [];
  let from = 0;
  for (let j = 0; j <= words.length; j++) {
    if (j < words.length && !CLAUSE_MARK.has(words[j])) continue;
    const clause = words.slice(from, j);
    if (!clears(clause)) {
      for (let k = 0; k < clause.length; k++) {
        if (nameLike(clause[k]) && !afterPreposition(clause, k)) out.push(from + k);
      }
    }
    from = j + 1;
  }
  return out;
}

/** A clause that negates, clears or calls well what it names ("isn't the problem", "is up", "perfectly fine"). */
function clears(clause: readonly string[]): boolean {
  return clause.some((w, k) => NEGATIONS.has(w) || WELL.has(w) || CLEARED.has(w) || (NEGATED.test(w) && !TROUBLE_PARTICIPLES.has(clause[k + 1] ?? "")));
}

/** A name said to be in trouble: "nginx crashed", "nginx is down", "nginx keeps returning 502s", "nginx won't start". */
function inTrouble(words: readonly string[], j: number): boolean {
  const next = words[j + 1] ?? "";
  if (TROUBLE.has(next)) return true;
  if (next === "is" || next === "was" || next === "has") return TROUBLE_STATE.has(words[j + 2] ?? "") || TROUBLE_STATE.has(words[j + 3] ?? "");
  if (SAYS_HOW.has(next)) return TROUBLE_STATE.has(words[j + 2] ?? "") || TROUBLE_STATE.has(words[j + 3] ?? "");
  return false;
}

/** Words after a name that say it is in trouble. */
const TROUBLE = new Set("stopped crashed crashes died dies failed fails hangs hung refuses refused won't wont isn't isnt can't cant doesn't doesnt".split(" "));
/** Verbs after a name that say how it is doing only with a word of trouble after them ("keeps crashing", not "keeps its data"). */
const SAYS_HOW = new Set(
  "keeps kept seems seem looks look went goes throws throwing returns returning eats eating leaks leaking times timed got gets".split(" "),
);
/** After "is": a state of trouble ("nginx is down", "the api is hanging"). */
const TROUBLE_STATE = new Set(
  "down stuck hanging hung broken dead slow failing failed crashing crashed stopped wedged unhealthy unresponsive unreachable degraded overloaded erroring throwing returning eating leaking timing flapping gone restarting dying out away off oom errors error 5xx 4xx 500 502 503 504 500s 502s 503s 504s memory cpu".split(
    " ",
  ),
);
/** After a n't word: what the service fails to do ("won't start", "isn't responding"), which is trouble, not clearing. */
const TROUBLE_PARTICIPLES = new Set(
  "start starting respond responding work working run running answer answering load loading serve serving boot booting accept accepting come connect connecting reachable up".split(
    " ",
  ),
);
/** Words that clear a name ("postgresql is unrelated", "is up", "is running"). */
const CLEARED = new Set(["unrelated", "up", "running", "working", "fine", "innocent", "unaffected", "irrelevant"]);
/** "with" is left out: "what's going on with the search-indexer pods" names the one in trouble. */
const PREPOSITIONS = new Set([
  "to",
  "for",
  "from",
  "of",
  "about",
  "on",
  "at",
  "by",
  "in",
  "inside",
  "into",
  "onto",
  "under",
  "near",
  "beside",
  "past",
  "within",
  "via",
  "than",
  "through",
  "against",
  "behind",
]);

/** A name after a preposition, with articles and the like between ("talks to the postgresql service"). */
function afterPreposition(words: readonly string[], at: number): boolean {
  let k = at - 1;
  while (k >= 0 && FILLER.has(words[k])) k--;
  return k >= 0 && PREPOSITIONS.has(words[k]);
}

function nameLike(word: string): boolean {
  return (
    /^[a-z]/.test(word) &&
    word.length >= 2 &&
    !COMMON.has(word) &&
    !FILLER.has(word) &&
    !KIND_NOUNS.has(word) &&
    !PRONOUNS.has(word) &&
    !VERBS.has(word) &&
    !HOST_SERVICES.test(word) &&
    !/^\d+$/.test(word)
  );
}

/** The clause an action sits in: from the comma, dash or parenthesis before it to the one after it. */
function clauseOf(words: readonly string[], at: number): string[] {
  let from = at;
  while (from > 0 && !CLAUSE_MARK.has(words[from - 1])) from--;
  let to = at;
  while (to < words.length && !CLAUSE_MARK.has(words[to]) && words[to] !== "but") to++;
  return words.slice(from, to);
}
const CLAUSE_MARK = new Set([",", "-", "(", ")", "[", "]", "{", "}", "<", ">"]);

/** A namespace no request can name: with two named, or one only excluded, none counts. */
export const NO_NAMESPACE = "\u0000none";

/**
 * Namespaces the clauses of `words` name ("in staging", "the payments namespace", "namespace
 * payments", "-n payments"). A clause that negates or excludes ("not -n prod", "leave the prod
 * namespace alone", "nothing in prod") names none; two names make the request count for none.
 */
function namespacesIn(words: readonly string[]): string[] {
  const out = new Set<string>();
  let clause: string[] = [];
  const flush = () => {
    if (clause.some((w) => NEGATIONS.has(w) || NEGATED.test(w) || EXCLUDING.has(w))) {
      clause = [];
      return;
    }
    for (let j = 0; j < clause.length; j++) {
      if ((clause[j] === "in" || clause[j] === "on") && clause[j + 1]) {
        const k = clause[j + 1] === "the" ? j + 2 : j + 1;
        const ns = clause[k];
        if (ns && (clause[k + 1] === "namespace" || clause[k + 1] === "ns" || ENVIRONMENTS.test(ns))) out.add(ns);
      }
      if ((clause[j] === "namespace" || clause[j] === "ns") && j > 0 && nameLike(clause[j - 1])) out.add(clause[j - 1]);
      if (clause[j] === "namespace" && clause[j + 1] && nameLike(clause[j + 1])) out.add(clause[j + 1]);
      if ((clause[j] === "-n" || clause[j] === "--namespace") && clause[j + 1] && /^[a-z0-9]/.test(clause[j + 1])) out.add(clause[j + 1]);
    }
    clause = [];
  };
  for (const w of words) {
    if (CLAUSE_MARK.has(w) || w === "but") flush();
    else clause.push(w);
  }
  flush();
  return out.size > 1 ? [NO_NAMESPACE] : [...out];
}
const ENVIRONMENTS = /^(?:prod|production|staging|stage|dev|development|qa|test|testing|preprod|sandbox)$/;
/** Words of a clause that keep a namespace out ("leave prod alone", "stay out of production", "nothing in prod"). */
const EXCLUDING = new Set(["except", "nothing", "leave", "alone", "out", "away", "frozen", "untouched"]);

/** A word, and for a workload written with its kind (deploy/api) or a unit (api.service), the name alone. */
function forms(word: string): string[] {
  const out = [word];
  const slash = word.lastIndexOf("/");
  if (slash !== -1) out.push(word.slice(slash + 1));
  if (word.endsWith(".service")) out.push(word.slice(0, -".service".length));
  return out;
}

/** The requests of each session's latest person's message. */
export class ActionRequests {
  private readonly sessions = new Map<string, { requests: ActionRequest[]; words: string[]; level: TrustLevel }>();
  private readonly max: number;

  constructor(maxSessions = MAX_REQUEST_SESSIONS) {
    this.max = maxSessions;
  }

  /**
   * Notes what a person's message at `level` asks for; it replaces what the session's earlier
   * messages asked for (a request lasts for its turn). The same message noted twice (the channel's
   * hook and the turn's) is read once.
   */
  note(sessionKey: string, text: string, level: TrustLevel, label: string): void {
    const earlier = this.sessions.get(sessionKey);
    const words = wordsOf(text).slice(0, MAX_WORDS_KEPT);
    if (earlier && earlier.level === level && earlier.words.join(" ") === words.join(" ")) return;
    const before = earlier && earlier.level === level ? earlier.words : [];
    const requests = requestsIn(text, before).map((r) => ({ ...r, level, label }));
    this.sessions.delete(sessionKey);
    if (this.sessions.size >= this.max) {
      const oldest = this.sessions.keys().next().value;
      if (oldest !== undefined) this.sessions.delete(oldest);
    }
    this.sessions.set(sessionKey, { requests, words, level });
  }

  of(sessionKey: string): readonly ActionRequest[] {
    return this.sessions.get(sessionKey)?.requests ?? [];
  }

  forget(sessionKey: string): void {
    this.sessions.delete(sessionKey);
  }
}
