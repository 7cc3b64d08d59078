// The official MCP SDK's OAuth client (@modelcontextprotocol/sdk/client/auth.js, through its
// Streamable HTTP transport) pointed at mcpHandler with protectedResource(): told nothing but
// the MCP URL, it follows the 401's resource_metadata to the metadata, finds the authorization
// server there, reads that server's metadata, registers, and builds the authorization URL with
// resource = the MCP URL and the challenged scope; the flow then completes against a strict local
// authorization server, the token is taken, and a 403 insufficient_scope steps the scope up.

import { type OAuthClientProvider, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type McpAuthorizeResult, mcpHandler, protectedResource } from "../../adapters/mcp/index.js";
import { type NodeServer, serve } from "../../hosts/node/index.js";
import { tool } from "../../src/index.js";
import { type AuthorizationServer, authorizationServer } from "./authorization-server.js";

type TextBlock = { type: string; text: string };
const REDIRECT = "http://127.0.0.1:1/callback"; // never visited: the test reads the redirect itself

/** What an app gives the SDK: storage for the client, tokens and verifier, and a way to send the user off. */
class MemoryProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizationUrls: URL[] = [];
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "sdk-peer",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrls.push(url);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

let as: AuthorizationServer;
let asServer: NodeServer;
let mcpServer: NodeServer;
let mcpUrl: string;
const mcpSeen: string[] = [];

/** The scopes a request needs: tools/call of write_note needs mcp:write too. */
async function neededScopes(request: Request): Promise<string[]> {
  const body =
    request.method === "POST"
      ? await request
          .clone()
          .json()
          .catch(() => undefined)
      : undefined;
  const writes = body?.method === "tools/call" && body.params?.name === "write_note";
  return writes ? ["mcp:tools", "mcp:write"] : ["mcp:tools"];
}

beforeAll(async () => {
  as = authorizationServer(() => asServer.url);
  asServer = await serve(as.handler);
  let mcp: (request: Request) => Promise<Response> = async () => new Response(null, { status: 503 });
  mcpServer = await serve((request) => {
    mcpSeen.push(`${request.method} ${new URL(request.url).pathname}`);
    return mcp(request);
  });
  mcpUrl = `${mcpServer.url}/mcp`;
  const resource = protectedResource({
    resource: mcpUrl,
    authorizationServers: [asServer.url],
    scopesSupported: ["mcp:tools", "mcp:write"],
    scope: ["mcp:tools"],
  });
  const notes: string[] = [];
  const handler = mcpHandler({
    name: "notes",
    version: "1.0.0",
    tools: [
      tool({ name: "list_notes", description: "Lists the notes.", input: v.object({}), run: () => notes }),
      tool({ name: "write_note", description: "Writes a note.", input: v.object({ text: v.string() }), run: ({ text }) => (notes.push(text), "saved") }),
    ],
    protectedResource: resource,
    // The resource server's own check: a token this authorization server issued, for this resource, with the scope needed.
    authorize: async (request): Promise<McpAuthorizeResult> => {
      const header = request.headers.get("authorization");
      if (!header?.startsWith("Bearer ")) return false;
      const token = as.tokens.get(header.slice("Bearer ".length));
      if (!token || token.resource !== mcpUrl) return { error: "invalid_token", description: "unknown token, or issued for another resource" };
      const needed = await neededScopes(request);
      if (needed.some((s) => !token.scopes.includes(s))) return { error: "insufficient_scope", scope: [...new Set([...token.scopes, ...needed])] };
      return true;
    },
  });
  mcp = (request) => {
    const path = new URL(request.url).pathname;
    return path === "/mcp" || resource.paths.includes(path) ? handler(request) : Promise.resolve(new Response("not found", { status: 404 }));
  };
});
afterAll(async () => {
  await mcpServer?.close({ timeout: 0 });
  await asServer?.close({ timeout: 0 });
});

/** The user at the authorization server: follows the URL (consent is automatic) and reads the code off the redirect. */
async function consent(url: URL): Promise<string> {
  const r = await fetch(url, { redirect: "manual" });
  expect(r.status).toBe(302);
  const back = new URL(r.headers.get("location")!);
  expect(back.origin + back.pathname).toBe(REDIRECT);
  const code = back.searchParams.get("code");
  if (!code) throw new Error(`no code: ${back.search}`);
  return code;
}

describe("the official SDK's OAuth client ↔ mcpHandler with protectedResource()", () => {
  const provider = new MemoryProvider();

  it("discovers the authorization server by itself and builds the authorization URL from its metadata, resource = the MCP URL", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider });
    const client = new Client({ name: "sdk-peer", version: "1.0.0" });
    await expect(client.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);

    // The SDK knew only the MCP URL: the challenge led it to the metadata, the metadata to the authorization server.
    expect(mcpSeen).toContain("GET /.well-known/oauth-protected-resource/mcp");
    expect(as.seen.slice(0, 2)).toEqual(["GET /.well-known/oauth-authorization-server", "POST /register"]);
    expect(provider.authorizationUrls).toHaveLength(1);
    const url = provider.authorizationUrls[0]!;
    expect(url.origin + url.pathname).toBe(`${asServer.url}/authorize`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: "code",
      client_id: (provider.client as { client_id: string }).client_id,
      redirect_uri: REDIRECT,
      code_challenge_method: "S256",
      code_challenge: expect.stringMatching(/^[\w-]{43}$/),
      resource: mcpUrl,
      scope: "mcp:tools", // the challenge's scope
    });

    // The rest of the flow, against the strict authorization server: code, PKCE, resource, token.
    await transport.finishAuth(await consent(url));
    expect(provider.saved?.access_token).toMatch(/^at-/);
    expect(as.tokens.get(provider.saved!.access_token)).toMatchObject({ resource: mcpUrl, scopes: ["mcp:tools"] });
    await client.close();
  });

  it("with the token it got, the SDK is served", async () => {
    const client = new Client({ name: "sdk-peer", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["list_notes", "write_note"]);
      const r = await client.callTool({ name: "list_notes", arguments: {} });
      expect(JSON.parse((r.content as TextBlock[])[0]!.text)).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it("a call the token's scope does not cover gets 403 insufficient_scope, and the SDK asks for the wider scope", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider });
    const client = new Client({ name: "sdk-peer", version: "1.0.0" });
    await client.connect(transport);
    try {
      await expect(client.callTool({ name: "write_note", arguments: { text: "hi" } })).rejects.toBeInstanceOf(UnauthorizedError);
      expect(provider.authorizationUrls).toHaveLength(2);
      const url = provider.authorizationUrls[1]!;
      expect(url.searchParams.get("scope")).toBe("mcp:tools mcp:write");
      expect(url.searchParams.get("resource")).toBe(mcpUrl);
      await transport.finishAuth(await consent(url));
      expect(as.tokens.get(provider.saved!.access_token)?.scopes).toEqual(["mcp:tools", "mcp:write"]);
      const r = await client.callTool({ name: "write_note", arguments: { text: "hi" } });
      expect((r.content as TextBlock[])[0]!.text).toBe("saved");
    } finally {
      await client.close();
    }
  });

  it("a token the server does not know is refused with invalid_token, naming the metadata again", async () => {
    const r = await fetch(mcpUrl, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: "Bearer forged" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(r.status).toBe(401);
    expect(r.headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${mcpServer.url}/.well-known/oauth-protected-resource/mcp", scope="mcp:tools", error="invalid_token", error_description="unknown token, or issued for another resource"`,
    );
  });
});
