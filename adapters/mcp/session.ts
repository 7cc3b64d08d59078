// The client half of Streamable HTTP: one connection to one MCP server. connect() first
// asks server/discover as 2026-07-28 (the stateless revision); a server that answers it
// is spoken to statelessly (each request carries the _meta envelope and the MCP-Protocol-
// Version / Mcp-Method / Mcp-Name headers). Any other answer (a legacy server's -32601, 400,
// 404, 405...) falls back to the 2025-11-25 handshake: initialize -> notifications/
// initialized, Mcp-Session-Id kept, a 404 on an expired session starts a new one, once,
// and close() ends the session with DELETE. Each request POSTs one JSON-RPC message and
// reads the answer from an application/json body or a text/event-stream (resuming a
// dropped stream with GET + Last-Event-ID when the server offers it).
import { abortReason, ConnectionError, isAbortError, ProviderError, StreamError } from "../../src/errors.js";
import { errorCodeName, classify, failure, isObject, METHOD_NOT_FOUND, success, type JsonRpcId, type JsonRpcResponse } from "./jsonrpc.js";
import { mediaType } from "./http.js";
import { chunkReader, readText, sleep, type ReadSettings } from "../../src/body.js";
import { describeError as describe } from "../../src/describe-error.js";
import type { FetchFn } from "../../src/http.js";
import { MAX_RESPONSE_DEPTH, parseJSONBounded } from "../../src/json-depth.js";
import { redact, registerHeaderSecrets, registerURLSecrets, stripURLs } from "../../src/secrets.js";

/** Body reads settle on the caller's abort even when fetch leaves them pending (see src/http.ts chunkReader). */
const READ: ReadSettings = { provider: "mcp", idleTimeout: undefined };
import { createMessageReader } from "./sse-reader.js";
import { encodeHeaderValue } from "./envelope.js";
import { isModern, isSupportedVersion, LATEST_PROTOCOL_VERSION, LEGACY_PROTOCOL_VERSIONS, META, MODERN_PROTOCOL_VERSION, type ProtocolVersion } from "./versions.js";

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
  /** "modern": 2026-07-28, stateless; "legacy": an initialize-negotiated session. */
  era: "modern" | "legacy";
  serverInfo: unknown;
  instructions: string | undefined;
}

/** Answers a request the server sends while one of ours is open (legacy elicitation). */
export type ServerRequestHandler = (method: string, params: unknown) => Promise<Record<string, unknown>>;

export interface Session {
  /** server/discover (2026-07-28), else (or with probe false) initialize + notifications/initialized. */
  connect(signal?: AbortSignal, probe?: boolean): Promise<InitializeInfo>;
  /** Sends a request and resolves with its result; JSON-RPC errors reject as McpRpcError. */
  request(method: string, params: Record<string, unknown>, signal?: AbortSignal, onServerRequest?: ServerRequestHandler, extraHeaders?: Record<string, string>): Promise<Record<string, unknown>>;
  /** Ends a 2025-era session (DELETE with its Mcp-Session-Id); nothing to do for 2026-07-28. */
  close(): Promise<void>;
}

/** What we tell servers we can do: ask the user (forms), through ctx.requestInput. */
const CLIENT_CAPABILITIES = { elicitation: { form: {} } };

/** The server answered a request with a JSON-RPC error. */
export class McpRpcError extends ProviderError {
  readonly rpcCode: number;
  readonly data: unknown;
  constructor(code: number, message: string, data: unknown, status: number) {
    super({ provider: PROVIDER, status, type: errorCodeName(code), message });
    this.rpcCode = code;
    this.data = redactData(data);
  }
}

/**
 * A server's error data with the registered secrets and URLs' credentials scrubbed, as the
 * message is (a server may echo the request's Authorization header into either).
 */
function redactData(data: unknown): unknown {
  if (data === undefined) return undefined;
  let text: string | undefined;
  try {
    text = JSON.stringify(data);
  } catch {
    return undefined; // not JSON-able (cannot come off the wire): nothing to keep
  }
  if (text === undefined) return undefined;
  const clean = redact(text);
  if (clean === text) return data;
  try {
    return JSON.parse(clean) as unknown;
  } catch {
    return clean;
  }
}

export function createSession(options: SessionOptions): Session {
  // A server (or a proxy before it) may echo the credentials it was sent into an error:
  // they are scrubbed from every error for as long as this session lives, like a provider's key.
  registerHeaderSecrets(options.headers, options);
  registerURLSecrets(options.url, options);
  /** The URL as errors name it: no credentials, query or fragment. */
  const where = stripURLs(options.url);
  let sessionId: string | undefined;
  let version: ProtocolVersion | undefined;
  let modern = false;
  // Calls in flight that can answer a server's question, and the GET stream that listens for
  // questions a 2025-era server sends outside any call's stream (SDK 1.x servers do).
  const askers = new Set<ServerRequestHandler>();
  let listening: AbortController | undefined;
  let listenRefused = false;
  let nextId = 1;
  // Set while a new session is being started after a 404, so parallel calls share it.
  let restarting: Promise<unknown> | undefined;

  function headers(kind: "post" | "get", message?: { method?: unknown; params?: unknown }, extra?: Record<string, string>): Record<string, string> {
    const h: Record<string, string> = { ...options.headers };
    // SEP-2243 Mcp-Param-* headers (tools.ts builds them), a 2026-07-28 thing only.
    if (modern && extra) Object.assign(h, extra);
    if (kind === "post") {
      h["content-type"] = "application/json";
      h.accept = "application/json, text/event-stream";
    } else h.accept = "text/event-stream";
    if (sessionId !== undefined) h["mcp-session-id"] = sessionId;
    if (version !== undefined) h["mcp-protocol-version"] = version;
    if (modern && message && typeof message.method === "string") {
      // SEP-2243 standard headers: what the body says, readable without parsing it.
      h["mcp-method"] = message.method;
      const p = message.params;
      if (message.method === "tools/call" && isObject(p) && typeof p.name === "string") h["mcp-name"] = encodeHeaderValue(p.name);
    }
    return h;
  }

  async function send(init: RequestInit & { headers: Record<string, string> }, signal: AbortSignal | undefined): Promise<Response> {
    if (signal?.aborted) throw abortReason(signal);
    try {
      return await options.fetch(options.url, { ...init, signal });
    } catch (err) {
      if (signal?.aborted) throw abortReason(signal);
      if (isAbortError(err)) throw err;
      throw new ConnectionError(PROVIDER, `request to ${where} failed: ${describe(err)}`, { cause: err });
    }
  }

  function post(message: object, signal: AbortSignal | undefined, extra?: Record<string, string>): Promise<Response> {
    return send({ method: "POST", headers: headers("post", message as { method?: unknown; params?: unknown }, extra), body: JSON.stringify(message) }, signal);
  }

  /** Fire-and-forget message (cancellation, answers to server requests): failures are moot. */
  function postQuietly(message: object): void {
    post(message, undefined).then(
      (res) => res.body?.cancel().catch(() => {}),
      () => {},
    );
  }

  /** A server-to-client request arrived on a stream: ping, and what the caller's handler takes (elicitation). */
  function answerServer(id: JsonRpcId, method: string, params: unknown, handler: ServerRequestHandler | undefined): void {
    if (method === "ping") return postQuietly(success(id, {}));
    if (!handler || method !== "elicitation/create") return postQuietly(failure(id, METHOD_NOT_FOUND, `Method not found: ${method}`));
    handler(method, params).then(
      (result) => postQuietly(success(id, result)),
      (err) => postQuietly(failure(id, -32603, describe(err))),
    );
  }

  /** Reads the response to request `id` from an HTTP response (JSON or SSE). */
  async function readAnswer(res: Response, id: JsonRpcId, signal: AbortSignal | undefined, handler?: ServerRequestHandler): Promise<JsonRpcResponse> {
    const type = mediaType(res.headers.get("content-type"));
    if (type === "application/json") {
      let body: unknown;
      try {
        // Cut where too deep (as src/http.ts does), so nothing recursive downstream overflows.
        body = parseJSONBounded(await readText(READ, res, signal), MAX_RESPONSE_DEPTH);
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
    if (type === "text/event-stream") return readStream(res, id, signal, handler);
    await res.body?.cancel().catch(() => {});
    throw new ProviderError({
      provider: PROVIDER,
      status: res.status,
      type: "invalid_response",
      message: `expected application/json or text/event-stream, got ${type || "no content type"}`,
    });
  }

  async function readStream(first: Response, id: JsonRpcId, signal: AbortSignal | undefined, handler: ServerRequestHandler | undefined): Promise<JsonRpcResponse> {
    let answer: JsonRpcResponse | undefined;
    let broken: string | undefined;
    const reader = createMessageReader(
      (value) => {
        const c = classify(value);
        if (c.kind === "response" && c.message.id === id) answer ??= c.message;
        else if (c.kind === "request") answerServer(c.message.id, c.message.method, c.message.params, handler);
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

  /** Opens the session's GET stream while a call that can answer questions is in flight. */
  function listen(): void {
    if (modern || listening || listenRefused || sessionId === undefined) return;
    const controller = new AbortController();
    listening = controller;
    void (async () => {
      try {
        const res = await send({ method: "GET", headers: headers("get") }, controller.signal);
        if (!res.ok || mediaType(res.headers.get("content-type")) !== "text/event-stream") {
          listenRefused = true; // 405 from a stateless server: no second try
          await res.body?.cancel().catch(() => {});
          return;
        }
        const reader = createMessageReader(
          (value) => {
            const c = classify(value);
            if (c.kind === "request") answerServer(c.message.id, c.message.method, c.message.params, askers.values().next().value);
          },
          () => {},
        );
        await pump(res, reader.feed, () => controller.signal.aborted, controller.signal);
      } catch {
        // Listening is a courtesy: the calls themselves report their own failures.
      } finally {
        if (listening === controller) listening = undefined;
      }
    })();
  }

  /** params with the 2026-07-28 envelope merged into its _meta (the caller's own _meta keys kept). */
  function withEnvelope(params: Record<string, unknown>): Record<string, unknown> {
    const own = isObject(params._meta) ? params._meta : {};
    return {
      ...params,
      _meta: { ...own, [META.protocolVersion]: MODERN_PROTOCOL_VERSION, [META.clientInfo]: options.clientInfo, [META.clientCapabilities]: CLIENT_CAPABILITIES },
    };
  }

  async function rawRequest(
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal | undefined,
    handler?: ServerRequestHandler,
    extra?: Record<string, string>,
  ): Promise<{ response: JsonRpcResponse; res: Response }> {
    const id = nextId++;
    try {
      const res = await post({ jsonrpc: "2.0", id, method, params: modern ? withEnvelope(params) : params }, signal, extra);
      if (!res.ok) throw await httpError(res, signal);
      return { response: await readAnswer(res, id, signal, handler), res };
    } catch (err) {
      // Tell the server to stop working on it (spec: cancel with a notification, since a
      // dropped connection does not mean cancellation). initialize is never cancelled.
      if (signal?.aborted && method !== "initialize") {
        postQuietly({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: describe(abortReason(signal)) } });
      }
      throw err;
    }
  }

  /**
   * The 2026-07-28 probe: server/discover under that revision. Resolves with the result when
   * the server speaks it, undefined when it does not (any answer a legacy server gives);
   * refused credentials and unreachable servers reject as they would for initialize.
   */
  async function discover(signal: AbortSignal | undefined, retried = false): Promise<Record<string, unknown> | undefined> {
    modern = true;
    version = MODERN_PROTOCOL_VERSION;
    try {
      const { response, res } = await rawRequest("server/discover", {}, signal);
      // -32022 (UnsupportedProtocolVersion) lists what the server speaks: we offer only one
      // stateless revision, so a second try is all a retry can be (some servers refuse a
      // client's first choice to see it retry); still refused, it is the handshake era.
      if ("error" in response && response.error.code === -32022 && !retried) return await discover(signal, true);
      // An error (-32601 from a legacy server, or -32022 listing revisions we do not speak):
      // we speak one stateless revision, so any error means the handshake era.
      if ("error" in response) return undefined;
      const result = unwrap(response, res.status);
      return Array.isArray(result.supportedVersions) && result.supportedVersions.includes(MODERN_PROTOCOL_VERSION) ? result : undefined;
    } catch (err) {
      if (signal?.aborted || err instanceof ConnectionError) throw err;
      if (err instanceof ProviderError && (err.status === 401 || err.status === 403)) throw err;
      if (err instanceof ProviderError && err.type === "-32022" && !retried) return await discover(signal, true);
      return undefined; // 400, 404, 405, 406, a body that is not JSON-RPC...: a server of an older revision
    } finally {
      modern = false;
      version = undefined;
    }
  }

  async function connect(signal?: AbortSignal, probe = true): Promise<InitializeInfo> {
    sessionId = undefined;
    version = undefined;
    modern = false;
    const discovered = probe ? await discover(signal) : undefined;
    if (discovered) {
      modern = true;
      version = MODERN_PROTOCOL_VERSION;
      const meta = isObject(discovered._meta) ? discovered._meta : {};
      return {
        protocolVersion: MODERN_PROTOCOL_VERSION,
        era: "modern",
        serverInfo: meta[META.serverInfo],
        instructions: typeof discovered.instructions === "string" ? discovered.instructions : undefined,
      };
    }
    const { response, res } = await rawRequest(
      "initialize",
      { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: CLIENT_CAPABILITIES, clientInfo: options.clientInfo },
      signal,
    );
    const result = unwrap(response, res.status);
    if (!isSupportedVersion(result.protocolVersion) || isModern(result.protocolVersion)) {
      throw new ProviderError({
        provider: PROVIDER,
        type: "unsupported_protocol_version",
        message: `the server speaks MCP ${JSON.stringify(result.protocolVersion)}; supported: ${MODERN_PROTOCOL_VERSION} (server/discover), ${LEGACY_PROTOCOL_VERSIONS.join(", ")} (initialize)`,
      });
    }
    version = result.protocolVersion;
    sessionId = res.headers.get("mcp-session-id") ?? undefined;
    const ack = await post({ jsonrpc: "2.0", method: "notifications/initialized" }, signal);
    if (!ack.ok) throw await httpError(ack, signal);
    await ack.body?.cancel().catch(() => {});
    return {
      protocolVersion: version,
      era: "legacy",
      serverInfo: result.serverInfo,
      instructions: typeof result.instructions === "string" ? result.instructions : undefined,
    };
  }

  async function request(method: string, params: Record<string, unknown>, signal?: AbortSignal, handler?: ServerRequestHandler, extra?: Record<string, string>): Promise<Record<string, unknown>> {
    if (!handler) return requestOnce(method, params, signal, undefined, extra);
    askers.add(handler);
    try {
      if (restarting) await restarting;
      listen();
      return await requestOnce(method, params, signal, handler, extra);
    } finally {
      askers.delete(handler);
      if (askers.size === 0) listening?.abort();
    }
  }

  async function requestOnce(method: string, params: Record<string, unknown>, signal?: AbortSignal, handler?: ServerRequestHandler, extra?: Record<string, string>): Promise<Record<string, unknown>> {
    if (restarting) await restarting;
    const used = sessionId;
    try {
      const { response, res } = await rawRequest(method, params, signal, handler, extra);
      return unwrap(response, res.status);
    } catch (err) {
      // The session expired (spec: 404 for a request with a session id): start a new one and retry once.
      if (used === undefined || !(err instanceof ProviderError) || err.status !== 404 || err instanceof McpRpcError) throw err;
      if (sessionId === used) {
        // The server already showed it speaks the handshake era: no new probe.
        restarting ??= connect(signal, false).finally(() => {
          restarting = undefined;
        });
      }
      await restarting;
      const { response, res } = await rawRequest(method, params, signal, handler, extra);
      return unwrap(response, res.status);
    }
  }

  async function close(): Promise<void> {
    const id = sessionId;
    listening?.abort();
    sessionId = undefined;
    if (id === undefined || modern) return;
    // The spec's way to end a session; a server without explicit teardown answers 405, which is fine.
    const h: Record<string, string> = { ...options.headers, "mcp-session-id": id };
    if (version !== undefined) h["mcp-protocol-version"] = version;
    try {
      const res = await send({ method: "DELETE", headers: h }, undefined);
      await res.body?.cancel().catch(() => {});
    } catch {
      // The server is gone: so is the session.
    }
  }

  return { connect, request, close };
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
