// Shared helpers for the Claude adapter tests: reading the recorded Anthropic traffic in
// /work/shared/fixtures, turning it back into bytes on the wire, cutting those bytes at
// random places, and an independent (deliberately naive) reconstruction of a streamed
// message to check the decoder against.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { Validator } from "@cfworker/json-schema";
import { createStreamDecoder } from "../../adapters/claude/decode.js";
import type { Turn } from "../../adapters/claude/wire.js";
import type { Delta } from "../../src/conversation/provider.js";
import { createSSEParser } from "../../src/http/sse.js";

export const FIXTURES = fileURLToPath(new URL("../fixtures/recorded/anthropic", import.meta.url));
export const SPEC_PATH = fileURLToPath(new URL("../fixtures/recorded/specs/anthropic/openapi.yaml", import.meta.url));

export function fixtureText(rel: string): string {
  return readFileSync(join(FIXTURES, rel), "utf8");
}

export function fixtureBytes(rel: string): Uint8Array {
  return new Uint8Array(readFileSync(join(FIXTURES, rel)));
}

/** Every file under the Anthropic fixture folder, as paths relative to it. */
export function listFixtures(dir = FIXTURES): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...listFixtures(full));
    else out.push(relative(FIXTURES, full));
  }
  return out.sort();
}

/** A vercel `.chunks.txt`: one SSE data payload per line (framing stripped). */
export function chunkLines(rel: string): string[] {
  return fixtureText(rel)
    .split("\n")
    .filter((l) => l.trim() !== "");
}

/**
 * Several HTTP streams joined in one file: a new stream begins where a message_start
 * follows a message_stop. (A message_start before any message_stop is part of the same
 * stream: that is what the duplicate/spliced fixtures are about.)
 */
export function splitStreams(lines: string[]): string[][] {
  const streams: string[][] = [[]];
  let stopped = false;
  for (const line of lines) {
    const type = (JSON.parse(line) as { type: string }).type;
    if (type === "message_start" && stopped) {
      streams.push([]);
      stopped = false;
    }
    if (type === "message_stop") stopped = true;
    streams[streams.length - 1]!.push(line);
  }
  return streams;
}

/** Replays JSONL lines the way PROVENANCE describes: `data: <line>\n\n`, then `data: [DONE]\n\n`. */
export function jsonlToSSE(lines: string[]): string {
  return lines.map((l) => `data: ${l}\n\n`).join("") + "data: [DONE]\n\n";
}

/** mulberry32: a tiny seeded PRNG so a failing random split can be reproduced. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Cuts bytes into 1..maxPieces pieces at random offsets (a UTF-8 character may be split). */
export function randomPieces(bytes: Uint8Array, random: () => number, maxPieces = 40): Uint8Array[] {
  const count = 1 + Math.floor(random() * maxPieces);
  const cuts = new Set<number>();
  for (let i = 1; i < count; i++) cuts.add(1 + Math.floor(random() * Math.max(1, bytes.length - 1)));
  const sorted = [...cuts].sort((a, b) => a - b);
  const pieces: Uint8Array[] = [];
  let from = 0;
  for (const c of sorted) {
    pieces.push(bytes.slice(from, c));
    from = c;
  }
  pieces.push(bytes.slice(from));
  return pieces.filter((p) => p.length > 0);
}

/** Feeds byte pieces through the same layers postSSE uses (TextDecoder, sse.ts) into the decoder. */
export function decodePieces(pieces: Uint8Array[], onDelta?: (d: Delta) => void): Turn {
  const decoder = createStreamDecoder({}, onDelta);
  const parser = createSSEParser((ev) => decoder.push(ev));
  const text = new TextDecoder();
  for (const p of pieces) parser.feed(text.decode(p, { stream: true }));
  parser.feed(text.decode());
  return decoder.turn();
}

/** The JSON payloads of the `data:` lines of a raw SSE text (no [DONE]). */
export function sseData(text: string): Record<string, unknown>[] {
  return text
    .split("\n")
    .filter((l) => l.startsWith("data:"))
    .map((l) => l.slice(5).trim())
    .filter((d) => d !== "[DONE]")
    .map((d) => JSON.parse(d) as Record<string, unknown>);
}

/**
 * An independent reconstruction of the final message of a stream: start blocks, append
 * every delta, parse tool input JSON. It exists only to check the decoder's content.
 */
export function naiveContent(events: Record<string, unknown>[]): { content: Record<string, unknown>[]; stop: unknown } {
  let blocks: Record<string, unknown>[] = [];
  let json: string[] = [];
  let stop: unknown;
  for (const e of events) {
    const i = e.index as number;
    if (e.type === "message_start") {
      blocks = [];
      json = [];
    } else if (e.type === "content_block_start") {
      blocks[i] = structuredClone(e.content_block) as Record<string, unknown>;
      json[i] = "";
    } else if (e.type === "content_block_delta") {
      const d = e.delta as Record<string, string>;
      const b = blocks[i]!;
      if (d.type === "text_delta") b.text = String(b.text) + d.text;
      if (d.type === "thinking_delta") b.thinking = String(b.thinking) + d.thinking;
      if (d.type === "signature_delta") b.signature = String(b.signature ?? "") + d.signature;
      if (d.type === "input_json_delta") json[i] = (json[i] ?? "") + String(d.partial_json);
      if (d.type === "citations_delta") b.citations = [...((b.citations as unknown[]) ?? []), (e.delta as Record<string, unknown>).citation];
    } else if (e.type === "message_delta") {
      stop = (e.delta as Record<string, unknown>).stop_reason;
    }
  }
  blocks.forEach((b, i) => {
    if (json[i]) b.input = JSON.parse(json[i]!);
  });
  return { content: blocks, stop };
}

// ---------------------------------------------------------------------------------------
// The official request schema

let spec: { components: { schemas: Record<string, unknown> } } | undefined;

export function anthropicSpec(): { components: { schemas: Record<string, unknown> } } {
  spec ??= JSON.parse(readFileSync(SPEC_PATH, "utf8")) as { components: { schemas: Record<string, unknown> } };
  return spec;
}

/**
 * A validator for one schema of the spec's components (refs resolved inside the spec).
 * `nullableOptional`: the Stainless spec lists every field as required, including the
 * nullable ones the API leaves out of its JSON (a text block's `citations`, usage's
 * `server_tool_use`...); with this flag a nullable field may be absent, as on the wire.
 */
export function specValidator(name: string, options: { nullableOptional?: boolean } = {}): (value: unknown) => string[] {
  let { components } = anthropicSpec();
  if (options.nullableOptional) components = relaxNullable(structuredClone(components));
  const v = new Validator({ $ref: `#/components/schemas/${name}`, components } as never, "2020-12", false);
  return (value) => {
    const r = v.validate(value);
    return r.valid ? [] : r.errors.map((e) => `${e.instanceLocation}: ${e.error}`);
  };
}

function acceptsNull(schema: unknown): boolean {
  if (typeof schema !== "object" || schema === null) return false;
  const s = schema as Record<string, unknown>;
  if (s.type === "null" || (Array.isArray(s.type) && s.type.includes("null"))) return true;
  return ["anyOf", "oneOf"].some((k) => Array.isArray(s[k]) && (s[k] as unknown[]).some(acceptsNull));
}

function relaxNullable<T>(node: T): T {
  if (Array.isArray(node)) node.forEach(relaxNullable);
  else if (typeof node === "object" && node !== null) {
    const s = node as Record<string, unknown>;
    if (Array.isArray(s.required) && typeof s.properties === "object" && s.properties !== null) {
      const props = s.properties as Record<string, unknown>;
      s.required = (s.required as string[]).filter((k) => !acceptsNull(props[k]));
    }
    for (const v of Object.values(s)) relaxNullable(v);
  }
  return node;
}
