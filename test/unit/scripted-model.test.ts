import { describe, expect, it } from "vitest";
import { lastUserText } from "../../tools/harness/scripted-model.ts";

type Body = Parameters<typeof lastUserText>[0];
const body = (...users: string[]): Body => ({ messages: users.map((content) => ({ role: "user", content })) }) as Body;

describe("the scripted model's view of the user's last message", () => {
  it("skips OpenClaw's own continuation prompts (a retried run, a refreshed plugin runtime) and its internal context", () => {
    const user = "[Sat 2026-11-28 20:27 UTC] HOST-1 go";
    for (const host of [
      "[Sat 2026-11-28 20:27 UTC] Continue the current task from the existing transcript, preserving completed work.",
      "The plugin runtime has been refreshed. Continue the current task from the transcript using the updated tools.",
      "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>> details",
    ]) {
      expect(lastUserText(body(user, host)), host).toBe(user);
    }
    // The user's own words stay theirs, even when they ask to continue.
    expect(lastUserText(body(user, "[Sat 2026-11-28 20:28 UTC] Continue the current task please"))).toContain("please");
  });
});
