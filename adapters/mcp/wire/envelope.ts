// Which era a POST belongs to, and the 2026-07-28 checks on a modern one. The body decides
// (a request is modern when params._meta names its protocol version); headers are
// cross-checked, never trusted on their own: MCP-Protocol-Version must equal the envelope's
// version, Mcp-Method the body's method, and Mcp-Name the tool name of a tools/call (its
// "=?base64?...?=" form decoded). A mismatch is 400 with -32020 (HeaderMismatch); an
// envelope without its required keys is 400 with -32602; a revision we do not serve is
// 400 with -32022 listing what we do. Pure: headers and the parsed body in, a verdict out.
import { base64ToBytes, bytesToBase64, isRecord } from "../../../src/base/index.js";
import { failure, HEADER_MISMATCH, INVALID_PARAMS, INVALID_REQUEST, type JsonRpcFailure, UNSUPPORTED_PROTOCOL_VERSION } from "./jsonrpc.js";
import { isModern, isSupportedVersion, META, PROTOCOL_VERSIONS, type ProtocolVersion } from "./versions.js";

export interface HeaderValues {
  protocolVersion: string | null;
  method: string | null;
  name: string | null;
}

export type Era =
  | { kind: "legacy" }
  | { kind: "modern"; version: ProtocolVersion; clientCapabilities: Record<string, unknown> }
  | { kind: "reject"; status: number; error: JsonRpcFailure };

export function classifyEra(body: unknown, headers: HeaderValues): Era {
  // Only a revision we serve makes a header "modern": an unknown one is refused by the legacy checks.
  const headerModern = isSupportedVersion(headers.protocolVersion) && isModern(headers.protocolVersion);
  if (Array.isArray(body)) {
    if (headerModern || body.some((m) => isRecord(m) && metaOf(m.params)?.[META.protocolVersion] !== undefined)) {
      return reject(400, INVALID_REQUEST, null, "Bad Request: JSON-RPC batches may not carry 2026-07-28 requests");
    }
    return { kind: "legacy" };
  }
  if (!isRecord(body) || typeof body.method !== "string") {
    // Responses (answers to server requests) and invalid bodies: the legacy path sorts them out.
    return headerModern && isRecord(body) && !("method" in body)
      ? reject(400, INVALID_REQUEST, null, "Bad Request: 2026-07-28 has no client responses to post")
      : { kind: "legacy" };
  }
  const id = typeof body.id === "string" || typeof body.id === "number" ? body.id : null;
  const isRequest = "id" in body;
  const meta = metaOf(body.params);
  const claim = meta?.[META.protocolVersion];

  if (claim === undefined) {
    if (!headerModern) return { kind: "legacy" };
    if (body.method === "initialize") {
      return mismatch(id, `initialize (the legacy handshake) was sent with MCP-Protocol-Version ${headers.protocolVersion}`);
    }
    // A notification has no envelope of its own: the header speaks for it.
    if (!isRequest)
      return checkMethodHeader(body.method, headers, id) ?? { kind: "modern", version: headers.protocolVersion as ProtocolVersion, clientCapabilities: {} };
    return reject(
      400,
      INVALID_PARAMS,
      id,
      `Invalid params: MCP-Protocol-Version names ${headers.protocolVersion}, but params._meta lacks ${META.protocolVersion}`,
      {
        envelope: { missing: [META.protocolVersion] },
      },
    );
  }

  // The envelope is claimed: validate it, never fall back to the legacy path.
  if (typeof claim !== "string") return invalidEnvelope(id, META.protocolVersion, "expected a protocol version string");
  const caps = meta![META.clientCapabilities];
  if (isRequest && caps === undefined) return invalidEnvelope(id, META.clientCapabilities, "missing");
  if (caps !== undefined && !isRecord(caps)) return invalidEnvelope(id, META.clientCapabilities, "expected an object");
  const info = meta![META.clientInfo];
  if (info !== undefined && !(isRecord(info) && typeof info.name === "string" && typeof info.version === "string")) {
    return invalidEnvelope(id, META.clientInfo, "expected { name, version }");
  }
  // Header and envelope must agree before either is judged: a disagreement is -32020 even
  // when one of them names a revision we do not serve.
  if (headers.protocolVersion !== null && headers.protocolVersion !== claim) {
    return mismatch(id, `params._meta names protocol version ${claim} but the MCP-Protocol-Version header names ${headers.protocolVersion}`);
  }
  if (!isSupportedVersion(claim) || !isModern(claim)) {
    const supported = PROTOCOL_VERSIONS.filter(isModern);
    return reject(400, UNSUPPORTED_PROTOCOL_VERSION, id, `Unsupported protocol version ${claim} (supported: ${supported.join(", ")})`, {
      supported,
      requested: claim,
    });
  }

  // Standard headers (SEP-2243): required on requests, cross-checked on everything.
  if (headers.protocolVersion === null && isRequest) return mismatch(id, "the MCP-Protocol-Version header is missing");
  if (isRequest && headers.method === null) return mismatch(id, "the Mcp-Method header is missing");
  const methodProblem = checkMethodHeader(body.method, headers, id);
  if (methodProblem) return methodProblem;
  if (isRequest && body.method === "tools/call" && isRecord(body.params) && typeof body.params.name === "string") {
    if (headers.name === null) return mismatch(id, "the Mcp-Name header is missing");
    const decoded = decodeHeaderValue(headers.name);
    if (decoded === undefined) return mismatch(id, "the Mcp-Name header is not valid =?base64?...?= text");
    if (decoded !== body.params.name)
      return mismatch(id, `params.name is ${JSON.stringify(body.params.name)} but the Mcp-Name header names ${JSON.stringify(decoded)}`);
  }
  return { kind: "modern", version: claim as ProtocolVersion, clientCapabilities: isRecord(caps) ? caps : {} };
}

/**
 * SEP-2243 on the server: for a tool whose inputSchema marks properties with x-mcp-header,
 * each argument given (not null) must arrive as its Mcp-Param-<Name> header too, equal to the
 * body's value once decoded; a missing, malformed (bad base64) or different header is -32020.
 * `marks` maps property → header name (param-headers.ts); `header` reads a request header.
 */
export function checkParamHeaders(
  marks: ReadonlyMap<string, string>,
  args: unknown,
  header: (name: string) => string | null,
  id: string | number | null,
): Era | undefined {
  if (!isRecord(args)) return undefined;
  for (const [prop, name] of marks) {
    const value = args[prop];
    if (value === null || value === undefined || typeof value === "object") continue;
    const raw = header(`mcp-param-${name}`);
    if (raw === null) return mismatch(id, `argument ${prop} is given but the Mcp-Param-${name} header is missing`);
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) return mismatch(id, `the Mcp-Param-${name} header is not valid =?base64?...?= text`);
    if (decoded !== String(value))
      return mismatch(id, `argument ${prop} is ${JSON.stringify(value)} but the Mcp-Param-${name} header says ${JSON.stringify(decoded)}`);
  }
  return undefined;
}

function checkMethodHeader(method: string, headers: HeaderValues, id: string | number | null): Era | undefined {
  if (headers.method !== null && headers.method !== method) {
    return mismatch(id, `the body names method ${method} but the Mcp-Method header names ${headers.method}`);
  }
  return undefined;
}

/** A header value as sent: plain ASCII, or "=?base64?<utf-8 as base64>?=" (undefined when that is malformed). */
function decodeHeaderValue(value: string): string | undefined {
  const m = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/.exec(value);
  // Padding is required: atob would forgive its absence, the encoding (RFC 4648) does not.
  if (!m || m[1]!.length % 4 !== 0) return value.startsWith("=?base64?") && value.endsWith("?=") ? undefined : value;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(base64ToBytes(m[1]!));
  } catch {
    return undefined;
  }
}

/** The header form of a value: itself when it is safe visible ASCII, else the base64 form. */
export function encodeHeaderValue(value: string): string {
  if (value !== "" && value === value.trim() && /^[\x20-\x7e\t]*$/.test(value) && !(value.startsWith("=?base64?") && value.endsWith("?="))) return value;
  return `=?base64?${bytesToBase64(new TextEncoder().encode(value))}?=`;
}

function metaOf(params: unknown): Record<string, unknown> | undefined {
  return isRecord(params) && isRecord(params._meta) ? params._meta : undefined;
}

function mismatch(id: string | number | null, why: string): Era {
  return reject(400, HEADER_MISMATCH, id, `Bad Request: the request headers and body disagree: ${why}`);
}

function invalidEnvelope(id: string | number | null, key: string, problem: string): Era {
  return reject(400, INVALID_PARAMS, id, `Invalid _meta envelope for protocol revision 2026-07-28: ${key}: ${problem}`, { envelope: { key, problem } });
}

function reject(status: number, code: number, id: string | number | null, message: string, data?: unknown): Era {
  return { kind: "reject", status, error: failure(id, code, message, data) };
}
