// The whole way round: a scripted model calls remote MCP tools through createClient's loop.
// The remote is the official SDK's McpServer, then our own mcpHandler (both directions of
// toolloop/mcp talking to each other).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { mcpHandler, mcpTools } from "../../adapters/mcp/index.js";
import { createClient, type ToolMessage } from "../../src/index.js";
import { scriptedProvider } from "../../src/testing.js";
import { explode, getWeather, rawCalls, rawEcho } from "./fixtures/tools.js";
import { type SdkServer, serveHandler, startSdkServer } from "./helpers.js";

describe("agent loop with tools from the SDK's McpServer", () => {
  let peer: SdkServer;
  const received: { tool: string; args: unknown }[] = [];
  beforeAll(async () => {
    peer = await startSdkServer((server) => {
      server.registerTool("get_weather", { description: "Weather for a city.", inputSchema: { city: z.string() } }, async (args) => {
        received.push({ tool: "get_weather", args });
        return { content: [{ type: "text", text: `${args.city}: 21°C, sunny` }] };
      });
      server.registerTool("calendar.add", { description: "Adds an event.", inputSchema: { title: z.string() } }, async (args) => {
        received.push({ tool: "calendar.add", args });
        return { content: [{ type: "text", text: "no free slot" }], isError: true };
      });
    });
  });
  afterAll(() => peer?.close());

  it("the model's call reaches the remote server and its answer comes back into the run", async () => {
    const provider = scriptedProvider([
      { text: "Checking.", toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] },
      (req) => {
        const results = (req.messages.at(-1) as ToolMessage).results;
        return `The tool said: ${results[0]!.output}`;
      },
    ]);
    const client = createClient({ provider, tools: await mcpTools({ url: peer.url }) });
    expect(await client.chat("Weather in Paris?")).toBe("The tool said: Paris: 21°C, sunny");
    expect(received).toEqual([{ tool: "get_weather", args: { city: "Paris" } }]);
    expect(provider.requests[0]!.tools.map((t) => t.name)).toEqual(["get_weather", "calendar_add"]);
    expect(provider.requests[0]!.tools[0]!.parameters).toMatchObject({ type: "object", properties: { city: { type: "string" } }, required: ["city"] });
    expect(client.history[2]).toEqual({
      role: "tool",
      results: [{ callId: "call_1", name: "get_weather", output: "Paris: 21°C, sunny", isError: false }],
    });
  });

  it("a remote isError result becomes a tool error the model reads; the run goes on", async () => {
    received.length = 0;
    const provider = scriptedProvider([{ toolCalls: [{ name: "calendar_add", arguments: { title: "Lunch" } }] }, "No slot, sorry."]);
    const client = createClient({ provider, tools: await mcpTools({ url: peer.url }) });
    expect(await client.chat("Book lunch")).toBe("No slot, sorry.");
    expect(received).toEqual([{ tool: "calendar.add", args: { title: "Lunch" } }]); // the original name went out
    expect((client.history[2] as ToolMessage).results[0]).toMatchObject({ name: "calendar_add", output: '{"error":"no free slot"}', isError: true });
  });

  it("arguments that miss the remote schema are sent back to the model to fix, never to the server", async () => {
    received.length = 0;
    const provider = scriptedProvider([
      { toolCalls: [{ name: "get_weather", arguments: { town: "Paris" } }] },
      { toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] },
      "Fixed it.",
    ]);
    const client = createClient({ provider, tools: await mcpTools({ url: peer.url }) });
    expect(await client.chat("Weather?")).toBe("Fixed it.");
    const first = (client.history[2] as ToolMessage).results[0]!;
    expect(first.isError).toBe(true);
    expect(JSON.parse(first.output)).toMatchObject({ fix: expect.any(String), schema: { required: ["city"] } });
    expect(received).toEqual([{ tool: "get_weather", args: { city: "Paris" } }]);
  });
});

describe("agent loop with tools from our own mcpHandler", () => {
  let server: Awaited<ReturnType<typeof serveHandler>>;
  beforeAll(async () => {
    server = await serveHandler(mcpHandler({ name: "ours", version: "1", tools: [getWeather, explode, rawEcho] }));
  });
  afterAll(() => server?.close());

  it("publishes, imports and runs: the published schema round-trips unchanged", async () => {
    rawCalls.length = 0;
    const tools = await mcpTools({ url: server.url });
    expect(tools.map((t) => [t.name, t.parameters])).toEqual([
      ["get_weather", getWeather.parameters],
      ["explode", explode.parameters],
      ["raw_echo", rawEcho.parameters],
    ]);
    const provider = scriptedProvider([
      {
        toolCalls: [
          { name: "get_weather", arguments: { city: "Oslo" } },
          { name: "explode", arguments: {} },
          { name: "raw_echo", arguments: { text: "hi" } },
        ],
      },
      "Done.",
    ]);
    const client = createClient({ provider, tools, parallelTools: true });
    expect(await client.chat("Go")).toBe("Done.");
    expect((client.history[2] as ToolMessage).results).toEqual([
      { callId: "call_1", name: "get_weather", output: '{"city":"Oslo","temperature":21,"unit":"celsius"}', isError: false },
      { callId: "call_2", name: "explode", output: '{"error":"kaboom: the tool failed"}', isError: true },
      { callId: "call_3", name: "raw_echo", output: "echo: hi", isError: false },
    ]);
    expect(rawCalls).toEqual(['{"text":"hi"}']);
  });
});
