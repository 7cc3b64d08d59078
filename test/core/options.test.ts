// Plain JavaScript lets any key through: `claude({ baseUrl })` used to send to the vendor
// instead of the proxy, `maxStep` and `systemprompt` used to vanish. Every factory and
// createClient now refuse an unknown key with InvalidOptionsError naming the key it most
// likely meant (issue 24, newcomer 2).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { claude } from "../../adapters/claude/index.js";
import { claudeLocal } from "../../adapters/claude-local/index.js";
import { gemini } from "../../adapters/gemini/index.js";
import { mcpHandler, mcpTools } from "../../adapters/mcp/index.js";
import { openai, openaiChat, openaiCompatible } from "../../adapters/openai/index.js";
import { tavilySearch } from "../../adapters/tavily/index.js";
import { type Client, compaction, createClient, externalTool, InvalidOptionsError, isToolloopError, jsonTool, suspension, tool } from "../../src/index.js";
import { scriptedProvider } from "../../src/testing.js";

/** Options as plain JavaScript passes them: the compiler would refuse a misspelt key. */
const js = (options: Record<string, unknown>): never => options as never;

const KEY = { apiKey: "sk-test-0123456789", model: "test-model" };
const input = v.object({ city: v.string() });
const run = () => "ok";
const client = (): Client => createClient({ provider: scriptedProvider(["fine"]) });

/** [what is called, the misspelt key, the key it should suggest, the call]. */
const CASES: [string, string, string, () => unknown][] = [
  ["claude()", "baseUrl", "baseURL", () => claude(js({ ...KEY, baseUrl: "http://127.0.0.1:1/v1" }))],
  ["claude()", "max_tokens", "maxTokens", () => claude(js({ ...KEY, max_tokens: 100 }))],
  ["openai()", "maxOutputToken", "maxOutputTokens", () => openai(js({ ...KEY, maxOutputToken: 100 }))],
  ["openai() reasoning", "efort", "effort", () => openai(js({ ...KEY, reasoning: { efort: "low" } }))],
  ["openaiChat()", "Temperature", "temperature", () => openaiChat(js({ ...KEY, Temperature: 0 }))],
  ["openaiChat() reasoning", "effrot", "effort", () => openaiChat(js({ ...KEY, reasoning: { effrot: "low" } }))],
  ["openaiCompatible()", "baseUrl", "baseURL", () => openaiCompatible(js({ model: "m", baseUrl: "http://127.0.0.1:1/v1" }))],
  ["openaiCompatible() compat", "vison", "vision", () => openaiCompatible(js({ model: "m", baseURL: "http://127.0.0.1:1/v1", compat: { vison: true } }))],
  ["gemini()", "apikey", "apiKey", () => gemini(js({ model: "m", apikey: "k" }))],
  ["gemini() thinking", "includeThought", "includeThoughts", () => gemini(js({ ...KEY, thinking: { includeThought: true } }))],
  ["claude() thinking", "budgetToken", "budgetTokens", () => claude(js({ ...KEY, thinking: { budgetToken: 2048 } }))],
  ["claudeLocal()", "comand", "command", () => claudeLocal(js({ comand: "claude" }))],
  ["tavilySearch()", "maxResult", "maxResults", () => tavilySearch(js({ apiKey: "tvly-test", maxResult: 3 }))],
  ["mcpTools()", "header", "headers", () => mcpTools(js({ url: "http://127.0.0.1:1/mcp", header: { authorization: "Bearer t" } }))],
  ["mcpHandler()", "allowedOrigin", "allowedOrigins", () => mcpHandler(js({ name: "s", version: "1", tools: [], allowedOrigin: ["https://a.example"] }))],
  ["suspension()", "secrte", "secret", () => suspension(js({ secrte: "a-secret-of-at-least-32-characters!!" }))],
  ["compaction()", "keeprecent", "keepRecent", () => compaction(js({ maxInputTokens: 1000, keeprecent: 2 }))],
  ["pricing", "cacheReads", "cacheRead", () => createClient({ provider: scriptedProvider([]), pricing: js({ input: 1, output: 2, cacheReads: 0.1 }) })],
  ["tool()", "timout", "timeout", () => tool(js({ name: "t", description: "A tool.", input, run, timout: 100 }))],
  [
    "jsonTool()",
    "needApproval",
    "needsApproval",
    () => jsonTool(js({ name: "t", description: "A tool.", parameters: { type: "object" }, run, needApproval: true })),
  ],
  ["externalTool()", "inputs", "input", () => externalTool(js({ name: "t", description: "A tool.", inputs: input }))],
  ["createClient()", "systemprompt", "systemPrompt", () => createClient(js({ provider: scriptedProvider([]), systemprompt: "Be brief." }))],
  ["createClient()", "maxStep", "maxSteps", () => createClient(js({ provider: scriptedProvider([]), maxStep: 3 }))],
  ["chat()", "maxStep", "maxSteps", () => client().chat("hi", js({ maxStep: 3 }))],
  ["run()", "sigal", "signal", () => client().run("hi", js({ sigal: new AbortController().signal }))],
  ["resume()", "sytem", "system", () => client().resume([], js({ sytem: "x" }))],
  ["ask()", "signl", "signal", () => client().ask("hi", v.string(), js({ signl: new AbortController().signal }))],
  [
    "stream()",
    "toolchoice",
    "toolChoice",
    () =>
      client()
        .stream("hi", js({ toolchoice: "none" }))
        [Symbol.asyncIterator]()
        .next(),
  ],
];

/** What the call threw or rejected with (a stream's error comes from its first next()). */
async function failure(call: () => unknown): Promise<unknown> {
  try {
    await call();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe("an unknown option is refused, with the key it most likely meant", () => {
  it.each(CASES)("%s: `%s` → did you mean `%s`?", async (what, key, suggestion, call) => {
    const err = await failure(call);
    expect(err).toBeInstanceOf(InvalidOptionsError);
    expect(isToolloopError(err, "invalid_options")).toBe(true);
    expect((err as Error).name).toBe("InvalidOptionsError");
    expect((err as Error).message).toContain(`unknown option \`${key}\`; did you mean \`${suggestion}\`?`);
    // Named where it was written, except the call options, which every run method shares.
    if (!/^(chat|run|resume|ask|stream)\(\)$/.test(what)) expect((err as Error).message.startsWith(`${what}: `)).toBe(true);
  });

  it("a case-insensitive match wins over a closer-looking one (topk is topK, not topP)", () => {
    expect(() => claude(js({ ...KEY, topk: 5 }))).toThrow("did you mean `topK`?");
  });

  it("without a key within two edits, the error lists the options there are", () => {
    expect(() => claude(js({ ...KEY, proxy: "http://127.0.0.1:1" }))).toThrow(/unknown option `proxy` \(it takes apiKey, model, baseURL, .*, cache\)$/);
    expect(() => createClient(js({ provider: scriptedProvider([]), maxStepCount: 3 }))).toThrow(/unknown option `maxStepCount` \(it takes provider, /);
  });

  it("an unknown key is refused even when it is undefined (a misspelt key reading an unset variable would fail only once the variable is set)", () => {
    expect(() => claude(js({ ...KEY, baseUrl: undefined }))).toThrow(InvalidOptionsError);
  });

  it("every known option takes an explicit undefined, as the README promises", async () => {
    const u = undefined;
    expect(() =>
      claude({
        ...KEY,
        baseURL: u,
        fetch: u,
        headers: u,
        maxRetries: u,
        idleTimeout: u,
        dangerouslyAllowBrowser: u,
        maxTokens: u,
        temperature: u,
        topP: u,
        topK: u,
        stopSequences: u,
        thinking: u,
        anthropicVersion: u,
        structuredOutput: u,
        cache: u,
      }),
    ).not.toThrow();
    expect(() =>
      openai({ ...KEY, api: u, reasoning: u, store: u, parallelToolCalls: u, strict: u, organization: u, project: u, promptCacheKey: u }),
    ).not.toThrow();
    expect(() => openaiCompatible({ model: "m", baseURL: "http://127.0.0.1:1/v1", name: u, compat: u, reasoning: u })).not.toThrow();
    expect(() => gemini({ ...KEY, thinking: u, topK: u })).not.toThrow();
    const c = createClient({
      provider: scriptedProvider(["fine"]),
      systemPrompt: u,
      maxSteps: u,
      parallelTools: u,
      maxParallelTools: u,
      logger: u,
      tools: u,
      history: u,
      maxRetries: u,
      idleTimeout: u,
      maxToolOutput: u,
      finalAnswerOnMaxSteps: u,
      pricing: u,
      compaction: u,
      tracer: u,
      suspension: u,
      toolChoice: u,
      prepareStep: u,
      onStepFinish: u,
      stopWhen: u,
    });
    expect(await c.chat("hi", { signal: u, maxSteps: u, toolChoice: u, system: u, decisions: u })).toBe("fine");
    expect(() => tool({ name: "t", description: "A tool.", input, run, timeout: u, needsApproval: u })).not.toThrow();
  });
});

describe("claude({ baseUrl }) over real HTTP", () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((r) => server?.close(r));
    server = undefined;
  });

  it("throws before any request: neither the proxy nor the vendor is reached", async () => {
    // The proxy the caller meant, a real HTTP server answering like the Messages API.
    const proxied: string[] = [];
    server = createServer((req, res) => {
      proxied.push(req.url ?? "");
      req.resume().on("end", () => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            id: "msg_1",
            type: "message",
            role: "assistant",
            model: "m",
            content: [{ type: "text", text: "via proxy" }],
            stop_reason: "end_turn",
            usage: { input_tokens: 1, output_tokens: 1 },
          }),
        );
      });
    });
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
    const proxy = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    // Every request goes through here: the proxy's pass on, anything else (the vendor) is recorded and stopped.
    const sent: string[] = [];
    const fetchVia = (url: string | URL | Request, init?: RequestInit) => {
      const u = String(url instanceof Request ? url.url : url);
      sent.push(u);
      return u.startsWith(proxy) ? fetch(url, init) : Promise.resolve(new Response("not the proxy", { status: 599 }));
    };

    // The control: spelt right, the request reaches the proxy.
    const ok = createClient({ provider: claude({ ...KEY, baseURL: proxy, fetch: fetchVia, maxRetries: 0 }) });
    expect(await ok.chat("hi")).toBe("via proxy");
    expect(proxied).toEqual(["/v1/messages"]);
    sent.length = 0;
    proxied.length = 0;

    // Misspelt: refused where the provider is made, so nothing is sent anywhere.
    const err = await failure(async () => {
      const c = createClient({ provider: claude(js({ ...KEY, baseUrl: proxy, fetch: fetchVia, maxRetries: 0 })) });
      await c.chat("hi");
    });
    expect(sent).toEqual([]);
    expect(proxied).toEqual([]);
    expect(isToolloopError(err, "invalid_options")).toBe(true);
    expect((err as Error).message).toBe("claude(): unknown option `baseUrl`; did you mean `baseURL`?");
  });
});
