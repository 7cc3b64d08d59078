// Interop with the official v2 SDK (@modelcontextprotocol/client and /server 2.4.0) in Node:
// its Client against mcpHandler (2026-07-28 when it negotiates, 2025-11-25 when it does not),
// and mcpTools against its createMcpHandler server, including a remote tool that asks for
// input becoming a pending call of toolloop's suspension. test/mcp/v2-workerd.test.ts runs
// the same peers in workerd.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpHandler, mcpTools } from "../../adapters/mcp.js";
import { jsonTool } from "../../src/index.js";
import { booking, picture } from "./fixtures/input-tools.js";
import { allTools } from "./fixtures/tools.js";
import { v2Handler } from "./fixtures/v2-server.js";
import { serveHandler } from "./helpers.js";
import { ctx, mcpToolsSuite, v2ClientSuite } from "./v2-suites.js";

type Served = Awaited<ReturnType<typeof serveHandler>>;

describe("v2 SDK Client ↔ mcpHandler (Node)", () => {
  let served: Served;
  beforeAll(async () => {
    served = await serveHandler(mcpHandler({ name: "toolloop-server", version: "1.0.0", tools: [...allTools, booking, picture] }));
  });
  afterAll(() => served?.close());
  v2ClientSuite(() => served.url);
});

describe("mcpTools ↔ v2 SDK createMcpHandler (Node)", () => {
  let served: Served;
  beforeAll(async () => {
    served = await serveHandler(v2Handler());
  });
  afterAll(() => served?.close());
  mcpToolsSuite(() => served.url);
});

describe("mcpTools options", () => {
  it("timeout ends a remote call that takes longer with ToolTimeoutError", async () => {
    const slow = jsonTool({ name: "slow", description: "s", parameters: { type: "object", properties: {} }, run: () => new Promise((r) => setTimeout(() => r("late"), 2000)) });
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
