// JSON-RPC 2.0 as MCP uses it: ids are strings or numbers (never null in a request),
// params are objects. classify() is the trust boundary: anything that came off the wire
// is `unknown` until it has been sorted into one of the four shapes here.
import { isRecord } from "../../../src/base/index.js";

export type JsonRpcId = string | number;

export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: JsonRpcId;
  method: string;
  params?: unknown;
}

export interface JsonRpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: unknown;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcSuccess {
  jsonrpc: "2.0";
  id: JsonRpcId;
  result: Record<string, unknown>;
}

export interface JsonRpcFailure {
  jsonrpc: "2.0";
  id: JsonRpcId | null;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure;

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
// MCP's own codes (2026-07-28), named here once for both sides.
/** SEP-2243 HeaderMismatch: the request's headers and its body disagree. */
export const HEADER_MISMATCH = -32020;
/** SEP-2575 MissingRequiredClientCapability: the request needs a capability the client did not declare. */
export const MISSING_CLIENT_CAPABILITY = -32021;
/** UnsupportedProtocolVersion: a revision the server does not speak (its data lists those it does). */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

const CODE_NAMES: Record<number, string> = {
  [PARSE_ERROR]: "parse_error",
  [INVALID_REQUEST]: "invalid_request",
  [METHOD_NOT_FOUND]: "method_not_found",
  [INVALID_PARAMS]: "invalid_params",
  [INTERNAL_ERROR]: "internal_error",
};

/** A readable name for a JSON-RPC error code ("invalid_params"), or the number as text. */
export function errorCodeName(code: number): string {
  return CODE_NAMES[code] ?? String(code);
}

export type Classified =
  | { kind: "request"; message: JsonRpcRequest }
  | { kind: "notification"; message: JsonRpcNotification }
  | { kind: "response"; message: JsonRpcResponse }
  /** Not a JSON-RPC 2.0 message; `id` is kept when it could be read, so the error can name it. */
  | { kind: "invalid"; id: JsonRpcId | null; reason: string };

/** Sorts one decoded JSON value into request, notification, response or invalid. */
export function classify(value: unknown): Classified {
  if (!isRecord(value)) return { kind: "invalid", id: null, reason: "a JSON-RPC message must be an object" };
  const id = isId(value.id) ? value.id : null;
  if (value.jsonrpc !== "2.0") return { kind: "invalid", id, reason: 'the "jsonrpc" member must be "2.0"' };
  if ("method" in value) {
    if (typeof value.method !== "string") return { kind: "invalid", id, reason: 'the "method" member must be a string' };
    if (!("id" in value)) return { kind: "notification", message: value as unknown as JsonRpcNotification };
    if (!isId(value.id)) return { kind: "invalid", id: null, reason: 'a request "id" must be a string or a number' };
    return { kind: "request", message: value as unknown as JsonRpcRequest };
  }
  if ("result" in value || "error" in value) {
    if ("result" in value === "error" in value) return { kind: "invalid", id, reason: 'a response has "result" or "error", not both' };
    if (!isId(value.id) && value.id !== null) return { kind: "invalid", id: null, reason: 'a response "id" must be a string or a number' };
    if ("error" in value && !isErrorObject(value.error)) return { kind: "invalid", id, reason: 'the "error" member must be {code, message}' };
    return { kind: "response", message: value as unknown as JsonRpcResponse };
  }
  return { kind: "invalid", id, reason: 'a JSON-RPC message needs "method", "result" or "error"' };
}

export function success(id: JsonRpcId, result: Record<string, unknown>): JsonRpcSuccess {
  return { jsonrpc: "2.0", id, result };
}

export function failure(id: JsonRpcId | null, code: number, message: string, data?: unknown): JsonRpcFailure {
  const error: JsonRpcErrorObject = { code, message };
  if (data !== undefined) error.data = data;
  return { jsonrpc: "2.0", id, error };
}

/**
 * JSON text of a parsed JSON value with every object's keys in sorted order, so two values
 * that are equal as JSON give the same text whatever order their keys came in.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(",")}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

function isId(v: unknown): v is JsonRpcId {
  return typeof v === "string" || (typeof v === "number" && Number.isFinite(v));
}

function isErrorObject(v: unknown): v is JsonRpcErrorObject {
  return isRecord(v) && typeof v.code === "number" && typeof v.message === "string";
}
