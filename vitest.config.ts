import { defineConfig } from "vitest/config";

// Two projects: fast engine tests run in parallel; end-to-end tests drive real OpenClaw
// gateways, so they run one file at a time with generous timeouts on a 2-core machine.
export default defineConfig({
  test: {
    globalSetup: ["test/setup/tmpdir.ts"],
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          fileParallelism: false,
          maxWorkers: 1,
        },
      },
    ],
  },
});
