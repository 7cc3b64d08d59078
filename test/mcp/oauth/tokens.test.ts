// oauth() after the first token: refresh (on a 401 and before expiry), a refused refresh falling
// back to a new authorization, step-up with the scope union and its limit, one authorization for
// requests that meet a challenge together, flows finished by complete() from the callback URL
// (used once), and stores that outlive the oauth() object (memory, Web Storage).
import { afterEach, describe, expect, it } from "vitest";
import { mcpTools, oauth, webStorageStore } from "../../../adapters/mcp/index.js";
import { memoryStore } from "../../../src/index.js";
import { approvingAuth, connect, ctx, hits, rejectionOf } from "./helpers.js";
import { followRedirect, REDIRECT_URI, startWorld, type World, type WorldOptions } from "./world.js";

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});
const start = async (o: WorldOptions = {}) => (world = await startWorld(o));

describe("refresh", () => {
  it("a revoked access token: refreshed with the refresh token (resource sent), no second authorization", async () => {
    const w = await start({ prm: "header" });
    const { tools, redirects } = await connect(w);
    w.tokens.clear(); // the server forgets every access token
    expect(await tools[0]!.call('{"text":"again"}', ctx())).toBe('echo {"text":"again"}');
    expect(redirects).toHaveLength(1);
    const refreshes = hits(w, "/token").filter((e) => e.form.grant_type === "refresh_token");
    expect(refreshes).toHaveLength(1);
    expect(refreshes[0]!.status).toBe(200);
    expect(refreshes[0]!.form.resource).toBe(w.mcpUrl);
  });

  it("a token about to expire is refreshed before it is sent (no 401 first)", async () => {
    const w = await start({ prm: "header", tokenLifetime: 1 }); // within the 30 s margin at once
    const { tools } = await connect(w);
    const before = hits(w, "/mcp").filter((e) => e.status === 401).length;
    await tools[0]!.call("{}", ctx());
    expect(hits(w, "/token").filter((e) => e.form.grant_type === "refresh_token").length).toBeGreaterThanOrEqual(1);
    expect(hits(w, "/mcp").filter((e) => e.status === 401).length).toBe(before);
  });

  it("the rotated refresh token is the one used next (the old one is refused by the server)", async () => {
    const w = await start({ prm: "header" });
    const { tools, redirects } = await connect(w);
    for (let i = 0; i < 3; i++) {
      w.tokens.clear();
      await tools[0]!.call("{}", ctx());
    }
    const refreshes = hits(w, "/token").filter((e) => e.form.grant_type === "refresh_token");
    expect(refreshes.map((e) => e.status)).toEqual([200, 200, 200]);
    expect(new Set(refreshes.map((e) => e.form.refresh_token)).size).toBe(3);
    expect(redirects).toHaveLength(1);
  });

  it("a refused refresh token: authorizes again through the redirect step", async () => {
    const w = await start({ prm: "header" });
    const { tools, redirects } = await connect(w);
    w.tokens.clear();
    w.refreshTokens.clear();
    expect(await tools[0]!.call("{}", ctx())).toBe("echo {}");
    expect(redirects).toHaveLength(2);
    expect(hits(w, "/token").map((e) => `${e.form.grant_type} ${e.status}`)).toEqual(["authorization_code 200", "refresh_token 400", "authorization_code 200"]);
  });

  it("a token the server refuses right after it was issued: the 401 is reported, not looped on", async () => {
    const w = await start({ prm: "header" });
    const { auth } = approvingAuth();
    // The server forgets every access token before each request reaches it.
    const forgetful: typeof fetch = async (input, init) => {
      w.tokens.clear();
      return fetch(input, init);
    };
    const err = await rejectionOf(mcpTools({ url: w.mcpUrl, auth, fetch: forgetful }));
    expect(err).toMatchObject({ code: "provider_error", status: 401 });
    expect(hits(w, "/authorize")).toHaveLength(1);
  });
});

describe("the authorization server moves (SEP-2352)", () => {
  it("a new issuer in the metadata: registers there, never shows it the old client or refresh token", async () => {
    const target = { url: "" };
    const as2 = await startWorld({ prm: "header", prmResource: () => target.url });
    let moved = false;
    try {
      const w = await start({ prm: "header", authorizationServer: () => (moved ? as2.issuer : undefined), trust: () => (moved ? as2.tokens : undefined) });
      target.url = w.mcpUrl;
      const { tools, redirects } = await connect(w);
      const oldClient = hits(w, "/register").length === 1 ? [...w.clients.keys()][0]! : "";
      moved = true;
      w.tokens.clear(); // the old server's tokens are no longer accepted
      expect(await tools[0]!.call("{}", ctx())).toBe("echo {}");
      expect(redirects).toHaveLength(2);
      expect(hits(as2, "/register")).toHaveLength(1);
      expect(hits(as2, "/token").map((e) => e.form.grant_type)).toEqual(["authorization_code"]); // no refresh token from the old server
      expect(as2.log.some((e) => e.query.client_id === oldClient || e.form.client_id === oldClient)).toBe(false);
      expect(hits(w, "/token").filter((e) => e.form.grant_type === "refresh_token")).toHaveLength(0);
    } finally {
      await as2.close();
    }
  });
});

describe("step-up", () => {
  it("403 insufficient_scope: asks for the union of the scope asked before and the scope challenged, then the call goes through", async () => {
    const w = await start({ prm: "header", challengeScope: "read", methodScopes: { "tools/call": ["write"] } });
    const { tools, redirects } = await connect(w);
    expect(await tools[0]!.call("{}", ctx())).toBe("echo {}");
    expect(redirects).toHaveLength(2);
    expect(hits(w, "/authorize").map((e) => e.query.scope)).toEqual(["read", "read write"]);
    // The step-up reuses the registered client.
    expect(hits(w, "/register")).toHaveLength(1);
  });

  it("stops after maxStepUps when the user never grants the scope: AuthError insufficient_scope", async () => {
    const w = await start({
      prm: "header",
      challengeScope: "read",
      methodScopes: { "tools/call": ["admin"] },
      grant: (asked) => asked.filter((s) => s !== "admin"),
    });
    const { tools, redirects } = await connect(w, { maxStepUps: 3 });
    const err = await rejectionOf(tools[0]!.call("{}", ctx()));
    expect(err).toMatchObject({ code: "auth_error", reason: "insufficient_scope" });
    expect(err.message).toContain("after 3 step-up(s)");
    expect(redirects).toHaveLength(1 + 3);
    expect(hits(w, "/mcp").filter((e) => e.status === 403)).toHaveLength(4);
  });

  it("maxStepUps: 0 never steps up", async () => {
    const w = await start({ prm: "header", methodScopes: { "tools/call": ["write"] } });
    const { tools, redirects } = await connect(w, { maxStepUps: 0 });
    expect(await rejectionOf(tools[0]!.call("{}", ctx()))).toMatchObject({ reason: "insufficient_scope" });
    expect(redirects).toHaveLength(1);
  });

  it("a 403 for a scope the token already has: no pointless authorization", async () => {
    const w = await start({ prm: "header", challengeScope: "admin", alwaysInsufficient: "admin" });
    const { tools, redirects } = await connect(w);
    const err = await rejectionOf(tools[0]!.call("{}", ctx()));
    expect(err).toMatchObject({ code: "auth_error", reason: "insufficient_scope" });
    expect(err.message).toContain("already has");
    expect(redirects).toHaveLength(1);
  });
});

describe("concurrency", () => {
  it("requests that meet a 401 together share one refresh", async () => {
    const w = await start({ prm: "header" });
    const { tools } = await connect(w);
    w.tokens.clear();
    const results = await Promise.all([1, 2, 3, 4, 5].map((i) => tools[0]!.call(`{"text":"${i}"}`, ctx())));
    expect(results).toHaveLength(5);
    expect(hits(w, "/token").filter((e) => e.form.grant_type === "refresh_token")).toHaveLength(1);
  });

  it("two flows in flight on one store keep their own verifiers (each callback finishes its own)", async () => {
    const w = await start({ prm: "header" });
    const store = memoryStore();
    const pending: URL[] = [];
    const auth = oauth({ redirectUri: REDIRECT_URI, store, redirect: async (url) => void pending.push(url) });
    // Two servers' worth of flows: two mcpTools on the same oauth, each ending "pending".
    const a = await rejectionOf(mcpTools({ url: w.mcpUrl, auth }));
    const b = await rejectionOf(mcpTools({ url: w.mcpUrl, auth }));
    expect([a.reason, b.reason]).toEqual(["pending", "pending"]);
    expect(a.authorizationUrl).toBe(pending[0]!.href);
    // Finished in the other order: each callback is matched to its own flow by its state.
    await auth.complete(await followRedirect(pending[1]!));
    await auth.complete(await followRedirect(pending[0]!));
    expect(hits(w, "/token").map((e) => e.status)).toEqual([200, 200]);
  });
});

describe("complete() and the store", () => {
  it("a redirect that leaves the page: pending, then complete(callback) in a later load, then connected without a new flow", async () => {
    const w = await start({ prm: "header" });
    const storage = new Map<string, string>();
    const page = {
      getItem: (k: string) => storage.get(k) ?? null,
      setItem: (k: string, v: string) => void storage.set(k, v),
      removeItem: (k: string) => void storage.delete(k),
    };
    let sent: URL | undefined;
    const first = oauth({ redirectUri: REDIRECT_URI, store: webStorageStore(page), redirect: async (url) => void (sent = url) });
    const err = await rejectionOf(mcpTools({ url: w.mcpUrl, auth: first }));
    expect(err).toMatchObject({ code: "auth_error", reason: "pending" });
    // The PKCE verifier waits in the page's storage under the flow's state.
    expect([...storage.keys()].some((k) => k.startsWith("toolloop:mcp-oauth:flow:"))).toBe(true);
    // "Next page load": a new oauth() on the same storage finishes from the callback URL.
    const callback = await followRedirect(sent!);
    const redirects: URL[] = [];
    const second = oauth({ redirectUri: REDIRECT_URI, store: webStorageStore(page), redirect: async (url) => void redirects.push(url) });
    await second.complete(callback);
    const tools = await mcpTools({ url: w.mcpUrl, auth: second });
    expect(await tools[0]!.call("{}", ctx())).toBe("echo {}");
    expect(redirects).toHaveLength(0);
    expect([...storage.keys()].some((k) => k.includes(":flow:"))).toBe(false); // used, so gone
    // The same callback again finds no flow: a replay is refused before any token request.
    const tokenRequests = hits(w, "/token").length;
    expect(await rejectionOf(second.complete(callback))).toMatchObject({ reason: "authorization" });
    expect(hits(w, "/token")).toHaveLength(tokenRequests);
  });

  it("a callback whose state no flow started, or with no state, is refused", async () => {
    const w = await start({ prm: "header" });
    const auth = oauth({ redirectUri: REDIRECT_URI, redirect: async () => undefined });
    expect(await rejectionOf(auth.complete(`${REDIRECT_URI}?code=abc&state=forged`))).toMatchObject({ reason: "authorization" });
    expect(await rejectionOf(auth.complete(`${REDIRECT_URI}?code=abc`))).toMatchObject({ reason: "authorization" });
    expect(hits(w, "/token")).toHaveLength(0);
  });

  it("an in-place redirect that comes back with another flow's state is refused", async () => {
    const w = await start({ prm: "header" });
    const store = memoryStore();
    let first: URL | undefined;
    const leaving = oauth({ redirectUri: REDIRECT_URI, store, redirect: async (url) => void (first = url) });
    await rejectionOf(mcpTools({ url: w.mcpUrl, auth: leaving }));
    const stale = await followRedirect(first!);
    // A second flow's redirect step answers with the first flow's callback.
    const confused = oauth({ redirectUri: REDIRECT_URI, store, redirect: async () => stale });
    expect(await rejectionOf(mcpTools({ url: w.mcpUrl, auth: confused }))).toMatchObject({ reason: "authorization" });
    expect(hits(w, "/token")).toHaveLength(0);
  });

  it("forget(url) signs out: the next connection authorizes again", async () => {
    const w = await start({ prm: "header" });
    const { auth, redirects, tools } = await connect(w);
    await tools.close();
    await auth.forget(w.mcpUrl);
    await mcpTools({ url: w.mcpUrl, auth });
    expect(redirects).toHaveLength(2);
  });

  it("webStorageStore keeps JSON under its prefix and refuses what is not a Storage", async () => {
    const storage = new Map<string, string>();
    const store = webStorageStore(
      { getItem: (k) => storage.get(k) ?? null, setItem: (k, v) => void storage.set(k, v), removeItem: (k) => void storage.delete(k) },
      "p:",
    );
    await store.put("a", { x: [1, "two"] });
    expect(storage.get("p:a")).toBe('{"x":[1,"two"]}');
    expect(await store.get("a")).toEqual({ x: [1, "two"] });
    expect(await store.get("missing")).toBeUndefined();
    await store.delete("a");
    expect(storage.size).toBe(0);
    await expect(store.put("f", () => 1)).rejects.toThrow(/not JSON/);
    expect(() => webStorageStore({} as never)).toThrow(/localStorage or sessionStorage/);
  });
});
