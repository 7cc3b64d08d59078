// Paths and loaders for the recorded Gemini traffic in test/fixtures/gemini.
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseYaml } from "./yaml.js";

export const FIXTURES = fileURLToPath(new URL("../fixtures/gemini/", import.meta.url));

export function fixtureText(rel: string): string {
  return readFileSync(FIXTURES + rel, "utf8");
}

export function fixtureJSON(rel: string): unknown {
  return JSON.parse(fixtureText(rel));
}

export function fixtureFiles(dir: "vercel-ai" | "pydantic-ai"): string[] {
  return readdirSync(FIXTURES + dir)
    .sort()
    .map((f) => `${dir}/${f}`);
}

/** JSON Lines (.chunks.txt) → the raw SSE bytes vercel's tests replay: `data: <line>\r\n\r\n`. */
export function chunksToSSE(rel: string): string {
  return fixtureText(rel)
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => `data: ${l}\r\n\r\n`)
    .join("");
}

export interface Interaction {
  request: { method: string; uri: string; parsed_body: Record<string, unknown> };
  response: { status: { code: number }; body?: { string: string }; parsed_body?: unknown; headers: Record<string, string[]> };
}

export function cassette(rel: string): Interaction[] {
  return (parseYaml(fixtureText(rel)) as { interactions: Interaction[] }).interactions;
}

/** The OpenAPI 3.0 export of v1beta (components.schemas). */
export function openapi(): { components: { schemas: Record<string, Record<string, unknown>> } } {
  return fixtureJSON("generativelanguage-v1beta.openapi.json") as never;
}
