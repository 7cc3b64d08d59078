// examples/browser: the page's tools (DOM, localStorage, calculator, a canvas chart) run in
// Chromium while the model, a Claude or OpenAI mock, drives them; the answer must appear in the
// page. Once with the page pointed straight at the mock (CORS on), once through the example's
// own key-adding proxy (serve.mjs) with the page's default settings. The chart's PNG must reach
// the mock as the provider's own image block, and the ask_user external tool must suspend the
// run until a click in the page resumes it.
import { mkdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startClaudeMock } from "../mock/claude.js";
import { startOpenAIResponsesMock } from "../mock/openai-responses.js";
import { bundle, launchChromium, root, tmpRoot } from "../support/runtimes.js";
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
  return body.messages
    .at(-1)!
    .content.filter((b) => b.type === "tool_result")
    .map((b) => JSON.stringify(b.content));
}

/** Waits until the page is no longer running a turn; resolves with its state (done, waiting, error). */
async function settled(page: Page): Promise<string> {
  await page.waitForFunction(() => !["ready", "running"].includes(document.body.dataset.state ?? ""));
  return (await page.evaluate(() => document.body.dataset.state))!;
}

/** A PNG's width and height, from its IHDR chunk (after checking the signature). */
function pngSize(base64: string): { width: number; height: number } {
  const png = Buffer.from(base64, "base64");
  expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/** Opens the page, optionally seeds localStorage, presses Send and waits for the run to end. */
async function askOnPage(
  url: string,
  seed: Record<string, string>,
  body: (page: Page) => Promise<void>,
  options: { message?: string; state?: string } = {},
): Promise<void> {
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
    if (options.message !== undefined) await page.fill("#message", options.message);
    await page.click("#send");
    const state = await settled(page);
    expect(state, await page.locator("#transcript").innerText()).toBe(options.state ?? "done");
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
        {
          text: "Reading the order.",
          toolCalls: [
            { name: "read_page_text", input: { selector: "#order" } },
            { name: "storage_get", input: { key: "budget" } },
          ],
        },
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
      script: [{ toolCalls: [{ name: "query_elements", input: { selector: "td.num" } }] }, { text: "The order lists 5 items in total." }],
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

  it("draw_chart returns the canvas as a PNG: Claude gets an image block in tool_result, the page shows it", async () => {
    const bars = [
      { label: "Coffee beans", value: 25 },
      { label: "Filters", value: 3.2 },
      { label: "Mugs", value: 16 },
    ];
    const mock = await startClaudeMock({
      cors: true,
      script: [
        { text: "Drawing it.", toolCalls: [{ id: "toolu_chart", name: "draw_chart", input: { title: "Order by line", bars } }] },
        { text: "Coffee beans are most of the order." },
      ],
    });
    try {
      const url = `${siteURL}/?baseURL=${encodeURIComponent(mock.url)}&model=claude-test-model`;
      await askOnPage(
        url,
        {},
        async (page) => {
          expect(await page.locator("#transcript .assistant.final").innerText()).toBe("Coffee beans are most of the order.");
          // The mock checks what the real API checks (media type listed, base64, bytes match the type), so a 200 means it took it.
          expect(mock.requests).toHaveLength(2);
          const [result] = mock.requests[1]!.body.messages.at(-1).content.filter((b: { type: string }) => b.type === "tool_result");
          expect(result.tool_use_id).toBe("toolu_chart");
          expect(result.is_error).not.toBe(true);
          expect(result.content[0]).toEqual({
            type: "text",
            text: expect.stringMatching(/^Bar chart "Order by line" \(480x260 px\): Coffee beans 25, Filters 3\.2, Mugs 16/),
          });
          const image = result.content.find((b: { type: string }) => b.type === "image");
          expect(image.source).toMatchObject({ type: "base64", media_type: "image/png" });
          expect(pngSize(image.source.data)).toEqual({ width: 480, height: 260 });

          // The conversation shows the very image the model got, and the canvas is on the page.
          const img = page.locator("#transcript .image img");
          await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBe(480);
          expect(await img.getAttribute("src")).toBe(`data:image/png;base64,${image.source.data}`);
          expect(await page.locator("#chart").isVisible()).toBe(true);
          // Something was drawn: the bars' blue is in the PNG's pixels, read back from the canvas.
          const blue = await page.evaluate(() => {
            const c = document.querySelector<HTMLCanvasElement>("#chart")!;
            const d = c.getContext("2d")!.getImageData(0, 0, c.width, c.height).data;
            let n = 0;
            for (let i = 0; i < d.length; i += 4) if (d[i] === 0x3b && d[i + 1] === 0x6f && d[i + 2] === 0xd8) n++;
            return n;
          });
          expect(blue).toBeGreaterThan(1000);
        },
        { message: "Show me a chart of my order." },
      );
    } finally {
      await mock.close();
    }
  });

  it("with OpenAI the chart goes back as an input_image in the function_call_output array", async () => {
    const mock = await startOpenAIResponsesMock({
      cors: true,
      script: [
        {
          toolCalls: [
            {
              name: "draw_chart",
              input: {
                title: "Two bars",
                bars: [
                  { label: "a", value: 1 },
                  { label: "b", value: 2 },
                ],
              },
            },
          ],
        },
        { text: "b is twice a." },
      ],
    });
    try {
      const url = `${siteURL}/?provider=openai&baseURL=${encodeURIComponent(mock.url)}&model=gpt-test`;
      await askOnPage(
        url,
        {},
        async (page) => {
          expect(await page.locator("#transcript .assistant.final").innerText()).toBe("b is twice a.");
          expect(mock.requests).toHaveLength(2);
          const body = mock.requests[1]!.body as { input: any[] };
          const output = body.input.find((i: { type: string }) => i.type === "function_call_output").output;
          expect(output[0]).toMatchObject({ type: "input_text", text: expect.stringContaining('Bar chart "Two bars"') });
          const image = output.find((p: { type: string }) => p.type === "input_image");
          expect(image.image_url).toMatch(/^data:image\/png;base64,/);
          expect(pngSize(image.image_url.slice("data:image/png;base64,".length))).toEqual({ width: 480, height: 260 });
          expect(await page.locator("#transcript .image img").getAttribute("src")).toBe(image.image_url);
        },
        { message: "Chart a=1, b=2." },
      );
    } finally {
      await mock.close();
    }
  });

  it("ask_user is answered by the page: the run suspends, a click resumes it with { callId, output }", async () => {
    const mock = await startClaudeMock({
      cors: true,
      script: [
        {
          text: "One question first.",
          toolCalls: [{ id: "toolu_ask", name: "ask_user", input: { question: "When should we deliver?", options: ["Tuesday morning", "Friday afternoon"] } }],
        },
        { text: "Booked for Friday afternoon." },
      ],
    });
    try {
      const url = `${siteURL}/?baseURL=${encodeURIComponent(mock.url)}&model=claude-test-model`;
      await askOnPage(
        url,
        {},
        async (page) => {
          // Suspended: the question is on the page and nothing more was sent to the model.
          const question = page.locator("#transcript .question");
          expect(await question.innerText()).toContain("When should we deliver?");
          expect(await question.locator("button").allInnerTexts()).toEqual(["Tuesday morning", "Friday afternoon"]);
          expect(mock.requests).toHaveLength(1);
          expect(mock.requests[0]!.body.tools.map((t: { name: string }) => t.name)).toContain("ask_user");
          await page.waitForTimeout(200);
          expect(mock.requests).toHaveLength(1);

          await question.getByRole("button", { name: "Friday afternoon" }).click();
          expect(await settled(page)).toBe("done");
          expect(await page.locator("#transcript .assistant.final").innerText()).toBe("Booked for Friday afternoon.");
          expect(await question.locator("button:disabled").count()).toBe(2);
          expect(mock.requests).toHaveLength(2);
          const [result] = mock.requests[1]!.body.messages.at(-1).content.filter((b: { type: string }) => b.type === "tool_result");
          expect(result).toMatchObject({ tool_use_id: "toolu_ask" });
          expect(result.is_error).not.toBe(true);
          expect(JSON.stringify(result.content)).toContain("Friday afternoon");
          expect(await page.locator("#transcript .tool").allInnerTexts()).toContain("→ Friday afternoon");
        },
        { message: "Please deliver my order.", state: "waiting" },
      );
    } finally {
      await mock.close();
    }
  });

  it("offline, the chart and the question work too (no model, no key)", async () => {
    const offline = `${siteURL}/?provider=offline`;
    await askOnPage(
      offline,
      {},
      async (page) => {
        const answer = await page.locator("#transcript .assistant.final").innerText();
        expect(answer).toBe(
          '(Offline, scripted.) Bar chart "Your order by line (EUR)" (480x260 px): Coffee beans (1 kg) 25, Paper filters 3.2, Enamel mug 16. The model got it as a image/png image.',
        );
        const src = await page.locator("#transcript .image img").getAttribute("src");
        expect(pngSize(src!.slice("data:image/png;base64,".length))).toEqual({ width: 480, height: 260 });
      },
      { message: "Draw a chart of my order." },
    );
    await askOnPage(
      offline,
      {},
      async (page) => {
        await page.locator("#transcript .question").getByRole("button", { name: "Tuesday morning" }).click();
        expect(await settled(page)).toBe("done");
        expect(await page.locator("#transcript .assistant.final").innerText()).toBe("(Offline, scripted.) Delivery is booked for Tuesday morning.");
      },
      { message: "When can you deliver?", state: "waiting" },
    );
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
