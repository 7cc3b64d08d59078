// What one request may cost mcpHandler: a body past maxBodyBytes is refused with 413 and a
// JSON-RPC error, and reading stops there (a declared Content-Length past it is not read at
// all; a chunked upload, which declares none, and an endless stream are cut off); a batch
// past maxBatchSize is refused; a batch's calls run at most maxBatchConcurrency at once. The
// options are validated when the handler is built. Raw fetch over real HTTP for the limits,
// the official SDK client for "ordinary traffic still works".
import { afterEach, describe, expect, it } from "vitest";
import { mcpHandler } from "../../adapters/mcp/index.js";
import { jsonTool, type Tool } from "../../src/index.js";
import { rpcRequest, sdkClient, serveHandler } from "./helpers.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

const echo = jsonTool({
  name: "echo",
  description: "Echoes its text.",
  parameters: { type: "object", properties: { text: { type: "string" } } },
  run: async ({ text }) => String(text),
});

async function serve(options: Partial<Parameters<typeof mcpHandler>[0]> = {}, tools: Tool[] = [echo]): Promise<string> {
  const server = await serveHandler(mcpHandler({ name: "limits", version: "1.0.0", tools, ...options }));
  closers.push(server.close);
  return server.url;
}

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/** A tools/call whose arguments carry `size` characters of text. */
function callOfSize(size: number, id = 1): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo", arguments: { text: "x".repeat(size) } } });
}

async function expect413(res: Response): Promise<void> {
  expect(res.status).toBe(413);
  expect(res.headers.get("content-type")).toContain("application/json");
  const body = (await res.json()) as { jsonrpc: string; id: unknown; error: { code: number; message: string } };
  expect(body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
  expect(body.error.message).toMatch(/too large/i);
}

describe("mcpHandler's body limit", () => {
  it("a 20 MB body is refused with 413 by default (4 MiB), and a 3 MB one is answered", async () => {
    const url = await serve();
    await expect413(await fetch(url, { method: "POST", headers: HEADERS, body: callOfSize(20 * 1024 * 1024) }));
    const ok = await fetch(url, { method: "POST", headers: HEADERS, body: callOfSize(3 * 1024 * 1024) });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { result: { content: { text: string }[] } }).result.content[0]!.text).toHaveLength(3 * 1024 * 1024);
  });

  it("a chunked upload (no Content-Length) past maxBodyBytes is refused too", async () => {
    const url = await serve({ maxBodyBytes: 1000 });
    const text = callOfSize(5000);
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        const bytes = new TextEncoder().encode(text);
        for (let i = 0; i < bytes.length; i += 500) c.enqueue(bytes.slice(i, i + 500));
        c.close();
      },
    });
    await expect413(await fetch(url, { method: "POST", headers: HEADERS, body, duplex: "half" } as RequestInit));
    // At the limit exactly: served.
    const small = callOfSize(1000 - callOfSize(0).length);
    expect(new TextEncoder().encode(small).length).toBe(1000);
    expect((await fetch(url, { method: "POST", headers: HEADERS, body: small })).status).toBe(200);
  });

  it("stops reading a long body at the limit", async () => {
    const handler = mcpHandler({ name: "limits", version: "1.0.0", tools: [echo], maxBodyBytes: 64 * 1024 });
    let pulled = 0;
    let cancelled = false;
    // 16 MB at most, so a handler that reads it all ends (and fails the test) instead of hanging.
    const endless = new ReadableStream<Uint8Array>({
      pull(c) {
        if (pulled >= 16 * 1024 * 1024) return c.close();
        pulled += 1024;
        c.enqueue(new Uint8Array(1024).fill(0x20));
      },
      cancel() {
        cancelled = true;
      },
    });
    const request = new Request("http://127.0.0.1/mcp", { method: "POST", headers: HEADERS, body: endless, duplex: "half" } as RequestInit);
    await expect413(await handler(request));
    expect(pulled).toBeLessThanOrEqual(64 * 1024 + 16 * 1024); // the limit, and what the stream had queued
    expect(cancelled).toBe(true);
  });

  it("a declared Content-Length past the limit is refused without reading the body", async () => {
    const handler = mcpHandler({ name: "limits", version: "1.0.0", tools: [echo], maxBodyBytes: 100 });
    let pulled = false;
    const body = new ReadableStream<Uint8Array>(
      {
        pull(c) {
          pulled = true;
          c.close();
        },
      },
      { highWaterMark: 0 }, // pulled only when read
    );
    const request = new Request("http://127.0.0.1/mcp", {
      method: "POST",
      headers: { ...HEADERS, "content-length": "5000" },
      body,
      duplex: "half",
    } as RequestInit);
    await expect413(await handler(request));
    expect(pulled).toBe(false);
  });
});

describe("mcpHandler's batches", () => {
  const LEGACY = { ...HEADERS, "mcp-protocol-version": "2025-03-26" };
  const batchOf = (n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => JSON.parse(callOfSize(1, i + 1))));

  it("more than maxBatchSize messages (default 50) get a JSON-RPC error and nothing runs", async () => {
    let runs = 0;
    const counted = jsonTool({ name: "echo", description: "Counts its calls.", parameters: { type: "object" }, run: async () => String(++runs) });
    const url = await serve({}, [counted]);
    const refused = await fetch(url, { method: "POST", headers: LEGACY, body: batchOf(500) });
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32600);
    expect(body.error.message).toContain("500 messages");
    expect(runs).toBe(0);
    const ok = await fetch(url, { method: "POST", headers: LEGACY, body: batchOf(50) });
    expect(ok.status).toBe(200);
    expect((await ok.json()) as unknown[]).toHaveLength(50);
    expect(runs).toBe(50);
  });

  it.each([
    [undefined, 8],
    [3, 3],
  ])("runs a batch's calls at most maxBatchConcurrency (%s) at once", async (limit, expected) => {
    let active = 0;
    let peak = 0;
    const slow = jsonTool({
      name: "echo",
      description: "Takes a moment.",
      parameters: { type: "object" },
      run: async () => {
        peak = Math.max(peak, ++active);
        await new Promise((r) => setTimeout(r, 5));
        active--;
        return "done";
      },
    });
    const handler = mcpHandler({ name: "limits", version: "1.0.0", tools: [slow], ...(limit !== undefined && { maxBatchConcurrency: limit }) });
    const res = await handler(rpcRequest(batchOf(20), { "mcp-protocol-version": "2025-03-26" }));
    const answers = (await res.json()) as { id: number }[];
    expect(answers.map((a) => a.id)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1)); // in order
    expect(peak).toBe(expected);
  });
});

describe("mcpHandler's limit options", () => {
  it.each(["maxBodyBytes", "maxBatchSize", "maxBatchConcurrency"])("%s must be a positive integer", (key) => {
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "5", null]) {
      let err: any;
      try {
        mcpHandler({ name: "limits", version: "1.0.0", tools: [echo], [key]: bad } as never);
      } catch (e) {
        err = e;
      }
      expect(err?.code, `${key}: ${String(bad)}`).toBe("invalid_options");
      expect(err.message).toContain(key);
    }
    expect(() => mcpHandler({ name: "limits", version: "1.0.0", tools: [echo], [key]: 7 })).not.toThrow();
  });

  it("the official SDK client works within the limits", async () => {
    const url = await serve({ maxBodyBytes: 10_000, maxBatchSize: 2, maxBatchConcurrency: 1 });
    const client = await sdkClient(url);
    closers.push(() => client.close());
    const result = await client.callTool({ name: "echo", arguments: { text: "hello" } });
    expect(result.content).toEqual([{ type: "text", text: "hello" }]);
  });
});
