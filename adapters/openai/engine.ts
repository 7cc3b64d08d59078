// The engine behind the three OpenAI factories: an Endpoint says how one wire format is
// spoken (URL, body, decoders), and createProvider turns a factory's config into the provider
// object whose generate() POSTs, decodes and maps strict output back. Private to the adapter:
// toolloop/openai exports only the factories and their option types (index.ts).
import { copyWith, UnsupportedSchemaError } from "../../src/base/index.js";
import type { ModelRequest, ModelResponse, Provider, StreamDecoder, ToolSpec } from "../../src/conversation/index.js";
import { httpSettings, type ProviderOptions, postJSON, postSSE, type RequestOverrides } from "../../src/http/index.js";
import { createChatStreamDecoder, decodeChatBody } from "./chat-decode.js";
import { type ChatSettings, encodeChatRequest } from "./chat-encode.js";
import type { DecodeContext } from "./decode.js";
import { readOpenAIError } from "./errors.js";
import { createResponsesStreamDecoder, decodeResponsesBody } from "./responses-decode.js";
import { encodeResponsesRequest, type ResponsesSettings } from "./responses-encode.js";
import { findSchemaProblem } from "./schema-check.js";
import { type PreparedSchema, prepareFormat, prepareTools, restoreStrict, type StrictMode } from "./strict-mode.js";

/** The provider every factory returns; JSON (and so logs) show only the name and model, never the key. */
export interface OpenAIProvider extends Provider {
  readonly model: string;
  toJSON(): { name: string; model: string };
}

/** How one API is spoken: where to POST, what body, and how to read the answer. */
export type Endpoint = (request: ModelRequest, tools: PreparedSchema[], format: PreparedSchema | undefined, stream: boolean) => Exchange;

interface Exchange {
  url: string;
  body: Record<string, unknown>;
  decodeBody: (ctx: DecodeContext, body: unknown) => ModelResponse;
  stream: (ctx: DecodeContext, onDelta?: ModelRequest["onDelta"]) => StreamDecoder;
}

export function responsesEndpoint(base: string, settings: ResponsesSettings): Endpoint {
  return (request, tools, format, stream) => ({
    url: `${base}/responses`,
    body: encodeResponsesRequest(request, settings, tools, format, stream),
    decodeBody: decodeResponsesBody,
    stream: createResponsesStreamDecoder,
  });
}

export function chatEndpoint(base: string, settings: ChatSettings): Endpoint {
  return (request, tools, format, stream) => ({
    url: `${base}/chat/completions`,
    body: encodeChatRequest(request, settings, tools, format, stream),
    decodeBody: decodeChatBody,
    stream: createChatStreamDecoder,
  });
}

export type KeyedOptions = ProviderOptions & { organization?: string; project?: string };

/** What one provider object is made of; each factory fills it in. */
export interface ProviderConfig {
  /** Names the provider in errors and providerData. */
  name: string;
  /** The caller's options (key, headers, fetch, retries...). */
  options: KeyedOptions;
  /** The vendor's own URL, where a key from a browser needs dangerouslyAllowBrowser. */
  vendorBaseURL: string;
  strict: StrictMode;
  /** Refuse array schemas without items when tools are set (OpenAI does; other servers may not). */
  arrayItems: boolean;
  endpoint: Endpoint;
}

/** The provider object. The key stays in this closure: the object has no property holding it. */
export function createProvider(config: ProviderConfig): OpenAIProvider {
  const { name, options } = config;
  return {
    name,
    model: options.model,
    checkTools: (tools) => checkTools(name, tools, config.arrayItems),
    generate: (request) => send(config, request),
    toJSON: () => ({ name, model: options.model }),
  };
}

function checkTools(provider: string, tools: readonly ToolSpec[], arrayItems: boolean): void {
  for (const t of tools) {
    const problem = findSchemaProblem(t.parameters, { arrayItems });
    if (problem) throw new UnsupportedSchemaError(provider, t.name, problem.path, problem.reason);
  }
}

/** One model call: build the body, POST it (JSON or SSE), decode, map strict output back. */
async function send(config: ProviderConfig, request: ModelRequest): Promise<ModelResponse> {
  const { name, options, vendorBaseURL, strict: mode, endpoint } = config;
  const overrides: RequestOverrides = { readError: readOpenAIError };
  if (request.maxRetries !== undefined) overrides.maxRetries = request.maxRetries;
  if (request.idleTimeout !== undefined) overrides.idleTimeout = request.idleTimeout;
  const http = httpSettings(name, options, vendorBaseURL, overrides);
  const tools = prepareTools(request.tools, mode);
  const format = request.responseSchema ? prepareFormat(request.responseSchema.name, request.responseSchema.schema, mode) : undefined;
  const streaming = request.onDelta !== undefined;
  const exchange = endpoint(request, tools, format, streaming);
  const headers = requestHeaders(options, streaming);
  let requestId: string | undefined;
  const ctx: DecodeContext = { provider: name, requestId: () => requestId };
  const req = { url: exchange.url, headers, body: exchange.body, signal: request.signal };
  let response: ModelResponse;
  if (streaming) {
    const decoder = exchange.stream(ctx, request.onDelta);
    await postSSE(http, req, (ev, id) => {
      requestId = id;
      decoder.push(ev.data);
    });
    response = decoder.finish();
  } else {
    const answer = await postJSON(http, req);
    requestId = answer.requestId;
    response = exchange.decodeBody(ctx, answer.body);
  }
  return restoreStrict(response, tools, format);
}

function requestHeaders(options: KeyedOptions, streaming: boolean): Record<string, string> {
  const headers: Record<string, string> = {};
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  if (options.organization) headers["openai-organization"] = options.organization;
  if (options.project) headers["openai-project"] = options.project;
  if (streaming) headers.accept = "text/event-stream";
  return copyWith(headers, options.headers ?? {});
}
