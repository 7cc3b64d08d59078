// Reading what the server sends back: the answer to one request, from an application/json
// body or a text/event-stream, and the session's own GET stream. An event stream may carry
// the server's requests (ping, elicitation) and notifications (tools/list_changed) before our
// answer; they go to the session. A stream that ends or breaks before the answer is resumed
// with GET + Last-Event-ID when the server numbered its events (it may close on purpose:
// polling, 2025-11-25), after the server's retry hint; reconnects that bring nothing new end
// it (MAX_IDLE_RESUMES).
import { abortReason, describeError as describe, MAX_RESPONSE_DEPTH, ProviderError, parseJSONBounded, StreamError } from "../../../src/base/index.js";
import { chunkReader, readText, sleep } from "../../../src/http/index.js";
import { mediaType } from "../wire/http.js";
import { classify, type JsonRpcId, type JsonRpcNotification, type JsonRpcRequest, type JsonRpcResponse } from "../wire/jsonrpc.js";
import { createMessageReader, type MessageReader } from "./sse-reader.js";
import { discard, PROVIDER, READ, type Transport } from "./transport.js";

/** Reconnects in a row that bring no new event before a dropped stream is given up. */
const MAX_IDLE_RESUMES = 3;
const DEFAULT_RESUME_DELAY = 1000;
const MAX_RESUME_DELAY = 30_000;

/** A request (the session answers it) or a notification (it has no id) the server sent on a stream. */
export type OnServerRequest = (message: JsonRpcRequest | JsonRpcNotification) => void;

/** Reads the response to request `id` from an HTTP response (JSON or SSE). */
export async function readAnswer(
  transport: Transport,
  res: Response,
  id: JsonRpcId,
  signal: AbortSignal | undefined,
  onRequest: OnServerRequest,
): Promise<JsonRpcResponse> {
  const type = mediaType(res.headers.get("content-type"));
  if (type === "application/json") {
    let body: unknown;
    try {
      // Cut where too deep (as src/http/http.ts does), so nothing recursive downstream overflows.
      body = parseJSONBounded(await readText(READ, res, signal), MAX_RESPONSE_DEPTH);
    } catch (err) {
      if (signal?.aborted) throw abortReason(signal);
      throw new ProviderError({
        provider: PROVIDER,
        status: res.status,
        type: "invalid_response",
        message: `the response body is not JSON (${describe(err)})`,
      });
    }
    for (const item of Array.isArray(body) ? body : [body]) {
      const c = classify(item);
      if (c.kind === "response" && c.message.id === id) return c.message;
    }
    throw new ProviderError({ provider: PROVIDER, status: res.status, type: "invalid_response", message: `the response does not answer request ${id}` });
  }
  if (type === "text/event-stream") return readStream(transport, res, id, signal, onRequest);
  await discard(res);
  throw new ProviderError({
    provider: PROVIDER,
    status: res.status,
    type: "invalid_response",
    message: `expected application/json or text/event-stream, got ${type || "no content type"}`,
  });
}

async function readStream(
  transport: Transport,
  first: Response,
  id: JsonRpcId,
  signal: AbortSignal | undefined,
  onRequest: OnServerRequest,
): Promise<JsonRpcResponse> {
  let answer: JsonRpcResponse | undefined;
  let broken: string | undefined;
  const reader = rpcReader(
    onRequest,
    (response) => {
      if (response.id === id) answer ??= response;
    },
    (data) => {
      broken ??= `an event is not JSON: ${data.slice(0, 100)}`;
    },
  );
  let res = first;
  let idleResumes = 0;
  for (;;) {
    const before = reader.lastEventId;
    const cut = await pump(res, reader.feed, () => answer !== undefined || broken !== undefined, signal);
    if (broken) throw new StreamError(PROVIDER, broken);
    if (answer) return answer;
    // The stream ended without our answer. A server that numbered its events may have
    // closed the connection on purpose (polling, 2025-11-25): resume with GET.
    const last = reader.lastEventId;
    if (last === undefined) {
      const how = cut === undefined ? "ended" : `broke (${describe(cut)})`;
      throw new StreamError(PROVIDER, `the event stream ${how} before the response to request ${id}`, { cause: cut });
    }
    idleResumes = last === before ? idleResumes + 1 : 0;
    if (idleResumes >= MAX_IDLE_RESUMES) throw new StreamError(PROVIDER, `the event stream for request ${id} kept ending without news`);
    await sleep(Math.min(reader.retry ?? DEFAULT_RESUME_DELAY, MAX_RESUME_DELAY), signal);
    reader.reset();
    res = await transport.get(signal, last);
    if (!isEventStream(res)) {
      await discard(res);
      throw new StreamError(PROVIDER, `the event stream for request ${id} ended and could not be resumed (GET answered ${res.status})`);
    }
  }
}

/**
 * Reads the session's GET stream, where a 2025-era server sends requests outside any call's
 * stream (SDK 1.x servers do), until `signal` aborts or the stream ends. Resolves false when
 * the server will not open one (405 from a stateless server).
 */
export async function listen(transport: Transport, signal: AbortSignal, onRequest: OnServerRequest): Promise<boolean> {
  const res = await transport.get(signal);
  if (!isEventStream(res)) {
    await discard(res);
    return false;
  }
  const reader = rpcReader(
    onRequest,
    () => {},
    () => {},
  );
  await pump(res, reader.feed, () => signal.aborted, signal);
  return true;
}

/**
 * An SSE reader of JSON-RPC messages: the server's requests and notifications to `onRequest`,
 * responses to `onResponse`.
 */
function rpcReader(onRequest: OnServerRequest, onResponse: (response: JsonRpcResponse) => void, onInvalid: (data: string) => void): MessageReader {
  return createMessageReader((value) => {
    const c = classify(value);
    if (c.kind === "response") onResponse(c.message);
    else if (c.kind === "request" || c.kind === "notification") onRequest(c.message);
  }, onInvalid);
}

function isEventStream(res: Response): boolean {
  return res.ok && mediaType(res.headers.get("content-type")) === "text/event-stream";
}

/**
 * Feeds the body's text to `feed` until it ends or `done()` says the answer is in.
 * Resolves with the error if the connection was cut: like an ended stream, a cut one may
 * still be resumed, so the caller decides. An abort rejects with the signal's reason.
 */
async function pump(res: Response, feed: (text: string) => void, done: () => boolean, signal: AbortSignal | undefined): Promise<unknown> {
  if (!res.body) return undefined;
  const reader = res.body.getReader();
  const reads = chunkReader(READ, reader, signal);
  const decoder = new TextDecoder();
  // What the parser throws (an event past its size limit) is final: resuming would replay it.
  let refused: unknown;
  const push = (text: string): void => {
    try {
      feed(text);
    } catch (err) {
      refused = err;
      throw err;
    }
  };
  try {
    for (;;) {
      const chunk = await reads.read();
      if (chunk.done) break;
      push(decoder.decode(chunk.value, { stream: true }));
      if (done()) break;
    }
    push(decoder.decode());
    return undefined;
  } catch (err) {
    if (signal?.aborted) throw abortReason(signal);
    if (refused !== undefined) throw refused;
    return err;
  } finally {
    reads.close();
    reader.cancel().catch(() => {});
  }
}
