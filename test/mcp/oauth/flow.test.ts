// oauth() end to end against a strict authorization server and a protected MCP server (world.ts),
// over real HTTP on loopback: the whole flow, each way of finding the metadata, each way of being
// a client, and every refusal the spec asks of a client (a mismatched resource or issuer, no
// PKCE, an insecure endpoint, a callback from another issuer).
import { afterEach, describe, expect, it } from "vitest";
import { mcpTools } from "../../../adapters/mcp/index.js";
import { approvingAuth, connect, ctx, hits, rejectionOf } from "./helpers.js";
import { REDIRECT_URI, startWorld, type World, type WorldOptions } from "./world.js";

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});
const start = async (o: WorldOptions = {}) => (world = await startWorld(o));

describe("the full flow", () => {
  it("registers, authorizes with PKCE S256 and the resource, trades the code, then calls the tool with the token", async () => {
    const w = await start({ prm: "header" });
    const { tools, redirects } = await connect(w);
    expect(tools.map((t) => t.name)).toEqual(["echo"]);
    expect(await tools[0]!.call('{"text":"hi"}', ctx())).toBe('echo {"text":"hi"}');
    expect(redirects).toHaveLength(1);
    const [register] = hits(w, "/register");
    expect(register!.json).toMatchObject({
      redirect_uris: [REDIRECT_URI],
      grant_types: ["authorization_code", "refresh_token"],
      token_endpoint_auth_method: "none",
    });
    expect((register!.json as { application_type: string }).application_type).toBe("native");
    const [authorize] = hits(w, "/authorize");
    expect(authorize!.query).toMatchObject({ response_type: "code", code_challenge_method: "S256", resource: w.mcpUrl, redirect_uri: REDIRECT_URI });
    expect(authorize!.query.state!.length).toBeGreaterThanOrEqual(20);
    expect(authorize!.query.scope).toBeUndefined(); // nothing names a scope: none is asked for
    const [token] = hits(w, "/token");
    expect(token!.status).toBe(200); // the server checked the verifier against the challenge and the resource
    expect(token!.form).toMatchObject({ grant_type: "authorization_code", resource: w.mcpUrl, redirect_uri: REDIRECT_URI });
    // Every MCP request after the first carried the bearer token the server issued.
    const mcp = hits(w, "/mcp");
    expect(mcp[0]!.authorization).toBeNull();
    expect(mcp.slice(1).every((e) => e.authorization?.startsWith("Bearer at_"))).toBe(true);
    await tools.close();
  });

  it("a second mcpTools on the same store needs no new authorization", async () => {
    const w = await start({ prm: "header" });
    const { auth, redirects, tools } = await connect(w);
    await tools.close();
    const again = await mcpTools({ url: w.mcpUrl, auth });
    expect(again.map((t) => t.name)).toEqual(["echo"]);
    expect(redirects).toHaveLength(1);
    expect(hits(w, "/authorize")).toHaveLength(1);
    await again.close();
  });
});

describe("discovery", () => {
  it("protected resource metadata at the path-suffixed well-known URL, issuer with a path (RFC 8414 path-inserted)", async () => {
    const w = await start({ prm: "path", issuerPath: "/tenant1" });
    const { tools } = await connect(w);
    expect(tools).toHaveLength(1);
    const gets = w.log.filter((e) => e.method === "GET").map((e) => `${e.server} ${e.path}`);
    expect(gets).toContain("rs /.well-known/oauth-protected-resource/mcp");
    expect(gets).not.toContain("rs /.well-known/oauth-protected-resource"); // the root is not asked when the path answers
    expect(gets).toContain("as /.well-known/oauth-authorization-server/tenant1");
    expect(gets).not.toContain("as /.well-known/oauth-authorization-server"); // never the root of an issuer with a path
    expect(hits(w, "/tenant1/authorize")).toHaveLength(1);
  });

  it("metadata at the root (its resource the origin), OpenID configuration appended to the issuer's path", async () => {
    const w = await start({ prm: "root", issuerPath: "/tenant1", metadataAt: "openid-appended" });
    const { tools } = await connect(w);
    expect(tools).toHaveLength(1);
    const gets = w.log.filter((e) => e.method === "GET").map((e) => `${e.path} ${e.status}`);
    expect(gets).toEqual(
      expect.arrayContaining([
        "/.well-known/oauth-protected-resource/mcp 404",
        "/.well-known/oauth-protected-resource 200",
        "/.well-known/oauth-authorization-server/tenant1 404",
        "/.well-known/openid-configuration/tenant1 404",
        "/tenant1/.well-known/openid-configuration 200",
      ]),
    );
    expect(hits(w, "/authorize")[0]!.query.resource).toBe(w.rsBase); // as the metadata names it
  });

  it("OpenID configuration at the root of an issuer without a path", async () => {
    const w = await start({ prm: "header", metadataAt: "openid-inserted" });
    await connect(w);
    expect(hits(w, "/.well-known/openid-configuration").map((e) => e.status)).toEqual([200]);
  });

  it("scope: the challenge's, else the resource's scopes_supported, plus offline_access where the server offers it", async () => {
    const w1 = await start({ prm: "header", challengeScope: "files:read", prmScopes: ["a", "b"] });
    await connect(w1);
    expect(hits(w1, "/authorize")[0]!.query.scope).toBe("files:read");
    await w1.close();
    const w2 = await start({ prm: "header", prmScopes: ["a", "b"], scopesSupported: ["a", "b", "offline_access"] });
    await connect(w2);
    expect(hits(w2, "/authorize")[0]!.query.scope).toBe("a b offline_access");
    await w2.close();
    const w3 = await start({ prm: "header", prmScopes: ["a"], scopesSupported: ["a"] });
    await connect(w3);
    expect(hits(w3, "/authorize")[0]!.query.scope).toBe("a"); // not offered: not asked
  });

  it("no protected resource metadata anywhere: a discovery error naming what was tried, no authorization attempted", async () => {
    const w = await start({ prm: "none" });
    const { auth, redirects } = approvingAuth();
    const err = await rejectionOf(mcpTools({ url: w.mcpUrl, auth }));
    expect(err).toMatchObject({ code: "auth_error", reason: "discovery" });
    expect(err.message).toContain("/.well-known/oauth-protected-resource/mcp (HTTP 404)");
    expect(redirects).toHaveLength(0);
  });
});

describe("who the client is", () => {
  it("a client ID metadata document where the server takes them: its URL is the client_id, no registration", async () => {
    const w = await start({ prm: "header", cimd: true });
    await connect(w, { clientMetadataUrl: "https://app.example/oauth/client.json" });
    expect(hits(w, "/register")).toHaveLength(0);
    expect(hits(w, "/authorize")[0]!.query.client_id).toBe("https://app.example/oauth/client.json");
    expect(hits(w, "/token")[0]!.form.client_id).toBe("https://app.example/oauth/client.json");
  });

  it("dynamic registration when the server takes no metadata documents, even with a clientMetadataUrl", async () => {
    const w = await start({ prm: "header" });
    await connect(w, { clientMetadataUrl: "https://app.example/oauth/client.json" });
    expect(hits(w, "/register")).toHaveLength(1);
  });

  it("a pre-registered confidential client, with HTTP Basic (the only method the server lists)", async () => {
    const w = await start({
      prm: "header",
      dcr: false,
      authMethods: ["client_secret_basic"],
      preRegistered: { id: "my app", secret: "s3cret:with/odd+chars", method: "client_secret_basic", redirectUri: REDIRECT_URI },
    });
    await connect(w, { client: { id: "my app", secret: "s3cret:with/odd+chars" } });
    const [token] = hits(w, "/token");
    expect(token!.status).toBe(200);
    expect(token!.authorization).toMatch(/^Basic /);
    expect(token!.form.client_secret).toBeUndefined();
  });

  it("client_secret_post when registration grants it", async () => {
    const w = await start({ prm: "header", registerAs: "client_secret_post", authMethods: ["client_secret_post"] });
    await connect(w);
    const [token] = hits(w, "/token");
    expect(token!.status).toBe(200);
    expect(token!.authorization).toBeNull();
    expect(token!.form.client_secret).toMatch(/^secret_/);
  });

  it("client_secret_basic when registration grants it", async () => {
    const w = await start({ prm: "header", registerAs: "client_secret_basic", authMethods: ["client_secret_basic", "client_secret_post"] });
    await connect(w);
    expect(hits(w, "/token")[0]!.authorization).toMatch(/^Basic /);
  });

  it("a wrong pre-registered secret: the token endpoint's refusal as AuthError reason token", async () => {
    const w = await start({
      prm: "header",
      dcr: false,
      preRegistered: { id: "app", secret: "right-secret", method: "client_secret_basic", redirectUri: REDIRECT_URI },
    });
    const err = await rejectionOf(connect(w, { client: { id: "app", secret: "wrong-secret" } }));
    expect(err).toMatchObject({ code: "auth_error", reason: "token", oauthError: "invalid_client" });
  });

  it("no registration endpoint, no metadata documents, no client: no_client, saying what to pass", async () => {
    const w = await start({ prm: "header", dcr: false });
    const err = await rejectionOf(connect(w));
    expect(err).toMatchObject({ code: "auth_error", reason: "no_client" });
    expect(err.message).toContain("oauth({ client: { id, secret } })");
    expect(hits(w, "/authorize")).toHaveLength(0);
  });
});

describe("refusals", () => {
  it("a resource metadata document for another resource: refused before any authorization request", async () => {
    const w = await start({ prm: "header", prmResource: "https://evil.example/mcp" });
    const { auth, redirects } = approvingAuth();
    const err = await rejectionOf(mcpTools({ url: w.mcpUrl, auth }));
    expect(err).toMatchObject({ code: "auth_error", reason: "resource_mismatch" });
    expect(redirects).toHaveLength(0);
    expect(hits(w, "/register")).toHaveLength(0);
  });

  it("a resource on the same origin but another path, or a partial segment of ours, is refused too", async () => {
    for (const named of ["/mcp-other", "/mc"]) {
      const w = await startWorld({ prm: "header", prmResource: (base) => base + named });
      try {
        const { auth, redirects } = approvingAuth();
        expect(await rejectionOf(mcpTools({ url: w.mcpUrl, auth }))).toMatchObject({ reason: "resource_mismatch" });
        expect(redirects).toHaveLength(0);
      } finally {
        await w.close();
      }
    }
  });

  it("authorization server metadata naming another issuer is not used", async () => {
    const w = await start({ prm: "header", metadataIssuer: "https://attacker.example" });
    const err = await rejectionOf(connect(w));
    expect(err).toMatchObject({ code: "auth_error", reason: "issuer_mismatch" });
    expect(hits(w, "/register")).toHaveLength(0);
    expect(hits(w, "/authorize")).toHaveLength(0);
  });

  it("a server without S256 in code_challenge_methods_supported (or without the field) is refused", async () => {
    const w = await start({ prm: "header", pkce: ["plain"] });
    expect(await rejectionOf(connect(w))).toMatchObject({ reason: "pkce_unsupported" });
    await w.close();
    const w2 = await start({ prm: "header", pkce: null });
    expect(await rejectionOf(connect(w2))).toMatchObject({ reason: "pkce_unsupported" });
    expect(hits(w2, "/authorize")).toHaveLength(0);
  });

  it("a token endpoint on plain http off loopback: refused before the code is sent", async () => {
    const w = await start({ prm: "header", tokenEndpoint: "http://auth.example/token" });
    const err = await rejectionOf(connect(w));
    expect(err).toMatchObject({ code: "auth_error", reason: "insecure_endpoint" });
    expect(hits(w, "/token")).toHaveLength(0);
  });

  it("a callback whose iss is another issuer, or that lacks the iss the server promised: no token request", async () => {
    const w = await start({ prm: "header", iss: "wrong" });
    expect(await rejectionOf(connect(w))).toMatchObject({ reason: "issuer_mismatch" });
    expect(hits(w, "/token")).toHaveLength(0);
    await w.close();
    const w2 = await start({ prm: "header", iss: "omit", issAdvertised: true });
    expect(await rejectionOf(connect(w2))).toMatchObject({ reason: "issuer_mismatch" });
    expect(hits(w2, "/token")).toHaveLength(0);
    await w2.close();
    const w3 = await start({ prm: "header", iss: "omit" }); // neither promised nor sent: fine
    expect((await connect(w3)).tools).toHaveLength(1);
  });

  it("the user denies: AuthError reason authorization with the server's error code", async () => {
    const w = await start({ prm: "header", deny: true });
    expect(await rejectionOf(connect(w))).toMatchObject({ code: "auth_error", reason: "authorization", oauthError: "access_denied" });
    expect(hits(w, "/token")).toHaveLength(0);
  });
});
