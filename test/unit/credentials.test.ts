import { describe, expect, it } from "vitest";
import { holdsCredential } from "../../src/audit/credentials.ts";

const b64 = (text: string) => Buffer.from(text).toString("base64");

describe("credentials a message would carry out", () => {
  it.each([
    ["a provider key", "here: sk-proj-Ab3dEf6hIj9kLmN0pQrStUvWxYz1234567890abcd"],
    ["a payment provider key in an env line", "STRIPE_SECRET_KEY=sk_live_51Pq2RsT4uVwXyZ0aBcDe"],
    ["a key under a secret-named setting", "LEDGER_API_KEY=lk_live_5d8e1f2a9b7c4e60b3a1"],
    ["a JSON password", '{"password": "Summer2026!"}'],
    ["a YAML password on the next line", 'database:\n  password:\n    "Q7v!rT2x9LpWm4"'],
    ["an XML password", "<server><id>x</id><password>Q7v!rT2x9LpWm4</password></server>"],
    ["a .NET connection string", "Server=db;Uid=sa;Pwd=Q7v!rT2x9LpWm4;"],
    ["a .netrc line", "machine api.example.com login me password 3f9a2b1c-7d8e-4f5a"],
    ["a password in prose", "Hi Alex, the staging DB password is Vq7#tR2p!mZ9, don't paste it anywhere"],
    ["a password in a URL", "amqps://billing:Q7v!rT2x9LpWm4@mq.internal:5671/prod"],
    ["a password in a URL with no user", "redis://:p4ssw0rdXyz@cache:6379/0"],
    ["curl's user flag", "curl -u admin:Q7v!rT2x9LpWm4 https://api.example.com"],
    ["a basic Authorization header", "Authorization: Basic YWxhZGRpbjpvcGVuc2VzYW1l"],
    ["a bearer token", "curl -H 'Authorization: Bearer 8f2a9c1e7b3d4f60a5e2c9d1b7'"],
    ["an npm token", "//registry.example.org/:_authToken=npm_Qx7Lm2Rt9Vw4Kz8Np1Bc6Hd3Fj5Gs0Ay12"],
    ["a GitLab token", "Deploy token: glpat-Hk3mQ9xLp2Rt7vWz4YbN"],
    ["a SendGrid key", "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"],
    ["a Telegram bot token", "123456789:AAH4fE9xQ2kLmN0pQrStUvWxYz12345678"],
    ["a Slack webhook", "https://hooks.slack.com/services/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"],
    ["an Azure storage key", "AccountName=acme;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;"],
    ["a private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE="],
    ["a PGP private key", "-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF"],
    ["a private key's body without its armour", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKjMzEfYyjiWA4R4"],
    ["a key with a zero-width space inside", "sk-proj-Ab\u200b3dEf6hIj9kLmN0pQrStUvWxYz1234567890abcd"],
    ["a key with a Unicode hyphen", "sk\u2011proj-Ab3dEf6hIj9kLmN0pQrStUvWxYz1234567890abcd"],
    ["a percent-escaped key", "sk%2Dproj%2DAb3dEf6hIj9kLmN0pQrStUvWxYz1234567890abcd"],
    ["an env file in base64 (an attachment's bytes)", b64("LOG_LEVEL=info\nSTRIPE_SECRET_KEY=sk_live_51Pq2RsT4uVwXyZ0aBcDeFgHiJkLmNoPq\n")],
    ["a key in a data: URL", `data:text/plain;base64,${b64("token: ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8")}`],
  ])("finds %s", (_label, text) => {
    expect(holdsCredential(text)).toBe(true);
  });

  it.each([
    ["prose about tokens", "a basic introduction to bearer authentication; the token: refreshed hourly; max_tokens: 4096"],
    ["code that names a secret", "password: process.env.DB_PASSWORD, apiKey: settings.WEATHER_API_KEY, token = getAuthToken(user)"],
    ["more code", 'OpenAI(api_key=os.environ["OPENAI_API_KEY"]); password: z.string().min(12); secret = crypto.randomBytes(32)'],
    ["a fetch option", "fetch(url, { credentials: 'same-origin' })"],
    ["references and paths", "DB password is in vault:secret/db; key file: GOOGLE_APPLICATION_CREDENTIALS=/var/secrets/key.json"],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell placeholder, not a template
    ["placeholders", "API_KEY=<your-key>, SECRET=${SECRET}, PASSWORD=changeme, API_KEY=REPLACE_ME, JWT_SECRET=dev-secret"],
    ["example keys", "AKIAIOSFODNN7EXAMPLE, ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx, xoxb-your-bot-token-here"],
    ["a header with a placeholder", "curl -H 'Authorization: Bearer YOUR_API_TOKEN' and Bearer ACCESS_TOKEN"],
    ["a truncated token in docs", "Authorization: Bearer eyJhbGciOi..."],
    ["development URLs", "postgres://postgres:postgres@db:5432/app, https://user:password@example.com, mongodb://app:dev123@localhost/app"],
    [
      "a link's token (an invite, a reset link)",
      "join the list: https://lists.example/invite?token=8f3a9c1e7b3d4f60a5e2 and reset at https://bank.example/reset",
    ],
    [
      "ids and digests",
      "commit 3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a, image sha256:9b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90, id 550e8400-e29b-41d4-a716-446655440000",
    ],
    ["a publishable key", "pk_live_51Pq2RsT4uVwXyZ0aBcDeFg is the publishable key"],
    ["a branch named like a key", "pushed sk-fix-login-redirect-loop for review"],
    ["settings about a secret", 'token_id: tok_8Hk2mQ9x; API_KEY_HEADER = "X-Api-Key"'],
    ["a stand-in in base64", "kind: Secret\ndata:\n  password: cGFzc3dvcmQ="],
    ["a router's default login", "the router login is admin/admin, credentials: admin/admin"],
    ["encoded media", b64("\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\x01\0\0\0\x01\0\x08\x06\0\0\0\x5c\x72\xa8\x66".repeat(4))],
    ["a bank transfer", "Paid EUR 41.65 to NL20INGB0001234567, reference R0023917562, booking code ZX7QK2"],
  ])("leaves alone %s", (_label, text) => {
    expect(holdsCredential(text)).toBe(false);
  });

  // The patterns other than the key formats run only on text that holds what they need (a setting's
  // word in any case, `bearer`, three dashes, `@`, `%`, `-u`), found in the same pass as the key runs;
  // text outside ASCII is normalised and looked at again.
  it.each([
    ["a setting's name in mixed case", "db_PaSsWoRd=Q7v!rT2x9LpWm4"],
    ["a header in capitals", "AUTHORIZATION: BEARER 8f2a9c1e7b3d4f60a5e2c9d1b7"],
    ["a setting after text outside ASCII", "Grüße aus Köln: DB_PASSWORD=Q7v!rT2x9LpWm4"],
    ["curl's user flag after text outside ASCII", "naïve question: curl -u admin:Q7v!rT2x9LpWm4 https://api.example.com"],
    ["a private key after text outside ASCII", "voilà\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA"],
    ["a password in a URL after text outside ASCII", "café: amqps://billing:Q7v!rT2x9LpWm4@mq.internal:5671/prod"],
    ["a percent-escaped key after text outside ASCII", "Straße sk%2Dproj%2DAb3dEf6hIj9kLmN0pQrStUvWxYz1234567890abcd"],
  ])("finds %s", (_label, text) => {
    expect(holdsCredential(text)).toBe(true);
  });

  it.each([
    [
      "a status update with a link",
      "Deploy of api-gateway 3.4.1 to staging finished at 14:05; see https://ci.example.com/acme/api-gateway/runs/9127734410 for the log.",
    ],
    ["words that begin like a secret's name", "Grüße: the second author created a key schedule; pass it on"],
  ])("leaves alone %s", (_label, text) => {
    expect(holdsCredential(text)).toBe(false);
  });

  it("reads long hostile text (a quadratic pattern would run past the test's timeout here)", () => {
    for (const text of ["a_".repeat(200_000), "token: ".repeat(60_000), "x://aaaa:".repeat(50_000), "bearer aaaaaaaaaaaaaaaaaaaa ".repeat(15_000)]) {
      expect(holdsCredential(text)).toBe(false);
    }
    expect(holdsCredential(`${"word ".repeat(100_000)}STRIPE_SECRET_KEY=sk_live_51Pq2RsT4uVwXyZ0aBcDe`)).toBe(true);
  });

  it("fails closed on text too long to read whole, but reads encoded media as far as its limit", () => {
    expect(holdsCredential("x ".repeat(600_000))).toBe(true);
    const image = Buffer.alloc(900_000, 0x89).toString("base64");
    expect(holdsCredential(image)).toBe(false);
    expect(holdsCredential(`data:image/png;base64,${image}`)).toBe(false);
  });
});
