// Deeply nested input never overflows the stack, piece by piece: cleanJSON's scanner,
// JSON.parse, the schema validator (even one following a recursive $ref), OpenAI's strict
// null-stripper and Claude's streamed-arguments decoder. Arguments nested deeper than
// MAX_ARGUMENT_DEPTH are refused with FailedUnmarshalInputError before anything recursive
// touches them; input within the limit still validates and runs. (The adapters over HTTP
// are covered in model.test.ts.)

import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { createStreamDecoder } from "../../adapters/claude/decode.js";
import { restoreJSONText, restoreOptionalNulls } from "../../adapters/openai/restore-nulls.js";
import { MAX_ARGUMENT_DEPTH, MAX_RESPONSE_DEPTH, nestsDeeperThan, parseJSONBounded } from "../../src/base/json-depth.js";
import { cleanJSON, isToolloopError, jsonTool, tool } from "../../src/index.js";
import { parseJSONArguments } from "../../src/tools/clean-json.js";
import { toOutput } from "../../src/tools/tool.js";

const N = 10_000;
const deepArray = (n: number) => "[".repeat(n) + "]".repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + "1" + "}".repeat(n);
const ctx = { signal: new AbortController().signal, callId: "call_1", logger: { debug() {}, info() {}, warn() {}, error() {} } };

/** A schema whose validation recurses once per level of the input. */
const recursive = {
  type: "object",
  properties: { tree: { $ref: "#/$defs/node" } },
  required: ["tree"],
  $defs: { node: { type: "array", items: { $ref: "#/$defs/node" } } },
};

describe("deep nesting", () => {
  it("nestsDeeperThan counts brackets outside strings only", () => {
    expect(nestsDeeperThan(deepArray(5), 5)).toBe(false);
    expect(nestsDeeperThan(deepArray(6), 5)).toBe(true);
    expect(nestsDeeperThan(`{"s": "${"[".repeat(1000)}"}`, 2)).toBe(false);
    expect(nestsDeeperThan(`{"s": "a\\"[[[["}`, 1)).toBe(false);
    expect(nestsDeeperThan(deepArray(N), MAX_ARGUMENT_DEPTH)).toBe(true);
  });

  it.each([
    ["arrays", deepArray(N)],
    ["objects", deepObject(N)],
    ["objects wrapped in prose and a fence", "Here you go:\n```json\n" + deepObject(N) + "\n```\nDone."],
    ["an unbalanced object in prose", "args: " + "{".repeat(N)],
  ])("cleanJSON and parseJSONArguments handle %s 10,000 deep without overflowing", (_name, text) => {
    expect(typeof cleanJSON(text)).toBe("string");
    expect(() => parseJSONArguments(text)).toThrow(SyntaxError);
    expect(() => parseJSONArguments(text)).toThrow(/nested deeper than|JSON/);
  });

  it("a tool refuses 10,000-deep arguments with FailedUnmarshalInputError, its handler never runs", async () => {
    let ran = false;
    const t = jsonTool({ name: "t", description: "A test tool.", parameters: recursive, run: () => ((ran = true), "ok") });
    for (const text of [`{"tree": ${deepArray(N)}}`, deepObject(N)]) {
      const err = await t.call(text, ctx).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isToolloopError(err, "failed_unmarshal_input")).toBe(true);
      expect((err as Error).message).toContain("nested deeper than");
    }
    expect(ran).toBe(false);
  });

  it("just past the limit is refused; at the limit a recursive schema still validates and the handler runs", async () => {
    const got: unknown[] = [];
    const t = jsonTool({ name: "t", description: "A test tool.", parameters: recursive, run: (x) => (got.push(x), "ok") });
    const atLimit = `{"tree": ${deepArray(MAX_ARGUMENT_DEPTH - 1)}}`;
    await expect(t.call(atLimit, ctx)).resolves.toBe("ok");
    expect(got).toHaveLength(1);
    const past = `{"tree": ${deepArray(MAX_ARGUMENT_DEPTH)}}`;
    await expect(t.call(past, ctx)).rejects.toMatchObject({ code: "failed_unmarshal_input" });
  });

  it("a valibot tool with a recursive lazy schema: refused past the limit, no RangeError", async () => {
    type Node = Node[];
    const NodeSchema: v.GenericSchema<Node> = v.array(v.lazy(() => NodeSchema));
    const t = tool({ name: "t", description: "A test tool.", input: v.object({ tree: NodeSchema }), run: () => "ok" });
    await expect(t.call(`{"tree": ${deepArray(N)}}`, ctx)).rejects.toMatchObject({ code: "failed_unmarshal_input" });
    await expect(t.call(`{"tree": ${deepArray(50)}}`, ctx)).resolves.toBe("ok");
  });

  it("OpenAI's strict null-stripper leaves 10,000-deep text alone instead of overflowing", () => {
    const schema = { type: "object", properties: { a: { type: "object" }, b: { type: "string" } } };
    const text = `{"b": null, "a": ${deepObject(N)}}`;
    expect(restoreJSONText(text, schema)).toBe(text);
    // the walker itself is bounded too, for values parsed elsewhere
    const value = JSON.parse(deepArray(N)) as unknown;
    expect(() => restoreOptionalNulls(value, { type: "array", items: { $ref: "#" } })).not.toThrow();
  });

  it("Claude's stream decoder keeps 10,000-deep tool input as raw text, with a replayable {} input", () => {
    const d = createStreamDecoder();
    const ev = (data: Record<string, unknown>) => d.push({ event: String(data.type), data: JSON.stringify(data) });
    ev({ type: "message_start", message: { id: "msg_1", content: [], usage: {} } });
    ev({ type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_1", name: "t", input: {} } });
    ev({ type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: deepArray(N) } });
    ev({ type: "content_block_stop", index: 0 });
    ev({ type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 1 } });
    ev({ type: "message_stop" });
    const turn = d.turn();
    expect(turn.content[0]).toMatchObject({ type: "tool_use", input: {} });
    expect(turn.rawArguments[0]).toBe(deepArray(N));
    expect(() => structuredClone(turn)).not.toThrow();
  });

  it("parseJSONBounded cuts 10,000-deep bodies to the limit (arrays stay arrays), leaves shallow ones alone, never touches a prototype", () => {
    const body = parseJSONBounded(`{"ok": [1, {"b": 2}], "args": ${deepArray(N)}, "obj": ${deepObject(N)}}`, MAX_RESPONSE_DEPTH) as Record<string, unknown>;
    expect(body.ok).toEqual([1, { b: 2 }]);
    const text = JSON.stringify(body);
    expect(nestsDeeperThan(text, MAX_RESPONSE_DEPTH + 1)).toBe(false);
    expect(nestsDeeperThan(JSON.stringify(body.args), MAX_ARGUMENT_DEPTH)).toBe(true);
    expect(JSON.stringify(body.args).startsWith("[[[")).toBe(true);
    expect(() => structuredClone(body)).not.toThrow();
    const shallow = '{"a": [[1]], "b": {"c": null}}';
    expect(parseJSONBounded(shallow, 3)).toEqual(JSON.parse(shallow));
    expect(parseJSONBounded(shallow, 2)).toEqual({ a: [[]], b: { c: null } });
    const hostile = parseJSONBounded(`{"__proto__": {"__proto__": {"polluted": true}}, "x": ${deepObject(10)}}`, 1) as object;
    expect(Object.getPrototypeOf(hostile)).toBe(Object.prototype);
    expect(Object.keys(hostile)).toEqual(["__proto__", "x"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(() => parseJSONBounded("{", 5)).toThrow(SyntaxError);
  });

  it("a tool that returns a 10,000-deep value fails with a readable error (a tool error), not a stack overflow", () => {
    const value = JSON.parse(deepArray(N)) as unknown;
    expect(() => toOutput(value)).toThrow(/could not be serialised/);
  });
});
