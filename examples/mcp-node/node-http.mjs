// A tiny bridge from node:http to a web-standard fetch handler ((Request) => Promise<Response>),
// so mcpHandler (or any such handler) runs on Node's own HTTP server. Deno.serve and
// Bun.serve take the handler directly and need nothing like this.
import { createServer } from "node:http";
import { Readable } from "node:stream";

/**
 * Serves `handler` on `hostname:port` (port 0 picks a free one). Resolves once listening
 * with the server and its base URL.
 *
 * @param {(request: Request) => Response | Promise<Response>} handler
 * @param {{ port?: number, hostname?: string }} [options]
 * @returns {Promise<{ server: import("node:http").Server, url: string }>}
 */
export function serveFetch(handler, options = {}) {
  const hostname = options.hostname ?? "127.0.0.1"; // local servers bind to loopback only
  const server = createServer(async (req, res) => {
    // Aborted when the client goes away, so a tool can stop working for nobody.
    const controller = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) controller.abort();
    });
    try {
      const response = await handler(toRequest(req, controller.signal, `http://${hostname}`));
      res.statusCode = response.status;
      for (const [name, value] of response.headers) res.appendHeader(name, value);
      if (response.body) {
        // Written as it comes, so an event stream reaches the client event by event.
        const reader = response.body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          res.write(value);
        }
      }
      res.end();
    } catch (err) {
      if (!res.headersSent) res.statusCode = 500;
      res.end();
      console.error("handler failed:", err);
    }
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, hostname, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : options.port;
      resolve({ server, url: `http://${hostname}:${port}` });
    });
  });
}

/**
 * @param {import("node:http").IncomingMessage} req
 * @param {AbortSignal} signal
 * @param {string} fallbackBase
 */
function toRequest(req, signal, fallbackBase) {
  const url = new URL(req.url ?? "/", req.headers.host ? `http://${req.headers.host}` : fallbackBase);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(url, {
    method: req.method,
    headers,
    body: hasBody ? /** @type {ReadableStream} */ (Readable.toWeb(req)) : undefined,
    // @ts-expect-error: Node's fetch needs duplex for a streamed body; the DOM types lack it
    duplex: "half",
    signal,
  });
}
