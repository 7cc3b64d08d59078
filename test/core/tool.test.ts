import * as v from "valibot";
import { describe, expect, it, vi } from "vitest";
import { isToolloopError, jsonTool, silentLogger, type Tool, type ToolContext, tool } from "../../src/index.js";
import { settle } from "./helpers.js";

const ctx = (): ToolContext => ({ signal: new AbortController().signal, callId: "call_test", logger: silentLogger });

describe("tool(): schema", () => {
  it("converts a valibot schema to JSON Schema, carrying titles and descriptions at every level", () => {
    const t = tool({
      name: "forecast",
      description: "Forecast for a city.",
      input: v.object({
        city: v.pipe(v.string(), v.title("City"), v.description("City name.")),
        days: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.description("Days ahead."))),
        unit: v.picklist(["c", "f"]),
        tags: v.array(v.pipe(v.string(), v.description("A tag."))),
        where: v.pipe(v.object({ lat: v.number() }), v.title("Where"), v.description("Coordinates.")),
      }),
      run: () => "ok",
    });
    expect(t.name).toBe("forecast");
    expect(t.description).toBe("Forecast for a city.");
    expect(t.parameters).toEqual({
      type: "object",
      properties: {
        city: { type: "string", title: "City", description: "City name." },
        days: { type: "integer", minimum: 1, description: "Days ahead." },
        unit: { type: "string", enum: ["c", "f"] },
        tags: { type: "array", items: { type: "string", description: "A tag." } },
        where: {
          type: "object",
          properties: { lat: { type: "number" } },
          required: ["lat"],
          title: "Where",
          description: "Coordinates.",
        },
      },
      required: ["city", "unit", "tags", "where"],
    });
    expect(t.parameters).not.toHaveProperty("$schema");
  });

  it("jsonTool() takes a raw JSON Schema as the parameters (minus $schema) and validates against it", async () => {
    const run = vi.fn((input: { n: number }) => input.n * 2);
    const t = jsonTool({
      name: "double",
      description: "Doubles n.",
      parameters: {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: { n: { type: "integer", description: "The number." } },
        required: ["n"],
        additionalProperties: false,
      },
      run,
    });
    expect(t.parameters).toEqual({
      type: "object",
      properties: { n: { type: "integer", description: "The number." } },
      required: ["n"],
      additionalProperties: false,
    });
    expect(await t.call('{"n":21}', ctx())).toBe("42");
    const bad = await settle(t.call('{"n":1,"extra":true}', ctx()));
    expect(bad.ok).toBe(false);
    expect(isToolloopError(!bad.ok && bad.error, "failed_unmarshal_input")).toBe(true);
    expect(run).toHaveBeenCalledTimes(1);
  });

  it("refuses an input schema that does not describe an object", () => {
    expect(() => tool({ name: "t", description: "A test tool.", input: v.string(), run: () => "" })).toThrow(expect.objectContaining({ code: "invalid_tool" }));
    expect(() => jsonTool({ name: "t", description: "A test tool.", parameters: { type: "array" }, run: () => "" })).toThrow(
      expect.objectContaining({ code: "invalid_tool" }),
    );
  });
});

describe("tool(): call = cleanJSON -> JSON.parse -> validate -> run -> string", () => {
  const echo = (run: (input: { city: string }, ctx: ToolContext) => unknown): Tool =>
    tool({ name: "echo", description: "A test tool.", input: v.object({ city: v.string() }), run });

  it("cleans fenced arguments, validates them and hands the typed value and context to run", async () => {
    const run = vi.fn((input: { city: string }) => `city=${input.city}`);
    const c = ctx();
    expect(await echo(run).call('```json\n{"city":"Paris"}\n```', c)).toBe("city=Paris");
    expect(run).toHaveBeenCalledWith({ city: "Paris" }, c);
  });

  it("passes a string result through verbatim (no JSON quoting)", async () => {
    expect(await echo(() => 'already "text"').call('{"city":"x"}', ctx())).toBe('already "text"');
  });

  it("JSON-encodes any other result", async () => {
    expect(await echo(() => ({ a: [1, true, null] })).call('{"city":"x"}', ctx())).toBe('{"a":[1,true,null]}');
    expect(await echo(() => 42).call('{"city":"x"}', ctx())).toBe("42");
    expect(await echo(() => false).call('{"city":"x"}', ctx())).toBe("false");
    expect(await echo(() => null).call('{"city":"x"}', ctx())).toBe("null");
    expect(await echo(async () => ({ async: true })).call('{"city":"x"}', ctx())).toBe('{"async":true}');
  });

  it("serialises undefined, BigInt and circular results without throwing", async () => {
    expect(await echo(() => undefined).call('{"city":"x"}', ctx())).toBe("null");
    expect(await echo(() => {}).call('{"city":"x"}', ctx())).toBe("null");
    expect(await echo(() => 10n ** 20n).call('{"city":"x"}', ctx())).toBe('"100000000000000000000"');
    expect(await echo(() => ({ big: 7n })).call('{"city":"x"}', ctx())).toBe('{"big":"7"}');
    const loop: Record<string, unknown> = { name: "root", big: 1n };
    loop.self = loop;
    loop.list = [loop, { back: loop }];
    const out = (await echo(() => loop).call('{"city":"x"}', ctx())) as string;
    expect(JSON.parse(out)).toEqual({ name: "root", big: "1", self: "[Circular]", list: ["[Circular]", { back: "[Circular]" }] });
  });

  it("does not mistake a shared (non-circular) reference for a cycle", async () => {
    const shared = { v: 1 };
    const cyc: Record<string, unknown> = { a: shared, b: shared };
    cyc.me = cyc;
    const out = (await echo(() => cyc).call('{"city":"x"}', ctx())) as string;
    expect(JSON.parse(out)).toEqual({ a: { v: 1 }, b: { v: 1 }, me: "[Circular]" });
  });

  it("rejects with a plain Error (a tool error for the loop) when serialising the result throws", async () => {
    const evil = {
      toJSON() {
        throw new Error("no JSON for you");
      },
    };
    const r = await settle(echo(() => evil).call('{"city":"x"}', ctx()));
    expect(r.ok).toBe(false);
    expect(r.ok ? undefined : (r.error as Error).message).toContain("no JSON for you");
    expect(r.ok ? undefined : (r.error as { code?: string }).code).toBeUndefined();
  });

  it("rejects non-JSON arguments with FailedUnmarshalInputError and never runs the handler", async () => {
    const run = vi.fn(() => "ran");
    const r = await settle(echo(run).call("city: Paris", ctx()));
    expect(r.ok).toBe(false);
    expect(r.ok ? undefined : (r.error as { code: string }).code).toBe("failed_unmarshal_input");
    expect(run).not.toHaveBeenCalled();
  });

  it("rejects schema-invalid arguments with the issues listed and never runs the handler", async () => {
    const run = vi.fn(() => "ran");
    const r = await settle(echo(run).call('{"city":7}', ctx()));
    expect(r.ok).toBe(false);
    const err = (r.ok ? {} : r.error) as { code: string; issues: { path: string; message: string }[] };
    expect(err.code).toBe("failed_unmarshal_input");
    expect(err.issues.length).toBeGreaterThan(0);
    expect(err.issues[0]!.path).toBe("/city");
    expect(run).not.toHaveBeenCalled();
  });

  it.each([
    ["an array", "[1,2]"],
    ["a string", '"{\\"city\\":\\"Paris\\"}"'],
    ["a number", "12"],
    ["null", "null"],
  ])("treats arguments that are %s as invalid input", async (_what, args) => {
    const run = vi.fn(() => "ran");
    const r = await settle(echo(run).call(args, ctx()));
    expect(r.ok).toBe(false);
    expect(isToolloopError(r.ok ? undefined : r.error, "failed_unmarshal_input")).toBe(true);
    expect(run).not.toHaveBeenCalled();
  });

  it('treats "" as {} (no arguments) for a tool whose fields are all optional', async () => {
    const run = vi.fn((input: unknown) => input);
    const t = tool({ name: "noargs", description: "A test tool.", input: v.object({ verbose: v.optional(v.boolean()) }), run });
    expect(await t.call("", ctx())).toBe("{}");
    expect(run).toHaveBeenCalledWith({}, expect.anything());
  });

  it("applies valibot checks that have no JSON Schema form (transforms, custom checks) after the JSON Schema check", async () => {
    const run = vi.fn((input: { city: string }) => input.city);
    const t = tool({
      name: "upper",
      description: "A test tool.",
      input: v.object({
        city: v.pipe(
          v.string(),
          v.check((s) => s !== "Atlantis", "no such city"),
          v.transform((s) => s.toUpperCase()),
        ),
      }),
      run,
    });
    expect(await t.call('{"city":"paris"}', ctx())).toBe("PARIS");
    const r = await settle(t.call('{"city":"Atlantis"}', ctx()));
    expect(r.ok).toBe(false);
    expect((r.ok ? {} : r.error) as object).toMatchObject({ code: "failed_unmarshal_input", issues: [{ message: "no such city" }] });
    expect(run).toHaveBeenCalledTimes(1);
  });

  it("keeps a per-tool timeout on the Tool", () => {
    expect(tool({ name: "t", description: "A test tool.", input: v.object({}), run: () => "", timeout: 250 }).timeout).toBe(250);
    expect(tool({ name: "t", description: "A test tool.", input: v.object({}), run: () => "" })).not.toHaveProperty("timeout");
  });
});
