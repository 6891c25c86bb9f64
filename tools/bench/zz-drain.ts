import { AuditLog, decisionLine } from "../../src/audit/audit-log.ts";
import { paramsHash, paramsPreview } from "../../src/audit/redact.ts";
import { mkdtempSync } from "node:fs"; import { tmpdir } from "node:os"; import { join } from "node:path";
const dir = mkdtempSync(join(tmpdir(), "zz-"));
const log = new AuditLog({ file: join(dir, "a.jsonl"), recent: 200 });
const decision: any = { outcome: "allow", effect: "allow", mode: "enforce", tool: "read", requestedTool: "read", capabilities: ["fs:read"], inputTrust: "owner", manifested: true, rules: [], trustLimited: false };
const taint = [{ level: "untrusted", kind: "tool", label: "the result of web_fetch", tool: "web_fetch", callId: "c1", at: Date.now() }];
const ctx = (i: number) => ({ agentId: "main", sessionKey: "agent:main:s" + i, toolCallId: "call_" + i, params: { path: "notes/a" + i + ".md", limit: 200 }, taint, isSubagent: false });
const N = 200000;
function time(name: string, f: (i: number) => void) { const t = process.hrtime.bigint(); for (let i = 0; i < N; i++) f(i); console.log(name.padEnd(20), (Number(process.hrtime.bigint() - t) / N / 1000).toFixed(2), "us"); }
time("paramsHash", (i) => paramsHash(ctx(i).params));
time("paramsPreview", (i) => paramsPreview(ctx(i).params));
time("decisionLine", (i) => decisionLine({ at: Date.now(), decision, context: ctx(i) }));
time("JSON.stringify line", (i) => JSON.stringify(decisionLine({ at: Date.now(), decision, context: ctx(i) })));
time("record+flush", (i) => { log.recordDecision(decision, ctx(i)); if (i % 500 === 499) log.flush(); });
