// follow(): a run's event stream, followed over fetch the way EventSource would, but as an async
// iterable that a page, a Worker or a script can `for await`, with headers (EventSource sends
// none), an abort signal, typed errors and a bound on reconnecting.
//
// The server keeps the contract of docs/durable-runs.md: every event has an integer `id:` that
// only grows, `event:` names its type, `data:` is JSON, and `GET <url>` with `Last-Event-ID: n`
// answers every event after n, then the live ones, closing after the run's last event
// (`finish` or `error`). A connection that ends before that event, or breaks, is a drop:
// follow() reconnects with the last id it handed out, and skips any event at or below it, so
// the caller sees each event once, in order, whatever the network did.
import { abortReason, ConnectionError, describeError, ProviderError, StreamError, type ToolloopError } from "../base/index.js";
import { chunkReader, createSSEParser, readText, type SSEEvent, sleep } from "../http/index.js";
import { type FollowOptions, type FollowSettings, followSettings } from "./options.js";

/** One event of a run, as the server sent it. */
export interface FollowedEvent {
  /** The event's id: an integer, larger than every id before it. Keep it to resume later (`after`). */
  id: number;
  /** The SSE event name: the stream event's type (`text-delta`, `tool-call`, `suspended`, `finish`, ...) or `error`. */
  type: string;
  /**
   * The event's data, parsed from JSON. For a toolloop server it is the StreamEvent itself (so
   * `data.type === type`), and for `error` `{ message, code }`; check it as you would any JSON
   * from the network.
   */
  data: unknown;
}

// Names the follower in the errors it throws (ProviderError.provider, StreamError.provider).
const NAME = "follow";
/** Events after which the server closes the stream: the run has ended. */
const LAST = new Set(["finish", "error"]);
/** Statuses a reconnection waits out (a deploy, an overloaded edge); any other answer is final. */
const PASSING = new Set([408, 425, 429, 500, 502, 503, 504]);
const READ = { provider: NAME, idleTimeout: undefined };

/**
 * Follows a run's event stream at `url` until the run's last event (`finish` or `error`,
 * which it yields before ending). After a drop it reconnects with `Last-Event-ID` and a
 * backoff, and skips events it already yielded: each event comes once, in order.
 *
 * Ends with a typed error: ProviderError for an answer that is not a 200 event stream (its
 * `status`; `type` is the JSON body's `code` when it has one), StreamError for a stream that
 * breaks the contract (an event without an integer id, data that is not JSON), or, after
 * `retries` reconnections in a row that brought nothing new, the last drop's error
 * (ConnectionError, StreamError or a 5xx ProviderError). Options are checked here, at once.
 */
export function follow(url: string | URL, options?: FollowOptions): AsyncGenerator<FollowedEvent, void, undefined> {
  return run(followSettings(url, options));
}

/** What one connection ended with: the run's last event, or a drop to reconnect after. */
type Ending = { done: true } | { done: false; drop: ToolloopError };

async function* run(s: FollowSettings): AsyncGenerator<FollowedEvent, void, undefined> {
  // One controller for every request and wait of this follow(): the caller's signal aborts it
  // with its own reason, and leaving the loop (break, return, an error) aborts what is open.
  const controller = new AbortController();
  const signal = controller.signal;
  const forward = () => controller.abort(abortReason(s.signal!));
  if (s.signal?.aborted) forward();
  else s.signal?.addEventListener("abort", forward, { once: true });
  const seen = { last: s.after ?? -1, fresh: false };
  let first = s.response;
  try {
    for (let failures = 0; ; ) {
      if (signal.aborted) throw abortReason(signal);
      seen.fresh = false;
      const ending: Ending = first ? yield* read(answered(first, true, signal), seen, signal) : yield* read(connect(s, seen.last, signal), seen, signal);
      first = undefined;
      if (ending.done) return;
      if (seen.fresh) failures = 0;
      if (failures >= s.retries) throw ending.drop;
      await sleep(waitBefore(failures++, s), signal);
    }
  } finally {
    s.signal?.removeEventListener("abort", forward);
    controller.abort();
  }
}

/** ms before reconnection `attempt` (0 first): doubling from retryDelay up to maxRetryDelay, up to 25 % less so clients spread out. */
function waitBefore(attempt: number, s: FollowSettings): number {
  return Math.min(s.maxRetryDelay, s.retryDelay * 2 ** attempt) * (1 - Math.random() * 0.25);
}

/** GETs the stream after `last` (no Last-Event-ID before the first event: the server's "from the start of the run"). */
async function connect(s: FollowSettings, last: number, signal: AbortSignal): Promise<Opened> {
  const headers = new Headers(s.headers);
  if (last >= 0) headers.set("last-event-id", String(last));
  let res: Response;
  try {
    res = await s.fetch(s.url, { method: "GET", headers, signal });
  } catch (err) {
    if (signal.aborted) throw abortReason(signal);
    return { drop: new ConnectionError(NAME, `GET failed: ${describeError(err)}`, { cause: err }) };
  }
  return answered(res, false, signal);
}

/** A connection's answer: the body of a 200 event stream, or a failure worth reconnecting after. */
type Opened = { body: ReadableStream<Uint8Array> } | { drop: ToolloopError };

/**
 * The body of an answer that is a 200 event stream; a retryable failure to return; or a final
 * error thrown. `first`: the caller's own POST, whose failure is never retried.
 */
async function answered(res: Response, first: boolean, signal: AbortSignal): Promise<Opened> {
  const type = res.headers.get("content-type") ?? "";
  if (res.ok && /^text\/event-stream\b/i.test(type) && res.body) return { body: res.body };
  const text = await readText(READ, res, signal).catch((err: unknown) => {
    if (signal.aborted) throw err;
    return "";
  });
  if (res.ok) {
    throw new ProviderError({
      provider: NAME,
      status: res.status,
      type: "invalid_response",
      message: `expected an event stream, got ${type || "no content type"}: ${text.slice(0, 200)}`,
    });
  }
  // A toolloop server answers {"error": "...", "code": "..."} (the Worker example's 400 for a refused decision).
  let body: { error?: unknown; code?: unknown } | undefined;
  try {
    body = JSON.parse(text);
  } catch {}
  const retryable = PASSING.has(res.status);
  const error = new ProviderError({
    provider: NAME,
    status: res.status,
    ...(typeof body?.code === "string" && { type: body.code }),
    message: typeof body?.error === "string" ? body.error : text.slice(0, 200) || res.statusText || "no body",
    retryable,
  });
  if (first || !retryable) throw error;
  return { drop: error };
}

/** Yields one connection's new events; returns how it ended. A final failure is thrown. */
async function* read(opening: Promise<Opened>, seen: { last: number; fresh: boolean }, signal: AbortSignal): AsyncGenerator<FollowedEvent, Ending, undefined> {
  const opened = await opening;
  if ("drop" in opened) return { done: false, drop: opened.drop };
  const reader = opened.body.getReader();
  const reads = chunkReader(READ, reader, signal);
  const decoder = new TextDecoder();
  const queue: SSEEvent[] = [];
  // A new parser per connection: half an event left by a drop is dropped with it.
  const parser = createSSEParser((event) => queue.push(event), { provider: NAME });
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reads.read();
      } catch (err) {
        if (signal.aborted) throw abortReason(signal);
        return { done: false, drop: new StreamError(NAME, `the stream broke: ${describeError(err)}`, { cause: err }) };
      }
      if (chunk.done) return { done: false, drop: new StreamError(NAME, "the stream closed before the run's last event (finish or error)") };
      parser.feed(decoder.decode(chunk.value, { stream: true }));
      for (let i = 0; i < queue.length; i++) {
        const event = parse(queue[i]!);
        if (event.id <= seen.last) continue; // replayed after a reconnection: already handed out
        seen.last = event.id;
        seen.fresh = true;
        if (LAST.has(event.type)) {
          // Nothing after the last event is needed: the connection closes before it is handed out.
          reader.cancel().catch(() => {});
          yield event;
          return { done: true };
        }
        yield event;
      }
      queue.length = 0;
    }
  } finally {
    reads.close();
    reader.cancel().catch(() => {});
  }
}

/** An SSE event as a FollowedEvent; one that breaks the contract ends the follow (reconnecting would get it again). */
function parse(event: SSEEvent): FollowedEvent {
  const type = event.event ?? "message";
  if (event.id === undefined || !/^\d{1,15}$/.test(event.id)) {
    const what = event.id === undefined ? "no id" : `the id ${JSON.stringify(event.id.slice(0, 20))}`;
    throw new StreamError(NAME, `a ${type} event came with ${what}: a run's stream must give every event an integer id to resume from`);
  }
  let data: unknown;
  try {
    data = JSON.parse(event.data);
  } catch (err) {
    throw new StreamError(NAME, `event ${event.id} (${type}) has data that is not JSON: ${event.data.slice(0, 100)}`, { cause: err });
  }
  return { id: Number(event.id), type, data };
}
