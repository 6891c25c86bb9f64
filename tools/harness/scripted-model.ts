// A fake OpenAI Chat Completions server for end-to-end runs: it answers from a script instead of a model,
// streams like the real API (SSE chunks, tool_calls deltas, [DONE]) and records every request it saw.
import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type ScriptedToolCall = {
  name: string;
  /**
   * Object arguments are JSON-encoded; a string is sent as is (to test malformed arguments). A string
   * value `{{result:RE}}` becomes the first group of the regular expression RE in the newest tool
   * result of the request that matches it: the model reading an id the host gave it (see `fromResults`).
   */
  arguments: Record<string, unknown> | string;
  id?: string;
};

/** One model answer: tool calls (the turn continues after their results) and/or final text. */
export type ScriptedReply = { toolCalls?: ScriptedToolCall[]; text?: string };

export type ChatMessage = {
  role: string;
  content?: unknown;
  tool_calls?: Array<{ id: string; type?: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
  name?: string;
};

export type ChatRequestBody = {
  model?: string;
  stream?: boolean;
  messages: ChatMessage[];
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
  [key: string]: unknown;
};

export type RecordedRequest = {
  index: number;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: ChatRequestBody;
  /** Label of the script step that answered, or "fallback". */
  answeredBy: string;
  reply: ScriptedReply;
};

export type StepMatcher = {
  /** Substring of the LAST user message (markers keep sub-agents and parallel sessions apart). */
  lastUserIncludes?: string;
  /** Exact session key, read from OpenClaw's runtime line in the prompt. */
  sessionKey?: string;
  /** Substring of any message in the request (e.g. the system prompt or a tool result). */
  anyMessageIncludes?: string;
  /** Zero-based index of the request among all requests this server received. */
  requestIndex?: number;
  /** Free-form test on the request. */
  predicate?: (req: ChatRequestBody) => boolean;
  /** Only agent-loop requests carry tools; title generation and similar side calls do not. Default true. */
  requireTools?: boolean;
};

export type ScriptStep = {
  label?: string;
  when?: StepMatcher;
  /** Replies handed out one per matching request, in order; the step is spent when they run out. */
  replies: ScriptedReply[];
};

export type ScriptedModel = {
  baseUrl: string;
  port: number;
  modelId: string;
  requests: RecordedRequest[];
  /** Append steps; earlier unspent steps win when several match. */
  script: (...steps: ScriptStep[]) => void;
  /** Drop unspent steps and recorded requests. */
  reset: () => void;
  pendingSteps: () => string[];
  /** Resolves once `count` requests have been answered in total. */
  waitForRequests: (count: number, timeoutMs?: number) => Promise<void>;
  close: () => Promise<void>;
};

export type ScriptedModelOptions = { modelId?: string; fallbackText?: string };

type LiveStep = { label: string; when: StepMatcher; replies: ScriptedReply[]; used: number };

export function messageText(message: ChatMessage | undefined): string {
  if (!message) return "";
  const { content } = message;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((part) => (typeof part === "string" ? part : typeof part?.text === "string" ? part.text : "")).join("");
  }
  return "";
}

// OpenClaw appends its own context as an extra user message; it is not what the user said.
const INTERNAL_CONTEXT = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>";
/**
 * Prompts OpenClaw writes itself to continue a run it retried or whose plugin runtime it refreshed
 * (after a timestamp): the run goes on with the user's last message, so a script step keyed on
 * that message answers it.
 */
const HOST_CONTINUATION =
  /^(?:\[[^\]]*\]\s*)?(?:Continue the current task from the existing transcript|The plugin runtime has been refreshed\. Continue the current task)/;

/** Text of the last user message that is not OpenClaw's injected internal context or its own continuation prompt. */
export function lastUserText(body: ChatRequestBody): string {
  const users = body.messages.filter((m) => {
    if (m.role !== "user") return false;
    const text = messageText(m).trimStart();
    return !text.startsWith(INTERNAL_CONTEXT) && !HOST_CONTINUATION.test(text);
  });
  return messageText(users[users.length - 1]);
}

/** Session key from the `Runtime: ... session=<key> ...` line OpenClaw adds to the user prompt. */
export function sessionKeyOf(body: ChatRequestBody): string | undefined {
  for (const m of [...body.messages].reverse()) {
    const found = messageText(m).match(/Runtime: [^\n]*\bsession=(\S+)/);
    if (found) return found[1];
  }
  return undefined;
}

/** Tool results the model received in this request (OpenAI `role: "tool"` messages). */
export function toolResultsIn(body: ChatRequestBody): Array<{ toolCallId: string; text: string }> {
  return body.messages.filter((m) => m.role === "tool").map((m) => ({ toolCallId: m.tool_call_id ?? "", text: messageText(m) }));
}

export function toolNamesOffered(body: ChatRequestBody): string[] {
  return (body.tools ?? []).map((t) => t.function?.name).filter(Boolean);
}

function matches(when: StepMatcher, body: ChatRequestBody, index: number): boolean {
  if ((when.requireTools ?? true) && !(body.tools && body.tools.length > 0)) return false;
  if (when.requestIndex !== undefined && when.requestIndex !== index) return false;
  if (when.sessionKey !== undefined && sessionKeyOf(body) !== when.sessionKey) return false;
  if (when.lastUserIncludes !== undefined && !lastUserText(body).includes(when.lastUserIncludes)) return false;
  if (when.anyMessageIncludes !== undefined) {
    const needle = when.anyMessageIncludes;
    if (!body.messages.some((m) => messageText(m).includes(needle))) return false;
  }
  if (when.predicate && !when.predicate(body)) return false;
  return true;
}

const FROM_RESULT = /^\{\{result:(.+)\}\}$/s;

/**
 * A reply whose tool-call arguments read values from the tool results the request carries
 * (`{{result:RE}}`, newest result first). A placeholder no result matches is an error: the script
 * expected a value the host did not give.
 */
function fromResults(reply: ScriptedReply, body: ChatRequestBody): ScriptedReply {
  if (!reply.toolCalls?.length) return reply;
  const results = toolResultsIn(body).reverse();
  const fill = (value: unknown): unknown => {
    if (typeof value === "string") {
      const placeholder = FROM_RESULT.exec(value);
      if (!placeholder) return value;
      const re = new RegExp(placeholder[1]);
      for (const result of results) {
        const found = re.exec(result.text);
        if (found) return found[1] ?? found[0];
      }
      throw new Error(`scripted model: no tool result matches ${placeholder[1]}`);
    }
    if (Array.isArray(value)) return value.map(fill);
    if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)]));
    return value;
  };
  return {
    ...reply,
    toolCalls: reply.toolCalls.map((call) =>
      typeof call.arguments === "string" ? call : { ...call, arguments: fill(call.arguments) as Record<string, unknown> },
    ),
  };
}

function chunk(id: string, model: string, delta: Record<string, unknown>, finishReason: string | null): string {
  const payload = {
    id,
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
  return `data: ${JSON.stringify(payload)}\n\n`;
}

function toolCallsWire(reply: ScriptedReply, requestIndex: number) {
  return (reply.toolCalls ?? []).map((call, i) => ({
    index: i,
    id: call.id ?? `call_${requestIndex}_${i}`,
    type: "function",
    function: {
      name: call.name,
      arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
    },
  }));
}

function writeStream(res: ServerResponse, model: string, reply: ScriptedReply, requestIndex: number): void {
  const id = `chatcmpl-scripted-${requestIndex}`;
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  res.write(chunk(id, model, { role: "assistant", content: "" }, null));
  const calls = toolCallsWire(reply, requestIndex);
  if (reply.text) res.write(chunk(id, model, { content: reply.text }, null));
  for (const call of calls) {
    // Name first, arguments in a second delta: the real API splits them and clients must reassemble.
    res.write(chunk(id, model, { tool_calls: [{ ...call, function: { name: call.function.name, arguments: "" } }] }, null));
    res.write(chunk(id, model, { tool_calls: [{ index: call.index, function: { arguments: call.function.arguments } }] }, null));
  }
  res.write(chunk(id, model, {}, calls.length > 0 ? "tool_calls" : "stop"));
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model, choices: [], usage })}\n\n`);
  res.end("data: [DONE]\n\n");
}

function writeJson(res: ServerResponse, model: string, reply: ScriptedReply, requestIndex: number): void {
  const calls = toolCallsWire(reply, requestIndex).map(({ index: _i, ...rest }) => rest);
  const message = { role: "assistant", content: reply.text ?? null, ...(calls.length ? { tool_calls: calls } : {}) };
  res.writeHead(200, { "content-type": "application/json" });
  res.end(
    JSON.stringify({
      id: `chatcmpl-scripted-${requestIndex}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [{ index: 0, message, finish_reason: calls.length ? "tool_calls" : "stop" }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    }),
  );
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString("utf8");
}

export async function startScriptedModel(options: ScriptedModelOptions = {}): Promise<ScriptedModel> {
  const modelId = options.modelId ?? "scripted-1";
  const fallback: ScriptedReply = { text: options.fallbackText ?? "done" };
  const steps: LiveStep[] = [];
  const requests: RecordedRequest[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];

  const answer = (body: ChatRequestBody, index: number): { label: string; reply: ScriptedReply } => {
    const step = steps.find((s) => s.used < s.replies.length && matches(s.when, body, index));
    if (!step) return { label: "fallback", reply: fallback };
    const reply = step.replies[step.used];
    step.used += 1;
    return { label: step.label, reply: fromResults(reply, body) };
  };

  const server: Server = createServer(async (req, res) => {
    try {
      const path = (req.url ?? "").split("?")[0];
      if (req.method === "GET" && path.endsWith("/models")) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ object: "list", data: [{ id: modelId, object: "model", owned_by: "scripted" }] }));
        return;
      }
      if (req.method !== "POST" || !path.endsWith("/chat/completions")) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `scripted model: no route ${req.method} ${path}` } }));
        return;
      }
      const body = JSON.parse(await readBody(req)) as ChatRequestBody;
      const index = requests.length;
      const { label, reply } = answer(body, index);
      requests.push({ index, path, headers: { ...req.headers }, body, answeredBy: label, reply });
      if (body.stream) writeStream(res, body.model ?? modelId, reply, index);
      else writeJson(res, body.model ?? modelId, reply, index);
      for (const w of waiters.filter((w) => requests.length >= w.count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    } catch (error) {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: String(error) } }));
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    port,
    modelId,
    requests,
    script: (...newSteps) => {
      for (const s of newSteps) {
        steps.push({ label: s.label ?? `step${steps.length}`, when: s.when ?? {}, replies: s.replies, used: 0 });
      }
    },
    reset: () => {
      steps.length = 0;
      requests.length = 0;
    },
    pendingSteps: () => steps.filter((s) => s.used < s.replies.length).map((s) => s.label),
    waitForRequests: (count, timeoutMs = 60_000) =>
      new Promise<void>((resolve, reject) => {
        if (requests.length >= count) return resolve();
        const timer = setTimeout(() => reject(new Error(`scripted model: ${requests.length}/${count} requests after ${timeoutMs} ms`)), timeoutMs);
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
