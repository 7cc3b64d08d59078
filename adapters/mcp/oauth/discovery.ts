// Finding who authorizes an MCP server: its protected resource metadata (RFC 9728) from the
// challenge's resource_metadata, else the path-suffixed well-known URL, else the root one; the
// `resource` it names checked against the server we connect to; then the first authorization
// server's metadata (RFC 8414, OpenID Connect Discovery) from the well-known URLs its issuer
// gives, the document's `issuer` checked against that issuer (RFC 8414 §3.3).
import { stripURLs } from "../../../src/base/index.js";
import { AuthError } from "./errors.js";
import { getJSON, type OAuthHttp, secureURL } from "./http.js";

/** What an authorization needs to know, found anew on each challenge (the server may have moved). */
export interface Discovery {
  /** The resource indicator sent as `resource` (RFC 8707): the metadata's resource. */
  resource: string;
  /** Where the protected resource metadata was found. */
  resourceMetadataUrl: string;
  /** The protected resource's scopes_supported, when it lists any. */
  scopesSupported: string[] | undefined;
  /** The authorization server's metadata, its issuer checked. */
  server: ServerMetadata;
}

export interface ServerMetadata {
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  registrationEndpoint: string | undefined;
  scopesSupported: string[] | undefined;
  tokenEndpointAuthMethods: string[] | undefined;
  /** client_id_metadata_document_supported: true. */
  cimd: boolean;
  /** authorization_response_iss_parameter_supported: true (RFC 9207): the callback must carry iss. */
  issRequired: boolean;
}

/** The server URL as a resource indicator: no fragment (RFC 8707 §2). */
export function canonicalResource(serverUrl: string): string {
  const url = new URL(serverUrl);
  url.hash = "";
  return url.href;
}

export async function discover(http: OAuthHttp, serverUrl: string, resourceMetadataUrl: string | undefined): Promise<Discovery> {
  const prm = await resourceMetadata(http, serverUrl, resourceMetadataUrl);
  const resource = checkResource(prm.doc.resource, serverUrl);
  const servers = prm.doc.authorization_servers;
  const first = Array.isArray(servers) ? servers.find((s): s is string => typeof s === "string" && s !== "") : undefined;
  if (!first) throw new AuthError("discovery", `the protected resource metadata at ${stripURLs(prm.url)} names no authorization server`);
  return {
    resource,
    resourceMetadataUrl: prm.url,
    scopesSupported: strings(prm.doc.scopes_supported),
    server: await serverMetadata(http, first),
  };
}

/** The protected resource metadata: from the challenge's URL, else path-suffixed, else root well-known. */
async function resourceMetadata(http: OAuthHttp, serverUrl: string, given: string | undefined): Promise<{ doc: Record<string, unknown>; url: string }> {
  const server = new URL(serverUrl);
  const urls: URL[] = [];
  if (given !== undefined) urls.push(secureURL(given, "resource_metadata"));
  else {
    const path = server.pathname.replace(/\/$/, "");
    if (path !== "") urls.push(new URL(`/.well-known/oauth-protected-resource${path}`, server.origin));
    urls.push(new URL("/.well-known/oauth-protected-resource", server.origin));
  }
  const tried: string[] = [];
  for (const url of urls) {
    secureURL(url.href, "the protected resource metadata URL");
    const answer = await getJSON(http, url);
    if (answer.ok && answer.json) return { doc: answer.json, url: url.href };
    tried.push(`${stripURLs(url.href)} (${answer.ok ? "not a JSON object" : `HTTP ${answer.status}`})`);
  }
  throw new AuthError("discovery", `the MCP server offers no protected resource metadata (RFC 9728): tried ${tried.join(", ")}`);
}

/**
 * The metadata's `resource`, when it names the server we connect to: the same origin, and a
 * path that is the server's path or a whole-segment prefix of it (metadata at the root names
 * the origin). Anything else would send our token to a resource we did not ask for.
 */
function checkResource(resource: unknown, serverUrl: string): string {
  const server = new URL(canonicalResource(serverUrl));
  let named: URL | undefined;
  try {
    named = typeof resource === "string" ? new URL(resource) : undefined;
  } catch {
    named = undefined;
  }
  const path = named?.pathname.replace(/\/$/, "") ?? "";
  const serverPath = server.pathname.replace(/\/$/, "");
  const covers = named !== undefined && !named.hash && named.origin === server.origin && (serverPath === path || serverPath.startsWith(`${path}/`));
  if (!covers) {
    throw new AuthError(
      "resource_mismatch",
      `the protected resource metadata is for ${JSON.stringify(typeof resource === "string" ? stripURLs(resource) : resource)}, not for the MCP server ${stripURLs(server.href)}: refusing to authorize`,
    );
  }
  return resource as string;
}

/** The well-known URLs of an issuer, in the MCP spec's order (RFC 8414 §3.1, OIDC Discovery §4). */
function metadataURLs(issuer: URL): URL[] {
  const path = issuer.pathname.replace(/\/$/, "");
  const at = (p: string) => new URL(p, issuer.origin);
  if (path === "") return [at("/.well-known/oauth-authorization-server"), at("/.well-known/openid-configuration")];
  return [at(`/.well-known/oauth-authorization-server${path}`), at(`/.well-known/openid-configuration${path}`), at(`${path}/.well-known/openid-configuration`)];
}

async function serverMetadata(http: OAuthHttp, issuer: string): Promise<ServerMetadata> {
  const base = secureURL(issuer, "the authorization server");
  if (base.search) throw new AuthError("discovery", `the authorization server identifier ${stripURLs(issuer)} has a query, which RFC 8414 forbids`);
  const tried: string[] = [];
  for (const url of metadataURLs(base)) {
    const answer = await getJSON(http, url);
    if (!answer.ok || !answer.json) {
      tried.push(`${stripURLs(url.href)} (${answer.ok ? "not a JSON object" : `HTTP ${answer.status}`})`);
      continue;
    }
    const doc = answer.json;
    // RFC 8414 §3.3: the document's issuer must be the one its URL was made from. One slack, the
    // SDKs' too: a trailing "/" on the identifier the resource metadata gave (the URL is the same).
    if (doc.issuer !== issuer && !(issuer.endsWith("/") && doc.issuer === issuer.slice(0, -1))) {
      throw new AuthError(
        "issuer_mismatch",
        `the metadata at ${stripURLs(url.href)} is for issuer ${JSON.stringify(doc.issuer)}, not ${JSON.stringify(issuer)}: not used`,
      );
    }
    return readServerMetadata(doc, url);
  }
  throw new AuthError("discovery", `no authorization server metadata for ${stripURLs(issuer)}: tried ${tried.join(", ")}`);
}

function readServerMetadata(doc: Record<string, unknown>, url: URL): ServerMetadata {
  const endpoint = (key: string): string | undefined => (typeof doc[key] === "string" && doc[key] !== "" ? (doc[key] as string) : undefined);
  const authorizationEndpoint = endpoint("authorization_endpoint");
  const tokenEndpoint = endpoint("token_endpoint");
  if (!authorizationEndpoint || !tokenEndpoint) {
    throw new AuthError("discovery", `the authorization server metadata at ${stripURLs(url.href)} lacks an authorization_endpoint or token_endpoint`);
  }
  // MCP: without S256 listed the server does not do PKCE, and clients must not go on.
  const pkce = strings(doc.code_challenge_methods_supported);
  if (!pkce?.includes("S256")) {
    throw new AuthError(
      "pkce_unsupported",
      `the authorization server ${String(doc.issuer)} does not list S256 in code_challenge_methods_supported (PKCE is required)`,
    );
  }
  return {
    issuer: doc.issuer as string,
    authorizationEndpoint,
    tokenEndpoint,
    registrationEndpoint: endpoint("registration_endpoint"),
    scopesSupported: strings(doc.scopes_supported),
    tokenEndpointAuthMethods: strings(doc.token_endpoint_auth_methods_supported),
    cimd: doc.client_id_metadata_document_supported === true,
    issRequired: doc.authorization_response_iss_parameter_supported === true,
  };
}

/** An array of strings (others dropped), or undefined when the value is not an array. */
function strings(v: unknown): string[] | undefined {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : undefined;
}
