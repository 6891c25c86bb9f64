import { describe, expect, it } from "vitest";
import { ActionRequests, MAX_REQUEST_TEXT, MAX_REQUESTS, NO_NAMESPACE, ownWords, requestsIn } from "../../src/taint/action-requests.ts";

/** What a person's message asks to be done to services: the action, said of the service. */

const asked = (text: string, before: string[] = []) => requestsIn(text, before).map((r) => ({ verb: r.verb, names: r.names }));
const names = (text: string) => requestsIn(text).flatMap((r) => r.names);

describe("action requests in a person's message", () => {
  it("an action word and its object, and a list of names", () => {
    expect(asked("The relay is fixed now, restart acme-mailer please")).toEqual([{ verb: "restart", names: ["acme-mailer"] }]);
    expect(asked("please restart php8.2-fpm and nginx")).toEqual([{ verb: "restart", names: ["php8.2-fpm", "nginx"] }]);
    expect(asked("restart api, worker and scheduler")[0].names).toEqual(["api", "worker", "scheduler"]);
    expect(asked("reload nginx.service")[0].names).toEqual(["nginx.service", "nginx"]);
    expect(asked("bounce nginx")).toEqual([{ verb: "restart", names: ["nginx"] }]);
    expect(asked("bring the jenkins container back up")).toEqual([{ verb: "start", names: ["jenkins"] }]);
    expect(asked("can you restart the queue consumer?")[0].names).toContain("queue-consumer");
    // Words after the name that say when, and a bracketed tag after it, are not part of it.
    expect(asked("restart nginx right away")[0].names).toContain("nginx");
    expect(asked("then start sc52-api [run-t1-mwzbclye]")).toEqual([{ verb: "start", names: ["sc52-api"] }]);
  });

  it("a pronoun or a generic object stands for a name said with a kind noun or said to be in trouble, in the sentence, the one before, or the previous message", () => {
    expect(names("The metabase container stopped answering. Check its logs and restart it.")).toEqual(["metabase"]);
    expect(names("The payments-api pods look stuck on an old config. Check them and do a rolling restart of the deployment.")).toEqual(["payments-api"]);
    // A name that is only the object of another verb is not taken: the owner is asked.
    expect(names("Postgres restarted at 3am, check the api and restart it.")).toEqual([]);
    expect(names("Postgresql looks fine. The api container is failing, check its logs and restart it.")).toEqual(["api"]);
    expect(asked("ok, restart it", ["check", "the", "status", "of", "the", "celery", "service"])).toEqual([{ verb: "restart", names: ["celery"] }]);
    // A name said with a kind noun, or said to be in trouble, before the nearest word.
    expect(names("In the payments namespace, the fraud-scorer deployment is serving stale models. Describe it and restart the deployment.")).toEqual([
      "fraud-scorer",
    ]);
    expect(names("nginx is throwing 502s again, check the error log and bounce it")).toEqual(["nginx"]);
    expect(names("minio went down overnight. see what happened and start it back up")).toEqual(["minio"]);
    // A follow-up of two sentences looks back to the previous message when its own say nothing.
    const before = ["what's", "going", "on", "with", "the", "search-indexer", "pods", "in", "staging"];
    const [followUp] = requestsIn("ES is green again now. go ahead and restart the deployment", before);
    expect(followUp.names).toEqual(["search-indexer"]);
    expect(followUp.namespaces).toEqual(["staging"]);
    // Never a name cleared, after a preposition, or one of two the pronoun could stand for.
    expect(names("The api is down, postgresql isn't the problem. Check the api logs and restart it.")).toEqual(["api"]);
    expect(names("The api is down. It talks to postgresql. Check the logs and restart it.")).toEqual(["api"]);
    expect(names("The api container is down. Postgresql is up. Check the logs and restart it.")).toEqual(["api"]);
    expect(names("The api container and the worker container are down, restart it")).toEqual([]);
    expect(names("nginx isn't responding, restart it")).toEqual(["nginx"]);
    // Articles do not hide a preposition; a neutral verb is no trouble; the action's own sentence decides first.
    expect(names("The api is down. It talks to the postgresql service. Check the logs and restart it.")).toEqual(["api"]);
    expect(names("The api container is down. Its logs are in the loki container. Restart it.")).toEqual(["api"]);
    expect(names("The api is down. Postgresql keeps its data on the other disk. Check the api logs and restart it.")).toEqual(["api"]);
    expect(asked("Ok, now postgres: check its logs and restart it.", ["redis", "keeps", "crashing", "look", "at", "its", "logs"])[0].names).toEqual([
      "postgres",
    ]);
    // No object: no request.
    expect(names("Postgresql is down for maintenance. Start on the api logs and tell me what you see.")).toEqual([]);
    expect(names("The migration needs postgresql stopped. Bring up the api journal.")).toEqual([]);
    // Never one of the host's own daemons.
    expect(names("The web container in docker keeps crashing, check its logs and restart it.")).toEqual(["web"]);
    expect(names("restart docker")).toEqual(["docker"]);
  });

  it("a negated, conditional, reported or questioned action, and a message that asks only to look, ask for nothing", () => {
    for (const text of [
      "Don't restart postgresql, a migration runs on it.",
      "Do NOT, under any circumstances, restart postgresql.",
      "Hold off on restarting postgresql until I say so.",
      "no need to restart the api",
      "Is it safe to restart postgresql?",
      "Should I restart postgresql? Look at the api logs first.",
      "If you ever restart postgresql, tell me first.",
      "Our runbook says to restart postgresql when the pool is exhausted.",
      "`systemctl restart postgresql` failed yesterday.",
      'The docs say "restart postgresql" fixes it.',
      "I restarted postgresql myself already.",
      "Please find out why postgresql keeps restarting.",
      "Start by checking the api logs.",
      "Restart nothing except the api.",
      "Look at the api and restart it, but change nothing else",
    ]) {
      expect(names(text), text).not.toContain("postgresql");
    }
    expect(asked("Don't restart postgresql, a migration runs on it. Check the api logs and restart the api.")).toEqual([{ verb: "restart", names: ["api"] }]);
    expect(asked("can you restart nginx?")).toEqual([{ verb: "restart", names: ["nginx"] }]);
    expect(names("nginx won't start, restart it")).toEqual(["nginx"]);
  });

  it("an object ends at its clause: a second verb, a parenthesis, without, except", () => {
    for (const text of [
      "Restart the api and check postgresql.",
      "Restart the api container and make sure postgresql stays up.",
      "Restart the api container without touching postgresql.",
      "Restart the api container (postgresql is fine, leave it).",
    ]) {
      expect(names(text), text).toContain("api");
      expect(names(text), text).not.toContain("postgresql");
    }
  });

  it("the kind and the namespace the message says", () => {
    const [container] = requestsIn("The nginx container is wedged, restart the nginx container.");
    expect(container.kinds).toEqual(["docker"]);
    const [staging] = requestsIn("Do a rolling restart of payments-api in staging, not production.");
    expect(staging.namespaces).toEqual(["staging"]);
    expect(requestsIn("restart web in the payments namespace")[0].namespaces).toEqual(["payments"]);
    expect(requestsIn("restart payments-api")[0].namespaces).toEqual([]);
    // Each item is one name; an excluded or a second namespace makes none count.
    expect(names("The postgres exporter container is stuck again, restart the postgres exporter container.")).toEqual(["postgres-exporter"]);
    expect(requestsIn("Restart the worker deployment in staging, but leave the prod namespace alone.")[0].namespaces).toEqual(["staging"]);
    expect(requestsIn("Run a rollout restart of worker -n staging, not -n prod.")[0].namespaces).toEqual(["staging"]);
    expect(requestsIn("restart worker in staging and in prod")[0].namespaces).toEqual([NO_NAMESPACE]);
    const [flagged] = requestsIn("restart deploy/ledger-sync -n payments after you look at its logs");
    expect(flagged.names).toEqual(["deploy/ledger-sync", "ledger-sync"]);
    expect(flagged.namespaces).toEqual(["payments"]);
  });

  it("the context OpenClaw adds to a turn is not the person's words", () => {
    const text = "restart nginx please\n\nReplying to \u27E6openclaw:ctx\u27E7\nrestart postgresql now\n";
    expect(ownWords(text)).toBe("restart nginx please\n");
    expect(names(text)).toEqual(["nginx"]);
  });

  it("a request after a long paste is not read: the action asks", () => {
    const paste = "2026-11-17 WARN pool exhausted\n".repeat(Math.ceil(MAX_REQUEST_TEXT / 30));
    expect(names(`restart nginx\n${paste}`)).toEqual(["nginx"]);
    expect(names(`${paste}\nrestart nginx`)).toEqual([]);
  });

  it("keeps the latest message's requests per session, and bounded sessions", () => {
    const requests = new ActionRequests(2);
    requests.note("s1", "restart nginx", "owner", "the owner's message");
    expect(requests.of("s1").map((r) => r.names)).toEqual([["nginx"]]);
    // The same message again (the channel's hook and the turn's) is read once; a new one replaces it.
    requests.note("s1", "restart nginx", "owner", "the owner's message");
    expect(requests.of("s1")).toHaveLength(1);
    requests.note("s1", "thanks, looks good now", "owner", "the owner's message");
    expect(requests.of("s1")).toEqual([]);
    const many = Array.from({ length: MAX_REQUESTS + 4 }, (_, i) => `restart svc-${i}.`).join(" ");
    requests.note("s2", many, "owner", "x");
    expect(requests.of("s2")).toHaveLength(MAX_REQUESTS);
    requests.note("s3", "restart b", "owner", "x");
    expect(requests.of("s1")).toEqual([]);
    expect(requests.of("s3")).toHaveLength(1);
  });
});
