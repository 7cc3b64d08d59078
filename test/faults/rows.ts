// One row per adapter for the table-driven fault tests: how to start its wire-faithful
// mock, build the provider against it, and speak its wire for the faults a test injects
// (error bodies, a stream cut short, a malformed event, a mid-stream error event, a tool
// call whose argument text is whatever the test wants), plus readers for what the adapter
// sent (tool results, tool_choice). Everything goes over real HTTP to 127.0.0.1.
import { claude } from "../../adapters/claude/index.js";
import { gemini } from "../../adapters/gemini/index.js";
import { openai, openaiChat, openaiCompatible } from "../../adapters/openai/index.js";
import type { ProviderOptions } from "../../src/http/provider-options.js";
import type { Provider } from "../../src/index.js";
import { startClaudeMock } from "../mock/claude.js";
import { startGeminiMock } from "../mock/gemini.js";
import { startOpenAIChatMock } from "../mock/openai-chat.js";
import { startOpenAIResponsesMock } from "../mock/openai-responses.js";

/** The key every row's mock insists on; security tests look for it everywhere. */
export const API_KEY = "sk-faults-SECRET-0123456789abcdefXYZ";

export interface ScriptCall {
  id?: string;
  name: string;
  input?: unknown;
}
export interface ScriptTurn {
  text?: string;
  toolCalls?: ScriptCall[];
}
export type Script = ScriptTurn[] | ((body: unknown, index: number) => ScriptTurn);

/** What a test enqueues; each mock serves queued replies before its script. */
export type Raw =
  | { status: number; headers?: Record<string, string>; body?: string }
  | { sse: string[]; cutAfter?: boolean; hold?: boolean; headers?: Record<string, string>; delayMs?: number; onClose?: () => void };

export interface Mock {
  url: string;
  /** The JSON bodies the mock received, in order. */
  bodies(): any[];
  /** The request headers the mock received, in order. */
  headers(): Record<string, string>[];
  enqueue(raw: Raw): void;
  close(): Promise<void>;
}

/** A recorded tool result as the adapter sent it. */
export interface SentResult {
  id: string;
  /** The output as text (Gemini's functionResponse.response is read back to the text it came from). */
  output: string;
}

/** A tool call of a hand-made reply: args as raw text, as JSON text (spliced in unparsed), or absent. */
export interface RawCall {
  id: string;
  name: string;
  args: { raw: string } | { json: string } | { absent: true };
}

/** JSON with placeholders `"\u0000ARGS<i>"` replaced by the calls' JSON texts, unparsed. */
function splice(value: unknown, texts: string[]): string {
  let out = JSON.stringify(value);
  texts.forEach((t, i) => {
    out = out.split(JSON.stringify(`\u0000ARGS${i}`)).join(t);
  });
  return out;
}

const argText = (c: RawCall): string => ("raw" in c.args ? c.args.raw : "json" in c.args ? c.args.json : "");

export interface Row {
  /** Row label. */
  label: string;
  /** Provider.name in errors and providerData. */
  providerName: string;
  start(options?: { script?: Script; apiKey?: string }): Promise<Mock>;
  provider(mock: { url: string }, options?: Partial<ProviderOptions>): Provider;
  /** The vendor's own base URL (browser-key tests). */
  vendorURL: string | undefined;
  /** An HTTP error body of this provider, and the `type` ProviderError should read from it. */
  errorBody(status: number): { body: string; type: string };
  /** The response header carrying the request id, when the provider sends one. */
  requestIdHeader: string | undefined;
  /** A valid stream up to the first text delta ("Hel"), with no terminal event. */
  partialStream(): string[];
  /** The rest of that stream, terminal event included ("lo" and the end). */
  streamRest(): string[];
  /** An `error` event as the provider sends it in the middle of a stream. */
  errorEvent(message: string): { sse: string; type: string };
  /** An SSE event whose data is not JSON. */
  malformedEvent(): string;
  /**
   * The model's reply with these tool calls, as the provider sends it in `mode`, with the
   * argument given as raw text, as JSON text spliced in unparsed, or absent. Undefined where
   * the wire cannot carry it (raw text where the provider sends arguments as an object).
   */
  toolCallReply(mode: "json" | "sse", calls: RawCall[]): Raw | undefined;
  /** Every tool result in a recorded request body, in order. */
  toolResults(body: any): SentResult[];
  /** Every tool call id in a recorded request body, in order. */
  toolCallIds(body: any): string[];
  /** The request forbade tool calls (tool_choice none / mode NONE). */
  toolChoiceNone(body: any): boolean;
  /** The last user text in a recorded request body. */
  lastUserText(body: any): string | undefined;
}

// ----------------------------------------------------------------------------- Claude

const claudeFrame = (data: Record<string, unknown>) => `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;

const claudeStart = (id: string) =>
  claudeFrame({
    type: "message_start",
    message: {
      id,
      type: "message",
      role: "assistant",
      model: "claude-test",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 1 },
    },
  });

const claudeEnd = (stop: string) => [
  claudeFrame({ type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } }),
  claudeFrame({ type: "message_stop" }),
];

export const claudeRow: Row = {
  label: "claude",
  providerName: "claude",
  vendorURL: "https://api.anthropic.com/v1",
  async start(options = {}) {
    const m = await startClaudeMock({ apiKey: options.apiKey ?? API_KEY, script: options.script as never });
    return {
      url: m.url,
      bodies: () => m.requests.map((r) => r.body),
      headers: () => m.requests.map((r) => r.headers),
      enqueue: (raw) => m.enqueue(raw),
      close: () => m.close(),
    };
  },
  provider: (mock, options = {}) => claude({ apiKey: API_KEY, model: "claude-test", baseURL: mock.url, ...options }),
  errorBody(status) {
    const type = status === 429 ? "rate_limit_error" : status === 529 ? "overloaded_error" : status === 408 || status === 504 ? "timeout_error" : "api_error";
    return { body: JSON.stringify({ type: "error", error: { type, message: `mock ${status}` }, request_id: `req_body_${status}` }), type };
  },
  requestIdHeader: "request-id",
  partialStream: () => [
    claudeStart("msg_partial"),
    claudeFrame({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
    claudeFrame({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hel" } }),
  ],
  streamRest: () => [
    claudeFrame({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "lo" } }),
    claudeFrame({ type: "content_block_stop", index: 0 }),
    ...claudeEnd("end_turn"),
  ],
  errorEvent: (message) => ({
    sse: claudeFrame({ type: "error", error: { type: "overloaded_error", message } }),
    type: "overloaded_error",
  }),
  malformedEvent: () => 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_de\n\n',
  toolCallReply(mode, calls) {
    if (mode === "json") {
      if (calls.some((c) => "raw" in c.args)) return undefined;
      const content = calls.map((c, i) => ({ type: "tool_use", id: c.id, name: c.name, ...("json" in c.args ? { input: `\u0000ARGS${i}` } : {}) }));
      const message = {
        id: "msg_calls",
        type: "message",
        role: "assistant",
        model: "claude-test",
        content,
        stop_reason: "tool_use",
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 5 },
      };
      return { status: 200, headers: { "content-type": "application/json" }, body: splice(message, calls.map(argText)) };
    }
    const sse = [claudeStart("msg_calls")];
    calls.forEach((c, index) => {
      sse.push(claudeFrame({ type: "content_block_start", index, content_block: { type: "tool_use", id: c.id, name: c.name, input: {} } }));
      if (!("absent" in c.args)) {
        const text = argText(c);
        const half = Math.ceil(text.length / 2);
        for (const p of text === "" ? [""] : [text.slice(0, half), text.slice(half)]) {
          sse.push(claudeFrame({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: p } }));
        }
      }
      sse.push(claudeFrame({ type: "content_block_stop", index }));
    });
    sse.push(...claudeEnd("tool_use"));
    return { sse };
  },
  toolResults(body) {
    const out: SentResult[] = [];
    for (const m of body.messages ?? []) {
      if (m.role !== "user" || !Array.isArray(m.content)) continue;
      for (const b of m.content) {
        if (b.type !== "tool_result") continue;
        const content = typeof b.content === "string" ? b.content : Array.isArray(b.content) ? b.content.map((c: any) => c.text ?? "").join("") : "";
        out.push({ id: b.tool_use_id, output: content });
      }
    }
    return out;
  },
  toolCallIds(body) {
    const out: string[] = [];
    for (const m of body.messages ?? []) {
      if (m.role === "assistant" && Array.isArray(m.content)) for (const b of m.content) if (b.type === "tool_use") out.push(b.id);
    }
    return out;
  },
  toolChoiceNone: (body) => body.tool_choice?.type === "none",
  lastUserText(body) {
    const msgs = body.messages ?? [];
    for (let i = msgs.length - 1; i >= 0; i--) {
      const m = msgs[i];
      if (m.role !== "user") continue;
      if (typeof m.content === "string") return m.content;
      const t = [...m.content].reverse().find((b: any) => b.type === "text");
      if (t) return t.text;
    }
    return undefined;
  },
};

// ----------------------------------------------------------------------------- OpenAI Responses

const responsesFrame = (data: Record<string, unknown>) => `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;
const responseObject = (status: string, output: unknown[]) => ({
  id: "resp_faults",
  object: "response",
  status,
  error: null,
  incomplete_details: null,
  model: "gpt-test",
  output,
  usage: status === "completed" ? { input_tokens: 10, output_tokens: 5, input_tokens_details: { cached_tokens: 0 } } : null,
});

export const responsesRow: Row = {
  label: "openai (responses)",
  providerName: "openai",
  vendorURL: "https://api.openai.com/v1",
  async start(options = {}) {
    const m = await startOpenAIResponsesMock({ apiKey: options.apiKey ?? API_KEY, script: options.script as never });
    return openAIMock(m);
  },
  provider: (mock, options = {}) => openai({ apiKey: API_KEY, model: "gpt-test", baseURL: mock.url, ...options }),
  errorBody: openAIErrorBody,
  requestIdHeader: "x-request-id",
  partialStream: () => [
    responsesFrame({ type: "response.created", sequence_number: 0, response: responseObject("in_progress", []) }),
    responsesFrame({
      type: "response.output_item.added",
      sequence_number: 1,
      output_index: 0,
      item: { id: "msg_1", type: "message", status: "in_progress", role: "assistant", content: [] },
    }),
    responsesFrame({ type: "response.output_text.delta", sequence_number: 2, item_id: "msg_1", output_index: 0, content_index: 0, delta: "Hel" }),
  ],
  streamRest: () => {
    const item = { id: "msg_1", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: "Hello", annotations: [] }] };
    return [
      responsesFrame({ type: "response.output_text.delta", sequence_number: 3, item_id: "msg_1", output_index: 0, content_index: 0, delta: "lo" }),
      responsesFrame({ type: "response.output_item.done", sequence_number: 4, output_index: 0, item }),
      responsesFrame({ type: "response.completed", sequence_number: 5, response: responseObject("completed", [item]) }),
    ];
  },
  errorEvent: (message) => ({
    sse: responsesFrame({ type: "error", sequence_number: 3, code: "server_error", message, param: null }),
    type: "server_error",
  }),
  malformedEvent: () => 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":\n\n',
  toolCallReply(mode, calls) {
    const items = calls.map((c) => ({ id: `fc_${c.id}`, type: "function_call", status: "completed", arguments: argText(c), call_id: c.id, name: c.name }));
    if (mode === "json") return { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(responseObject("completed", items)) };
    const sse = [responsesFrame({ type: "response.created", sequence_number: 0, response: responseObject("in_progress", []) })];
    items.forEach((item, output_index) => {
      sse.push(
        responsesFrame({ type: "response.output_item.added", sequence_number: 1, output_index, item: { ...item, status: "in_progress", arguments: "" } }),
      );
      if (item.arguments !== "") {
        sse.push(responsesFrame({ type: "response.function_call_arguments.delta", sequence_number: 2, item_id: item.id, output_index, delta: item.arguments }));
      }
      sse.push(
        responsesFrame({ type: "response.function_call_arguments.done", sequence_number: 3, item_id: item.id, output_index, arguments: item.arguments }),
      );
      sse.push(responsesFrame({ type: "response.output_item.done", sequence_number: 4, output_index, item }));
    });
    sse.push(responsesFrame({ type: "response.completed", sequence_number: 5, response: responseObject("completed", items) }));
    return { sse };
  },
  toolResults: (body) => (body.input ?? []).filter((i: any) => i.type === "function_call_output").map((i: any) => ({ id: i.call_id, output: i.output })),
  toolCallIds: (body) => (body.input ?? []).filter((i: any) => i.type === "function_call").map((i: any) => i.call_id),
  toolChoiceNone: (body) => body.tool_choice === "none",
  lastUserText(body) {
    const input = body.input ?? [];
    for (let i = input.length - 1; i >= 0; i--) if (input[i].role === "user") return typeof input[i].content === "string" ? input[i].content : undefined;
    return undefined;
  },
};

function openAIMock(m: Awaited<ReturnType<typeof startOpenAIChatMock>>): Mock {
  return {
    url: m.url,
    bodies: () => m.requests.map((r) => r.body),
    headers: () => m.requests.map((r) => r.headers),
    enqueue: (raw) => m.enqueue(raw),
    close: () => m.close(),
  };
}

function openAIErrorBody(status: number): { body: string; type: string } {
  const type = status === 429 ? "rate_limit_error" : status === 408 || status === 504 ? "timeout" : "server_error";
  return { body: JSON.stringify({ error: { message: `mock ${status}`, type, param: null, code: null } }), type };
}

// ----------------------------------------------------------------------------- Chat Completions

const chatChunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({
    id: "chatcmpl-faults",
    object: "chat.completion.chunk",
    created: 1,
    model: "chat-test",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  })}\n\n`;

function chatRow(label: string, make: (url: string, options: Partial<ProviderOptions>) => Provider, providerName: string, vendorURL: string | undefined): Row {
  return {
    label,
    providerName,
    vendorURL,
    async start(options = {}) {
      const m = await startOpenAIChatMock({ apiKey: options.apiKey ?? API_KEY, script: options.script as never });
      return openAIMock(m);
    },
    provider: (mock, options = {}) => make(mock.url, options),
    errorBody: openAIErrorBody,
    requestIdHeader: "x-request-id",
    partialStream: () => [chatChunk({ role: "assistant", content: "" }), chatChunk({ content: "Hel" })],
    streamRest: () => [chatChunk({ content: "lo" }), chatChunk({}, "stop"), "data: [DONE]\n\n"],
    errorEvent: (message) => ({
      sse: `data: ${JSON.stringify({ error: { message, type: "server_error", param: null, code: null } })}\n\n`,
      type: "server_error",
    }),
    malformedEvent: () => 'data: {"id":"chatcmpl-faults","choices":[{"index":0,"delta":{"content":"x"\n\n',
    toolCallReply(mode, calls) {
      if (mode === "json") {
        const message = {
          role: "assistant",
          content: null,
          tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: argText(c) } })),
        };
        const body = {
          id: "chatcmpl-calls",
          object: "chat.completion",
          created: 1,
          model: "chat-test",
          choices: [{ index: 0, message, logprobs: null, finish_reason: "tool_calls" }],
          usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        };
        return { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
      }
      const sse = [chatChunk({ role: "assistant", content: null })];
      calls.forEach((c, index) => {
        sse.push(chatChunk({ tool_calls: [{ index, id: c.id, type: "function", function: { name: c.name, arguments: "" } }] }));
        const text = argText(c);
        if (text !== "") sse.push(chatChunk({ tool_calls: [{ index, function: { arguments: text } }] }));
      });
      sse.push(chatChunk({}, "tool_calls"), "data: [DONE]\n\n");
      return { sse };
    },
    toolResults: (body) => (body.messages ?? []).filter((m: any) => m.role === "tool").map((m: any) => ({ id: m.tool_call_id, output: m.content })),
    toolCallIds: (body) => (body.messages ?? []).flatMap((m: any) => (m.role === "assistant" && m.tool_calls ? m.tool_calls.map((c: any) => c.id) : [])),
    toolChoiceNone: (body) => body.tool_choice === "none",
    lastUserText(body) {
      const msgs = body.messages ?? [];
      for (let i = msgs.length - 1; i >= 0; i--) if (msgs[i].role === "user") return msgs[i].content;
      return undefined;
    },
  };
}

export const chatRowOpenAI = chatRow(
  "openai (chat)",
  (url, options) => openaiChat({ apiKey: API_KEY, model: "gpt-test", baseURL: url, ...options }),
  "openai",
  "https://api.openai.com/v1",
);

export const compatibleRow = chatRow(
  "openai-compatible",
  (url, options) => openaiCompatible({ apiKey: API_KEY, model: "local-test", baseURL: url, ...options }),
  "openai-compatible",
  undefined,
);

// ----------------------------------------------------------------------------- Gemini

const geminiData = (chunk: unknown) => `data: ${JSON.stringify(chunk)}\r\n\r\n`;
const geminiChunk = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
  candidates: [{ content: { parts, role: "model" }, index: 0, ...extra }],
  usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
  modelVersion: "gemini-test",
  responseId: "resp-faults",
});

export const geminiRow: Row = {
  label: "gemini",
  providerName: "gemini",
  vendorURL: "https://generativelanguage.googleapis.com/v1beta",
  async start(options = {}) {
    const m = await startGeminiMock({ apiKey: options.apiKey ?? API_KEY, script: options.script as never });
    return {
      url: m.url,
      bodies: () => m.requests.map((r) => r.body),
      headers: () => m.requests.map((r) => r.headers),
      enqueue: (raw) => m.enqueue("status" in raw ? raw : { ...raw, holdOpen: raw.hold }),
      close: () => m.close(),
    };
  },
  provider: (mock, options = {}) => gemini({ apiKey: API_KEY, model: "gemini-test", baseURL: mock.url, ...options }),
  errorBody(status) {
    const type =
      status === 429
        ? "RESOURCE_EXHAUSTED"
        : status === 503
          ? "UNAVAILABLE"
          : status === 504 || status === 408
            ? "DEADLINE_EXCEEDED"
            : status === 409
              ? "ABORTED"
              : "INTERNAL";
    return { body: JSON.stringify({ error: { code: status, message: `mock ${status}`, status: type } }), type };
  },
  requestIdHeader: undefined,
  partialStream: () => [geminiData(geminiChunk([{ text: "Hel" }]))],
  streamRest: () => [geminiData(geminiChunk([{ text: "lo" }], { finishReason: "STOP" }))],
  errorEvent: (message) => ({ sse: geminiData({ error: { code: 503, message, status: "UNAVAILABLE" } }), type: "UNAVAILABLE" }),
  malformedEvent: () => 'data: {"candidates": [{"content": {"parts": [{"text": "x"}\r\n\r\n',
  toolCallReply(mode, calls) {
    if (calls.some((c) => "raw" in c.args)) return undefined;
    const parts = calls.map((c, i) => ({ functionCall: { id: c.id, name: c.name, ...("json" in c.args ? { args: `\u0000ARGS${i}` } : {}) } }));
    const texts = calls.map(argText);
    if (mode === "json") {
      return { status: 200, headers: { "content-type": "application/json" }, body: splice(geminiChunk(parts, { finishReason: "STOP" }), texts) };
    }
    return {
      sse: [`data: ${splice(geminiChunk(parts), texts)}\r\n\r\n`, geminiData(geminiChunk([{ text: "" }], { finishReason: "STOP" }))],
    };
  },
  toolResults(body) {
    const out: SentResult[] = [];
    for (const c of body.contents ?? []) {
      for (const p of c.parts ?? []) {
        const fr = p.functionResponse;
        if (!fr) continue;
        // The adapter's mapping read backwards: {output: text | parsed JSON} for a success;
        // {error: ...} for an error, which is either the error JSON itself ({"error":"msg"})
        // or wraps the parsed output.
        const r = fr.response ?? {};
        let output: string;
        if ("output" in r) output = typeof r.output === "string" ? r.output : JSON.stringify(r.output);
        else if (typeof r.error === "string") output = JSON.stringify(r);
        else output = JSON.stringify(r.error ?? r);
        out.push({ id: fr.id ?? fr.name, output });
      }
    }
    return out;
  },
  toolCallIds(body) {
    const out: string[] = [];
    for (const c of body.contents ?? []) for (const p of c.parts ?? []) if (p.functionCall) out.push(p.functionCall.id ?? p.functionCall.name);
    return out;
  },
  toolChoiceNone: (body) => body.toolConfig?.functionCallingConfig?.mode === "NONE",
  lastUserText(body) {
    const contents = body.contents ?? [];
    for (let i = contents.length - 1; i >= 0; i--) {
      if (contents[i].role === "model") continue;
      const t = [...(contents[i].parts ?? [])].reverse().find((p: any) => typeof p.text === "string");
      if (t) return t.text;
    }
    return undefined;
  },
};

/** Every adapter, one row each. */
export const ROWS: Row[] = [claudeRow, responsesRow, chatRowOpenAI, compatibleRow, geminiRow];
