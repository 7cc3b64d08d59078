// tavily_search inside a full agent loop: the (scripted) model calls the tool, reads its
// output from the history the loop sends back, and answers citing a url.
import { afterEach, describe, expect, it } from "vitest";
import { type TavilySearchOutput, tavilySearch } from "../../adapters/tavily/index.js";
import { createClient, webSearch } from "../../src/index.js";
import type { StreamEvent } from "../../src/loop/index.js";
import { type RecordedRequest, scriptedProvider } from "../../src/testing.js";
import { type MockTavily, startMockTavily } from "./mock-tavily.js";

const KEY = "tvly-prod-AGENTLOOPSECRET987";

let mock: MockTavily | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

/** The last tool result the loop sent to the model. */
function lastToolResult(req: RecordedRequest) {
  const msg = [...req.messages].reverse().find((m) => m.role === "tool");
  if (msg?.role !== "tool") throw new Error("no tool result in the request");
  return msg.results[0]!;
}

/** A model that answers from the search output, citing the top result's url. */
function citeTopResult(req: RecordedRequest): string {
  const result = lastToolResult(req);
  if (result.isError) return `I could not search the web: ${JSON.parse(result.output).error}`;
  const out = JSON.parse(result.output) as TavilySearchOutput;
  const top = out.results[0]!;
  return `${out.answer ?? top.content} [Source: ${top.url}]`;
}

describe("tavily_search in the agent loop", () => {
  it("the model searches, and the final answer cites a url from the results", async () => {
    mock = await startMockTavily({ apiKey: KEY });
    const provider = scriptedProvider([{ toolCalls: [{ name: "tavily_search", arguments: { query: "Eiffel Tower height" } }] }, citeTopResult]);
    const client = createClient({ provider, tools: [tavilySearch({ apiKey: KEY, baseURL: mock.baseURL })] });
    const answer = await client.chat("How tall is the Eiffel Tower? Cite your source.");
    expect(answer).toBe("The Eiffel Tower is 330 metres tall. [Source: https://en.wikipedia.org/wiki/Eiffel_Tower]");
    expect(mock.requests[0]!.body.query).toBe("Eiffel Tower height");
    // The model was offered the tool as a function with its schema.
    expect(provider.requests[0]!.tools.map((t) => t.name)).toEqual(["tavily_search"]);
    const h = client.history;
    expect(h[2]).toMatchObject({ role: "tool", results: [{ name: "tavily_search", isError: false }] });
    expect(client.lastRun).toMatchObject({ steps: 2, toolCalls: 1, toolFailures: 0 });
  });

  it("sits next to the reserved web_search: one is a function, the other the provider's native search", async () => {
    mock = await startMockTavily({ apiKey: KEY });
    const provider = scriptedProvider(["fine"]);
    const client = createClient({ provider, tools: [tavilySearch({ apiKey: KEY, baseURL: mock.baseURL }), webSearch()] });
    await client.chat("hi");
    expect(provider.requests[0]!.tools.map((t) => t.name)).toEqual(["tavily_search"]);
    expect(provider.requests[0]!.webSearch).toBe(true);
  });

  it("a 401 becomes a tool error result in history, not a crashed run, and the key never shows", async () => {
    mock = await startMockTavily({ apiKey: "tvly-some-other-key" });
    const provider = scriptedProvider([{ toolCalls: [{ name: "tavily_search", arguments: { query: "Eiffel Tower height" } }] }, citeTopResult]);
    const client = createClient({ provider, tools: [tavilySearch({ apiKey: KEY, baseURL: mock.baseURL })] });
    const events: StreamEvent[] = [];
    for await (const e of client.stream("How tall is the Eiffel Tower?")) events.push(e);
    const result = client.history[2];
    expect(result).toMatchObject({ role: "tool", results: [{ name: "tavily_search", isError: true }] });
    const output = (result as { results: { output: string }[] }).results[0]!.output;
    expect(JSON.parse(output).error).toMatch(/^Tavily rejected the API key \(401\)/);
    expect(events.find((e) => e.type === "tool-result")).toMatchObject({ isError: true, outcome: "error" });
    const final = events.at(-1);
    expect(final).toMatchObject({ type: "finish", toolFailures: 1 });
    expect((final as { text: string }).text).toMatch(/^I could not search the web: Tavily rejected the API key/);
    // Nowhere: not in the history, not in what the model was sent, not in the events.
    expect(JSON.stringify(client.history)).not.toContain(KEY);
    expect(JSON.stringify(provider.requests)).not.toContain(KEY);
    expect(JSON.stringify(events)).not.toContain(KEY);
  });
});
