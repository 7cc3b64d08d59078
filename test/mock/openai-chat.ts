// A wire-faithful OpenAI Chat Completions server for tests (node:http on 127.0.0.1, port 0).
// It validates requests the way api.openai.com does (auth, model, tool-call pairing,
// strict schemas, capability flags) and answers with the real error shapes; scripted
// turns come back as a chat.completion or as SSE chunks ending with `data: [DONE]`, with
// tool arguments cut across several deltas. Raw replies queued with enqueue() win over
// the script (fault tests, recorded fixtures).
//
// This file also holds the HTTP plumbing shared with ./openai-responses.ts.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface MockToolCall {
  id?: string;
  name: string;
  /** JSON-encoded into the arguments string. */
  input?: unknown;
  /** The raw arguments string, used instead of `input` (e.g. "" or broken JSON). */
  arguments?: string;
}

/** One scripted model turn. */
export interface MockTurn {
  text?: string;
  toolCalls?: MockToolCall[];
}

export type RawReply =
  | { status: number; headers?: Record<string, string>; body?: unknown }
  | {
      /** Written as-is, one write per string (callers frame the events). */
      sse: string[];
      /** Destroy the connection after the last string instead of ending the response. */
      cutAfter?: boolean;
      /** Keep the response open after the last string until the client goes away. */
      hold?: boolean;
      /** ms to wait before each string (a stream that trickles: keep-alives, slow deltas). */
      delayMs?: number;
      /** Called when this response's connection closes (the client went away, or the response ended). */
      onClose?: () => void;
      status?: number;
      headers?: Record<string, string>;
    };

export interface RecordedRequest {
  headers: Record<string, string>;
  body: unknown;
}

export interface OpenAIMock {
  /** baseURL including /v1. */
  url: string;
  requests: RecordedRequest[];
  enqueue(raw: RawReply): void;
  close(): Promise<void>;
}

export type MockScript = MockTurn[] | ((body: unknown, index: number) => MockTurn);

export interface OpenAIMockOptions {
  /** When set, requests must carry `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Answer CORS preflights and add CORS headers (browser tests). */
  cors?: boolean;
  script?: MockScript;
}

export interface OpenAIChatMockOptions extends OpenAIMockOptions {
  /** Behave like a server that does not know parallel_tool_calls (400 when sent). */
  rejectParallelToolCalls?: boolean;
  /** Behave like a server that does not know stream_options (400 when sent). */
  rejectStreamOptions?: boolean;
}

/** An OpenAI error reply: {error:{message,type,param,code}}. */
export function openAIError(status: number, message: string, options: { type?: string; param?: string | null; code?: string | null } = {}): RawReply {
  return {
    status,
    body: { error: { message, type: options.type ?? "invalid_request_error", param: options.param ?? null, code: options.code ?? null } },
  };
}

/** Thrown by request validation: becomes the reply. */
export class Reject extends Error {
  constructor(readonly reply: RawReply) {
    super("rejected");
  }
}

export function reject(message: string, param: string | null = null, code: string | null = null, status = 400): never {
  throw new Reject(openAIError(status, message, { param, code }));
}

export function sseData(payload: unknown): string {
  return `data: ${typeof payload === "string" ? payload : JSON.stringify(payload)}\n\n`;
}

export function sseEvent(type: string, payload: unknown): string {
  return `event: ${type}\ndata: ${JSON.stringify(payload)}\n\n`;
}

/** Cuts `s` into pieces of about `size` characters (at least two pieces when it can). */
export function fragments(s: string, size = 7): string[] {
  if (s.length <= 1) return [s];
  const n = Math.max(2, Math.ceil(s.length / size));
  const step = Math.ceil(s.length / n);
  const out: string[] = [];
  for (let i = 0; i < s.length; i += step) out.push(s.slice(i, i + step));
  return out;
}

/** Text deltas the way models send them: a word with its leading space. */
export function words(s: string): string[] {
  return s.match(/\s*\S+|\s+$/g) ?? (s ? [s] : []);
}

export function estimateTokens(value: unknown): number {
  const s = typeof value === "string" ? value : JSON.stringify(value ?? "");
  return Math.max(1, Math.ceil(s.length / 4));
}

export function mockId(prefix: string): string {
  return `${prefix}${randomUUID().replace(/-/g, "")}`;
}

export function argumentsOf(call: MockToolCall): string {
  return call.arguments ?? JSON.stringify(call.input ?? {});
}

export interface MockServerConfig {
  /** The endpoint below /v1, e.g. "/chat/completions". */
  path: string;
  options: OpenAIMockOptions;
  /** Validates and answers one request (throw Reject for a 4xx). */
  handle(body: Record<string, unknown>, turn: () => MockTurn): RawReply;
}

/** The HTTP side both mocks share: CORS, routing, auth, JSON, recording, the reply queue. */
export async function startOpenAIMockServer(config: MockServerConfig): Promise<OpenAIMock> {
  const { options } = config;
  const requests: RecordedRequest[] = [];
  const queue: RawReply[] = [];
  const sockets = new Set<Socket>();
  let scriptIndex = 0;

  const nextTurn = (body: unknown): MockTurn => {
    const script = options.script;
    const index = scriptIndex++;
    if (typeof script === "function") return script(body, index);
    if (!script) return { text: "ok" };
    const turn = script[index];
    if (!turn) throw new Reject(openAIError(500, `mock: the script has no turn ${index + 1}`, { type: "server_error" }));
    return turn;
  };

  const server = createServer(async (req, res) => {
    try {
      await serve(req, res);
    } catch (err) {
      if (!res.headersSent) send(res, openAIError(500, `mock failure: ${(err as Error).message}`, { type: "server_error" }));
      else res.destroy();
    }
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });

  const corsHeaders = (req: IncomingMessage): Record<string, string> =>
    options.cors
      ? {
          "access-control-allow-origin": req.headers.origin ?? "*",
          "access-control-expose-headers": "x-request-id, retry-after, retry-after-ms",
          vary: "Origin",
        }
      : {};

  let requestCounter = 0;
  const send = (res: ServerResponse, reply: RawReply, extra: Record<string, string> = {}) => {
    const requestId = `req_mock${String(++requestCounter).padStart(6, "0")}`;
    if ("sse" in reply) {
      res.writeHead(reply.status ?? 200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache",
        "x-request-id": requestId,
        ...extra,
        ...reply.headers,
      });
      res.flushHeaders();
      if (reply.onClose) res.on("close", reply.onClose);
      const write = async () => {
        for (const chunk of reply.sse) {
          if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
          if (res.destroyed) return;
          await new Promise<void>((resolve) => res.write(chunk, () => resolve()));
        }
        if (reply.cutAfter) res.socket?.destroy();
        else if (!reply.hold) res.end();
      };
      void write();
      return;
    }
    const body = reply.body === undefined ? "" : typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body);
    res.writeHead(reply.status, {
      ...(reply.body !== undefined && typeof reply.body !== "string" ? { "content-type": "application/json" } : {}),
      "x-request-id": requestId,
      ...extra,
      ...reply.headers,
    });
    res.end(body);
  };

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const cors = corsHeaders(req);
    if (req.method === "OPTIONS" && options.cors) {
      res.writeHead(204, {
        ...cors,
        "access-control-allow-methods": "POST, OPTIONS",
        "access-control-allow-headers": req.headers["access-control-request-headers"] ?? "authorization, content-type",
        "access-control-max-age": "600",
      });
      res.end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      parsed = raw;
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v;
    requests.push({ headers, body: parsed });

    const queued = queue.shift();
    if (queued) return send(res, queued, cors);
    try {
      const path = new URL(req.url ?? "/", "http://mock").pathname;
      if (req.method !== "POST" || path !== `/v1${config.path}`) {
        reject(`Invalid URL (${req.method} ${path})`, null, null, 404);
      }
      checkAuth(headers.authorization, options.apiKey);
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
        reject(
          "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
        );
      }
      const body = parsed as Record<string, unknown>;
      if (typeof body.model !== "string" || body.model === "") reject("you must provide a model parameter", "model");
      send(
        res,
        config.handle(body, () => nextTurn(body)),
        cors,
      );
    } catch (err) {
      if (err instanceof Reject) return send(res, err.reply, cors);
      throw err;
    }
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue(raw) {
      queue.push(raw);
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function checkAuth(header: string | undefined, apiKey: string | undefined): void {
  if (apiKey === undefined) return;
  if (!header) {
    throw new Reject(
      openAIError(
        401,
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys.",
      ),
    );
  }
  const key = /^Bearer (.+)$/.exec(header)?.[1];
  if (key !== apiKey) {
    const shown = key && key.length > 8 ? `${key.slice(0, 3)}*****${key.slice(-4)}` : "*****";
    throw new Reject(
      openAIError(401, `Incorrect API key provided: ${shown}. You can find your API key at https://platform.openai.com/account/api-keys.`, {
        code: "invalid_api_key",
      }),
    );
  }
}

/** "In context=('properties', 'x')" as the API writes JSON-schema locations. */
function context(path: string[]): string {
  return `(${path.map((p) => `'${p}'`).join(", ")})`;
}

const STRICT_KEYWORDS = new Set([
  "type",
  "enum",
  "const",
  "description",
  "title",
  "pattern",
  "format",
  "multipleOf",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minItems",
  "maxItems",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "anyOf",
  "$ref",
  "$defs",
  "definitions",
]);

/** What the API says about a function schema it rejects, or undefined when it takes it. */
export function schemaError(schema: unknown, strict: boolean): string | undefined {
  if (typeof schema !== "object" || schema === null) return "schema must be a JSON Schema object";
  const root = schema as Record<string, unknown>;
  if (root.type !== "object") return `schema must be a JSON Schema of 'type: "object"', got 'type: "${String(root.type)}"'.`;
  return walkSchema(root, [], strict);
}

function walkSchema(node: unknown, path: string[], strict: boolean): string | undefined {
  if (typeof node !== "object" || node === null || Array.isArray(node)) {
    return strict ? `In context=${context(path)}, schema must be an object.` : undefined;
  }
  const s = node as Record<string, unknown>;
  const types = Array.isArray(s.type) ? s.type : [s.type];
  if (types.includes("array") && s.items === undefined) return `In context=${context(path)}, array schema missing items.`;
  if (strict) {
    for (const key of Object.keys(s)) {
      if (!STRICT_KEYWORDS.has(key)) return `In context=${context(path)}, '${key}' is not permitted.`;
    }
    if (types.includes("object") || s.properties !== undefined) {
      if (s.additionalProperties !== false) {
        return `In context=${context(path)}, 'additionalProperties' is required to be supplied and to be false.`;
      }
      const keys = Object.keys((s.properties ?? {}) as object);
      const required = Array.isArray(s.required) ? s.required : [];
      const missing = keys.find((k) => !required.includes(k));
      if (missing !== undefined) {
        return `In context=${context(path)}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`;
      }
    }
  }
  for (const [k, sub] of Object.entries((s.properties ?? {}) as object)) {
    const e = walkSchema(sub, [...path, "properties", k], strict);
    if (e) return e;
  }
  if (s.items !== undefined) {
    const e = walkSchema(s.items, [...path, "items"], strict);
    if (e) return e;
  }
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    const list = s[key];
    if (!Array.isArray(list)) continue;
    for (let i = 0; i < list.length; i++) {
      const e = walkSchema(list[i], [...path, key, String(i)], strict);
      if (e) return e;
    }
  }
  for (const key of ["$defs", "definitions"]) {
    for (const [k, sub] of Object.entries((s[key] ?? {}) as object)) {
      const e = walkSchema(sub, [...path, key, k], strict);
      if (e) return e;
    }
  }
  return undefined;
}

/** The same check for a json_schema response format. */
export function formatSchemaError(schema: unknown, strict: boolean): string | undefined {
  return schemaError(schema, strict);
}

// ---------------------------------------------------------------- Chat Completions

export async function startOpenAIChatMock(options: OpenAIChatMockOptions = {}): Promise<OpenAIMock> {
  return startOpenAIMockServer({ path: "/chat/completions", options, handle: (body, turn) => answerChat(body, turn, options) });
}

function answerChat(body: Record<string, unknown>, nextTurn: () => MockTurn, options: OpenAIChatMockOptions): RawReply {
  validateChat(body, options);
  const turn = nextTurn();
  const id = mockId("chatcmpl-");
  const created = Math.floor(Date.now() / 1000);
  const model = `${String(body.model)}-mock`;
  const text = turn.text ?? "";
  const calls = (turn.toolCalls ?? []).map((c) => ({ id: c.id ?? mockId("call_").slice(0, 29), name: c.name, args: argumentsOf(c) }));
  const finish = calls.length > 0 ? "tool_calls" : "stop";
  const usage = {
    prompt_tokens: estimateTokens(body.messages),
    completion_tokens: estimateTokens(text + calls.map((c) => c.args).join("")),
    total_tokens: 0,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
  usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;

  if (body.stream !== true) {
    const message: Record<string, unknown> = { role: "assistant", content: text === "" && calls.length > 0 ? null : text, refusal: null, annotations: [] };
    if (calls.length > 0) {
      message.tool_calls = calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.args } }));
    }
    return {
      status: 200,
      body: {
        id,
        object: "chat.completion",
        created,
        model,
        choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
        usage,
        service_tier: "default",
        system_fingerprint: "fp_mock",
      },
    };
  }

  const withUsage = (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => {
    const c: Record<string, unknown> = {
      id,
      object: "chat.completion.chunk",
      created,
      model,
      service_tier: "default",
      system_fingerprint: "fp_mock",
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    };
    if (withUsage) c.usage = null;
    c.obfuscation = "mock";
    return sseData(c);
  };
  const sse: string[] = [];
  sse.push(chunk({ role: "assistant", content: calls.length > 0 && text === "" ? null : "", refusal: null }));
  for (const w of words(text)) sse.push(chunk({ content: w }));
  calls.forEach((c, index) => {
    sse.push(chunk({ tool_calls: [{ index, id: c.id, type: "function", function: { name: c.name, arguments: "" } }] }));
    for (const f of c.args === "" ? [] : fragments(c.args)) sse.push(chunk({ tool_calls: [{ index, function: { arguments: f } }] }));
  });
  sse.push(chunk({}, finish));
  if (withUsage) {
    sse.push(
      sseData({
        id,
        object: "chat.completion.chunk",
        created,
        model,
        service_tier: "default",
        system_fingerprint: "fp_mock",
        choices: [],
        usage,
        obfuscation: "mock",
      }),
    );
  }
  sse.push("data: [DONE]\n\n");
  return { sse };
}

function validateChat(body: Record<string, unknown>, options: OpenAIChatMockOptions): void {
  if (options.rejectParallelToolCalls && "parallel_tool_calls" in body) {
    reject("Unrecognized request argument supplied: parallel_tool_calls", "parallel_tool_calls", "unrecognized_argument");
  }
  // OpenAI's o-series on Chat Completions (reported for o1, o3, o3-mini, o4-mini).
  if (/^o\d/.test(String(body.model)) && "parallel_tool_calls" in body) {
    reject("Unsupported parameter: 'parallel_tool_calls' is not supported with this model.", "parallel_tool_calls", "unsupported_parameter");
  }
  if (options.rejectStreamOptions && "stream_options" in body) {
    reject("Unrecognized request argument supplied: stream_options", "stream_options", "unrecognized_argument");
  }
  if ("stream_options" in body && body.stream !== true) {
    reject("The 'stream_options' parameter is only allowed when 'stream' is enabled.", "stream_options", "invalid_value");
  }
  const messages = body.messages;
  if (!Array.isArray(messages)) reject("Missing required parameter: 'messages'.", "messages", "missing_required_parameter");
  if (messages.length === 0) reject("[] is too short - 'messages'", "messages", "empty_array");

  const tools = body.tools;
  if (tools !== undefined) {
    if (!Array.isArray(tools)) reject("Invalid type for 'tools': expected an array.", "tools", "invalid_type");
    tools.forEach((t, i) => {
      const fn = (t as { type?: unknown; function?: Record<string, unknown> }).function;
      if ((t as { type?: unknown }).type !== "function" || !fn)
        reject(`Missing required parameter: 'tools[${i}].function'.`, `tools[${i}].function`, "missing_required_parameter");
      if (typeof fn.name !== "string" || !/^[a-zA-Z0-9_-]{1,64}$/.test(fn.name)) {
        reject(
          `Invalid 'tools[${i}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
          `tools[${i}].function.name`,
          "invalid_value",
        );
      }
      const problem = fn.parameters === undefined ? undefined : schemaError(fn.parameters, fn.strict === true);
      if (problem) reject(`Invalid schema for function '${fn.name}': ${problem}`, `tools[${i}].function.parameters`, "invalid_function_parameters");
    });
  }
  const hasTools = Array.isArray(tools) && tools.length > 0;
  if (body.tool_choice !== undefined && !hasTools) {
    reject("Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.", "tool_choice", null);
  }
  if (body.tool_choice !== undefined && hasTools) {
    const choice = body.tool_choice as unknown;
    if (typeof choice === "string") {
      if (!["none", "auto", "required"].includes(choice))
        reject(`Invalid value: '${choice}'. Supported values are: 'none', 'auto', and 'required'.`, "tool_choice", "invalid_value");
    } else {
      const c = choice as { type?: unknown; function?: { name?: unknown } };
      if (c.type !== "function" || typeof c.function?.name !== "string")
        reject("Missing required parameter: 'tool_choice.function.name'.", "tool_choice.function.name", "missing_required_parameter");
      const names = (tools as { function?: { name?: unknown } }[]).map((t) => t.function?.name);
      if (!names.includes(c.function.name))
        reject(`Invalid value for 'tool_choice': tool '${c.function.name}' not found in 'tools' list.`, "tool_choice", null);
    }
  }
  if (body.parallel_tool_calls !== undefined && !hasTools) {
    reject("Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified.", "parallel_tool_calls", null);
  }
  const format = body.response_format as { type?: unknown; json_schema?: Record<string, unknown> } | undefined;
  if (format !== undefined && format.type === "json_schema") {
    const js = format.json_schema;
    if (!js || typeof js.name !== "string")
      reject("Missing required parameter: 'response_format.json_schema.name'.", "response_format.json_schema.name", "missing_required_parameter");
    const problem = formatSchemaError(js.schema, js.strict === true);
    if (problem) reject(`Invalid schema for response_format '${js.name}': ${problem}`, "response_format", "invalid_json_schema");
  }

  // Tool-call pairing, checked the way the API does.
  let pending: string[] = [];
  let pendingAt = -1;
  let inToolRun = false;
  messages.forEach((m, i) => {
    const msg = m as Record<string, unknown>;
    const role = msg.role;
    if (!["system", "developer", "user", "assistant", "tool"].includes(role as string)) {
      reject(
        `Invalid value: '${String(role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
        `messages[${i}].role`,
        "invalid_value",
      );
    }
    if (role === "tool") {
      if (!inToolRun)
        reject("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", `messages.[${i}].role`);
      const id = msg.tool_call_id;
      if (typeof id !== "string")
        reject(`Missing required parameter: 'messages[${i}].tool_call_id'.`, `messages[${i}].tool_call_id`, "missing_required_parameter");
      pending = pending.filter((p) => p !== id);
      if (Array.isArray(msg.content)) checkChatParts(msg.content, i, "tool");
      else if (typeof msg.content !== "string")
        reject(`Invalid type for 'messages[${i}].content': expected one of a string or array of objects.`, `messages[${i}].content`, "invalid_type");
      return;
    }
    if (pending.length > 0) {
      reject(
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${pending.join(", ")}`,
        `messages.[${pendingAt}].role`,
      );
    }
    inToolRun = false;
    if (role === "assistant") {
      const calls = msg.tool_calls;
      if (Array.isArray(calls) && calls.length > 0) {
        pending = calls.map((c) => String((c as { id?: unknown }).id));
        pendingAt = i;
        inToolRun = true;
      } else if (msg.content === null || msg.content === undefined) {
        reject(`Invalid value for 'content': expected a string, got null.`, `messages.[${i}].content`);
      }
    } else if (typeof msg.content !== "string" && !Array.isArray(msg.content)) {
      reject(
        `Invalid type for 'messages[${i}].content': expected one of a string or array of objects, but got ${msg.content === null ? "null" : typeof msg.content} instead.`,
        `messages[${i}].content`,
        "invalid_type",
      );
    }
    if (Array.isArray(msg.content)) checkChatParts(msg.content, i, role as string);
  });
  if (pending.length > 0) {
    reject(
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${pending.join(", ")}`,
      `messages.[${pendingAt}].role`,
    );
  }
}

/** Which content part types each role takes (tool, system and developer messages: text only). */
const PART_TYPES: Record<string, string[]> = {
  user: ["text", "image_url", "input_audio", "file"],
  assistant: ["text", "refusal"],
  tool: ["text"],
  system: ["text"],
  developer: ["text"],
};

/** Content parts the way the API checks them, with its error texts. */
function checkChatParts(parts: unknown[], i: number, role: string): void {
  const allowed = PART_TYPES[role] ?? ["text"];
  if (parts.length === 0 && role === "tool")
    reject(
      `Invalid 'messages[${i}].content': empty array. Expected an array with minimum length 1, but got an empty array instead.`,
      `messages[${i}].content`,
      "empty_array",
    );
  parts.forEach((raw, j) => {
    const where = `messages[${i}].content[${j}]`;
    const part = raw as Record<string, unknown>;
    if (!allowed.includes(part.type as string)) {
      reject(`Invalid value: '${String(part.type)}'. Supported values are: ${allowed.map((t) => `'${t}'`).join(", ")}.`, `${where}.type`, "invalid_value");
    }
    if (part.type === "text" && typeof part.text !== "string")
      reject(`Missing required parameter: '${where}.text'.`, `${where}.text`, "missing_required_parameter");
    if (part.type === "image_url") {
      const url = (part.image_url as { url?: unknown } | undefined)?.url;
      if (typeof url !== "string") reject(`Missing required parameter: '${where}.image_url.url'.`, `${where}.image_url.url`, "missing_required_parameter");
      if (!/^https?:\/\//.test(url) && !/^data:image\/(png|jpeg|jpg|webp|gif);base64,[A-Za-z0-9+/=]*$/.test(url)) {
        reject(
          "Invalid image URL: the URL must be an http(s) URL or a base64 data URL of a PNG, JPEG, WEBP or GIF image.",
          `${where}.image_url.url`,
          "invalid_image_url",
        );
      }
    }
    if (part.type === "file") {
      const file = (part.file ?? {}) as Record<string, unknown>;
      if (typeof file.file_data !== "string" && typeof file.file_id !== "string") {
        reject(`Missing required parameter: '${where}.file.file_data' or '${where}.file.file_id'.`, `${where}.file`, "missing_required_parameter");
      }
      if ("file_url" in file || "url" in file)
        reject(`Unrecognized request argument supplied: ${where}.file.${"file_url" in file ? "file_url" : "url"}`, `${where}.file`, "unrecognized_argument");
      if (typeof file.file_data === "string" && !/^data:application\/pdf;base64,[A-Za-z0-9+/=]*$/.test(file.file_data)) {
        reject("Invalid file data: expected a base64 data URL of a PDF file (data:application/pdf;base64,...).", `${where}.file.file_data`, "invalid_value");
      }
    }
  });
}
