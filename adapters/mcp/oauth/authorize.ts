// The authorization code flow's two halves. start(): a PKCE verifier and a state, kept in the
// store under that state (so the callback may arrive in another page load, request or isolate,
// and two flows in flight never share a verifier), and the authorization URL. finish(): the
// callback checked (a state some flow is waiting for, used once; RFC 9207's iss compared as a
// plain string with the issuer; the server's error reported only after that), then the code
// traded for tokens at the token endpoint the flow started with.
import { isRecord, registerSecret, type Store } from "../../../src/base/index.js";
import type { Discovery } from "./discovery.js";
import { AuthError } from "./errors.js";
import type { OAuthHttp } from "./http.js";
import { randomToken, s256 } from "./pkce.js";
import type { ClientCredentials, TokenEndpointAuth } from "./registration.js";
import { exchangeCode, type TokenSet } from "./tokens.js";

/** How long a started flow waits for its callback. */
const FLOW_TTL = 10 * 60_000;

/** A flow waiting for its callback, as stored under its state. */
interface Flow {
  verifier: string;
  /** The tokens' key: which MCP server they are for. */
  tokensKey: string;
  issuer: string;
  issRequired: boolean;
  tokenEndpoint: string;
  authMethods: string[] | undefined;
  resource: string;
  resourceMetadataUrl: string;
  redirectUri: string;
  scope: string | undefined;
  /** The client, secret left out (it is looked up again: the store need not hold it twice). */
  clientId: string;
  authMethod: TokenEndpointAuth | undefined;
  startedAt: number;
}

export interface FlowSettings {
  store: Store;
  keyPrefix: string;
  redirectUri: string;
  owner: object;
}

const flowKey = (prefix: string, state: string) => `${prefix}flow:${state}`;

/** Starts a flow: resolves with the authorization URL and the state that names the flow. */
export async function start(
  s: FlowSettings,
  found: Discovery,
  client: ClientCredentials,
  scope: string | undefined,
  tokensKey: string,
): Promise<{ url: URL; state: string }> {
  const verifier = randomToken(32);
  registerSecret(verifier, s.owner);
  const state = randomToken(16);
  const server = found.server;
  const flow: Flow = {
    verifier,
    tokensKey,
    issuer: server.issuer,
    issRequired: server.issRequired,
    tokenEndpoint: server.tokenEndpoint,
    authMethods: server.tokenEndpointAuthMethods,
    resource: found.resource,
    resourceMetadataUrl: found.resourceMetadataUrl,
    redirectUri: s.redirectUri,
    scope,
    clientId: client.id,
    authMethod: client.authMethod,
    startedAt: Date.now(),
  };
  // Stored before the user is sent anywhere: the callback may come back to another process.
  await s.store.put(flowKey(s.keyPrefix, state), flow);
  const url = new URL(server.authorizationEndpoint);
  const params = url.searchParams;
  params.set("response_type", "code");
  params.set("client_id", client.id);
  params.set("redirect_uri", s.redirectUri);
  params.set("code_challenge", await s256(verifier));
  params.set("code_challenge_method", "S256");
  params.set("state", state);
  if (scope) params.set("scope", scope);
  params.set("resource", found.resource);
  return { url, state };
}

/**
 * Finishes the flow `callback` (the URL the user came back to) belongs to. `clientOf` gives the
 * client's credentials again for the flow's issuer and client id. Resolves with the tokens and
 * the key they are stored under.
 */
export async function finish(
  http: OAuthHttp,
  s: FlowSettings,
  callback: string | URL,
  clientOf: (issuer: string, clientId: string) => Promise<ClientCredentials | undefined>,
  expectedState?: string,
): Promise<{ tokens: TokenSet; tokensKey: string }> {
  let params: URLSearchParams;
  try {
    params = new URL(String(callback)).searchParams;
  } catch {
    throw new AuthError("authorization", "the callback is not a URL");
  }
  const code = params.get("code");
  if (code) registerSecret(code, s.owner);
  const state = params.get("state");
  if (!state) throw new AuthError("authorization", "the callback carries no state: it is not the answer to a flow toolloop started");
  if (expectedState !== undefined && state !== expectedState) throw new AuthError("authorization", "the callback's state is not the one this flow sent");
  const key = flowKey(s.keyPrefix, state);
  const flow = readFlow(await s.store.get(key));
  if (!flow) throw new AuthError("authorization", "no authorization is waiting for the callback's state (already used, or never started here)");
  registerSecret(flow.verifier, s.owner);
  // Used once, whatever follows: a replayed callback finds nothing.
  await s.store.delete(key);
  if (Date.now() - flow.startedAt > FLOW_TTL)
    throw new AuthError("authorization", `the authorization took longer than ${FLOW_TTL / 60_000} minutes; start again`);
  // RFC 9207 §2.4 (SEP-2468): iss, when sent, equals the issuer exactly; a server that promises it must send it.
  const iss = params.get("iss");
  if (iss !== null && iss !== flow.issuer) {
    throw new AuthError("issuer_mismatch", `the callback comes from issuer ${JSON.stringify(iss)}, but the flow went to ${JSON.stringify(flow.issuer)}`);
  }
  if (iss === null && flow.issRequired) throw new AuthError("issuer_mismatch", `the callback lacks the iss that ${flow.issuer} promises to send (RFC 9207)`);
  const error = params.get("error");
  if (error) {
    const description = params.get("error_description");
    throw new AuthError("authorization", `the authorization server answered ${error}${description ? `: ${description.slice(0, 300)}` : ""}`, {
      oauthError: error,
    });
  }
  if (!code) throw new AuthError("authorization", "the callback carries neither a code nor an error");
  const client = await clientOf(flow.issuer, flow.clientId);
  if (!client) throw new AuthError("no_client", `the client ${flow.clientId} this flow started with is no longer known for ${flow.issuer}`);
  const tokens = await exchangeCode(
    http,
    {
      tokenEndpoint: flow.tokenEndpoint,
      authMethods: flow.authMethods,
      client: { ...client, authMethod: flow.authMethod ?? client.authMethod },
      resource: flow.resource,
      issuer: flow.issuer,
      resourceMetadataUrl: flow.resourceMetadataUrl,
      scope: flow.scope,
      owner: s.owner,
    },
    code,
    flow.verifier,
    flow.redirectUri,
  );
  return { tokens, tokensKey: flow.tokensKey };
}

function readFlow(value: unknown): Flow | undefined {
  if (!isRecord(value)) return undefined;
  const ok =
    typeof value.verifier === "string" &&
    typeof value.tokensKey === "string" &&
    typeof value.issuer === "string" &&
    typeof value.tokenEndpoint === "string" &&
    typeof value.resource === "string" &&
    typeof value.redirectUri === "string" &&
    typeof value.clientId === "string" &&
    typeof value.startedAt === "number";
  return ok ? (value as unknown as Flow) : undefined;
}
