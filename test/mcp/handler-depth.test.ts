// mcpHandler and arguments nested 10,000 levels deep: refused as invalid arguments (a -32602
// error before 2025-11-25, a tool error result from then on), never a 500 from a stack
// overflow, and never handed to a tool, not even a hand-written one that parses nothing.
import { describe, expect, it } from "vitest";
import { mcpHandler } from "../../adapters/mcp/index.js";
import type { Tool } from "../../src/index.js";
import { rpcRequest } from "./helpers.js";

const DEEP = `${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`;

function handlerWithCalls(): { handler: (r: Request) => Promise<Response>; calls: string[] } {
  const calls: string[] = [];
  const raw: Tool = {
    name: "raw",
    description: "Takes any object.",
    parameters: { type: "object" },
    call: async (input) => {
      calls.push(input);
      return "ran";
    },
  };
  return { handler: mcpHandler({ name: "depth", version: "1.0.0", tools: [raw] }), calls };
}

const call = (args: string) => `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"raw","arguments":${args}}}`;

describe("arguments nested 10,000 levels deep", () => {
  it("2025-06-18: -32602 naming the depth; the tool never runs", async () => {
    const { handler, calls } = handlerWithCalls();
    const res = await handler(rpcRequest(call(DEEP), { "mcp-protocol-version": "2025-06-18" }));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { id: number; error: { code: number; message: string } };
    expect(body.id).toBe(7);
    expect(body.error.code).toBe(-32602);
    expect(body.error.message).toContain("nested deeper than 128 levels");
    expect(calls).toEqual([]);
  });

  it("2025-11-25: a tool error result the model can read; the tool never runs", async () => {
    const { handler, calls } = handlerWithCalls();
    const res = await handler(rpcRequest(call(DEEP), { "mcp-protocol-version": "2025-11-25" }));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: { isError: boolean; content: { text: string }[] } };
    expect(body.result.isError).toBe(true);
    expect(body.result.content[0]!.text).toContain("nested deeper than 128 levels");
    expect(calls).toEqual([]);
  });

  it("arguments at an ordinary depth still reach the tool", async () => {
    const { handler, calls } = handlerWithCalls();
    const ten = `${'{"a":'.repeat(10)}1${"}".repeat(10)}`;
    const res = await handler(rpcRequest(call(ten), { "mcp-protocol-version": "2025-11-25" }));
    expect(((await res.json()) as { result: { isError: boolean } }).result.isError).toBe(false);
    expect(calls).toEqual([ten]);
  });
});
