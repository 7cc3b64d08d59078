// Usage that matches the bill (issue 15) over real HTTP: per step and in total, the mock's
// implicit cache reported as cacheReadTokens (a part of inputTokens), thinking as
// reasoningTokens (a part of outputTokens), grounding prompts as input; and the prefix the
// cache depends on (tools, system instruction) serialised byte-identically step to step.

import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { createClient, type StreamEvent, tool, webSearch } from "../../src/index.js";
import type { MockTurn } from "../mock/gemini.js";
import { providerFor, withMock } from "./helpers.js";

const lookup = tool({ name: "lookup", description: "Looks a word up.", input: v.object({ word: v.string() }), run: async ({ word }) => `${word}: a word` });
const define = tool({
  name: "define",
  description: "Defines a word.",
  input: v.object({ word: v.string() }),
  run: async ({ word }) => `${word} means ${word}`,
});

// ~1,500 tokens at 4 characters a token: past the implicit cache's 1,024-token minimum
const LONG = "Context paragraph. ".repeat(320);

describe("gemini usage over a run", () => {
  it("implicit cache reads, thinking and totals per step", async () => {
    const script: MockTurn[] = [
      { toolCalls: [{ name: "lookup", input: { word: "a" } }], thoughtSignature: "c2ln" },
      { toolCalls: [{ name: "lookup", input: { word: "b" } }] },
      { text: "done" },
    ];
    await withMock({ script }, async (mock) => {
      const client = createClient({ provider: providerFor(mock), tools: [lookup], systemPrompt: "Be brief." });
      const steps: Extract<StreamEvent, { type: "step-finish" }>[] = [];
      let finish: Extract<StreamEvent, { type: "finish" }> | undefined;
      for await (const e of client.stream(`${LONG}\nLook up a, then b.`)) {
        if (e.type === "step-finish") steps.push(e);
        if (e.type === "finish") finish = e;
      }
      expect(steps).toHaveLength(3);
      const [s1, s2, s3] = steps.map((s) => s.usage);
      // the first request has nothing cached; each later one reads the earlier prefix
      expect(s1!.cacheReadTokens).toBeUndefined();
      expect(s2!.cacheReadTokens).toBeGreaterThanOrEqual(1024);
      expect(s3!.cacheReadTokens).toBeGreaterThan(s2!.cacheReadTokens!);
      for (const u of [s2!, s3!]) expect(u.cacheReadTokens!).toBeLessThanOrEqual(u.inputTokens);
      // thinking is output, reported apart
      expect(s1!.reasoningTokens).toBe(7);
      expect(s1!.outputTokens).toBeGreaterThan(7);
      expect(s2!.reasoningTokens).toBeUndefined();
      // the total is the sum of the steps
      const sum = (k: "inputTokens" | "outputTokens" | "cacheReadTokens" | "reasoningTokens") => steps.reduce((n, s) => n + (s.usage[k] ?? 0), 0);
      expect(finish!.usage).toMatchObject({
        inputTokens: sum("inputTokens"),
        outputTokens: sum("outputTokens"),
        cacheReadTokens: sum("cacheReadTokens"),
        reasoningTokens: 7,
      });
    });
  });

  it("grounding prompts are input; searches are counted", async () => {
    await withMock({ script: [{ text: "Found it." }] }, async (mock) => {
      const client = createClient({ provider: providerFor(mock), tools: [webSearch()] });
      let usage: Extract<StreamEvent, { type: "finish" }>["usage"] | undefined;
      for await (const e of client.stream("news?")) if (e.type === "finish") usage = e.usage;
      const prompt = Math.ceil(JSON.stringify((mock.requests[0]!.body as { contents: unknown }).contents).length / 4);
      expect(usage).toMatchObject({ inputTokens: prompt + 11, webSearches: 1 });
    });
  });

  it("tools and system instruction are byte-identical from step to step and after setTools of the same set", async () => {
    const script: MockTurn[] = [{ toolCalls: [{ name: "lookup", input: { word: "a" } }] }, { text: "one" }, { text: "two" }];
    await withMock({ script }, async (mock) => {
      const client = createClient({ provider: providerFor(mock), tools: [lookup, define], systemPrompt: "Be brief." });
      await client.chat("first");
      client.setTools([lookup, define]);
      await client.chat("second");
      const prefixes = mock.requests.map((r) => {
        const body = r.body as Record<string, unknown>;
        return JSON.stringify([body.systemInstruction, body.tools, body.toolConfig, body.generationConfig]);
      });
      expect(new Set(prefixes).size).toBe(1);
      // and each request's contents start with the previous request's (what the cache reads)
      const contents = mock.requests.map((r) => JSON.stringify((r.body as { contents: unknown[] }).contents).slice(0, -1));
      for (let i = 1; i < contents.length; i++) expect(contents[i]!.startsWith(contents[i - 1]!)).toBe(true);
    });
  });
});
