// Interop with the official v2 SDK (@modelcontextprotocol/client and /server 2.4.0) in Node:
// its Client against mcpHandler (2026-07-28 when it negotiates, 2025-11-25 when it does not),
// and mcpTools against its createMcpHandler server, including a remote tool that asks for
// input becoming a pending call of toolloop's suspension. test/mcp/v2-workerd.test.ts runs
// the same peers in workerd.

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpHandler, mcpTools } from "../../adapters/mcp/index.js";
import { createClient, jsonTool, type ToolMessage } from "../../src/index.js";
import { scriptedProvider } from "../../src/testing.js";
import { booking, picture } from "./fixtures/input-tools.js";
import { allTools } from "./fixtures/tools.js";
import { v2Handler } from "./fixtures/v2-server.js";
import { serveHandler } from "./helpers.js";
import { ctx, mcpToolsSuite, v2Client, v2ClientSuite } from "./v2-suites.js";

type Served = Awaited<ReturnType<typeof serveHandler>>;

describe("v2 SDK Client ↔ mcpHandler (Node)", () => {
  let served: Served;
  beforeAll(async () => {
    served = await serveHandler(mcpHandler({ name: "toolloop-server", version: "1.0.0", tools: [...allTools, booking, picture] }));
  });
  afterAll(() => served?.close());
  v2ClientSuite(() => served.url);
});

describe("mcpHandler({ legacyElicitation }) ↔ v2 SDK Client on 2025-11-25 (Node)", () => {
  let served: Served;
  beforeAll(async () => {
    served = await serveHandler(mcpHandler({ name: "toolloop-server", version: "1.0.0", tools: [booking], legacyElicitation: true }));
  });
  afterAll(() => served?.close());

  it("asks each requestInput question with elicitation/create on the call's stream and takes the posted answers", async () => {
    const asked: string[] = [];
    const client = await v2Client(served.url, "legacy", (message) => {
      asked.push(message);
      return message === "Which city?" ? { answer: "Lima" } : { confirm: true };
    });
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe("2025-11-25");
      const r = await client.callTool({ name: "Book_Trip", arguments: { nights: 2 } });
      expect(r.content).toEqual([{ type: "text", text: "booked 2 nights in Lima" }]);
      expect(asked).toEqual(["Which city?", "Book 2 nights in Lima?"]);
    } finally {
      await client.close();
    }
  });

  it("a declined question is a tool error; a client without elicitation gets one without being asked", async () => {
    const declining = await v2Client(served.url, "legacy");
    try {
      const r = await declining.callTool({ name: "Book_Trip", arguments: { nights: 2 } });
      expect(r.isError).toBe(true);
      expect((r.content as { text: string }[])[0]!.text).toMatch(/did not answer "Which city\?" \(decline\)/);
    } finally {
      await declining.close();
    }
    const plain = new Client({ name: "no-elicitation", version: "1" }, { versionNegotiation: { mode: "legacy" } });
    await plain.connect(new StreamableHTTPClientTransport(new URL(served.url)));
    try {
      const r = await plain.callTool({ name: "Book_Trip", arguments: { nights: 2 } });
      expect(r.isError).toBe(true);
      expect((r.content as { text: string }[])[0]!.text).toMatch(/needs input from the user/);
    } finally {
      await plain.close();
    }
  });
});

describe("mcpTools ↔ v2 SDK createMcpHandler (Node)", () => {
  let served: Served;
  beforeAll(async () => {
    served = await serveHandler(v2Handler());
  });
  afterAll(() => served?.close());
  mcpToolsSuite(() => served.url);
});

describe("mcpTools in a client: exact remote names behind lower-cased registry keys", () => {
  it("the model calls get_weather (the registry's key); the server receives Get_Weather", async () => {
    const served = await serveHandler(v2Handler());
    try {
      const tools = await mcpTools({ url: served.url });
      const provider = scriptedProvider([
        { toolCalls: [{ name: "get_weather", arguments: { city: "Rome" } }] },
        (req) => `tool said: ${(req.messages.at(-1) as ToolMessage).results[0]!.output}`,
      ]);
      const client = createClient({ provider, tools });
      expect(await client.chat("Weather in Rome?")).toBe("tool said: Rome: 21°C");
      const sent = provider.requests[0]!.tools.map((t) => t.name);
      expect(sent[0]).toBe("get_weather");
      expect(sent[1]).toMatch(/^get_weather_[0-9a-z]{7}$/);
      await tools.close();
    } finally {
      await served.close();
    }
  });
});

describe("mcpTools options", () => {
  it("timeout ends a remote call that takes longer with ToolTimeoutError", async () => {
    const slow = jsonTool({
      name: "slow",
      description: "s",
      parameters: { type: "object", properties: {} },
      run: () => new Promise((r) => setTimeout(() => r("late"), 2000)),
    });
    const served = await serveHandler(mcpHandler({ name: "s", version: "1", tools: [slow] }));
    try {
      const [t] = await mcpTools({ url: served.url, timeout: 100 });
      const started = Date.now();
      await expect(t!.call("{}", ctx())).rejects.toMatchObject({ code: "tool_timeout" });
      expect(Date.now() - started).toBeLessThan(1500);
    } finally {
      await served.close();
    }
  });
});
