// Server-sent events (the WHATWG "event stream" format) as a small pure state machine: feed
// text as it arrives in any chunking, get one callback per event. No I/O of its own, so tests
// can split a stream at every boundary. What a provider stream needs and nothing more: the
// `data`, `event` and `id` fields, comments, CR / LF / CRLF line ends, multi-line data, a
// leading BOM; `retry` goes to an optional callback (MCP reconnects use it), other fields
// are ignored as the spec says.

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

/**
 * An event ends at an empty line and is dispatched only if it had a `data` field; a stream
 * that ends mid-event drops that event, as the spec's "end of file" rule says.
 */
export function createSSEParser(onEvent: (event: SSEEvent) => void, onRetry?: (ms: number) => void): SSEParser {
  let buffered = "";
  let atStart = true;
  let afterCR = false;
  let data: string | undefined;
  let event: string | undefined;
  let id: string | undefined;

  /** The line `s.slice(from, to)`, read in place: most lines are `data:` and need no copy first. */
  function line(s: string, from: number, to: number): void {
    if (from === to) {
      if (data !== undefined) onEvent({ data, event, id });
      data = event = id = undefined;
      return;
    }
    const first = s.charCodeAt(from);
    if (first === 100 /* d */ && s.startsWith("data:", from)) {
      // One space after the colon is the separator's, not the value's.
      const value = s.slice(s.charCodeAt(from + 5) === 32 ? from + 6 : from + 5, to);
      data = data === undefined ? value : `${data}\n${value}`;
      return;
    }
    if (first === 101 /* e */ && s.startsWith("event:", from)) {
      // The other line every provider sends per event (Claude, Responses), also read in place.
      event = s.slice(s.charCodeAt(from + 6) === 32 ? from + 7 : from + 6, to) || undefined;
      return;
    }
    if (first !== 58 /* : a comment (keep-alive pings) */) other(s.slice(from, to));
  }

  /** Any other line (kept apart so the hot path above stays small enough to inline). */
  function other(text: string): void {
    const colon = text.indexOf(":");
    const field = colon < 0 ? text : text.slice(0, colon);
    const value = colon < 0 ? "" : text.slice(text.charCodeAt(colon + 1) === 32 ? colon + 2 : colon + 1);
    if (field === "data") data = data === undefined ? value : `${data}\n${value}`;
    else if (field === "event") event = value || undefined;
    else if (field === "id") {
      if (!value.includes("\0")) id = value;
    } else if (field === "retry" && onRetry && /^\d+$/.test(value)) onRetry(Number(value));
  }

  return {
    feed(chunk) {
      if (!chunk) return;
      if (atStart) {
        atStart = false;
        if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
      }
      // A CR that ended the last chunk has ended its line already; an LF right after it is
      // the second half of that CRLF, not an empty line.
      if (afterCR) {
        afterCR = false;
        if (chunk.charCodeAt(0) === 10) chunk = chunk.slice(1);
      }
      // What is buffered holds no line end: scan only the new text. Streams with LF line
      // ends take the one-search path; CR or CRLF ones (Gemini's) the two-search one.
      const from = buffered.length;
      buffered += chunk;
      let start = 0;
      if (!chunk.includes("\r")) {
        for (let nl = buffered.indexOf("\n", from); nl >= 0; nl = buffered.indexOf("\n", start)) {
          line(buffered, start, nl);
          start = nl + 1;
        }
      } else {
        // Each of the two searches runs again only once its hit is behind the read position.
        let cr = buffered.indexOf("\r", from);
        let lf = buffered.indexOf("\n", from);
        while (cr >= 0 || lf >= 0) {
          const end = cr < 0 ? lf : lf < 0 ? cr : Math.min(cr, lf);
          line(buffered, start, end);
          start = end === cr && lf === cr + 1 ? cr + 2 : end + 1;
          if (cr >= 0 && cr < start) cr = buffered.indexOf("\r", start);
          if (lf >= 0 && lf < start) lf = buffered.indexOf("\n", start);
        }
      }
      afterCR = start === buffered.length && buffered.charCodeAt(start - 1) === 13;
      if (start) buffered = buffered.slice(start);
    },
    reset() {
      buffered = "";
      atStart = true;
      afterCR = false;
      data = event = id = undefined;
    },
  };
}
