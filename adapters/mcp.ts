// toolloop/mcp: both directions of the Model Context Protocol over Streamable HTTP.
//   mcpHandler({ name, version, tools }) -> (request: Request) => Promise<Response>
//     serves toolloop tools as an MCP server in any runtime with fetch's Request/Response.
//   mcpTools({ url, headers, timeout, logger }) -> Promise<Tool[] & { close(), skipped }>
//     turns a remote MCP server's tools into Tools for createClient / setTools.
export { mcpHandler, type McpHandlerOptions } from "./mcp/handler.js";
export type { McpServedTool, McpToolAnnotations } from "./mcp/server.js";
export { mcpTools, type McpSkippedTool, type McpToolSet, type McpToolsOptions } from "./mcp/tools.js";
/** The protocol revisions served and accepted, newest first. */
export { PROTOCOL_VERSIONS, type ProtocolVersion } from "./mcp/versions.js";
