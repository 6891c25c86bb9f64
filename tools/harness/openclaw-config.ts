// Builds the isolated openclaw.json a test gateway runs with: scripted model, loopback gateway, file log.

export type JsonObject = Record<string, unknown>;

export const SCRIPTED_PROVIDER_ID = "scripted";

export type BaseConfigInput = {
  port: number;
  token: string;
  modelBaseUrl: string;
  modelId: string;
  logFile: string;
  workspaceDir: string;
  toolsProfile: string;
  /** undefined keeps the host default (Tool Search on). */
  toolSearch?: boolean;
  /** Plugin-owned tools are outside every profile but `full`; this adds them back. */
  pluginTools: boolean;
};

export function baseConfig(input: BaseConfigInput): JsonObject {
  const tools: JsonObject = { profile: input.toolsProfile };
  if (input.pluginTools) tools.alsoAllow = ["group:plugins"];
  if (input.toolSearch !== undefined) tools.toolSearch = input.toolSearch;
  return {
    gateway: { mode: "local", port: input.port, bind: "loopback", auth: { mode: "token", token: input.token } },
    models: {
      providers: {
        [SCRIPTED_PROVIDER_ID]: {
          baseUrl: input.modelBaseUrl,
          apiKey: "scripted-test-key",
          api: "openai-completions",
          models: [
            {
              id: input.modelId,
              name: "Scripted test model",
              input: ["text"],
              contextWindow: 128_000,
              maxTokens: 4096,
              cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
            },
          ],
        },
      },
    },
    agents: { defaults: { model: { primary: `${SCRIPTED_PROVIDER_ID}/${input.modelId}` }, workspace: input.workspaceDir } },
    tools,
    plugins: { load: { paths: [] }, entries: {} },
    logging: { file: input.logFile, level: "debug" },
  };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Deep merge where objects merge and everything else (arrays included) is replaced. */
export function mergeConfig(base: JsonObject, patch: JsonObject): JsonObject {
  const out: JsonObject = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    out[key] = isObject(value) && isObject(out[key]) ? mergeConfig(out[key] as JsonObject, value) : value;
  }
  return out;
}
