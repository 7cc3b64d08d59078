// What mcpHandler's dispatcher is configured with and answers: the served tool, its MCP
// display metadata, the server options and the per-call context (kept apart from server.ts).
import type { Logger } from "../../../src/base/index.js";
import type { Tool } from "../../../src/tools/index.js";
import type { JsonRpcRequest, JsonRpcResponse } from "../wire/jsonrpc.js";
import type { ProtocolVersion } from "../wire/versions.js";
import type { AskClient } from "./input.js";

/** Hints about a tool's behaviour that MCP clients may show or use (untrusted by spec). */
export interface McpToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** A Tool, optionally with the display metadata MCP can carry. */
export type McpServedTool = Tool & { title?: string; annotations?: McpToolAnnotations };

export interface ServerOptions {
  name: string;
  version: string;
  tools: readonly McpServedTool[];
  /** Sent in the initialize / server/discover result: how to use this server's tools. */
  instructions?: string | undefined;
  /**
   * How long (ms) 2026-07-28 clients may cache tools/list and server/discover, and whether
   * shared caches may keep them ("public": the list is the same for every caller). Default
   * { ttlMs: 300000, scope: "public" }.
   */
  cache?: { ttlMs?: number; scope?: "public" | "private" } | undefined;
  /**
   * Key for the HMAC that seals a 2026-07-28 requestState (the answers a tool got in earlier
   * rounds), so an edited one is refused. Give every instance the same secret. Without it the
   * key derives from `name`: edits are still caught, a deliberate forgery is not.
   */
  requestStateSecret?: string | undefined;
  logger?: Logger | undefined;
}

export interface CallContext {
  /** The revision in effect for this request (modern: its `_meta`; legacy: header, or the spec's assumption). */
  version: ProtocolVersion;
  /** Aborted when the HTTP request goes away. */
  signal: AbortSignal;
  /** The client's capabilities when this request states them (every 2026-07-28 request does). */
  clientCapabilities?: Record<string, unknown>;
  /** 2025-era only: a request to the client on this call's event stream (set when the client can elicit). */
  ask?: AskClient;
}

export type Dispatch = (request: JsonRpcRequest, ctx: CallContext) => Promise<JsonRpcResponse>;
