// Thought summaries (issue 15): thinkingConfig.includeThoughts is off unless asked for; when on,
// a stream reports the `thought: true` parts as reasoning-delta (never as text), the usage
// counts the thinking as reasoningTokens, and the thoughtSignature keeps round-tripping.

import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { createClient, type StreamEvent, tool } from "../../src/index.js";
import { providerFor, withMock } from "./helpers.js";
import { validateRequestBody } from "./spec.js";

const weather = tool({ name: "get_weather", description: "Weather.", input: v.object({ city: v.string() }), run: async ({ city }) => `${city}: 21` });
type Body = { contents: { role: string; parts: Record<string, any>[] }[]; generationConfig?: Record<string, any> };

async function events(iter: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of iter) out.push(e);
  return out;
}

describe("gemini thought summaries", () => {
  it("are not asked for by default: no thinkingConfig, no reasoning events", async () => {
    await withMock({ script: [{ text: "Hi.", thoughts: "The user greets me." }] }, async (mock) => {
      const client = createClient({ provider: providerFor(mock) });
      const evs = await events(client.stream("hello"));
      expect((mock.requests[0]!.body as Body).generationConfig).toBeUndefined();
      expect(evs.some((e) => e.type === "reasoning-delta")).toBe(false);
      // the thinking is still billed and reported
      const finish = evs.find((e) => e.type === "finish") as Extract<StreamEvent, { type: "finish" }>;
      expect(finish.usage.reasoningTokens).toBeGreaterThan(0);
    });
  });

  it("with includeThoughts: reasoning-delta events before the text, the answer without them, and the signature replayed", async () => {
    const script = [
      {
        thoughts: "I should look up the weather in Oslo first.",
        toolCalls: [{ name: "get_weather", input: { city: "Oslo" } }],
        thoughtSignature: "c2lnLW9zbG8=",
      },
      { thoughts: "Now I can answer.", text: "It is 21 in Oslo." },
    ];
    await withMock({ script }, async (mock) => {
      const client = createClient({ provider: providerFor(mock, { thinking: { includeThoughts: true } }), tools: [weather] });
      const evs = await events(client.stream("Weather in Oslo?"));
      const reasoning = evs
        .filter((e) => e.type === "reasoning-delta")
        .map((e) => (e as { text: string }).text)
        .join("");
      expect(reasoning).toBe("I should look up the weather in Oslo first.Now I can answer.");
      const text = evs
        .filter((e) => e.type === "text-delta")
        .map((e) => (e as { text: string }).text)
        .join("");
      expect(text).toBe("It is 21 in Oslo.");
      // each step's reasoning comes before its text and tool calls
      const firstReasoning = evs.findIndex((e) => e.type === "reasoning-delta");
      expect(firstReasoning).toBeLessThan(evs.findIndex((e) => e.type === "tool-call"));
      const finish = evs.find((e) => e.type === "finish") as Extract<StreamEvent, { type: "finish" }>;
      expect(finish.text).toBe("It is 21 in Oslo.");
      expect(finish.usage.reasoningTokens).toBeGreaterThan(0);
      expect(finish.usage.outputTokens).toBeGreaterThan(finish.usage.reasoningTokens!);

      const [first, second] = mock.requests.map((r) => r.body as Body);
      expect(first!.generationConfig).toEqual({ thinkingConfig: { includeThoughts: true } });
      // the model turn goes back with its thought summary and the signature on the call (the mock refuses it otherwise)
      const model = second!.contents[1]!;
      expect(model.role).toBe("model");
      expect(model.parts[0]).toEqual({ text: "I should look up the weather in Oslo first.", thought: true });
      expect(model.parts[1]).toMatchObject({ functionCall: { name: "get_weather" }, thoughtSignature: "c2lnLW9zbG8=" });
      for (const r of mock.requests) expect(validateRequestBody(r.body)).toEqual([]);
      // the history stays plain JSON and the answer text never holds the thoughts
      const history = JSON.parse(JSON.stringify(client.history)) as typeof client.history;
      const last = history[history.length - 1]!;
      expect(last).toMatchObject({ role: "assistant", content: "It is 21 in Oslo." });
    });
  });

  it("chat (generateContent): the same request, the thoughts kept out of the answer", async () => {
    await withMock({ script: [{ thoughts: "Simple.", text: "Hi." }] }, async (mock) => {
      const client = createClient({ provider: providerFor(mock, { thinking: { includeThoughts: true, level: "low" } }) });
      expect(await client.chat("hello")).toBe("Hi.");
      expect((mock.requests[0]!.body as Body).generationConfig).toEqual({ thinkingConfig: { includeThoughts: true, thinkingLevel: "LOW" } });
      expect(mock.requests[0]!.url).toContain(":generateContent");
    });
  });
});
