// Helpers shared by the Gemini adapter tests.

import { createStreamDecoder, type Decoded } from "../../adapters/gemini/decode.js";
import { type GeminiOptions, gemini } from "../../adapters/gemini/index.js";
import { createSSEParser } from "../../src/http/sse.js";
import type { Delta, ModelRequest, ModelResponse, Provider } from "../../src/index.js";
import { type GeminiMock, type GeminiMockOptions, MOCK_API_KEY, startGeminiMock } from "../mock/gemini.js";

export async function withMock<T>(options: GeminiMockOptions, fn: (mock: GeminiMock) => Promise<T>): Promise<T> {
  const mock = await startGeminiMock(options);
  try {
    return await fn(mock);
  } finally {
    await mock.close();
  }
}

export function providerFor(mock: GeminiMock, extra: Partial<GeminiOptions> = {}): Provider {
  return gemini({ apiKey: MOCK_API_KEY, model: "gemini-3-pro-preview", baseURL: mock.url, ...extra });
}

export function request(extra: Partial<ModelRequest> = {}): ModelRequest {
  return { messages: [{ role: "user", content: "Hello" }], tools: [], webSearch: false, maxRetries: 0, ...extra };
}

/** Calls generate, streaming when `stream`, and returns the response with the deltas seen. */
export async function generate(provider: Provider, stream: boolean, extra: Partial<ModelRequest> = {}): Promise<{ response: ModelResponse; deltas: Delta[] }> {
  const deltas: Delta[] = [];
  const req = request(extra);
  if (stream) req.onDelta = (d) => deltas.push(d);
  const response = await provider.generate(req);
  return { response, deltas };
}

/** Decodes raw SSE bytes cut into `pieces` the way http.ts does: bytes → text → events → decoder. */
export function decodeSSE(pieces: readonly Uint8Array[]): { decoded: Decoded; deltas: Delta[] } {
  const deltas: Delta[] = [];
  const decoder = createStreamDecoder({}, (d) => deltas.push(d));
  const parser = createSSEParser((ev) => decoder.push(ev.data));
  const text = new TextDecoder();
  for (const p of pieces) parser.feed(text.decode(p, { stream: true }));
  parser.feed(text.decode());
  return { decoded: decoder.finishDecoded(), deltas };
}

/** Splits bytes at the given sorted cut offsets. */
export function cut(bytes: Uint8Array, offsets: readonly number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let from = 0;
  for (const o of [...offsets, bytes.length]) {
    if (o <= from) continue;
    out.push(bytes.subarray(from, o));
    from = o;
  }
  return out;
}

/** What the deltas say, put together: the streamed text and the calls as reported. */
export function fromDeltas(deltas: readonly Delta[]): { text: string; calls: { id: string; name: string; arguments: string }[] } {
  let text = "";
  const calls: { id: string; name: string; arguments: string }[] = [];
  for (const d of deltas) {
    if (d.type === "text-delta") text += d.text;
    else if (d.type === "tool-call-delta") {
      const c = calls.find((x) => x.id === d.callId);
      if (c) c.arguments += d.argsDelta;
      else calls.push({ id: d.callId, name: d.name, arguments: d.argsDelta });
    }
  }
  return { text, calls };
}
