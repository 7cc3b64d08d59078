// A run's events as a text/event-stream response that follows the event log: what the reader
// missed, then the live events, closing after the run's terminal event. Every event carries
// `id: <n>`, so a reader that drops reconnects with `Last-Event-ID: <n>` and misses nothing.
import type { EventLog, LoggedEvent } from "./event-log.js";

const encoder = new TextEncoder();
const frame = (e: LoggedEvent) => encoder.encode(`id: ${e.id}\nevent: ${e.type}\ndata: ${e.data}\n\n`);

const HEADERS = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" };

/**
 * Where a reader resumes: the `Last-Event-ID` header, else `?after=n`; undefined when neither is
 * given (from the start of the current or last run). A value that is not a whole number from 0
 * up is an error: guessing would replay the wrong events.
 */
export function resumePoint(request: Request): number | undefined | { error: string } {
  const raw = request.headers.get("last-event-id") ?? new URL(request.url).searchParams.get("after");
  if (raw === null || raw.trim() === "") return undefined;
  const n = Number(raw);
  if (!/^\s*\d+\s*$/.test(raw) || !Number.isSafeInteger(n))
    return { error: `Last-Event-ID / ?after= must be an event id (a whole number from 0 up), got ${JSON.stringify(raw)}` };
  return n;
}

/**
 * The SSE response for a reader resuming after `after`. The log is read and the live listener
 * registered in this one synchronous call, so nothing falls between them. A reader that goes
 * away only stops its own copy of the events: the run goes on.
 */
export function followResponse(log: EventLog, after: number | undefined, extraHeaders: Record<string, string> = {}): Response {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    controller.close();
  };
  const following = log.follow(after, (event) => {
    if (closed) return;
    controller.enqueue(frame(event));
    if (event.type === "finish" || event.type === "error") close();
  });
  if (following === "gone") {
    return Response.json(
      { error: "the events after this id are no longer kept (only the current and last run are); GET the conversation for its state", code: "events_gone" },
      { status: 410 },
    );
  }
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      for (const event of following.replay) c.enqueue(frame(event));
      if (!following.live) close();
    },
    cancel() {
      closed = true;
      following.cancel();
    },
  });
  return new Response(body, { headers: { ...HEADERS, ...extraHeaders } });
}
