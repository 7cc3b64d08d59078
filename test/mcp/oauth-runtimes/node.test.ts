// oauth() in Node from the built package (dist/), against the same servers as the workerd and
// Chromium suites: the redirect step is a function (the test is the user on the consent
// page). A second oauth() over the same store (the process started again) uses the stored
// token, an expired one is refreshed, a revoked grant asks again, and a code altered on the
// way back is refused by the token endpoint, which quotes what it got. Everything the app saw
// is searched for every secret.
import { memoryStore } from "toolloop";
import { oauth } from "toolloop/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertDistFresh } from "./dist.js";
import { type Report, recorder, useTickets } from "./scenario.js";
import { approve, startWorld, type World } from "./servers.js";

let world: World;
const store = memoryStore();
const reports: Report[] = [];

beforeAll(async () => {
  assertDistFresh();
  // A server-side app: a confidential client (client_secret_post here; the Worker uses Basic).
  world = await startWorld({ authMethods: ["client_secret_post"] });
});
afterAll(() => world?.close());

/** One run of the app, as a process that starts with `store` would make it. */
async function run(redirect: (url: URL) => Promise<string> = approve): Promise<Report> {
  const rec = recorder();
  const auth = oauth({ redirectUri: "http://127.0.0.1:9/callback", redirect, store, clientName: "Tickets CLI", logger: rec.logger });
  await useTickets(auth, world.mcpUrl, rec);
  reports.push(rec.report);
  return rec.report;
}

describe("oauth() in Node with a store that outlives the process", () => {
  it("authorizes through the consent page and runs the agent", async () => {
    const report = await run();
    expect(report.errors).toEqual([]);
    expect(report.answer).toBe("T-1 is open and assigned to Ada.");
    expect(report.history).toContain('signed in with \\"Bearer [redacted]\\"');
    expect(world.consents).toBe(1);
    expect(world.grants.authorization_code).toBe(1);
  });

  it("the next process uses the stored token; an expired one is refreshed", async () => {
    const before = world.seen.length;
    expect((await run()).errors).toEqual([]);
    expect(world.seen.slice(before).filter((s) => s.startsWith("as "))).toEqual([]);
    world.expireAccessTokens();
    const report = await run();
    expect(report.errors).toEqual([]);
    expect(world.grants).toEqual({ authorization_code: 1, refresh_token: 1 });
    expect(world.consents).toBe(1);
  });

  it("a revoked grant asks again; an altered code is refused and the error carries no secret", async () => {
    world.revokeEverything();
    const altered = await run(async (url) => {
      const back = new URL(await approve(url));
      back.searchParams.set("code", `${back.searchParams.get("code")}-altered`);
      return back.href;
    });
    expect(altered.failures).toEqual(["auth_error/token"]);
    expect(altered.errors.join("\n")).toContain("unknown code (got");
    expect(altered.errors.join("\n")).toContain("[redacted]");
    expect(altered.logs.join("\n")).toContain("refresh refused, authorizing again");
    const again = await run();
    expect(again.errors).toEqual([]);
    expect(world.consents).toBe(3);
  });

  it("no PKCE verifier, code, token or client secret in any log line, error, history, span or model request", async () => {
    const secrets = world.secrets();
    expect(secrets.filter((s) => s.startsWith("code_")).length).toBe(4); // three issued, one altered
    expect(secrets.some((s) => s.startsWith("secret_"))).toBe(true);
    const stored = JSON.stringify(await store.get(`mcp-oauth:tokens:${world.mcpUrl}`));
    expect(secrets.filter((s) => stored.includes(s)).map((s) => s.slice(0, 3))).toEqual(expect.arrayContaining(["at_", "rt_"]));
    const all = JSON.stringify(reports);
    expect(reports.flatMap((r) => r.spans).length).toBeGreaterThan(3);
    for (const s of secrets) expect(all.includes(s), `a secret (${s.slice(0, 8)}...) reached the app`).toBe(false);
  });
});
