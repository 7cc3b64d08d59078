// examples/browser/durable.html in Chromium, against any server that keeps the durable-run HTTP
// contract of the Worker example (docs/durable-runs.md): the server is a parameter, so the same
// checks run against test/follow's contract server and against the Worker example in workerd.
// The page is served by the example's own serve.mjs, whose /chat/* forwarding (WORKER_URL) is
// how a user runs it, so the server needs no CORS.
//
// What the page shows is checked against the server's own record of the run, read by a plain
// GET /chat/:id/events after the run (no Last-Event-ID: the current or last run from its start):
// the same ids and types, each once, in order, although the stream the page read was dropped.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../support/runtimes.js";
import { requireDist, startExampleServer } from "./helpers.js";

export interface DurableAPI {
  /** Base URL of the server (POST /chat/:id, GET /chat/:id/events, ...). */
  url: string;
  /** Makes the next event stream the server answers drop after `after` of its events (a cut in the middle of the run). */
  dropNextStream(after: number): void | Promise<void>;
  /** Starts a run of `chat` with `message` from outside the page, reading none of its stream. */
  startRun?(chat: string, message: string): Promise<void>;
  close(): Promise<void>;
}

interface Shown {
  id: number;
  type: string;
}

/** The run's events as the server keeps them: GET /chat/:id/events with no Last-Event-ID, read to the end. */
export async function serverRun(api: string, chat: string): Promise<Shown[]> {
  const res = await fetch(`${api}/chat/${chat}/events`, { headers: { accept: "text/event-stream" } });
  expect(res.status).toBe(200);
  const events: Shown[] = [];
  for (const block of (await res.text()).split(/\r?\n\r?\n/)) {
    const id = /^id: ?(.*)$/m.exec(block)?.[1];
    const type = /^event: ?(.*)$/m.exec(block)?.[1];
    if (id !== undefined) events.push({ id: Number(id), type: type ?? "message" });
  }
  return events;
}

/** The events the page lists, in page order. */
async function shown(page: Page): Promise<Shown[]> {
  return page.$$eval("#events li", (lis) => lis.map((li) => ({ id: Number((li as HTMLElement).dataset.id), type: (li as HTMLElement).dataset.type! })));
}

/** Waits for one of `states`; an "error" state comes with the page's error text, so a failed expectation shows it. */
async function stateOf(page: Page, ...states: string[]): Promise<string> {
  await page.waitForFunction((s) => s.includes(document.body.dataset.state ?? ""), states, { timeout: 15_000 });
  const state = (await page.evaluate(() => document.body.dataset.state))!;
  return state === "error" ? `error: ${await page.locator("#error").innerText()}` : state;
}

export function durablePageTests(name: string, startAPI: () => Promise<DurableAPI>): void {
  describe(`examples/browser/durable.html in Chromium, ${name}`, () => {
    let api: DurableAPI;
    let site: Awaited<ReturnType<typeof startExampleServer>>;
    let browser: Awaited<ReturnType<typeof launchChromium>>;
    let chats = 0;

    beforeAll(async () => {
      requireDist();
      api = await startAPI();
      site = await startExampleServer("examples/browser/serve.mjs", { PORT: "0", WORKER_URL: api.url });
      browser = await launchChromium();
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await site?.stop();
      await api?.close();
    });

    /** Opens the page on a new conversation; `body` gets the page and the conversation id. */
    async function onPage(body: (page: Page, chat: string) => Promise<void>, options: { chat?: string; ready?: string[] } = {}): Promise<void> {
      const chat = options.chat ?? `page-${Date.now().toString(36)}-${++chats}`;
      const page = await browser.context.newPage();
      const problems: string[] = [];
      page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
      try {
        await page.goto(`${site.url}durable.html?chat=${chat}`);
        await stateOf(page, ...(options.ready ?? ["ready"]));
        await body(page, chat);
        expect(problems).toEqual([]);
      } finally {
        await page.close();
      }
    }

    async function send(page: Page, message: string): Promise<void> {
      await page.fill("#message", message);
      await page.click("#send");
    }

    it("a payment run, dropped mid-run twice: every event shown once, the approval shown, Approve pays once", async () => {
      await onPage(async (page, chat) => {
        await api.dropNextStream(3);
        await send(page, "Pay 40 EUR to Ada.");
        expect(await stateOf(page, "waiting", "error", "done")).toBe("waiting");
        const first = await serverRun(api.url, chat);
        expect(first.at(-1)).toMatchObject({ type: "finish" });
        expect(first.map((e) => e.type)).toContain("suspended");
        expect(await shown(page)).toEqual(first);
        // The page reconnected (follow()'s fetch is only called for GETs of the event stream).
        expect(Number(await page.getAttribute("#connection", "data-connections"))).toBeGreaterThanOrEqual(1);

        const approval = page.locator("#approvals li");
        await expect.poll(() => approval.count()).toBe(1);
        expect(await approval.innerText()).toContain('pay wants to run with {"amount":40,"currency":"EUR","to":"Ada"}');

        await api.dropNextStream(2);
        await approval.getByRole("button", { name: "Approve" }).click();
        expect(await stateOf(page, "done", "error")).toBe("done");
        const second = await serverRun(api.url, chat);
        expect(second[0]!.id).toBeGreaterThan(first.at(-1)!.id);
        expect(await shown(page)).toEqual([...first, ...second]);
        expect(await page.locator("#answer").innerText()).toContain("I paid 40 EUR to Ada.");
        expect(await approval.locator("button:disabled").count()).toBe(2);
        const state = (await (await fetch(`${api.url}/chat/${chat}`)).json()) as { payments: unknown[] };
        expect(state.payments).toHaveLength(1);
      });
    });

    it("Deny: the run resumes with the refusal and nothing is paid", async () => {
      await onPage(async (page, chat) => {
        await send(page, "Pay 12 EUR to Bob.");
        expect(await stateOf(page, "waiting", "error", "done")).toBe("waiting");
        await api.dropNextStream(1);
        await page.locator("#approvals li").getByRole("button", { name: "Deny" }).click();
        expect(await stateOf(page, "done", "error")).toBe("done");
        expect(await page.locator("#answer").innerText()).toContain("denied in the browser");
        const ids = (await shown(page)).map((e) => e.id);
        expect(ids).toEqual([...new Set(ids)].sort((a, b) => a - b));
        expect(((await (await fetch(`${api.url}/chat/${chat}`)).json()) as { payments: unknown[] }).payments).toEqual([]);
      });
    });

    it("a page opened while a run is in progress rejoins it from its start, across a drop", async () => {
      if (!api.startRun) return expect.fail("this server cannot start a run from outside the page (startRun)");
      const chat = `rejoin-${Date.now().toString(36)}`;
      await api.startRun(chat, "Pay 7 EUR to Cy.");
      await api.dropNextStream(2);
      await onPage(
        async (page) => {
          expect(await stateOf(page, "waiting", "error", "done")).toBe("waiting");
          expect(await shown(page)).toEqual(await serverRun(api.url, chat));
          expect(await page.locator("#approvals li").innerText()).toContain('{"amount":7,"currency":"EUR","to":"Cy"}');
        },
        { chat, ready: ["running", "waiting", "done", "error"] },
      );
    });
  });
}
