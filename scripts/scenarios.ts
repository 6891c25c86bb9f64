/**
 * `npm run scenarios -- <files or dirs>`: runs scenario files (docs/scenarios.md) against real
 * OpenClaw gateways, one line per scenario, closing with `N passed, N failed`.
 */
import { runScenarioFiles } from "../tools/scenarios/runner.ts";
import { scenarioFiles } from "../tools/scenarios/format.ts";

const targets = process.argv.slice(2).filter((a) => a !== "--");
if (targets.length === 0) {
  console.error("usage: npm run scenarios -- <scenario.json | dir> [...]");
  process.exit(2);
}
const results = await runScenarioFiles(scenarioFiles(targets), { log: (line) => console.log(line) });
const passed = results.filter((r) => r.passed).length;
console.log(`${passed} passed, ${results.length - passed} failed`);
process.exit(passed === results.length ? 0 : 1);
