// Parts a tool returns are checked as a saved history's parts are (one checker, history.ts's
// checkParts): a malformed part makes that call a tool error the model reads, never a thrown
// error, so what a run writes to the history always reloads with createClient({ history }).

import * as v from "valibot";
import { describe, expect, it } from "vitest";
import type { ContentPart } from "../../src/conversation/messages.js";
import { createClient, type Message, type Tool, type ToolResult, tool, toolOutput } from "../../src/index.js";
import { scriptedProvider } from "../../src/testing.js";

/** Each malformed part shape checkParts refuses, and what the model is told about it. */
const MALFORMED: { name: string; part: unknown; why: string }[] = [
  { name: "not an object", part: "a picture", why: "a content part must be an object" },
  { name: "null", part: null, why: "a content part must be an object" },
  {
    name: "an unknown type",
    part: { type: "audio", data: "AAAA", mediaType: "audio/wav" },
    why: 'unknown content part type "audio" (expected "text", "image" or "file")',
  },
  { name: "a text part without a string text", part: { type: "text", text: 42 }, why: 'a text part needs a string "text"' },
  {
    name: "an image with neither data nor url",
    part: { type: "image", mediaType: "image/png" },
    why: 'an image part needs exactly one of "data" (base64) or "url"',
  },
  {
    name: "an image with empty data",
    part: { type: "image", mediaType: "image/png", data: "" },
    why: 'an image part needs exactly one of "data" (base64) or "url"',
  },
  {
    name: "an image with both data and url",
    part: { type: "image", mediaType: "image/png", data: "AAAA", url: "https://x.test/y.png" },
    why: 'an image part needs exactly one of "data" (base64) or "url"',
  },
  {
    name: "a file with both data and url",
    part: { type: "file", mediaType: "application/pdf", data: "AAAA", url: "https://x.test/y.pdf" },
    why: 'a file part needs exactly one of "data" (base64) or "url"',
  },
  { name: "an image's base64 data without mediaType", part: { type: "image", data: "AAAA" }, why: 'an image part needs a "mediaType"' },
  { name: "a file (data) without mediaType", part: { type: "file", data: "AAAA" }, why: 'a file part needs a "mediaType"' },
  { name: "a file (url) without mediaType", part: { type: "file", url: "https://x.test/r.pdf" }, why: 'a file part needs a "mediaType"' },
  {
    name: 'base64 data with a "data:" prefix',
    part: { type: "image", mediaType: "image/png", data: "data:image/png;base64,AAAA" },
    why: '"data" is base64 without a "data:" prefix (or pass the data: URL as "url")',
  },
];

const GOOD: ContentPart = { type: "text", text: "here it is" };

/** A tool() whose run returns toolOutput(parts), and a hand-written Tool whose call resolves to { content }. */
const makers: Record<string, (parts: unknown[]) => Tool> = {
  "toolOutput() from a tool()'s run": (parts) =>
    tool({ name: "shot", description: "Takes a screenshot.", input: v.object({}), run: async () => toolOutput(parts as ContentPart[]) }),
  "{ content } from a hand-written Tool.call": (parts) => ({
    name: "shot",
    description: "Takes a screenshot.",
    parameters: { type: "object", properties: {} },
    call: async () => ({ content: parts as ContentPart[] }),
  }),
};

function toolResults(history: readonly Message[]): ToolResult[] {
  return history.flatMap((m) => (m.role === "tool" ? m.results : []));
}

describe.each(Object.entries(makers))("a malformed part a tool returns (%s)", (_how, make) => {
  for (const c of MALFORMED) {
    it(`${c.name}: the call is a tool error naming the part, the model is told, the history reloads`, async () => {
      const provider = scriptedProvider([{ toolCalls: [{ id: "c1", name: "shot", arguments: {} }] }, "I could not see it", "still here"]);
      const client = createClient({ provider, tools: [make([GOOD, c.part])] });
      expect(await client.chat("take a screenshot")).toBe("I could not see it");

      const expected = JSON.stringify({ error: `tool "shot" returned content[1]: ${c.why}` });
      const [result] = toolResults(client.history);
      expect(result).toEqual({ callId: "c1", name: "shot", output: expected, isError: true });
      // the model read it as the call's result
      const sent = toolResults(provider.requests[1]!.messages);
      expect(sent).toEqual([expect.objectContaining({ callId: "c1", output: expected, isError: true })]);

      // saved as JSON, the history comes back in a new client, which goes on from it
      const saved = JSON.parse(JSON.stringify(client.history)) as Message[];
      const again = createClient({ provider: scriptedProvider(["resumed"]), history: saved });
      expect(again.history).toEqual(saved);
      expect(await again.chat("and now?")).toBe("resumed");
      // the first client is not stuck either
      expect(await client.chat("hello")).toBe("still here");
    });
  }

  it("well-formed parts pass as the checker gives them back (what a saved history reloads as)", async () => {
    const parts = [
      GOOD,
      { type: "image", mediaType: "image/png", data: "AAAA", note: "extra" },
      { type: "file", url: "https://x.test/r.pdf", mediaType: "application/pdf", filename: "r.pdf" },
    ];
    const provider = scriptedProvider([{ toolCalls: [{ id: "c1", name: "shot", arguments: {} }] }, "seen"]);
    const client = createClient({ provider, tools: [make(parts)] });
    expect(await client.chat("take a screenshot")).toBe("seen");
    const [result] = toolResults(client.history);
    const content = [
      GOOD,
      { type: "image", mediaType: "image/png", data: "AAAA" },
      { type: "file", url: "https://x.test/r.pdf", mediaType: "application/pdf", filename: "r.pdf" },
    ];
    expect(result).toEqual({ callId: "c1", name: "shot", output: "here it is\n[image image/png]\n[file r.pdf application/pdf]", isError: false, content });
    const saved = JSON.parse(JSON.stringify(client.history)) as Message[];
    expect(createClient({ provider: scriptedProvider([]), history: saved }).history).toEqual(saved);
  });

  it("every part is checked: the first malformed one is named", async () => {
    const provider = scriptedProvider([{ toolCalls: [{ id: "c1", name: "shot", arguments: {} }] }, "ok"]);
    const client = createClient({ provider, tools: [make([GOOD, GOOD, { type: "file", data: "AAAA" }, null])] });
    await client.chat("go");
    expect(toolResults(client.history)[0]!.output).toBe(JSON.stringify({ error: 'tool "shot" returned content[2]: a file part needs a "mediaType"' }));
  });
});

describe("a stream reports the refused parts as the call's error result", () => {
  it("tool-result carries the error, no content", async () => {
    const provider = scriptedProvider([{ toolCalls: [{ id: "c1", name: "shot", arguments: {} }] }, "done"]);
    const client = createClient({ provider, tools: [makers["toolOutput() from a tool()'s run"]!([{ type: "image", data: "AAAA" }])] });
    const results: unknown[] = [];
    for await (const e of client.stream("go")) if (e.type === "tool-result") results.push(e);
    expect(results).toEqual([
      expect.objectContaining({
        callId: "c1",
        isError: true,
        output: JSON.stringify({ error: 'tool "shot" returned content[0]: an image part needs a "mediaType"' }),
      }),
    ]);
    expect((results[0] as { content?: unknown }).content).toBeUndefined();
  });
});
