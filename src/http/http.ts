// The one way adapters talk HTTP: POST a JSON body and read back JSON (postJSON) or a
// Server-Sent Events stream (postSSE, decoded by sse.ts). Around each exchange:
// bounded retries (retry.ts decides which and how long to wait), abort everywhere, an idle
// limit, body reads that always end (body.ts), typed errors that never carry an API key
// (errors.ts scrubs them), and bodies too deep to handle safely cut (json-depth.ts). What a
// vendor's error body means is the adapter's to say, through HttpSettings.readError.

import {
  abortReason,
  ConnectionError,
  describeError,
  IdleTimeoutError,
  isAbortError,
  isRecord,
  isRunSignal,
  labelText,
  MAX_RESPONSE_DEPTH,
  nestsDeeperThan,
  ProviderError,
  parseJSONBounded,
  StreamError,
  ToolloopError,
} from "../base/index.js";
import { readChunks, readText, sleep } from "./body.js";
import { isRetryableAnswer, isRetryableBodyFailure, retryAfter, retryDelay } from "./retry.js";
import { createSSEParser, type SSEEvent } from "./sse.js";

/** One SSE event as postSSE hands it on (the name third-party adapters already use). */
export type EventSourceMessage = SSEEvent;

/**
 * The fetch signature we call. Narrower than `typeof fetch`, which some runtimes' types
 * extend (Bun adds `preconnect`), so a plain `(input, init) => ...` function fits. The input
 * is spelled out: `RequestInfo` is a DOM-lib name that Bun's types do not declare.
 */
export type FetchFn = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface HttpSettings {
  /** Provider name for errors. */
  provider: string;
  fetch: FetchFn;
  maxRetries: number;
  /** ms without a byte on a stream before it fails; undefined = no limit. */
  idleTimeout: number | undefined;
  /** Reads the vendor's error body (parsed JSON); readCommonError when absent. */
  readError?: ErrorBodyReader;
}

export interface HttpRequest {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal: AbortSignal | undefined;
}

/** What an error response's body says, as far as the reader understood it. */
export interface ErrorDetails {
  /** The vendor's error type, e.g. "rate_limit_error", "RESOURCE_EXHAUSTED". */
  type?: string | undefined;
  message?: string | undefined;
  /** A request id the body carries (the response headers are read first). */
  requestId?: string | undefined;
  /** How long the body asks the client to wait before retrying, in ms. */
  retryDelay?: number | undefined;
  /** false when the body says no retry can help (an exhausted quota); undefined = decide by status. */
  retryable?: boolean | undefined;
}

/** An adapter's reader of its vendor's error bodies; gets the parsed JSON (never throws on odd shapes). */
export type ErrorBodyReader = (body: unknown) => ErrorDetails;

/**
 * The shapes most HTTP APIs use: `{ error: { type | status | code, message } }` or the same
 * fields at the top level. Vendor readers start from it and add what is theirs.
 */
export function readCommonError(body: unknown): ErrorDetails {
  const obj = isRecord(body) ? body : {};
  const e = isRecord(obj.error) ? obj.error : obj;
  return { type: labelText(e.type) ?? labelText(e.status) ?? labelText(e.code), message: labelText(e.message) };
}

/** POSTs JSON and resolves with the parsed JSON body. Retries the whole exchange. */
export async function postJSON(http: HttpSettings, req: HttpRequest): Promise<{ body: unknown; requestId: string | undefined }> {
  return withRetries(http, req, async (res) => {
    const requestId = requestIdOf(res);
    let text: string;
    try {
      text = await readText(http, res, req.signal);
    } catch (err) {
      if (err instanceof IdleTimeoutError) throw err;
      if (req.signal?.aborted) throw abortReason(req.signal);
      throw new StreamError(http.provider, `the response body broke: ${describeError(err)}`, { cause: err, requestId });
    }
    try {
      // Cut where too deep rather than refused: one call's absurd arguments must not cost the whole response.
      return { body: parseJSONBounded(text, MAX_RESPONSE_DEPTH), requestId };
    } catch {
      throw invalidResponse(http, res, requestId, "the response body is not JSON", text);
    }
  });
}

/**
 * POSTs JSON and feeds each SSE event of the response to `onEvent`. Retries only until
 * the response headers arrive; once the stream has started nothing is sent twice.
 */
export async function postSSE(
  http: HttpSettings,
  req: HttpRequest,
  /** Gets each event and the response's request id (for errors found inside the stream). */
  onEvent: (event: EventSourceMessage, requestId: string | undefined) => void,
): Promise<{ requestId: string | undefined }> {
  const res = await withRetries(http, req, async (r) => r);
  const requestId = requestIdOf(res);
  const type = res.headers.get("content-type") ?? "";
  if (!type.includes("text/event-stream")) {
    const text = await bodyText(http, res, req.signal);
    throw invalidResponse(http, res, requestId, `expected an event stream, got ${type || "no content type"}`, text);
  }
  if (!res.body) throw new StreamError(http.provider, "the response has no body", { requestId });
  let handlerError: { error: unknown } | undefined;
  // An event too large to hold ends the stream with the parser's StreamError (sse.ts).
  const parser = createSSEParser(
    (ev) => {
      if (handlerError) return;
      try {
        // Decoders parse and clone each event; a pathologically deep one would overflow the
        // stack, so it is handed on cut to MAX_RESPONSE_DEPTH (as postJSON does with a body).
        onEvent(nestsDeeperThan(ev.data, MAX_RESPONSE_DEPTH) ? boundedEvent(ev) : ev, requestId);
      } catch (error) {
        handlerError = { error };
      }
    },
    { provider: http.provider },
  );
  try {
    await readChunks(http, res.body, req.signal, (text) => {
      parser.feed(text);
      if (handlerError) throw handlerError.error;
    });
  } catch (err) {
    if (req.signal?.aborted) throw abortReason(req.signal);
    if (err instanceof ToolloopError) throw err; // already typed (adapter or idle timeout)
    throw new StreamError(http.provider, `the stream broke: ${describeError(err)}`, { cause: err, requestId });
  }
  return { requestId };
}

/** A too-deep event with its data cut to MAX_RESPONSE_DEPTH; data that is not JSON is the decoder's to refuse. */
function boundedEvent(ev: EventSourceMessage): EventSourceMessage {
  try {
    return { ...ev, data: JSON.stringify(parseJSONBounded(ev.data, MAX_RESPONSE_DEPTH)) };
  } catch {
    return ev;
  }
}

async function withRetries<T>(http: HttpSettings, req: HttpRequest, onOk: (res: Response) => Promise<T>): Promise<T> {
  const body = JSON.stringify(req.body);
  for (let attempt = 0; ; attempt++) {
    if (req.signal?.aborted) throw abortReason(req.signal);
    let failure: ProviderError | ConnectionError | StreamError;
    let hinted: number | undefined;
    try {
      const res = await send(http, req, body);
      if (res.ok) {
        try {
          return await onOk(res);
        } catch (err) {
          if (isRetryableBodyFailure(err)) failure = err;
          else throw err;
        }
      } else {
        const answer = await errorFrom(http, res, req.signal);
        failure = answer.error;
        hinted = retryAfter(res.headers) ?? answer.retryDelay;
      }
    } catch (err) {
      if (req.signal?.aborted || isAbortError(err)) throw req.signal ? abortReason(req.signal) : err;
      // A typed answer onOk gave up on (a 200 that is not JSON, an idle body) is final, not a network error.
      if (err instanceof ToolloopError) throw err;
      // Deno without --allow-net for the host (NotCapable; PermissionDenied before Deno 2, known
      // by name, so no Deno types): refused again however often it is sent, so thrown at once
      // with the grant that lets it through (the host read past any credentials in the URL).
      if (/^(NotCapable|PermissionDenied)$/.test((err as Error)?.name)) {
        throw new ConnectionError(http.provider, `${describeError(err)}: run Deno with --allow-net=${/\/\/(?:[^/?#]*@)?([^/?#]*)/.exec(req.url)?.[1]}`, {
          cause: err,
        });
      }
      failure = new ConnectionError(http.provider, `request failed: ${describeError(err)}`, { cause: err });
    }
    const wait = retryDelay(failure, attempt, http.maxRetries, hinted);
    if (wait === undefined) throw failure;
    await sleep(wait, req.signal);
  }
}

/**
 * One fetch. With an idleTimeout, a server that never sends the response headers fails too.
 *
 * The fetch gets a signal of its own for this attempt: the caller's abort is forwarded to
 * it, the timer aborts it with an IdleTimeoutError (which fetch rejects with). Handing the
 * caller's signal to fetch directly would let the runtime keep a listener on it per request
 * (Node's undici drops its listener only when the response is garbage-collected), so one
 * app-wide signal would gather a listener per call. The forwarding listener is removed as
 * soon as the headers are in; the body reads that follow listen to the caller's signal
 * themselves (chunkReader) and cancel the body on abort. A run's own signal (client.stream()'s,
 * base/abort.ts) goes to fetch as it is: it is dropped with the run, and a new AbortSignal per
 * request, with its listeners, was ~3 % of a streamed conversation's CPU in Node 20.
 */
async function send(http: HttpSettings, req: HttpRequest, body: string): Promise<Response> {
  const headers = { "content-type": "application/json", ...req.headers };
  const ms = http.idleTimeout;
  const { signal } = req;
  if (!ms && !signal) return http.fetch(req.url, { method: "POST", headers, body });
  if (!ms && isRunSignal(signal!)) return http.fetch(req.url, { method: "POST", headers, body, signal });
  const controller = new AbortController();
  const forward = () => controller.abort(abortReason(signal!));
  if (signal?.aborted) forward();
  else signal?.addEventListener("abort", forward, { once: true });
  const timer = ms ? setTimeout(() => controller.abort(new IdleTimeoutError(http.provider, ms)), ms) : undefined;
  try {
    // Spelled out, not `{ ...init, signal }`: a spread copy that gains a key costs ~1 µs in Node 20.
    return await http.fetch(req.url, { method: "POST", headers, body, signal: controller.signal });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", forward);
  }
}

/** A 200 whose body is not what was asked for: `what`, and the start of the body. */
function invalidResponse(http: HttpSettings, res: Response, requestId: string | undefined, what: string, text: string): ProviderError {
  return new ProviderError({ provider: http.provider, status: res.status, type: "invalid_response", message: `${what}: ${text.slice(0, 200)}`, requestId });
}

/** The body's text for an error, "" when it cannot be read; an abort while reading still rejects with its reason. */
function bodyText(http: HttpSettings, res: Response, signal: AbortSignal | undefined): Promise<string> {
  return readText(http, res, signal).catch((err: unknown) => {
    if (signal?.aborted) throw err;
    return "";
  });
}

/** Builds a ProviderError from an error response, its body read by the adapter's reader. */
async function errorFrom(
  http: HttpSettings,
  res: Response,
  signal: AbortSignal | undefined,
): Promise<{ error: ProviderError; retryDelay: number | undefined }> {
  const text = await bodyText(http, res, signal);
  let details: ErrorDetails = {};
  try {
    details = (http.readError ?? readCommonError)(JSON.parse(text));
  } catch {
    // not JSON (or a shape the reader could not take): use the text
  }
  const error = new ProviderError({
    provider: http.provider,
    status: res.status,
    type: details.type,
    message: details.message ?? (text.slice(0, 300) || res.statusText || "request failed"),
    requestId: requestIdOf(res) ?? details.requestId,
    retryable: isRetryableAnswer(res.status, res.headers, details.retryable),
  });
  return { error, retryDelay: details.retryDelay };
}

function requestIdOf(res: Response): string | undefined {
  return res.headers.get("request-id") ?? res.headers.get("x-request-id") ?? undefined;
}
