import { describe, expect, it } from "vitest";
import { holdsSecret, paramsHash, paramsPreview, PREVIEW_LIMIT, redactString, redactValue } from "../../src/audit/redact.ts";

describe("redaction", () => {
  it.each([
    ["a provider API key", "key sk-abcdefghijklmnop1234 here"],
    ["a GitHub token", "ghp_abcdefghijklmnopqrstuvwx"],
    ["a Slack token", "xoxb-1234567890-abc"],
    ["an AWS access key id", "AKIAABCDEFGHIJKLMNOP"],
    ["a JWT", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklmnopqrstuv"],
    ["a bearer header", "Authorization: Bearer abcdefghijklmnop"],
    ["a private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----"],
    ["a payment provider key", "STRIPE=sk_live_51Pq2RsT4uVwXyZ0aBcDeFg"],
    ["an npm token", "//registry.example.org/:_authToken=npm_Qx7Lm2Rt9Vw4Kz8Np1Bc6Hd3Fj5Gs0Ay12"],
    ["a GitLab token", "glpat-abcdefghij0123456789"],
    ["a SendGrid key", "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"],
    ["a Telegram bot token", "bot 123456789:AAH4fE9xQ2kLmN0pQrStUvWxYz12345678"],
    ["a password setting", "DB_PASSWORD=Q7v!rT2x9LpWm4"],
    ["a JSON api key", '{"apiKey": "7Yt5Rw3Qe1Zx9Cv2Bn4"}'],
    ["a long hex secret", `${"a".repeat(20)}0123456789abcdef0123456789abcdef`],
    ["a long base64 blob", "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2"],
  ])("removes %s", (_label, text) => {
    const out = redactString(text);
    expect(out).toContain("[redacted]");
    expect(out).not.toBe(text);
  });

  it("hides a secret-named setting's value from logs, which alone does not make a URL carry a secret", () => {
    expect(redactString("DB_PASSWORD=Q7v!rT2x9LpWm4 LOG_LEVEL=debug")).toBe("DB_PASSWORD=[redacted] LOG_LEVEL=debug");
    expect(holdsSecret("https://api.example/list?page_token=CAUQAA12xyz", { url: true })).toBe(false);
  });

  it("keeps the user of a URL and removes its password", () => {
    expect(redactString("https://alice:hunter2@example.com/x")).toBe("https://alice:[redacted]@example.com/x");
  });

  it("leaves long paths and names alone: a block reason must show the path it is about", () => {
    for (const text of [
      "/tmp/clawos-tests-HIPN3o/clawos-e2e-qH72X8/home/.openclaw/workspace/summaries-sc25/news.md",
      "/home/someone/projects/acme/services/billing/reports/quarterly/summary",
      "src/components/very_long_component_directory_name_for_the_dashboard/Button.tsx",
    ]) {
      expect(redactString(text)).toBe(text);
    }
    // Encoded bytes with a slash are still a blob.
    expect(redactString("token QUJDREVGR0hJSktMTU5PUFFSU1RV/VldYWVphYmNkZWZnaGlqa2xtbm9wcXJz9")).toContain("[redacted]");
  });

  it("tells whether a string holds a secret-looking value; a URL's commit ids and long paths are not", () => {
    for (const options of [{}, { url: true }]) {
      expect(holdsSecret("https://x.example/?k=sk-live-4f9a8b7c6d5e4f3a2b1c0d9e", options)).toBe(true);
      expect(holdsSecret("https://user:hunter22@x.example/", options)).toBe(true);
      expect(holdsSecret(`https://x.example/c?d=${"QmFzZTY0IGVuY29kZWQgZGF0YSBmcm9tIGEgZmlsZQ".repeat(2)}`, options)).toBe(true);
    }
    const commit = "https://git.example/o/r/commit/4f1c2b9a8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b";
    expect(holdsSecret(commit)).toBe(true);
    expect(holdsSecret(commit, { url: true })).toBe(false);
    const path = "https://docs.example/document/d/1AbCdEf/revisions/Chapter7/Section2/Figures";
    expect(holdsSecret(path)).toBe(true);
    expect(holdsSecret(path, { url: true })).toBe(false);
  });

  it("finds a key a URL splits over its path segments, query values or query names", () => {
    const url = { url: true };
    expect(holdsSecret("https://blog.example/sk-ant/api03/abcdefghij/klmnopqrst/uvwxyz0123/456789", url)).toBe(true);
    expect(holdsSecret("https://blog.example/c?a=AKIA&b=IOSFODNN7EXAMPLE", url)).toBe(true);
    expect(holdsSecret("https://blog.example/c?AKIA=1&IOSFODNN7EXAMPLE=2", url)).toBe(true);
    expect(holdsSecret("https://blog.example/c?a=AKIA&b=IOSFODNN7EXAMPLE&c=wJalrXUtnFEMI&d=K7MDENG", url)).toBe(true);
    expect(holdsSecret("https://blog.example/x/gh/p_abcdefghij/klmnopqrstuvwxyz", url)).toBe(true);
    expect(holdsSecret("https://blog.example/x/gh%2Fp_abcdefghij%2Fklmnopqrstuvwxyz", url)).toBe(true);
    // Escaped within one value; split after many path segments; a URL of too many parts to read.
    expect(holdsSecret("https://blog.example/v?key=sk%2Dproj%2DAbCdEfGhIjKlMnOpQrStUvWx", url)).toBe(true);
    expect(holdsSecret(`https://blog.example/${"seg/".repeat(14)}c?a=sk-proj-7Hq2&b=AbCdEfGhIjKlMnOpQrStUvWx`, url)).toBe(true);
    expect(holdsSecret(`https://blog.example/${"a/".repeat(300)}`, url)).toBe(true);
    // Ordinary long URLs joined up are runs of words, not keys.
    for (const plain of [
      "https://docs.github.example/en/webhooks/using-webhooks/validating-webhook-deliveries",
      "https://github.example/nodejs/node/blob/v22.11.0/lib/internal/abort_controller.js",
      "https://maps.example/place/Rijksmuseum/@52.3599976,4.8852188,17z/data=!3m1!4b1",
      "https://shop.example.de/dp/B0DX6XM6?tag=abc&ref=sr_1_1",
    ]) {
      expect(holdsSecret(plain, url), plain).toBe(false);
    }
  });

  it("a string is scanned again until it was found to hold no secret: a kept clean string never hides one", () => {
    const secret = "deploy with sk-abcdefghijklmnop1234 now";
    expect(redactString(secret)).not.toContain("sk-abcdefghijklmnop1234");
    expect(redactString(secret)).not.toContain("sk-abcdefghijklmnop1234");
    const clean = "npm test -- src/http";
    expect(redactString(clean)).toBe(clean);
    expect(redactString(clean)).toBe(clean);
    // Many other clean strings push the kept ones out; the answers stay the same.
    for (let i = 0; i < 3000; i++) expect(redactString(`git log -n ${i} --oneline`)).toBe(`git log -n ${i} --oneline`);
    expect(redactString(`${clean} sk-abcdefghijklmnop1234`)).toBe(`${clean} [redacted]`);
  });

  it("leaves ordinary text alone", () => {
    for (const text of ["", "ls -la", "notes/2026-11-22.md", "send the report to bob@example.com"]) expect(redactString(text)).toBe(text);
  });

  it("hides values under secret-looking keys at any depth", () => {
    expect(redactValue({ a: { password: "p", apiKey: "k", Cookie: "c", nested: { private_key: "x", ok: 1 } } })).toEqual({
      a: { password: "[redacted]", apiKey: "[redacted]", Cookie: "[redacted]", nested: { private_key: "[redacted]", ok: 1 } },
    });
  });

  it("bounds depth, keys, string length and cycles", () => {
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 10; i++) deep = { d: deep };
    expect(JSON.stringify(redactValue(deep))).toContain("[nested]");
    const wide = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, i]));
    expect(redactValue(wide)).toMatchObject({ "...": "60 more keys" });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(redactValue(cyclic)).toEqual({ self: "[cycle]" });
    expect(paramsPreview({ text: "x".repeat(5000) }).length).toBeLessThanOrEqual(PREVIEW_LIMIT + 3);
  });

  it("hashes parameters stably whatever the key order, and tells different ones apart", () => {
    expect(paramsHash({ a: 1, b: [1, 2] })).toBe(paramsHash({ b: [1, 2], a: 1 }));
    expect(paramsHash({ a: 1 })).not.toBe(paramsHash({ a: 2 }));
    expect(paramsHash({ a: "1" })).not.toBe(paramsHash({ a: 1 }));
    expect(paramsHash({ a: 1 })).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe("redaction of shared objects", () => {
  it("an object referenced twice without a loop is shown twice, not as a cycle", () => {
    const shared = { path: "a.md" };
    expect(redactValue({ first: shared, second: shared })).toEqual({ first: { path: "a.md" }, second: { path: "a.md" } });
  });
});
