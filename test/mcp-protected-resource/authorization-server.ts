// A small, strict OAuth 2.1 authorization server for the protected-resource tests, as a fetch
// handler (served by toolloop/node): RFC 8414 metadata, dynamic client registration (RFC 7591),
// an authorization endpoint that consents at once and redirects with a code, and a token endpoint
// that checks what a real one checks (the client, the redirect URI, PKCE S256, the resource of
// RFC 8707, single-use codes). Tokens are kept here, so the MCP server's authorize can look them up.

export interface IssuedToken {
  clientId: string;
  resource: string;
  scopes: string[];
}

export interface AuthorizationServer {
  handler: (request: Request) => Promise<Response>;
  /** Every request's method and path, in order. */
  seen: string[];
  /** Access tokens issued, by value. */
  tokens: Map<string, IssuedToken>;
}

interface Code {
  clientId: string;
  redirectUri: string;
  challenge: string;
  resource: string;
  scopes: string[];
  used: boolean;
}

export function authorizationServer(issuer: () => string): AuthorizationServer {
  const seen: string[] = [];
  const tokens = new Map<string, IssuedToken>();
  const clients = new Map<string, string[]>(); // client_id -> redirect URIs
  const codes = new Map<string, Code>();
  const oauthError = (error: string, description: string, status = 400) => Response.json({ error, error_description: description }, { status });

  async function handler(request: Request): Promise<Response> {
    const url = new URL(request.url);
    seen.push(`${request.method} ${url.pathname}`);
    const base = issuer();
    if (url.pathname === "/.well-known/oauth-authorization-server" && request.method === "GET") {
      return Response.json({
        issuer: base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        registration_endpoint: `${base}/register`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
        scopes_supported: ["mcp:tools", "mcp:write"],
      });
    }
    if (url.pathname === "/register" && request.method === "POST") {
      const body = (await request.json()) as Record<string, unknown>;
      const uris = body.redirect_uris;
      if (!Array.isArray(uris) || uris.length === 0 || !uris.every((u) => typeof u === "string" && URL.canParse(u))) {
        return oauthError("invalid_redirect_uri", "redirect_uris must list absolute URLs");
      }
      if (body.token_endpoint_auth_method !== undefined && body.token_endpoint_auth_method !== "none") {
        return oauthError("invalid_client_metadata", "only public clients (token_endpoint_auth_method none)");
      }
      const clientId = `client-${crypto.randomUUID()}`;
      clients.set(clientId, uris as string[]);
      return Response.json(
        { ...body, client_id: clientId, client_id_issued_at: Math.floor(Date.now() / 1000), token_endpoint_auth_method: "none" },
        { status: 201 },
      );
    }
    if (url.pathname === "/authorize" && request.method === "GET") {
      const p = url.searchParams;
      const clientId = p.get("client_id") ?? "";
      const redirectUri = p.get("redirect_uri") ?? "";
      // An unknown client or redirect URI is never redirected to (an open redirector otherwise).
      if (!clients.get(clientId)?.includes(redirectUri)) return oauthError("invalid_request", "unknown client or redirect_uri");
      const back = (params: Record<string, string>) => {
        const to = new URL(redirectUri);
        for (const [k, v] of Object.entries({ ...params, ...(p.has("state") && { state: p.get("state")! }), iss: base })) to.searchParams.set(k, v);
        return new Response(null, { status: 302, headers: { location: to.href } });
      };
      if (p.get("response_type") !== "code") return back({ error: "unsupported_response_type" });
      if (!p.get("code_challenge") || p.get("code_challenge_method") !== "S256")
        return back({ error: "invalid_request", error_description: "PKCE S256 required" });
      const resource = p.get("resource");
      if (!resource || !URL.canParse(resource)) return back({ error: "invalid_target", error_description: "resource required" });
      const code = `code-${crypto.randomUUID()}`;
      const scopes = (p.get("scope") ?? "").split(" ").filter(Boolean);
      codes.set(code, { clientId, redirectUri, challenge: p.get("code_challenge")!, resource, scopes, used: false });
      return back({ code });
    }
    if (url.pathname === "/token" && request.method === "POST") {
      if (!(request.headers.get("content-type") ?? "").startsWith("application/x-www-form-urlencoded"))
        return oauthError("invalid_request", "form body expected");
      const p = new URLSearchParams(await request.text());
      if (p.get("grant_type") !== "authorization_code") return oauthError("unsupported_grant_type", "authorization_code only");
      const code = codes.get(p.get("code") ?? "");
      if (!code || code.used) return oauthError("invalid_grant", "unknown or used code");
      code.used = true;
      if (p.get("client_id") !== code.clientId) return oauthError("invalid_client", "client_id does not match", 401);
      if (p.get("redirect_uri") !== code.redirectUri) return oauthError("invalid_grant", "redirect_uri does not match");
      const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(p.get("code_verifier") ?? "")));
      const expected = btoa(String.fromCharCode(...digest))
        .replace(/\+/g, "-")
        .replace(/\//g, "_")
        .replace(/=+$/, "");
      if (expected !== code.challenge) return oauthError("invalid_grant", "PKCE verification failed");
      if (p.get("resource") !== code.resource) return oauthError("invalid_target", "resource differs from the authorization request");
      const token = `at-${crypto.randomUUID()}`;
      tokens.set(token, { clientId: code.clientId, resource: code.resource, scopes: code.scopes });
      return Response.json({ access_token: token, token_type: "Bearer", expires_in: 3600, scope: code.scopes.join(" ") });
    }
    return new Response("not found", { status: 404 });
  }

  return { handler, seen, tokens };
}
