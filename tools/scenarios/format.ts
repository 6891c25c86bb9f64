// The scenario file format (docs/scenarios.md), as a TypeBox schema so that a malformed file gets
// an error naming the field, like ClawOS's own config.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { describeErrors } from "../../src/config/validation.ts";

const Trust = Type.Union([Type.Literal("owner"), Type.Literal("verified"), Type.Literal("community"), Type.Literal("untrusted")]);
const Expect = Type.Union([Type.Literal("allow"), Type.Literal("block"), Type.Literal("would-block")], {
  description: "allow, block or would-block",
});

const AuditMatch = Type.Record(Type.String(), Type.Unknown(), {
  description: 'fields an audit record must have (partial match), e.g. { "event": "trust.reset" }',
});

export interface CallSpec {
  tool: string;
  args?: Record<string, unknown>;
  expect?: "allow" | "block" | "would-block";
  file?: string;
  contains?: string;
  ran?: boolean;
  resultContains?: string[];
  child?: ChildSpec;
}

export interface ChildSpec {
  marker: string;
  /** The session the run happens in when it is not a sub-agent (a sessions_send target). */
  session?: string;
  calls: CallSpec[];
  reply?: string;
  expectTrust?: Static<typeof Trust>;
}

const CallSchema: TSchema = Type.Recursive((Self) =>
  Type.Object(
    {
      tool: Type.String({ minLength: 1, description: "the tool the model calls, e.g. exec or tool_call" }),
      args: Type.Optional(
        Type.Record(Type.String(), Type.Unknown(), {
          description:
            "the call's arguments; {workspace}, {state} and {config} are replaced; a string {{result:RE}} becomes the first group of RE in the newest tool result that matches it (an id the host gave)",
        }),
      ),
      expect: Type.Optional(Expect),
      file: Type.Optional(Type.String({ minLength: 1, description: "a workspace file the call creates when it runs" })),
      contains: Type.Optional(Type.String({ description: "text the call writes into `file` (for files that exist anyway)" })),
      ran: Type.Optional(Type.Boolean({ description: "whether `file` must exist (and contain `contains`) after the turn" })),
      resultContains: Type.Optional(
        Type.Array(Type.String(), { description: "text the tool result the model received for this call must contain (a block's reason, a command's output)" }),
      ),
      child: Type.Optional(
        Type.Object(
          {
            marker: Type.String({ minLength: 1, description: "a string in the sub-agent's task (or the sent message) that picks its script" }),
            session: Type.Optional(
              Type.String({ minLength: 1, description: "for a run another session's message starts (sessions_send): the session it runs in" }),
            ),
            calls: Type.Array(Self),
            reply: Type.Optional(Type.String()),
            expectTrust: Type.Optional(Trust),
          },
          { additionalProperties: false },
        ),
      ),
    },
    { additionalProperties: false },
  ),
);

const TurnSchema = Type.Object(
  {
    session: Type.Optional(Type.String({ minLength: 1, description: "the session key, e.g. agent:main:s1 (not on the exec path)" })),
    from: Type.Optional(Type.Union([Type.Literal("owner"), Type.Literal("non-owner")], { description: "owner or non-owner" })),
    text: Type.String({ minLength: 1 }),
    calls: Type.Array(CallSchema),
    reply: Type.Optional(Type.String()),
    expectTrust: Type.Optional(Trust),
    expectAudit: Type.Optional(Type.Array(AuditMatch)),
  },
  { additionalProperties: false },
);

const CommandSchema = Type.Object(
  {
    session: Type.String({ minLength: 1 }),
    text: Type.String({ pattern: "^/", description: "a slash command such as /clawos session" }),
    as: Type.Optional(Type.Union([Type.Literal("owner"), Type.Literal("operator")], { description: "owner (operator.admin) or operator (operator.write)" })),
    replyContains: Type.Optional(Type.Array(Type.String())),
    expectTrust: Type.Optional(Trust),
    expectAudit: Type.Optional(Type.Array(AuditMatch)),
  },
  { additionalProperties: false },
);

const StepSchema = Type.Union(
  [
    Type.Object({ turn: TurnSchema }, { additionalProperties: false }),
    Type.Object({ command: CommandSchema }, { additionalProperties: false }),
    Type.Object({ restart: Type.Literal(true) }, { additionalProperties: false }),
    Type.Object({ config: Type.Record(Type.String(), Type.Unknown()) }, { additionalProperties: false }),
    Type.Object(
      {
        runJob: Type.String({
          minLength: 1,
          description: "the name of an automation job on the gateway (heartbeat-main): run it now and wait until the run is recorded",
        }),
        expectState: Type.Optional(
          Type.Record(Type.String(), Type.Unknown(), {
            description: 'fields the job\'s recorded state must then hold, e.g. { "lastError": "heartbeat skipped: no-route" }',
          }),
        ),
      },
      { additionalProperties: false },
    ),
  ],
  { description: "one of { turn }, { command }, { restart: true }, { config }, { runJob }" },
);

export const ScenarioSchema = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    name: Type.String({ minLength: 1 }),
    description: Type.Optional(Type.String()),
    path: Type.Union([Type.Literal("gateway"), Type.Literal("chat"), Type.Literal("local"), Type.Literal("exec")], {
      description: "gateway, chat, local or exec",
    }),
    install: Type.Optional(
      Type.Union([Type.Literal("load-path"), Type.Literal("extensions-dir"), Type.Literal("link"), Type.Literal("tarball")], {
        description: "load-path, extensions-dir, link or tarball",
      }),
    ),
    clawos: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: "the ClawOS config (plugins.entries.clawos.config)" })),
    pageText: Type.Optional(Type.String({ description: "what the fixture tool fetch_page returns" })),
    contacts: Type.Optional(
      Type.Array(Type.Record(Type.String(), Type.Unknown()), { description: "the address-book cards the fixture tool lookup_contacts searches" }),
    ),
    steps: Type.Array(StepSchema, { minItems: 1 }),
  },
  { additionalProperties: false },
);

export type Scenario = Static<typeof ScenarioSchema> & { file: string };
export type Step = Scenario["steps"][number];
export type TurnStep = Omit<Extract<Step, { turn: unknown }>["turn"], "calls"> & { calls: CallSpec[] };
export type CommandStep = Extract<Step, { command: unknown }>["command"];

const check = TypeCompiler.Compile(ScenarioSchema);

export class ScenarioFormatError extends Error {}

/** Parses one scenario file; errors name the file and the field. */
export function parseScenario(file: string): Scenario {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new ScenarioFormatError(`${file}: not valid JSON: ${(error as Error).message}`);
  }
  if (!check.Check(value)) throw new ScenarioFormatError(describeErrors(check, value, file).join("\n"));
  const scenario = { ...(value as Static<typeof ScenarioSchema>), file };
  for (const step of scenario.steps) {
    if ("turn" in step) {
      if (scenario.path === "exec" && step.turn.session) throw new ScenarioFormatError(`${file}: the exec path makes its own session key; drop "session"`);
      if (scenario.path === "exec" && step.turn.expectTrust) {
        throw new ScenarioFormatError(
          `${file}: agent exec deletes its session state after the run; check a trust.lowered record with "expectAudit" instead of "expectTrust"`,
        );
      }
      if (scenario.path !== "exec" && !step.turn.session) throw new ScenarioFormatError(`${file}: a turn on the ${scenario.path} path needs "session"`);
      if (step.turn.from === "non-owner" && scenario.path !== "chat") {
        throw new ScenarioFormatError(`${file}: only the chat path can send as a non-owner (${scenario.path} turns are the owner's)`);
      }
    }
    if (("command" in step || "restart" in step || "runJob" in step) && (scenario.path === "local" || scenario.path === "exec")) {
      throw new ScenarioFormatError(`${file}: commands, restarts and job runs need a gateway (path gateway or chat)`);
    }
  }
  return scenario;
}

/** Expands files and directories (their *.json, sorted) into scenario files. */
export function scenarioFiles(targets: string[]): string[] {
  const files: string[] = [];
  for (const target of targets) {
    const path = resolve(target);
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path)
        .filter((n) => n.endsWith(".json"))
        .sort())
        files.push(join(path, name));
    } else files.push(path);
  }
  return files;
}
