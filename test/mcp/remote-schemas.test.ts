// What mcpTools takes from a server's tools/list, bounded: a 10,000-level inputSchema (as JSON
// or as an SSE event) leaves that one tool out — logged at warn and listed in `skipped` —
// while its siblings stay usable, and a run with them reaches the provider (no RangeError
// anywhere). Every imported tool has a description: the server's, else its title (or
// annotations.title), else its name. Over real HTTP: a hand-written server for the hostile
// schema, the official SDK's McpServer for the descriptions.
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { claude } from "../../adapters/claude/index.js";
import { mcpTools } from "../../adapters/mcp/index.js";
import type { Logger } from "../../src/base/log.js";
import { createClient } from "../../src/index.js";
import { startClaudeMock } from "../mock/claude.js";
import { startSdkServer } from "./helpers.js";
import { startRawServer } from "./raw-server.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

/** An object schema nesting `levels` objects, as raw JSON text (never parsed by the test). */
function deepSchemaText(levels: number): string {
  return `${'{"type":"object","properties":{"a":'.repeat(levels)}{"type":"string"}${"}}".repeat(levels)}`;
}

function recordingLogger(): Logger & { warnings: { message: string; fields: Record<string, unknown> | undefined }[] } {
  const warnings: { message: string; fields: Record<string, unknown> | undefined }[] = [];
  const noop = () => {};
  return { debug: noop, info: noop, error: noop, warn: (message, fields) => void warnings.push({ message, fields }), warnings };
}

describe("a remote inputSchema nested 10,000 levels deep", () => {
  it.each([false, true])("is left out with a warning, its sibling works end to end (sse: %s)", async (sse) => {
    const list = `{"tools":[{"name":"deep","description":"Too deep.","inputSchema":${deepSchemaText(10_000)}},{"name":"fine","description":"Fine.","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}}}]}`;
    const server = await startRawServer((req) =>
      req.method === "tools/list"
        ? { text: `{"jsonrpc":"2.0","id":${JSON.stringify(req.id)},"result":${list}}`, sse }
        : { result: { content: [{ type: "text", text: "sunny" }] } },
    );
    closers.push(server.close);
    const logger = recordingLogger();
    const tools = await mcpTools({ url: server.url, logger });
    expect(tools.map((t) => t.name)).toEqual(["fine"]);
    expect(tools.skipped).toEqual([{ name: "deep", reason: expect.stringContaining("nests deeper than") }]);
    expect(logger.warnings).toEqual([{ message: "mcp tool left out", fields: { tool: "deep", reason: tools.skipped[0]!.reason } }]);

    const mock = await startClaudeMock({ script: [{ toolCalls: [{ name: "fine", input: { city: "Oslo" } }] }, { text: "It is sunny." }] });
    closers.push(() => mock.close());
    const client = createClient({ provider: claude({ apiKey: "sk-test-0123456789", model: "claude-test", baseURL: mock.url, maxRetries: 0 }) });
    client.setTools(tools);
    await expect(client.chat("Weather in Oslo?")).resolves.toBe("It is sunny.");
    expect((mock.requests[0]!.body as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual(["fine"]);
    expect(() => JSON.stringify(client.history)).not.toThrow();
  });

  it("a schema just inside the bound is offered, and one level more is not", async () => {
    // n object levels nest 2n + 1 JSON levels (each adds an object and its properties, then the leaf):
    // 63 → 127, within the bound of 128; 64 → 129, past it.
    const list = `{"tools":[{"name":"at_limit","inputSchema":${deepSchemaText(63)}},{"name":"past_limit","inputSchema":${deepSchemaText(64)}}]}`;
    const server = await startRawServer((req) => ({ text: `{"jsonrpc":"2.0","id":${JSON.stringify(req.id)},"result":${list}}` }));
    closers.push(server.close);
    const tools = await mcpTools({ url: server.url });
    expect(tools.map((t) => t.name)).toEqual(["at_limit"]);
    expect(tools.skipped.map((s) => s.name)).toEqual(["past_limit"]);
  });
});

describe("imported tools always have a description", () => {
  it("the server's description, else its title, else annotations.title, else its name", async () => {
    const server = await startSdkServer((s) => {
      s.registerTool("described", { description: "Has one.", title: "Ignored title", inputSchema: { x: z.string() } }, async () => ({
        content: [{ type: "text", text: "ok" }],
      }));
      s.registerTool("titled", { title: "Look up an order", inputSchema: { id: z.string() } }, async () => ({ content: [{ type: "text", text: "ok" }] }));
      s.registerTool("bare", { inputSchema: { id: z.string() } }, async () => ({ content: [{ type: "text", text: "ok" }] }));
    });
    closers.push(server.close);
    const tools = await mcpTools({ url: server.url });
    closers.push(() => tools.close());
    expect(Object.fromEntries(tools.map((t) => [t.name, t.description]))).toEqual({ described: "Has one.", titled: "Look up an order", bare: "bare" });
  });

  it("annotations.title (2025-03-26), and an empty description counts as none", async () => {
    const server = await startRawServer(() => ({
      result: {
        tools: [
          { name: "annotated", annotations: { title: "Annotated title" }, inputSchema: { type: "object" } },
          { name: "empty", description: "  ", inputSchema: { type: "object" } },
        ],
      },
    }));
    closers.push(server.close);
    const tools = await mcpTools({ url: server.url });
    expect(tools.map((t) => [t.name, t.description])).toEqual([
      ["annotated", "Annotated title"],
      ["empty", "empty"],
    ]);
  });
});
