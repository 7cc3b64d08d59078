// examples/browser: the page's tools (DOM, localStorage, calculator) run in Chromium while
// the model, a Claude mock, drives them; the answer must appear in the page. Once with the
// page pointed straight at the mock (CORS on), once through the example's own key-adding
// proxy (serve.mjs) with the page's default settings.
import { mkdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundle, launchChromium, root, tmpRoot } from "../support/runtimes.js";
import { startClaudeMock } from "../mock/claude.js";
import { startOpenAIResponsesMock } from "../mock/openai-responses.js";
import { startExampleServer } from "./helpers.js";

let site: Server;
let siteURL: string;
let browser: Awaited<ReturnType<typeof launchChromium>>;

beforeAll(async () => {
  const app = await bundle("examples/browser/app.js", { platform: "browser" });
  const html = readFileSync(join(root, "examples/browser/index.html"));
  // What a static host would serve: the page and its bundle, nothing else.
  site = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (path === "/") res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html);
    else if (path === "/app.bundle.js") res.writeHead(200, { "content-type": "text/javascript" }).end(app);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
  siteURL = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => site?.close(r));
});

/** Tool results of the last user turn of a recorded Anthropic request, as JSON text. */
function toolResults(body: { messages: { role: string; content: { type: string; content?: unknown }[] }[] }): string[] {
  return body.messages.at(-1)!.content.filter((b) => b.type === "tool_result").map((b) => JSON.stringify(b.content));
}

/** Opens the page, optionally seeds localStorage, presses Send and waits for the run to end. */
async function askOnPage(url: string, seed: Record<string, string>, body: (page: Page) => Promise<void>): Promise<void> {
  const page = await browser.context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  try {
    await page.goto(url);
    await page.waitForSelector("body[data-state=ready]");
    await page.evaluate((entries) => {
      localStorage.clear();
      for (const [k, v] of Object.entries(entries)) localStorage.setItem(k, v);
    }, seed);
    await page.click("#send");
    await page.waitForFunction(() => !["ready", "running"].includes(document.body.dataset.state ?? ""));
    const state = await page.evaluate(() => document.body.dataset.state);
    expect(state, await page.locator("#transcript").innerText()).toBe("done");
    await body(page);
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}

describe("browser example in Chromium", () => {
  it("runs the page's DOM, localStorage and calculator tools and shows the answer", async () => {
    const answer = "Your order comes to €44.20, within your budget of €50. I saved the total.";
    const mock = await startClaudeMock({
      cors: true,
      script: [
        { text: "Reading the order.", toolCalls: [{ name: "read_page_text", input: { selector: "#order" } }, { name: "storage_get", input: { key: "budget" } }] },
        { toolCalls: [{ name: "calculate", input: { expression: "2 * 12.50 + 1 * 3.20 + 2 * 8.00" } }] },
        { toolCalls: [{ name: "storage_set", input: { key: "last_total", value: "44.2" } }] },
        { text: answer },
      ],
    });
    try {
      const url = `${siteURL}/?baseURL=${encodeURIComponent(mock.url)}&model=claude-test-model`;
      await askOnPage(url, { "toolloop-demo:budget": "50" }, async (page) => {
        expect(await page.locator("#transcript .assistant.final").innerText()).toBe(answer);
        // What the tools returned came from the page itself.
        const [step1, step2, step3] = mock.requests.slice(1).map((r) => toolResults(r.body));
        expect(step1![0]).toContain("Coffee beans (1 kg)");
        expect(step1![0]).toContain("12.50");
        expect(step1![1]).toContain('\\"value\\":\\"50\\"');
        expect(step2![0]).toContain('\\"result\\":44.2');
        expect(step3![0]).toContain('\\"saved\\":\\"last_total\\"');
        expect(await page.evaluate(() => localStorage.getItem("toolloop-demo:last_total"))).toBe("44.2");
        // The model calls went to the configured base URL, with no key from the page.
        expect(mock.requests.map((r) => r.path)).toEqual(Array(4).fill("/v1/messages"));
        expect(mock.requests[0]!.headers["x-api-key"]).toBeUndefined();
        expect(mock.requests[0]!.body.model).toBe("claude-test-model");

        mkdirSync(join(tmpRoot, "examples"), { recursive: true });
        const file = join(tmpRoot, "examples", "browser-example.png");
        const png = await page.screenshot({ path: file, fullPage: true });
        // A real PNG of the page, taken while the answer is in the DOM.
        expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
        expect(png.readUInt32BE(16)).toBeGreaterThan(300); // width, from the IHDR chunk
        expect(png.length).toBeGreaterThan(10_000);
        expect(await page.locator("body").innerText()).toContain(answer);
      });
    } finally {
      await mock.close();
    }
  });

  it("switches to OpenAI with ?provider=openai", async () => {
    const mock = await startOpenAIResponsesMock({
      cors: true,
      script: [
        { toolCalls: [{ name: "query_elements", input: { selector: "td.num" } }] },
        { text: "The order lists 5 items in total." },
      ],
    });
    try {
      const url = `${siteURL}/?provider=openai&baseURL=${encodeURIComponent(mock.url)}&model=gpt-test`;
      await askOnPage(url, {}, async (page) => {
        expect(await page.locator("#transcript .assistant.final").innerText()).toBe("The order lists 5 items in total.");
        // (the mock answers only POST /v1/responses, the Responses API openai() uses by default)
        expect(mock.requests).toHaveLength(2);
        const sent = JSON.stringify(mock.requests[1]!.body);
        // query_elements read the quantity and price cells from the page's table
        expect(sent).toContain('\\"tag\\":\\"td\\"');
        expect(sent).toContain("12.50");
        expect(mock.requests[0]!.headers.authorization).toBeUndefined();
      });
    } finally {
      await mock.close();
    }
  });

  it("works through serve.mjs, whose proxy adds the key the page never sees", async () => {
    const mock = await startClaudeMock({
      apiKey: "sk-ant-server-side",
      script: [{ toolCalls: [{ name: "calculate", input: { expression: "(2 + 3) ^ 2 - 1" } }] }, { text: "That makes 24." }],
    });
    const server = await startExampleServer("examples/browser/serve.mjs", {
      PORT: "0",
      ANTHROPIC_API_KEY: "sk-ant-server-side",
      ANTHROPIC_BASE_URL: mock.url,
    });
    try {
      // No query string: the page's defaults (Claude behind /api/claude/v1) are what is tested.
      await askOnPage(server.url, {}, async (page) => {
        expect(await page.locator("#transcript .assistant.final").innerText()).toBe("That makes 24.");
        expect(toolResults(mock.requests[1]!.body)[0]).toContain('\\"result\\":24');
        expect(mock.requests.map((r) => r.path)).toEqual(["/v1/messages", "/v1/messages"]);
        expect(mock.requests[0]!.headers["x-api-key"]).toBe("sk-ant-server-side");
        expect(mock.requests[0]!.headers["anthropic-version"]).toBeTruthy();
        expect(mock.requests[0]!.headers["anthropic-dangerous-direct-browser-access"]).toBeUndefined();
        expect(await page.content()).not.toContain("sk-ant-server-side");
      });
    } finally {
      await server.stop();
      await mock.close();
    }
  });
  it("without a key, serve.mjs opens the page in offline mode: a scripted run drives the real page tools", async () => {
    const server = await startExampleServer("examples/browser/serve.mjs", { PORT: "0" });
    try {
      await askOnPage(server.url, {}, async (page) => {
        expect(new URL(page.url()).search).toBe("?provider=offline");
        expect(await page.locator("#provider").inputValue()).toBe("offline");
        const tools = await page.locator("#transcript .tool").allInnerTexts();
        expect(tools).toContain('read_page_text({"selector":"h1"})');
        expect(tools).toContain('calculate({"expression":"6*7"})');
        const answer = await page.locator("#transcript .assistant.final").innerText();
        expect(answer).toMatch(/^\(Offline, scripted\.\) The page's heading is "toolloop in the browser: .*", and 6\*7 = 42\./);
      });
    } finally {
      await server.stop();
    }
  });
});
