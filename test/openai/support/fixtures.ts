// Recorded OpenAI traffic (/work/shared/fixtures/openai, see PROVENANCE.md) in the shapes
// the tests need: raw SSE text as it crossed the wire, JSONL turned back into SSE with the
// framing PROVENANCE §2.4 documents, and helpers that cut byte streams at random places.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSSEParser } from "../../../src/http/sse.js";

/** The shared fixture tree (PROVENANCE.md); TOOLLOOP_FIXTURES points elsewhere when it lives elsewhere. */
export const FIXTURES_ROOT = process.env.TOOLLOOP_FIXTURES ?? fileURLToPath(new URL("../../fixtures/recorded", import.meta.url));
export const FIXTURES = join(FIXTURES_ROOT, "openai");

export function fixtureText(rel: string): string {
  return readFileSync(join(FIXTURES, rel), "utf8");
}

export function fixtureJSON(rel: string): unknown {
  return JSON.parse(fixtureText(rel));
}

/** JSONL lines (one SSE data payload each); blank lines skipped. */
export function jsonLines(rel: string): string[] {
  return fixtureText(rel)
    .split("\n")
    .filter((l) => l.trim() !== "");
}

/** Chat Completions framing: `data: <json>\n\n` per chunk, then `data: [DONE]\n\n`. */
export function chatSSE(lines: readonly string[]): string {
  return lines.map((l) => `data: ${l}\n\n`).join("") + "data: [DONE]\n\n";
}

/** Responses framing: `event: <type>\ndata: <json>\n\n` per event (no [DONE]). */
export function responsesSSE(lines: readonly string[]): string {
  return lines.map((l) => `event: ${(JSON.parse(l) as { type: string }).type}\ndata: ${l}\n\n`).join("");
}

/** A JSONL file that joins several Responses streams: one list of lines per response.created. */
export function splitResponsesStreams(lines: readonly string[]): string[][] {
  const streams: string[][] = [];
  for (const l of lines) {
    if ((JSON.parse(l) as { type: string }).type === "response.created" || streams.length === 0) streams.push([]);
    streams[streams.length - 1]!.push(l);
  }
  return streams;
}

/** The data payloads of an SSE text, in order (an independent reading for oracles). */
export function ssePayloads(sse: string): string[] {
  const out: string[] = [];
  const parser = createSSEParser((e) => out.push(e.data));
  parser.feed(sse);
  return out;
}

/** A small seeded PRNG (mulberry32) so random cuts are reproducible from the seed in a failure. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Cuts bytes at random places (pieces of 1..maxPiece bytes), including inside UTF-8 sequences. */
export function randomCuts(bytes: Uint8Array, random: () => number, maxPiece = 64): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; ) {
    const n = 1 + Math.floor(random() * maxPiece);
    out.push(bytes.subarray(i, i + n));
    i += n;
  }
  return out;
}

/** Feeds byte pieces through a streaming UTF-8 decoder and the SSE parser, like postSSE does. */
export function feedSSE(pieces: readonly Uint8Array[], onData: (data: string) => void): void {
  const decoder = new TextDecoder();
  const parser = createSSEParser((e) => onData(e.data));
  for (const p of pieces) parser.feed(decoder.decode(p, { stream: true }));
  parser.feed(decoder.decode());
}

/** Splits a string into `n` string pieces at random character positions (for mock writes). */
export function randomStringCuts(s: string, random: () => number, n = 8): string[] {
  const cuts = new Set<number>();
  while (cuts.size < Math.min(n - 1, Math.max(0, s.length - 1))) cuts.add(1 + Math.floor(random() * (s.length - 1)));
  const sorted = [...cuts].sort((a, b) => a - b);
  const out: string[] = [];
  let prev = 0;
  for (const c of sorted) {
    out.push(s.slice(prev, c));
    prev = c;
  }
  out.push(s.slice(prev));
  return out;
}
