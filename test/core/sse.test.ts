// The SSE parser (src/sse.ts) as its specification: the WHATWG event-stream rules, and the
// same events however the stream is cut into chunks (every single split point, every pair
// of split points for short streams, random chunkings of real recorded provider streams).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createSSEParser, type SSEEvent } from "../../src/sse.js";

function parse(chunks: string[], onRetry?: (ms: number) => void): SSEEvent[] {
  const events: SSEEvent[] = [];
  const parser = createSSEParser((e) => events.push(e), onRetry);
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
  ["colons in the value stay", "data: {\"a\":\"b:c\"}\n\n", [ev('{"a":"b:c"}')]],
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

  it("a long line fed one character at a time is read once (no rescanning)", () => {
    const big = "x".repeat(200_000);
    const p = createSSEParser((e) => expect(e.data).toBe(big));
    const text = `data: ${big}\n\n`;
    for (let i = 0; i < text.length; i += 7) p.feed(text.slice(i, i + 7));
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
