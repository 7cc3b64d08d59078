// checkTools: which tool schemas Gemini's parametersJsonSchema cannot take (and only those).

import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { gemini } from "../../adapters/gemini/index.js";
import { schemaProblem } from "../../adapters/gemini/schema-check.js";
import { type ToolSpec, toJSONSchema, type UnsupportedSchemaError } from "../../src/index.js";
import { MOCK_API_KEY } from "../mock/gemini.js";
import { withMock } from "./helpers.js";

const provider = gemini({ apiKey: "k", model: "gemini-3-pro-preview" });
const spec = (parameters: unknown, name = "tool_x"): ToolSpec => ({ name, description: "d", parameters: parameters as ToolSpec["parameters"] });

function rejection(parameters: unknown, name?: string): { toolName: string; path: string; message: string } | undefined {
  try {
    provider.checkTools!([spec({ type: "object", properties: {} }, "ok_tool"), spec(parameters, name)]);
    return undefined;
  } catch (e) {
    const err = e as UnsupportedSchemaError;
    expect(err.code).toBe("unsupported_schema");
    expect(err.provider).toBe("gemini");
    return { toolName: err.toolName, path: err.path, message: err.message };
  }
}

describe("checkTools", () => {
  it("accepts what JSON Schema tools usually carry (parametersJsonSchema ignores what it does not use)", () => {
    const accepted = [
      { type: "object", properties: {} },
      {}, // no type: still an object of parameters
      {
        type: "object",
        additionalProperties: false,
        properties: {
          n: { type: "integer", exclusiveMinimum: 0, multipleOf: 2 },
          s: { type: ["string", "null"], pattern: "^a", format: "uuid", const: "a" },
          e: { enum: [1, 2, 3] },
          a: { type: "array", items: true, uniqueItems: true, prefixItems: [{ type: "string" }] },
          u: { anyOf: [{ type: "string" }, { type: "number" }], oneOf: [{}], allOf: [{}] },
          r: { $ref: "#/$defs/Node", description: "a node", default: null },
          d: { $ref: "#/definitions/Legacy" },
          anchor: { $ref: "#leaf" },
          byId: { $ref: "urn:thing" },
          $ref: { type: "string" }, // a property named $ref is a property, not a reference
        },
        $defs: {
          Node: { type: "object", properties: { next: { $ref: "#/$defs/Node" } } }, // recursion is unrolled by the API
          Leaf: { $anchor: "leaf", type: "string" },
          Thing: { $id: "urn:thing", type: "number" },
        },
        definitions: { Legacy: { type: "boolean" } },
        $schema: "http://json-schema.org/draft-07/schema#",
      },
      toJSONSchema(v.object({ tags: v.array(v.pipe(v.string(), v.minLength(1))), when: v.optional(v.pipe(v.string(), v.isoDateTime())) })),
    ];
    for (const schema of accepted) expect(rejection(schema)).toBeUndefined();
  });

  it("rejects a root that is not an object schema", () => {
    expect(rejection({ type: "string" })).toMatchObject({ toolName: "tool_x", path: "/type" });
    expect(rejection({ type: ["object", "null"] })).toMatchObject({ path: "/type" });
    expect(rejection(true)).toMatchObject({ path: "" });
    expect(rejection([])).toMatchObject({ path: "" });
  });

  it("rejects a $ref that does not resolve inside the schema", () => {
    expect(rejection({ type: "object", properties: { a: { $ref: "#/$defs/Missing" } } })).toMatchObject({ path: "/properties/a/$ref" });
    expect(rejection({ type: "object", properties: { a: { type: "array", items: { $ref: "https://example.com/schema.json" } } } })).toMatchObject({
      path: "/properties/a/items/$ref",
    });
    expect(rejection({ type: "object", properties: { a: { anyOf: [{ type: "null" }, { $ref: "#nowhere" }] } } })).toMatchObject({
      path: "/properties/a/anyOf/1/$ref",
    });
    const r = rejection({ type: "object", properties: { "a/b": { $ref: "#/$defs/X" } } });
    expect(r).toMatchObject({ path: "/properties/a~1b/$ref" });
    expect(r!.message).toBe(
      'gemini cannot take the schema of tool "tool_x" at /properties/a~1b/$ref: $ref "#/$defs/X" does not resolve inside the schema (only local references are followed)',
    );
  });

  it("rejects keywords beside $ref other than description and default", () => {
    const r = rejection({ type: "object", properties: { a: { $ref: "#/$defs/A", title: "A" } }, $defs: { A: { type: "string" } } });
    expect(r).toMatchObject({ toolName: "tool_x", path: "/properties/a/title" });
    expect(r!.message).toContain('found "title"');
    expect(rejection({ type: "object", $defs: { A: { $ref: "#/$defs/B", type: "string" }, B: {} } })).toMatchObject({ path: "/$defs/A/type" });
  });

  it("rejects a function name Gemini does not allow", () => {
    expect(rejection({ type: "object" }, "1st_tool")).toMatchObject({ toolName: "1st_tool", path: "" });
    expect(rejection({ type: "object" }, "-dash")).toMatchObject({ toolName: "-dash" });
    expect(rejection({ type: "object" }, "_under")).toBeUndefined();
  });

  it("schemaProblem and the mock agree on an unresolved $ref (the API answers 400)", async () => {
    const schema = { type: "object", properties: { target: { anyOf: [{ type: "string" }, { $ref: "#/$defs/Gone" }] } } };
    expect(schemaProblem(schema)).toMatchObject({ path: "/properties/target/anyOf/1/$ref" });
    await withMock({}, async (mock) => {
      const res = await fetch(`${mock.url}/models/gemini-3-pro-preview:generateContent`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-goog-api-key": MOCK_API_KEY },
        body: JSON.stringify({
          contents: [{ role: "user", parts: [{ text: "x" }] }],
          tools: [{ functionDeclarations: [{ name: "t", description: "", parametersJsonSchema: schema }] }],
        }),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error: { code: 400, message: "reference to undefined schema at properties.target.anyOf.1", status: "INVALID_ARGUMENT" },
      });
    });
  });
});
