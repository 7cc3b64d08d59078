// A remote tool call aborted while its answer is being read must settle even when the
// response body never does (Node's fetch leaves a read pending when the abort lands after
// the body arrived; see test/faults/late-abort.test.ts). The server here is our own
// mcpHandler behind an in-memory fetch whose answer body stalls after the first chunk.
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { mcpHandler, mcpTools } from "../../adapters/mcp/index.js";
import type { FetchFn } from "../../src/http/http.js";
import { silentLogger, type ToolContext, tool } from "../../src/index.js";

const echo = tool({ name: "echo", description: "Echoes.", input: v.object({ text: v.string() }), run: ({ text }) => text.repeat(50) });
const handler = mcpHandler({ name: "t", version: "1", tools: [echo] });

/** Answers through the handler; the tools/call answer delivers one chunk, then aborts `controller` and stalls. */
function stallingFetch(controller: AbortController): FetchFn {
  return async (input, init) => {
    const res = await handler(new Request(input, init));
    const isCall = typeof init?.body === "string" && init.body.includes('"tools/call"');
    if (!isCall || !res.body) return res;
    const upstream = res.body.getReader();
    let delivered = false;
    const body = new ReadableStream<Uint8Array>({
      async pull(c) {
        if (delivered) {
          controller.abort(new Error("user pressed stop"));
          return new Promise<void>(() => {});
        }
        delivered = true;
        const r = await upstream.read();
        if (r.done) c.close();
        else c.enqueue(r.value.slice(0, 5));
      },
    });
    return new Response(body, { status: res.status, headers: res.headers });
  };
}

describe("mcpTools: an abort while the answer is read", () => {
  it("rejects the call with the caller's reason instead of waiting forever", async () => {
    const controller = new AbortController();
    const [remote] = await mcpTools({ url: "http://mcp.test/mcp", fetch: stallingFetch(controller) });
    const ctx: ToolContext = { signal: controller.signal, callId: "c1", logger: silentLogger };
    await expect(remote!.call('{"text":"hi"}', ctx)).rejects.toThrow("user pressed stop");
  });
});
