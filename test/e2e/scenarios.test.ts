// Runs every scenario file in test/scenarios/ on real OpenClaw gateways (docs/scenarios.md) and
// reports one test per scenario. The files run together so that scenarios share gateways.
import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { scenarioFiles } from "../../tools/scenarios/format.ts";
import { runScenarioFiles, type ScenarioResult } from "../../tools/scenarios/runner.ts";

const files = scenarioFiles([resolve(import.meta.dirname, "../scenarios")]);
let results: ScenarioResult[] = [];

describe("scenario files on real gateways", () => {
  beforeAll(
    async () => {
      results = await runScenarioFiles(files, { log: (line) => console.log(line) });
    },
    60 * 60 * 1000,
  );

  it("has scenarios to run", () => {
    expect(files.length).toBeGreaterThanOrEqual(20);
  });

  it.each(files.map((file) => [file.split("/").pop() as string, file]))("%s", (_name, file) => {
    const result = results.find((r) => r.file === file);
    expect(result, `no result for ${file}`).toBeDefined();
    expect(result!.failures).toEqual([]);
    expect(result!.passed).toBe(true);
  });
});
