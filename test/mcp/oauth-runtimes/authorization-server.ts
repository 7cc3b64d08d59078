// The authorization server of the runtime suites, strict where a real one is: an unknown client
// or redirect URI gets an error page (never a redirect), PKCE S256 and the resource (RFC 8707)
// are required and checked again at the token endpoint, a code works once (a reused one revokes
// what it gave), client authentication must be exactly the registered method, refresh tokens
// rotate and need their resource. The user approves on a consent page (a form), as in a
// browser. CORS for the pages' origins. Its errors quote the form they were sent (a leaky
// server the client must scrub). Every secret issued or received is kept for the leak checks.
import { createHash, randomBytes } from "node:crypto";

export type AuthMethod = "none" | "client_secret_basic" | "client_secret_post";

export interface AuthorizationServerOptions {
  /** Origins of pages that call it (CORS); other origins get no CORS headers. */
  origins: Set<string>;
  /** token_endpoint_auth_methods_supported; dynamic registration grants the method asked when it is listed. */
  authMethods: AuthMethod[];
  /** Access token lifetime in seconds. */
  tokenLifetime?: number | undefined;
  /** The scope the protected resource needs. */
  scope: string;
}

export interface AccessGrant {
  clientId: string;
  scope: string;
  resource: string;
  expiresAt: number;
}

interface Client {
  secret: string | undefined;
  method: AuthMethod;
  redirectUris: string[];
  name: string;
}

const random = (prefix: string) => `${prefix}${randomBytes(24).toString("base64url")}`;
export const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", "cache-control": "no-store", ...headers } });
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function authorizationServer(o: AuthorizationServerOptions) {
  const { origins, scope } = o;
  const clients = new Map<string, Client>();
  const asks = new Map<string, Record<string, string>>(); // consent id -> the authorization request
  const codes = new Map<string, { clientId: string; redirectUri: string; challenge: string; resource: string; scope: string; used: boolean; gave: string[] }>();
  const access = new Map<string, AccessGrant>();
  const refresh = new Map<string, { clientId: string; scope: string; resource: string }>();
  const secrets = new Set<string>();
  const grants = { authorization_code: 0, refresh_token: 0 };
  let consents = 0;
  const scopes = [scope, "offline_access"];
  let issuer = "";
  let mcpUrl = "";

  const cors = (request: Request): Record<string, string> => {
    const origin = request.headers.get("origin");
    return origin && origins.has(origin) ? { "access-control-allow-origin": origin, vary: "Origin" } : {};
  };
  const preflight = (request: Request) =>
    new Response(null, {
      status: 204,
      headers: {
        ...cors(request),
        "access-control-allow-methods": "GET, POST",
        "access-control-allow-headers": request.headers.get("access-control-request-headers") ?? "",
        "access-control-max-age": "600",
      },
    });
  const oauthError = (request: Request, status: number, error: string, description: string) =>
    json(status, { error, error_description: description }, cors(request));
  const page = (status: number, body: string) =>
    new Response(`<!doctype html><meta charset=utf-8><title>Example Tickets: sign in</title>${body}`, {
      status,
      headers: { "content-type": "text/html; charset=utf-8" },
    });

  function metadata() {
    return {
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      registration_endpoint: `${issuer}/register`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: o.authMethods,
      scopes_supported: scopes,
      authorization_response_iss_parameter_supported: true,
    };
  }

  function register(request: Request, body: Record<string, unknown>): Response {
    const uris = body.redirect_uris;
    if (!Array.isArray(uris) || uris.length === 0 || !uris.every((u) => typeof u === "string" && URL.canParse(u))) {
      return oauthError(request, 400, "invalid_redirect_uri", "redirect_uris must list absolute URLs");
    }
    const method = body.token_endpoint_auth_method as AuthMethod;
    if (!o.authMethods.includes(method))
      return oauthError(request, 400, "invalid_client_metadata", `token_endpoint_auth_method must be one of ${o.authMethods}`);
    const id = random("client_");
    const secret = method === "none" ? undefined : random("secret_");
    if (secret) secrets.add(secret);
    clients.set(id, { secret, method, redirectUris: uris as string[], name: String(body.client_name ?? id) });
    const answer = { client_id: id, ...(secret ? { client_secret: secret } : {}), token_endpoint_auth_method: method, redirect_uris: uris };
    return json(201, answer, cors(request));
  }

  /** The authorization endpoint: an error page for a client or redirect URI it cannot trust, else the consent page. */
  function authorize(q: Record<string, string>): Response {
    const client = clients.get(q.client_id ?? "");
    if (!client) return page(400, "<p id=error>Unknown client.</p>");
    if (!q.redirect_uri || !client.redirectUris.includes(q.redirect_uri)) return page(400, "<p id=error>That redirect URI is not registered.</p>");
    const fail = (error: string) => back(q, { error });
    if (q.response_type !== "code") return fail("unsupported_response_type");
    if (!q.code_challenge || q.code_challenge_method !== "S256" || !q.state) return fail("invalid_request");
    if (q.resource !== mcpUrl) return fail("invalid_target");
    if ((q.scope ?? "").split(" ").some((s) => s && !scopes.includes(s))) return fail("invalid_scope");
    const id = random("ask_");
    asks.set(id, q);
    consents++;
    return page(
      200,
      `<p><b id=client>${escapeHtml(client.name)}</b> wants to read your tickets (<span id=scope>${escapeHtml(q.scope ?? "")}</span>).</p>
<form method=post action="${issuer}/consent"><input type=hidden name=ask value="${id}">
<button id=allow name=decision value=allow>Allow</button> <button id=deny name=decision value=deny>Deny</button></form>`,
    );
  }

  function back(q: Record<string, string>, params: Record<string, string>): Response {
    const url = new URL(q.redirect_uri!);
    for (const [k, v] of Object.entries({ ...params, state: q.state ?? "", iss: issuer })) url.searchParams.set(k, v);
    return new Response(null, { status: 302, headers: { location: url.href } });
  }

  function consent(form: Record<string, string>): Response {
    const q = asks.get(form.ask ?? "");
    if (!q) return page(400, "<p id=error>This sign-in has expired.</p>");
    asks.delete(form.ask!);
    if (form.decision !== "allow") return back(q, { error: "access_denied" });
    const code = random("code_");
    secrets.add(code);
    codes.set(code, {
      clientId: q.client_id!,
      redirectUri: q.redirect_uri!,
      challenge: q.code_challenge!,
      resource: q.resource!,
      scope: q.scope ?? "",
      used: false,
      gave: [],
    });
    return back(q, { code });
  }

  /** RFC 6749 §2.3.1: the registered method and nothing else. */
  function authenticate(request: Request, form: Record<string, string>): string | Response {
    const header = request.headers.get("authorization");
    let id = form.client_id;
    let secret = form.client_secret;
    let method: AuthMethod = secret === undefined ? "none" : "client_secret_post";
    if (header !== null) {
      if (!header.startsWith("Basic ") || secret !== undefined) return oauthError(request, 400, "invalid_request", "one client authentication method");
      secrets.add(header.slice(6));
      const pair = Buffer.from(header.slice(6), "base64").toString("utf8");
      const colon = pair.indexOf(":");
      const basicId = decodeURIComponent(pair.slice(0, colon).replace(/\+/g, " "));
      if (id !== undefined && id !== basicId) return oauthError(request, 400, "invalid_request", "two client ids");
      [id, secret, method] = [basicId, decodeURIComponent(pair.slice(colon + 1).replace(/\+/g, " ")), "client_secret_basic"];
    }
    const client = clients.get(id ?? "");
    // A leaky server: its error quotes everything it was sent (the client must scrub it).
    if (!client || client.method !== method || client.secret !== secret)
      return oauthError(request, 401, "invalid_client", `client authentication failed for ${JSON.stringify(form)}`);
    return id!;
  }

  function issue(request: Request, clientId: string, granted: string, resource: string): { body: Response; token: string } {
    const token = random("at_");
    const next = random("rt_");
    secrets.add(token).add(next);
    const lifetime = o.tokenLifetime ?? 3600;
    access.set(token, { clientId, scope: granted, resource, expiresAt: Date.now() + lifetime * 1000 });
    refresh.set(next, { clientId, scope: granted, resource });
    const body = { access_token: token, token_type: "Bearer", expires_in: lifetime, refresh_token: next, scope: granted };
    return { body: json(200, body, cors(request)), token };
  }

  function token(request: Request, form: Record<string, string>): Response {
    if (!(request.headers.get("content-type") ?? "").startsWith("application/x-www-form-urlencoded"))
      return oauthError(request, 400, "invalid_request", "form body required");
    for (const k of ["code", "code_verifier", "refresh_token", "client_secret"]) if (form[k]) secrets.add(form[k]);
    const clientId = authenticate(request, form);
    if (typeof clientId !== "string") return clientId;
    const quoted = ` (got ${JSON.stringify(form)})`;
    if (form.grant_type === "authorization_code") {
      const grant = codes.get(form.code ?? "");
      if (!grant || grant.clientId !== clientId) return oauthError(request, 400, "invalid_grant", `unknown code${quoted}`);
      if (grant.used) {
        for (const t of grant.gave) access.delete(t);
        return oauthError(request, 400, "invalid_grant", `code already used${quoted}`);
      }
      grant.used = true;
      if (form.redirect_uri !== grant.redirectUri) return oauthError(request, 400, "invalid_grant", `redirect_uri differs${quoted}`);
      const challenge = form.code_verifier ? createHash("sha256").update(form.code_verifier).digest("base64url") : "";
      if (challenge !== grant.challenge) return oauthError(request, 400, "invalid_grant", `PKCE verification failed${quoted}`);
      if (form.resource !== grant.resource) return oauthError(request, 400, "invalid_target", `resource missing or different${quoted}`);
      const { body, token } = issue(request, clientId, grant.scope, grant.resource);
      grant.gave.push(token);
      grants.authorization_code++;
      return body;
    }
    if (form.grant_type === "refresh_token") {
      const grant = refresh.get(form.refresh_token ?? "");
      if (!grant || grant.clientId !== clientId) return oauthError(request, 400, "invalid_grant", `refresh token unknown or used${quoted}`);
      if (form.resource !== grant.resource) return oauthError(request, 400, "invalid_target", `resource missing or different${quoted}`);
      refresh.delete(form.refresh_token!);
      grants.refresh_token++;
      return issue(request, clientId, grant.scope, grant.resource).body;
    }
    return oauthError(request, 400, "unsupported_grant_type", String(form.grant_type));
  }

  async function as(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname;
    if (request.method === "OPTIONS") return preflight(request);
    const text = request.method === "POST" ? await request.text() : "";
    const form = Object.fromEntries(new URLSearchParams(text));
    if (request.method === "GET" && path === "/.well-known/oauth-authorization-server") return json(200, metadata(), cors(request));
    if (request.method === "POST" && path === "/register") {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      if (typeof body !== "object" || body === null) return oauthError(request, 400, "invalid_client_metadata", "a JSON object");
      return register(request, body as Record<string, unknown>);
    }
    if (request.method === "GET" && path === "/authorize") return authorize(Object.fromEntries(url.searchParams));
    if (request.method === "POST" && path === "/consent") return consent(form);
    if (request.method === "POST" && path === "/token") return token(request, form);
    return new Response("not found", { status: 404 });
  }

  return {
    handle: as,
    cors,
    preflight,
    /** Live access tokens. */
    access,
    refresh,
    secrets,
    grants,
    get consents() {
      return consents;
    },
    /** Where it and the resource it guards were served. */
    bind(at: string, resource: string) {
      issuer = at;
      mcpUrl = resource;
    },
  };
}

/**
 * The user at the authorization server: opens the authorization URL, approves on the consent
 * page and resolves with where the server sends them back (the callback URL).
 */
export async function approve(authorizationUrl: string | URL): Promise<string> {
  const shown = await fetch(authorizationUrl);
  const html = await shown.text();
  const action = /<form method=post action="([^"]+)"/.exec(html)?.[1];
  const ask = /name=ask value="([^"]+)"/.exec(html)?.[1];
  if (shown.status !== 200 || !action || !ask) throw new Error(`no consent page (${shown.status}): ${html.slice(0, 300)}`);
  const res = await fetch(action, { method: "POST", body: new URLSearchParams({ ask, decision: "allow" }), redirect: "manual" });
  await res.body?.cancel();
  const location = res.headers.get("location");
  if (res.status !== 302 || !location) throw new Error(`consent answered ${res.status}`);
  return location;
}
