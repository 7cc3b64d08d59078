// protectedResource(): mcpHandler as an OAuth 2.0 protected resource (RFC 9728), as the MCP
// authorization spec asks of a server that takes tokens. It publishes which authorization
// servers issue tokens for it, at /.well-known/oauth-protected-resource (with the endpoint's
// path appended, and at the root), and points every refusal there with
// `WWW-Authenticate: Bearer resource_metadata="..."`, so a standard client (the official SDKs,
// toolloop's own oauth()) finds the authorization server by itself. Checking the token stays
// with mcpHandler's `authorize`. A value built here, handed to mcpHandler, so a server without
// it ships none of this.
import { checkOptions, InvalidOptionsError } from "../../../src/base/index.js";
import { challengeValue, type McpAuthRefusal, scopeTokens } from "./challenge.js";

export interface ProtectedResourceOptions {
  /**
   * The MCP endpoint's own URL, as clients are given it: "https://mcp.example.com/mcp". It is the
   * `resource` every token must be issued for (RFC 8707), so `authorize` must check each token's
   * audience against it. https, or http on loopback (localhost, 127.0.0.1, [::1]) for development.
   */
  resource: string;
  /** The issuer URLs of the authorization servers whose tokens are taken (https, or http on loopback). */
  authorizationServers: readonly string[];
  /** The scopes this server knows (metadata `scopes_supported`); clients ask for these when told no other. */
  scopesSupported?: readonly string[] | undefined;
  /** The scopes a client should ask for, sent as the `scope` of every 401 challenge. */
  scope?: readonly string[] | undefined;
  /** A name for people (metadata `resource_name`). */
  resourceName?: string | undefined;
  /** A page about the server for developers (metadata `resource_documentation`). */
  resourceDocumentation?: string | undefined;
}

/** protectedResource()'s value, for mcpHandler's `protectedResource` option. */
export interface McpProtectedResource {
  /** The resource identifier: the MCP endpoint's URL. */
  readonly resource: string;
  /** Where the metadata is published (the path-suffixed form), as each challenge names it. */
  readonly metadataUrl: string;
  /** The paths mcpHandler answers with the metadata: route them to it beside the endpoint's own. */
  readonly paths: readonly string[];
  /** The metadata response for a request to one of `paths`; undefined for any other request. */
  serve(request: Request): Response | undefined;
  /** The `WWW-Authenticate` value for a request refused with `refusal` (false or unset: no token, or not accepted). */
  challenge(refusal?: McpAuthRefusal): string;
}

const WELL_KNOWN = "/.well-known/oauth-protected-resource";

/** The metadata and challenges of an MCP server that takes OAuth tokens: `mcpHandler({ ..., protectedResource: protectedResource({...}) })`. */
export function protectedResource(options: ProtectedResourceOptions): McpProtectedResource {
  if (typeof options !== "object" || options === null) {
    throw new InvalidOptionsError(
      'protectedResource() takes { resource, authorizationServers }: protectedResource({ resource: "https://mcp.example.com/mcp", authorizationServers: ["https://auth.example.com"] })',
    );
  }
  checkOptions("protectedResource()", options, "resource authorizationServers scopesSupported scope resourceName resourceDocumentation");
  const resource = secureURL("protectedResource(): resource", options.resource, "the MCP endpoint's URL, such as https://mcp.example.com/mcp");
  const servers = options.authorizationServers;
  if (!Array.isArray(servers) || servers.length === 0) {
    throw new InvalidOptionsError('protectedResource(): authorizationServers must list at least one issuer URL, such as ["https://auth.example.com"]');
  }
  const issuers = servers.map((s, i) => secureURL(`protectedResource(): authorizationServers[${i}]`, s, "an issuer URL, such as https://auth.example.com"));
  const scopesSupported = scopeList("protectedResource(): scopesSupported", options.scopesSupported);
  const scope = scopeList("protectedResource(): scope", options.scope);
  const name = options.resourceName;
  if (name !== undefined && (typeof name !== "string" || name.trim() === "")) {
    throw new InvalidOptionsError("protectedResource(): resourceName must be a non-empty string (or left out)");
  }
  const docs =
    options.resourceDocumentation === undefined
      ? undefined
      : secureURL("protectedResource(): resourceDocumentation", options.resourceDocumentation, "a page's URL", true);

  // RFC 9728 section 3.1: the well-known segment goes between the host and the resource's path.
  const url = new URL(resource);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "");
  const paths = path ? [WELL_KNOWN + path, WELL_KNOWN] : [WELL_KNOWN];
  const metadataUrl = url.origin + paths[0];
  const document = JSON.stringify({
    resource,
    authorization_servers: issuers,
    ...(scopesSupported && { scopes_supported: scopesSupported }),
    // MCP clients send tokens in the Authorization header only (never in a query or body).
    bearer_methods_supported: ["header"],
    ...(name !== undefined && { resource_name: name }),
    ...(docs !== undefined && { resource_documentation: docs }),
  });

  return {
    resource,
    metadataUrl,
    paths,
    serve(request) {
      if (!paths.includes(new URL(request.url).pathname)) return undefined;
      // Public by design (it names no secret), so any page may read it: browser-based clients
      // discover the authorization server this way before they have a token.
      const cors = { "access-control-allow-origin": "*" };
      if (request.method === "OPTIONS") {
        return new Response(null, {
          status: 204,
          headers: {
            ...cors,
            "access-control-allow-methods": "GET, HEAD, OPTIONS",
            "access-control-allow-headers": request.headers.get("access-control-request-headers") ?? "MCP-Protocol-Version",
            "access-control-max-age": "86400",
            "content-length": "0",
          },
        });
      }
      if (request.method !== "GET" && request.method !== "HEAD") {
        return new Response(null, { status: 405, headers: { ...cors, allow: "GET, HEAD, OPTIONS", "content-length": "0" } });
      }
      return new Response(request.method === "HEAD" ? null : document, { status: 200, headers: { ...cors, "content-type": "application/json" } });
    },
    challenge(refusal) {
      return challengeValue(refusal, metadataUrl, scope);
    },
  };
}

/** mcpHandler's check: protectedResource()'s value or nothing, and then an `authorize` to check the tokens. */
export function checkProtectedResource(resource: McpProtectedResource | undefined, authorize: unknown): McpProtectedResource | undefined {
  if (resource === undefined) return undefined;
  if (typeof resource?.serve !== "function" || typeof resource.challenge !== "function") {
    throw new InvalidOptionsError("mcpHandler(): protectedResource takes the value protectedResource({ resource, authorizationServers }) builds");
  }
  if (typeof authorize !== "function") {
    throw new InvalidOptionsError("mcpHandler(): protectedResource needs authorize, the function that checks each request's token (audience, expiry, scope)");
  }
  return resource;
}

/**
 * An absolute https URL, or http on loopback (a development server): tokens and the metadata
 * that routes them must not travel in the clear. Resource and issuer identifiers carry no query
 * or fragment (RFC 8707, RFC 8414); a documentation page may.
 */
function secureURL(what: string, value: unknown, example: string, page = false): string {
  let url: URL;
  try {
    if (typeof value !== "string" || value.trim() === "") throw new Error("not a string");
    url = new URL(value);
  } catch {
    throw new InvalidOptionsError(`${what} must be an absolute URL: ${example}`);
  }
  const loopback = url.hostname === "localhost" || url.hostname === "[::1]" || /^127(\.\d{1,3}){3}$/.test(url.hostname);
  if (!(url.protocol === "https:" || (url.protocol === "http:" && loopback))) {
    throw new InvalidOptionsError(`${what} must use https (http only on localhost / 127.0.0.1 / [::1]): ${example}`);
  }
  if (url.username || url.password) throw new InvalidOptionsError(`${what} must not carry credentials`);
  if (!page && (url.search || url.hash || /[?#]/.test(value as string))) {
    throw new InvalidOptionsError(`${what} must have no query or fragment: ${example}`);
  }
  // As given (not url.href): clients compare the resource with the URL they were given.
  return value as string;
}

function scopeList(what: string, value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0)
    throw new InvalidOptionsError(`${what} must be a non-empty array of scope names (or left out), such as ["mcp:tools"]`);
  const tokens = scopeTokens(value);
  if (tokens.length !== value.length) {
    throw new InvalidOptionsError(`${what}: each scope is one word of printable ASCII, without spaces, quotes or backslashes (RFC 6749), such as "mcp:tools"`);
  }
  return tokens;
}
