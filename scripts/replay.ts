/**
 * npm run replay -- <traces.jsonl|dir>... [--manifests <dir>] [--config <file>] [--approve allow-once|allow-always|deny] [--verbose] [--json]
 *
 * Replays recorded sessions through ClawOS's real registration and prints, per file and in total,
 * the security rate (attack traces whose injected calls were all blocked), the utility rate
 * (benign traces with no call blocked), calls decided per second, the same two rates per family
 * (coding, research, assistant, operations, other), and with --verbose the decision for every call. The closing line is `N passed, N failed`; the exit code is 1 when a trace failed
 * its expectation or a line is malformed, 2 on a usage error. See docs/replay.md.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { APPROVE_ANSWERS, formatReport, replayPaths, type ApproveAnswer, type ReplayOptions } from "../tools/replay/replay.ts";

const USAGE =
  "usage: npm run replay -- <traces.jsonl|dir>... [--manifests <dir>] [--config <file>] [--approve allow-once|allow-always|deny] [--verbose] [--json]";

function usage(message: string): never {
  process.stderr.write(`replay: ${message}\n${USAGE}\n`);
  process.exit(2);
}

const paths: string[] = [];
const manifestDirs: string[] = [];
let configFile: string | undefined;
let verbose = false;
let json = false;
let approve: ApproveAnswer | undefined;
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const arg = argv[i];
  if (arg === "--verbose" || arg === "-v") verbose = true;
  else if (arg === "--json") json = true;
  else if (arg === "--manifests") manifestDirs.push(argv[++i] ?? usage("--manifests needs a directory"));
  else if (arg === "--config") configFile = argv[++i] ?? usage("--config needs a file");
  else if (arg === "--approve") {
    const answer = argv[++i];
    if (!APPROVE_ANSWERS.includes(answer as ApproveAnswer)) usage(`--approve needs one of ${APPROVE_ANSWERS.join(", ")}`);
    approve = answer as ApproveAnswer;
  } else if (arg === "--help" || arg === "-h") {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  } else if (arg.startsWith("-")) usage(`unknown option ${arg}`);
  else paths.push(arg);
}
if (paths.length === 0) usage("name at least one traces file or directory");
for (const path of paths) if (!existsSync(path)) usage(`${path} does not exist`);
for (const dir of manifestDirs) if (!existsSync(dir) || !statSync(dir).isDirectory()) usage(`--manifests ${dir} is not a directory`);

// A corpus directory may carry the manifests of its plugin and MCP tools in <dir>/manifests.
if (manifestDirs.length === 0) {
  for (const path of paths) {
    const dir = join(path, "manifests");
    if (statSync(path).isDirectory() && existsSync(dir) && statSync(dir).isDirectory()) manifestDirs.push(dir);
  }
}

let config: Record<string, unknown> | undefined;
if (configFile) {
  try {
    const parsed = JSON.parse(readFileSync(configFile, "utf8")) as unknown;
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) usage(`--config ${configFile} must hold a JSON object (the ClawOS config)`);
    // Accept either the plugin config itself or a whole plugins.entries.clawos entry.
    const entry = parsed as Record<string, unknown>;
    config = (entry.config && typeof entry.config === "object" ? entry.config : entry) as Record<string, unknown>;
  } catch (error) {
    usage(`--config ${configFile}: ${(error as Error).message}`);
  }
}

const options: ReplayOptions = { config, manifestDirs, ...(approve ? { approve } : {}) };
const report = replayPaths(paths, options);
if (json) {
  process.stdout.write(
    `${JSON.stringify(
      {
        total: report.total,
        families: report.families,
        files: report.files.map((f) => ({
          file: f.file,
          tally: f.tally,
          errors: f.errors,
          traces: f.outcomes.map((o) => ({
            id: o.trace.id,
            kind: o.trace.kind,
            family: o.trace.family,
            expect: o.trace.expect,
            asked: o.asked,
            passed: o.passed,
            why: o.why,
            calls: o.calls,
          })),
        })),
      },
      null,
      2,
    )}\n`,
  );
} else {
  process.stdout.write(`${formatReport(report, verbose)}\n`);
}
process.exitCode = report.total.failed > 0 ? 1 : 0;
