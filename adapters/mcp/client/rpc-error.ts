// A JSON-RPC answer read as the client needs it: the result object, or the server's error
// as McpRpcError (a ProviderError, so it carries the HTTP status and is scrubbed like any).
import { isRecord, ProviderError, redact } from "../../../src/base/index.js";
import { errorCodeName, type JsonRpcResponse } from "../wire/jsonrpc.js";
import { PROVIDER } from "./transport.js";

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

/** The result of `response`; its error, or a result that is not an object, thrown. */
export function unwrap(response: JsonRpcResponse, status: number): Record<string, unknown> {
  if ("error" in response) throw new McpRpcError(response.error.code, response.error.message, response.error.data, status);
  if (!isRecord(response.result)) {
    throw new ProviderError({ provider: PROVIDER, status, type: "invalid_response", message: "the result is not an object" });
  }
  return response.result;
}
