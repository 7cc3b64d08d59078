// toolloop/gemini: the Google Generative Language API (Gemini) over plain fetch.
// POST {baseURL}/models/{model}:generateContent, or :streamGenerateContent?alt=sse when
// the caller streams. The key travels in the x-goog-api-key header, never in the URL.
import { checkOptions, copyWith, InvalidOptionsError, isRecord, ProviderError } from "../../src/base/index.js";
import type { ModelRequest, ModelResponse, Provider, ToolSpec } from "../../src/conversation/index.js";
import { addUsage, emptyUsage } from "../../src/conversation/index.js";
import { httpSettings, PROVIDER_OPTIONS, type ProviderOptions, postJSON, postSSE, requireApiKey, trimSlash } from "../../src/http/index.js";
import { createStreamDecoder, type DecodeContext, type Decoded, decodeBody } from "./decode.js";
import { appendContent, encodeRequest } from "./encode.js";
import { readGoogleError } from "./errors.js";
import { checkToolSchemas } from "./schema-check.js";
import type { GenerateContentRequest, GenerationConfig, Part } from "./wire.js";

const NAME = "gemini";
const DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/v1beta";
/** Re-asks after a MALFORMED_FUNCTION_CALL before giving up with a ProviderError. */
const MALFORMED_REASKS = 2;

export interface GeminiThinking {
  /** thinkingConfig.thinkingBudget: thought tokens (Gemini 2.5; 0 turns thinking off where allowed, -1 = dynamic). */
  budget?: number | undefined;
  /**
   * thinkingConfig.includeThoughts: the model returns summaries of its thinking, which a
   * stream reports as `reasoning-delta` events (never as answer text) and history keeps in
   * providerData (replayed with their thoughtSignatures). Default false, not sent: the
   * summaries are extra output the caller may not show, and a request without thinkingConfig
   * stays valid on models that do not think. Set true to show reasoning.
   */
  includeThoughts?: boolean | undefined;
  /** thinkingConfig.thinkingLevel (Gemini 3). */
  level?: "minimal" | "low" | "medium" | "high" | undefined;
}

/** Optional fields accept `undefined` too (values from unset environment variables, exactOptionalPropertyTypes). */
export interface GeminiOptions extends ProviderOptions {
  /** e.g. "gemini-2.5-flash", "gemini-3-pro-preview" (a "models/" prefix is accepted). */
  model: string;
  /** Default https://generativelanguage.googleapis.com/v1beta. */
  baseURL?: string | undefined;
  maxOutputTokens?: number | undefined;
  temperature?: number | undefined;
  topP?: number | undefined;
  topK?: number | undefined;
  stopSequences?: string[] | undefined;
  thinking?: GeminiThinking | undefined;
}

/** What gemini() returns; JSON (and so logs) show only the name and model, never the key. */
export interface GeminiProvider extends Provider {
  readonly name: "gemini";
  readonly model: string;
  checkTools(tools: readonly ToolSpec[]): void;
  toJSON(): { name: string; model: string };
}

export function gemini(options: GeminiOptions): GeminiProvider {
  checkOptions("gemini()", options, `${PROVIDER_OPTIONS} maxOutputTokens temperature topP topK stopSequences thinking`);
  checkOptions("gemini() thinking", options?.thinking, "budget includeThoughts level");
  if (!options || typeof options.model !== "string" || options.model === "") {
    throw new InvalidOptionsError('gemini() needs a model, e.g. gemini({ apiKey, model: "gemini-2.5-flash" })');
  }
  requireApiKey(options, { factory: "gemini", defaultBaseURL: DEFAULT_BASE_URL, env: ["GEMINI_API_KEY", "GOOGLE_API_KEY"] });
  const { apiKey, model } = options;
  const base = trimSlash(options.baseURL ?? DEFAULT_BASE_URL);
  const path = /^(models|tunedModels)\//.test(model) ? model : `models/${model}`;
  const generationConfig = generationConfigOf(options);

  const generate = async (request: ModelRequest): Promise<ModelResponse> => {
    const http = httpSettings(NAME, options, DEFAULT_BASE_URL, {
      maxRetries: request.maxRetries,
      idleTimeout: request.idleTimeout,
      readError: readGoogleError,
    });
    const headers: Record<string, string> = copyWith(options.headers ?? {}, apiKey ? { "x-goog-api-key": apiKey } : {});
    const body = encodeRequest(request, { model, generationConfig });
    const { onDelta, signal } = request;

    let requestId: string | undefined;
    const ctx: DecodeContext = { provider: NAME, requestId: () => requestId, takenIds: () => callIdsOf(request.messages) };

    const send = async (): Promise<Decoded> => {
      requestId = undefined;
      if (onDelta) {
        const decoder = createStreamDecoder(ctx, onDelta);
        const url = `${base}/${path}:streamGenerateContent?alt=sse`;
        await postSSE(http, { url, headers, body, signal }, (event, id) => {
          requestId = id;
          decoder.push(event.data);
        });
        return decoder.finishDecoded();
      }
      const url = `${base}/${path}:generateContent`;
      const answer = await postJSON(http, { url, headers, body, signal });
      requestId = answer.requestId;
      if (!isRecord(answer.body)) {
        throw new ProviderError({ provider: NAME, type: "invalid_response", message: "the response body is not a JSON object", requestId });
      }
      return decodeBody(ctx, answer.body);
    };

    let usage = emptyUsage();
    for (let attempt = 0; ; attempt++) {
      const decoded = await send();
      usage = addUsage(usage, decoded.response.usage);
      if (decoded.finishReason !== "MALFORMED_FUNCTION_CALL") return copyWith(decoded.response, { usage });
      if (attempt >= MALFORMED_REASKS) {
        // Returning "" as an answer would hide the failure; nothing was added to history.
        throw new ProviderError({
          provider: NAME,
          type: "MALFORMED_FUNCTION_CALL",
          message: `the model's function call was still malformed after ${MALFORMED_REASKS} re-asks`,
        });
      }
      reaskAfterMalformedCall(body, decoded);
    }
  };

  const provider: GeminiProvider = {
    name: NAME,
    model,
    checkTools(tools: readonly ToolSpec[]) {
      checkToolSchemas(NAME, tools);
    },
    generate,
    toJSON: () => ({ name: NAME, model }),
  };
  return provider;
}

/**
 * The model produced a function call the API could not parse (finishReason
 * MALFORMED_FUNCTION_CALL, usually with no content). Ask again in the same request
 * history rather than failing the run: what the model did say, then a user turn naming
 * the problem.
 */
function reaskAfterMalformedCall(body: GenerateContentRequest, decoded: Decoded): void {
  const value = decoded.response.providerData?.value;
  const said = isRecord(value) && Array.isArray(value.parts) ? (value.parts as Part[]).filter((p) => !isRecord(p.functionCall)) : [];
  appendContent(body.contents, "model", said);
  const detail = decoded.finishMessage ? ` (${decoded.finishMessage})` : "";
  appendContent(body.contents, "user", [
    {
      text:
        `Your last function call was malformed${detail}. Call the function again, ` +
        "with arguments that are valid JSON matching the function's declared parameters.",
    },
  ]);
}

/** Every call id the history holds (what a derived id must not repeat). */
function callIdsOf(messages: ModelRequest["messages"]): Set<string> {
  const ids = new Set<string>();
  for (const m of messages) if (m.role === "assistant") for (const c of m.toolCalls ?? []) ids.add(c.id);
  return ids;
}

function generationConfigOf(o: GeminiOptions): GenerationConfig {
  const g: GenerationConfig = {};
  for (const k of ["maxOutputTokens", "temperature", "topP", "topK"] as const) if (o[k] !== undefined) g[k] = o[k];
  if (o.stopSequences !== undefined) g.stopSequences = [...o.stopSequences];
  if (o.thinking) {
    const t: NonNullable<GenerationConfig["thinkingConfig"]> = {};
    if (o.thinking.budget !== undefined) t.thinkingBudget = o.thinking.budget;
    if (o.thinking.includeThoughts !== undefined) t.includeThoughts = o.thinking.includeThoughts;
    if (o.thinking.level !== undefined) t.thinkingLevel = o.thinking.level.toUpperCase() as NonNullable<typeof t.thinkingLevel>;
    g.thinkingConfig = t;
  }
  return g;
}
