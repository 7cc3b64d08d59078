// What mcpTools asks of its `auth` option: a fetch for the server that carries credentials and
// answers the server's challenges. toolloop/mcp's oauth() makes one; mcpTools knows nothing of
// OAuth, so an agent that passes no `auth` ships none of it.
import { InvalidOptionsError, isRecord } from "../../../src/base/index.js";
import type { FetchFn } from "../../../src/http/index.js";

export interface McpAuth {
  /** A fetch for the MCP server at `url` that adds credentials to `fetch`'s requests. */
  fetchFor(url: string, fetch: FetchFn): FetchFn;
}

/** The auth option's fetch; refused next to an authorization header (which of the two would the server get?). */
export function authFetch(auth: McpAuth, url: string, fetch: FetchFn, headers: Record<string, string> | undefined): FetchFn {
  if (!isRecord(auth) || typeof auth.fetchFor !== "function") {
    throw new InvalidOptionsError("mcpTools(): `auth` must be what oauth({ ... }) from toolloop/mcp returns");
  }
  if (headers && Object.keys(headers).some((h) => h.toLowerCase() === "authorization")) {
    throw new InvalidOptionsError("mcpTools(): pass either `auth` or an authorization header, not both (auth adds the Authorization header itself)");
  }
  return auth.fetchFor(url, fetch);
}
