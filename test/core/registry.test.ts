import * as v from "valibot";
import { describe, expect, it, vi } from "vitest";
import { InvalidToolError } from "../../src/base/errors.js";
import { createClient, isToolloopError, jsonTool, type Tool, tool, webSearch } from "../../src/index.js";
import { scriptedProvider } from "../../src/testing.js";

const named = (name: string, run: () => unknown = () => `ran ${name}`): Tool => tool({ name, description: `tool ${name}`, input: v.object({}), run });

function thrown(fn: () => void): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe("registry: names", () => {
  it("lower-cases the name sent to the model", async () => {
    const provider = scriptedProvider(["done"]);
    const client = createClient({ provider, tools: [named("Get_Weather"), named("LOOKUP")] });
    await client.chat("hi");
    expect(provider.requests[0]!.tools.map((t) => t.name)).toEqual(["get_weather", "lookup"]);
  });

  it("finds the tool when the model calls it in another case, and names the result lower-cased", async () => {
    const run = vi.fn(() => "sunny");
    const provider = scriptedProvider([{ toolCalls: [{ name: "GET_weather", id: "c1" }] }, "ok"]);
    const client = createClient({ provider, tools: [named("Get_Weather", run)] });
    await client.chat("hi");
    expect(run).toHaveBeenCalledTimes(1);
    expect(client.history[2]).toEqual({
      role: "tool",
      results: [{ callId: "c1", name: "get_weather", output: "sunny", isError: false }],
    });
  });

  it("throws ToolNameCollisionError for names that differ only in case", () => {
    const client = createClient({ provider: scriptedProvider([]) });
    const err = thrown(() => client.setTools([named("Search"), named("search")]));
    expect(isToolloopError(err, "tool_name_collision")).toBe(true);
    expect((err as { names: string[] }).names).toEqual(["Search", "search"]);
  });

  it("throws ToolNameCollisionError for exact duplicates", () => {
    const client = createClient({ provider: scriptedProvider([]) });
    const err = thrown(() => client.setTools([named("search"), named("other"), named("search")]));
    expect(isToolloopError(err, "tool_name_collision")).toBe(true);
    expect((err as Error).message).toContain('"search"');
  });

  it("throws the collision from createClient({ tools }) too", () => {
    expect(() => createClient({ provider: scriptedProvider([]), tools: [named("a"), named("A")] })).toThrow(
      expect.objectContaining({ code: "tool_name_collision" }),
    );
  });

  it.each(["", "has space", "dots.not.allowed", "ünïcode", "a".repeat(65), "slash/name", "semi;colon"])("throws InvalidToolNameError for %j", (name) => {
    const t: Tool = { name, description: "A test tool.", parameters: { type: "object" }, call: async () => "" };
    const err = thrown(() => createClient({ provider: scriptedProvider([]) }).setTools([t]));
    expect(isToolloopError(err, "invalid_tool_name")).toBe(true);
    expect((err as { toolName: string }).toolName).toBe(name);
  });

  it.each(["a", "A-b_C-9", "x".repeat(64), "123"])("accepts the valid name %j", (name) => {
    const t: Tool = { name, description: "A test tool.", parameters: { type: "object" }, call: async () => "" };
    expect(() => createClient({ provider: scriptedProvider([]) }).setTools([t])).not.toThrow();
  });

  it("throws InvalidToolError for something that is not a Tool", () => {
    const client = createClient({ provider: scriptedProvider([]) });
    expect(() => client.setTools([{ name: "x" } as unknown as Tool])).toThrow(expect.objectContaining({ code: "invalid_tool" }));
    expect(() => client.setTools("nope" as unknown as Tool[])).toThrow(InvalidToolError);
  });
});

describe("registry: web_search", () => {
  it("sets request.webSearch and sends no function named web_search", async () => {
    const provider = scriptedProvider(["done"]);
    const client = createClient({ provider, tools: [webSearch(), named("lookup")] });
    await client.chat("news?");
    const req = provider.requests[0]!;
    expect(req.webSearch).toBe(true);
    expect(req.tools.map((t) => t.name)).toEqual(["lookup"]);
  });

  it("treats any tool named web_search (in any case) as the native search marker", async () => {
    const provider = scriptedProvider(["done"]);
    const client = createClient({
      provider,
      tools: [jsonTool({ name: "Web_Search", description: "A test tool.", parameters: { type: "object" }, run: () => "" })],
    });
    await client.chat("news?");
    expect(provider.requests[0]!.webSearch).toBe(true);
    expect(provider.requests[0]!.tools).toEqual([]);
  });

  it("sends webSearch false without it", async () => {
    const provider = scriptedProvider(["done"]);
    await createClient({ provider, tools: [named("lookup")] }).chat("x");
    expect(provider.requests[0]!.webSearch).toBe(false);
  });
});

describe("setTools", () => {
  it("replaces the whole set, never merges", async () => {
    const provider = scriptedProvider(["one", "two", "three"]);
    const client = createClient({ provider, tools: [named("a"), named("b")] });
    await client.chat("1");
    client.setTools([named("c")]);
    await client.chat("2");
    client.setTools([]);
    await client.chat("3");
    expect(provider.requests.map((r) => r.tools.map((t) => t.name))).toEqual([["a", "b"], ["c"], []]);
  });

  it("throws synchronously, and a rejected set leaves the previous set in place", async () => {
    const provider = scriptedProvider(["done"]);
    const client = createClient({ provider, tools: [named("keep")] });
    let threw = false;
    try {
      client.setTools([named("x"), named("X")]);
    } catch {
      threw = true;
    }
    expect(threw).toBe(true);
    await client.chat("hi");
    expect(provider.requests[0]!.tools.map((t) => t.name)).toEqual(["keep"]);
  });

  it("runs the provider's checkTools with the specs, and its throw surfaces from setTools", () => {
    const checkTools = vi.fn((specs: readonly { name: string }[]) => {
      if (specs.some((s) => s.name === "bad")) throw new Error("unsupported");
    });
    const provider = { ...scriptedProvider([]), checkTools };
    const client = createClient({ provider });
    client.setTools([named("Good")]);
    expect(checkTools).toHaveBeenLastCalledWith([{ name: "good", description: "tool Good", parameters: { type: "object", properties: {}, required: [] } }]);
    expect(() => client.setTools([named("bad")])).toThrow("unsupported");
  });

  it("throws ToolsNotSupportedError for a provider without tool support, unless the set is empty", () => {
    const provider = { ...scriptedProvider([]), supportsTools: false };
    const client = createClient({ provider });
    expect(() => client.setTools([named("a")])).toThrow(expect.objectContaining({ code: "tools_not_supported" }));
    expect(() => client.setTools([])).not.toThrow();
  });
});

describe("schemas served without a type", () => {
  it("a raw Tool whose schema has no type is sent as an object schema; the Tool keeps its schema as given", async () => {
    const { createRegistry } = await import("../../src/tools/registry.js");
    const parameters = { $schema: "https://json-schema.org/draft/2020-12/schema", properties: { q: { type: "string" } } };
    const raw = { name: "Remote", description: "d", parameters, call: async () => "ok" };
    const r = createRegistry([raw]);
    expect(r.specs[0]!.parameters).toEqual({ type: "object", ...parameters });
    expect(raw.parameters).toEqual(parameters);
    expect("type" in raw.parameters).toBe(false);
  });
});

describe("a tool's timeout and a hand-written tool's output", () => {
  it("a timeout that is not a positive number of ms is refused when the tools are set (it would mean none)", () => {
    for (const timeout of [0, -5, Number.NaN, Infinity, "100"]) {
      const t = { ...named("slowpoke"), timeout } as unknown as Tool;
      expect(() => createClient({ provider: scriptedProvider([]), tools: [t] }), String(timeout)).toThrow(InvalidToolError);
    }
    expect(() => createClient({ provider: scriptedProvider([]), tools: [{ ...named("ok"), timeout: 10 }] })).not.toThrow();
  });

  it("a hand-written tool that resolves to something other than a string is JSON-encoded, as tool()'s values are", async () => {
    const returns = (name: string, value: unknown): Tool => ({
      name,
      description: "A test tool.",
      parameters: { type: "object" },
      call: async () => value as string,
    });
    const provider = scriptedProvider([{ toolCalls: [{ name: "obj" }, { name: "undef" }, { name: "num" }] }, "ok"]);
    const client = createClient({ provider, tools: [returns("obj", { a: 1 }), returns("undef", undefined), returns("num", 5)] });
    await client.chat("go");
    const tool = client.history.find((m) => m.role === "tool") as { results: { output: string; isError: boolean }[] };
    expect(tool.results.map((r) => [r.output, r.isError])).toEqual([
      ['{"a":1}', false],
      ["null", false],
      ["5", false],
    ]);
  });
});
