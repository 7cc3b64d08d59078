import { afterEach, describe, expect, it, vi } from "vitest";
import { type TavilySearchOutput, tavilySearch } from "../../adapters/tavily/index.js";
import { isToolloopError, silentLogger, type ToolContext } from "../../src/index.js";
import { type MockReply, type MockTavily, startMockTavily } from "./mock-tavily.js";

const KEY = "tvly-dev-THISISTHESECRETKEY123";

let mock: MockTavily | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

async function serve(replies?: MockReply[], apiKey = KEY): Promise<MockTavily> {
  mock = await startMockTavily({ apiKey, replies });
  return mock;
}

function ctx(signal: AbortSignal = new AbortController().signal): ToolContext {
  return { signal, callId: "call_1", logger: silentLogger };
}

async function search(options: Parameters<typeof tavilySearch>[0], args: unknown, signal?: AbortSignal): Promise<TavilySearchOutput> {
  return JSON.parse((await tavilySearch(options).call(JSON.stringify(args), ctx(signal))) as string) as TavilySearchOutput;
}

async function searchError(options: Parameters<typeof tavilySearch>[0], args: unknown): Promise<Error> {
  const err = await tavilySearch(options)
    .call(JSON.stringify(args), ctx())
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(err).toBeInstanceOf(Error);
  return err as Error;
}

describe("tavilySearch: the tool", () => {
  it("is named tavily_search with a schema whose only required field is the query", () => {
    const t = tavilySearch({ apiKey: KEY });
    expect(t.name).toBe("tavily_search");
    expect(t.parameters).toMatchObject({ type: "object", required: ["query"] });
    expect(Object.keys(t.parameters.properties as object)).toEqual(["query", "max_results", "search_depth", "topic", "time_range", "include_domains"]);
    expect((t.parameters.properties as Record<string, { description?: string }>).query!.description).toBeTruthy();
    expect(JSON.stringify(t)).not.toContain(KEY);
  });

  it("needs an apiKey", () => {
    expect(() => tavilySearch({ apiKey: "" })).toThrow(expect.objectContaining({ code: "missing_api_key" }));
  });

  it("in a browser, refuses to send the key to api.tavily.com unless allowed; a proxy baseURL is fine", () => {
    vi.stubGlobal("window", {});
    vi.stubGlobal("document", {});
    try {
      let err: unknown;
      try {
        tavilySearch({ apiKey: KEY });
      } catch (e) {
        err = e;
      }
      expect(isToolloopError(err, "browser_key")).toBe(true);
      expect(String(err)).not.toContain(KEY);
      expect(() => tavilySearch({ apiKey: KEY, dangerouslyAllowBrowser: true })).not.toThrow();
      expect(() => tavilySearch({ apiKey: KEY, baseURL: "https://my-proxy.example/tavily" })).not.toThrow();
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("POSTs to {baseURL}/search with the Bearer key and Tavily's body, and returns a compact citable result", async () => {
    const m = await serve();
    const out = await search({ apiKey: KEY, baseURL: `${m.baseURL}/` }, { query: "How tall is the Eiffel Tower?" });
    expect(m.requests).toHaveLength(1);
    const req = m.requests[0]!;
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/search");
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req.headers["content-type"]).toContain("application/json");
    expect(req.body).toEqual({
      query: "How tall is the Eiffel Tower?",
      max_results: 5,
      search_depth: "basic",
      topic: "general",
      include_answer: true,
    });
    expect(out).toEqual({
      query: "How tall is the Eiffel Tower?",
      answer: "The Eiffel Tower is 330 metres tall.",
      results: [
        {
          title: "Eiffel Tower - Wikipedia",
          url: "https://en.wikipedia.org/wiki/Eiffel_Tower",
          content: "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France. It is 330 metres tall.",
          score: 0.98,
        },
        {
          title: "Eiffel Tower facts",
          url: "https://www.toureiffel.paris/en/the-monument/key-figures",
          content: "Height: 330 m. Weight: 10,100 tonnes.",
          score: 0.87,
        },
      ],
    });
  });

  it("the factory options set the defaults; the model's arguments override them", async () => {
    const m = await serve();
    const options = { apiKey: KEY, baseURL: m.baseURL, maxResults: 3, searchDepth: "advanced" as const, topic: "news" as const, includeAnswer: false };
    const out = await search(options, { query: "eiffel tower news" });
    expect(m.requests[0]!.body).toEqual({ query: "eiffel tower news", max_results: 3, search_depth: "advanced", topic: "news", include_answer: false });
    expect(out.answer).toBeUndefined();
    await search(options, {
      query: "eiffel tower",
      max_results: 1,
      search_depth: "basic",
      topic: "general",
      time_range: "week",
      include_domains: ["wikipedia.org"],
    });
    expect(m.requests[1]!.body).toEqual({
      query: "eiffel tower",
      max_results: 1,
      search_depth: "basic",
      topic: "general",
      include_answer: false,
      time_range: "week",
      include_domains: ["wikipedia.org"],
    });
  });

  it("trims long snippets at a word boundary and drops raw page content", async () => {
    const long = "word ".repeat(400);
    const m = await serve([{ kind: "ok", results: [{ title: " Long ", url: "https://example.com/long", content: long, score: 0.5, raw_content: "RAW" }] }]);
    const out = await search({ apiKey: KEY, baseURL: m.baseURL, maxSnippetLength: 100 }, { query: "long page" });
    const r = out.results[0]!;
    expect(r.title).toBe("Long");
    expect(r.content.length).toBeLessThanOrEqual(101);
    expect(r.content.endsWith("word…")).toBe(true);
    expect(JSON.stringify(out)).not.toContain("RAW");
  });

  it("a one-character query is a real search (the API takes any non-empty query)", async () => {
    const m = await serve();
    const out = await search({ apiKey: KEY, baseURL: m.baseURL }, { query: "C" });
    expect(m.requests).toHaveLength(1);
    expect(m.requests[0]!.body).toMatchObject({ query: "C" });
    expect(out.query).toBe("C");
  });

  it("invalid arguments never reach Tavily", async () => {
    const m = await serve();
    const t = tavilySearch({ apiKey: KEY, baseURL: m.baseURL });
    for (const args of ["{}", '{"query":""}', '{"query":"ok query","max_results":50}', '{"query":"ok query","topic":"sports"}']) {
      const err = await t.call(args, ctx()).catch((e: unknown) => e);
      expect(isToolloopError(err, "failed_unmarshal_input")).toBe(true);
    }
    expect(m.requests).toHaveLength(0);
  });
});

describe("tavilySearch: HTTP failures become errors the model can read, never showing the key", () => {
  it("401: a bad key", async () => {
    const m = await serve([], "tvly-the-right-key");
    const err = await searchError({ apiKey: KEY, baseURL: m.baseURL }, { query: "anything" });
    expect(err.message).toMatch(/^Tavily rejected the API key \(401\): Unauthorized: missing or invalid API key/);
    // The mock echoed the Authorization header back; the key is scrubbed.
    expect(err.message).toContain("[redacted]");
    expect(err.message).not.toContain(KEY);
    expect(m.requests).toHaveLength(1); // never retried
  });

  it("429: retried (Retry-After honoured), then succeeds", async () => {
    const m = await serve([{ kind: "status", status: 429, detail: "Rate limit exceeded", headers: { "retry-after": "0" } }, { kind: "ok" }]);
    const out = await search({ apiKey: KEY, baseURL: m.baseURL }, { query: "eiffel tower" });
    expect(out.results).toHaveLength(2);
    expect(m.requests).toHaveLength(2);
  });

  it("429 that persists: bounded retries, then an error", async () => {
    const m = await serve([{ kind: "status", status: 429, detail: "Rate limit exceeded", headers: { "retry-after": "0" } }]);
    const err = await searchError({ apiKey: KEY, baseURL: m.baseURL }, { query: "eiffel tower" });
    expect(err.message).toBe("Tavily rate limit (429), still limited after retrying: Rate limit exceeded. Try again later.");
    expect(m.requests).toHaveLength(3); // maxRetries 2
  });

  it("429 asking to wait longer than the retry budget fails at once", async () => {
    const m = await serve([{ kind: "status", status: 429, detail: "Rate limit exceeded", headers: { "retry-after": "3600" } }]);
    const err = await searchError({ apiKey: KEY, baseURL: m.baseURL }, { query: "eiffel tower" });
    expect(err.message).toContain("429");
    expect(m.requests).toHaveLength(1);
  });

  it("5xx: retried, then an error", async () => {
    const m = await serve([{ kind: "status", status: 500, detail: "Internal Server Error", headers: { "retry-after": "0" } }]);
    const err = await searchError({ apiKey: KEY, baseURL: m.baseURL, maxRetries: 1 }, { query: "eiffel tower" });
    expect(err.message).toBe("Tavily server error (500), still failing after retrying: Internal Server Error.");
    expect(m.requests).toHaveLength(2);
  });

  it("a 503 that recovers is invisible to the model", async () => {
    const m = await serve([{ kind: "status", status: 503, detail: "Service Unavailable", headers: { "retry-after": "0" } }, { kind: "ok" }]);
    expect((await search({ apiKey: KEY, baseURL: m.baseURL }, { query: "eiffel tower" })).results).toHaveLength(2);
  });

  it("432: the plan's credits are used up (not retried)", async () => {
    const m = await serve([{ kind: "status", status: 432, detail: "This request exceeds your plan's set usage limit." }]);
    const err = await searchError({ apiKey: KEY, baseURL: m.baseURL }, { query: "eiffel tower" });
    expect(err.message).toBe("Tavily usage limit reached (432): This request exceeds your plan's set usage limit.");
    expect(m.requests).toHaveLength(1);
  });

  it("a network error", async () => {
    const m = await serve();
    const baseURL = m.baseURL;
    await m.close();
    mock = undefined;
    const err = await searchError({ apiKey: KEY, baseURL, maxRetries: 0 }, { query: "eiffel tower" });
    expect(err.message).toMatch(/^could not reach Tavily: request failed/);
    expect(err.message).not.toContain(KEY);
  });

  it("the tool's abort signal reaches fetch", async () => {
    const m = await serve([{ kind: "hang" }]);
    const controller = new AbortController();
    const reason = new Error("run aborted");
    const pending = search({ apiKey: KEY, baseURL: m.baseURL }, { query: "eiffel tower" }, controller.signal);
    while (m.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    while (m.closedEarly === 0) await new Promise((r) => setTimeout(r, 5));
    expect(m.closedEarly).toBe(1);
  });

  it("uses the fetch it is given", async () => {
    const seen: string[] = [];
    const fake: typeof fetch = async (input, init) => {
      seen.push(`${String(input)} ${new Headers(init?.headers).get("authorization")}`);
      return new Response(JSON.stringify({ query: "q", answer: null, results: [{ title: "T", url: "https://t.example", content: "c", score: 1 }] }), {
        status: 200,
        headers: { "content-type": "application/json" },
      });
    };
    const out = await search({ apiKey: KEY, fetch: fake }, { query: "custom fetch" });
    expect(seen).toEqual([`https://api.tavily.com/search Bearer ${KEY}`]);
    expect(out).toEqual({ query: "q", results: [{ title: "T", url: "https://t.example", content: "c", score: 1 }] });
  });
});
