// A server that quotes the bearer token back in a successful tool result: the token reaches
// neither the tool's output nor the history. And the body rewrite itself: a token cut across
// chunks is still found, and an event stream's event is not held back waiting for more.
import { afterEach, expect, it } from "vitest";
import { mcpTools, oauth } from "../../../adapters/mcp/index.js";
import { withoutToken } from "../../../adapters/mcp/oauth/scrub.js";
import { silentLogger } from "../../../src/base/log.js";
import type { ToolContext } from "../../../src/index.js";
import { approve, startWorld, type World } from "./servers.js";

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const ctx = () => ({ signal: new AbortController().signal, callId: "c1", logger: silentLogger }) as ToolContext;

it("a tool result that quotes the bearer token has it replaced", async () => {
  const w = (world = await startWorld({ authMethods: ["none"] }));
  const auth = oauth({ redirectUri: "http://127.0.0.1:9/callback", redirect: approve });
  const tools = await mcpTools({ url: w.mcpUrl, auth });
  try {
    const whoami = tools.find((t) => t.name === "whoami")!;
    const out = String(await whoami.call("{}", ctx()));
    expect(out).toBe('You are Ada, signed in with "Bearer [redacted]".');
    for (const s of w.secrets()) expect(out).not.toContain(s);
  } finally {
    await tools.close();
  }
});

/** A streamed body from `parts`; `pause` resolves the part after it only when released. */
function streamed(parts: string[], type: string, gate?: { at: number; open: Promise<void> }): Response {
  const encoder = new TextEncoder();
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (gate && i === gate.at) await gate.open;
      if (i === parts.length) return controller.close();
      controller.enqueue(encoder.encode(parts[i++]!));
    },
  });
  return new Response(body, { headers: { "content-type": type, "content-length": "999" } });
}

it("finds a token cut across chunks, and drops the stale content-length", async () => {
  const token = "at_0123456789abcdef";
  const res = withoutToken(streamed(['{"text":"a at_0123', "456789ab", 'cdef b at_0123456789abcdef"}'], "application/json"), token);
  expect(res.headers.get("content-length")).toBeNull();
  expect(await res.text()).toBe('{"text":"a [redacted] b [redacted]"}');
});

it("does not hold an event back until the next chunk comes", async () => {
  let release!: () => void;
  const open = new Promise<void>((r) => (release = r));
  const res = withoutToken(streamed(["event: message\ndata: {}\n\n", "data: more\n\n"], "text/event-stream", { at: 1, open }), "at_0123456789abcdef");
  const reader = res.body!.getReader();
  // The first event arrives whole while the server still holds the second.
  const first = await reader.read();
  expect(new TextDecoder().decode(first.value)).toBe("event: message\ndata: {}\n\n");
  release();
  const rest: string[] = [];
  for (let r = await reader.read(); !r.done; r = await reader.read()) rest.push(new TextDecoder().decode(r.value));
  expect(rest.join("")).toBe("data: more\n\n");
});

it("leaves a body that is not text alone", async () => {
  const original = new Response(new Uint8Array([1, 2, 3]), { headers: { "content-type": "application/octet-stream" } });
  expect(withoutToken(original, "at_0123456789abcdef")).toBe(original);
});
