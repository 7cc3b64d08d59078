import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { createClient, isToolloopError, jsonSchema, tool, type UserMessage } from "../../src/index.js";
import { scriptedProvider } from "../../src/testing.js";
import { historyProblems, settle } from "./helpers.js";

const Report = v.object({
  title: v.pipe(v.string(), v.description("Short title.")),
  score: v.pipe(v.number(), v.minValue(0), v.maxValue(10)),
  tags: v.array(v.string()),
});

describe("ask()", () => {
  it("resolves to the validated, typed value and sends the schema as responseSchema", async () => {
    const provider = scriptedProvider(['{"title":"Q3","score":7,"tags":["a"]}']);
    const client = createClient({ provider });
    const report = await client.ask("Summarise.", Report);
    // typed: these compile only if ask() returned the schema's output type
    const title: string = report.title;
    const score: number = report.score;
    expect({ title, score, tags: report.tags }).toEqual({ title: "Q3", score: 7, tags: ["a"] });
    expect(provider.requests).toHaveLength(1);
    expect(provider.requests[0]!.responseSchema).toEqual({
      name: "response",
      schema: {
        type: "object",
        properties: {
          title: { type: "string", description: "Short title." },
          score: { type: "number", minimum: 0, maximum: 10 },
          tags: { type: "array", items: { type: "string" } },
        },
        required: ["title", "score", "tags"],
      },
    });
  });

  it("applies valibot transforms to the answer", async () => {
    const provider = scriptedProvider(['```json\n{"when":"2024-01-02"}\n```']);
    const schema = v.object({
      when: v.pipe(
        v.string(),
        v.transform((s) => s.split("-").map(Number)),
      ),
    });
    expect(await createClient({ provider }).ask("When?", schema)).toEqual({ when: [2024, 1, 2] });
  });

  it("accepts a raw JSON Schema wrapped with jsonSchema(), and refuses an unwrapped one", async () => {
    const provider = scriptedProvider(['{"n":3}']);
    const raw = { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { n: { type: "integer" } }, required: ["n"] };
    expect(await createClient({ provider }).ask("n?", jsonSchema<{ n: number }>(raw))).toEqual({ n: 3 });
    expect(provider.requests[0]!.responseSchema!.schema).toEqual({ type: "object", properties: { n: { type: "integer" } }, required: ["n"] });
    await expect(createClient({ provider }).ask("n?", raw as never)).rejects.toThrow(/jsonSchema\(\)/);
    expect(provider.requests[0]!.responseSchema!.schema).not.toHaveProperty("$schema");
  });

  it("re-asks once with the issues and the schema, and resolves when the second answer fits", async () => {
    const provider = scriptedProvider(['{"title":"Q3","score":11,"tags":[]}', '{"title":"Q3","score":10,"tags":[]}']);
    const client = createClient({ provider });
    expect(await client.ask("Summarise.", Report)).toEqual({ title: "Q3", score: 10, tags: [] });
    expect(provider.requests).toHaveLength(2);
    const reask = provider.requests[1]!.messages.at(-1) as UserMessage;
    expect(reask.role).toBe("user");
    expect(reask.content).toContain("/score");
    expect(reask.content).toContain('"maximum":10');
    expect(provider.requests[1]!.responseSchema).toEqual(provider.requests[0]!.responseSchema);
  });

  it("an answer that is not JSON gets one re-ask, then StructuredOutputError (code structured_output)", async () => {
    const provider = scriptedProvider(["Sure! The title is Q3.", "I really cannot do JSON."]);
    const client = createClient({ provider });
    const r = await settle(client.ask("Summarise.", Report));
    expect(r.ok).toBe(false);
    const err = (r as { error: { code: string; text: string; issues: unknown[] } }).error;
    expect(isToolloopError(err, "structured_output")).toBe(true);
    expect(err.code).toBe("structured_output");
    expect(err.text).toBe("I really cannot do JSON.");
    expect(err.issues.length).toBeGreaterThan(0);
    expect(provider.requests).toHaveLength(2);
    const reask = provider.requests[1]!.messages.at(-1) as UserMessage;
    expect(reask.content).toContain("not valid JSON");
    expect(reask.content).toContain('"required":["title","score","tags"]');
    expect(historyProblems(client.history)).toEqual([]);
  });

  it("can use tools before answering", async () => {
    const lookup = tool({ name: "lookup", description: "A test tool.", input: v.object({}), run: () => "score is 4" });
    const provider = scriptedProvider([{ toolCalls: [{ name: "lookup" }] }, '{"title":"T","score":4,"tags":[]}']);
    const client = createClient({ provider, tools: [lookup] });
    expect(await client.ask("Report?", Report)).toEqual({ title: "T", score: 4, tags: [] });
    expect(provider.requests.every((r) => r.responseSchema !== undefined)).toBe(true);
  });

  it("holds the client for both the question and its re-ask: a concurrent chat() does not slip in between", async () => {
    const provider = scriptedProvider(["not json", '{"title":"T","score":1,"tags":[]}', "chat answer"]);
    const client = createClient({ provider });
    const asked = client.ask("Report?", Report);
    const chatted = client.chat("Unrelated question");
    expect(await asked).toEqual({ title: "T", score: 1, tags: [] });
    expect(await chatted).toBe("chat answer");
    const h = client.history;
    expect(h.map((m) => (m.role === "user" ? `user:${m.content.slice(0, 12)}` : `${m.role}:${(m as { content?: string }).content}`))).toEqual([
      "user:Report?",
      "assistant:not json",
      "user:Your answer ",
      'assistant:{"title":"T","score":1,"tags":[]}',
      "user:Unrelated qu",
      "assistant:chat answer",
    ]);
  });
});
