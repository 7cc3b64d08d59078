// oauth() in Chromium, from the built package (dist/): a page on its own origin reaches the
// authorization server and the MCP server across origins (CORS), keeps its tokens in
// localStorage, and sends the user to sign in through a popup (the test clicks Allow on the
// consent page inside it) or by leaving the page and coming back. A reload uses the stored
// token, an expired one is refreshed. Everything the page saw (log lines, which it also prints
// to the console, errors, history, spans, what the model read) and the console itself are
// searched for every code, verifier, token and client secret.
import { createServer, type Server } from "node:http";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundle, launchChromium } from "../../support/runtimes.js";
import { assertDistFresh } from "./dist.js";
import type { Report } from "./scenario.js";
import { startWorld, type World } from "./servers.js";

let world: World;
let site: Server;
let siteOrigin = "";
let browser: Awaited<ReturnType<typeof launchChromium>>;
let context: BrowserContext;
/** Every report and console line of every page and popup, for the leak search at the end. */
const seen: string[] = [];

const pageHtml = (mode: "popup" | "navigate") => `<!doctype html><meta charset=utf-8><title>Tickets</title>
<script id=config type=application/json>${JSON.stringify({ mcpUrl: world.mcpUrl, mode })}</script>
<button id=run>Ask about T-1</button><script type=module src=/app.js></script>`;
// Where the popup lands: hand the URL (code, state, iss) to the page that opened it.
const callbackHtml = `<!doctype html><meta charset=utf-8><title>Signed in</title>
<script>opener.postMessage({ callback: location.href }, location.origin); close();</script>`;

beforeAll(async () => {
  assertDistFresh();
  const app = await bundle("test/mcp/oauth-runtimes/page.ts", { platform: "browser", from: "dist" });
  site = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const html = (body: string) => res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(body);
    if (path === "/popup.html") html(pageHtml("popup"));
    else if (path === "/app.html") html(pageHtml("navigate"));
    else if (path === "/callback.html") html(callbackHtml);
    else if (path === "/app.js") res.writeHead(200, { "content-type": "text/javascript" }).end(app);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
  siteOrigin = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  // Anyone can read a page's script: registration here still hands out a secret (client_secret_post),
  // so that the search below has a client secret to look for in a browser too.
  world = await startWorld({ origins: [siteOrigin], authMethods: ["client_secret_post"] });
  browser = await launchChromium();
  context = browser.context;
  context.on("page", watch);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await world?.close();
  if (site) await new Promise((r) => site.close(r));
});

const problems: string[] = [];
function watch(page: Page): void {
  page.on("console", (m) => seen.push(m.text()));
  page.on("pageerror", (e) => problems.push(`${page.url()}: ${e.message}`));
}

async function open(path: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${siteOrigin}${path}`);
  await page.waitForSelector("body[data-state=ready]");
  return page;
}

/** What the page's app saw so far (kept for the leak search). */
async function reportOf(page: Page): Promise<Report> {
  const report = (await page.evaluate(() => (globalThis as { report?: unknown }).report)) as Report;
  seen.push(JSON.stringify(report));
  return report;
}

async function ask(page: Page): Promise<Report> {
  await page.click("#run");
  await page.waitForFunction(() => ["done", "failed"].includes(document.body.dataset.state ?? ""));
  return reportOf(page);
}

function expectAnswered(report: Report): void {
  expect(report.errors).toEqual([]);
  expect(report.names).toEqual(["ticket_status", "whoami"]);
  expect(report.answer).toBe("T-1 is open and assigned to Ada.");
  expect(report.history).toContain("Ticket T-1: open, assigned to Ada.");
  expect(report.history).toContain('signed in with \\"Bearer [redacted]\\"');
}

describe("oauth() in Chromium with localStorage", () => {
  it("popup: the user says no on the consent page; the page gets access_denied", async () => {
    const page = await open("/popup.html");
    const [popup] = await Promise.all([context.waitForEvent("page"), page.click("#run")]);
    await popup.waitForSelector("#deny");
    await popup.click("#deny");
    await page.waitForFunction(() => document.body.dataset.state === "failed");
    const report = await reportOf(page);
    expect(report.failures).toEqual(["auth_error/authorization"]);
    expect(report.errors.join("\n")).toContain("access_denied");
    await page.close();
  });

  it("popup: the user allows; the page calls the MCP tools across origins", async () => {
    const page = await open("/popup.html");
    const [popup] = await Promise.all([context.waitForEvent("page"), page.click("#run")]);
    await popup.waitForSelector("#allow");
    expect(await popup.locator("#client").innerText()).toBe("Tickets page");
    await Promise.all([popup.waitForEvent("close"), popup.click("#allow")]);
    await page.waitForFunction(() => ["done", "failed"].includes(document.body.dataset.state ?? ""));
    const report = await reportOf(page);
    expectAnswered(report);
    expect(world.grants.authorization_code).toBe(1);
    expect(world.consents).toBe(2);
    // One registration, reused for the second sign-in.
    expect(world.seen.filter((s) => s === "as POST /register 201")).toHaveLength(1);
    await page.close();
  });

  it("a reload uses the token in localStorage; an expired one is refreshed; no popup", async () => {
    const page = await open("/popup.html");
    let popups = 0;
    context.on("page", () => popups++);
    const before = world.seen.length;
    expectAnswered(await ask(page));
    expect(world.seen.slice(before).filter((s) => s.startsWith("as "))).toEqual([]);

    world.expireAccessTokens();
    await page.reload();
    await page.waitForSelector("body[data-state=ready]");
    const report = await ask(page);
    expectAnswered(report);
    expect(world.grants).toEqual({ authorization_code: 1, refresh_token: 1 });
    expect(report.logs.join("\n")).toContain("mcp oauth: token refreshed");
    expect(popups).toBe(0);
    expect(world.consents).toBe(2);
    // The tokens and the secret are in localStorage, where the search below would find them.
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }));
    expect(
      world
        .secrets()
        .filter((s) => stored.includes(s))
        .map((s) => s.slice(0, 3)),
    ).toEqual(expect.arrayContaining(["at_", "rt_", "sec"]));
    await page.close();
  });

  it("two tabs on one localStorage whose token expired: one refresh wins, the other tab uses its tokens, no popup", async () => {
    const tabs = [await open("/popup.html"), await open("/popup.html")];
    let popups = 0;
    context.on("page", () => popups++);
    world.expireAccessTokens();
    const refreshes = world.grants.refresh_token;
    const reports = await Promise.all(tabs.map((tab) => ask(tab)));
    for (const report of reports) expectAnswered(report);
    expect(world.grants.refresh_token).toBeGreaterThan(refreshes);
    expect(popups).toBe(0);
    expect(world.consents).toBe(2);
    for (const tab of tabs) await tab.close();
  });

  it("navigate: the page leaves for the consent page and finishes the flow when the user comes back", async () => {
    const page = await open("/app.html");
    await Promise.all([page.waitForURL(`${world.issuer}/authorize?**`), page.click("#run")]);
    await Promise.all([page.waitForURL(`${siteOrigin}/app.html?**`), page.click("#allow")]);
    await page.waitForSelector("body[data-state=ready]");
    expect(page.url()).toBe(`${siteOrigin}/app.html`); // the code left the address bar
    const back = await reportOf(page);
    expect(back.errors).toEqual([]);
    expect(back.logs.join("\n")).toContain("mcp oauth: authorized");
    expectAnswered(await ask(page));
    expect(world.grants.authorization_code).toBe(2);
    expect(world.consents).toBe(3);
    await page.close();
  });

  it("no PKCE verifier, code, token or client secret in any log line, console message, error, history, span or model request", () => {
    const secrets = world.secrets();
    expect(secrets.filter((s) => s.startsWith("code_")).length).toBeGreaterThanOrEqual(2);
    expect(secrets.filter((s) => s.startsWith("rt_")).length).toBeGreaterThanOrEqual(3);
    expect(secrets.some((s) => s.startsWith("secret_"))).toBe(true);
    const reports = seen.filter((s) => s.startsWith('{"logs"')).map((s) => JSON.parse(s) as Report);
    expect(reports.flatMap((r) => r.spans).length).toBeGreaterThan(3);
    expect(reports.flatMap((r) => r.errors).length).toBeGreaterThan(2);
    expect(seen.filter((s) => s.includes("mcp oauth:")).length).toBeGreaterThan(5);
    const all = seen.join("\n");
    for (const s of secrets) expect(all.includes(s), `a secret (${s.slice(0, 8)}...) reached the page's app`).toBe(false);
    expect(problems).toEqual([]);
  });
});
