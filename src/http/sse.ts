// Server-sent events (the WHATWG "event stream" format), parsed by eventsource-parser: feed
// text as it arrives in any chunking, get one callback per event. This file is the thin
// layer toolloop's callers see (http.ts, the MCP reader, tests that split streams at every
// boundary): our event shape, a `retry` callback, a bound on what one event may buffer that
// ends the stream with a typed StreamError, and the two edges of a stream the library leaves
// to its caller (a leading BOM in decoded text, a CR at the very end of a chunk).
// 0.2 had a hand-written parser here; it re-read its whole pending line on every chunk, so a
// 16 MB event took seconds. The library keeps pending fragments and joins them once.
import { createParser } from "eventsource-parser";
import { StreamError } from "../base/index.js";

/** One dispatched event. `event` and `id` are undefined when the event did not set them. */
export interface SSEEvent {
  data: string;
  event: string | undefined;
  id: string | undefined;
}

export interface SSEParser {
  /** Parses the next piece of the stream; complete events are dispatched before it returns. */
  feed(chunk: string): void;
  /** Forgets a half-read line or event (before reading a resumed stream). */
  reset(): void;
}

export interface SSEParserOptions {
  /** Gets the server's `retry` hint in ms (MCP reconnects use it); other values are ignored. */
  onRetry?: ((ms: number) => void) | undefined;
  /** Named in the StreamError of an event too large to hold (the provider's name). */
  provider?: string | undefined;
  /** Characters one unfinished event may hold; default MAX_SSE_EVENT. */
  maxBufferSize?: number | undefined;
}

/**
 * What one event may buffer before it ends, in characters (UTF-16 code units): 32 Mi.
 * Real events are far smaller, the largest being base64 images (a generated 4K image in a
 * Gemini chunk, OpenAI's image_generation result, repeated in response.completed), which
 * stay below ~20 MB; the red team's 16 MB event must parse. The bound is for a server that
 * never ends a line: it stops the stream at 32-64 MB of string instead of letting it take
 * the process (a Worker has 128 MB in all).
 */
export const MAX_SSE_EVENT = 32 * 1024 * 1024;

/**
 * An event ends at an empty line and is dispatched only if it had a `data` field; a stream
 * that ends mid-event drops that event, as the spec's "end of file" rule says. A feed that
 * takes an event past `maxBufferSize` throws a StreamError; the parser then takes nothing
 * more until reset().
 */
export function createSSEParser(onEvent: (event: SSEEvent) => void, options: SSEParserOptions = {}): SSEParser {
  const limit = options.maxBufferSize ?? MAX_SSE_EVENT;
  const parser = createParser({
    // The library builds each event as { id, event, data }, always with all three keys: our
    // SSEEvent as it is, so it is handed on without a copy (one object per event matters
    // on the streaming hot path).
    onEvent: onEvent as (event: { data: string; event?: string | undefined; id?: string | undefined }) => void,
    onRetry: options.onRetry,
    maxBufferSize: limit,
    onError(error) {
      // An invalid retry value or an unknown field is ignored, as the spec says. Only the
      // buffer bound ends the stream; thrown from here, it leaves feed() (the library has
      // already dropped what it held).
      if (error.type === "max-buffer-size-exceeded") {
        throw new StreamError(options.provider ?? "toolloop", `an event grew past ${limit} characters without ending; the stream was stopped`, {
          cause: error,
        });
      }
    },
  });
  let atStart = true;
  let afterCR = false;
  return {
    feed(chunk) {
      if (atStart && chunk) {
        atStart = false;
        // Decoded text carries a BOM as U+FEFF (TextDecoder drops it, a caller feeding
        // strings may not); the library only strips the UTF-8 bytes read as three characters.
        if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
      }
      // A CR that ended the last chunk was handed on as an LF (below); an LF right after it
      // is the second half of that CRLF, not an empty line.
      if (afterCR && chunk) {
        afterCR = false;
        if (chunk.charCodeAt(0) === 10) chunk = chunk.slice(1);
      }
      if (!chunk) return;
      // The library holds back a CR at the end of a chunk (it may be half of a CRLF) until
      // more text comes, so a stream whose last line ends with a bare CR would never
      // dispatch its last event. Each CR of a chunk's closing run of CRs ends a line either
      // way (none has an LF after it here), so the run goes on as LFs: all of it, since an
      // LF put right after a CR would make the two one line end.
      let cr = chunk.length;
      while (cr > 0 && chunk.charCodeAt(cr - 1) === 13) cr--;
      if (cr < chunk.length) {
        afterCR = true;
        chunk = chunk.slice(0, cr) + "\n".repeat(chunk.length - cr);
      }
      parser.feed(chunk);
    },
    reset() {
      parser.reset();
      atStart = true;
      afterCR = false;
    },
  };
}
