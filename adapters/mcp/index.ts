// toolloop/mcp: both directions of the Model Context Protocol over Streamable HTTP.
//   mcpHandler({ name, version, tools }) -> (request: Request) => Promise<Response>
//     serves toolloop tools as an MCP server in any runtime with fetch's Request/Response;
//     protectedResource({ resource, authorizationServers }) makes it an OAuth protected resource.
//   mcpTools({ url, headers, timeout, logger }) -> Promise<Tool[] & { close(), skipped }>
//     turns a remote MCP server's tools into Tools for createClient / setTools.
//   oauth({ redirectUri, redirect, store }) -> the `auth` of mcpTools for servers that require
//     the MCP authorization spec (OAuth 2.1); webStorageStore(localStorage) keeps it in a page.
//   mcpPins({ secret, saved }) -> the `pins` of mcpTools: only tools whose definitions were
//     approved are offered; `value` is the signed pins to save beside the history.
// Three rooms: server/ (mcpHandler), client/ (mcpTools), wire/ (what both speak: JSON-RPC,
// protocol versions, the 2026-07-28 envelope and headers, content blocks). server/ and
// client/ import wire/, never each other. oauth/ is the client's OAuth, reached only through
// the `auth` option's interface (client/auth.ts), so an agent without it ships none of it;
// pins/ is reached the same way, through the `pins` option's (client/pins.ts).

export type { McpAuth } from "./client/auth.js";
export type { McpChangedTool, McpPins, SavedPins } from "./client/pins.js";
export { type McpSkippedTool, type McpToolSet, type McpToolsOptions, mcpTools } from "./client/tools.js";
export { AuthError, type AuthFailure } from "./oauth/errors.js";
export { type OAuth, type OAuthOptions, oauth } from "./oauth/oauth.js";
export type { TokenEndpointAuth } from "./oauth/registration.js";
export { type WebStorage, webStorageStore } from "./oauth/web-storage.js";
export { InvalidPinsError, type PinsFailure, ToolChangedError } from "./pins/errors.js";
export { type McpPinsOptions, mcpPins } from "./pins/pins.js";
export type { McpAuthorizeResult, McpAuthRefusal } from "./server/challenge.js";
export { type McpHandlerOptions, mcpHandler } from "./server/handler.js";
export { type McpProtectedResource, type ProtectedResourceOptions, protectedResource } from "./server/protected-resource.js";
export type { McpServedTool, McpToolAnnotations } from "./server/server.js";
/** The protocol revisions served and accepted, newest first. */
export { PROTOCOL_VERSIONS, type ProtocolVersion } from "./wire/versions.js";
