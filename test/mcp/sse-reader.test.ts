// The SSE → JSON-RPC message decoder, fed whole and at every possible chunk boundary.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createMessageReader } from "../../adapters/mcp/client/sse-reader.js";

const STREAM =
  "id: s1-0\nretry: 250\ndata: \n\n" + // priming event: an id, no message
  ": keep-alive\n\n" +
  'event: message\nid: s1-1\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}\n\n' +
  'data: {"jsonrpc":"2.0","id":7,\ndata: "result":{"content":[{"type":"text","text":"é ✓"}]}}\r\n\r\n' + // multi-line data, CRLF
  'event: other\ndata: {"ignored":true}\n\n';

function decode(chunks: string[]) {
  const messages: unknown[] = [];
  const invalid: string[] = [];
  const reader = createMessageReader(
    (m) => messages.push(m),
    (d) => invalid.push(d),
  );
  for (const c of chunks) reader.feed(c);
  return { messages, invalid, lastEventId: reader.lastEventId, retry: reader.retry };
}

const expected = {
  messages: [
    { jsonrpc: "2.0", method: "notifications/progress", params: { progress: 1 } },
    { jsonrpc: "2.0", id: 7, result: { content: [{ type: "text", text: "é ✓" }] } },
  ],
  invalid: [],
  lastEventId: "s1-1",
  retry: 250,
};

describe("createMessageReader", () => {
  it("decodes messages, skips priming, comments and other event types, remembers id and retry", () => {
    expect(decode([STREAM])).toEqual(expected);
  });

  it("gives the same result split at every single boundary", () => {
    for (let i = 0; i <= STREAM.length; i++) expect(decode([STREAM.slice(0, i), STREAM.slice(i)])).toEqual(expected);
  });

  it("gives the same result for random chunkings", () => {
    fc.assert(
      fc.property(fc.array(fc.nat(STREAM.length), { maxLength: 12 }), (cuts) => {
        const points = [...new Set([0, ...cuts.sort((a, b) => a - b), STREAM.length])];
        const chunks = points.slice(1).map((p, i) => STREAM.slice(points[i], p));
        expect(decode(chunks)).toEqual(expected);
      }),
    );
  });

  it("reports data that is not JSON", () => {
    expect(decode(["data: {broken\n\n"]).invalid).toEqual(["{broken"]);
  });
});
