// The official MCP SDK client (@modelcontextprotocol/sdk) talking to mcpHandler served by
// toolloop/node's serve(): tools listed and called, a 2025-era elicitation whose question travels
// on the call's own event stream while the call waits (which only works if each event is
// flushed as it is sent), a client that hangs up, and uploads past maxBodyBytes.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpHandler } from "../../adapters/mcp/index.js";
import { type NodeServer, serve } from "../../hosts/node/index.js";
import { tool } from "../../src/index.js";
import { deferred } from "./helpers.js";

type TextBlock = { type: string; text: string };

const slowSignals: AbortSignal[] = [];
const slowStarted = deferred();
const tools = [
  tool({
    name: "convert_temperature",
    description: "Converts a temperature between Celsius and Fahrenheit.",
    input: v.object({ value: v.number(), to: v.picklist(["celsius", "fahrenheit"]) }),
    run: ({ value, to }) => ({ value: to === "fahrenheit" ? (value * 9) / 5 + 32 : ((value - 32) * 5) / 9, unit: to }),
  }),
  tool({
    name: "measure",
    description: "Counts the characters of a text.",
    input: v.object({ text: v.string() }),
    run: ({ text }) => ({ length: text.length }),
  }),
  tool({
    name: "greet",
    description: "Asks for a name, then greets.",
    input: v.object({}),
    run: async (_input, ctx) => `hello ${String(await ctx.requestInput!({ message: "Your name?", schema: v.string() }))}`,
  }),
  tool({
    name: "slow",
    description: "Waits until it is cancelled.",
    input: v.object({}),
    run: async (_input, ctx) => {
      slowSignals.push(ctx.signal);
      slowStarted.resolve();
      await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
      return "cancelled";
    },
  }),
];

let served: NodeServer;
let url: string;

beforeAll(async () => {
  const mcp = mcpHandler({ name: "node-host", version: "1.0.0", tools, legacyElicitation: true, maxBodyBytes: 1024 * 1024 });
  served = await serve((request) => (new URL(request.url).pathname === "/mcp" ? mcp(request) : new Response("not found", { status: 404 })));
  url = `${served.url}/mcp`;
});
afterAll(() => served?.close({ timeout: 0 }));

async function connect(options: { elicit?: (message: string) => string } = {}): Promise<Client> {
  const client = new Client({ name: "sdk-peer", version: "1.0.0" }, options.elicit ? { capabilities: { elicitation: { form: {} } } } : {});
  if (options.elicit) {
    const answer = options.elicit;
    client.setRequestHandler(ElicitRequestSchema, (request) => ({
      action: "accept",
      content: { answer: answer(request.params.message) },
    }));
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

describe("the official SDK client ↔ mcpHandler on serve()", () => {
  it("lists and calls tools", async () => {
    const client = await connect();
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["convert_temperature", "measure", "greet", "slow"]);
      const r = await client.callTool({ name: "convert_temperature", arguments: { value: 212, to: "celsius" } });
      expect(JSON.parse((r.content as TextBlock[])[0]!.text)).toEqual({ value: 100, unit: "celsius" });
    } finally {
      await client.close();
    }
  });

  it("answers a question asked on the call's event stream while the call waits for the answer", async () => {
    const asked: string[] = [];
    const client = await connect({
      elicit: (message) => {
        asked.push(message);
        return "Ada";
      },
    });
    try {
      // The question must reach the client before the answer can exist: a host that held the
      // stream back until it ended would wait here forever.
      const r = await client.callTool({ name: "greet", arguments: {} });
      expect(asked).toEqual(["Your name?"]);
      expect((r.content as TextBlock[])[0]!.text).toBe("hello Ada");
    } finally {
      await client.close();
    }
  });

  it("a client that gives up on a call aborts the tool's signal", async () => {
    const client = await connect();
    const controller = new AbortController();
    const pending = client.callTool({ name: "slow", arguments: {} }, undefined, { signal: controller.signal });
    await slowStarted.promise;
    expect(slowSignals[0]!.aborted).toBe(false);
    controller.abort();
    await expect(pending).rejects.toThrow();
    await client.close(); // closes the connection the call was waiting on
    await expect.poll(() => slowSignals[0]!.aborted).toBe(true);
  });

  it("takes an upload of most of maxBodyBytes, and answers a larger one 413 (streamed, over the same host)", async () => {
    const client = await connect();
    try {
      const text = "x".repeat(900 * 1024);
      const r = await client.callTool({ name: "measure", arguments: { text } });
      expect(JSON.parse((r.content as TextBlock[])[0]!.text)).toEqual({ length: text.length });
      await expect(client.callTool({ name: "measure", arguments: { text: "y".repeat(2 * 1024 * 1024) } })).rejects.toThrow(/413|Payload too large/);
    } finally {
      await client.close();
    }
    // Sent without a Content-Length (chunked), the body is read only up to the limit.
    const big = new ReadableStream<Uint8Array>({
      start(c) {
        const piece = new TextEncoder().encode("z".repeat(256 * 1024));
        for (let i = 0; i < 12; i++) c.enqueue(piece);
        c.close();
      },
    });
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: big,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: { code: -32600 } });
  });
});
