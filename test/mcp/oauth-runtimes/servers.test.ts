// The local authorization server refuses what a real one refuses, so the runtime suites' passes
// mean something: raw requests (no toolloop client) with one thing wrong each time.
import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorld, type World } from "./servers.js";

let world: World;
const REDIRECT = "http://127.0.0.1:9/back";
beforeAll(async () => {
  world = await startWorld({ authMethods: ["client_secret_basic", "client_secret_post"], origins: ["http://127.0.0.1:1"] });
});
afterAll(() => world?.close());

async function register(method: "client_secret_basic" | "client_secret_post") {
  const res = await fetch(`${world.issuer}/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: method, client_name: "raw" }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { client_id: string; client_secret: string };
}

/** Goes through the consent page with `params` changed; resolves with the callback's query. */
async function authorize(clientId: string, change: Record<string, string | null> = {}) {
  const verifier = randomBytes(32).toString("base64url");
  const q: Record<string, string | null> = {
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    state: "s1",
    resource: world.mcpUrl,
    scope: world.scope,
    ...change,
  };
  const url = new URL(`${world.issuer}/authorize`);
  for (const [k, v] of Object.entries(q)) if (v !== null) url.searchParams.set(k, v);
  const page = await fetch(url, { redirect: "manual" });
  if (page.status !== 200) return { verifier, status: page.status, back: new URL(page.headers.get("location") ?? "http://x/").searchParams };
  const ask = /name=ask value="([^"]+)"/.exec(await page.text())![1]!;
  const res = await fetch(`${world.issuer}/consent`, { method: "POST", body: new URLSearchParams({ ask, decision: "allow" }), redirect: "manual" });
  return { verifier, status: res.status, back: new URL(res.headers.get("location")!).searchParams };
}

async function token(form: Record<string, string>, basic?: string) {
  const res = await fetch(`${world.issuer}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...(basic ? { authorization: `Basic ${Buffer.from(basic).toString("base64")}` } : {}) },
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

describe("the local authorization server", () => {
  it("issues tokens for a correct exchange, and refuses the same code twice (revoking what it gave)", async () => {
    const c = await register("client_secret_post");
    const { verifier, back } = await authorize(c.client_id);
    const form = { grant_type: "authorization_code", code: back.get("code")!, code_verifier: verifier, redirect_uri: REDIRECT, resource: world.mcpUrl };
    const auth = { client_id: c.client_id, client_secret: c.client_secret };
    const ok = await token({ ...form, ...auth });
    expect(ok.status).toBe(200);
    expect(back.get("iss")).toBe(world.issuer);
    const again = await token({ ...form, ...auth });
    expect(again.body.error).toBe("invalid_grant");
    const mcp = await fetch(world.mcpUrl, {
      method: "POST",
      headers: { authorization: `Bearer ${ok.body.access_token}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(mcp.status).toBe(401); // revoked by the replay
  });

  it("refuses a wrong verifier, a missing or different resource, and a different redirect_uri", async () => {
    const c = await register("client_secret_post");
    const auth = { client_id: c.client_id, client_secret: c.client_secret };
    for (const [wrong, error] of [
      [{ code_verifier: randomBytes(32).toString("base64url") }, "invalid_grant"],
      [{ resource: `${world.mcpUrl}/other` }, "invalid_target"],
      [{ resource: "" }, "invalid_target"],
      [{ redirect_uri: "http://127.0.0.1:9/elsewhere" }, "invalid_grant"],
    ] as const) {
      const { verifier, back } = await authorize(c.client_id);
      const form = {
        grant_type: "authorization_code",
        code: back.get("code")!,
        code_verifier: verifier,
        redirect_uri: REDIRECT,
        resource: world.mcpUrl,
        ...auth,
      };
      expect((await token({ ...form, ...wrong })).body.error, JSON.stringify(wrong)).toBe(error);
    }
  });

  it("takes client authentication only as registered", async () => {
    const basic = await register("client_secret_basic");
    const { verifier, back } = await authorize(basic.client_id);
    const form = { grant_type: "authorization_code", code: back.get("code")!, code_verifier: verifier, redirect_uri: REDIRECT, resource: world.mcpUrl };
    expect((await token({ ...form, client_id: basic.client_id, client_secret: basic.client_secret })).body.error).toBe("invalid_client");
    expect((await token(form, `${basic.client_id}:wrong`)).body.error).toBe("invalid_client");
    expect((await token({ ...form, client_id: basic.client_id })).body.error).toBe("invalid_client");
    expect((await token({ ...form, client_secret: basic.client_secret }, `${basic.client_id}:${basic.client_secret}`)).body.error).toBe("invalid_request");
    expect((await token(form, `${basic.client_id}:${basic.client_secret}`)).status).toBe(200);
  });

  it("refuses at the authorization endpoint: an unknown client or redirect URI with a page, no PKCE or a wrong resource with a redirect", async () => {
    const c = await register("client_secret_post");
    expect((await authorize("nobody")).status).toBe(400);
    expect((await authorize(c.client_id, { redirect_uri: "http://127.0.0.1:9/elsewhere" })).status).toBe(400);
    expect((await authorize(c.client_id, { code_challenge_method: "plain" })).back.get("error")).toBe("invalid_request");
    expect((await authorize(c.client_id, { code_challenge: null })).back.get("error")).toBe("invalid_request");
    expect((await authorize(c.client_id, { resource: null })).back.get("error")).toBe("invalid_target");
    expect((await authorize(c.client_id, { resource: "https://evil.example/mcp" })).back.get("error")).toBe("invalid_target");
  });

  it("rotates refresh tokens (each works once) and checks their resource", async () => {
    const c = await register("client_secret_post");
    const auth = { client_id: c.client_id, client_secret: c.client_secret };
    const { verifier, back } = await authorize(c.client_id);
    const first = await token({
      grant_type: "authorization_code",
      code: back.get("code")!,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      resource: world.mcpUrl,
      ...auth,
    });
    const rt = first.body.refresh_token!;
    expect((await token({ grant_type: "refresh_token", refresh_token: rt, ...auth })).body.error).toBe("invalid_target");
    expect((await token({ grant_type: "refresh_token", refresh_token: rt, resource: world.mcpUrl, ...auth })).status).toBe(200);
    expect((await token({ grant_type: "refresh_token", refresh_token: rt, resource: world.mcpUrl, ...auth })).body.error).toBe("invalid_grant");
  });

  it("answers CORS only for the pages' origins; the MCP server challenges with resource_metadata", async () => {
    const meta = "/.well-known/oauth-authorization-server";
    expect((await fetch(`${world.issuer}${meta}`, { headers: { origin: "http://127.0.0.1:1" } })).headers.get("access-control-allow-origin")).toBe(
      "http://127.0.0.1:1",
    );
    expect((await fetch(`${world.issuer}${meta}`, { headers: { origin: "http://127.0.0.1:2" } })).headers.get("access-control-allow-origin")).toBeNull();
    const res = await fetch(world.mcpUrl, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${new URL("/.well-known/oauth-protected-resource/mcp", world.mcpUrl).href}", scope="${world.scope}"`,
    );
  });
});
