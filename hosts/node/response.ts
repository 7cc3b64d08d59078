/// <reference types="node" />
// A web-standard Response written to node:http's ServerResponse: status, every header value
// (set-cookie one line each), and the body as it comes, never faster than the client takes it.
import type { ServerResponse } from "node:http";

/**
 * Writes `response` to `res`. Resolves once the body is sent, or once the client is gone (the
 * body's stream is then cancelled, so whatever produces it stops). Rejects when the body
 * fails: after the headers the response is cut off (the client sees it did not end), before
 * them nothing is written and the caller answers instead.
 */
export async function writeResponse(response: Response, res: ServerResponse, head: boolean): Promise<void> {
  res.statusCode = response.status;
  if (response.statusText) res.statusMessage = response.statusText;
  // Iterating Headers joins repeated values with ", ", which breaks cookies (their dates have
  // commas): set-cookie goes out one line per cookie (a Headers without getSetCookie, from an
  // old polyfill, gives what it has).
  const cookies = typeof response.headers.getSetCookie === "function" ? response.headers.getSetCookie() : undefined;
  for (const [name, value] of response.headers) {
    // node frames the body itself; a handler's Transfer-Encoding (say, copied from a fetch) would lie.
    if ((name === "set-cookie" && cookies) || name === "transfer-encoding") continue;
    res.setHeader(name, value);
  }
  if (cookies && cookies.length > 0) res.setHeader("set-cookie", cookies);

  const body = response.body;
  if (body === null || head) {
    // HEAD: the headers a GET would get, no body (node sends none for HEAD either way).
    await body?.cancel().catch(() => {});
    res.end();
    return;
  }

  const reader = body.getReader();
  const gone = new Promise<void>((resolve) => {
    if (res.destroyed) resolve();
    else res.once("close", () => resolve());
  });
  let closed = false;
  void gone.then(() => {
    closed = true;
    if (!res.writableFinished) reader.cancel(new DOMException("The client closed the connection", "AbortError")).catch(() => {});
  });
  // The headers go out with the first chunk; a body whose first chunk takes a while (an event
  // stream that waits for its first event) sends them on their own, so the client can start.
  const early = setTimeout(() => {
    if (!res.headersSent && !closed) res.flushHeaders();
  }, 0);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      clearTimeout(early);
      if (done || closed) break;
      // write() says false when node's buffer is full: wait for it to drain (or for the client to go).
      if (!res.write(value)) await Promise.race([drained(res), gone]);
    }
  } catch (err) {
    clearTimeout(early);
    if (closed) return;
    throw err;
  }
  if (!closed) res.end();
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => res.once("drain", resolve));
}
