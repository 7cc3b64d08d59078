// toolloop/claude: the Anthropic Messages API (POST {baseURL}/messages) over fetch, no SDK.
//
//   const provider = claude({ apiKey, model: "claude-sonnet-4-5" });
//
// Request encoding (encode.ts), the SSE decoder and response mapping (decode.ts), the tool
// schema check and the structured-output strategies live in adapters/claude/; this file wires them to http.ts and adds the one
// piece of control flow the API asks of clients: continuing a `pause_turn`.
import { checkOptions, describeValue, InvalidOptionsError, isBrowser } from "../../src/base/index.js";
import type { ModelRequest, ModelResponse, Provider, ToolSpec } from "../../src/conversation/index.js";
import { addUsage, emptyUsage } from "../../src/conversation/index.js";
import { httpSettings, PROVIDER_OPTIONS, type ProviderOptions, postJSON, postSSE, requireApiKey, trimSlash } from "../../src/http/index.js";
import type { CacheSetting } from "./cache.js";
import { createStreamDecoder, type DecodeContext, decodeMessage, mergeTurns, toModelResponse } from "./decode.js";
import { type BodySettings, encodeRequest, replayable } from "./encode.js";
import { readAnthropicError } from "./errors.js";
import { checkTools } from "./schema-check.js";
import { outputTool, type StructuredOutputMode, takeOutputCall } from "./structured-output.js";
import { toUsage } from "./usage.js";
import type { Turn, WireMessage } from "./wire.js";

export type { CacheSetting } from "./cache.js";
export type { StructuredOutputMode } from "./structured-output.js";

const DEFAULT_BASE_URL = "https://api.anthropic.com/v1";
/** A paused turn is continued at most this many times before it is returned as it stands. */
const MAX_PAUSE_CONTINUATIONS = 5;

export interface ClaudeOptions extends ProviderOptions {
  /** max_tokens of every request. Default 4096. */
  maxTokens?: number | undefined;
  temperature?: number | undefined;
  topP?: number | undefined;
  topK?: number | undefined;
  stopSequences?: string[] | undefined;
  /** Extended thinking; budgetTokens (≥ 1024) must be below maxTokens. */
  thinking?: { budgetTokens: number } | undefined;
  /** The anthropic-version header. Default "2023-06-01". */
  anthropicVersion?: string | undefined;
  /**
   * How ask() gets JSON: "native" (default) uses output_config.format, Claude's
   * constrained decoding (Claude 4.5 models and later); "tool" steers the model to call
   * an extra tool whose input schema is the answer schema, for older models and
   * Anthropic-compatible servers without structured outputs.
   */
  structuredOutput?: StructuredOutputMode | undefined;
  /**
   * Prompt caching. "auto" (default) puts cache_control breakpoints on the tools + system
   * prefix and on the newest message, so each step reads the previous step's prompt from
   * cache (5-minute entries); `{ ttl: "1h" }` writes 1-hour entries (billed higher);
   * "off" sends no breakpoints.
   */
  cache?: CacheSetting | undefined;
}

export interface ClaudeProvider extends Provider {
  readonly name: "claude";
  readonly model: string;
  checkTools(tools: readonly ToolSpec[]): void;
  /** { name, model } only: the API key never leaves the closure. */
  toJSON(): { name: string; model: string };
}

export function claude(options: ClaudeOptions): ClaudeProvider {
  checkOptions("claude()", options, `${PROVIDER_OPTIONS} maxTokens temperature topP topK stopSequences thinking anthropicVersion structuredOutput cache`);
  checkOptions("claude() thinking", options?.thinking, "budgetTokens");
  if (!options || typeof options.model !== "string" || options.model === "") {
    throw new InvalidOptionsError('claude() needs a model, e.g. claude({ apiKey, model: "claude-sonnet-4-5" })');
  }
  requireApiKey(options, { factory: "claude", defaultBaseURL: DEFAULT_BASE_URL, env: ["ANTHROPIC_API_KEY"] });
  const maxTokens = options.maxTokens ?? 4096;
  if (!Number.isInteger(maxTokens) || maxTokens < 1)
    throw new InvalidOptionsError(`claude: maxTokens must be a positive integer, got ${describeValue(maxTokens)}`);
  if (options.thinking && !(options.thinking.budgetTokens < maxTokens)) {
    throw new InvalidOptionsError(`thinking.budgetTokens (${options.thinking.budgetTokens}) must be below maxTokens (${maxTokens})`);
  }
  const opts: ClaudeOptions = { ...options, headers: { ...options.headers } };
  const { model } = opts;
  const settings: BodySettings = {
    ...opts,
    maxTokens,
    thinking: opts.thinking && { budgetTokens: opts.thinking.budgetTokens },
    structuredOutput: opts.structuredOutput ?? "native",
    cache: cacheSetting(opts.cache),
  };
  const url = `${trimSlash(opts.baseURL ?? DEFAULT_BASE_URL)}/messages`;

  const headers = (): Record<string, string> => ({
    "anthropic-version": opts.anthropicVersion ?? "2023-06-01",
    ...(opts.apiKey ? { "x-api-key": opts.apiKey } : {}),
    // Without it the API refuses CORS requests from pages.
    ...(isBrowser() ? { "anthropic-dangerous-direct-browser-access": "true" } : {}),
    ...opts.headers,
  });

  async function generate(request: ModelRequest): Promise<ModelResponse> {
    const http = httpSettings("claude", opts, DEFAULT_BASE_URL, {
      maxRetries: request.maxRetries,
      idleTimeout: request.idleTimeout,
      readError: readAnthropicError,
    });
    const output = settings.structuredOutput === "tool" ? outputTool(request) : undefined;
    const body = encodeRequest(request, settings, output);
    const history = body.messages;

    let requestId: string | undefined;
    const ctx: DecodeContext = { requestId: () => requestId };

    const send = async (): Promise<Turn> => {
      requestId = undefined;
      const req = { url, headers: headers(), body, signal: request.signal };
      if (body.stream) {
        const decoder = createStreamDecoder(ctx, request.onDelta);
        await postSSE(http, req, (event, id) => {
          requestId = id;
          decoder.push(event);
        });
        return decoder.turn();
      }
      const answer = await postJSON(http, req);
      requestId = answer.requestId;
      return decodeMessage(answer.body, requestId);
    };

    // pause_turn: a long server-tool turn was cut short; sending the paused content back
    // as the last assistant turn lets Claude carry on. The parts are merged into one turn.
    let turn = await send();
    let usage = addUsage(emptyUsage(), toUsage(turn.usage));
    for (let round = 0; turn.stopReason === "pause_turn" && round < MAX_PAUSE_CONTINUATIONS; round++) {
      body.messages = withAssistant(history, turn);
      const next = await send();
      usage = addUsage(usage, toUsage(next.usage));
      turn = mergeTurns(turn, next);
    }

    if (!output) return toModelResponse(turn, usage);
    const taken = takeOutputCall(turn, output);
    const response = toModelResponse(taken.turn, usage);
    if (taken.answer !== undefined) response.text = taken.answer;
    return response;
  }

  return {
    name: "claude",
    model,
    checkTools,
    generate,
    toJSON: () => ({ name: "claude", model }),
  };
}

/** The history with the paused turn's content as the last assistant message. */
function withAssistant(history: readonly WireMessage[], turn: Turn): WireMessage[] {
  const blocks = replayable(turn.content);
  const last = history[history.length - 1];
  if (last?.role === "assistant") return [...history.slice(0, -1), { role: "assistant", content: [...last.content, ...blocks] }];
  return [...history, { role: "assistant", content: blocks }];
}

function cacheSetting(cache: ClaudeOptions["cache"]): CacheSetting {
  if (cache === undefined || cache === "auto" || cache === "off") return cache ?? "auto";
  if (typeof cache === "object" && cache !== null && (cache.ttl === "5m" || cache.ttl === "1h")) return { ttl: cache.ttl };
  throw new InvalidOptionsError(`claude: cache must be "auto", "off", { ttl: "5m" } or { ttl: "1h" }, got ${JSON.stringify(cache)}`);
}
