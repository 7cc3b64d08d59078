// A strict OAuth world for oauth()'s tests, on loopback node:http (toolloop/node's serve()):
// an authorization server that refuses what a real one refuses (an unknown client or redirect
// URI, no PKCE or not S256, a wrong verifier, a reused code, a missing or different resource,
// wrong client authentication, a refresh token used twice) and an MCP server (toolloop's own
// mcpHandler behind a bearer check) that publishes protected resource metadata and answers
// 401 / 403 insufficient_scope challenges. Every request either server sees is logged.
import { createHash, randomBytes } from "node:crypto";
import type { Server } from "node:http";
import { mcpHandler } from "../../../adapters/mcp/index.js";
import { serve as serveFetch } from "../../../hosts/node/index.js";
import type { Tool } from "../../../src/index.js";

type Handler = (request: Request) => Promise<Response>;

export type AuthMethod = "none" | "client_secret_basic" | "client_secret_post";

export interface WorldOptions {
  /** Where the resource metadata is: named by the challenge (custom path), path-suffixed well-known, root well-known. */
  prm?: "header" | "path" | "root" | "none";
  /** The resource the metadata names (default: the MCP URL; the origin for "root"), or a function of the server's origin. */
  prmResource?: string | ((rsBase: string) => string);
  prmScopes?: string[];
  /** The scope the 401 challenge names. */
  challengeScope?: string;
  /** Scopes each MCP method needs (else 403 insufficient_scope naming them). */
  methodScopes?: Record<string, string[]>;
  /** The authorization server the resource metadata names, when not this world's own (a migration). */
  authorizationServer?: () => string | undefined;
  /** Tokens of another authorization server the MCP server also accepts. */
  trust?: () => World["tokens"] | undefined;
  /** Every tools/call is refused for insufficient scope naming this, whatever the token holds (a server that cannot be satisfied). */
  alwaysInsufficient?: string;
  /** The issuer's path ("" for the origin). */
  issuerPath?: string;
  /** Which well-known document the authorization server serves. */
  metadataAt?: "oauth" | "openid-inserted" | "openid-appended";
  /** A metadata issuer other than the real one (a mix-up). */
  metadataIssuer?: string;
  /** A token endpoint other than the real one (an insecure one). */
  tokenEndpoint?: string;
  dcr?: boolean;
  cimd?: boolean;
  authMethods?: string[];
  /** The method dynamic registration grants, whatever was asked. */
  registerAs?: AuthMethod;
  preRegistered?: { id: string; secret?: string; method: AuthMethod; redirectUri: string };
  scopesSupported?: string[];
  /** code_challenge_methods_supported; null leaves it out. */
  pkce?: string[] | null;
  iss?: "correct" | "wrong" | "omit";
  issAdvertised?: boolean;
  /** The scopes the user approves of those asked (default: all). */
  grant?: (asked: string[]) => string[];
  deny?: boolean;
  /** Access token lifetime in seconds. */
  tokenLifetime?: number;
  refreshTokens?: boolean;
  /** The token endpoint's errors quote what it was sent (code, verifier, secret): a leak to be scrubbed. */
  echoSecrets?: boolean;
  /** The token endpoint refuses every authorization code (after checking the client). */
  refuseCodes?: boolean;
  /** A tools/call of "leak" is answered with an error result quoting the request's Authorization header. */
  leakTool?: boolean;
}

export interface LogEntry {
  server: "as" | "rs";
  method: string;
  path: string;
  query: Record<string, string>;
  form: Record<string, string>;
  json: unknown;
  /** The raw body of a POST. */
  text: string;
  authorization: string | null;
  status: number;
}

interface Client {
  secret: string | undefined;
  method: AuthMethod;
  redirectUris: string[];
}

export interface World {
  mcpUrl: string;
  issuer: string;
  asBase: string;
  rsBase: string;
  log: LogEntry[];
  clients: Map<string, Client>;
  /** Live access tokens → their grant. */
  tokens: Map<string, { clientId: string; scope: string[]; resource: string; expiresAt: number }>;
  refreshTokens: Map<string, { clientId: string; scope: string[]; resource: string }>;
  /** Every token, code and secret this world issued or was sent (for leak checks). */
  secrets: Set<string>;
  close(): Promise<void>;
}

const b64url = (b: Buffer) => b.toString("base64url");
const random = (prefix: string) => `${prefix}${b64url(randomBytes(24))}`;

export async function startWorld(o: WorldOptions = {}, tools: Tool[] = defaultTools()): Promise<World> {
  const log: LogEntry[] = [];
  const clients = new Map<string, Client>();
  const codes = new Map<string, { clientId: string; redirectUri: string; challenge: string; resource: string; scope: string[]; used: boolean }>();
  const tokens: World["tokens"] = new Map();
  const refreshTokens: World["refreshTokens"] = new Map();
  const secrets = new Set<string>();
  if (o.preRegistered) {
    const p = o.preRegistered;
    clients.set(p.id, { secret: p.secret, method: p.method, redirectUris: [p.redirectUri] });
    if (p.secret) secrets.add(p.secret);
  }
  let asBase = "";
  let rsBase = "";
  const issuerPath = o.issuerPath ?? "";
  const issuer = () => asBase + issuerPath;
  const mcpUrl = () => `${rsBase}/mcp`;
  const resource = () => (typeof o.prmResource === "function" ? o.prmResource(rsBase) : (o.prmResource ?? (o.prm === "root" ? rsBase : mcpUrl())));
  const prmPath =
    o.prm === "header" ? "/custom/prm.json" : o.prm === "root" ? "/.well-known/oauth-protected-resource" : "/.well-known/oauth-protected-resource/mcp";

  async function record(server: "as" | "rs", request: Request, respond: (entry: LogEntry) => Promise<Response> | Response): Promise<Response> {
    const url = new URL(request.url);
    const type = request.headers.get("content-type") ?? "";
    const text = request.method === "POST" ? await request.text() : "";
    const entry: LogEntry = {
      server,
      method: request.method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      form: type.startsWith("application/x-www-form-urlencoded") ? Object.fromEntries(new URLSearchParams(text)) : {},
      json: type.startsWith("application/json") && text ? JSON.parse(text) : undefined,
      text,
      authorization: request.headers.get("authorization"),
      status: 0,
    };
    log.push(entry);
    const res = await respond(entry);
    entry.status = res.status;
    return res;
  }

  const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
  const oauthError = (status: number, error: string, description: string) => json(status, { error, error_description: description });

  function metadata() {
    const base = issuer();
    return {
      issuer: o.metadataIssuer ?? base,
      authorization_endpoint: `${base}/authorize`,
      token_endpoint: o.tokenEndpoint ?? `${base}/token`,
      ...(o.dcr === false ? {} : { registration_endpoint: `${base}/register` }),
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      ...(o.pkce === null ? {} : { code_challenge_methods_supported: o.pkce ?? ["S256"] }),
      token_endpoint_auth_methods_supported: o.authMethods ?? ["none", "client_secret_basic", "client_secret_post"],
      ...(o.scopesSupported ? { scopes_supported: o.scopesSupported } : {}),
      ...(o.cimd ? { client_id_metadata_document_supported: true } : {}),
      ...(o.issAdvertised ? { authorization_response_iss_parameter_supported: true } : {}),
    };
  }
  const metadataPath = () =>
    o.metadataAt === "openid-inserted"
      ? `/.well-known/openid-configuration${issuerPath}`
      : o.metadataAt === "openid-appended"
        ? `${issuerPath}/.well-known/openid-configuration`
        : `/.well-known/oauth-authorization-server${issuerPath}`;

  /** A client as the authorization endpoint knows it: registered, or a client ID metadata document. */
  function clientOf(id: string): Client | undefined {
    if (clients.has(id)) return clients.get(id);
    // CIMD: the "fetched" document lists the test's redirect URI (a real server would GET it).
    if (o.cimd && id.startsWith("https://")) return { secret: undefined, method: "none", redirectUris: ["http://127.0.0.1:9/callback"] };
    return undefined;
  }

  function authorize(q: Record<string, string>): Response {
    const client = q.client_id ? clientOf(q.client_id) : undefined;
    if (!client) return oauthError(400, "invalid_client", "unknown client_id");
    if (!q.redirect_uri || !client.redirectUris.includes(q.redirect_uri)) return oauthError(400, "invalid_request", "redirect_uri not registered");
    const back = (params: Record<string, string>) => {
      const url = new URL(q.redirect_uri!);
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
      if (q.state !== undefined) url.searchParams.set("state", q.state);
      if (o.iss !== "omit") url.searchParams.set("iss", o.iss === "wrong" ? "https://evil.example" : issuer());
      return new Response(null, { status: 302, headers: { location: url.href } });
    };
    if (q.response_type !== "code") return back({ error: "unsupported_response_type" });
    if (!q.code_challenge || q.code_challenge_method !== "S256") return back({ error: "invalid_request", error_description: "PKCE S256 required" });
    if (q.resource !== resource()) return back({ error: "invalid_target", error_description: `resource must be ${resource()}` });
    if (o.deny) return back({ error: "access_denied", error_description: "the user said no" });
    const asked = (q.scope ?? "").split(" ").filter(Boolean);
    const code = random("code_");
    secrets.add(code);
    codes.set(code, {
      clientId: q.client_id!,
      redirectUri: q.redirect_uri,
      challenge: q.code_challenge,
      resource: q.resource,
      scope: o.grant ? o.grant(asked) : asked,
      used: false,
    });
    return back({ code });
  }

  /** RFC 6749 §2.3.1 client authentication, exactly as registered. */
  function authenticate(request: Request, form: Record<string, string>): { id: string } | Response {
    const basic = request.headers.get("authorization");
    let id: string | undefined;
    let secret: string | undefined;
    let method: AuthMethod;
    if (basic?.startsWith("Basic ")) {
      const pair = Buffer.from(basic.slice(6), "base64").toString("utf8");
      const colon = pair.indexOf(":");
      [id, secret] = [decodeURIComponent(pair.slice(0, colon).replace(/\+/g, " ")), decodeURIComponent(pair.slice(colon + 1).replace(/\+/g, " "))];
      method = "client_secret_basic";
      if (form.client_secret !== undefined) return oauthError(400, "invalid_request", "two client authentication methods");
    } else {
      id = form.client_id;
      secret = form.client_secret;
      method = secret === undefined ? "none" : "client_secret_post";
    }
    const client = id ? clientOf(id) : undefined;
    if (!client || client.method !== method || client.secret !== secret) {
      const echoed = o.echoSecrets ? ` (got ${id}:${secret} by ${method})` : "";
      return oauthError(401, "invalid_client", `client authentication failed${echoed}`);
    }
    return { id: id! };
  }

  function issue(clientId: string, scope: string[], res: string) {
    const access = random("at_");
    secrets.add(access);
    const lifetime = o.tokenLifetime ?? 3600;
    tokens.set(access, { clientId, scope, resource: res, expiresAt: Date.now() + lifetime * 1000 });
    const body: Record<string, unknown> = { access_token: access, token_type: "Bearer", expires_in: lifetime, scope: scope.join(" ") };
    if (o.refreshTokens !== false) {
      const refresh = random("rt_");
      secrets.add(refresh);
      refreshTokens.set(refresh, { clientId, scope, resource: res });
      body.refresh_token = refresh;
    }
    return json(200, body, { "cache-control": "no-store" });
  }

  function token(request: Request, form: Record<string, string>): Response {
    if (!(request.headers.get("content-type") ?? "").startsWith("application/x-www-form-urlencoded"))
      return oauthError(400, "invalid_request", "form body required");
    const who = authenticate(request, form);
    if (who instanceof Response) return who;
    const leak = o.echoSecrets ? ` (sent ${JSON.stringify(form)})` : "";
    if (form.grant_type === "authorization_code") {
      if (o.refuseCodes) return oauthError(400, "invalid_grant", `code refused${leak}`);
      const grant = codes.get(form.code ?? "");
      if (!grant || grant.clientId !== who.id) return oauthError(400, "invalid_grant", `unknown code${leak}`);
      if (grant.used) {
        for (const [t, g] of tokens) if (g.clientId === who.id) tokens.delete(t); // a replayed code revokes what it gave
        return oauthError(400, "invalid_grant", "code already used");
      }
      grant.used = true;
      if (form.redirect_uri !== grant.redirectUri) return oauthError(400, "invalid_grant", "redirect_uri differs");
      const challenge = form.code_verifier ? b64url(createHash("sha256").update(form.code_verifier).digest()) : undefined;
      if (challenge !== grant.challenge) return oauthError(400, "invalid_grant", `PKCE verification failed${leak}`);
      if (form.resource !== grant.resource) return oauthError(400, "invalid_target", "resource missing or different from the authorization request");
      return issue(who.id, grant.scope, grant.resource);
    }
    if (form.grant_type === "refresh_token") {
      const grant = refreshTokens.get(form.refresh_token ?? "");
      if (!grant || grant.clientId !== who.id) return oauthError(400, "invalid_grant", `refresh token unknown or used${leak}`);
      if (form.resource !== grant.resource) return oauthError(400, "invalid_target", "resource missing or different");
      refreshTokens.delete(form.refresh_token!); // rotated: good once
      return issue(who.id, grant.scope, grant.resource);
    }
    return oauthError(400, "unsupported_grant_type", String(form.grant_type));
  }

  function register(body: unknown): Response {
    const b = body as { redirect_uris?: unknown; token_endpoint_auth_method?: AuthMethod };
    if (!Array.isArray(b?.redirect_uris) || b.redirect_uris.length === 0) return oauthError(400, "invalid_redirect_uri", "redirect_uris required");
    const method = o.registerAs ?? b.token_endpoint_auth_method ?? "client_secret_basic";
    const id = random("client_");
    const secret = method === "none" ? undefined : random("secret_");
    if (secret) secrets.add(secret);
    clients.set(id, { secret, method, redirectUris: b.redirect_uris as string[] });
    return json(201, { client_id: id, ...(secret ? { client_secret: secret } : {}), token_endpoint_auth_method: method, redirect_uris: b.redirect_uris });
  }

  const as: Handler = (request) =>
    record("as", request, (e) => {
      if (request.method === "GET" && e.path === metadataPath()) return json(200, metadata());
      if (request.method === "GET" && e.path === `${issuerPath}/authorize`) return authorize(e.query);
      if (request.method === "POST" && e.path === `${issuerPath}/token`) return token(request, e.form);
      if (request.method === "POST" && e.path === `${issuerPath}/register` && o.dcr !== false) return register(e.json);
      return new Response("not found", { status: 404 });
    });

  const mcp = mcpHandler({ name: "oauth-world", version: "1.0.0", tools });
  const rs: Handler = (request) =>
    record("rs", request, async (e) => {
      if (request.method === "GET" && e.path === prmPath && o.prm !== "none") {
        return json(200, {
          resource: resource(),
          authorization_servers: [o.authorizationServer?.() ?? issuer()],
          ...(o.prmScopes ? { scopes_supported: o.prmScopes } : {}),
        });
      }
      if (e.path !== "/mcp") return new Response("not found", { status: 404 });
      const challenge = (params: string[]) =>
        `Bearer ${[...params, ...(o.prm === "header" ? [`resource_metadata="${rsBase}${prmPath}"`] : [])].join(", ")}`.trim();
      const token = e.authorization?.startsWith("Bearer ") ? e.authorization.slice(7) : undefined;
      const grant = token ? (tokens.get(token) ?? o.trust?.()?.get(token)) : undefined;
      if (!grant || grant.expiresAt < Date.now() || grant.resource !== resource()) {
        const params = [token ? 'error="invalid_token"' : "", o.challengeScope ? `scope="${o.challengeScope}"` : ""].filter(Boolean);
        return json(401, { error: "invalid_token" }, { "www-authenticate": challenge(params) });
      }
      const message = e.json as { method?: string } | undefined;
      const needs = (message?.method && o.methodScopes?.[message.method]) || [];
      const missing = needs.filter((s) => !grant.scope.includes(s));
      if (o.alwaysInsufficient && message?.method === "tools/call") missing.push(o.alwaysInsufficient), needs.push(o.alwaysInsufficient);
      if (missing.length) {
        return json(403, { error: "insufficient_scope" }, { "www-authenticate": challenge(['error="insufficient_scope"', `scope="${needs.join(" ")}"`]) });
      }
      const call = message as { id?: unknown; params?: { name?: unknown } } | undefined;
      if (o.leakTool && message?.method === "tools/call" && call?.params?.name === "leak") {
        return json(200, { jsonrpc: "2.0", id: call.id, result: { content: [{ type: "text", text: `denied for ${e.authorization}` }], isError: true } });
      }
      const rebuilt = new Request(request.url, { method: request.method, headers: request.headers, body: request.method === "POST" ? e.text : undefined });
      return mcp(rebuilt);
    });

  const a = await serveFetch(as);
  const r = await serveFetch(rs);
  asBase = a.url;
  rsBase = r.url;
  const close = (s: Server) =>
    new Promise<void>((done) => {
      s.closeAllConnections();
      s.close(() => done());
    });
  return {
    mcpUrl: mcpUrl(),
    issuer: issuer(),
    asBase,
    rsBase,
    log,
    clients,
    tokens,
    refreshTokens,
    secrets,
    close: async () => {
      await close(a.server);
      await close(r.server);
    },
  };
}

function defaultTools(): Tool[] {
  return [
    {
      name: "echo",
      description: "Echoes its text.",
      parameters: { type: "object", properties: { text: { type: "string" } } },
      call: async (input) => `echo ${input}`,
    },
  ];
}

/** The redirect step of a browser that approves at once: the authorization URL's 302, read from Location. */
export async function followRedirect(url: URL): Promise<string> {
  const res = await fetch(url, { redirect: "manual" });
  await res.body?.cancel();
  const location = res.headers.get("location");
  if (!location) throw new Error(`the authorization endpoint answered ${res.status}: ${await res.text().catch(() => "")}`);
  return location;
}

/** The redirect URI every test client registers. */
export const REDIRECT_URI = "http://127.0.0.1:9/callback";
