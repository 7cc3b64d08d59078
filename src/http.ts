// The one way adapters talk HTTP: fetch with bounded retries (exponential backoff with
// jitter, Retry-After honoured), abort everywhere (including the backoff sleep), typed
// errors that never carry the API key (errors.ts redacts every registered key), and SSE
// decoding through eventsource-parser.
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { MAX_RESPONSE_DEPTH, nestsDeeperThan, parseJSONBounded } from "./json-depth.js";
import { registerSecret } from "./secrets.js";
import { abortReason, BrowserKeyError, ConnectionError, ToolloopError, IdleTimeoutError, isAbortError, ProviderError, StreamError } from "./errors.js";

export type { EventSourceMessage };

/**
 * The fetch signature we call. Narrower than `typeof fetch`, which some runtimes' types
 * extend (Bun adds `preconnect`), so a plain `(input, init) => ...` function fits.
 */
export type FetchFn = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

export interface HttpSettings {
  /** Provider name for errors. */
  provider: string;
  fetch: FetchFn;
  maxRetries: number;
  /** ms without a byte on a stream before it fails; undefined = no limit. */
  idleTimeout: number | undefined;
}

export interface HttpRequest {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal: AbortSignal | undefined;
}

const RETRY_STATUS = new Set([408, 409, 429, 500, 502, 503, 504, 529]);
const MAX_RETRY_AFTER_MS = 60_000;

/** POSTs JSON and resolves with the parsed JSON body. Retries the whole exchange. */
export async function postJSON(http: HttpSettings, req: HttpRequest): Promise<{ body: unknown; requestId: string | undefined }> {
  return withRetries(http, req, async (res) => {
    const requestId = requestIdOf(res);
    let text: string;
    try {
      text = await readText(http, res, req.signal);
    } catch (err) {
      if (err instanceof IdleTimeoutError) throw err;
      throw bodyError(http, req, err, requestId);
    }
    try {
      // Cut where too deep rather than refused: one call's absurd arguments must not cost the whole response.
      return { body: parseJSONBounded(text, MAX_RESPONSE_DEPTH), requestId };
    } catch {
      throw new ProviderError({
        provider: http.provider,
        status: res.status,
        type: "invalid_response",
        message: `the response body is not JSON: ${text.slice(0, 200)}`,
        requestId,
      });
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
    const text = await readText(http, res, req.signal).catch(() => "");
    throw new ProviderError({
      provider: http.provider,
      status: res.status,
      type: "invalid_response",
      message: `expected an event stream, got ${type || "no content type"}: ${text.slice(0, 200)}`,
      requestId,
    });
  }
  if (!res.body) throw new StreamError(http.provider, "the response has no body", { requestId });
  let handlerError: { error: unknown } | undefined;
  const parser = createParser({
    onEvent(ev) {
      if (handlerError) return;
      try {
        // Decoders parse and clone each event; a pathologically deep one would overflow the
        // stack, so it is handed on cut to MAX_RESPONSE_DEPTH (as postJSON does with a body).
        onEvent(nestsDeeperThan(ev.data, MAX_RESPONSE_DEPTH) ? boundedEvent(ev) : ev, requestId);
      } catch (error) {
        handlerError = { error };
      }
    },
  });
  const reader = res.body.getReader();
  const reads = chunkReader(http, reader, req.signal);
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const chunk = await reads.read();
      if (chunk.done) break;
      parser.feed(decoder.decode(chunk.value, { stream: true }));
      if (handlerError) throw handlerError.error;
    }
    parser.feed(decoder.decode());
    if (handlerError) throw handlerError.error;
  } catch (err) {
    reader.cancel().catch(() => {});
    if (req.signal?.aborted) throw abortReason(req.signal);
    if (err instanceof ToolloopError) throw err; // already typed (adapter or idle timeout)
    throw new StreamError(http.provider, `the stream broke: ${describe(err)}`, { cause: err, requestId });
  } finally {
    reads.close();
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

/**
 * The whole body as text. Read chunk by chunk (see chunkReader) so that an abort, or with an
 * idleTimeout a body that stops sending, ends the read.
 */
/** What body reads need of the settings: the idle limit, and the provider name for its error. */
export type ReadSettings = Pick<HttpSettings, "idleTimeout" | "provider">;

export async function readText(http: ReadSettings, res: Response, signal: AbortSignal | undefined): Promise<string> {
  if ((!http.idleTimeout && !signal) || !res.body) return res.text();
  const reader = res.body.getReader();
  const reads = chunkReader(http, reader, signal);
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const chunk = await reads.read();
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
  } catch (err) {
    reader.cancel().catch(() => {});
    throw err;
  } finally {
    reads.close();
  }
  return text + decoder.decode();
}

/**
 * Reads a response body chunk by chunk; each read settles on the caller's abort even when
 * the body does not. Node's fetch (undici) never settles a pending read when the signal
 * aborts after the whole response has arrived but before it was read (the abort no longer
 * reaches the body), so relying on fetch to end the body would leave the run waiting
 * forever. With an idleTimeout a read also fails when no byte comes for that long. One
 * abort listener serves the whole body (one per read is a measurable share of a streamed
 * request); close() when done reading.
 */
export function chunkReader(
  http: ReadSettings,
  reader: ReadableStreamDefaultReader<Uint8Array>,
  signal: AbortSignal | undefined,
): { read(): Promise<ReadableStreamReadResult<Uint8Array>>; close(): void } {
  const ms = http.idleTimeout;
  if (!ms && !signal) return { read: () => reader.read(), close: () => {} };
  // Reads are sequential: at most one is pending, and `fail` settles it early.
  let fail: ((error: unknown) => void) | undefined;
  const onAbort = () => fail?.(abortReason(signal!));
  // Listening before read(): a body's pull may run (and the abort land) inside read() itself.
  signal?.addEventListener("abort", onAbort, { once: true });
  return {
    read() {
      return new Promise((resolve, reject) => {
        if (signal?.aborted) return reject(abortReason(signal));
        let timer: ReturnType<typeof setTimeout> | undefined;
        const done = () => {
          clearTimeout(timer);
          if (fail === failThis) fail = undefined;
        };
        const failThis = (error: unknown) => {
          done();
          reject(error);
        };
        fail = failThis;
        if (ms) timer = setTimeout(() => failThis(new IdleTimeoutError(http.provider, ms)), ms);
        reader.read().then(
          (r) => {
            done();
            resolve(r);
          },
          (e) => {
            done();
            reject(signal?.aborted ? abortReason(signal) : e);
          },
        );
      });
    },
    close() {
      fail = undefined;
      signal?.removeEventListener("abort", onAbort);
    },
  };
}

async function withRetries<T>(http: HttpSettings, req: HttpRequest, onOk: (res: Response) => Promise<T>): Promise<T> {
  const body = JSON.stringify(req.body);
  for (let attempt = 0; ; attempt++) {
    if (req.signal?.aborted) throw abortReason(req.signal);
    let failure: ProviderError | ConnectionError | StreamError;
    let wait: number | undefined;
    try {
      const res = await send(http, req, body);
      if (res.ok) {
        try {
          return await onOk(res);
        } catch (err) {
          // A body that broke before anything was handed out may be fetched again.
          if (err instanceof StreamError || err instanceof ConnectionError) failure = err;
          else throw err;
        }
      } else {
        const answer = await errorFrom(http, res, req.signal);
        failure = answer.error;
        wait = retryAfter(res.headers) ?? answer.retryDelay;
      }
    } catch (err) {
      if (req.signal?.aborted || isAbortError(err)) throw req.signal ? abortReason(req.signal) : err;
      // A typed answer onOk gave up on (a 200 that is not JSON, an idle body) is final, not a network error.
      if (err instanceof ToolloopError) throw err;
      failure = new ConnectionError(http.provider, `request failed: ${describe(err)}`, { cause: err });
    }
    const retryable = failure instanceof ProviderError ? failure.retryable : true;
    if (!retryable || attempt >= http.maxRetries || (wait !== undefined && wait > MAX_RETRY_AFTER_MS)) throw failure;
    await sleep(wait ?? backoff(attempt), req.signal);
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
 * themselves (chunkReader) and cancel the body on abort.
 */
async function send(http: HttpSettings, req: HttpRequest, body: string): Promise<Response> {
  const init = { method: "POST", headers: { "content-type": "application/json", ...req.headers }, body };
  const ms = http.idleTimeout;
  const { signal } = req;
  if (!ms && !signal) return http.fetch(req.url, init);
  const controller = new AbortController();
  const forward = () => controller.abort(abortReason(signal!));
  if (signal?.aborted) forward();
  else signal?.addEventListener("abort", forward, { once: true });
  const timer = ms ? setTimeout(() => controller.abort(new IdleTimeoutError(http.provider, ms)), ms) : undefined;
  try {
    return await http.fetch(req.url, { ...init, signal: controller.signal });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", forward);
  }
}

function bodyError(http: HttpSettings, req: HttpRequest, err: unknown, requestId: string | undefined): unknown {
  if (req.signal?.aborted) return abortReason(req.signal);
  return new StreamError(http.provider, `the response body broke: ${describe(err)}`, { cause: err, requestId });
}

/** Builds a ProviderError from an error response, reading the common body shapes. */
async function errorFrom(
  http: HttpSettings,
  res: Response,
  signal: AbortSignal | undefined,
): Promise<{ error: ProviderError; retryDelay: number | undefined }> {
  const text = await readText(http, res, signal).catch(() => "");
  let retryDelay: number | undefined;
  let type: string | undefined;
  let code: string | undefined;
  let message: string | undefined;
  let requestId = requestIdOf(res);
  try {
    let json = JSON.parse(text) as unknown;
    if (Array.isArray(json)) json = json[0];
    const obj = json as Record<string, unknown>;
    const e = (obj.error ?? obj) as Record<string, unknown>;
    // Anthropic {type:"error", error:{type,message}}, OpenAI {error:{type,code,message}}, Google {error:{status,message}}
    type = str(e.type) ?? str(e.status) ?? str(e.code);
    // ... and FastAPI-style {detail: "..."} / {detail: {error: "..."}} (Tavily and many proxies)
    const detail = obj.detail as unknown;
    code = str(e.code);
    message = str(e.message) ?? str(detail) ?? str((detail as Record<string, unknown> | undefined)?.error);
    requestId ??= str(obj.request_id);
    retryDelay = retryInfoDelay(e.details);
  } catch {
    // not JSON: use the text
  }
  const should = res.headers.get("x-should-retry");
  // An exhausted quota is a 429 that no retry will clear (OpenAI's insufficient_quota).
  const hopeless = type === "insufficient_quota" || code === "insufficient_quota";
  const retryable = should === "true" ? true : should === "false" || hopeless ? false : RETRY_STATUS.has(res.status);
  const error = new ProviderError({
    provider: http.provider,
    status: res.status,
    type,
    message: message ?? (text.slice(0, 300) || res.statusText || "request failed"),
    requestId,
    retryable,
  });
  return { error, retryDelay };
}

/**
 * Google says when to retry in the body, not a header: error.details holds a
 * google.rpc.RetryInfo whose retryDelay is a Duration ("34.4s" or {seconds, nanos}). In ms.
 */
export function retryInfoDelay(details: unknown): number | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const d of details as Record<string, unknown>[]) {
    if (typeof d?.["@type"] !== "string" || !d["@type"].endsWith("google.rpc.RetryInfo")) continue;
    const v = d.retryDelay as unknown;
    if (typeof v === "string") {
      const m = /^(\d+(?:\.\d+)?)s$/.exec(v.trim());
      if (m) return Math.round(Number(m[1]) * 1000);
    } else if (typeof v === "object" && v !== null) {
      const { seconds = 0, nanos = 0 } = v as { seconds?: unknown; nanos?: unknown };
      const ms = Number(seconds) * 1000 + Number(nanos) / 1e6;
      if (Number.isFinite(ms)) return Math.round(ms);
    }
  }
  return undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : typeof v === "number" ? String(v) : undefined;
}

function requestIdOf(res: Response): string | undefined {
  return res.headers.get("request-id") ?? res.headers.get("x-request-id") ?? undefined;
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

/** Waits `ms`, or rejects with the abort reason as soon as `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** An error as one line: its message, and its cause's (fetch hides the real reason there). */
export function describe(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    return cause instanceof Error ? `${err.message} (${cause.message})` : err.message;
  }
  return String(err);
}

/** True in a browser page or browser worker (not in Node, Deno, Bun or workerd). */
export function isBrowser(): boolean {
  const g = globalThis as { window?: unknown; document?: unknown; importScripts?: unknown; navigator?: { userAgent?: string } };
  return (typeof g.window === "object" && typeof g.document === "object") || typeof g.importScripts === "function";
}

/** Options every provider factory takes. */
export interface ProviderOptions {
  apiKey?: string;
  model: string;
  /** Includes the API version, e.g. https://api.anthropic.com/v1. */
  baseURL?: string;
  /** A fetch to use instead of the global one (proxies, tests, instrumentation). */
  fetch?: FetchFn;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
  /** Retries on 408/409/429/5xx/529 and network errors. Default 2. */
  maxRetries?: number;
  /** ms without a byte on a stream before it fails. Default: no limit. */
  idleTimeout?: number;
  /** Allow sending a real API key from a browser to the vendor's own URL. */
  dangerouslyAllowBrowser?: boolean;
}

/**
 * Resolves the HTTP settings for one request: the provider's options with the request's
 * overrides. Refuses to send a key from a browser to the vendor's own host unless allowed.
 */
export function httpSettings(
  provider: string,
  options: ProviderOptions,
  defaultBaseURL: string,
  overrides: { maxRetries?: number; idleTimeout?: number },
): HttpSettings {
  if (options.apiKey && !options.dangerouslyAllowBrowser && isBrowser() && sameHost(options.baseURL ?? defaultBaseURL, defaultBaseURL)) {
    throw new BrowserKeyError(provider);
  }
  const settings: HttpSettings = {
    provider,
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    maxRetries: overrides.maxRetries ?? options.maxRetries ?? 2,
    idleTimeout: overrides.idleTimeout ?? options.idleTimeout,
  };
  if (options.apiKey) {
    // The key stays registered while the options (the provider holding them) or these
    // settings (a request in flight) are alive; keyOwners keeps the options alive as long
    // as the settings are, for callers that pass a fresh options object per request.
    registerSecret(options.apiKey, options);
    keyOwners.set(settings, options);
  }
  return settings;
}

const keyOwners = new WeakMap<HttpSettings, ProviderOptions>();

function sameHost(a: string, b: string): boolean {
  try {
    return new URL(a).host === new URL(b).host;
  } catch {
    return false;
  }
}

/** baseURL without a trailing slash. */
export function trimSlash(url: string): string {
  return url.endsWith("/") ? url.slice(0, -1) : url;
}
