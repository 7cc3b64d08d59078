// Decodes an MCP SSE stream into JSON-RPC messages: feed text as it arrives, get one
// callback per message. Pure (no I/O) so it can be fed any chunking in tests. It also
// remembers what a reconnect needs: the last event id and the server's retry hint.
import { MAX_RESPONSE_DEPTH, parseJSONBounded } from "../../../src/base/index.js";
import { createSSEParser } from "../../../src/http/index.js";

export interface MessageReader {
  feed(chunk: string): void;
  /** Forgets a half-read event (before reading a resumed stream). */
  reset(): void;
  /** The id of the last event seen, for Last-Event-ID when resuming. */
  readonly lastEventId: string | undefined;
  /** The server's `retry` hint in ms, if it sent one. */
  readonly retry: number | undefined;
}

/**
 * `onMessage` gets each event's data parsed as JSON (nesting past MAX_RESPONSE_DEPTH cut); `onInvalid` gets data that is not
 * JSON. Events of another type than "message" and empty (priming) events carry no message.
 */
export function createMessageReader(onMessage: (message: unknown) => void, onInvalid: (data: string) => void): MessageReader {
  let lastEventId: string | undefined;
  let retry: number | undefined;
  const parser = createSSEParser(
    (ev) => {
      if (ev.id !== undefined) lastEventId = ev.id;
      if (ev.event !== undefined && ev.event !== "message") return;
      if (ev.data.trim() === "") return;
      let value: unknown;
      try {
        // Cut where too deep, as a JSON body is (stream.ts).
        value = parseJSONBounded(ev.data, MAX_RESPONSE_DEPTH);
      } catch {
        onInvalid(ev.data);
        return;
      }
      onMessage(value);
    },
    {
      onRetry: (ms) => {
        retry = ms;
      },
      // An event too large to hold ends the stream with a StreamError naming MCP.
      provider: "mcp",
    },
  );
  return {
    feed: (chunk) => parser.feed(chunk),
    reset: () => parser.reset(),
    get lastEventId() {
      return lastEventId;
    },
    get retry() {
      return retry;
    },
  };
}
