// mcpHandler(): a toolloop tool set served as an MCP server over Streamable HTTP, as one
// web-standard function (Request in, Response out) that any runtime can mount: Workers,
// Deno.serve, Bun.serve, a Node http bridge. Stateless: no server-initiated stream (GET/DELETE
// answer 405), every POST carries everything needed to answer it (the one session id issued,
// to 2025-era clients that can elicit, only records that fact: see ask-stream.ts). Each
// request picks its era: one whose params._meta names 2026-07-28 is served by that revision
// (wire/envelope.ts checks it and its headers); any other by the 2025-11-25 family as before.
// Building the handler does no I/O, randomness or timers, so it may sit at module top level.
import { checkOptions, isRecord, MAX_RESPONSE_DEPTH, parseJSONBounded, silentLogger } from "../../../src/base/index.js";
import { checkParamHeaders, classifyEra } from "../wire/envelope.js";
import { acceptedTypes, errorResponse, jsonResponse, mediaType, sseEvent, sseResponse } from "../wire/http.js";
import {
  classify,
  failure,
  INTERNAL_ERROR,
  INVALID_REQUEST,
  type JsonRpcResponse,
  METHOD_NOT_FOUND,
  MISSING_CLIENT_CAPABILITY,
  PARSE_ERROR,
} from "../wire/jsonrpc.js";
import { paramHeaders } from "../wire/param-headers.js";
import { ASSUMED_PROTOCOL_VERSION, allowsBatches, isSupportedVersion, LEGACY_PROTOCOL_VERSIONS, type ProtocolVersion } from "../wire/versions.js";
import { createClientAsks, ELICITING_SESSION } from "./ask-stream.js";
import { type McpAuthorizeResult, refusedResponse } from "./challenge.js";
import { handlerLimits, mapBounded, readBodyWithin } from "./limits.js";
import { checkProtectedResource, type McpProtectedResource } from "./protected-resource.js";
import { type CallContext, createDispatcher, type Dispatch, type ServerOptions } from "./server.js";

export interface McpHandlerOptions extends ServerOptions {
  /**
   * Origins (scheme://host:port) whose browser requests are served, with CORS headers.
   * A request with any other Origin gets 403 (DNS-rebinding protection). Without this
   * option every request that carries an Origin header (that is, from a browser page) gets
   * 403; requests without one (servers, CLIs, desktop apps) are always served.
   */
  allowedOrigins?: readonly string[] | undefined;
  /**
   * Lets a tool's ctx.requestInput reach 2025-06-18 / 2025-11-25 clients that declared
   * elicitation: the call's response becomes an event stream carrying elicitation/create,
   * and the client POSTs the answer back. That answer must reach this same handler instance
   * while the call waits: fine for one Node/Deno/Bun process or a Durable Object, not for
   * stateless Workers (a promise cannot be settled from another request there). Off by
   * default: such a call then ends in a tool error. 2026-07-28 clients need none of this
   * (their questions travel in the results).
   */
  legacyElicitation?: boolean;
  /**
   * true serves the request; false refuses it (401, `WWW-Authenticate: Bearer`), as does anything
   * else but `{ error: "invalid_token" }` (401, saying so) or `{ error: "insufficient_scope", scope }` (403).
   */
  authorize?: ((request: Request) => McpAuthorizeResult | Promise<McpAuthorizeResult>) | undefined;
  /** protectedResource({ resource, authorizationServers }): OAuth discovery (RFC 9728); needs `authorize`. */
  protectedResource?: McpProtectedResource | undefined;
  /**
   * The largest request body read, in bytes; a longer one is refused with 413 (reading stops
   * there). Default 4 MiB (4194304).
   */
  maxBodyBytes?: number | undefined;
  /** The most messages one JSON-RPC batch (2025-03-26) may hold; more gets 400. Default 50. */
  maxBatchSize?: number | undefined;
  /** How many messages of one batch are answered at once. Default 8. */
  maxBatchConcurrency?: number | undefined;
}

const EXPOSED_HEADERS = "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate";
const DEFAULT_ALLOWED_HEADERS = "Content-Type, Accept, Authorization, Mcp-Protocol-Version, Mcp-Session-Id, Mcp-Method, Mcp-Name, Last-Event-ID";

/** Serves `tools` as an MCP server at whatever path the returned function is mounted on. */
export function mcpHandler(options: McpHandlerOptions): (request: Request) => Promise<Response> {
  checkOptions(
    "mcpHandler()",
    options,
    "name version tools instructions cache requestStateSecret logger allowedOrigins legacyElicitation authorize protectedResource maxBodyBytes maxBatchSize maxBatchConcurrency",
  );
  const resource = checkProtectedResource(options.protectedResource, options.authorize);
  const limits = handlerLimits(options);
  const dispatch = createDispatcher(options);
  const allowed = options.allowedOrigins ? new Set(options.allowedOrigins) : undefined;
  const logger = options.logger ?? silentLogger;
  const authorize = options.authorize;
  const asks = options.legacyElicitation === true ? createClientAsks() : undefined;
  // SEP-2243: which arguments of which tool travel as Mcp-Param-* headers too (built on first use).
  let marks: Map<string, ReadonlyMap<string, string>> | undefined;
  const headerMarks = () => {
    if (!marks) {
      marks = new Map();
      for (const t of options.tools) {
        const m = isRecord(t.parameters) ? paramHeaders(t.parameters) : undefined;
        if (m?.ok && m.map.size > 0) marks.set(t.name.toLowerCase(), m.map);
      }
    }
    return marks;
  };

  async function handle(request: Request): Promise<Response> {
    // 0. The protected-resource metadata: public, for any origin, before any token exists.
    const metadata = resource?.serve(request);
    if (metadata) return metadata;
    // 1. Origin before anything else: a refused origin learns nothing, not even "401".
    const origin = request.headers.get("origin");
    let cors: Record<string, string> = {};
    if (origin !== null) {
      // Not even same-origin is trusted by default: under DNS rebinding the attacker's page
      // *is* same-origin with the Host it forged.
      if (!allowed?.has(origin)) return errorResponse(403, failure(null, INVALID_REQUEST, `Forbidden: origin ${origin} is not allowed`));
      cors = { "access-control-allow-origin": origin, "access-control-expose-headers": EXPOSED_HEADERS, vary: "Origin" };
    }
    if (request.method === "OPTIONS" && cors["access-control-allow-origin"]) {
      return emptyResponse(204, {
        ...cors,
        "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
        "access-control-allow-headers": request.headers.get("access-control-request-headers") ?? DEFAULT_ALLOWED_HEADERS,
        "access-control-max-age": "86400",
      });
    }

    // 2. Authorization (never for a CORS preflight: browsers send no credentials there).
    if (authorize) {
      let verdict: unknown;
      try {
        verdict = await authorize(request);
      } catch (err) {
        logger.error("mcp authorize threw", { error: err instanceof Error ? err.message : String(err) });
        return errorResponse(500, failure(null, INTERNAL_ERROR, "Internal error: authorization failed"), cors);
      }
      // The body stays unread, as for every refusal before step 4: a refused client's upload
      // is not read into memory here; the host drains or closes the connection.
      if (verdict !== true) return refusedResponse(verdict, resource, cors);
    }

    // 3. Only POST carries messages; without sessions there is no stream to GET or DELETE.
    if (request.method !== "POST") {
      // No body: clients probe with GET right after initialize and drop the answer unread.
      return emptyResponse(405, { ...cors, allow: "POST" });
    }
    if (mediaType(request.headers.get("content-type")) !== "application/json") {
      return errorResponse(415, failure(null, INVALID_REQUEST, "Unsupported media type: send Content-Type: application/json"), cors);
    }
    const format = responseFormat(request.headers.get("accept"));
    if (!format) {
      return errorResponse(406, failure(null, INVALID_REQUEST, "Not acceptable: accept application/json or text/event-stream"), cors);
    }
    // One response in the format the client asked for (cors read when it is sent).
    const reply = (r: JsonRpcResponse) => (format === "sse" ? sseResponse(sseEvent(r), cors) : jsonResponse(200, r, cors));

    // 4. The body, read no further than maxBodyBytes.
    const text = await readBodyWithin(request, limits.maxBodyBytes);
    if (text === undefined) {
      return errorResponse(413, failure(null, INVALID_REQUEST, `Payload too large: the body is longer than ${limits.maxBodyBytes} bytes`), cors);
    }
    let body: unknown;
    try {
      // Nesting past MAX_RESPONSE_DEPTH is cut, so no walk below overflows the stack; arguments
      // that deep are refused as invalid by server.ts either way.
      body = parseJSONBounded(text, MAX_RESPONSE_DEPTH);
    } catch {
      return errorResponse(400, failure(null, PARSE_ERROR, "Parse error: the body is not JSON"), cors);
    }

    // 5. The era: a 2026-07-28 request names its revision in params._meta (and its headers must agree).
    const header = request.headers.get("mcp-protocol-version");
    const era = classifyEra(body, { protocolVersion: header, method: request.headers.get("mcp-method"), name: request.headers.get("mcp-name") });
    if (era.kind === "reject") return errorResponse(era.status, era.error, cors);
    if (era.kind === "modern") {
      const c = classify(body);
      if (c.kind === "invalid") return errorResponse(400, failure(c.id, INVALID_REQUEST, `Invalid Request: ${c.reason}`), cors);
      if (c.kind !== "request") return emptyResponse(202, cors);
      if (c.message.method === "tools/call" && isRecord(c.message.params) && typeof c.message.params.name === "string") {
        const marks = headerMarks().get(c.message.params.name.toLowerCase());
        const problem = marks && checkParamHeaders(marks, c.message.params.arguments, (h) => request.headers.get(h), c.message.id);
        if (problem && problem.kind === "reject") return errorResponse(problem.status, problem.error, cors);
      }
      const response = await dispatch(c.message, { version: era.version, signal: request.signal, clientCapabilities: era.clientCapabilities });
      // 2026-07-28 answers a method it does not serve (initialize, ping, resources/*...) with HTTP 404 as well as -32601.
      if ("error" in response && response.error.code === METHOD_NOT_FOUND) return errorResponse(404, response, cors);
      if ("error" in response && response.error.code === MISSING_CLIENT_CAPABILITY) return errorResponse(400, response, cors);
      return reply(response);
    }

    // 6. Legacy: the revision in effect. initialize negotiates it, so its header (if any) is not checked.
    const initializing = isRecord(body) && body.method === "initialize";
    if (header !== null && !initializing && !isSupportedVersion(header)) {
      return errorResponse(
        400,
        failure(
          null,
          INVALID_REQUEST,
          `Bad Request: unsupported MCP-Protocol-Version ${header} (supported: ${LEGACY_PROTOCOL_VERSIONS.join(", ")}; 2026-07-28 names its revision in params._meta)`,
        ),
        cors,
      );
    }
    const version: ProtocolVersion = isSupportedVersion(header) ? header : ASSUMED_PROTOCOL_VERSION;
    const ctx: CallContext = { version, signal: request.signal };

    let responses: JsonRpcResponse[];
    let batch = false;
    if (Array.isArray(body)) {
      if (!allowsBatches(version)) {
        return errorResponse(400, failure(null, INVALID_REQUEST, `Invalid Request: protocol revision ${version} does not allow JSON-RPC batches`), cors);
      }
      if (body.length === 0) return errorResponse(400, failure(null, INVALID_REQUEST, "Invalid Request: empty batch"), cors);
      if (body.length > limits.maxBatchSize) {
        return errorResponse(
          400,
          failure(null, INVALID_REQUEST, `Invalid Request: a batch of ${body.length} messages is more than the ${limits.maxBatchSize} this server takes`),
          cors,
        );
      }
      batch = true;
      const answers = await mapBounded(body, limits.maxBatchConcurrency, (item) => answer(dispatch, item, ctx, true));
      responses = answers.filter((r): r is JsonRpcResponse => r !== undefined);
    } else {
      const c = classify(body);
      if (c.kind === "invalid") return errorResponse(400, failure(c.id, INVALID_REQUEST, `Invalid Request: ${c.reason}`), cors);
      // The client answering one of our elicitation questions (see ask-stream.ts).
      if (c.kind === "response") {
        asks?.settle(c.message); // ours or not, a response needs no answer
        return emptyResponse(202, cors);
      }
      const session = request.headers.get("mcp-session-id");
      if (
        asks &&
        c.kind === "request" &&
        c.message.method === "tools/call" &&
        session?.startsWith(ELICITING_SESSION) &&
        acceptedTypes(request.headers.get("accept")).includes("text/event-stream")
      ) {
        const message = c.message;
        return asks.serve((ask) => dispatch(message, { ...ctx, ask }), request.signal, cors, reply);
      }
      const r = await answer(dispatch, body, ctx, false);
      responses = r ? [r] : [];
      // A client that can be asked (elicitation) is told so in the one place a stateless server
      // can keep it: the session id it will send back. Nothing is stored.
      if (asks && c.kind === "request" && c.message.method === "initialize" && r && "result" in r && canElicit(c.message.params)) {
        cors = { ...cors, "mcp-session-id": `${ELICITING_SESSION}${crypto.randomUUID()}` };
      }
    }

    // Notifications and responses only: accepted, nothing to say.
    if (responses.length === 0) return emptyResponse(202, cors);
    if (format === "sse") return sseResponse(responses.map(sseEvent).join(""), cors);
    return jsonResponse(200, batch ? responses : responses[0], cors);
  }

  return async (request) => {
    try {
      return await handle(request);
    } catch (err) {
      // Only a bug in this file gets here (tools are fenced in server.ts); keep serving.
      logger.error("mcp handler failed", { error: err instanceof Error ? err.message : String(err) });
      return errorResponse(500, failure(null, INTERNAL_ERROR, "Internal error"));
    }
  };
}

function canElicit(params: unknown): boolean {
  return isRecord(params) && isRecord(params.capabilities) && isRecord(params.capabilities.elicitation);
}

/** The response for one message: undefined for notifications and client responses. */
async function answer(dispatch: Dispatch, message: unknown, ctx: CallContext, inBatch: boolean): Promise<JsonRpcResponse | undefined> {
  const c = classify(message);
  switch (c.kind) {
    case "invalid":
      return failure(c.id, INVALID_REQUEST, `Invalid Request: ${c.reason}`);
    case "notification":
    case "response":
      // notifications/initialized, notifications/cancelled, ... need no answer from a
      // stateless server; cancellation reaches a tool when the client drops the request.
      return undefined;
    case "request":
      if (inBatch && c.message.method === "initialize") {
        return failure(c.message.id, INVALID_REQUEST, "Invalid Request: initialize must not be part of a batch");
      }
      return dispatch(c.message, ctx);
  }
}

/**
 * A response without a body. The explicit length lets a server (workerd) end the message
 * at once instead of chunking nothing, so a client that drops the body early cuts no write.
 */
function emptyResponse(status: number, headers: Record<string, string>): Response {
  return new Response(null, { status, headers: { ...headers, "content-length": "0" } });
}

/** JSON when the client takes it (or says nothing), SSE when it only takes SSE, else none. */
function responseFormat(accept: string | null): "json" | "sse" | undefined {
  const types = acceptedTypes(accept);
  if (types.length === 0) return "json";
  if (types.some((t) => t === "application/json" || t === "application/*" || t === "*/*")) return "json";
  if (types.some((t) => t === "text/event-stream" || t === "text/*")) return "sse";
  return undefined;
}
