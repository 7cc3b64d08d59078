// A hand-written MCP server on node:http for the hostile cases no real SDK server would
// produce: answers written as raw text (a 10,000-level schema spliced in unparsed), errors
// that echo the request's credentials. It speaks the 2025-era handshake: server/discover
// gets -32601, initialize a 2025-06-18 result, notifications 202; every other request is
// answered by `answer` (a JSON-RPC result object, or raw text of the whole response).
import { createServer, type IncomingMessage } from "node:http";
import { closeServer } from "./helpers.js";

export interface RawRequest {
  method: string;
  id: number | string;
  params: any;
  /** The HTTP request as received (headers, url with its query). */
  http: IncomingMessage;
}

/** What `answer` gives back: a result, an error, raw response text, or a whole HTTP answer. */
export type RawAnswer =
  | { result: Record<string, unknown> }
  | { error: { code: number; message: string; data?: unknown } }
  | { text: string; sse?: boolean }
  | { status: number; body: string };

export async function startRawServer(answer: (req: RawRequest) => RawAnswer): Promise<{ url: string; port: number; close: () => Promise<void> }> {
  const http = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    const message = JSON.parse(body);
    if (!("id" in message)) {
      res.writeHead(202).end();
      return;
    }
    const reply = (value: RawAnswer): void => {
      if ("status" in value) res.writeHead(value.status, { "content-type": "application/json" }).end(value.body);
      else if ("text" in value && value.sse) res.writeHead(200, { "content-type": "text/event-stream" }).end(`event: message\ndata: ${value.text}\n\n`);
      else if ("text" in value) res.writeHead(200, { "content-type": "application/json" }).end(value.text);
      else res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: message.id, ...value }));
    };
    if (message.method === "server/discover") return reply({ error: { code: -32601, message: "Method not found" } });
    const got: RawRequest = { method: message.method, id: message.id, params: message.params, http: req };
    if (message.method === "initialize") {
      const a = answer(got);
      // The test's answer wins only when it is an error (an echo test); otherwise the handshake succeeds.
      if ("error" in a || "status" in a) return reply(a);
      return reply({ result: { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "raw", version: "1" } } });
    }
    reply(answer(got));
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", () => r()));
  const port = (http.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}/mcp`, port, close: () => closeServer(http) };
}
