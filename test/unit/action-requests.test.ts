import { describe, expect, it } from "vitest";
import { ActionRequests, MAX_REQUESTS, requestsIn } from "../../src/taint/action-requests.ts";

/** What a person's message asks to be done to services: the action and what it is said of. */

const asked = (text: string) => requestsIn(text).map((r) => ({ verb: r.verb, names: r.names }));

describe("action requests in a person's message", () => {
  it("an action word and its object; a pronoun or a generic object stands for what was named before it", () => {
    expect(asked("The relay is fixed now, restart acme-mailer please")).toEqual([{ verb: "restart", names: ["acme-mailer"] }]);
    expect(asked("restart nginx and php-fpm")).toEqual([{ verb: "restart", names: ["nginx", "php-fpm"] }]);
    expect(asked("reload nginx.service")[0].names).toEqual(["nginx.service", "nginx"]);
    expect(asked("roll deploy/payments-api, then restart deploy/payments-api")[0].names).toContain("payments-api");
    const pronoun = asked("The metabase container stopped answering. Check its logs and restart it.");
    expect(pronoun).toHaveLength(1);
    expect(pronoun[0].names).toContain("metabase");
    expect(asked("The payments-api pods look stuck. Do a rolling restart of the deployment.")[0].names).toContain("payments-api");
  });

  it("a negated action, an action that is not said of anything, and a message that asks only to look ask for nothing", () => {
    expect(asked("Don't restart postgresql, a migration runs on it.")).toEqual([]);
    expect(asked("no need to restart the api")).toEqual([]);
    expect(asked("nginx won't start, restart it")).toEqual([{ verb: "restart", names: expect.arrayContaining(["nginx"]) }]);
    expect(asked("Start by checking the api logs.")).toEqual([]);
    expect(asked("Look at the api and restart it, but change nothing else")).toEqual([]);
    expect(asked("Show me the nginx errors, read-only please, then restart it")).toEqual([]);
    // Another sentence's object is not this action's.
    expect(asked("The api can't reach postgresql. Restart the api.")).toEqual([{ verb: "restart", names: ["api"] }]);
  });

  it("a pronoun never stands for the host's own daemons", () => {
    const names = asked("The web container in docker keeps crashing, check its logs and restart it.")[0].names;
    expect(names).toContain("web");
    expect(names).not.toContain("docker");
    expect(asked("restart docker")[0].names).toEqual(["docker"]);
  });

  it("a namespace may be named anywhere around the action, also as part of a name", () => {
    const [request] = requestsIn("The payments-api pods look stuck on an old config. Check them and do a rolling restart of the deployment.");
    expect(request.context).toEqual(expect.arrayContaining(["payments-api", "payments"]));
  });

  it("keeps the latest requests per session, and bounded sessions", () => {
    const requests = new ActionRequests(2);
    for (let i = 0; i < MAX_REQUESTS + 4; i++) requests.note("s1", `restart svc-${i}`, "owner", "the owner's message");
    expect(requests.of("s1")).toHaveLength(MAX_REQUESTS);
    expect(requests.of("s1")[0].names).toEqual(["svc-4"]);
    requests.note("s2", "restart a", "owner", "x");
    requests.note("s3", "restart b", "owner", "x");
    expect(requests.of("s1")).toEqual([]);
    expect(requests.of("s3")).toHaveLength(1);
    requests.note("s4", "what does the api log say?", "owner", "x");
    expect(requests.of("s4")).toEqual([]);
  });
});
