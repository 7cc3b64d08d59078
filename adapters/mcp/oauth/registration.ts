// Who we are to an authorization server, in the MCP spec's order of preference: a client the
// app pre-registered, a client ID metadata document (our client_id is the document's https URL)
// when the server says it takes them, a client this store registered with that server before,
// else dynamic client registration (RFC 7591). Registrations are kept per issuer and never shown
// to another authorization server (SEP-2352). Then how the client authenticates at the token
// endpoint: client_secret_basic, client_secret_post or none (a public client).
import { bytesToBase64, isRecord, registerSecret, type Store, stripURLs } from "../../../src/base/index.js";
import type { ServerMetadata } from "./discovery.js";
import { AuthError } from "./errors.js";
import { type OAuthHttp, oauthErrorText, postJSON, secureURL } from "./http.js";

export type TokenEndpointAuth = "client_secret_basic" | "client_secret_post" | "none";
export const AUTH_METHODS: readonly TokenEndpointAuth[] = ["client_secret_basic", "client_secret_post", "none"];

/** A client as the token endpoint sees it. */
export interface ClientCredentials {
  id: string;
  secret?: string | undefined;
  /** How it authenticates; chosen from the server's list when unset. */
  authMethod?: TokenEndpointAuth | undefined;
}

export interface RegistrationSettings {
  store: Store;
  keyPrefix: string;
  redirectUri: string;
  /** A pre-registered client: for every authorization server, or only the one `issuer` names. */
  client: (ClientCredentials & { issuer?: string | undefined }) | undefined;
  clientMetadataUrl: string | undefined;
  clientName: string;
  /** Secrets are registered for as long as this lives (the oauth() object). */
  owner: object;
}

/** The key a registration with `issuer` is stored under. */
export function clientKey(prefix: string, issuer: string): string {
  return `${prefix}client:${issuer}`;
}

/** The client to use with `server`, registering one when there is no other way. */
export async function clientFor(http: OAuthHttp, s: RegistrationSettings, server: ServerMetadata, scope: string | undefined): Promise<ClientCredentials> {
  const pre = s.client;
  if (pre && (pre.issuer === undefined || pre.issuer === server.issuer)) return pre;
  if (s.clientMetadataUrl && server.cimd) return { id: s.clientMetadataUrl, authMethod: "none" };
  const kept = await storedClient(s, server.issuer);
  if (kept) return kept;
  if (!server.registrationEndpoint) {
    throw new AuthError(
      "no_client",
      `the authorization server ${server.issuer} offers no dynamic client registration${server.cimd ? "" : " and takes no client ID metadata documents"}: pass oauth({ client: { id, secret } }) with a client registered there${server.cimd ? " or oauth({ clientMetadataUrl })" : ""}`,
    );
  }
  const registered = await register(http, s, server, scope);
  await s.store.put(clientKey(s.keyPrefix, server.issuer), { ...registered, redirectUri: s.redirectUri });
  return registered;
}

/** A registration this store holds for `issuer`, when it was made for our redirect URI. */
export async function storedClient(s: RegistrationSettings, issuer: string): Promise<ClientCredentials | undefined> {
  const kept = await s.store.get(clientKey(s.keyPrefix, issuer));
  if (!isRecord(kept) || typeof kept.id !== "string" || kept.redirectUri !== s.redirectUri) return undefined;
  const secret = typeof kept.secret === "string" ? kept.secret : undefined;
  if (secret) registerSecret(secret, s.owner);
  const authMethod = AUTH_METHODS.find((m) => m === kept.authMethod);
  return { id: kept.id, secret, authMethod };
}

/** RFC 7591 registration: a client with our redirect URI that may use refresh tokens. */
async function register(http: OAuthHttp, s: RegistrationSettings, server: ServerMetadata, scope: string | undefined): Promise<ClientCredentials> {
  const url = secureURL(server.registrationEndpoint, "the registration endpoint");
  const methods = server.tokenEndpointAuthMethods;
  // A public client where the server takes one (an agent or a page cannot keep a secret), else a secret.
  const asked: TokenEndpointAuth =
    !methods || methods.includes("none") ? "none" : methods.includes("client_secret_basic") ? "client_secret_basic" : "client_secret_post";
  const body: Record<string, unknown> = {
    client_name: s.clientName,
    redirect_uris: [s.redirectUri],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: asked,
    application_type: applicationType(s.redirectUri),
  };
  if (scope) body.scope = scope;
  const answer = await postJSON(http, url, body);
  const id = answer.json?.client_id;
  if (!answer.ok || typeof id !== "string" || id === "") {
    const { code, text } = oauthErrorText(answer);
    throw new AuthError("registration", `dynamic client registration at ${stripURLs(url.href)} failed: ${answer.ok ? "no client_id in the answer" : text}`, {
      oauthError: code,
    });
  }
  const secret = typeof answer.json?.client_secret === "string" && answer.json.client_secret !== "" ? answer.json.client_secret : undefined;
  if (secret) registerSecret(secret, s.owner);
  const authMethod = AUTH_METHODS.find((m) => m === answer.json?.token_endpoint_auth_method) ?? (secret ? undefined : "none");
  return { id, secret, authMethod };
}

/**
 * SEP-837: "native" for a loopback or custom-scheme redirect (a CLI, a desktop app), else "web".
 */
function applicationType(redirectUri: string): "native" | "web" {
  const url = new URL(redirectUri);
  if (url.protocol !== "https:" && url.protocol !== "http:") return "native";
  return url.hostname === "localhost" || url.hostname === "[::1]" || /^127\./.test(url.hostname) ? "native" : "web";
}

/**
 * How `client` authenticates at the token endpoint: the method it registered with (when the
 * server still lists it), else basic then post with a secret, else none. RFC 8414 §2: a server
 * that lists nothing takes client_secret_basic.
 */
export function authMethodFor(client: ClientCredentials, supported: string[] | undefined): TokenEndpointAuth {
  if (client.authMethod && (!supported || supported.includes(client.authMethod))) return client.authMethod;
  if (!client.secret) return "none";
  if (!supported || supported.includes("client_secret_basic")) return "client_secret_basic";
  if (supported.includes("client_secret_post")) return "client_secret_post";
  if (supported.includes("none")) return "none";
  throw new AuthError("no_client", `the token endpoint takes ${supported.join(", ")}; toolloop speaks ${AUTH_METHODS.join(", ")}`);
}

/** Adds the client's authentication to a token request (RFC 6749 §2.3.1). */
export function authenticate(client: ClientCredentials, method: TokenEndpointAuth, form: URLSearchParams, headers: Record<string, string>): void {
  if (method === "client_secret_basic") {
    // Each part form-urlencoded, then joined with ":" and base64'd (RFC 6749 §2.3.1).
    const pair = `${formEncode(client.id)}:${formEncode(client.secret ?? "")}`;
    headers.authorization = `Basic ${bytesToBase64(new TextEncoder().encode(pair))}`;
    return;
  }
  form.set("client_id", client.id);
  if (method === "client_secret_post" && client.secret) form.set("client_secret", client.secret);
}

function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}
