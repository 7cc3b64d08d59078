// An MCP event past the SSE parser's size limit ends the call with the parser's StreamError at
// once. Before, the session took it for a cut connection and, the server having numbered its
// events, resumed the stream with GET (which would only send the same event again).
import { createServer } from "node:http";
import { afterEach, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { closeServer } from "./helpers.js";

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

it("an event past the size limit is a StreamError at once, not a stream to resume", async () => {
  let gets = 0;
  const huge = "x".repeat(33 * 1024 * 1024); // past the parser's 32 Mi characters
  const http = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    if (req.method === "GET") {
      gets++;
      res.writeHead(200, { "content-type": "text/event-stream" }).end("id: e2\ndata: {}\n\n");
      return;
    }
    const message = JSON.parse(body);
    if (!("id" in message)) return void res.writeHead(202).end();
    const reply = (value: object) =>
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: message.id, ...value }));
    if (message.method === "server/discover") return reply({ error: { code: -32601, message: "Method not found" } });
    if (message.method === "initialize")
      return reply({ result: { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "big", version: "1" } } });
    if (message.method === "tools/list") return reply({ result: { tools: [{ name: "big", description: "Sends a lot.", inputSchema: { type: "object" } }] } });
    // tools/call: a numbered event stream whose first event never ends within the limit.
    // A numbered event first, so the client knows where it could resume from.
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write('id: e0\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"starting"}}\n\n');
    res.write("id: e1\ndata: ");
    for (let i = 0; i < huge.length; i += 1 << 20) res.write(huge.slice(i, i + (1 << 20)));
    res.end("\n\n");
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", () => r()));
  close = () => closeServer(http);
  const url = `http://127.0.0.1:${(http.address() as { port: number }).port}/mcp`;

  const tools = await mcpTools({ url });
  const err: any = await tools[0]!.call("{}", { signal: new AbortController().signal, callId: "c1", logger: console } as never).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err?.name).toBe("StreamError");
  expect(err.code).toBe("stream_error");
  expect(err.message).toMatch(/an event grew past \d+ characters/);
  expect(gets).toBe(0);
}, 60_000);
