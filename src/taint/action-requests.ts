import type { TrustLevel } from "./trust.ts";

/**
 * What a person's message asks to be done to services: "restart acme-mailer please", "check the
 * journal, then start it". A service action below owner (`CommandView.serviceAction`) runs only
 * what such a request names: the action, and the service as what the action is said of. Words
 * elsewhere in the message (a service named as context, "don't restart postgresql", a runbook the
 * session read) ask for nothing.
 *
 * A request keeps the action word and the names it was said of, never the message. In memory only
 * and bounded, like the listed entries: a restart of the gateway forgets them, and the action then
 * asks the owner.
 */
export interface ActionRequest {
  /** The action word, as the program table names it: restart, reload, start. */
  readonly verb: string;
  /** The words the action was said of (its object, or what a pronoun object stood for), lower case. */
  readonly names: readonly string[];
  /** The words of the message's sentences around it: where a namespace or an environment may be named. */
  readonly context: readonly string[];
  readonly level: TrustLevel;
  /** Whose message it was, for the record ("the owner's message"). */
  readonly label: string;
}

/** Requests kept per session, and sessions kept. */
export const MAX_REQUESTS = 16;
export const MAX_REQUEST_SESSIONS = 512;

/** Forms of each action word a person writes. */
const VERBS: ReadonlyMap<string, string> = new Map([
  ["restart", "restart"],
  ["restarts", "restart"],
  ["restarted", "restart"],
  ["restarting", "restart"],
  ["reload", "reload"],
  ["reloads", "reload"],
  ["reloaded", "reload"],
  ["reloading", "reload"],
  ["start", "start"],
  ["starts", "start"],
  ["started", "start"],
  ["starting", "start"],
]);

/** Words before an action that say not to do it ("don't restart", "never reload", "no need to restart"). */
const NEGATIONS = new Set(["not", "no", "never", "don't", "dont", "without", "avoid", "nor", "neither", "instead"]);
/** A word ending in n't ("can't", "won't", "shouldn't") negates too. */
const NEGATED = /n['\u2019]?t$/;

/**
 * Phrases that make the whole message a request to look only: "change nothing", "don't touch
 * anything", "read-only". Such a message asks for no action at all.
 */
const LOOK_ONLY =
  /\b(?:change nothing|touch nothing|do nothing|don['\u2019]?t (?:change|touch|fix|do|modify)|do not (?:change|touch|fix|do|modify)|read[- ]only|only (?:read|look|check)|just (?:read|look|check)|no changes)\b/;

/** Words after an action that do not start its object ("start by checking", "start with the logs"). */
const NOT_AN_OBJECT = new Set(["by", "with", "from", "off", "over", "at", "to", "working", "out"]);

/** Words that stand for something named before ("restart it", "a rolling restart of the deployment"). */
const REFERRING = new Set([
  "it",
  "them",
  "this",
  "that",
  "these",
  "those",
  "both",
  "all",
  "service",
  "services",
  "deployment",
  "deployments",
  "container",
  "containers",
  "pod",
  "pods",
  "app",
  "application",
  "unit",
  "units",
  "daemon",
  "workload",
  "workloads",
  "one",
]);

/** Words that say nothing about which service (articles, fillers). */
const FILLER = new Set([
  "the",
  "a",
  "an",
  "of",
  "its",
  "their",
  "my",
  "our",
  "your",
  "please",
  "now",
  "again",
  "rolling",
  "quick",
  "graceful",
  "then",
  "just",
  "up",
]);

/**
 * Services of the host itself, whose restart stops or cuts off everything else (every container,
 * the node, the owner's own connection): only a request that names them as its object asks for
 * them, never a pronoun ("the web container in docker keeps crashing, restart it" is the container).
 */
const HOST_SERVICES =
  /^(?:docker|dockerd|containerd|podman|kubelet|k3s|k3s-agent|crio|ssh|sshd|dbus|dbus-broker|network|networking|networkmanager|systemd-.*|firewalld|ufw|nftables|iptables|netfilter-persistent|cron|crond|rsyslog|polkit|getty@.*|libvirtd|multipathd|snapd)$/;

/** Clause ends inside a sentence: the object of an action runs to the next one. */
const CLAUSE_END = new Set([",", "but", "then", "if", "when", "after", "before", "because", "once", "so", "until", "unless", "while"]);

const WORD = /[a-z0-9](?:[a-z0-9_.@:/'\u2019-]*[a-z0-9])?|,/g;

/** The requests a message makes, in order. */
export function requestsIn(text: string): { verb: string; names: string[]; context: string[] }[] {
  const lower = text.toLowerCase();
  if (LOOK_ONLY.test(lower)) return [];
  const sentences = lower.split(/[.!?;:]+(?=\s|$)|\n+/).map((s) => s.match(WORD) ?? []);
  const out: { verb: string; names: string[]; context: string[] }[] = [];
  sentences.forEach((words, s) => {
    for (let i = 0; i < words.length; i++) {
      const verb = VERBS.get(words[i]);
      if (!verb) continue;
      if (negated(words, i)) continue;
      const next = words.slice(i + 1).find((w) => !FILLER.has(w));
      if (next !== undefined && NOT_AN_OBJECT.has(next)) continue;
      const object: string[] = [];
      for (let j = i + 1; j < words.length && object.length < 8; j++) {
        if (CLAUSE_END.has(words[j])) break;
        if (!FILLER.has(words[j]) && words[j] !== "and" && words[j] !== "on" && words[j] !== "in") object.push(words[j]);
      }
      const previous = s > 0 ? sentences[s - 1] : [];
      // A namespace or an environment may be named anywhere around it, also as part of a name (payments-api).
      const context = [...previous, ...words].filter((w) => w !== ",").flatMap((w) => [w, ...w.split("-")]);
      const refers = object.length === 0 || REFERRING.has(object[0]);
      // A pronoun object stands for what the sentence, or the one before, named: not a host service.
      const names = refers ? [...object, ...previous, ...words.slice(0, i)].filter((w) => w !== "," && !HOST_SERVICES.test(w)) : object;
      out.push({ verb, names: [...new Set(names.flatMap(forms))], context: [...new Set(context.flatMap(forms))] });
    }
  });
  return out;
}

/** A word, and for a workload written with its kind (deploy/api) or a unit (api.service), the name alone. */
function forms(word: string): string[] {
  const out = [word];
  const slash = word.lastIndexOf("/");
  if (slash !== -1) out.push(word.slice(slash + 1));
  if (word.endsWith(".service")) out.push(word.slice(0, -".service".length));
  return out;
}

/** An action word with a negation among the three words before it, in the same clause. */
function negated(words: readonly string[], at: number): boolean {
  for (let j = at - 1; j >= 0 && j >= at - 3; j--) {
    if (words[j] === ",") return false;
    if (NEGATIONS.has(words[j]) || NEGATED.test(words[j])) return true;
  }
  return false;
}

/** The requests of recent persons' messages, per session. */
export class ActionRequests {
  private readonly sessions = new Map<string, ActionRequest[]>();
  private readonly max: number;

  constructor(maxSessions = MAX_REQUEST_SESSIONS) {
    this.max = maxSessions;
  }

  /** Notes what a person's message at `level` asks for. */
  note(sessionKey: string, text: string, level: TrustLevel, label: string): void {
    const found = requestsIn(text);
    if (found.length === 0) return;
    const list = this.sessions.get(sessionKey) ?? [];
    this.sessions.delete(sessionKey);
    if (this.sessions.size >= this.max) {
      const oldest = this.sessions.keys().next().value;
      if (oldest !== undefined) this.sessions.delete(oldest);
    }
    for (const request of found) list.push({ ...request, level, label });
    while (list.length > MAX_REQUESTS) list.shift();
    this.sessions.set(sessionKey, list);
  }

  of(sessionKey: string): readonly ActionRequest[] {
    return this.sessions.get(sessionKey) ?? [];
  }

  forget(sessionKey: string): void {
    this.sessions.delete(sessionKey);
  }
}
