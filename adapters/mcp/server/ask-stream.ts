// 2025-era elicitation from a stateless server: a tool call that asks the client something
// turns its HTTP response into an event stream, sends elicitation/create on it, and waits
// for the client to POST the answer (a JSON-RPC response) to the endpoint; the call's own
// response then ends the stream. A call that asks nothing answers as before (one JSON body).
// The only memory is the open questions of calls in flight (a Map keyed by request id), so
// the answer must reach the same handler instance: one process, or a Durable Object. The
// stateless 2026-07-28 revision needs none of this (its questions travel in the results).
import { sseEvent, sseResponse } from "../wire/http.js";
import type { JsonRpcResponse } from "../wire/jsonrpc.js";
import type { AskClient } from "./input.js";

/** Marks a client that declared elicitation at initialize: carried in Mcp-Session-Id, so nothing is stored. */
export const ELICITING_SESSION = "elicit-";

export interface ClientAsks {
  /** A client's answer to one of our questions: true when it was ours (and is now settled). */
  settle(response: JsonRpcResponse): boolean;
  /** Runs `work`; if it asks, the result is an SSE stream of the questions and then the response. */
  serve(
    work: (ask: AskClient) => Promise<JsonRpcResponse>,
    signal: AbortSignal,
    headers: Record<string, string>,
    plain: (r: JsonRpcResponse) => Response,
  ): Promise<Response>;
}

export function createClientAsks(): ClientAsks {
  const open = new Map<string, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let counter = 0;
  return {
    settle(response) {
      const waiting = typeof response.id === "string" ? open.get(response.id) : undefined;
      if (!waiting) return false;
      open.delete(response.id as string);
      if ("error" in response) waiting.reject(new Error(`the client refused: ${response.error.message}`));
      else waiting.resolve(response.result);
      return true;
    },
    async serve(work, signal, headers, plain) {
      const encoder = new TextEncoder();
      let writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
      let readable: ReadableStream<Uint8Array> | undefined;
      let started!: () => void;
      const streaming = new Promise<void>((r) => (started = r));
      const ask: AskClient = (method, params) => {
        const id = `toolloop-${++counter}`;
        const answer = new Promise<unknown>((resolve, reject) => {
          open.set(id, { resolve, reject });
          signal.addEventListener("abort", () => open.delete(id) && reject(new Error("the client went away")), { once: true });
        });
        if (!writer) {
          const pipe = new TransformStream<Uint8Array, Uint8Array>();
          writer = pipe.writable.getWriter();
          readable = pipe.readable;
          started();
        }
        writer.write(encoder.encode(sseEvent({ jsonrpc: "2.0", id, method, params }))).catch(() => {});
        return answer;
      };
      const done = work(ask);
      const first = await Promise.race([done.then((r) => ({ r })), streaming.then(() => undefined)]);
      if (first && !writer) return plain(first.r);
      const w = writer!;
      done
        .then(
          (r) => w.write(encoder.encode(sseEvent(r))).then(() => w.close()),
          () => w.close(),
        )
        .catch(() => {});
      return sseResponse(readable, headers);
    },
  };
}
