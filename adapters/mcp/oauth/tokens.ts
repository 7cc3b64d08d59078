// The token endpoint: an authorization code (with its PKCE verifier) or a refresh token traded
// for tokens, always with the resource they are for (RFC 8707), and the answer kept as a
// TokenSet. Every token and credential that passes through here is registered as a secret,
// so no error or log line can carry it.
import { finiteNumber, isRecord, registerSecret, stripURLs } from "../../../src/base/index.js";
import { AuthError } from "./errors.js";
import { type OAuthHttp, oauthErrorText, postForm, secureURL } from "./http.js";
import { authenticate, authMethodFor, type ClientCredentials } from "./registration.js";

/** The prefix of every key the OAuth client stores under. */
export const PREFIX = "mcp-oauth:";

/** The store key of the tokens for the MCP server at `url` (its fragment dropped). */
export function tokensKey(url: string): string {
  const u = new URL(url);
  u.hash = "";
  return `${PREFIX}tokens:${u.href}`;
}

/** Tokens for one MCP server, as stored. */
export interface TokenSet {
  accessToken: string;
  refreshToken?: string | undefined;
  /** ms since the epoch, when the server said how long the token lives. */
  expiresAt?: number | undefined;
  /** The scope asked for (the base of a step-up's union, SEP-2350). */
  scope?: string | undefined;
  /** The scope granted, when the server said (RFC 6749 §5.1: else as asked). */
  granted?: string | undefined;
  /** The authorization server that issued them: a token is refreshed only there (SEP-2352). */
  issuer: string;
  /** Where the resource metadata was found, for a refresh before any challenge. */
  resourceMetadataUrl: string;
  /** The client the tokens were issued to: a refresh authenticates as it. */
  clientId: string;
}

export interface TokenRequest {
  tokenEndpoint: string;
  authMethods: string[] | undefined;
  client: ClientCredentials;
  resource: string;
  issuer: string;
  resourceMetadataUrl: string;
  scope: string | undefined;
  owner: object;
}

/** Trades an authorization code for tokens. */
export function exchangeCode(http: OAuthHttp, req: TokenRequest, code: string, verifier: string, redirectUri: string): Promise<TokenSet> {
  const form = new URLSearchParams({ grant_type: "authorization_code", code, code_verifier: verifier, redirect_uri: redirectUri, resource: req.resource });
  return tokenRequest(http, req, form, undefined);
}

/** Trades a refresh token for new tokens; a server that sends no new refresh token leaves the old one in use. */
export function refresh(http: OAuthHttp, req: TokenRequest, refreshToken: string): Promise<TokenSet> {
  const form = new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken, resource: req.resource });
  return tokenRequest(http, req, form, refreshToken);
}

async function tokenRequest(http: OAuthHttp, req: TokenRequest, form: URLSearchParams, previousRefresh: string | undefined): Promise<TokenSet> {
  const url = secureURL(req.tokenEndpoint, "the token endpoint");
  const headers: Record<string, string> = {};
  authenticate(req.client, authMethodFor(req.client, req.authMethods), form, headers);
  if (headers.authorization) registerSecret(headers.authorization.slice("Basic ".length), req.owner);
  const answer = await postForm(http, url, form, headers);
  const body = answer.json;
  if (!answer.ok || !body) {
    const { code, text } = oauthErrorText(answer);
    throw new AuthError("token", `the token endpoint ${stripURLs(url.href)} refused the ${form.get("grant_type")} grant: ${text}`, { oauthError: code });
  }
  return readTokens(body, req, previousRefresh);
}

function readTokens(body: Record<string, unknown>, req: TokenRequest, previousRefresh: string | undefined): TokenSet {
  const accessToken = body.access_token;
  if (typeof accessToken !== "string" || accessToken === "") throw new AuthError("token", "the token endpoint answered without an access_token");
  registerSecret(accessToken, req.owner);
  // DPoP and other bound tokens need proofs toolloop does not make: only bearer tokens are used.
  if (typeof body.token_type !== "string" || body.token_type.toLowerCase() !== "bearer") {
    throw new AuthError("token", `the token endpoint issued a ${JSON.stringify(body.token_type)} token; toolloop sends Bearer tokens only`);
  }
  const refreshToken = typeof body.refresh_token === "string" && body.refresh_token !== "" ? body.refresh_token : previousRefresh;
  if (refreshToken) registerSecret(refreshToken, req.owner);
  const lifetime = finiteNumber(body.expires_in);
  return {
    accessToken,
    refreshToken,
    expiresAt: lifetime !== undefined && lifetime > 0 ? Date.now() + lifetime * 1000 : undefined,
    scope: req.scope,
    granted: typeof body.scope === "string" ? body.scope : undefined,
    issuer: req.issuer,
    resourceMetadataUrl: req.resourceMetadataUrl,
    clientId: req.client.id,
  };
}

/** A stored TokenSet, or undefined when the value is not one (a store may hold anything); its secrets registered. */
export function readStoredTokens(value: unknown, owner: object): TokenSet | undefined {
  if (!isRecord(value)) return undefined;
  const { accessToken, issuer, resourceMetadataUrl, clientId } = value;
  if (typeof accessToken !== "string" || typeof issuer !== "string" || typeof resourceMetadataUrl !== "string" || typeof clientId !== "string")
    return undefined;
  const text = (v: unknown) => (typeof v === "string" ? v : undefined);
  const set: TokenSet = {
    accessToken,
    refreshToken: text(value.refreshToken),
    expiresAt: finiteNumber(value.expiresAt),
    scope: text(value.scope),
    granted: text(value.granted),
    issuer,
    resourceMetadataUrl,
    clientId,
  };
  registerSecret(set.accessToken, owner);
  if (set.refreshToken) registerSecret(set.refreshToken, owner);
  return set;
}

/** The scopes the token carries: as granted, else as asked. */
export function grantedScopes(tokens: TokenSet): Set<string> {
  return scopeSet(tokens.granted ?? tokens.scope);
}

/** A space-separated scope as a set. */
export function scopeSet(scope: string | undefined): Set<string> {
  return new Set((scope ?? "").split(/\s+/).filter(Boolean));
}

/** The union of scopes, in first-seen order (SEP-2350: a step-up keeps what was asked before). */
export function scopeUnion(...scopes: (string | undefined)[]): string | undefined {
  const all = new Set<string>();
  for (const s of scopes) for (const one of scopeSet(s)) all.add(one);
  return all.size > 0 ? [...all].join(" ") : undefined;
}
