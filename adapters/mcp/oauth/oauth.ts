// oauth(): an OAuth 2.1 client for mcpTools, as the MCP authorization spec describes it, on fetch
// and Web Crypto alone (a Worker, a page, Deno, Bun, Node). Pass it as mcpTools({ url, auth }).
// The first 401 starts discovery (discovery.ts), registration (registration.ts), PKCE and the
// redirect step (authorize.ts), and the code exchange (tokens.ts); tokens, registrations and the
// flows in flight live in a Store, so a callback may finish a flow another request or page load
// started (complete()). fetch.ts is what mcpTools' requests go through.
import {
  checkOptions,
  InvalidOptionsError,
  isRecord,
  type Logger,
  memoryStore,
  numberOption,
  registerSecret,
  type Store,
  silentLogger,
} from "../../../src/base/index.js";
import type { FetchFn } from "../../../src/http/index.js";
import type { McpAuth } from "../client/auth.js";
import { finish } from "./authorize.js";
import { authorizedFetch, type Context } from "./fetch.js";
import { AUTH_METHODS, type ClientCredentials, storedClient, type TokenEndpointAuth } from "./registration.js";
import { scrubbingFetch } from "./scrub.js";
import { PREFIX, tokensKey } from "./tokens.js";

export interface OAuthOptions {
  /**
   * Where the authorization server sends the user back, exactly as registered (dynamic
   * registration registers it; a client ID metadata document or a pre-registered client must list it).
   */
  redirectUri: string;
  /**
   * The redirect step: show the user `url` (a popup, a redirect, a link a Worker hands out) and
   * resolve with the URL they came back to (it carries code, state and iss). Resolve undefined
   * when the flow finishes elsewhere (the page navigates away; a Worker's callback route calls
   * complete()): the request then fails with AuthError reason "pending".
   */
  redirect: (url: URL, ctx: { signal: AbortSignal | undefined }) => Promise<string | URL | undefined | undefined>;
  /** Where tokens, registrations and flows in flight are kept. Default: memoryStore() (this object's life). */
  store?: Store | undefined;
  /** A client registered with the authorization server beforehand (used before anything else). */
  client?: { id: string; secret?: string | undefined; authMethod?: TokenEndpointAuth | undefined; issuer?: string | undefined } | undefined;
  /** The https URL of your client ID metadata document, used as client_id where the server takes one. */
  clientMetadataUrl?: string | undefined;
  /** The client_name dynamic registration sends. Default "toolloop". */
  clientName?: string | undefined;
  /** Scope to ask for when neither the challenge nor the resource metadata names one. */
  scope?: string | undefined;
  /** Re-authorizations for insufficient_scope one request may make. Default 2. */
  maxStepUps?: number | undefined;
  /** A fetch for the authorization server (and complete()). Default: mcpTools' fetch, else the global one. */
  fetch?: FetchFn | undefined;
  /** Told what happens (discovery, registration, tokens issued and refreshed), never a secret. Default: silent. */
  logger?: Logger | undefined;
}

/** An OAuth client for mcpTools({ auth }). */
export interface OAuth extends McpAuth {
  /** Finishes a flow from the URL the user came back to (another page load, a callback route). */
  complete(callbackUrl: string | URL, options?: { signal?: AbortSignal | undefined }): Promise<void>;
  /** Forgets the tokens for the MCP server at `url` (sign out); registrations are kept. */
  forget(url: string | URL): Promise<void>;
}

export function oauth(options: OAuthOptions): OAuth {
  checkOptions("oauth()", options, "redirectUri redirect store client clientMetadataUrl clientName scope maxStepUps fetch logger");
  if (!isRecord(options)) throw new InvalidOptionsError("oauth() takes an options object: oauth({ redirectUri, redirect })");
  const redirectUri = checkRedirectUri(options.redirectUri);
  if (typeof options.redirect !== "function") {
    throw new InvalidOptionsError(
      "oauth(): `redirect` must be a function (url) => Promise<callback URL> that sends the user to url and resolves with where they came back",
    );
  }
  const store = options.store ?? memoryStore();
  if (!isRecord(store) || typeof store.get !== "function" || typeof store.put !== "function" || typeof store.delete !== "function") {
    throw new InvalidOptionsError("oauth(): `store` must be a Store (get, put, delete), e.g. memoryStore() from toolloop");
  }
  const maxStepUps = numberOption("oauth(): maxStepUps", options.maxStepUps, 0) ?? 2;
  // Secrets are registered for as long as this object (held by the closures below) lives.
  const owner = {};
  const client = checkClient(options.client, owner);
  const clientMetadataUrl = checkMetadataUrl(options.clientMetadataUrl);
  const registration = {
    store,
    keyPrefix: PREFIX,
    redirectUri,
    client,
    clientMetadataUrl,
    clientName: options.clientName ?? "toolloop",
    owner,
  };
  /** The credentials of the client a flow or a token set names, for `issuer`. */
  async function clientOf(issuer: string, clientId: string): Promise<ClientCredentials | undefined> {
    if (client && client.id === clientId && (client.issuer === undefined || client.issuer === issuer)) return client;
    if (clientMetadataUrl === clientId) return { id: clientId, authMethod: "none" };
    const kept = await storedClient(registration, issuer);
    return kept?.id === clientId ? kept : undefined;
  }
  /** The tokens each server's requests use, as last read or written (the store is the truth). */
  const cache = new Map<string, unknown>();
  const ctx: Omit<Context, "fetch"> = {
    registration,
    flows: { store, keyPrefix: PREFIX, redirectUri, owner },
    redirect: options.redirect,
    scope: options.scope,
    maxStepUps,
    logger: options.logger ?? silentLogger,
    clientOf,
    cache,
    owner,
  };
  return {
    fetchFor(url, fetch) {
      // The MCP server's answers lose the bearer token they might quote (scrub.ts).
      return authorizedFetch({ ...ctx, fetch: options.fetch ?? fetch }, String(url), scrubbingFetch(fetch));
    },
    async complete(callbackUrl, opts) {
      const fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
      const done = await finish({ fetch, signal: opts?.signal }, ctx.flows, callbackUrl, clientOf);
      await store.put(done.tokensKey, done.tokens);
      cache.set(done.tokensKey, done.tokens);
      ctx.logger.info("mcp oauth: authorized", { issuer: done.tokens.issuer, scope: done.tokens.granted ?? done.tokens.scope });
    },
    async forget(url) {
      const key = tokensKey(String(url));
      cache.delete(key);
      await store.delete(key);
    },
  };
}

function checkRedirectUri(value: unknown): string {
  let url: URL | undefined;
  try {
    url = typeof value === "string" ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || url.hash) {
    throw new InvalidOptionsError(
      `oauth(): \`redirectUri\` must be an absolute URL without a fragment, where the authorization server sends the user back (e.g. "https://app.example/oauth/callback"), got ${JSON.stringify(value)}`,
    );
  }
  return value as string;
}

function checkClient(value: OAuthOptions["client"], owner: object): OAuthOptions["client"] {
  if (value === undefined) return undefined;
  checkOptions("oauth({ client })", value, "id secret authMethod issuer");
  if (!isRecord(value) || typeof value.id !== "string" || value.id === "") {
    throw new InvalidOptionsError('oauth(): `client` must be { id, secret? } with the client_id the authorization server issued, e.g. { id: "my-app" }');
  }
  if (value.secret !== undefined && (typeof value.secret !== "string" || value.secret === ""))
    throw new InvalidOptionsError("oauth(): `client.secret` must be a non-empty string");
  if (value.authMethod !== undefined && !AUTH_METHODS.includes(value.authMethod)) {
    throw new InvalidOptionsError(`oauth(): \`client.authMethod\` must be one of ${AUTH_METHODS.join(", ")}, got ${JSON.stringify(value.authMethod)}`);
  }
  if (value.secret) registerSecret(value.secret, owner);
  return value;
}

/** A client ID metadata document URL: https with a path (the spec's rule for URL client ids). */
function checkMetadataUrl(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = typeof value === "string" ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (url?.protocol !== "https:" || url.pathname === "/" || url.hash) {
    throw new InvalidOptionsError(
      `oauth(): \`clientMetadataUrl\` must be an https URL with a path, e.g. "https://app.example/oauth/client.json", got ${JSON.stringify(value)}`,
    );
  }
  return value as string;
}
