// The fetch mcpTools' requests go through with oauth(): the server's token added; a 401 answered
// by authorizing (a refresh where one can give what is asked, else the full flow) and the request
// sent again once; a 403 insufficient_scope answered by asking for the union of the scope asked
// before and the scope challenged (SEP-2350), at most maxStepUps times a request, and never when
// the token already has every scope the server names (asking again cannot help). Requests that
// meet a challenge at the same time share one authorization.
import { isAbortError, type Logger, type Store } from "../../../src/base/index.js";
import { type FetchFn, sleep } from "../../../src/http/index.js";
import { type FlowSettings, finish, start } from "./authorize.js";
import { type BearerChallenge, bearerChallenge } from "./challenge.js";
import { type Discovery, discover } from "./discovery.js";
import { AuthError } from "./errors.js";
import type { OAuthHttp } from "./http.js";
import { type ClientCredentials, clientFor, type RegistrationSettings } from "./registration.js";
import { grantedScopes, readStoredTokens, refresh, scopeSet, scopeUnion, type TokenSet, tokensKey } from "./tokens.js";

export interface Context {
  registration: RegistrationSettings & { store: Store };
  flows: FlowSettings;
  redirect: (url: URL, ctx: { signal: AbortSignal | undefined }) => Promise<string | URL | undefined | undefined>;
  scope: string | undefined;
  maxStepUps: number;
  logger: Logger;
  clientOf(issuer: string, clientId: string): Promise<ClientCredentials | undefined>;
  cache: Map<string, unknown>;
  /** For the authorization server's requests. */
  fetch: FetchFn;
  owner: object;
}

/** A token this close to its expiry is refreshed before it is sent. */
const EXPIRY_MARGIN = 30_000;

interface Renewal {
  challenge: BearerChallenge | undefined;
  /** Step-up: the union to ask for; refreshing cannot widen a grant, so the full flow runs. */
  stepUp?: string | undefined;
}

export function authorizedFetch(ctx: Context, serverUrl: string, fetch: FetchFn): FetchFn {
  const key = tokensKey(serverUrl);
  let renewing: Promise<void> | undefined;

  async function current(reload = false): Promise<TokenSet | undefined> {
    if (reload || !ctx.cache.has(key)) ctx.cache.set(key, readStoredTokens(await ctx.registration.store.get(key), ctx.owner));
    return ctx.cache.get(key) as TokenSet | undefined;
  }

  async function save(tokens: TokenSet | undefined): Promise<void> {
    if (tokens) await ctx.registration.store.put(key, tokens);
    else await ctx.registration.store.delete(key);
    ctx.cache.set(key, tokens);
  }

  /** One authorization at a time: a request that meets a challenge meanwhile waits for it. */
  async function renewOnce(r: Renewal, signal: AbortSignal | undefined): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const mine = !renewing;
      renewing ??= renew(r, signal).finally(() => {
        renewing = undefined;
      });
      try {
        return await renewing;
      } catch (err) {
        // Another request's authorization ended with its own abort: ours may still go on.
        if (mine || attempt >= 2 || !isAbortError(err) || signal?.aborted) throw err;
      }
    }
  }

  /**
   * Refresh tokens rotate: another oauth() on the same store (a tab, a Worker request, a process)
   * may have spent `held`'s a moment before us. Its tokens serve us too, once its write lands
   * (looked for three times, 100 ms apart), instead of the refused refresh wiping them.
   */
  async function refreshedElsewhere(held: TokenSet, signal: AbortSignal | undefined): Promise<boolean> {
    for (let look = 0; look < 3; look++) {
      if (look > 0) await sleep(100, signal);
      const latest = await current(true);
      if (latest && latest.accessToken !== held.accessToken && latest.refreshToken !== held.refreshToken) return true;
    }
    return false;
  }

  async function renew(r: Renewal, signal: AbortSignal | undefined): Promise<void> {
    const http: OAuthHttp = { fetch: ctx.fetch, signal };
    const held = await current();
    const metadataUrl = r.challenge ? r.challenge.resourceMetadata : held?.resourceMetadataUrl;
    const found = await discover(http, serverUrl, metadataUrl);
    const issuer = found.server.issuer;
    ctx.logger.debug("mcp oauth: authorization server found", { issuer, resource: found.resource });
    const scope = r.stepUp ?? chooseScope(r.challenge?.scope, found, ctx.scope);
    // A refresh gives the same grant again: enough unless a step-up or a challenge wants more. Only
    // at the server that issued the tokens: one that moved (SEP-2352) never sees them.
    const wanted = scopeSet(r.challenge?.scope);
    const enough = held && [...wanted].every((s) => grantedScopes(held).has(s));
    if (held?.refreshToken && held.issuer === issuer && !r.stepUp && enough) {
      const client = await ctx.clientOf(issuer, held.clientId);
      if (client) {
        try {
          const next = await refresh(http, tokenRequest(found, client, held.scope), held.refreshToken);
          await save(next);
          ctx.logger.info("mcp oauth: token refreshed", { issuer });
          return;
        } catch (err) {
          if (!(err instanceof AuthError) || err.reason !== "token") throw err;
          if (await refreshedElsewhere(held, signal)) {
            ctx.logger.info("mcp oauth: token refreshed by another client on the same store", { issuer });
            return;
          }
          await save(undefined);
          ctx.logger.info("mcp oauth: refresh refused, authorizing again", { issuer, error: err.oauthError });
        }
      }
    }
    const client = await clientFor(http, ctx.registration, found.server, scope);
    const { url, state } = await start(ctx.flows, found, client, scope, key);
    ctx.logger.info("mcp oauth: authorization needed", { issuer, scope, clientId: client.id });
    const back = await ctx.redirect(url, { signal });
    if (back === undefined || back === null) {
      throw new AuthError(
        "pending",
        "the redirect step ended without a callback URL: call complete(callbackUrl) when the user comes back, then connect again",
        {
          authorizationUrl: url.href,
        },
      );
    }
    const done = await finish(http, ctx.flows, back, ctx.clientOf, state);
    await save(done.tokens);
    ctx.logger.info("mcp oauth: authorized", { issuer, scope: done.tokens.granted ?? done.tokens.scope });
  }

  function tokenRequest(found: Discovery, client: ClientCredentials, scope: string | undefined) {
    const server = found.server;
    return {
      tokenEndpoint: server.tokenEndpoint,
      authMethods: server.tokenEndpointAuthMethods,
      client,
      resource: found.resource,
      issuer: server.issuer,
      resourceMetadataUrl: found.resourceMetadataUrl,
      scope,
      owner: ctx.owner,
    };
  }

  return async (input, init) => {
    const signal = init?.signal ?? undefined;
    // Only a body that can be sent twice is retried (mcpTools sends strings).
    const replayable = init?.body === undefined || init.body === null || typeof init.body === "string";
    let fresh = false; // a token obtained for this request: a 401 on it is final
    let reloaded = false;
    let stepUps = 0;
    for (;;) {
      let tokens = await current();
      if (tokens?.refreshToken && tokens.expiresAt !== undefined && Date.now() > tokens.expiresAt - EXPIRY_MARGIN && !fresh) {
        await renewOnce({ challenge: undefined }, signal);
        fresh = true;
        tokens = await current();
      }
      const res = await fetch(input, withBearer(init, tokens?.accessToken));
      if ((res.status !== 401 && res.status !== 403) || !replayable) return res;
      const challenge = bearerChallenge(res.headers.get("www-authenticate"));
      const needsScope = res.status === 403 && challenge?.error === "insufficient_scope";
      if (res.status === 403 && !needsScope) return res;
      if (res.status === 401 || !tokens) {
        if (fresh) return res; // a token just issued is refused: mcpTools reports the 401
        await res.body?.cancel().catch(() => {});
        // Another request, or another process sharing the store, may have authorized already.
        const latest = reloaded ? undefined : await current(true);
        reloaded = true;
        if (latest && latest.accessToken !== tokens?.accessToken) continue;
        await renewOnce({ challenge }, signal);
        fresh = true;
        continue;
      }
      await res.body?.cancel().catch(() => {});
      const union = scopeUnion(tokens.scope, challenge?.scope);
      // offline_access is asked for, not granted as a scope of the token: it is never what is missing.
      const adds = [...scopeSet(union)].some((s) => s !== "offline_access" && !grantedScopes(tokens).has(s));
      if (!adds || stepUps >= ctx.maxStepUps) {
        throw new AuthError(
          "insufficient_scope",
          adds
            ? `the server still wants scope ${JSON.stringify(challenge?.scope)} after ${stepUps} step-up(s) (maxStepUps)`
            : `the server refuses the request for insufficient scope ${JSON.stringify(challenge?.scope ?? "")}, which the token already has: asking again cannot help`,
        );
      }
      stepUps++;
      ctx.logger.info("mcp oauth: more scope needed", { scope: union });
      await renewOnce({ challenge, stepUp: union }, signal);
      fresh = true;
    }
  };
}

/**
 * The scope to ask for (MCP's scope selection): the challenge's, else the resource's
 * scopes_supported, else the option; plus offline_access when the authorization server offers it
 * (SEP-2207), so a refresh token may come with it. No scope at all is sent as none.
 */
function chooseScope(challenged: string | undefined, found: Discovery, fallback: string | undefined): string | undefined {
  const scope = challenged || found.scopesSupported?.join(" ") || fallback || undefined;
  if (!scope || !found.server.scopesSupported?.includes("offline_access")) return scope;
  return scopeUnion(scope, "offline_access");
}

function withBearer(init: RequestInit | undefined, token: string | undefined): RequestInit | undefined {
  if (token === undefined) return init;
  const headers: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, name) => {
    headers[name] = value;
  });
  headers.authorization = `Bearer ${token}`;
  return { ...init, headers };
}
