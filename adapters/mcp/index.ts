// toolloop/mcp: both directions of the Model Context Protocol over Streamable HTTP.
//   mcpHandler({ name, version, tools }) -> (request: Request) => Promise<Response>
//     serves toolloop tools as an MCP server in any runtime with fetch's Request/Response.
//   mcpTools({ url, headers, timeout, logger }) -> Promise<Tool[] & { close(), skipped }>
//     turns a remote MCP server's tools into Tools for createClient / setTools.
// Three rooms: server/ (mcpHandler), client/ (mcpTools), wire/ (what both speak: JSON-RPC,
// protocol versions, the 2026-07-28 envelope and headers, content blocks). server/ and
// client/ import wire/, never each other.

export { type McpSkippedTool, type McpToolSet, type McpToolsOptions, mcpTools } from "./client/tools.js";
export { type McpHandlerOptions, mcpHandler } from "./server/handler.js";
export type { McpServedTool, McpToolAnnotations } from "./server/server.js";
/** The protocol revisions served and accepted, newest first. */
export { PROTOCOL_VERSIONS, type ProtocolVersion } from "./wire/versions.js";
