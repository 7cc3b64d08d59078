// Misuse gets a typed error that says what to do, at the call that made the mistake:
// schemas that no model could fill, missing options, a search marker a provider cannot honour.
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { claude } from "../../adapters/claude/index.js";
import { gemini } from "../../adapters/gemini/index.js";
import { openai, openaiChat, openaiCompatible } from "../../adapters/openai/index.js";
import { createClient, isToolloopError, jsonTool, toJSONSchema, tool, type UnsupportedSchemaError, webSearch } from "../../src/index.js";
import { scriptedProvider } from "../../src/testing.js";

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error("expected a throw");
}

const build = (input: v.GenericSchema) => () => tool({ name: "when_free", description: "d", input: input as never, run: () => "ok" });

describe("valibot schemas with no JSON Schema form are refused when the tool is built", () => {
  it.each([
    ["v.date()", v.object({ when: v.date() }), "/properties/when", "when", "date"],
    ["v.custom()", v.object({ id: v.custom<string>((x) => typeof x === "string") }), "/properties/id", "id", "custom"],
    ["v.map() in a nested object", v.object({ a: v.object({ m: v.map(v.string(), v.number()) }) }), "/properties/a/properties/m", "m", "map"],
    ["v.optional(v.date())", v.object({ at: v.optional(v.date()) }), "/properties/at", "at", "date"],
    ["an array of v.bigint()", v.object({ ns: v.array(v.bigint()) }), "/properties/ns/items", "ns", "bigint"],
    ["a union member", v.object({ u: v.union([v.string(), v.date()]) }), "/properties/u/anyOf/1", "u", "date"],
  ])("%s names the property", (_label, schema, path, prop, type) => {
    const err = thrown(build(schema));
    expect(isToolloopError(err, "unsupported_schema")).toBe(true);
    const e = err as UnsupportedSchemaError;
    expect(e.toolName).toBe("when_free");
    expect(e.path).toBe(path);
    expect(e.message).toContain(`property "${prop}"`);
    expect(e.message).toContain(`${type}()`);
    expect(e.message).toContain("when_free");
  });

  it("what does have a JSON Schema form still builds: checks and transforms are left to valibot", () => {
    const t = tool({
      name: "ok",
      description: "d",
      input: v.object({
        when: v.pipe(v.string(), v.isoDate()),
        // The model writes the string; valibot turns it into a Date before run() sees it.
        at: v.pipe(
          v.string(),
          v.transform((s) => new Date(s)),
          v.date(),
        ),
        even: v.pipe(
          v.number(),
          v.check((n) => n % 2 === 0),
        ),
        any: v.unknown(),
      }),
      run: ({ at }) => at.toISOString(),
    });
    expect(t.parameters).toMatchObject({ properties: { when: { type: "string", format: "date" }, at: { type: "string" }, even: { type: "number" } } });
  });

  it("ask() refuses such a schema too, before any request", async () => {
    const provider = scriptedProvider(["{}"]);
    const client = createClient({ provider });
    await expect(client.ask("when?", v.object({ when: v.date() }))).rejects.toMatchObject({ code: "unsupported_schema", path: "/properties/when" });
    expect(provider.requests).toHaveLength(0);
    expect(() => toJSONSchema(v.object({ when: v.date() }))).toThrow(/property "when"/);
  });
});

describe("missing options are typed errors, not TypeErrors", () => {
  it("createClient() with no argument, or without a provider", () => {
    for (const call of [() => (createClient as (o?: unknown) => unknown)(), () => createClient({} as never), () => createClient(null as never)]) {
      const err = thrown(call);
      expect(isToolloopError(err, "invalid_options")).toBe(true);
      expect((err as Error).message).toMatch(/provider/);
    }
  });

  it("tool() without input, or with a raw JSON Schema as input", () => {
    const noInput = thrown(() => tool({ name: "t", description: "d", run: () => "x" } as never));
    expect(isToolloopError(noInput, "invalid_tool")).toBe(true);
    expect((noInput as Error).message).toMatch(/"t" needs `input`/);
    const raw = thrown(() => tool({ name: "t", description: "d", input: { type: "object" }, run: () => "x" } as never));
    expect(isToolloopError(raw, "invalid_tool")).toBe(true);
    expect((raw as Error).message).toMatch(/jsonTool/);
    expect(
      isToolloopError(
        thrown(() => (tool as (o?: unknown) => unknown)()),
        "invalid_tool",
      ),
    ).toBe(true);
  });

  it("jsonTool() without parameters", () => {
    const err = thrown(() => jsonTool({ name: "t", description: "d", run: () => "x" } as never));
    expect(isToolloopError(err, "invalid_tool")).toBe(true);
    expect((err as Error).message).toMatch(/"t" needs `parameters`/);
    expect(
      isToolloopError(
        thrown(() => (jsonTool as (o?: unknown) => unknown)()),
        "invalid_tool",
      ),
    ).toBe(true);
  });
});

describe("provider factories without their required options", () => {
  it("claude(), openai(), openaiChat(), openaiCompatible() and gemini() without a model (or baseURL) throw invalid_options naming the factory", () => {
    const cases: [() => unknown, RegExp][] = [
      [() => claude({ apiKey: "k" } as never), /claude\(\) needs a model/],
      [() => openai({ apiKey: "k" } as never), /openai\(\) needs a model/],
      [() => openaiChat({ apiKey: "k" } as never), /openaiChat\(\) needs a model/],
      [() => openai({ apiKey: "k", model: "m", api: "chat" } as never), /openai\(\) speaks the Responses API only; for Chat Completions use openaiChat\(\)/],
      [() => openai({ apiKey: "k", model: "m", api: "completions" } as never), /use openaiChat\(\)/],
      [() => openai({ model: "m", api: "chat" } as never), /use openaiChat\(\)/], // before the missing key
      [() => openaiCompatible({ model: "m" } as never), /openaiCompatible\(\) needs a baseURL/],
      [() => gemini({ apiKey: "k" } as never), /gemini\(\) needs a model/],
      [() => (claude as (o?: unknown) => unknown)(), /claude\(\) needs a model/],
    ];
    for (const [call, message] of cases) {
      const err = thrown(call);
      expect(isToolloopError(err, "invalid_options"), String(err)).toBe(true);
      expect((err as Error).message).toMatch(message);
    }
  });
});

describe("webSearch() needs a provider with native search", () => {
  it("openaiCompatible: setTools throws, naming the provider and the alternative; the old set stays", () => {
    const provider = openaiCompatible({ baseURL: "http://127.0.0.1:1/v1", model: "qwen3", name: "ollama" });
    const client = createClient({ provider });
    const err = thrown(() => client.setTools([webSearch()]));
    expect(isToolloopError(err, "invalid_tool")).toBe(true);
    expect((err as Error).message).toMatch(/ollama provider has no native web search.*tavilySearch/);
    expect(() => createClient({ provider, tools: [webSearch()] })).toThrow(/no native web search/);
  });

  it("Claude, OpenAI (Responses and Chat Completions) and Gemini take it", () => {
    for (const provider of [
      claude({ apiKey: "sk-ant-test-key", model: "m" }),
      openai({ apiKey: "sk-test-key-123", model: "m" }),
      openaiChat({ apiKey: "sk-test-key-123", model: "m" }),
      gemini({ apiKey: "test-gemini-key", model: "m" }),
    ]) {
      expect(() => createClient({ provider, tools: [webSearch()] })).not.toThrow();
    }
  });
});
