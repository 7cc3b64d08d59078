// oauth() in workerd (Miniflare, no nodejs_compat): a Worker whose Durable Object keeps the
// tokens in its storage and whose callback route finishes the flow. The test is the user: it
// follows the Worker's redirect to the authorization server, approves on the consent page and
// comes back to the Worker's callback. Then workerd is killed and started again over the same
// storage: the stored token is used without a new authorization, an expired one is refreshed,
// and only a revoked grant sends the user back to the authorization server. Everything the
// Worker saw (logs, errors, history, spans, what the model read) is searched for every secret.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import type { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundle, root, tmpRoot } from "../../support/runtimes.js";
import type { Report } from "./scenario.js";
import { approve, startWorld, type World } from "./servers.js";

process.env.TMPDIR = tmpRoot; // Miniflare's scratch folders stay in the repo

let world: World;
let script: string;
let mf: Miniflare | undefined;
let origin = "";
const persist = (() => {
  mkdirSync(join(tmpRoot, "oauth-runtimes"), { recursive: true });
  return mkdtempSync(join(tmpRoot, "oauth-runtimes", "do-"));
})();
/** Every report the Worker sent back, for the leak search at the end. */
const reports: Report[] = [];

/** A port free now: the Worker keeps it across restarts, since its callback URL is registered. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Starts workerd (again): same name, class, port and persist folder. */
async function start(): Promise<void> {
  const { Miniflare } = await import("miniflare");
  const port = Number(new URL(origin).port);
  mf = new Miniflare({
    name: "oauth-runtimes",
    modules: true,
    script,
    compatibilityDate: "2025-09-01",
    compatibilityFlags: [],
    bindings: { ORIGIN: origin, MCP_URL: world.mcpUrl },
    durableObjects: { SESSIONS: { className: "Session", useSQLite: true } },
    durableObjectsPersist: persist,
    host: "127.0.0.1",
    port,
  });
  await mf.ready;
}

/** A crash: workerd is SIGKILLed (TOOLCHAIN.md), then started over the same storage. */
async function restart(): Promise<void> {
  await mf?.dispose();
  mf = undefined;
  await start();
}

/** GET a Worker route as a browser would, without following redirects; the report it returns. */
async function visit(url: string): Promise<{ status: number; location: string | null; report: Report }> {
  const res = await fetch(url.startsWith("http") ? url : `${origin}${url}`, { redirect: "manual" });
  const report = (await res.json()) as Report;
  reports.push(report);
  return { status: res.status, location: res.headers.get("location"), report };
}

beforeAll(async () => {
  // A Worker is a confidential client: registration gives it a secret, sent as HTTP Basic.
  world = await startWorld({ authMethods: ["client_secret_basic"] });
  origin = `http://127.0.0.1:${await freePort()}`;
  script = await bundle("test/mcp/oauth-runtimes/fixtures/worker.ts", {
    platform: "neutral",
    external: ["cloudflare:workers"],
    alias: { "toolloop/cloudflare": join(root, "adapters/cloudflare/index.ts") },
  });
  expect(script).not.toMatch(/from\s*["']node:/);
  await start();
}, 60_000);

afterAll(async () => {
  await mf?.dispose();
  await world?.close();
  rmSync(persist, { recursive: true, force: true });
});

describe("oauth() in workerd with Durable Object storage and a callback route", () => {
  let callback = "";

  it("sends the user to the authorization server; the callback route finishes the flow; the agent uses the tools", async () => {
    const first = await visit("/run");
    expect(first.status).toBe(302);
    expect(first.report.failures).toEqual(["auth_error/pending"]);
    const authorizeUrl = new URL(first.location!);
    expect(authorizeUrl.origin + authorizeUrl.pathname).toBe(`${world.issuer}/authorize`);
    expect(authorizeUrl.searchParams.get("redirect_uri")).toBe(`${origin}/callback`);
    expect(authorizeUrl.searchParams.get("resource")).toBe(world.mcpUrl);
    expect(authorizeUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(first.report.logs.join("\n")).toContain("mcp oauth: authorization needed");

    callback = await approve(authorizeUrl);
    expect(callback.startsWith(`${origin}/callback?`)).toBe(true);
    const back = await visit(callback);
    expect(back.report.errors).toEqual([]);
    expect(back.status).toBe(200);
    expect(world.grants.authorization_code).toBe(1);

    const run = await visit("/run");
    expect(run.report.errors).toEqual([]);
    expect(run.status).toBe(200);
    expect(run.report.names).toEqual(["ticket_status", "whoami"]);
    expect(run.report.answer).toBe("T-1 is open and assigned to Ada.");
    expect(run.report.history).toContain("Ticket T-1: open, assigned to Ada.");
    // The server quoted the bearer token; the tool result the model read has it scrubbed.
    expect(run.report.history).toContain('signed in with \\"Bearer [redacted]\\"');
    expect(run.report.spans.some((s) => s.includes('"execute_tool whoami"'))).toBe(true);
    expect(world.consents).toBe(1);
  });

  it("a callback used twice is refused without reaching the token endpoint", async () => {
    const before = world.seen.length;
    const again = await visit(callback);
    expect(again.status).toBe(400);
    expect(again.report.failures).toEqual(["auth_error/authorization"]);
    expect(world.seen.slice(before)).toEqual([]);
  });

  it("after workerd is killed and started again, the stored token is used: no new authorization", async () => {
    await restart();
    const before = world.seen.length;
    const run = await visit("/run");
    expect(run.report.errors).toEqual([]);
    expect(run.report.answer).toBe("T-1 is open and assigned to Ada.");
    const seen = world.seen.slice(before);
    expect(seen.filter((s) => s.startsWith("as "))).toEqual([]);
    expect(seen.filter((s) => s.endsWith(" 401"))).toEqual([]);
    expect(world.consents).toBe(1);
    // The tokens are where they belong, the Durable Object's storage (the leak search below would find them).
    const stored = JSON.stringify(await (await fetch(`${origin}/stored`)).json());
    expect(
      world
        .secrets()
        .filter((s) => stored.includes(s))
        .map((s) => s.slice(0, 3)),
    ).toEqual(expect.arrayContaining(["at_", "rt_", "sec"]));
  });

  it("a token the authorization server expired is refreshed with the stored refresh token, after another restart", async () => {
    world.expireAccessTokens();
    await restart();
    const before = world.seen.length;
    const run = await visit("/run");
    expect(run.report.errors).toEqual([]);
    expect(run.report.answer).toBe("T-1 is open and assigned to Ada.");
    expect(world.seen.slice(before)).toEqual(expect.arrayContaining(["rs POST /mcp 401", "as POST /token 200", "rs POST /mcp 200"]));
    expect(world.grants).toEqual({ authorization_code: 1, refresh_token: 1 });
    expect(run.report.logs.join("\n")).toContain("mcp oauth: token refreshed");
    expect(world.consents).toBe(1);
  });

  it("two requests at once after the token expired: one refresh wins, the other uses its tokens, no one is sent to sign in", async () => {
    world.expireAccessTokens();
    const before = world.seen.length;
    const runs = await Promise.all([visit("/run"), visit("/run")]);
    for (const run of runs) {
      expect(run.report.errors).toEqual([]);
      expect(run.report.answer).toBe("T-1 is open and assigned to Ada.");
    }
    const tokenCalls = world.seen.slice(before).filter((s) => s.startsWith("as POST /token"));
    expect(tokenCalls).toContain("as POST /token 200");
    expect(world.grants.refresh_token).toBe(2);
    expect(world.consents).toBe(1);
  });

  it("a revoked grant: the refresh is refused (the server quotes the refresh token and the secret), the user is sent to authorize again", async () => {
    world.revokeEverything();
    const run = await visit("/run");
    expect(run.status).toBe(302);
    expect(run.report.failures).toEqual(["auth_error/pending"]);
    expect(run.report.logs.join("\n")).toContain("mcp oauth: refresh refused, authorizing again");
    expect(world.seen).toContain("as POST /token 400");
    // A code altered on the way back: the token endpoint refuses it, quoting the code, the
    // verifier and the form it got; the Worker's error must carry none of them.
    const back = new URL(await approve(run.location!));
    back.searchParams.set("code", `${back.searchParams.get("code")}-altered`);
    const refused = await visit(back.href);
    expect(refused.status).toBe(400);
    expect(refused.report.failures).toEqual(["auth_error/token"]);
    expect(refused.report.errors.join("\n")).toContain("[redacted]");
    expect(world.consents).toBe(2);
  });

  it("no PKCE verifier, code, token or client secret is in any log line, error, history, span or model request", async () => {
    const secrets = world.secrets();
    // What there is to find: a code per consent, the verifiers the token endpoint got, the
    // client secret, the tokens (two sets), the Basic credential.
    expect(secrets.filter((s) => s.startsWith("code_")).length).toBeGreaterThanOrEqual(2);
    expect(secrets.filter((s) => s.startsWith("rt_")).length).toBeGreaterThanOrEqual(2);
    expect(secrets.some((s) => s.startsWith("secret_"))).toBe(true);
    const seen = reports.map((r) => JSON.stringify(r)).join("\n");
    expect(reports.flatMap((r) => r.logs).length).toBeGreaterThan(5);
    expect(reports.flatMap((r) => r.errors).length).toBeGreaterThan(5);
    expect(reports.filter((r) => r.history).length).toBe(5);
    expect(reports.flatMap((r) => r.spans).length).toBeGreaterThan(3);
    for (const s of secrets) expect(seen.includes(s), `a secret (${s.slice(0, 8)}...) reached the app`).toBe(false);
  });
});
