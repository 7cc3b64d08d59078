// toolloop/openai: OpenAI through its REST API with fetch (no SDK).
//   openai()           the Responses API
//   openaiChat()       Chat Completions
//   openaiCompatible() any server that speaks Chat Completions (Ollama, vLLM, LM Studio, ...)
// One factory per wire format, so a program ships only the codec of the factory it calls
// (an option could not choose: a bundler cannot drop code that data selects).

import { checkOptions, InvalidOptionsError } from "../../src/base/index.js";
import { PROVIDER_OPTIONS, type ProviderOptions, requireApiKey, trimSlash } from "../../src/http/index.js";
import { chatEndpoint, createProvider, type Endpoint, type OpenAIProvider, responsesEndpoint } from "./engine.js";

export type { OpenAIProvider } from "./engine.js";

const OPENAI_BASE_URL = "https://api.openai.com/v1";

/** Reasoning effort; the values OpenAI documents today, open to newer ones. */
export type ReasoningEffort = "none" | "minimal" | "low" | "medium" | "high" | "xhigh" | (string & {});

/** What openai() and openaiChat() both take. */
interface OpenAIAccountOptions extends ProviderOptions {
  /** Output token limit (max_output_tokens / max_completion_tokens). Default: the model's. */
  maxOutputTokens?: number | undefined;
  temperature?: number | undefined;
  /**
   * Sent as `prompt_cache_key`: requests with the same key and prefix are routed to the same
   * cache, so a long run reads its growing prefix from cache. E.g. a conversation or tenant id.
   */
  promptCacheKey?: string | undefined;
  /** Sent as OpenAI-Organization. */
  organization?: string | undefined;
  /** Sent as OpenAI-Project. */
  project?: string | undefined;
  /**
   * Structured Outputs for tools and ask(): each schema is rewritten for strict mode where
   * it can be (optional properties become nullable; nulls are turned back into absent
   * properties before your tool sees them) and sent non-strict where it cannot. Default true.
   */
  strict?: boolean | undefined;
}

/** openai(): the Responses API (POST /responses). */
export interface OpenAIOptions extends OpenAIAccountOptions {
  /**
   * Only "responses" (what openai() speaks) is taken. Chat Completions is its own factory,
   * openaiChat(); any other value throws InvalidOptionsError.
   */
  api?: "responses" | undefined;
  /**
   * Reasoning models: effort, and the reasoning summary shown as `reasoning-delta` stream
   * events. Default for models that reason (gpt-5*, o-series, codex): `summary: "auto"` is
   * asked for on streamed requests only (a whole response has nowhere to show it); a summary
   * you set is sent on every request; `"off"` never asks (OpenAI may require a verified
   * organization for summaries on some models).
   */
  reasoning?: { effort?: ReasoningEffort; summary?: "auto" | "concise" | "detailed" | "off" } | undefined;
  /**
   * Let OpenAI store responses. Default false: every request carries the whole
   * conversation, reasoning travels encrypted, nothing depends on server state.
   */
  store?: boolean | undefined;
  /** The parallel_tool_calls value sent with tools. Default: the API's default (not sent). */
  parallelToolCalls?: boolean | undefined;
}

/** openaiChat(): Chat Completions (POST /chat/completions). */
export interface OpenAIChatOptions extends OpenAIAccountOptions {
  /** Sent as reasoning_effort. */
  reasoning?: { effort?: ReasoningEffort } | undefined;
  /** The parallel_tool_calls value sent with tools. Default true. */
  parallelToolCalls?: boolean | undefined;
}

/** What an OpenAI-compatible server takes. */
export interface OpenAICompatibleCapabilities {
  /** The server takes `parallel_tool_calls`. Default false: many servers reject unknown fields. */
  parallelToolCalls?: boolean;
  /** The server takes `stream_options: {include_usage: true}` (usage on streams). Default true. */
  streamOptions?: boolean;
  /** The server takes `strict` on tools and response formats (Structured Outputs). Default false. */
  strict?: boolean;
  /** Send the system prompt with role "developer" instead of "system". Default false. */
  developerRole?: boolean;
  /** Send the token limit as `max_completion_tokens` instead of `max_tokens`. Default false. */
  maxCompletionTokens?: boolean;
  /**
   * The model takes `image_url` parts (user turns, and tool images sent after the tool
   * messages). Default false: a text-only model fails on them, so image parts are refused
   * with UnsupportedContentError before sending unless you say the model sees.
   */
  vision?: boolean;
  /** The server takes Chat Completions `file` parts (base64 PDF). Default false, refused the same way. */
  files?: boolean;
}

export interface OpenAICompatibleOptions extends ProviderOptions {
  /** Includes the version path, e.g. http://localhost:11434/v1. Required. */
  baseURL: string;
  /** Provider name in errors and providerData. Default "openai-compatible". */
  name?: string | undefined;
  maxOutputTokens?: number | undefined;
  temperature?: number | undefined;
  /** Sent as reasoning_effort. */
  reasoning?: { effort?: ReasoningEffort } | undefined;
  /** The parallel_tool_calls value, sent only when compat.parallelToolCalls is true. Default true. */
  parallelToolCalls?: boolean | undefined;
  compat?: OpenAICompatibleCapabilities | undefined;
}

/** OpenAI's Responses API. */
export function openai(options: OpenAIOptions): OpenAIProvider {
  checkOptions(
    "openai()",
    options,
    `${PROVIDER_OPTIONS} maxOutputTokens temperature promptCacheKey organization project strict api reasoning store parallelToolCalls`,
  );
  checkOptions("openai() reasoning", options?.reasoning, "effort summary");
  // Checked first (a program written for 0.1 may also lack the key): the old `api: "chat"` must
  // fail loudly and name its replacement, not send to /responses.
  if (options?.api !== undefined && options.api !== "responses") {
    throw new InvalidOptionsError(`openai() speaks the Responses API only; for Chat Completions use openaiChat() (got api: ${JSON.stringify(options.api)})`);
  }
  const base = openaiBase("openai", options);
  return openaiProvider(
    options,
    responsesEndpoint(base, {
      provider: "openai",
      model: options.model,
      store: options.store ?? false,
      maxOutputTokens: options.maxOutputTokens,
      temperature: options.temperature,
      reasoning: options.reasoning,
      reasons: isReasoningModel(options.model),
      promptCacheKey: options.promptCacheKey,
      parallelToolCalls: options.parallelToolCalls,
      includeEncryptedReasoning: options.reasoning !== undefined || isReasoningModel(options.model),
    }),
  );
}

/** OpenAI's Chat Completions API. */
export function openaiChat(options: OpenAIChatOptions): OpenAIProvider {
  checkOptions(
    "openaiChat()",
    options,
    `${PROVIDER_OPTIONS} maxOutputTokens temperature promptCacheKey organization project strict reasoning parallelToolCalls`,
  );
  checkOptions("openaiChat() reasoning", options?.reasoning, "effort");
  const base = openaiBase("openaiChat", options);
  return openaiProvider(
    options,
    chatEndpoint(base, {
      model: options.model,
      maxOutputTokens: options.maxOutputTokens,
      temperature: options.temperature,
      reasoningEffort: options.reasoning?.effort,
      parallelToolCalls: options.parallelToolCalls,
      promptCacheKey: options.promptCacheKey,
      capabilities: {
        // The o-series refuse parallel_tool_calls on Chat Completions ("not supported with this model").
        parallelToolCalls: !/^o\d/.test(bareModel(options.model)),
        streamOptions: true,
        developerRole: false,
        maxTokensField: "max_completion_tokens",
        webSearchOptions: true,
      },
      content: { provider: "openai", images: true, files: true },
    }),
  );
}

/** The checks both OpenAI factories make before anything is built; the base URL to POST to. */
function openaiBase(factory: string, options: OpenAIAccountOptions): string {
  if (!options || typeof options.model !== "string" || options.model === "") throw new InvalidOptionsError(`${factory}() needs a model`);
  requireApiKey(options, { factory, defaultBaseURL: OPENAI_BASE_URL, env: ["OPENAI_API_KEY"] });
  return trimSlash(options.baseURL ?? OPENAI_BASE_URL);
}

function openaiProvider(options: OpenAIAccountOptions, endpoint: Endpoint): OpenAIProvider {
  return createProvider({
    name: "openai",
    options,
    vendorBaseURL: OPENAI_BASE_URL,
    strict: options.strict === false ? "off" : "strict",
    arrayItems: true,
    endpoint,
  });
}

/** Any server that speaks Chat Completions at {baseURL}/chat/completions. */
export function openaiCompatible(options: OpenAICompatibleOptions): OpenAIProvider {
  checkOptions("openaiCompatible()", options, `${PROVIDER_OPTIONS} name maxOutputTokens temperature reasoning parallelToolCalls compat`);
  checkOptions("openaiCompatible() reasoning", options?.reasoning, "effort");
  // A misspelt capability would quietly leave a field in (or out of) every request.
  checkOptions("openaiCompatible() compat", options?.compat, "parallelToolCalls streamOptions strict developerRole maxCompletionTokens vision files");
  if (!options || typeof options.baseURL !== "string" || options.baseURL === "") {
    throw new InvalidOptionsError("openaiCompatible() needs a baseURL, e.g. http://localhost:11434/v1");
  }
  if (typeof options.model !== "string" || options.model === "") throw new InvalidOptionsError("openaiCompatible() needs a model");
  const compat = options.compat ?? {};
  const name = options.name ?? "openai-compatible";
  const endpoint = chatEndpoint(trimSlash(options.baseURL), {
    model: options.model,
    maxOutputTokens: options.maxOutputTokens,
    temperature: options.temperature,
    reasoningEffort: options.reasoning?.effort,
    parallelToolCalls: options.parallelToolCalls,
    capabilities: {
      parallelToolCalls: compat.parallelToolCalls ?? false,
      streamOptions: compat.streamOptions ?? true,
      developerRole: compat.developerRole ?? false,
      maxTokensField: compat.maxCompletionTokens ? "max_completion_tokens" : "max_tokens",
      webSearchOptions: false,
    },
    content: {
      provider: name,
      images: compat.vision === true,
      files: compat.files === true,
      hint: "set openaiCompatible({ compat: { vision: true } }) or { files: true } when the server takes them",
    },
  });
  // The server's own URL stands in for "the vendor's URL": a key sent there from a browser
  // is as exposed as an OpenAI key (dangerouslyAllowBrowser opts in).
  // No native web search on a generic server: setTools refuses webSearch() instead of dropping it.
  return {
    ...createProvider({
      name,
      options,
      vendorBaseURL: options.baseURL,
      strict: compat.strict ? "strict" : "omit",
      arrayItems: false,
      endpoint,
    }),
    supportsWebSearch: false,
  };
}

/** The model id without a router's "vendor/" prefix, lower-cased. */
const bareModel = (model: string) => model.toLowerCase().replace(/^.*\//, "");

/** gpt-5*, o1/o3/o4*, codex models reason; their reasoning must travel encrypted when store is off. */
function isReasoningModel(model: string): boolean {
  const m = bareModel(model);
  if (m.startsWith("gpt-5") && m.includes("chat")) return false;
  return /^(o\d|gpt-5|codex)/.test(m);
}
