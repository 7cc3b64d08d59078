// The client's transport: one MCP endpoint reached with fetch. It builds each request's
// headers from what the session has settled (Mcp-Session-Id and MCP-Protocol-Version once
// known; on 2026-07-28 the SEP-2243 Mcp-Method / Mcp-Name / Mcp-Param-* headers), sends it,
// and names a failure without the URL's credentials. It knows no protocol flow: the session
// (session.ts) decides what to send and sets `state` as it learns it.
import {
  abortReason,
  ConnectionError,
  describeError as describe,
  isAbortError,
  isRecord,
  isToolloopError,
  ProviderError,
  registerHeaderSecrets,
  registerURLSecrets,
  stripURLs,
} from "../../../src/base/index.js";
import type { FetchFn } from "../../../src/http/index.js";
import { type ReadSettings, readText } from "../../../src/http/index.js";
import { encodeHeaderValue } from "../wire/envelope.js";
import { errorCodeName } from "../wire/jsonrpc.js";
import type { ProtocolVersion } from "../wire/versions.js";

export const PROVIDER = "mcp";

/** Body reads settle on the caller's abort even when fetch leaves them pending (see src/http/http.ts chunkReader). */
export const READ: ReadSettings = { provider: PROVIDER, idleTimeout: undefined };

export interface TransportOptions {
  url: string;
  headers: Record<string, string>;
  fetch: FetchFn;
}

/** What the session has settled so far; every request's headers follow it. */
export interface Connection {
  /** The Mcp-Session-Id a 2025-era initialize was answered with. */
  sessionId: string | undefined;
  /** The revision sent as MCP-Protocol-Version. */
  version: ProtocolVersion | undefined;
  /** Speaking 2026-07-28, statelessly: the SEP-2243 headers go with every POST. */
  modern: boolean;
}

export interface Transport {
  readonly state: Connection;
  /** POSTs one JSON-RPC message; `extra` (Mcp-Param-* headers) is sent on 2026-07-28 only. */
  post(message: object, signal: AbortSignal | undefined, extra?: Record<string, string>): Promise<Response>;
  /** Fire-and-forget message (cancellation, answers to server requests): failures are moot. */
  postQuietly(message: object): void;
  /** GETs an event stream: the session's own, or a dropped one resumed after `lastEventId`. */
  get(signal: AbortSignal | undefined, lastEventId?: string): Promise<Response>;
  /** DELETEs the 2025-era session `sessionId`; whatever the server answers, it is over for us. */
  end(sessionId: string): Promise<void>;
}

export function createTransport(options: TransportOptions): Transport {
  // A server (or a proxy before it) may echo the credentials it was sent into an error:
  // they are scrubbed from every error for as long as this session lives, like a provider's key.
  registerHeaderSecrets(options.headers, options);
  registerURLSecrets(options.url, options);
  /** The URL as errors name it: no credentials, query or fragment. */
  const where = stripURLs(options.url);
  const state: Connection = { sessionId: undefined, version: undefined, modern: false };

  function headers(kind: "post" | "get", message?: { method?: unknown; params?: unknown }, extra?: Record<string, string>): Record<string, string> {
    const h: Record<string, string> = { ...options.headers };
    // SEP-2243 Mcp-Param-* headers (tools.ts builds them), a 2026-07-28 thing only.
    if (state.modern && extra) Object.assign(h, extra);
    if (kind === "post") {
      h["content-type"] = "application/json";
      h.accept = "application/json, text/event-stream";
    } else h.accept = "text/event-stream";
    if (state.sessionId !== undefined) h["mcp-session-id"] = state.sessionId;
    if (state.version !== undefined) h["mcp-protocol-version"] = state.version;
    if (state.modern && message && typeof message.method === "string") {
      // SEP-2243 standard headers: what the body says, readable without parsing it.
      h["mcp-method"] = message.method;
      const p = message.params;
      if (message.method === "tools/call" && isRecord(p) && typeof p.name === "string") h["mcp-name"] = encodeHeaderValue(p.name);
    }
    return h;
  }

  async function send(init: RequestInit & { headers: Record<string, string> }, signal: AbortSignal | undefined): Promise<Response> {
    if (signal?.aborted) throw abortReason(signal);
    try {
      return await options.fetch(options.url, { ...init, signal });
    } catch (err) {
      if (signal?.aborted) throw abortReason(signal);
      // An abort, or a typed error of the fetch itself (the auth option's AuthError), as it is.
      if (isAbortError(err) || isToolloopError(err)) throw err;
      throw new ConnectionError(PROVIDER, `request to ${where} failed: ${describe(err)}`, { cause: err });
    }
  }

  function post(message: object, signal: AbortSignal | undefined, extra?: Record<string, string>): Promise<Response> {
    return send({ method: "POST", headers: headers("post", message as { method?: unknown; params?: unknown }, extra), body: JSON.stringify(message) }, signal);
  }

  return {
    state,
    post,
    postQuietly(message) {
      post(message, undefined).then(discard, () => {});
    },
    get(signal, lastEventId) {
      const h = headers("get");
      if (lastEventId !== undefined) h["last-event-id"] = lastEventId;
      return send({ method: "GET", headers: h }, signal);
    },
    async end(sessionId) {
      // The spec's way to end a session; a server without explicit teardown answers 405, which is fine.
      const h: Record<string, string> = { ...options.headers, "mcp-session-id": sessionId };
      if (state.version !== undefined) h["mcp-protocol-version"] = state.version;
      try {
        await discard(await send({ method: "DELETE", headers: h }, undefined));
      } catch {
        // The server is gone: so is the session.
      }
    },
  };
}

/** Lets go of a body nobody reads (a refused stream, an acknowledgement). */
export async function discard(res: Response): Promise<void> {
  await res.body?.cancel().catch(() => {});
}

/** A non-2xx answer as a ProviderError, with the JSON-RPC error message when the body has one. */
export async function httpError(res: Response, signal?: AbortSignal): Promise<ProviderError> {
  const text = await readText(READ, res, signal).catch(() => "");
  if (signal?.aborted) throw abortReason(signal);
  let message = text.slice(0, 300) || res.statusText || "request failed";
  let type: string | undefined;
  try {
    const body = JSON.parse(text) as unknown;
    if (isRecord(body) && isRecord(body.error) && typeof body.error.message === "string") {
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
