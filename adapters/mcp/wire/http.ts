// Small HTTP helpers shared by the server and the client side: media types, the SSE
// framing MCP uses, and JSON-RPC error bodies.
import type { JsonRpcFailure } from "./jsonrpc.js";

/** "application/json; charset=utf-8" -> "application/json". */
export function mediaType(header: string | null): string {
  return (header ?? "").split(";")[0]!.trim().toLowerCase();
}

/** The media types an Accept header lists, parameters dropped (q=0 counts as not listed). */
export function acceptedTypes(header: string | null): string[] {
  if (header === null || header.trim() === "") return [];
  return header
    .split(",")
    .map((part) => part.split(";"))
    .filter((params) => !params.slice(1).some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/i.test(p)))
    .map((params) => params[0]!.trim().toLowerCase())
    .filter(Boolean);
}

/** One SSE event carrying one JSON-RPC message (MCP's framing: event "message"). */
export function sseEvent(message: unknown): string {
  // JSON.stringify never emits a raw newline, so one data line always suffices.
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}

/** An HTTP error answered with a JSON-RPC error that has no id, as the transport spec allows. */
export function errorResponse(status: number, error: JsonRpcFailure, headers: Record<string, string> = {}): Response {
  return jsonResponse(status, error, headers);
}

/** A 200 Server-Sent Events response (one that caches must not keep). */
export function sseResponse(body: BodyInit | null | undefined, headers: Record<string, string> = {}): Response {
  return new Response(body, { status: 200, headers: { ...headers, "content-type": "text/event-stream", "cache-control": "no-cache" } });
}
