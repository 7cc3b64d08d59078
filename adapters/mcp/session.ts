// The client half of Streamable HTTP: one session with one MCP server. initialize ->
// notifications/initialized, then requests that each POST one JSON-RPC message and read
// the answer from an application/json body or a text/event-stream (resuming a dropped
// stream with GET + Last-Event-ID when the server offers it). Keeps Mcp-Session-Id and
// sends MCP-Protocol-Version; a 404 on an expired session starts a new one, once.
import { abortReason, ConnectionError, isAbortError, ProviderError, StreamError } from "../../src/errors.js";
import { errorCodeName, classify, failure, isObject, METHOD_NOT_FOUND, success, type JsonRpcId, type JsonRpcResponse } from "./jsonrpc.js";
import { mediaType } from "./http.js";
import { chunkReader, describe, readText, sleep, type FetchFn, type ReadSettings } from "../../src/http.js";

/** Body reads settle on the caller's abort even when fetch leaves them pending (see src/http.ts chunkReader). */
const READ: ReadSettings = { provider: "mcp", idleTimeout: undefined };
import { createMessageReader } from "./sse-reader.js";
import { isSupportedVersion, LATEST_PROTOCOL_VERSION, PROTOCOL_VERSIONS, type ProtocolVersion } from "./versions.js";

const PROVIDER = "mcp";
/** Reconnects in a row that bring no new event before a dropped stream is given up. */
const MAX_IDLE_RESUMES = 3;
const DEFAULT_RESUME_DELAY = 1000;
const MAX_RESUME_DELAY = 30_000;

export interface SessionOptions {
  url: string;
  headers: Record<string, string>;
  fetch: FetchFn;
  clientInfo: { name: string; version: string };
}

export interface InitializeInfo {
  protocolVersion: ProtocolVersion;
  serverInfo: unknown;
  instructions: string | undefined;
}

export interface Session {
  /** initialize + notifications/initialized. */
  connect(signal?: AbortSignal): Promise<InitializeInfo>;
  /** Sends a request and resolves with its result; JSON-RPC errors reject as McpRpcError. */
  request(method: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>>;
}

/** The server answered a request with a JSON-RPC error. */
export class McpRpcError extends ProviderError {
  readonly rpcCode: number;
  readonly data: unknown;
  constructor(code: number, message: string, data: unknown, status: number) {
    super({ provider: PROVIDER, status, type: errorCodeName(code), message });
    this.rpcCode = code;
    this.data = data;
  }
}

export function createSession(options: SessionOptions): Session {
  let sessionId: string | undefined;
  let version: ProtocolVersion | undefined;
  let nextId = 1;
  // Set while a new session is being started after a 404, so parallel calls share it.
  let restarting: Promise<unknown> | undefined;

  function headers(kind: "post" | "get"): Record<string, string> {
    const h: Record<string, string> = { ...options.headers };
    if (kind === "post") {
      h["content-type"] = "application/json";
      h.accept = "application/json, text/event-stream";
    } else h.accept = "text/event-stream";
    if (sessionId !== undefined) h["mcp-session-id"] = sessionId;
    if (version !== undefined) h["mcp-protocol-version"] = version;
    return h;
  }

  async function send(init: RequestInit & { headers: Record<string, string> }, signal: AbortSignal | undefined): Promise<Response> {
    if (signal?.aborted) throw abortReason(signal);
    try {
      return await options.fetch(options.url, { ...init, signal });
    } catch (err) {
      if (signal?.aborted) throw abortReason(signal);
      if (isAbortError(err)) throw err;
      throw new ConnectionError(PROVIDER, `request to ${options.url} failed: ${describe(err)}`, { cause: err });
    }
  }

  function post(message: unknown, signal: AbortSignal | undefined): Promise<Response> {
    return send({ method: "POST", headers: headers("post"), body: JSON.stringify(message) }, signal);
  }

  /** Fire-and-forget message (cancellation, answers to server requests): failures are moot. */
  function postQuietly(message: unknown): void {
    post(message, undefined).then(
      (res) => res.body?.cancel().catch(() => {}),
      () => {},
    );
  }

  /** A server-to-client request arrived on a stream: we offer no client features, so only ping. */
  function answerServer(id: JsonRpcId, method: string): void {
    postQuietly(method === "ping" ? success(id, {}) : failure(id, METHOD_NOT_FOUND, `Method not found: ${method}`));
  }

  /** Reads the response to request `id` from an HTTP response (JSON or SSE). */
  async function readAnswer(res: Response, id: JsonRpcId, signal: AbortSignal | undefined): Promise<JsonRpcResponse> {
    const type = mediaType(res.headers.get("content-type"));
    if (type === "application/json") {
      let body: unknown;
      try {
        body = JSON.parse(await readText(READ, res, signal));
      } catch (err) {
        if (signal?.aborted) throw abortReason(signal);
        throw new ProviderError({ provider: PROVIDER, status: res.status, type: "invalid_response", message: `the response body is not JSON (${describe(err)})` });
      }
      for (const item of Array.isArray(body) ? body : [body]) {
        const c = classify(item);
        if (c.kind === "response" && c.message.id === id) return c.message;
      }
      throw new ProviderError({ provider: PROVIDER, status: res.status, type: "invalid_response", message: `the response does not answer request ${id}` });
    }
    if (type === "text/event-stream") return readStream(res, id, signal);
    await res.body?.cancel().catch(() => {});
    throw new ProviderError({
      provider: PROVIDER,
      status: res.status,
      type: "invalid_response",
      message: `expected application/json or text/event-stream, got ${type || "no content type"}`,
    });
  }

  async function readStream(first: Response, id: JsonRpcId, signal: AbortSignal | undefined): Promise<JsonRpcResponse> {
    let answer: JsonRpcResponse | undefined;
    let broken: string | undefined;
    const reader = createMessageReader(
      (value) => {
        const c = classify(value);
        if (c.kind === "response" && c.message.id === id) answer ??= c.message;
        else if (c.kind === "request") answerServer(c.message.id, c.message.method);
        // notifications (progress, logging) need nothing from us
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
      res = await send({ method: "GET", headers: { ...headers("get"), "last-event-id": last } }, signal);
      if (!res.ok || mediaType(res.headers.get("content-type")) !== "text/event-stream") {
        await res.body?.cancel().catch(() => {});
        throw new StreamError(PROVIDER, `the event stream for request ${id} ended and could not be resumed (GET answered ${res.status})`);
      }
    }
  }

  async function rawRequest(method: string, params: Record<string, unknown>, signal: AbortSignal | undefined): Promise<{ response: JsonRpcResponse; res: Response }> {
    const id = nextId++;
    try {
      const res = await post({ jsonrpc: "2.0", id, method, params }, signal);
      if (!res.ok) throw await httpError(res, signal);
      return { response: await readAnswer(res, id, signal), res };
    } catch (err) {
      // Tell the server to stop working on it (spec: cancel with a notification, since a
      // dropped connection does not mean cancellation). initialize is never cancelled.
      if (signal?.aborted && method !== "initialize") {
        postQuietly({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: describe(abortReason(signal)) } });
      }
      throw err;
    }
  }

  async function connect(signal?: AbortSignal): Promise<InitializeInfo> {
    sessionId = undefined;
    version = undefined;
    const { response, res } = await rawRequest(
      "initialize",
      { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: options.clientInfo },
      signal,
    );
    const result = unwrap(response, res.status);
    if (!isSupportedVersion(result.protocolVersion)) {
      throw new ProviderError({
        provider: PROVIDER,
        type: "unsupported_protocol_version",
        message: `the server speaks MCP ${JSON.stringify(result.protocolVersion)}; supported: ${PROTOCOL_VERSIONS.join(", ")}`,
      });
    }
    version = result.protocolVersion;
    sessionId = res.headers.get("mcp-session-id") ?? undefined;
    const ack = await post({ jsonrpc: "2.0", method: "notifications/initialized" }, signal);
    if (!ack.ok) throw await httpError(ack, signal);
    await ack.body?.cancel().catch(() => {});
    return {
      protocolVersion: version,
      serverInfo: result.serverInfo,
      instructions: typeof result.instructions === "string" ? result.instructions : undefined,
    };
  }

  async function request(method: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>> {
    if (restarting) await restarting;
    const used = sessionId;
    try {
      const { response, res } = await rawRequest(method, params, signal);
      return unwrap(response, res.status);
    } catch (err) {
      // The session expired (spec: 404 for a request with a session id): start a new one and retry once.
      if (used === undefined || !(err instanceof ProviderError) || err.status !== 404 || err instanceof McpRpcError) throw err;
      if (sessionId === used) {
        restarting ??= connect(signal).finally(() => {
          restarting = undefined;
        });
      }
      await restarting;
      const { response, res } = await rawRequest(method, params, signal);
      return unwrap(response, res.status);
    }
  }

  return { connect, request };
}

function unwrap(response: JsonRpcResponse, status: number): Record<string, unknown> {
  if ("error" in response) throw new McpRpcError(response.error.code, response.error.message, response.error.data, status);
  if (!isObject(response.result)) {
    throw new ProviderError({ provider: PROVIDER, status, type: "invalid_response", message: "the result is not an object" });
  }
  return response.result;
}

/** A non-2xx answer as a ProviderError, with the JSON-RPC error message when the body has one. */
async function httpError(res: Response, signal?: AbortSignal): Promise<ProviderError> {
  const text = await readText(READ, res, signal).catch(() => "");
  if (signal?.aborted) throw abortReason(signal);
  let message = text.slice(0, 300) || res.statusText || "request failed";
  let type: string | undefined;
  try {
    const body = JSON.parse(text) as unknown;
    if (isObject(body) && isObject(body.error) && typeof body.error.message === "string") {
      message = body.error.message;
      if (typeof body.error.code === "number") type = errorCodeName(body.error.code);
    }
  } catch {
    // not JSON: keep the text
  }
  if (res.status === 401) type = "unauthorized";
  return new ProviderError({
    provider: PROVIDER,
    status: res.status,
    type,
    message,
    requestId: res.headers.get("x-request-id") ?? undefined,
    retryable: res.status === 429 || res.status >= 500,
  });
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
  try {
    for (;;) {
      const chunk = await reads.read();
      if (chunk.done) break;
      feed(decoder.decode(chunk.value, { stream: true }));
      if (done()) break;
    }
    feed(decoder.decode());
    return undefined;
  } catch (err) {
    if (signal?.aborted) throw abortReason(signal);
    return err;
  } finally {
    reads.close();
    reader.cancel().catch(() => {});
  }
}
