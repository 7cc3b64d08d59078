// SSE decoding is independent of how the bytes were chunked, for every adapter: the
// recorded fixture streams (test/fixtures) and streams the wire-faithful mocks render for
// generated turns (arbitrary Unicode text, thinking, tool calls with arbitrary JSON
// arguments) are cut at arbitrary byte boundaries (inside UTF-8 characters, inside
// `data:` lines, one byte at a time) and fed through the same layers postSSE uses
// (TextDecoder + sse.ts + the adapter's pure decoder). Deltas, the final
// response and any error must equal what one chunk gives. fast-check, fixed seeds, 10,000
// runs per adapter, in-process (the mocks are only used once, to render the generated
// streams).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStreamDecoder } from "../../adapters/claude/decode.js";
import { createStreamDecoder as createGeminiStreamDecoder } from "../../adapters/gemini/decode.js";
import { createChatStreamDecoder } from "../../adapters/openai/chat-decode.js";
import { createResponsesStreamDecoder } from "../../adapters/openai/responses-decode.js";
import type { Delta } from "../../src/conversation/provider.js";
import { createSSEParser } from "../../src/http/sse.js";
import { startClaudeMock } from "../mock/claude.js";
import { MOCK_API_KEY, startGeminiMock } from "../mock/gemini.js";
import { startOpenAIChatMock } from "../mock/openai-chat.js";
import { startOpenAIResponsesMock } from "../mock/openai-responses.js";

const FIXTURES = new URL("../fixtures/", import.meta.url).pathname;
const RUNS = 10_000;
const GENERATED = 60;

type Outcome = { deltas: Delta[]; result: unknown } | { deltas: Delta[]; error: { name: string; code: unknown; message: string } };

interface Adapter {
  name: string;
  /** Fixture streams as the bytes that crossed the wire. */
  fixtures(): { name: string; bytes: Uint8Array }[];
  /** Decodes SSE events exactly as the adapter's postSSE handler does. */
  decoder(onDelta: (d: Delta) => void): { event(ev: { event?: string | undefined; data: string }): void; finish(): unknown };
  /** Renders generated turns to raw stream bytes with the adapter's mock. */
  render(turns: GenTurn[]): Promise<Uint8Array[]>;
}

interface GenTurn {
  text: string;
  thinking?: string;
  toolCalls: { id: string; name: string; input: Record<string, unknown> }[];
}

const enc = new TextEncoder();

function files(dir: string, suffixes: string[]): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const full = join(d, n);
      if (statSync(full).isDirectory()) walk(full);
      else if (suffixes.some((s) => n.endsWith(s))) out.push(full);
    }
  };
  walk(join(FIXTURES, dir));
  return out.sort();
}

/** A vercel `.chunks.txt` (JSON lines, framing stripped) back to wire bytes, as PROVENANCE describes. */
function jsonl(path: string, frame: (line: string) => string, tail = ""): Uint8Array {
  const lines = readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "");
  return enc.encode(lines.map(frame).join("") + tail);
}

const raw = (path: string) => new Uint8Array(readFileSync(path));
const named = (path: string, bytes: Uint8Array) => ({ name: path.slice(FIXTURES.length), bytes });

async function collect(res: Response): Promise<Uint8Array> {
  if (!res.ok) throw new Error(`mock answered ${res.status}: ${await res.text()}`);
  return new Uint8Array(await res.arrayBuffer());
}

const ADAPTERS: Adapter[] = [
  {
    name: "claude",
    fixtures: () => [
      ...files("recorded/anthropic", [".sse"]).map((p) => named(p, raw(p))),
      ...files("recorded/anthropic", [".chunks.txt"]).map((p) =>
        named(
          p,
          jsonl(p, (l) => `data: ${l}\n\n`, "data: [DONE]\n\n"),
        ),
      ),
    ],
    decoder(onDelta) {
      const d = createStreamDecoder({}, onDelta);
      return { event: (ev) => d.push(ev), finish: () => d.finish() };
    },
    async render(turns) {
      const m = await startClaudeMock({ script: turns.map((t) => ({ text: t.text, thinking: t.thinking, toolCalls: t.toolCalls })) });
      try {
        const out: Uint8Array[] = [];
        for (const _ of turns) {
          const body = { model: "claude-test", max_tokens: 1024, stream: true, messages: [{ role: "user", content: "go" }] };
          out.push(
            await collect(
              await fetch(`${m.url}/messages`, {
                method: "POST",
                headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
                body: JSON.stringify(body),
              }),
            ),
          );
        }
        return out;
      } finally {
        await m.close();
      }
    },
  },
  {
    name: "openai (responses)",
    fixtures: () => [
      ...files("recorded/openai/responses", [".sse"]).map((p) => named(p, raw(p))),
      ...files("recorded/openai/responses", [".chunks.txt"]).map((p) =>
        named(
          p,
          jsonl(p, (l) => `event: ${(JSON.parse(l) as { type: string }).type}\ndata: ${l}\n\n`),
        ),
      ),
    ],
    decoder(onDelta) {
      const d = createResponsesStreamDecoder({ provider: "openai" }, onDelta);
      return { event: (ev) => d.push(ev.data), finish: () => d.finish() };
    },
    async render(turns) {
      const m = await startOpenAIResponsesMock({ script: turns.map((t) => ({ text: t.text, reasoning: t.thinking, toolCalls: t.toolCalls })) });
      try {
        const out: Uint8Array[] = [];
        for (const _ of turns) {
          const body = { model: "gpt-test", input: "go", stream: true, store: false };
          out.push(
            await collect(await fetch(`${m.url}/responses`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })),
          );
        }
        return out;
      } finally {
        await m.close();
      }
    },
  },
  {
    name: "openai (chat)",
    fixtures: () => [
      ...files("recorded/openai/chat", [".sse"]).map((p) => named(p, raw(p))),
      ...files("recorded/openai/chat", [".chunks.txt"]).map((p) =>
        named(
          p,
          jsonl(p, (l) => `data: ${l}\n\n`, "data: [DONE]\n\n"),
        ),
      ),
    ],
    decoder(onDelta) {
      const d = createChatStreamDecoder({ provider: "openai" }, onDelta);
      return { event: (ev) => d.push(ev.data), finish: () => d.finish() };
    },
    async render(turns) {
      const m = await startOpenAIChatMock({ script: turns.map((t) => ({ text: t.text, toolCalls: t.toolCalls })) });
      try {
        const out: Uint8Array[] = [];
        for (const _ of turns) {
          const body = { model: "gpt-test", messages: [{ role: "user", content: "go" }], stream: true, stream_options: { include_usage: true } };
          out.push(
            await collect(
              await fetch(`${m.url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
            ),
          );
        }
        return out;
      } finally {
        await m.close();
      }
    },
  },
  {
    name: "gemini",
    fixtures: () => [
      ...files("gemini", [".sse"]).map((p) => named(p, raw(p))),
      ...files("gemini", [".chunks.txt"]).map((p) =>
        named(
          p,
          jsonl(p, (l) => `data: ${l}\r\n\r\n`),
        ),
      ),
    ],
    decoder(onDelta) {
      const d = createGeminiStreamDecoder({ provider: "gemini" }, onDelta);
      return { event: (ev) => d.push(ev.data), finish: () => d.finish() };
    },
    async render(turns) {
      const m = await startGeminiMock({
        // thinking → a thought summary (streamed as reasoning-delta) and a signature
        script: turns.map((t) => ({
          text: t.text,
          toolCalls: t.toolCalls,
          thoughts: t.thinking,
          thoughtSignature: t.thinking ? Buffer.from(t.thinking).toString("base64") : undefined,
        })),
      });
      try {
        const out: Uint8Array[] = [];
        for (const _ of turns) {
          const body = { contents: [{ role: "user", parts: [{ text: "go" }] }], generationConfig: { thinkingConfig: { includeThoughts: true } } };
          const url = `${m.url}/models/gemini-test:streamGenerateContent?alt=sse`;
          out.push(
            await collect(
              await fetch(url, { method: "POST", headers: { "content-type": "application/json", "x-goog-api-key": MOCK_API_KEY }, body: JSON.stringify(body) }),
            ),
          );
        }
        return out;
      } finally {
        await m.close();
      }
    },
  },
];

/** Feeds byte pieces through TextDecoder + sse.ts into the adapter's decoder, like postSSE. */
function decode(adapter: Adapter, pieces: readonly Uint8Array[]): Outcome {
  const deltas: Delta[] = [];
  const d = adapter.decoder((x) => deltas.push(structuredClone(x)));
  let failure: unknown;
  const parser = createSSEParser((ev) => {
    if (failure !== undefined) return;
    try {
      d.event(ev);
    } catch (err) {
      failure = err;
    }
  });
  const text = new TextDecoder();
  try {
    for (const p of pieces) {
      parser.feed(text.decode(p, { stream: true }));
      if (failure !== undefined) throw failure;
    }
    parser.feed(text.decode());
    if (failure !== undefined) throw failure;
    return { deltas, result: JSON.parse(JSON.stringify(d.finish())) };
  } catch (err) {
    const e = err as { name: string; code?: unknown; message: string };
    return { deltas, error: { name: e.name, code: e.code, message: e.message } };
  }
}

/** Cuts `bytes` at the given offsets (taken modulo its length), or into single bytes. */
function cut(bytes: Uint8Array, offsets: number[], byteByByte: boolean): Uint8Array[] {
  if (byteByByte) return Array.from(bytes, (_, i) => bytes.subarray(i, i + 1));
  const points = [...new Set(offsets.map((o) => (bytes.length ? o % bytes.length : 0)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let from = 0;
  for (const p of points) {
    out.push(bytes.subarray(from, p));
    from = p;
  }
  out.push(bytes.subarray(from));
  return out; // empty pieces included on purpose: a read may return nothing
}

const jsonObject = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }) as fc.Arbitrary<Record<string, unknown>>;
const genTurn: fc.Arbitrary<GenTurn> = fc.record(
  {
    text: fc.oneof(fc.string({ unit: "grapheme", maxLength: 60 }), fc.string({ unit: "binary", maxLength: 40 }), fc.constant("")),
    thinking: fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 }),
    toolCalls: fc.array(
      fc.record({
        id: fc.stringMatching(/^call_[a-zA-Z0-9]{4,12}$/),
        name: fc.stringMatching(/^[a-z][a-z0-9_]{0,15}$/),
        input: jsonObject,
      }),
      { maxLength: 3 },
    ),
  },
  { requiredKeys: ["text", "toolCalls"] },
);

describe.each(ADAPTERS)("$name: SSE decoding does not depend on chunk boundaries", (adapter) => {
  let streams: { name: string; bytes: Uint8Array; reference: Outcome }[] = [];
  beforeAll(async () => {
    const turns = fc.sample(genTurn, { seed: 20261129, numRuns: GENERATED });
    const generated = await adapter.render(turns);
    const all = [...adapter.fixtures(), ...generated.map((bytes, i) => ({ name: `generated #${i}`, bytes }))];
    streams = all.map((s) => ({ ...s, reference: decode(adapter, [s.bytes]) }));
  });
  afterAll(() => {
    streams = [];
  });

  it("has fixture streams and generated streams to work on, and decodes them", () => {
    expect(streams.filter((s) => !s.name.startsWith("generated")).length).toBeGreaterThan(2);
    expect(streams.filter((s) => s.name.startsWith("generated")).length).toBe(GENERATED);
    // the generated streams are complete and valid: each decodes to a response
    for (const s of streams.filter((x) => x.name.startsWith("generated"))) expect("result" in s.reference).toBe(true);
  });

  it(`${RUNS} arbitrary splits give the same deltas, response and error as one chunk`, () => {
    fc.assert(
      fc.property(fc.nat(), fc.array(fc.nat(), { maxLength: 40 }), (pick, offsets) => {
        const s = streams[pick % streams.length]!;
        const got = decode(adapter, cut(s.bytes, offsets, false));
        expect(got, s.name).toEqual(s.reference);
      }),
      { seed: 4711, numRuns: RUNS },
    );
  });

  it("every fixture and generated stream decodes the same one byte at a time", () => {
    for (const s of streams) expect(decode(adapter, cut(s.bytes, [], true)), s.name).toEqual(s.reference);
  });
});
