import { describe, expect, it } from "vitest";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { auditStateDir } from "../../src/host/runtime.ts";

describe("runtime paths", () => {
  it("keeps the audit log in the operator's state directory when agent exec runs on a temporary one", () => {
    const env = { OPENCLAW_HOME: "/srv/claw" } as NodeJS.ProcessEnv;
    expect(auditStateDir(join(tmpdir(), "openclaw-agent-exec-AbC123"), env)).toBe("/srv/claw/.openclaw");
    expect(auditStateDir("/srv/claw/.openclaw", env)).toBe("/srv/claw/.openclaw");
    // A state directory the operator chose is used as it is, whatever its name.
    expect(auditStateDir("/data/openclaw-agent-exec-mine", env)).toBe("/data/openclaw-agent-exec-mine");
  });
});
