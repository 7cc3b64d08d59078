// A test-side reader of a run's event stream: parses SSE as it arrives (eventsource-parser, an
// independent parser) and keeps every event with its id, so a test can wait for a point in the
// run, kill the runtime there, and see what the reader got before its connection broke.
import { createParser } from "eventsource-parser";

export interface SseEvent {
  id: number;
  event: string;
  data: any;
}

export interface Reader {
  status: number;
  events: SseEvent[];
  /** "closed": the server ended the stream; "broken": the connection failed (the runtime died). */
  end: Promise<"closed" | "broken">;
  /** Resolves once an event matching `test` arrived (rejects if the stream ends first). */
  until(test: (e: SseEvent) => boolean): Promise<SseEvent>;
  /** Stops reading (the reader goes away). */
  close(): void;
}

/** Starts reading `url`'s event stream; resolves once the response headers are in. Non-SSE responses are read as JSON into `error`. */
export async function read(url: string | URL, init: RequestInit = {}): Promise<Reader & { error?: any }> {
  const controller = new AbortController();
  const res = await fetch(url, { ...init, signal: controller.signal });
  if (!res.headers.get("content-type")?.startsWith("text/event-stream")) {
    const error = await res.json().catch(() => undefined);
    return {
      status: res.status,
      events: [],
      end: Promise.resolve("closed"),
      until: () => Promise.reject(new Error(`no stream: ${res.status}`)),
      close() {},
      error,
    };
  }
  const events: SseEvent[] = [];
  const waiters: { test: (e: SseEvent) => boolean; resolve: (e: SseEvent) => void; reject: (err: Error) => void }[] = [];
  const parser = createParser({
    onEvent(m) {
      if (m.id === undefined || !/^\d+$/.test(m.id)) throw new Error(`an event without an integer id: ${JSON.stringify(m)}`);
      const e: SseEvent = { id: Number(m.id), event: m.event ?? "message", data: JSON.parse(m.data) };
      events.push(e);
      for (const w of [...waiters]) {
        if (!w.test(e)) continue;
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(e);
      }
    },
  });
  let ended = false;
  const end = (async (): Promise<"closed" | "broken"> => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
      return "closed";
    } catch {
      return "broken";
    } finally {
      ended = true;
      for (const w of waiters.splice(0)) w.reject(new Error(`the stream ended before the event waited for (${events.length} events)`));
    }
  })();
  return {
    status: res.status,
    events,
    end,
    until(test) {
      const seen = events.find(test);
      if (seen) return Promise.resolve(seen);
      if (ended) return Promise.reject(new Error(`the stream ended before the event waited for (${events.length} events)`));
      return new Promise((resolve, reject) => waiters.push({ test, resolve, reject }));
    },
    close: () => controller.abort(),
  };
}
