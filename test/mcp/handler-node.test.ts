// The official MCP SDK client against our mcpHandler, served in Node by toolloop/node.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpHandler } from "../../adapters/mcp/index.js";
import { allTools, slowSignals } from "./fixtures/tools.js";
import { sdkClient, serveHandler } from "./helpers.js";
import { sdkClientSuite } from "./sdk-client-suite.js";

let server: Awaited<ReturnType<typeof serveHandler>>;

beforeAll(async () => {
  server = await serveHandler(mcpHandler({ name: "node-test", version: "0.0.1", tools: allTools, instructions: "Served from Node." }));
});
afterAll(() => server?.close());

describe("SDK client ↔ mcpHandler in Node", () => {
  sdkClientSuite(() => server.url);

  it("a client that hangs up aborts the tool's signal", async () => {
    slowSignals.length = 0;
    const client = await sdkClient(server.url);
    const controller = new AbortController();
    const pending = client.callTool({ name: "slow", arguments: {} }, undefined, { signal: controller.signal });
    await expect.poll(() => slowSignals.length).toBe(1);
    controller.abort();
    await expect(pending).rejects.toThrow();
    await client.close(); // closes the HTTP connection the call was waiting on
    await expect.poll(() => slowSignals[0]!.aborted).toBe(true);
  });
});
