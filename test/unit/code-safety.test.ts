// What the package ships passes the installed OpenClaw's own code-safety scan (the scan behind
// `openclaw security audit --deep`'s plugins.code_safety): no finding at all, critical or warning.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { devHostDir } from "../../tools/harness/dev-host.ts";

const REPO = resolve(import.meta.dirname, "../..");

interface ScanSummary {
  scannedFiles: number;
  critical: number;
  warn: number;
  findings: { ruleId: string; severity: string; file: string; line: number; message: string }[];
}
type Scan = (dir: string, opts?: { includeFiles?: string[] }) => Promise<ScanSummary>;

/** The host's scanner: the dist module that defines `scanDirectoryWithSummary` (its file name is hashed). */
async function hostScanner(): Promise<Scan> {
  const dist = join(devHostDir(), "dist");
  for (const name of readdirSync(dist).filter((f) => /^scanner-.*\.mjs$/.test(f))) {
    const text = readFileSync(join(dist, name), "utf8");
    const alias = /scanDirectoryWithSummary as (\w+)/.exec(text)?.[1];
    if (!alias || !text.includes("dangerous-exec")) continue;
    const mod = (await import(pathToFileURL(join(dist, name)).href)) as Record<string, Scan>;
    return mod[alias];
  }
  throw new Error("OpenClaw's code-safety scanner was not found in the development host's dist");
}

/** The package's files as npm packs them (package.json `files`, plus package.json itself). */
function shipped(): string {
  const dir = join(mkdtempSync(join(tmpdir(), "clawos-shipped-")), "clawos");
  mkdirSync(dir);
  const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { files: string[] };
  for (const entry of [...pkg.files, "package.json"]) {
    const from = join(REPO, entry);
    if (existsSync(from)) cpSync(from, join(dir, entry), { recursive: true });
  }
  return dir;
}

let scan: Scan;
beforeAll(async () => {
  scan = await hostScanner();
});

describe("OpenClaw's code-safety scan of the shipped package", () => {
  it("finds nothing in what the package ships (bin/ included)", async () => {
    const dir = shipped();
    expect(existsSync(join(dir, "bin", "clawos.mjs"))).toBe(true);
    const summary = await scan(dir, { includeFiles: [join(dir, "index.ts")] });
    expect(summary.scannedFiles).toBeGreaterThan(50);
    expect(summary.findings).toEqual([]);
  });

  it("is live: a process spawn in a shipped file would be reported as critical", async () => {
    const dir = shipped();
    writeFileSync(join(dir, "bin", "extra.mjs"), 'import { execFileSync } from "node:child_process";\nexecFileSync("npm", ["root", "-g"]);\n');
    const summary = await scan(dir);
    expect(summary.findings.map((f) => [f.ruleId, f.severity])).toEqual([["dangerous-exec", "critical"]]);
  });
});
