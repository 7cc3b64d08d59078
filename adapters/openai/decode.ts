// What both OpenAI decoders (chat-decode.ts, responses-decode.ts) share: who is decoding,
// reading untrusted JSON, and OpenAI error objects that arrive inside a 200 response.
import { isRecord, finiteNumber as num, ProviderError, StreamError, optionalString as str } from "../../src/base/index.js";

/** Who is decoding: names the provider in errors and finds the request id once known. */
export interface DecodeContext {
  provider: string;
  requestId?: () => string | undefined;
}

// The decoders' short names for the shared readers (src/base/values.ts).
export { isRecord, num, str };

/** Parses one SSE data payload; a payload that is not JSON breaks the stream. */
export function parseEventData(ctx: DecodeContext, data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    throw new StreamError(ctx.provider, `an event is not JSON: ${data.slice(0, 120)}`, { requestId: ctx.requestId?.() });
  }
}

/**
 * An OpenAI error object ({message, type, code, param}) → ProviderError. Used for errors
 * that arrive inside a 200 response (stream events, failed responses).
 */
export function errorFromObject(ctx: DecodeContext, error: unknown, fallback: string): ProviderError {
  const e = isRecord(error) ? error : {};
  const type = str(e.type) || str(e.code) || undefined;
  const message = str(e.message) || fallback;
  // Compatible servers and gateways (OpenRouter) put the upstream HTTP status in a numeric `code`.
  const status = typeof e.code === "number" ? e.code : undefined;
  const retryable = type === "server_error" || type === "rate_limit_exceeded" || type === "overloaded_error" || status === 429 || status! >= 500;
  return new ProviderError({ provider: ctx.provider, message, type, status, requestId: ctx.requestId?.(), retryable });
}

export function invalidResponse(ctx: DecodeContext, message: string, status?: number): ProviderError {
  return new ProviderError({ provider: ctx.provider, message, type: "invalid_response", status, requestId: ctx.requestId?.() });
}
