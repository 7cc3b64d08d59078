// The client half of Streamable HTTP: one connection to one MCP server, and its life.
// connect() first asks server/discover as 2026-07-28 (the stateless revision); a server that
// answers it is spoken to statelessly (each request carries the _meta envelope and the
// MCP-Protocol-Version / Mcp-Method / Mcp-Name headers). Any other answer (a legacy server's
// -32601, 400, 404, 405...) falls back to the 2025-11-25 handshake: initialize ->
// notifications/initialized, Mcp-Session-Id kept, a 404 on an expired session starts a new
// one, once, and close() ends the session with DELETE. Each request POSTs one JSON-RPC
// message (transport.ts) and reads the answer from an application/json body or a
// text/event-stream, resuming a dropped stream when the server offers it (stream.ts).
import { abortReason, ConnectionError, describeError as describe, isRecord, isToolloopError, ProviderError } from "../../../src/base/index.js";
import {
  errorCodeName,
  failure,
  INTERNAL_ERROR,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  METHOD_NOT_FOUND,
  success,
  UNSUPPORTED_PROTOCOL_VERSION,
} from "../wire/jsonrpc.js";
import {
  isModern,
  isSupportedVersion,
  LATEST_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  META,
  MODERN_PROTOCOL_VERSION,
  type ProtocolVersion,
} from "../wire/versions.js";
import { McpRpcError, unwrap } from "./rpc-error.js";
import { listen as listenTo, readAnswer } from "./stream.js";
import { createTransport, discard, httpError, PROVIDER, type TransportOptions } from "./transport.js";

export interface SessionOptions extends TransportOptions {
  clientInfo: { name: string; version: string };
  /** Told of each notification the server sends on any stream (tools/list_changed, progress...). */
  onNotification?: ((method: string, params: unknown) => void) | undefined;
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
  request(
    method: string,
    params: Record<string, unknown>,
    signal?: AbortSignal,
    onServerRequest?: ServerRequestHandler,
    extraHeaders?: Record<string, string>,
  ): Promise<Record<string, unknown>>;
  /** Keeps a stream for notifications open until close(): the GET stream (2025-era), subscriptions/listen (2026-07-28). */
  watch(): void;
  /** Ends a 2025-era session (DELETE with its Mcp-Session-Id); nothing to do for 2026-07-28. */
  close(): Promise<void>;
}

/** What we tell servers we can do: ask the user (forms), through ctx.requestInput. */
const CLIENT_CAPABILITIES = { elicitation: { form: {} } };

export function createSession(options: SessionOptions): Session {
  const transport = createTransport(options);
  const state = transport.state;
  // Calls in flight that can answer a server's question, and the GET stream that listens for
  // questions a 2025-era server sends outside any call's stream (SDK 1.x servers do).
  const askers = new Set<ServerRequestHandler>();
  let listening: AbortController | undefined;
  let listenRefused = false;
  // Set by watch(): the listening stream then stays open when no call is in flight.
  let watching: AbortController | undefined;
  let nextId = 1;
  // Set while a new session is being started after a 404, so parallel calls share it.
  let restarting: Promise<unknown> | undefined;

  /** A server-to-client request arrived on a stream: ping, and what the caller's handler takes (elicitation); a notification is told. */
  function answerServer(message: JsonRpcRequest | JsonRpcNotification, handler: ServerRequestHandler | undefined): void {
    if (!("id" in message)) {
      options.onNotification?.(message.method, message.params);
      return;
    }
    const { id, method, params } = message;
    if (method === "ping") {
      transport.postQuietly(success(id, {}));
      return;
    }
    if (!handler || method !== "elicitation/create") {
      transport.postQuietly(failure(id, METHOD_NOT_FOUND, `Method not found: ${method}`));
      return;
    }
    handler(method, params).then(
      (result) => transport.postQuietly(success(id, result)),
      (err) => transport.postQuietly(failure(id, INTERNAL_ERROR, describe(err))),
    );
  }

  /** Opens the session's GET stream while a call that can answer questions is in flight. */
  function listen(): void {
    if (state.modern || listening || listenRefused || state.sessionId === undefined) return;
    const controller = new AbortController();
    listening = controller;
    void listenTo(transport, controller.signal, (request) => answerServer(request, askers.values().next().value))
      .then(
        (opened) => {
          if (!opened) listenRefused = true; // 405 from a stateless server: no second try
        },
        () => {}, // Listening is a courtesy: the calls themselves report their own failures.
      )
      .finally(() => {
        if (listening === controller) listening = undefined;
      });
  }

  /** params with the 2026-07-28 envelope merged into its _meta (the caller's own _meta keys kept). */
  function withEnvelope(params: Record<string, unknown>): Record<string, unknown> {
    const own = isRecord(params._meta) ? params._meta : {};
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
      const res = await transport.post({ jsonrpc: "2.0", id, method, params: state.modern ? withEnvelope(params) : params }, signal, extra);
      if (!res.ok) throw await httpError(res, signal);
      return { response: await readAnswer(transport, res, id, signal, (request) => answerServer(request, handler)), res };
    } catch (err) {
      // Tell the server to stop working on it (spec: cancel with a notification, since a
      // dropped connection does not mean cancellation). initialize is never cancelled.
      if (signal?.aborted && method !== "initialize") {
        transport.postQuietly({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: describe(abortReason(signal)) } });
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
    state.modern = true;
    state.version = MODERN_PROTOCOL_VERSION;
    try {
      const { response, res } = await rawRequest("server/discover", {}, signal);
      // -32022 (UnsupportedProtocolVersion) lists what the server speaks: we offer only one
      // stateless revision, so a second try is all a retry can be (some servers refuse a
      // client's first choice to see it retry); still refused, it is the handshake era.
      if ("error" in response && response.error.code === UNSUPPORTED_PROTOCOL_VERSION && !retried) return await discover(signal, true);
      // An error (-32601 from a legacy server, or -32022 listing revisions we do not speak):
      // we speak one stateless revision, so any error means the handshake era.
      if ("error" in response) return undefined;
      const result = unwrap(response, res.status);
      return Array.isArray(result.supportedVersions) && result.supportedVersions.includes(MODERN_PROTOCOL_VERSION) ? result : undefined;
    } catch (err) {
      // Unreachable, or authorization failed (the auth option's AuthError): not a sign of an older server.
      if (signal?.aborted || err instanceof ConnectionError || isToolloopError(err, "auth_error")) throw err;
      if (err instanceof ProviderError && (err.status === 401 || err.status === 403)) throw err;
      if (err instanceof ProviderError && err.type === errorCodeName(UNSUPPORTED_PROTOCOL_VERSION) && !retried) return await discover(signal, true);
      return undefined; // 400, 404, 405, 406, a body that is not JSON-RPC...: a server of an older revision
    } finally {
      state.modern = false;
      state.version = undefined;
    }
  }

  async function connect(signal?: AbortSignal, probe = true): Promise<InitializeInfo> {
    state.sessionId = undefined;
    state.version = undefined;
    state.modern = false;
    const discovered = probe ? await discover(signal) : undefined;
    if (discovered) {
      state.modern = true;
      state.version = MODERN_PROTOCOL_VERSION;
      const meta = isRecord(discovered._meta) ? discovered._meta : {};
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
    state.version = result.protocolVersion;
    state.sessionId = res.headers.get("mcp-session-id") ?? undefined;
    const ack = await transport.post({ jsonrpc: "2.0", method: "notifications/initialized" }, signal);
    if (!ack.ok) throw await httpError(ack, signal);
    await discard(ack);
    return {
      protocolVersion: state.version,
      era: "legacy",
      serverInfo: result.serverInfo,
      instructions: typeof result.instructions === "string" ? result.instructions : undefined,
    };
  }

  async function request(
    method: string,
    params: Record<string, unknown>,
    signal?: AbortSignal,
    handler?: ServerRequestHandler,
    extra?: Record<string, string>,
  ): Promise<Record<string, unknown>> {
    if (!handler) return requestOnce(method, params, signal, undefined, extra);
    askers.add(handler);
    try {
      if (restarting) await restarting;
      listen();
      return await requestOnce(method, params, signal, handler, extra);
    } finally {
      askers.delete(handler);
      if (askers.size === 0 && !watching) listening?.abort();
    }
  }

  async function requestOnce(
    method: string,
    params: Record<string, unknown>,
    signal?: AbortSignal,
    handler?: ServerRequestHandler,
    extra?: Record<string, string>,
  ): Promise<Record<string, unknown>> {
    if (restarting) await restarting;
    const used = state.sessionId;
    try {
      const { response, res } = await rawRequest(method, params, signal, handler, extra);
      return unwrap(response, res.status);
    } catch (err) {
      // The session expired (spec: 404 for a request with a session id): start a new one and retry once.
      if (used === undefined || !(err instanceof ProviderError) || err.status !== 404 || err instanceof McpRpcError) throw err;
      if (state.sessionId === used) {
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

  function watch(): void {
    if (watching) return;
    watching = new AbortController();
    if (!state.modern) {
      listen();
      return;
    }
    // A request the server answers only when it ends the subscription; the notifications come on its stream.
    requestOnce("subscriptions/listen", { notifications: { toolsListChanged: true } }, watching.signal).catch(() => {});
  }

  async function close(): Promise<void> {
    const id = state.sessionId;
    watching?.abort();
    listening?.abort();
    state.sessionId = undefined;
    if (id === undefined || state.modern) return;
    await transport.end(id);
  }

  return { connect, request, watch, close };
}
