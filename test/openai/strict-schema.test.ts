import * as fc from "fast-check";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { restoreJSONText, restoreOptionalNulls } from "../../adapters/openai/restore-nulls.js";
import { findSchemaProblem } from "../../adapters/openai/schema-check.js";
import { toStrictSchema } from "../../adapters/openai/strict-schema.js";
import { jsonSchemaValidator } from "../../src/schema/json-schema.js";
import { type JSONSchema, toJSONSchema } from "../../src/schema/schema.js";
import { schemaError } from "../mock/openai-chat.js";

function strict(schema: JSONSchema): JSONSchema {
  const r = toStrictSchema(schema);
  if (!r.strict) throw new Error(`expected a strict schema, got a schema without a strict form at ${r.path}`);
  return r.schema;
}

describe("toStrictSchema", () => {
  it("lists every property as required, makes the optional ones nullable and closes every object", () => {
    const schema = toJSONSchema(
      v.object({
        city: v.string(),
        unit: v.optional(v.picklist(["c", "f"])),
        days: v.optional(v.number()),
        where: v.object({ lat: v.number(), lon: v.optional(v.number()) }),
        tags: v.array(v.object({ name: v.string(), note: v.optional(v.string()) })),
      }),
    );
    expect(strict(schema)).toEqual({
      type: "object",
      properties: {
        city: { type: "string" },
        unit: { enum: ["c", "f", null], type: ["string", "null"] },
        days: { type: ["number", "null"] },
        where: {
          type: "object",
          properties: { lat: { type: "number" }, lon: { type: ["number", "null"] } },
          required: ["lat", "lon"],
          additionalProperties: false,
        },
        tags: {
          type: "array",
          items: {
            type: "object",
            properties: { name: { type: "string" }, note: { type: ["string", "null"] } },
            required: ["name", "note"],
            additionalProperties: false,
          },
        },
      },
      required: ["city", "where", "tags", "unit", "days"],
      additionalProperties: false,
    });
  });

  it("wraps optional $ref and const properties in anyOf with null, and relaxes oneOf to anyOf", () => {
    const out = strict({
      type: "object",
      $defs: { point: { type: "object", properties: { x: { type: "number" } }, required: ["x"] } },
      properties: {
        at: { $ref: "#/$defs/point" },
        kind: { const: "fixed" },
        shape: { oneOf: [{ type: "string" }, { type: "number" }] },
      },
    });
    expect(out.properties).toEqual({
      at: { anyOf: [{ $ref: "#/$defs/point" }, { type: "null" }] },
      kind: { anyOf: [{ const: "fixed" }, { type: "null" }] },
      shape: { anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }] },
    });
    expect(out.$defs).toEqual({
      point: { type: "object", properties: { x: { type: "number" } }, required: ["x"], additionalProperties: false },
    });
  });

  it("drops annotations strict mode rejects but keeps descriptions", () => {
    const out = strict({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { n: { type: "integer", default: 3, examples: [1], description: "How many.", minimum: 1 } },
      required: ["n"],
    });
    expect(out).toEqual({
      type: "object",
      properties: { n: { type: "integer", description: "How many.", minimum: 1 } },
      required: ["n"],
      additionalProperties: false,
    });
  });

  const fallbacks: [string, JSONSchema, string][] = [
    ["minLength", { type: "object", properties: { name: { type: "string", minLength: 1 } } }, "/properties/name/minLength"],
    ["an unsupported format", { type: "object", properties: { url: { type: "string", format: "uri" } } }, "/properties/url/format"],
    ["an open map", { type: "object", properties: { m: { type: "object", additionalProperties: { type: "string" } } } }, "/properties/m/additionalProperties"],
    ["a schema that accepts anything", { type: "object", properties: { any: {} } }, "/properties/any"],
    ["allOf", { type: "object", properties: { a: { allOf: [{ type: "string" }] } } }, "/properties/a/allOf"],
    ["a remote $ref", { type: "object", properties: { a: { $ref: "https://example.com/s.json" } } }, "/properties/a/$ref"],
    ["a tuple", { type: "object", properties: { t: { type: "array", items: [{ type: "string" }] } } }, "/properties/t/items"],
    ["a non-object root", { type: "array", items: { type: "string" } }, ""],
  ];
  for (const [what, schema, path] of fallbacks) {
    it(`falls back to non-strict for ${what}, naming the place (${path || "/"})`, () => {
      const r = toStrictSchema(schema);
      expect(r.strict).toBe(false);
      if (!r.strict) expect(r.path).toBe(path);
    });
  }

  it("says whether any property was optional (only then can the output hold nulls to map back)", () => {
    const optional = (schema: JSONSchema) => {
      const r = toStrictSchema(schema);
      return r.strict && r.optional;
    };
    expect(optional(toJSONSchema(v.object({ city: v.string(), n: v.nullable(v.number()) })))).toBe(false);
    expect(optional(toJSONSchema(v.object({ city: v.string(), unit: v.optional(v.string()) })))).toBe(true);
    expect(optional(toJSONSchema(v.object({ stops: v.array(v.object({ eta: v.optional(v.string()) })) })))).toBe(true);
    expect(
      optional({
        type: "object",
        properties: { a: { $ref: "#/$defs/x" } },
        required: ["a"],
        $defs: { x: { type: "object", properties: { b: { type: "string" } } } },
      }),
    ).toBe(true);
  });

  it("falls back when objects nest deeper than strict mode allows", () => {
    let schema: JSONSchema = { type: "object", properties: { leaf: { type: "string" } }, required: ["leaf"] };
    for (let i = 0; i < 11; i++) schema = { type: "object", properties: { next: schema }, required: ["next"] };
    expect(toStrictSchema(schema).strict).toBe(false);
  });

  it("produces only schemas the API's strict rules accept", () => {
    const samples: JSONSchema[] = [
      toJSONSchema(v.object({ a: v.optional(v.string()), b: v.nullable(v.number()), c: v.array(v.boolean()) })),
      toJSONSchema(v.object({ v: v.variant("k", [v.object({ k: v.literal("x"), x: v.number() }), v.object({ k: v.literal("y") })]) })),
      toJSONSchema(v.object({ nested: v.optional(v.object({ deep: v.optional(v.object({ z: v.string() })) })) })),
      { type: "object", properties: {} },
    ];
    for (const s of samples) expect(schemaError(strict(s), true)).toBeUndefined();
  });
});

describe("restoreOptionalNulls", () => {
  const schema = toJSONSchema(
    v.object({
      city: v.string(),
      unit: v.optional(v.string()),
      note: v.nullable(v.string()),
      where: v.optional(v.object({ lat: v.number(), label: v.optional(v.string()) })),
      stops: v.array(v.object({ name: v.string(), eta: v.optional(v.string()) })),
    }),
  );

  it("turns nulls of originally optional properties into absent ones, at any depth", () => {
    const r = restoreOptionalNulls(
      {
        city: "Paris",
        unit: null,
        note: null,
        where: { lat: 1, label: null },
        stops: [
          { name: "a", eta: null },
          { name: "b", eta: "9:00" },
        ],
      },
      schema,
    );
    expect(r.changed).toBe(true);
    expect(r.value).toEqual({ city: "Paris", note: null, where: { lat: 1 }, stops: [{ name: "a" }, { name: "b", eta: "9:00" }] });
  });

  it("makes the model's strict output valid for the original schema", async () => {
    const validate = jsonSchemaValidator(schema);
    const modelOutput = { city: "Paris", unit: null, note: null, where: null, stops: [{ name: "a", eta: null }] };
    expect((await validate(modelOutput)).ok).toBe(false);
    expect((await validate(restoreOptionalNulls(modelOutput, schema).value)).ok).toBe(true);
  });

  it("follows $refs and picks the anyOf branch that holds the keys", () => {
    const s: JSONSchema = {
      type: "object",
      $defs: { opt: { type: "object", properties: { a: { type: "string" }, b: { type: "string" } }, required: ["a"] } },
      properties: {
        r: { $ref: "#/$defs/opt" },
        u: {
          anyOf: [
            { type: "object", properties: { x: { type: "number" } } },
            { type: "object", properties: { y: { type: "number" }, z: { type: "number" } }, required: ["y"] },
          ],
        },
      },
      required: ["r", "u"],
    };
    expect(restoreOptionalNulls({ r: { a: "1", b: null }, u: { y: 1, z: null } }, s).value).toEqual({ r: { a: "1" }, u: { y: 1 } });
  });

  it("round-trips: absent → null (what strict mode makes the model write) → absent", () => {
    const validate = jsonSchemaValidator(schema);
    const arb = fc.record(
      {
        city: fc.string(),
        unit: fc.string(),
        note: fc.option(fc.string(), { nil: null }),
        where: fc.record({ lat: fc.double({ noNaN: true, noDefaultInfinity: true }), label: fc.string() }, { requiredKeys: ["lat"] }),
        stops: fc.array(fc.record({ name: fc.string(), eta: fc.string() }, { requiredKeys: ["name"] })),
      },
      { requiredKeys: ["city", "note", "stops"] },
    );
    fc.assert(
      fc.property(arb, (value) => {
        const asModel = {
          ...value,
          unit: value.unit ?? null,
          where: value.where ? { ...value.where, label: value.where.label ?? null } : null,
          stops: value.stops.map((s) => ({ ...s, eta: s.eta ?? null })),
        };
        const restored = restoreOptionalNulls(JSON.parse(JSON.stringify(asModel)), schema).value;
        expect(restored).toEqual(JSON.parse(JSON.stringify(value)));
        expect((validate(restored) as { ok: boolean }).ok).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it("leaves the text byte for byte when nothing was removed or it is not JSON", () => {
    const text = '{ "city" : "Paris", "note": null, "stops": [] }';
    expect(restoreJSONText(text, schema)).toBe(text);
    expect(restoreJSONText("not json {", schema)).toBe("not json {");
    expect(restoreJSONText('{"city":"Paris","unit":null,"note":"x","stops":[]}', schema)).toBe('{"city":"Paris","note":"x","stops":[]}');
  });
});

describe("findSchemaProblem", () => {
  it("names an array without items, wherever it is", () => {
    const schema: JSONSchema = { type: "object", properties: { list: { anyOf: [{ type: "array" }, { type: "null" }] } } };
    expect(findSchemaProblem(schema, { arrayItems: true })).toEqual({ path: "/properties/list/anyOf/0", reason: expect.stringContaining("items") });
    expect(findSchemaProblem(schema, { arrayItems: false })).toBeUndefined();
  });

  it("requires an object at the root", () => {
    expect(findSchemaProblem({ type: "string" }, { arrayItems: false })?.path).toBe("/type");
    expect(findSchemaProblem({ type: "object", properties: { a: { type: "array", items: { type: "string" } } } }, { arrayItems: true })).toBeUndefined();
  });
});
