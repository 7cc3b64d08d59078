// When a failed request is sent again, and after how long: the one place the retry policy
// lives. http.ts asks it after each failed attempt.
//
// What is retried: an HTTP error answer the server marks retryable (x-should-retry) or whose
// status usually clears (408, 409, 429, 5xx, 529) unless the vendor's error body says no
// retry can help (an adapter's error reader sets `retryable: false`, e.g. OpenAI's
// insufficient_quota); a request that got no answer (ConnectionError), unless the runtime's
// permissions refused it (Deno without --allow-net, see http.ts); a body that broke before
// any of it was handed out. The wait is the server's hint (Retry-After, retry-after-ms, or the vendor's body,
// e.g. Google's RetryInfo) or exponential backoff; a hint beyond MAX_RETRY_AFTER_MS means
// "not soon", so the error is thrown at once.
//
// An error that arrives inside an event stream after the headers (Anthropic's
// `overloaded_error` event, a Chat Completions chunk with `error`) is never sent again
// here: by then events may have reached the caller (text on screen, onDelta), and sending
// the request again would repeat them. Its ProviderError.retryable is informational: it
// says that the same request may succeed if sent again, for a caller (or fallback()) that
// decides to.
import { ConnectionError, ProviderError, StreamError } from "../base/index.js";

const RETRY_STATUS = new Set([408, 409, 429, 500, 502, 503, 504, 529]);
/** A server asking for a longer wait than this is not waited for. */
const MAX_RETRY_AFTER_MS = 60_000;

/**
 * Whether an HTTP error answer may succeed if sent again: the server's x-should-retry
 * header first, then the vendor's error body (`bodySays`), then the status.
 */
export function isRetryableAnswer(status: number, headers: Headers, bodySays: boolean | undefined): boolean {
  const should = headers.get("x-should-retry");
  if (should === "true") return true;
  if (should === "false") return false;
  return bodySays ?? RETRY_STATUS.has(status);
}

/** A failure while reading a 200's body, before anything was handed out: fetched again. */
export function isRetryableBodyFailure(err: unknown): err is StreamError | ConnectionError {
  return err instanceof StreamError || err instanceof ConnectionError;
}

/**
 * ms to wait before sending attempt `attempt + 1` after `failure`, or undefined to give up
 * and throw it. `hinted` is the server's own wait, when it named one.
 */
export function retryDelay(
  failure: ProviderError | ConnectionError | StreamError,
  attempt: number,
  maxRetries: number,
  hinted: number | undefined,
): number | undefined {
  const retryable = failure instanceof ProviderError ? failure.retryable : true;
  if (!retryable || attempt >= maxRetries || (hinted !== undefined && hinted > MAX_RETRY_AFTER_MS)) return undefined;
  return hinted ?? backoff(attempt);
}

/** ms from retry-after-ms or retry-after (seconds or an HTTP date); undefined when absent or unreadable. */
export function retryAfter(headers: Headers): number | undefined {
  const ms = Number.parseFloat(headers.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const h = headers.get("retry-after");
  if (!h) return undefined;
  const s = Number.parseFloat(h);
  if (Number.isFinite(s) && s >= 0) return s * 1000;
  const date = Date.parse(h);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}

/** 0.5 s, 1 s, 2 s ... capped at 8 s, with up to 25% jitter down so clients spread out. */
export function backoff(attempt: number): number {
  return Math.min(8000, 500 * 2 ** attempt) * (1 - Math.random() * 0.25);
}
