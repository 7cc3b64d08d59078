// How toolloop parses SSE (src/http/sse.ts over eventsource-parser), as its specification: the
// WHATWG event-stream rules, and the same events however the stream is cut into chunks
// (every single split point, every pair of split points for short streams, random chunkings
// of real recorded provider streams); long events in linear work, and a bound on what one
// event may hold that ends the stream with a typed StreamError.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isToolloopError } from "../../src/base/errors.js";
import { postSSE } from "../../src/http/http.js";
import { createSSEParser, MAX_SSE_EVENT, type SSEEvent } from "../../src/http/sse.js";

function parse(chunks: string[], onRetry?: (ms: number) => void): SSEEvent[] {
  const events: SSEEvent[] = [];
  const parser = createSSEParser((e) => events.push(e), { onRetry });
  for (const c of chunks) parser.feed(c);
  return events;
}

const ev = (data: string, event?: string, id?: string): SSEEvent => ({ data, event, id });

/** Every way to cut `text` once, and (when short) every way to cut it twice. */
function* splits(text: string): Generator<string[]> {
  yield [text];
  for (let i = 0; i <= text.length; i++) yield [text.slice(0, i), text.slice(i)];
  if (text.length > 60) return;
  for (let i = 0; i <= text.length; i++) for (let j = i; j <= text.length; j++) yield [text.slice(0, i), text.slice(i, j), text.slice(j)];
}

const CASES: [string, string, SSEEvent[]][] = [
  ["one event", "data: hello\n\n", [ev("hello")]],
  ["named events", "event: message_start\ndata: {}\n\nevent: ping\ndata: {}\n\n", [ev("{}", "message_start"), ev("{}", "ping")]],
  ["multi-line data joined with LF", "data: a\ndata: b\ndata:\n\n", [ev("a\nb\n")]],
  ["CRLF line ends", "event: e\r\ndata: x\r\n\r\ndata: y\r\n\r\n", [ev("x", "e"), ev("y")]],
  ["CR line ends", "data: x\r\rdata: y\r\r", [ev("x"), ev("y")]],
  ["a run of CRs is as many line ends", "data: a\r\r\r\rdata: b\r\r\r", [ev("a"), ev("b")]],
  ["mixed line ends", "data: a\r\ndata: b\rdata: c\n\r\n", [ev("a\nb\nc")]],
  ["comments are skipped", ": ping\ndata: x\n:another\n\n", [ev("x")]],
  ["only one space after the colon is dropped", "data:no-space\n\ndata:  two\n\n", [ev("no-space"), ev(" two")]],
  ["a field with no colon has an empty value", "data\n\ndata\ndata\n\n", [ev(""), ev("\n")]],
  ["an event with no data is not dispatched", "event: lonely\n\nid: 3\n\ndata: x\n\n", [ev("x")]],
  ["empty data is dispatched", "data:\n\n", [ev("")]],
  ["ids, and ids with NUL ignored", "id: 7\ndata: a\n\nid: a\u0000b\ndata: b\n\n", [ev("a", undefined, "7"), ev("b")]],
  ["an empty event name is no name", "event:\ndata: x\n\n", [ev("x")]],
  ["unknown fields are ignored", "foo: bar\nretry: x\ndata: x\n\n", [ev("x")]],
  ["a leading BOM is not part of the first field", "\uFEFFdata: x\n\n", [ev("x")]],
  ["a BOM later is data", "data: \uFEFFx\n\n", [ev("\uFEFFx")]],
  ["an unterminated last event is dropped", "data: a\n\ndata: b\n", [ev("a")]],
  ["colons in the value stay", 'data: {"a":"b:c"}\n\n', [ev('{"a":"b:c"}')]],
  ["blank lines between events change nothing", "\n\n\ndata: a\n\n\n\ndata: b\n\n", [ev("a"), ev("b")]],
];

describe("SSE parsing follows the event-stream format", () => {
  it.each(CASES)("%s", (_label, text, expected) => {
    for (const chunks of splits(text)) expect(parse(chunks), JSON.stringify(chunks)).toEqual(expected);
  });

  it("a CR at the end of one chunk and an LF at the start of the next are one line end", () => {
    expect(parse(["data: a\r", "\n\r", "\n"])).toEqual([ev("a")]);
    expect(parse(["data: a\r", "\r"])).toEqual([ev("a")]);
  });

  it("a stream whose last line ends with a bare CR dispatches its last event (nothing more comes)", () => {
    expect(parse(["data: a\r\r"])).toEqual([ev("a")]);
    expect(parse(["data: a\r", "\r"])).toEqual([ev("a")]);
  });

  it("retry goes to its callback when it is a number, and is not an event", () => {
    const retries: number[] = [];
    expect(parse(["retry: 1500\n", "retry: soon\n\ndata: x\n\n"], (ms) => retries.push(ms))).toEqual([ev("x")]);
    expect(retries).toEqual([1500]);
  });

  it("reset() forgets a half-read event and line, and reads the next stream from its start", () => {
    const events: SSEEvent[] = [];
    const p = createSSEParser((e) => events.push(e));
    p.feed("data: half\nda");
    p.reset();
    p.feed("\uFEFFdata: next\n\n");
    expect(events).toEqual([ev("next")]);
  });

  it("an event is dispatched before feed() returns, so a handler can stop the stream", () => {
    const seen: string[] = [];
    const p = createSSEParser((e) => seen.push(e.data));
    p.feed("data: 1\n\ndata: 2");
    expect(seen).toEqual(["1"]);
    p.feed("\n\n");
    expect(seen).toEqual(["1", "2"]);
  });

  it("a long line fed a few characters at a time is one event", () => {
    const big = "x".repeat(200_000);
    const seen: string[] = [];
    const p = createSSEParser((e) => seen.push(e.data));
    const text = `data: ${big}\n\n`;
    for (let i = 0; i < text.length; i += 7) p.feed(text.slice(i, i + 7));
    expect(seen.length).toBe(1);
    expect(seen[0] === big).toBe(true);
  });
});

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * How many characters string methods were called on while `work` ran, each call counting
 * its whole receiver. It stands for the work a parser does, without timing it (tests take
 * no timings): a parser that searches or copies what it has buffered on every chunk calls
 * them on ever longer strings, so its count grows with the square of an event's size; one
 * that keeps the pieces and reads the line once grows with its size.
 */
function charactersScanned(work: () => void): number {
  const proto = String.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const names = [
    "indexOf",
    "lastIndexOf",
    "includes",
    "startsWith",
    "endsWith",
    "charCodeAt",
    "charAt",
    "codePointAt",
    "at",
    "slice",
    "substring",
    "split",
    "search",
    "match",
    "replace",
    "trim",
  ];
  const saved = names.map((n) => proto[n]!);
  let scanned = 0;
  names.forEach((n, i) => {
    const original = saved[i]!;
    proto[n] = function (this: string, ...args: unknown[]) {
      scanned += this.length;
      return original.apply(this, args);
    };
  });
  try {
    work();
  } finally {
    names.forEach((n, i) => (proto[n] = saved[i]!));
  }
  return scanned;
}

/** One event of `size` characters of data, cut into 64 KiB chunks (cut before anything is counted). */
function eventChunks(size: number, eol: string): { data: string; chunks: string[] } {
  const data = "x".repeat(size);
  const text = `event: big${eol}data: ${data}${eol}${eol}`;
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += 64 * KiB) chunks.push(text.slice(i, i + 64 * KiB));
  return { data, chunks };
}

describe("long events (the red team's 16 MB event took 6.5-17 s in 0.2's own parser)", () => {
  it.each([
    ["LF", "\n"],
    ["CRLF", "\r\n"],
  ])("a 16 MiB event fed in 64 KiB chunks (%s line ends) parses, in work linear in its size (1 MiB vs 16 MiB, counted)", (_label, eol) => {
    const run = (size: number) => {
      const { data, chunks } = eventChunks(size, eol);
      const seen: SSEEvent[] = [];
      const parser = createSSEParser((e) => seen.push(e));
      const scanned = charactersScanned(() => {
        for (const c of chunks) parser.feed(c);
      });
      expect(seen.length).toBe(1);
      expect(seen[0]!.event).toBe("big");
      expect(seen[0]!.data.length).toBe(size);
      expect(seen[0]!.data === data).toBe(true);
      return scanned;
    };
    const small = run(1 * MiB);
    const large = run(16 * MiB);
    // Linear work is 16 times the small event's; re-reading the pending line on every chunk
    // is about 256 times (0.2's parser: 255).
    expect(large / small).toBeLessThan(32);
  });
});

describe("an event too large to hold ends the stream with a StreamError", () => {
  it(`at MAX_SSE_EVENT (${MAX_SSE_EVENT / MiB} Mi characters), after the events before it; reset() reads a new stream`, () => {
    const events: string[] = [];
    const p = createSSEParser((e) => events.push(e.data), { provider: "claude" });
    p.feed("data: before\n\n");
    // The same 1 MiB string each time: the parser keeps references, so the test holds ~1 MiB.
    const piece = "x".repeat(MiB);
    let thrown: unknown;
    let fed = 0;
    try {
      p.feed("data: ");
      for (; fed <= MAX_SSE_EVENT + MiB; fed += piece.length) p.feed(piece);
    } catch (err) {
      thrown = err;
    }
    expect(isToolloopError(thrown, "stream_error"), String(thrown)).toBe(true);
    expect((thrown as { provider: string }).provider).toBe("claude");
    expect(String((thrown as Error).message)).toContain(String(MAX_SSE_EVENT));
    // Stopped by the piece that took the line past the bound (with its "data: "), not later.
    expect(fed).toBe(MAX_SSE_EVENT - MiB);
    expect(events).toEqual(["before"]);
    p.reset();
    p.feed("data: after\n\n");
    expect(events).toEqual(["before", "after"]);
  });

  it("the bound counts the data lines an unfinished event has gathered, not only a pending line", () => {
    const events: string[] = [];
    const p = createSSEParser((e) => events.push(e.data), { maxBufferSize: 100 });
    const line = `data: ${"a".repeat(50)}\n`;
    p.feed(`${line}\n`);
    p.feed(line);
    expect(() => p.feed(line)).toThrow(expect.objectContaining({ code: "stream_error" }));
    expect(events).toEqual(["a".repeat(50)]);
  });

  it("over HTTP: postSSE rejects with it, stops reading and cancels the body", async () => {
    const piece = new TextEncoder().encode("x".repeat(MiB));
    let pulls = 0;
    let cancelled = false;
    // An event that never ends, for 48 MiB (then the stream closes, so a parser without the
    // bound finishes the request instead of failing it).
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('data: {"n":1}\n\ndata: '));
      },
      pull(c) {
        if (++pulls > 48) c.close();
        else c.enqueue(piece);
      },
      cancel() {
        cancelled = true;
      },
    });
    const seen: string[] = [];
    const http = {
      provider: "openai",
      fetch: async () => new Response(body, { headers: { "content-type": "text/event-stream" } }),
      maxRetries: 0,
      idleTimeout: undefined,
    };
    const err = await postSSE(http, { url: "https://api.example.com/v1/responses", headers: {}, body: {}, signal: undefined }, (ev) => seen.push(ev.data)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isToolloopError(err, "stream_error"), String(err)).toBe(true);
    expect((err as { provider: string }).provider).toBe("openai");
    expect(seen).toEqual(['{"n":1}']);
    expect(pulls).toBeLessThan(40);
    expect(cancelled).toBe(true);
  });
});

function recordedStreams(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return recordedStreams(path);
    return name.endsWith(".sse") ? [path] : [];
  });
}

describe("recorded provider streams", () => {
  const files = recordedStreams(join(import.meta.dirname, "../fixtures/recorded"));

  it("are there to replay", () => expect(files.length).toBeGreaterThan(5));

  it.each(files.map((f) => [f.replace(/.*recorded\//, ""), f]))("%s: the same events at random chunk boundaries, with LF, CRLF or CR", (_name, file) => {
    const raw = readFileSync(file, "utf8");
    const whole = parse([raw]);
    expect(whole.length).toBeGreaterThan(0);
    // Each event's data is one JSON document in these streams.
    for (const e of whole) if (e.data !== "[DONE]") expect(() => JSON.parse(e.data)).not.toThrow();
    fc.assert(
      fc.property(fc.array(fc.nat({ max: raw.length }), { maxLength: 40 }), fc.constantFrom("\n", "\r\n", "\r"), (cuts, eol) => {
        const text = raw.replace(/\r\n|\r|\n/g, eol);
        const points = [...new Set(cuts)].sort((a, b) => a - b);
        const chunks = [0, ...points].map((p, i) => text.slice(p, points[i] ?? text.length));
        expect(parse(chunks)).toEqual(whole);
      }),
      { numRuns: 60 },
    );
  });
});
