// mcpHandler as an OAuth protected resource, over real HTTP (toolloop/node): the RFC 9728
// metadata at both well-known paths, the Bearer challenges of every refusal (401 with
// resource_metadata and scope, invalid_token, 403 insufficient_scope), the options refused
// with what to write, and a server without protectedResource shipping none of it.
import { join } from "node:path";
import { build } from "esbuild";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type McpAuthorizeResult, mcpHandler, protectedResource } from "../../adapters/mcp/index.js";
import { type NodeServer, serve } from "../../hosts/node/index.js";
import { tool } from "../../src/index.js";

const echo = tool({ name: "echo", description: "Echoes.", input: v.object({ text: v.string() }), run: ({ text }) => text });
const init = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
};
const mcpHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream" };

let served: NodeServer;
let base: string;
let verdict: McpAuthorizeResult = false;
let handler: (request: Request) => Promise<Response>;

beforeAll(async () => {
  served = await serve((request) => handler(request));
  base = served.url;
  const resource = protectedResource({
    resource: `${base}/mcp`,
    authorizationServers: ["https://auth.example.com", "http://127.0.0.1:9/tenant"],
    scopesSupported: ["mcp:tools", "mcp:write"],
    scope: ["mcp:tools"],
    resourceName: "Echo server",
    resourceDocumentation: "https://docs.example.com/echo?v=1",
  });
  const mcp = mcpHandler({
    name: "echo",
    version: "1",
    tools: [echo],
    authorize: () => verdict,
    protectedResource: resource,
    allowedOrigins: ["https://app.example"],
  });
  // Routed as the docs say: the endpoint and the metadata's paths to the handler.
  handler = async (request) => {
    const path = new URL(request.url).pathname;
    return path === "/mcp" || resource.paths.includes(path) ? mcp(request) : new Response("not found", { status: 404 });
  };
});
afterAll(() => served?.close({ timeout: 0 }));

describe("the protected-resource metadata (RFC 9728)", () => {
  const expected = () => ({
    resource: `${base}/mcp`,
    authorization_servers: ["https://auth.example.com", "http://127.0.0.1:9/tenant"],
    scopes_supported: ["mcp:tools", "mcp:write"],
    bearer_methods_supported: ["header"],
    resource_name: "Echo server",
    resource_documentation: "https://docs.example.com/echo?v=1",
  });

  it("is served at the endpoint's path-suffixed well-known URL and at the root one, to anyone, with no token", async () => {
    for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
      // From a page of any origin: the document names no secret, and browser clients need it first.
      const r = await fetch(base + path, { headers: { origin: "https://elsewhere.example", "mcp-protocol-version": "2025-11-25" } });
      expect(r.status, path).toBe(200);
      expect(r.headers.get("content-type")).toBe("application/json");
      expect(r.headers.get("access-control-allow-origin")).toBe("*");
      expect(await r.json()).toEqual(expected());
    }
    // The endpoint itself still refuses that origin.
    expect(
      (await fetch(`${base}/mcp`, { method: "POST", headers: { ...mcpHeaders, origin: "https://elsewhere.example" }, body: JSON.stringify(init) })).status,
    ).toBe(403);
  });

  it("answers a CORS preflight and HEAD; other methods get 405; other paths are not it", async () => {
    const pre = await fetch(`${base}/.well-known/oauth-protected-resource/mcp`, {
      method: "OPTIONS",
      headers: { origin: "https://x.example", "access-control-request-method": "GET", "access-control-request-headers": "mcp-protocol-version" },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-headers")).toBe("mcp-protocol-version");
    const head = await fetch(`${base}/.well-known/oauth-protected-resource/mcp`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    const post = await fetch(`${base}/.well-known/oauth-protected-resource/mcp`, { method: "POST", body: "{}" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect((await fetch(`${base}/.well-known/oauth-protected-resource/other`)).status).toBe(404);
  });

  it("a resource without a path has the root URL only; its challenge names that", () => {
    const r = protectedResource({ resource: "https://mcp.example.com", authorizationServers: ["https://auth.example.com"] });
    expect(r.paths).toEqual(["/.well-known/oauth-protected-resource"]);
    expect(r.metadataUrl).toBe("https://mcp.example.com/.well-known/oauth-protected-resource");
    const nested = protectedResource({ resource: "https://mcp.example.com/tenant/a/mcp/", authorizationServers: ["https://auth.example.com"] });
    expect(nested.metadataUrl).toBe("https://mcp.example.com/.well-known/oauth-protected-resource/tenant/a/mcp");
  });
});

describe("refusals carry a Bearer challenge that leads to the metadata", () => {
  const post = (headers: Record<string, string> = {}) =>
    fetch(`${base}/mcp`, { method: "POST", headers: { ...mcpHeaders, ...headers }, body: JSON.stringify(init) });
  const metadata = () => `resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`;

  it("no token (authorize says false): 401 with resource_metadata and the configured scope, no error code", async () => {
    verdict = false;
    const r = await post();
    expect(r.status).toBe(401);
    expect(r.headers.get("www-authenticate")).toBe(`Bearer ${metadata()}, scope="mcp:tools"`);
    expect((await r.json()).error.message).toBe("Unauthorized");
  });

  it("a token not taken (invalid_token): 401 saying so, with a description cleaned to what a header can carry", async () => {
    verdict = { error: "invalid_token", description: 'expired "yesterday"\r\nX-Evil: 1' };
    const r = await post({ authorization: "Bearer old" });
    expect(r.status).toBe(401);
    expect(r.headers.get("www-authenticate")).toBe(
      `Bearer ${metadata()}, scope="mcp:tools", error="invalid_token", error_description="expired yesterdayX-Evil: 1"`,
    );
    expect(r.headers.get("x-evil")).toBeNull();
  });

  it("a token without the scope this request needs: 403 insufficient_scope naming the scopes to ask for", async () => {
    verdict = { error: "insufficient_scope", scope: ["mcp:tools", "mcp:write", "bad scope"] };
    const r = await post({ authorization: "Bearer narrow" });
    expect(r.status).toBe(403);
    expect(r.headers.get("www-authenticate")).toBe(`Bearer ${metadata()}, scope="mcp:tools mcp:write", error="insufficient_scope"`);
    // Browsers may read the challenge (a page's client needs it).
    const cors = await post({ authorization: "Bearer narrow", origin: "https://app.example" });
    expect(cors.headers.get("access-control-expose-headers")).toContain("WWW-Authenticate");
  });

  it("an unrecognised verdict refuses like false; true serves", async () => {
    verdict = { error: "made_up" } as unknown as McpAuthorizeResult;
    expect((await post()).status).toBe(401);
    verdict = true;
    const ok = await post({ authorization: "Bearer good" });
    expect(ok.status).toBe(200);
    expect((await ok.json()).result.serverInfo.name).toBe("echo");
  });

  it("without protectedResource the challenges name no metadata, and the well-known paths are the endpoint's own", async () => {
    let answer: McpAuthorizeResult = false;
    const h = mcpHandler({ name: "n", version: "1", tools: [echo], authorize: () => answer });
    const req = () => new Request("http://127.0.0.1/mcp", { method: "POST", headers: mcpHeaders, body: JSON.stringify(init) });
    expect((await h(req())).headers.get("www-authenticate")).toBe("Bearer");
    answer = { error: "insufficient_scope", scope: ["a"] };
    const r = await h(req());
    expect(r.status).toBe(403);
    expect(r.headers.get("www-authenticate")).toBe('Bearer scope="a", error="insufficient_scope"');
    answer = true;
    expect((await h(new Request("http://127.0.0.1/.well-known/oauth-protected-resource"))).status).toBe(405);
  });
});

describe("options", () => {
  const good = { resource: "https://mcp.example.com/mcp", authorizationServers: ["https://auth.example.com"] };
  const refused = (options: unknown, message: RegExp) =>
    expect(() => protectedResource(options as never)).toThrow(expect.objectContaining({ code: "invalid_options", message: expect.stringMatching(message) }));

  it("a misspelt key is refused with the one meant", () => {
    refused({ ...good, authorizationServer: ["https://a.example"] }, /did you mean `authorizationServers`/);
    refused({ ...good, scopes_supported: ["a"] }, /did you mean `scopesSupported`/);
    refused({ ...good, resourceDocs: "https://d.example" }, /unknown option `resourceDocs`/);
  });

  it("URLs must be absolute https, or http on loopback, without credentials; identifiers without query or fragment", () => {
    for (const resource of ["http://mcp.example.com/mcp", "/mcp", "mcp.example.com", "ftp://mcp.example.com", "", undefined]) {
      refused({ ...good, resource }, /resource must/);
    }
    refused({ ...good, resource: "https://mcp.example.com/mcp?tenant=1" }, /no query or fragment/);
    refused({ ...good, resource: "https://mcp.example.com/mcp#x" }, /no query or fragment/);
    refused({ ...good, resource: "https://user:pw@mcp.example.com/mcp" }, /credentials/);
    refused({ ...good, authorizationServers: ["http://auth.example.com"] }, /authorizationServers\[0\] must use https/);
    refused({ ...good, authorizationServers: [] }, /at least one issuer/);
    refused({ ...good, authorizationServers: "https://auth.example.com" }, /at least one issuer/);
    refused({ ...good, resourceDocumentation: "http://docs.example.com" }, /https/);
    for (const resource of ["http://localhost:3000/mcp", "http://127.0.0.1:3000/mcp", "http://[::1]:3000/mcp"]) {
      expect(protectedResource({ ...good, resource }).resource).toBe(resource);
    }
  });

  it("scopes are non-empty lists of scope tokens; resourceName a non-empty string", () => {
    refused({ ...good, scope: "mcp:tools" }, /non-empty array/);
    refused({ ...good, scope: [] }, /non-empty array/);
    refused({ ...good, scopesSupported: ["two words"] }, /one word/);
    refused({ ...good, scopesSupported: ['q"uote'] }, /one word/);
    refused({ ...good, resourceName: " " }, /resourceName/);
    refused(undefined, /takes \{ resource, authorizationServers \}/);
  });

  it("mcpHandler takes only protectedResource()'s value, and only with an authorize to check the tokens", () => {
    const base = { name: "n", version: "1", tools: [echo] };
    expect(() => mcpHandler({ ...base, authorize: () => true, protectedResource: good as never })).toThrow(/takes the value protectedResource\(/);
    expect(() => mcpHandler({ ...base, protectedResource: protectedResource(good) })).toThrow(/needs authorize/);
    expect(() => mcpHandler({ ...base, protectedResources: protectedResource(good) } as never)).toThrow(/did you mean `protectedResource`/);
  });
});

describe("cost", () => {
  const bundle = async (contents: string) => {
    const r = await build({
      stdin: { contents, resolveDir: join(import.meta.dirname, "..", ".."), loader: "ts" },
      bundle: true,
      write: false,
      format: "esm",
      platform: "browser",
      minify: true,
      logLevel: "silent",
      external: ["valibot", "@valibot/to-json-schema", "@cfworker/json-schema", "eventsource-parser"],
    });
    return r.outputFiles[0]!.text;
  };

  it("a server without protectedResource ships none of it", async () => {
    const without = await bundle('import { mcpHandler } from "./adapters/mcp/index.ts"; export default mcpHandler({ name: "n", version: "1", tools: [] });');
    const withIt = await bundle(
      'import { mcpHandler, protectedResource } from "./adapters/mcp/index.ts"; export default mcpHandler({ name: "n", version: "1", tools: [], authorize: () => true, protectedResource: protectedResource({ resource: "https://a.example/mcp", authorizationServers: ["https://b.example"] }) });',
    );
    expect(withIt).toContain("oauth-protected-resource");
    expect(withIt).toContain("bearer_methods_supported");
    expect(without).not.toContain("oauth-protected-resource");
    expect(without).not.toContain("bearer_methods_supported");
  });
});
