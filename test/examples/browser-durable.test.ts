// The durable-run page of examples/browser in Chromium, against test/follow's contract server
// (the Worker example's HTTP contract, with scripted runs and drops on demand). The checks live
// in durable-page.ts, whose server is a parameter: the Worker example in workerd runs them too.
// Here, where the server records what it received, also: the page's reconnection asked for
// exactly what followed the last event it showed, and a page on another origin (CORS, so
// Last-Event-ID goes through a preflight) follows the run straight from the server.

import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ContractServer, paymentScript, startContractServer } from "../follow/contract-server.js";
import { bundle, launchChromium, root } from "../support/runtimes.js";
import { durablePageTests, serverRun } from "./durable-page.js";

/** The contract server as durable-page.ts takes it: 40 ms an event, 300 ms in a run a page joins while it goes on. */
async function contractAPI(): Promise<ContractServer & { dropNextStream(after: number): void; startRun(chat: string, message: string): Promise<void> }> {
  const s = await startContractServer({ script: paymentScript(), tick: (chat) => (chat.startsWith("rejoin") ? 300 : 40) });
  return Object.assign(s, {
    dropNextStream: (after: number) => void s.drops.push({ at: "mid-event", after }),
    startRun: async (chat: string, message: string) => {
      const res = await fetch(`${s.url}/chat/${chat}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ message }) });
      expect(res.status).toBe(200);
      await res.body!.cancel(); // the run goes on without a reader
    },
  });
}

durablePageTests("against test/follow's contract server (through serve.mjs)", contractAPI);

describe("examples/browser/durable.html in Chromium, what the contract server saw", () => {
  let api: Awaited<ReturnType<typeof contractAPI>>;
  let site: Server;
  let siteURL: string;
  let browser: Awaited<ReturnType<typeof launchChromium>>;

  beforeAll(async () => {
    api = await contractAPI();
    // The page straight from the sources, on its own origin: a static host, nothing forwarded.
    const js = await bundle("examples/browser/durable.js", { platform: "browser" });
    const html = readFileSync(join(root, "examples/browser/durable.html"));
    site = createServer((req, res) => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      if (path === "/durable.html") res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html);
      else if (path === "/durable.bundle.js") res.writeHead(200, { "content-type": "text/javascript" }).end(js);
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
    siteURL = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
    browser = await launchChromium({ webSecurity: true }); // CORS enforced, as in a user's browser
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => site?.close(r));
    await api?.close();
  });

  it("from another origin (?api=): the reconnection sends Last-Event-ID of the last event shown, mid-event and reset drops alike", async () => {
    const page = await browser.context.newPage();
    try {
      const chat = "cors";
      await page.goto(`${siteURL}/durable.html?chat=${chat}&api=${encodeURIComponent(api.url)}`);
      await page.waitForSelector("body[data-state=ready]");
      api.drops.push({ at: "mid-event", after: 2 }, { at: "reset", after: 3 });
      await page.fill("#message", "Pay 5 EUR to Di.");
      await page.click("#send");
      await page.waitForFunction(() => document.body.dataset.state === "waiting", undefined, { timeout: 15_000 });
      const log = api.log(chat);
      const ids = await page.$$eval("#events li", (lis) => lis.map((li) => Number((li as HTMLElement).dataset.id)));
      expect(ids).toEqual(log.map((e) => e.id));
      expect(await serverRun(api.url, chat)).toEqual(log.map(({ id, type }) => ({ id, type })));
      const streams = api.streams.filter((r) => r.path.startsWith(`/chat/${chat}`));
      const gets = streams.slice(1, -1); // after the POST; the last is serverRun's own read, above
      expect(streams[0]).toMatchObject({ method: "POST", lastEventId: undefined });
      expect(streams.at(-1)).toMatchObject({ method: "GET", lastEventId: undefined });
      // Each reconnection asked for what follows an event the page showed: after the cut in the
      // third event, the second event's id; after the reset, a later one (how much of a burst
      // a browser hands on before the connection's end is its own business).
      const asked = gets.map((r) => Number(r.lastEventId));
      expect(gets.map((r) => r.method)).toEqual(["GET", "GET"]);
      expect(asked[0], `${asked}`).toBe(log[1]!.id);
      expect(asked[1], `${asked}`).toBeGreaterThan(asked[0]!);
      expect(ids, `${asked}`).toContain(asked[1]);
      // Chromium sent what follow() set: Accept, and Last-Event-ID once a CORS preflight allowed it.
      expect(streams[1]!.headers).toMatchObject({ accept: "text/event-stream", "sec-fetch-mode": "cors" });
      expect(api.preflights).toContainEqual({ path: `/chat/${chat}/events`, headers: "last-event-id" });
      expect(await page.locator("#connection").getAttribute("data-connections")).toBe("2");
    } finally {
      await page.close();
    }
  });

  it("a recovery event takes back the text of the step it continues (restart: the reply is asked for again)", async () => {
    const page = await browser.context.newPage();
    try {
      await page.goto(`${siteURL}/durable.html?chat=crash&api=${encodeURIComponent(api.url)}`);
      await page.waitForSelector("body[data-state=ready]");
      api.drops.push({ at: "mid-event", after: 4 });
      await page.fill("#message", "What happens after a crash?");
      await page.click("#send");
      await page.waitForFunction(() => document.body.dataset.state === "done", undefined, { timeout: 15_000 });
      expect(await page.locator("#answer").innerText()).toBe("Checking. The answer is 42.");
      const types = await page.$$eval("#events li", (lis) => lis.map((li) => (li as HTMLElement).dataset.type));
      expect(types).toEqual(api.log("crash").map((e) => e.type));
      expect(types).toContain("recovery");
    } finally {
      await page.close();
    }
  });
});
