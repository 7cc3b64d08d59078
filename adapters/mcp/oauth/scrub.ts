// The MCP server's answer with the bearer token this client sent it replaced by "[redacted]".
// A server that quotes the request's credentials back (a debug tool, a "whoami", a careless
// message) would otherwise put the token into a tool result, and from there into the history,
// the model's context, the spans and the logs. Errors are scrubbed of registered secrets
// anyway; successful results are not (they may hold any text), so the token is taken out here,
// where it is known exactly. The body is rewritten as it streams: only a tail that could be
// the start of the token waits for the next chunk, so an event stream's events are not delayed.

import type { FetchFn } from "../../../src/http/index.js";

const MARK = "[redacted]";

/** `fetch` whose answers lose the bearer token each request carried. */
export function scrubbingFetch(fetch: FetchFn): FetchFn {
  return async (input, init) => {
    const sent = new Headers(init?.headers).get("authorization");
    const res = await fetch(input, init);
    return sent?.startsWith("Bearer ") ? withoutToken(res, sent.slice("Bearer ".length)) : res;
  };
}

/** `res` with every occurrence of `token` in its body replaced; `res` itself when there is nothing to scan. */
export function withoutToken(res: Response, token: string | undefined): Response {
  if (!token || !res.body) return res;
  // MCP answers are JSON or an event stream; anything else passes as it is.
  if (!/json|^text\//i.test(res.headers.get("content-type") ?? "")) return res;
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let held = "";
  const scrub = (text: string) => (text.includes(token) ? text.split(token).join(MARK) : text);
  const body = res.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const text = scrub(held + decoder.decode(chunk, { stream: true }));
        const keep = tokenStartAtEnd(text, token);
        held = text.slice(text.length - keep);
        if (text.length > keep) controller.enqueue(encoder.encode(text.slice(0, text.length - keep)));
      },
      flush(controller) {
        const text = scrub(held + decoder.decode());
        if (text) controller.enqueue(encoder.encode(text));
      },
    }),
  );
  const headers = new Headers(res.headers);
  headers.delete("content-length"); // the length changes with each replacement
  return new Response(body, { status: res.status, statusText: res.statusText, headers });
}

/** The length of the longest end of `text` that is a beginning of `token` (shorter than it). */
function tokenStartAtEnd(text: string, token: string): number {
  for (let n = Math.min(token.length - 1, text.length); n > 0; n--) {
    if (text.endsWith(token.slice(0, n))) return n;
  }
  return 0;
}
