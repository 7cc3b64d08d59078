// One authorization server (authorization-server.ts) and one protected MCP server on
// 127.0.0.1, for oauth() in Node, workerd and Chromium. The MCP server is toolloop's own
// mcpHandler, its `authorize` option checking the bearer token against the authorization
// server's grants; its 401 gains the challenge's resource_metadata and scope. One of its tools
// quotes the request's Authorization header back (a server the client must scrub).
import { AsyncLocalStorage } from "node:async_hooks";
import { mcpHandler } from "../../../adapters/mcp/index.js";
import { serve } from "../../../hosts/node/index.js";
import type { Tool } from "../../../src/index.js";
import { type AuthMethod, authorizationServer, json } from "./authorization-server.js";

export { approve } from "./authorization-server.js";

export interface WorldOptions {
  /** Origins of pages that call the servers (CORS); other origins get no CORS headers. */
  origins?: string[];
  /** token_endpoint_auth_methods_supported; dynamic registration grants the method asked when it is listed. */
  authMethods: AuthMethod[];
  /** Access token lifetime in seconds. */
  tokenLifetime?: number;
}

export interface World {
  issuer: string;
  mcpUrl: string;
  /** The scope the MCP server needs (named in its challenge and metadata). */
  scope: string;
  /** Requests each server answered: "METHOD path status". */
  seen: string[];
  /** Consent pages shown (an authorization started). */
  readonly consents: number;
  /** Token endpoint grants answered 200, by grant type. */
  grants: { authorization_code: number; refresh_token: number };
  /** Every secret issued or received, for the leak checks. */
  secrets(): string[];
  /** The authorization server forgets every access token (the MCP server then answers 401). */
  expireAccessTokens(): void;
  /** Refresh tokens revoked too: only a new authorization helps. */
  revokeEverything(): void;
  close(): Promise<void>;
}

export async function startWorld(o: WorldOptions): Promise<World> {
  const origins = new Set(o.origins ?? []);
  const scope = "tickets:read";
  const as = authorizationServer({ origins, authMethods: o.authMethods, tokenLifetime: o.tokenLifetime, scope });
  const seen: string[] = [];
  let issuer = "";
  let mcpUrl = "";

  // The MCP server. The token the request carries is there for the tool that quotes it.
  const bearer = new AsyncLocalStorage<string>();
  const tools: Tool[] = [
    {
      name: "ticket_status",
      description: "The status of a ticket.",
      parameters: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
      call: async (input) => `Ticket ${(JSON.parse(input) as { id: string }).id}: open, assigned to Ada.`,
    },
    {
      // A server that echoes credentials back (a debug endpoint, a careless error): the client must scrub it.
      name: "whoami",
      description: "Says how the request was authorized.",
      parameters: { type: "object", properties: {} },
      call: async () => `You are Ada, signed in with "${bearer.getStore()}".`,
    },
  ];
  const valid = (authorization: string | null) => {
    const t = authorization?.startsWith("Bearer ") ? as.access.get(authorization.slice(7)) : undefined;
    return !!t && t.expiresAt > Date.now() && t.resource === mcpUrl && t.scope.split(" ").includes(scope);
  };
  const mcp = mcpHandler({ name: "tickets", version: "1.0.0", tools, allowedOrigins: [...origins], authorize: (r) => valid(r.headers.get("authorization")) });
  const prmPath = "/.well-known/oauth-protected-resource/mcp";

  async function rs(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === prmPath && request.method === "GET") {
      return json(
        200,
        { resource: mcpUrl, authorization_servers: [issuer], scopes_supported: [scope], bearer_methods_supported: ["header"] },
        as.cors(request),
      );
    }
    if (url.pathname === prmPath && request.method === "OPTIONS") return as.preflight(request);
    if (url.pathname !== "/mcp") return new Response("not found", { status: 404 });
    const authorization = request.headers.get("authorization");
    const res = await bearer.run(authorization ?? "", () => mcp(request));
    if (res.status !== 401) return res;
    // mcpHandler's challenge is a bare "Bearer": name where the metadata is (RFC 9728 §5.1).
    const headers = new Headers(res.headers);
    const params = [authorization ? 'error="invalid_token"' : "", `resource_metadata="${new URL(prmPath, url).href}"`, `scope="${scope}"`];
    headers.set("www-authenticate", `Bearer ${params.filter(Boolean).join(", ")}`);
    return new Response(res.body, { status: 401, headers });
  }

  const logged = (name: string, handler: (r: Request) => Promise<Response>) => async (request: Request) => {
    const res = await handler(request);
    seen.push(`${name} ${request.method} ${new URL(request.url).pathname} ${res.status}`);
    return res;
  };
  const asServer = await serve(logged("as", as.handle));
  const rsServer = await serve(logged("rs", rs));
  issuer = asServer.url.replace(/\/$/, "");
  mcpUrl = `${rsServer.url.replace(/\/$/, "")}/mcp`;
  as.bind(issuer, mcpUrl);
  return {
    issuer,
    mcpUrl,
    scope,
    seen,
    get consents() {
      return as.consents;
    },
    grants: as.grants,
    secrets: () => [...as.secrets].filter((s) => s.length >= 8),
    expireAccessTokens: () => as.access.clear(),
    revokeEverything: () => {
      as.access.clear();
      as.refresh.clear();
    },
    close: async () => {
      await asServer.close({ timeout: 0 });
      await rsServer.close({ timeout: 0 });
    },
  };
}
