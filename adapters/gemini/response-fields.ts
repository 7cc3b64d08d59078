// The fields of a GenerateContentResponse read into neutral values, for decode.ts: the finish
// reason, the usage as billed, an error object met in a stream, and the id of a call that came
// without one.
import { finiteNumber, fnv1a36, isRecord, optionalString, ProviderError } from "../../src/base/index.js";
import type { FinishReason, Usage } from "../../src/conversation/index.js";
import type { UsageMetadata } from "./wire.js";

const FILTERED = new Set(["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION"]);

export function mapFinishReason(raw: string | undefined, blockReason: string | undefined, hasCalls: boolean): FinishReason {
  if (blockReason !== undefined) return "content-filter";
  if (raw === "STOP" || raw === undefined) return hasCalls ? "tool-calls" : raw === "STOP" ? "stop" : "other";
  if (raw === "MAX_TOKENS") return "length";
  if (FILTERED.has(raw)) return "content-filter";
  return "other";
}

/**
 * Usage as billed. promptTokenCount already includes cachedContentTokenCount (the API
 * reference: "still the total effective prompt size"), so inputTokens is all prompt tokens
 * with the cache read a part of it; tool-use prompt tokens (grounding) are billed as input
 * too. Thoughts are billed as output: outputTokens = candidates + thoughts, reasoningTokens
 * the thoughts. Gemini reports no cache writes (implicit caching is free to fill).
 */
export function usageFrom(u: UsageMetadata | undefined, grounding?: Record<string, unknown>): Usage {
  const n = (v: unknown) => finiteNumber(v) ?? 0;
  const usage: Usage = {
    inputTokens: n(u?.promptTokenCount) + n(u?.toolUsePromptTokenCount),
    outputTokens: n(u?.candidatesTokenCount) + n(u?.thoughtsTokenCount),
  };
  if (typeof u?.cachedContentTokenCount === "number") usage.cacheReadTokens = u.cachedContentTokenCount;
  if (typeof u?.thoughtsTokenCount === "number" && u.thoughtsTokenCount > 0) usage.reasoningTokens = u.thoughtsTokenCount;
  const queries = grounding?.webSearchQueries;
  if (Array.isArray(queries) && queries.length > 0) usage.webSearches = queries.length;
  return usage;
}

/** `{error: {code, message, status}}` inside a stream (or a 200 body). */
export function errorFromChunk(provider: string, error: unknown): ProviderError {
  const e = isRecord(error) ? error : {};
  const status = typeof e.code === "number" ? e.code : undefined;
  return new ProviderError({
    provider,
    status,
    type: optionalString(e.status),
    message: typeof e.message === "string" ? e.message : (JSON.stringify(error)?.slice(0, 300) ?? "error"),
  });
}

/**
 * An id for a call that came without one (the Gemini API rarely sends ids): derived from
 * the response id, the call's position and its content, so the same response always gets
 * the same ids (deltas, toolCalls and the replayed history agree). Without a responseId two
 * responses making the same call would derive the same id; `salt` is raised until the id is
 * new to the history (see deriveId in decode.ts).
 */
export function callId(responseId: string | undefined, index: number, name: string, args: string, salt: number): string {
  return `call_${index}_${fnv1a36(`${responseId ?? ""}\u0000${index}\u0000${name}\u0000${args}${salt ? `\u0000${salt}` : ""}`)}`;
}
