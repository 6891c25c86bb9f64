import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkArgumentPaths } from "../../src/policy/argument-check.ts";
import { compileArgumentPath, snakeCaseKey, valuesAt } from "../../src/policy/arguments.ts";
import { DECISION_ROLES, type Manifest } from "../../src/policy/manifest-schema.ts";
import { devHostDir } from "../../tools/harness/dev-host.ts";

// The built-in manifests' arguments, checked against what the installed host really sends: every
// `at` must name a parameter of the tool's schema (or an alias the host is known to read), and every
// tool that sends, writes, runs, publishes or steers a session names at least one argument a
// provenance decision can read.

const manifestsDir = fileURLToPath(new URL("../../manifests/", import.meta.url));
const manifests: Manifest[] = readdirSync(manifestsDir)
  .filter((file) => file.endsWith(".json"))
  .sort()
  .map((file) => JSON.parse(readFileSync(join(manifestsDir, file), "utf8")) as Manifest);
const byTool = new Map(manifests.map((manifest) => [manifest.tool, manifest]));

function get(tool: string): Manifest {
  const manifest = byTool.get(tool);
  if (!manifest) throw new Error(`no manifest for ${tool}`);
  return manifest;
}

const manifest = (args: Manifest["arguments"], modes?: Manifest["modes"]) => ({ tool: "t", arguments: args, modes });

describe("reading arguments out of params", () => {
  it("reads a camelCase argument under its snake_case name too, as the host does", () => {
    expect(snakeCaseKey("filePath")).toBe("file_path");
    expect(snakeCaseKey("mediaURLs")).toBe("media_ur_ls"); // the host's own rule, odd as it looks
    expect(snakeCaseKey("mediaUrls")).toBe("media_urls");
    expect(snakeCaseKey("path")).toBe("path");
    expect(valuesAt({ file_path: "a/.env" }, compileArgumentPath("filePath"))).toEqual(["a/.env"]);
    expect(valuesAt({ filePath: "x", file_path: "y" }, compileArgumentPath("filePath"))).toEqual(["x", "y"]);
    expect(valuesAt({ attachments: [{ media_url: "MEMORY.md" }] }, compileArgumentPath("attachments.*.mediaUrl"))).toEqual(["MEMORY.md"]);
    expect(valuesAt({ job: { delivery_target: "x" } }, compileArgumentPath("job.deliveryTarget"))).toEqual(["x"]);
    expect(valuesAt({ filepath: "x" }, compileArgumentPath("filePath"))).toEqual([]);
  });
});

describe("checkArgumentPaths", () => {
  const schema = {
    type: "object",
    properties: {
      path: { type: "string" },
      edits: { type: "array", items: { type: "object", properties: { path: { type: "string" }, newText: { type: "string" } } } },
      targets: { type: "array", items: { type: "string" } },
      job: {
        type: "object",
        properties: {
          delivery: {
            anyOf: [{ type: "object", properties: { to: { anyOf: [{ type: "string" }, { type: "null" }] } }, additionalProperties: true }, { type: "null" }],
          },
          schedule: {
            oneOf: [
              { type: "object", properties: { at: { type: "string" } } },
              { type: "object", properties: { expr: { type: "string" } } },
            ],
          },
        },
      },
      env: { type: "object" },
      headers: { type: "object", additionalProperties: { type: "object", properties: { value: { type: "string" } } } },
      merged: {
        allOf: [
          { type: "object", properties: { a: { type: "string" } } },
          { type: "object", properties: { b: { type: "string" } } },
        ],
      },
      strict: { type: "object", properties: { a: { type: "string" } }, additionalProperties: true },
      closed: { type: "object", additionalProperties: false },
      tuple: { type: "array", prefixItems: [{ type: "object", properties: { first: { type: "string" } } }] },
      "a/b": { type: "string" },
      linked: { $ref: "#/$defs/link" },
      free: { type: "array", items: { type: "object", properties: {}, additionalProperties: true } },
    },
    $defs: { link: { type: "object", properties: { url: { type: "string" } } } },
  };
  const errorsFor = (at: string) => checkArgumentPaths(manifest([{ at, role: "path" }]), schema);

  it.each([
    "path",
    "edits.*.path",
    "edits.path",
    "/edits/0/path",
    "edits.0.newText",
    "targets",
    "targets.*",
    "/targets/3",
    "job.delivery.to",
    "job.schedule.at",
    "job.schedule.expr",
    "env.ANY_NAME",
    "env.*",
    "headers.x-api-key.value",
    "headers.*.value",
    "merged.a",
    "merged.b",
    "strict.a",
    "tuple.0.first",
    "/a~1b",
    "linked.url",
    "free.*.text",
    "@derivedPaths",
  ])("finds %s", (at) => {
    expect(errorsFor(at)).toEqual([]);
  });

  it.each([
    ["file_path", "file_path", "the top level"],
    ["edits.*.file_path", "file_path", '"edits.*"'],
    ["/edits/0/oldText", "oldText", '"edits.0"'],
    ["path.inner", "inner", '"path"'],
    ["job.delivery.channel", "channel", '"job.delivery"'],
    ["job.schedule.tz", "tz", '"job.schedule"'],
    ["headers.x.other", "other", '"headers.x"'],
    ["strict.b", "b", '"strict"'],
    ["closed.a", "a", '"closed"'],
    ["tuple.1.first", "1", '"tuple"'],
    ["linked.host", "host", '"linked"'],
  ])("reports %s (no %s under %s)", (at, segment, under) => {
    const errors = errorsFor(at);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`no "${segment}" under ${under}`);
  });

  it("names the tool, the argument's index, role and path, and the fix", () => {
    const errors = checkArgumentPaths(
      manifest([
        { at: "path", role: "path" },
        { at: "to", role: "recipient" },
      ]),
      schema,
    );
    expect(errors).toEqual([expect.stringMatching(/^t: arguments\[1\] \(recipient\) at "to" names no parameter .*fix: point it at the parameter/)]);
  });

  it("checks the arguments modes read", () => {
    const errors = checkArgumentPaths(
      manifest([], [{ name: "m", when: { argument: "path", alsoArgument: "mode", alsoEquals: ["x"] }, capabilities: [] }]),
      schema,
    );
    expect(errors).toEqual([expect.stringContaining('modes[0].when.alsoArgument at "mode"')]);
  });

  it("accepts the paths the caller lists as read by the host outside the schema", () => {
    expect(checkArgumentPaths(manifest([{ at: "file_path", role: "path" }]), schema, ["file_path"])).toEqual([]);
  });

  it("treats a schema union of tools as having a path when one tool has it", () => {
    const union = {
      anyOf: [
        { type: "object", properties: { id: { type: "string" } } },
        { type: "object", properties: { boardId: { type: "string" } } },
      ],
    };
    expect(checkArgumentPaths(manifest([{ at: "boardId", role: "id" }]), union)).toEqual([]);
    expect(checkArgumentPaths(manifest([{ at: "cardId", role: "id" }]), union)).toHaveLength(1);
  });

  it("finds anything below a free-form or empty schema, and nothing below a scalar", () => {
    expect(checkArgumentPaths(manifest([{ at: "a.b.c", role: "id" }]), {})).toEqual([]);
    expect(checkArgumentPaths(manifest([{ at: "a.b", role: "id" }]), { type: "object", properties: { a: { type: "number" } } })).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------------------------
// The installed host's real parameter schemas.

const hostDist = `${join(devHostDir(), "dist")}/`;

/**
 * Paths the host reads although the tool's schema does not define them, with why. Anything else an
 * argument names must be in the schema.
 */
const HOST_ACCEPTED: Readonly<Record<string, { readonly paths: readonly string[]; readonly why: string }>> = {
  read: { paths: ["file_path", "filePath"], why: "native harness file tools (file_path) and ACP tool calls (filePath) are relayed as read" },
  write: { paths: ["file_path", "filePath"], why: "native harness file tools (file_path) and ACP tool calls (filePath) are relayed as write" },
  edit: {
    paths: ["file_path", "filePath", "edits.*.path", "edits.*.file_path"],
    why: "native harness and ACP aliases; the per-edit paths are kept for batch edits that name their own files (never present on this host, so never read)",
  },
  apply_patch: { paths: ["patch"], why: "the harness reads apply_patch's patch text from input or patch" },
  exec: { paths: ["cmd"], why: "the Codex relay keeps exec_command's cmd next to the command it derives from it" },
  message: {
    paths: [
      "to",
      "chatGuid",
      "chatIdentifier",
      "path",
      "filePath",
      "mediaUrl",
      "fileUrl",
      "mediaUrls",
      "attachments.*.path",
      "attachments.*.filePath",
      "attachments.*.mediaUrl",
      "attachments.*.fileUrl",
      "attachments.*.url",
    ],
    why: "the message tool takes legacy to and the chat aliases as targets, and reads media from these aliases and from each attachment's",
  },
  automations: {
    paths: [
      "job.command",
      "job.cwd",
      "job.data.schedule.command",
      "job.data.schedule.cwd",
      "job.data.command",
      "job.data.cwd",
      "job.data.delivery.to",
      "job.job.schedule.command",
      "job.job.schedule.cwd",
      "job.job.command",
      "job.job.cwd",
      "job.job.delivery.to",
      "schedule.command",
      "schedule.cwd",
      "command",
      "cwd",
      "delivery.to",
    ],
    why: "the cron tool reads a job wrapped in job.data or job.job, moves command and cwd given flat into the schedule, and without a job recovers one from top-level fields (canonicalizeCronToolObject, recoverCronObjectFromFlatParams)",
  },
  view_image: { paths: ["image"], why: "older hosts' image tool (view_image's alias) takes image" },
  pdf: { paths: ["path"], why: "kept from earlier manifests for older hosts; this host's pdf tool reads pdf and pdfs only, so it is never present" },
};

/** Manifests with arguments whose tool's schema the test cannot build, with why (their paths were checked by hand). */
const NO_HOST_SCHEMA: Readonly<Record<string, string>> = {
  code_mode_exec: "Code Mode's cell tool (exec with code) is assembled by the harness tool surface, not by the tool factories",
};

type Tool = { name: string; parameters?: unknown };

/** Every tool the installed host builds, with its parameter schema: core, coding and bundled plugin tools. */
async function loadHostSchemas(): Promise<Map<string, unknown>> {
  const entry = readdirSync(hostDist).find(
    (file) => /^agent-tools-.*\.mjs$/.test(file) && /export \{ createOpenClawCodingTools \}/.test(readFileSync(join(hostDist, file), "utf8")),
  );
  if (!entry) throw new Error("the installed OpenClaw exports no createOpenClawCodingTools: the tool assembly moved, update this test");
  const home = mkdtempSync(join(tmpdir(), "host-schemas-"));
  const env = {
    HOME: home,
    OPENCLAW_STATE_DIR: join(home, "state"),
    // Media tools are built only when a provider can serve them; these keys are never sent.
    OPENAI_API_KEY: "sk-test",
    GEMINI_API_KEY: "test",
    FAL_KEY: "test",
  };
  const saved = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
  Object.assign(process.env, env);
  try {
    const { createOpenClawCodingTools } = (await import(pathToFileURL(join(hostDist, entry)).href)) as {
      createOpenClawCodingTools: (options: Record<string, unknown>) => Tool[];
    };
    const plugins = [
      "browser",
      "canvas",
      "crabbox",
      "file-transfer",
      "llm-task",
      "memory-core",
      "memory-wiki",
      "ollama",
      "talk-voice",
      "workboard",
      "xai",
      "openai",
      "google",
      "fal",
    ];
    const common = { agentId: "main", agentDir: home, workspaceDir: home, modelProvider: "openai", modelId: "gpt-5", emitBeforeToolCallDiagnostics: false };
    const tools = createOpenClawCodingTools({
      ...common,
      config: {
        cloudWorkers: { profiles: { box: { provider: "crabbox" } } },
        plugins: { entries: Object.fromEntries(plugins.map((id) => [id, { enabled: true }])) },
        tools: { alsoAllow: ["*"] },
      },
      sessionKey: "agent:main:main",
      runSessionKey: "agent:main:main",
      sessionId: "s1",
      senderIsOwner: true,
      senderId: "12345",
      messageChannel: "telegram",
      githubPublicationAvailable: true,
      taskSuggestionDeliveryMode: "gateway",
      modelHasVision: true,
      clientCaps: ["inline-widgets", "ui-commands"],
      enableHeartbeatTool: true,
      allowGatewaySubagentBinding: true,
    });
    const schemas = new Map(tools.map((tool) => [tool.name, tool.parameters]));
    // Without a config the message tool offers every action of every channel (its full schema).
    const unconfigured = createOpenClawCodingTools({ ...common, sessionKey: "agent:main:main", senderIsOwner: true });
    schemas.set("message", unconfigured.find((tool) => tool.name === "message")?.parameters);
    // The xAI tools are built only with a live xAI model; their definitions are exported.
    const xai = join(hostDist, "extensions", "xai");
    const definitions = [
      ["code-execution-tool-shared.js", "createCodeExecutionToolDefinition"],
      ["x-search-tool-shared.js", "createXSearchToolDefinition"],
    ] as const;
    for (const [file, factory] of definitions) {
      if (!existsSync(join(xai, file))) continue;
      const module = (await import(pathToFileURL(join(xai, file)).href)) as Record<string, (execute: () => Promise<unknown>) => Tool>;
      const tool = module[factory]?.(async () => ({}));
      if (tool) schemas.set(tool.name, tool.parameters);
    }
    return schemas;
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    rmSync(home, { recursive: true, force: true });
  }
}

function globMatches(pattern: string, name: string): boolean {
  const re = new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`);
  return re.test(name);
}

/** The manifest that covers a host tool: by name or alias, else by pattern. */
function manifestFor(name: string): Manifest | undefined {
  return (
    manifests.find((m) => m.tool === name || m.aliases?.includes(name)) ?? manifests.find((m) => m.patterns?.some((pattern) => globMatches(pattern, name)))
  );
}

describe("arguments name real parameters of the installed host's tools", () => {
  let schemas = new Map<string, unknown>();
  beforeAll(async () => {
    schemas = await loadHostSchemas();
  }, 120_000);
  afterAll(() => schemas.clear());

  /** Each manifest's schema: its tool's, or for a pattern manifest the union of the tools it covers. */
  const schemaOf = (m: Manifest): unknown => {
    const covered = [...schemas].filter(([name]) => manifestFor(name)?.tool === m.tool).map(([, schema]) => schema);
    if (covered.length === 0) return undefined;
    return covered.length === 1 ? covered[0] : { anyOf: covered };
  };

  it("builds the host's tools with their schemas", () => {
    expect(schemas.size).toBeGreaterThan(100);
    for (const tool of [
      "exec",
      "process",
      "read",
      "write",
      "edit",
      "apply_patch",
      "message",
      "browser",
      "sessions_send",
      "workboard_create",
      "code_execution",
    ]) {
      expect(schemas.get(tool), tool).toMatchObject({ type: "object" });
    }
    expect(JSON.stringify(schemas.get("message"))).toContain('"messageId"');
  });

  it("has every argument and mode of every manifest point at a parameter the host defines or reads", () => {
    const errors: string[] = [];
    for (const m of manifests) {
      if (!m.arguments?.length && !m.modes?.some((mode) => mode.when.argument)) continue;
      const schema = schemaOf(m);
      if (schema === undefined) {
        if (!NO_HOST_SCHEMA[m.tool])
          errors.push(`${m.tool}: no host schema found for a manifest with arguments; add the tool to the schema loader or to NO_HOST_SCHEMA with why`);
        continue;
      }
      errors.push(...checkArgumentPaths(m, schema, HOST_ACCEPTED[m.tool]?.paths ?? []));
    }
    expect(errors).toEqual([]);
  });

  it("keeps each host-accepted path in use and outside the schema (else the entry is stale)", () => {
    const stale: string[] = [];
    for (const [tool, { paths }] of Object.entries(HOST_ACCEPTED)) {
      const m = get(tool);
      const schema = schemaOf(m);
      for (const at of paths) {
        if (!m.arguments?.some((argument) => argument.at === at)) stale.push(`${tool}: ${at} is not an argument`);
        else if (checkArgumentPaths({ tool, arguments: [{ at, role: "id" }] }, schema).length === 0) stale.push(`${tool}: ${at} is in the schema now`);
      }
    }
    expect(stale).toEqual([]);
  });

  it("lists in NO_HOST_SCHEMA only manifests whose schema is really not built", () => {
    expect(Object.keys(NO_HOST_SCHEMA).filter((tool) => schemaOf(get(tool)) !== undefined)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Decision roles and provenance settings.

/** Capabilities whose tools act on the world where a provenance decision must know where. */
const ACTING_CAPABILITIES = ["message:send", "fs:write", "proc:exec", "net:publish", "session:control", "net:fetch"];

/** Manifests with an acting capability but no argument that decides where the call acts, with why. */
const NO_DECISION_ARGUMENT: Readonly<Record<string, string>> = {
  create_goal: "acts only on the caller's own session goal; its one argument is the objective text",
  update_goal: "marks the caller's own session goal complete or blocked; nothing chooses another target",
  github_publish: "publishes the session's own repository changes under the owner's identity; no argument chooses where",
  heartbeat_respond: "alerts go to the configured heartbeat recipient; no argument chooses where",
};

const hasDecisionArgument = (m: Manifest) => (m.arguments ?? []).some((argument) => DECISION_ROLES.includes(argument.role));

describe("decision roles", () => {
  const acting = manifests.filter((m) => m.capabilities.some((capability) => ACTING_CAPABILITIES.includes(capability)));

  it("finds the acting tools", () => {
    expect(acting.map((m) => m.tool)).toEqual(expect.arrayContaining(["exec", "message", "write", "web_fetch", "sessions_send", "github_publish"]));
  });

  it.each(acting.map((m) => [m.tool, m] as const))("%s names an argument with a decision role, or says why not", (tool, m) => {
    expect(hasDecisionArgument(m) || NO_DECISION_ARGUMENT[tool] !== undefined, `${tool}: add an argument with a decision role or a reason`).toBe(true);
  });

  it("gives reasons only for acting tools that have no decision argument", () => {
    for (const tool of Object.keys(NO_DECISION_ARGUMENT)) {
      const m = get(tool);
      expect(acting.includes(m), tool).toBe(true);
      expect(hasDecisionArgument(m), tool).toBe(false);
    }
  });

  it("gives access only to path and patch arguments, and declares no argument twice", () => {
    for (const m of manifests) {
      const args = m.arguments ?? [];
      for (const argument of args) {
        if (argument.access) expect(["path", "patch"], `${m.tool}: ${argument.at}`).toContain(argument.role);
      }
      const keys = args.map((argument) => `${argument.at} ${argument.role}`);
      expect(new Set(keys).size, m.tool).toBe(keys.length);
    }
  });
});

describe("provenance settings", () => {
  // Free text is itself the danger: a command, code, keystrokes, a prompt another agent follows, or
  // text that comes back as instructions later. Where an argument came from cannot make it safe.
  const FREE_TEXT_TOOLS = [
    "automations",
    "browser",
    "code_execution",
    "code_mode_exec",
    "computer",
    "crabbox",
    "exec",
    "gateway",
    "heartbeat_respond",
    "intent",
    "mobile_ui",
    "nodes",
    "openclaw",
    "plugins",
    "process",
    "sessions_spawn",
    "show_widget",
    "skill_workshop",
    "suggest_task",
    "terminal",
  ];

  // A path on another device (a paired node's file system), where no path rule can look.
  const REMOTE_PATH_TOOLS = ["file_write"];
  // Names the owner gave are no licence for a lowered session to delete or list stored credentials.
  const CREDENTIAL_TOOLS = ["secrets"];

  it("turns provenance decisions off exactly for the tools where free text is the danger, a path no rule can check, or stored credentials", () => {
    expect(
      manifests
        .filter((m) => m.provenance?.decisions === false)
        .map((m) => m.tool)
        .sort(),
    ).toEqual([...FREE_TEXT_TOOLS, ...REMOTE_PATH_TOOLS, ...CREDENTIAL_TOOLS].sort());
    expect(manifests.filter((m) => m.provenance?.decisions === true).map((m) => m.tool)).toEqual([]);
  });

  it("reads the trust of file readers' output from the files they read", () => {
    expect(
      manifests
        .filter((m) => m.provenance?.output === "paths")
        .map((m) => m.tool)
        .sort(),
    ).toEqual(["edit", "ls", "read"]);
    // An edit echoes the file it edits when a match fails: its output has that file's trust.
    expect(get("edit").arguments?.some((argument) => argument.role === "path" && argument.access === "write")).toBe(true);
    expect(get("edit").description).toContain("trust of the file edited");
    for (const tool of ["ls", "read"]) {
      const m = get(tool);
      expect(
        m.arguments?.some((argument) => argument.role === "path" && argument.access === "read"),
        tool,
      ).toBe(true);
      expect(m.description, tool).toContain("trust of the files read");
    }
  });

  // Documents and images come from outside (attachments, downloads, screenshots) wherever they are
  // stored, and ClawOS rarely sees them written: their readers keep the declared untrusted output.
  it.each(["pdf", "view_image"])("%s keeps its declared untrusted output", (tool) => {
    expect(get(tool).provenance?.output ?? "declared").toBe("declared");
    expect(get(tool).outputTrust).toBe("untrusted");
  });

  it("reads exec's output trust from its command, which it names with its working directory", () => {
    const exec = get("exec");
    expect(exec.provenance).toEqual({ decisions: false, output: "command" });
    expect(manifests.filter((m) => m.provenance?.output === "command").map((m) => m.tool)).toEqual(["exec"]);
    expect(exec.arguments).toEqual(
      expect.arrayContaining([
        { at: "command", role: "command" },
        { at: "cmd", role: "command" },
        { at: "workdir", role: "path", access: "read" },
      ]),
    );
  });

  it("reads the host's confirmations of write and apply_patch as echoes of the call: they lower nothing and endorse nothing a lowered session chose", () => {
    for (const tool of ["write", "apply_patch", "create_goal", "update_goal", "dismiss_task", "progress_card", "show_widget", "theme", "structured_output"]) {
      expect(get(tool).provenance?.output, tool).toBe("call");
      expect(get(tool).outputTrust, tool).toBe("owner");
    }
  });
});
