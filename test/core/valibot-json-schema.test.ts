// How toolloop turns valibot schemas into the JSON Schema a tool sends (src/schema/schema.ts over
// @valibot/to-json-schema: typeMode "input", errorMode "ignore", the default draft-07):
// - every schema below sends, byte for byte and key for key, what 0.2 sent: its own converter
//   (replaced by the library in issue 24) produced the JSON frozen in SENT, which the providers
//   accepted and cached on (tools are serialised byte-identically from step to step);
// - no `$schema`; titles, descriptions, examples and metadata kept;
// - an action with no JSON Schema form is left out without a throw or a console line, and
//   valibot still enforces it;
// - a schema with no JSON Schema form is refused with UnsupportedSchemaError at its JSON Pointer.
import * as v from "valibot";
import { afterEach, describe, expect, it, vi } from "vitest";
import { isToolloopError, type UnsupportedSchemaError } from "../../src/base/errors.js";
import { compileValidator, toJSONSchema } from "../../src/schema/schema.js";

type Node = { name: string; children?: Node[] };
const treeNode: v.GenericSchema<Node> = v.object({ name: v.string(), children: v.optional(v.array(v.lazy(() => treeNode))) });

const CASES: [string, v.GenericSchema][] = [
  ["primitives", v.object({ s: v.string(), n: v.number(), b: v.boolean(), z: v.null(), a: v.any(), u: v.unknown(), x: v.never() })],
  ["descriptions and titles", v.object({ city: v.pipe(v.string(), v.title("City"), v.description("City name.")) })],
  ["nested pipes", v.pipe(v.pipe(v.string(), v.minLength(2)), v.maxLength(9), v.description("d"))],
  ["string lengths", v.object({ a: v.pipe(v.string(), v.length(3)), b: v.pipe(v.string(), v.nonEmpty()), c: v.pipe(v.string(), v.empty()) })],
  [
    "array lengths",
    v.object({
      a: v.pipe(v.array(v.number()), v.minLength(1), v.maxLength(4)),
      b: v.pipe(v.array(v.string()), v.length(2)),
      c: v.pipe(v.array(v.string()), v.nonEmpty()),
    }),
  ],
  ["stricter bounds win", v.pipe(v.string(), v.minLength(5), v.minLength(2), v.maxLength(3), v.maxLength(8))],
  [
    "numbers",
    v.object({
      i: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10)),
      g: v.pipe(v.number(), v.gtValue(0), v.ltValue(1)),
      m: v.pipe(v.number(), v.multipleOf(5)),
      s: v.pipe(v.number(), v.safeInteger()),
    }),
  ],
  ["bounds on a string are ignored", v.pipe(v.string(), v.minValue("a" as never), v.maxValue(Infinity as never))],
  [
    "formats",
    v.object({
      e: v.pipe(v.string(), v.email()),
      r: v.pipe(v.string(), v.rfcEmail()),
      u: v.pipe(v.string(), v.url()),
      id: v.pipe(v.string(), v.uuid()),
      d: v.pipe(v.string(), v.isoDate()),
      dt: v.pipe(v.string(), v.isoDateTime()),
      ts: v.pipe(v.string(), v.isoTimestamp()),
      t: v.pipe(v.string(), v.isoTime()),
      ip4: v.pipe(v.string(), v.ipv4()),
      ip6: v.pipe(v.string(), v.ipv6()),
    }),
  ],
  [
    "patterns",
    v.object({
      r: v.pipe(v.string(), v.regex(/^[a-z]+$/)),
      sw: v.pipe(v.string(), v.startsWith("a.b")),
      ew: v.pipe(v.string(), v.endsWith("(x)")),
      inc: v.pipe(v.string(), v.includes("*")),
      hex: v.pipe(v.string(), v.hexadecimal()),
      slug: v.pipe(v.string(), v.slug()),
      ulid: v.pipe(v.string(), v.ulid()),
      nano: v.pipe(v.string(), v.nanoid()),
      hc: v.pipe(v.string(), v.hexColor()),
      dig: v.pipe(v.string(), v.digits()),
    }),
  ],
  ["only the first pattern", v.pipe(v.string(), v.regex(/a/), v.regex(/b/), v.startsWith("c"))],
  [
    "regexes with no pattern form",
    v.object({ ip: v.pipe(v.string(), v.ip()), dts: v.pipe(v.string(), v.isoDateTimeSecond()), b64: v.pipe(v.string(), v.base64()) }),
  ],
  ["regex flags kept out", v.pipe(v.string(), v.regex(/abc/i))],
  [
    "optional, nullish, nullable, defaults",
    v.object({
      o: v.optional(v.string()),
      od: v.optional(v.number(), 3),
      of: v.optional(v.string(), () => "f"),
      n: v.nullable(v.string()),
      nd: v.nullable(v.boolean(), false),
      nh: v.nullish(v.number()),
      eo: v.exactOptional(v.string()),
      ud: v.undefinedable(v.string()),
    }),
  ],
  [
    "literals and picklists",
    v.object({ l: v.literal("x"), l2: v.literal(2), l3: v.literal(true), p: v.picklist(["a", "b"]), pn: v.picklist([1, 2]), pm: v.picklist(["a", 1]) }),
  ],
  ["enums", v.object({ e: v.enum({ A: "a", B: "b" }) })],
  [
    "unions, variants, intersections",
    v.object({
      u: v.union([v.string(), v.number()]),
      va: v.variant("k", [v.object({ k: v.literal("a"), a: v.string() }), v.object({ k: v.literal("b") })]),
      i: v.intersect([v.object({ a: v.string() }), v.object({ b: v.number() })]),
    }),
  ],
  [
    "object kinds",
    v.object({ lo: v.looseObject({ a: v.string() }), so: v.strictObject({ a: v.string() }), wr: v.objectWithRest({ a: v.string() }, v.number()) }),
  ],
  [
    "tuples",
    v.object({
      t: v.tuple([v.string(), v.number()]),
      st: v.strictTuple([v.string()]),
      lt: v.looseTuple([v.boolean()]),
      tr: v.tupleWithRest([v.string()], v.number()),
    }),
  ],
  ["records", v.record(v.pipe(v.string(), v.minLength(1)), v.number())],
  [
    "record entries counts",
    v.object({ a: v.pipe(v.record(v.string(), v.string()), v.minEntries(1), v.maxEntries(3)), b: v.pipe(v.record(v.string(), v.string()), v.entries(2)) }),
  ],
  [
    "values and not_values",
    v.object({
      a: v.pipe(v.number(), v.values([1, 2, 2])),
      b: v.pipe(v.picklist(["x", "y", "z"]), v.values(["y", "z", "q"] as never)),
      c: v.pipe(v.string(), v.notValue("no")),
      d: v.pipe(v.string(), v.notValues(["p", "q"]), v.notValue("r")),
      e: v.pipe(v.picklist(["x"]), v.values(["q"] as never)),
    }),
  ],
  ["value", v.object({ a: v.pipe(v.number(), v.value(3)), b: v.pipe(v.literal(3), v.value(4 as never)) })],
  [
    "examples and metadata",
    v.object({ a: v.pipe(v.string(), v.examples(["x"]), v.metadata({ title: "T", description: "D", examples: ["y"], deprecated: true })) }),
  ],
  [
    "checks and unknown actions are left to valibot",
    v.object({
      even: v.pipe(
        v.number(),
        v.check((n) => n % 2 === 0),
      ),
      t: v.pipe(v.string(), v.trim(), v.toLowerCase(), v.minLength(1)),
    }),
  ],
  [
    "the input side of a transform",
    v.object({
      at: v.pipe(
        v.string(),
        v.transform((s) => new Date(s)),
        v.date(),
      ),
      n: v.pipe(v.string(), v.toNumber(), v.minValue(3)),
      j: v.pipe(v.string(), v.minLength(2), v.parseJson(), v.object({ a: v.string() })),
    }),
  ],
  ["recursion through lazy", treeNode],
  ["lazy used twice", v.object({ a: v.lazy(() => v.string()), b: v.array(treeNode) })],
  [
    "async schemas",
    v.objectAsync({
      a: v.pipeAsync(
        v.string(),
        v.checkAsync(async () => true),
        v.description("async"),
      ),
    }) as unknown as v.GenericSchema,
  ],
  ["the bench and README tool", v.object({ city: v.pipe(v.string(), v.description("City name.")) })],
];

/** What 0.2's own converter sent for each case (generated from it before it was deleted). */
const SENT: Record<string, unknown> = {
  primitives: {
    type: "object",
    properties: { s: { type: "string" }, n: { type: "number" }, b: { type: "boolean" }, z: { type: "null" }, a: {}, u: {}, x: { not: {} } },
    required: ["s", "n", "b", "z", "a", "u", "x"],
  },
  "descriptions and titles": { type: "object", properties: { city: { type: "string", title: "City", description: "City name." } }, required: ["city"] },
  "nested pipes": { type: "string", minLength: 2, maxLength: 9, description: "d" },
  "string lengths": {
    type: "object",
    properties: { a: { type: "string", minLength: 3, maxLength: 3 }, b: { type: "string", minLength: 1 }, c: { type: "string", maxLength: 0 } },
    required: ["a", "b", "c"],
  },
  "array lengths": {
    type: "object",
    properties: {
      a: { type: "array", items: { type: "number" }, minItems: 1, maxItems: 4 },
      b: { type: "array", items: { type: "string" }, minItems: 2, maxItems: 2 },
      c: { type: "array", items: { type: "string" }, minItems: 1 },
    },
    required: ["a", "b", "c"],
  },
  "stricter bounds win": { type: "string", minLength: 5, maxLength: 3 },
  numbers: {
    type: "object",
    properties: {
      i: { type: "integer", minimum: 1, maximum: 10 },
      g: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 },
      m: { type: "number", multipleOf: 5 },
      s: { type: "integer", minimum: -9007199254740991, maximum: 9007199254740991 },
    },
    required: ["i", "g", "m", "s"],
  },
  "bounds on a string are ignored": { type: "string" },
  formats: {
    type: "object",
    properties: {
      e: { type: "string", format: "email" },
      r: { type: "string", format: "email" },
      u: { type: "string", format: "uri" },
      id: { type: "string", format: "uuid" },
      d: { type: "string", format: "date" },
      dt: { type: "string", format: "date-time" },
      ts: { type: "string", format: "date-time" },
      t: { type: "string", format: "time" },
      ip4: { type: "string", format: "ipv4" },
      ip6: { type: "string", format: "ipv6" },
    },
    required: ["e", "r", "u", "id", "d", "dt", "ts", "t", "ip4", "ip6"],
  },
  patterns: {
    type: "object",
    properties: {
      r: { type: "string", pattern: "^[a-z]+$" },
      sw: { type: "string", pattern: "^a\\.b" },
      ew: { type: "string", pattern: "\\(x\\)$" },
      inc: { type: "string", pattern: "\\*" },
      hex: { type: "string", pattern: "^(?:0[hx])?[\\da-fA-F]+$" },
      slug: { type: "string", pattern: "^[\\da-z]+(?:[-_][\\da-z]+)*$" },
      ulid: { type: "string", pattern: "^[0-7][\\da-hjkmnp-tv-zA-HJKMNP-TV-Z]{25}$" },
      nano: { type: "string", pattern: "^[\\w-]+$" },
      hc: { type: "string", pattern: "^#(?:[\\da-fA-F]{3,4}|[\\da-fA-F]{6}|[\\da-fA-F]{8})$" },
      dig: { type: "string", pattern: "^\\d+$" },
    },
    required: ["r", "sw", "ew", "inc", "hex", "slug", "ulid", "nano", "hc", "dig"],
  },
  "only the first pattern": { type: "string", pattern: "a" },
  "regexes with no pattern form": {
    type: "object",
    properties: { ip: { type: "string" }, dts: { type: "string" }, b64: { type: "string", contentEncoding: "base64" } },
    required: ["ip", "dts", "b64"],
  },
  "regex flags kept out": { type: "string", pattern: "abc" },
  "optional, nullish, nullable, defaults": {
    type: "object",
    properties: {
      o: { type: "string" },
      od: { type: "number", default: 3 },
      of: { type: "string", default: "f" },
      n: { anyOf: [{ type: "string" }, { type: "null" }] },
      nd: { anyOf: [{ type: "boolean" }, { type: "null" }], default: false },
      nh: { anyOf: [{ type: "number" }, { type: "null" }] },
      eo: { type: "string" },
      ud: { type: "string" },
    },
    required: ["n", "nd", "ud"],
  },
  "literals and picklists": {
    type: "object",
    properties: {
      l: { const: "x" },
      l2: { const: 2 },
      l3: { const: true },
      p: { enum: ["a", "b"], type: "string" },
      pn: { enum: [1, 2], type: "number" },
      pm: { enum: ["a", 1], type: ["string", "number"] },
    },
    required: ["l", "l2", "l3", "p", "pn", "pm"],
  },
  enums: { type: "object", properties: { e: { enum: ["a", "b"], type: "string" } }, required: ["e"] },
  "unions, variants, intersections": {
    type: "object",
    properties: {
      u: { anyOf: [{ type: "string" }, { type: "number" }] },
      va: {
        oneOf: [
          { type: "object", properties: { k: { const: "a" }, a: { type: "string" } }, required: ["k", "a"] },
          { type: "object", properties: { k: { const: "b" } }, required: ["k"] },
        ],
      },
      i: {
        allOf: [
          { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
          { type: "object", properties: { b: { type: "number" } }, required: ["b"] },
        ],
      },
    },
    required: ["u", "va", "i"],
  },
  "object kinds": {
    type: "object",
    properties: {
      lo: { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
      so: { type: "object", properties: { a: { type: "string" } }, required: ["a"], additionalProperties: false },
      wr: { type: "object", properties: { a: { type: "string" } }, required: ["a"], additionalProperties: { type: "number" } },
    },
    required: ["lo", "so", "wr"],
  },
  tuples: {
    type: "object",
    properties: {
      t: { type: "array", items: [{ type: "string" }, { type: "number" }], minItems: 2 },
      st: { type: "array", items: [{ type: "string" }], minItems: 1, additionalItems: false },
      lt: { type: "array", items: [{ type: "boolean" }], minItems: 1 },
      tr: { type: "array", items: [{ type: "string" }], minItems: 1, additionalItems: { type: "number" } },
    },
    required: ["t", "st", "lt", "tr"],
  },
  records: { type: "object", propertyNames: { type: "string", minLength: 1 }, additionalProperties: { type: "number" } },
  "record entries counts": {
    type: "object",
    properties: {
      a: { type: "object", propertyNames: { type: "string" }, additionalProperties: { type: "string" }, minProperties: 1, maxProperties: 3 },
      b: { type: "object", propertyNames: { type: "string" }, additionalProperties: { type: "string" }, minProperties: 2, maxProperties: 2 },
    },
    required: ["a", "b"],
  },
  "values and not_values": {
    type: "object",
    properties: {
      a: { type: "number", enum: [1, 2] },
      b: { enum: ["y", "z"], type: "string" },
      c: { type: "string", not: { const: "no" } },
      d: { type: "string", not: { anyOf: [{ enum: ["p", "q"] }, { const: "r" }] } },
      e: { type: "string", not: {} },
    },
    required: ["a", "b", "c", "d", "e"],
  },
  value: { type: "object", properties: { a: { type: "number", const: 3 }, b: { const: 3 } }, required: ["a", "b"] },
  "examples and metadata": {
    type: "object",
    properties: { a: { type: "string", examples: ["x", "y"], title: "T", description: "D", deprecated: true } },
    required: ["a"],
  },
  "checks and unknown actions are left to valibot": {
    type: "object",
    properties: { even: { type: "number" }, t: { type: "string", minLength: 1 } },
    required: ["even", "t"],
  },
  "the input side of a transform": {
    type: "object",
    properties: { at: { type: "string" }, n: { type: "string" }, j: { type: "string", minLength: 2 } },
    required: ["at", "n", "j"],
  },
  "recursion through lazy": {
    type: "object",
    properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/0" } } },
    required: ["name"],
    $defs: { "0": { type: "object", properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/0" } } }, required: ["name"] } },
  },
  "lazy used twice": {
    type: "object",
    properties: {
      a: { $ref: "#/$defs/0" },
      b: {
        type: "array",
        items: { type: "object", properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/1" } } }, required: ["name"] },
      },
    },
    required: ["a", "b"],
    $defs: {
      "0": { type: "string" },
      "1": { type: "object", properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/1" } } }, required: ["name"] },
    },
  },
  "async schemas": { type: "object", properties: { a: { type: "string", description: "async" } }, required: ["a"] },
  "the bench and README tool": { type: "object", properties: { city: { type: "string", description: "City name." } }, required: ["city"] },
};

describe("what valibot tools send is what 0.2 sent", () => {
  it("every case has its frozen JSON", () => expect(Object.keys(SENT)).toEqual(CASES.map(([label]) => label)));

  it.each(CASES)("%s", (label, schema) => {
    const sent = toJSONSchema(schema);
    // JSON text, not deep equality: key order is part of what the providers cache on.
    expect(JSON.stringify(sent)).toBe(JSON.stringify(SENT[label]));
    expect(sent).not.toHaveProperty("$schema");
  });
});

describe("actions with no JSON Schema form", () => {
  afterEach(() => vi.restoreAllMocks());

  it("are left out without an error or a console line, and valibot still enforces them", async () => {
    const warn = vi.spyOn(console, "warn");
    const error = vi.spyOn(console, "error");
    const schema = v.object({
      even: v.pipe(
        v.number(),
        v.check((n) => n % 2 === 0, "even"),
      ),
      t: v.pipe(v.string(), v.trim(), v.toLowerCase(), v.minLength(1)),
    });
    expect(toJSONSchema(schema)).toEqual({
      type: "object",
      properties: { even: { type: "number" }, t: { type: "string", minLength: 1 } },
      required: ["even", "t"],
    });
    expect(warn).not.toHaveBeenCalled();
    expect(error).not.toHaveBeenCalled();
    const validate = compileValidator(schema);
    expect(await validate({ even: 3, t: " X " })).toMatchObject({ ok: false, issues: [{ path: "/even", message: "even" }] });
    expect(await validate({ even: 2, t: " X " })).toEqual({ ok: true, value: { even: 2, t: "x" } });
  });
});

describe("schemas with no JSON Schema form are refused with their JSON Pointer", () => {
  it.each([
    ["v.date()", v.object({ when: v.date() }), "date", "/properties/when"],
    ["in an optional", v.object({ at: v.optional(v.date()) }), "date", "/properties/at"],
    ["in a nullable", v.object({ at: v.nullable(v.bigint()) }), "bigint", "/properties/at/anyOf/0"],
    ["in an array", v.object({ ns: v.array(v.bigint()) }), "bigint", "/properties/ns/items"],
    ["in a union", v.object({ u: v.union([v.string(), v.date()]) }), "date", "/properties/u/anyOf/1"],
    [
      "in a variant",
      v.variant("k", [v.object({ k: v.literal("a") }), v.object({ k: v.literal("b"), m: v.map(v.string(), v.string()) })]),
      "map",
      "/oneOf/1/properties/m",
    ],
    ["in a tuple", v.tuple([v.string(), v.set(v.string())]), "set", "/items/1"],
    ["a record keyed by numbers", v.object({ r: v.record(v.number() as never, v.string()) }), "record", "/properties/r"],
    ["a literal with no JSON form", v.object({ l: v.literal(Symbol.for("x") as never) }), "literal", "/properties/l"],
    ["a picklist with no JSON form", v.object({ p: v.picklist([1n] as never) }), "picklist", "/properties/p"],
    ["v.custom() behind a lazy", v.object({ c: v.lazy(() => v.custom(() => true)) }), "custom", "/$defs/0"],
    ["the first of several", v.object({ a: v.date(), b: v.map(v.string(), v.string()) }), "date", "/properties/a"],
    ["the whole schema", v.date(), "date", ""],
  ])("%s", (_label, schema, type, path) => {
    let thrown: unknown;
    try {
      toJSONSchema(schema as v.GenericSchema, "when_free");
    } catch (err) {
      thrown = err;
    }
    expect(isToolloopError(thrown, "unsupported_schema"), String(thrown)).toBe(true);
    const e = thrown as UnsupportedSchemaError;
    expect(e.path).toBe(path);
    expect(e.toolName).toBe("when_free");
    expect(e.message).toContain(`a valibot ${type}() schema`);
  });
});
