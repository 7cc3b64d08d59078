// toolloop's own valibot → JSON Schema converter against the reference converter it
// replaced (@valibot/to-json-schema, now a dev dependency only): for every schema below the
// two agree key for key (same order too, since tools are serialised byte-identically), and
// what has no JSON Schema form is reported with its JSON Pointer instead of becoming {}.
import { toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { valibotToJSONSchema } from "../../src/valibot-json-schema.js";

const reference = (s: v.GenericSchema) => {
  const { $schema: _drop, ...rest } = toJsonSchema(s, { errorMode: "ignore", typeMode: "input" }) as Record<string, unknown>;
  return rest;
};

type Node = { name: string; children?: Node[] };
const treeNode: v.GenericSchema<Node> = v.object({ name: v.string(), children: v.optional(v.array(v.lazy(() => treeNode))) });

const CASES: [string, v.GenericSchema][] = [
  ["primitives", v.object({ s: v.string(), n: v.number(), b: v.boolean(), z: v.null(), a: v.any(), u: v.unknown(), x: v.never() })],
  ["descriptions and titles", v.object({ city: v.pipe(v.string(), v.title("City"), v.description("City name.")) })],
  ["nested pipes", v.pipe(v.pipe(v.string(), v.minLength(2)), v.maxLength(9), v.description("d"))],
  ["string lengths", v.object({ a: v.pipe(v.string(), v.length(3)), b: v.pipe(v.string(), v.nonEmpty()), c: v.pipe(v.string(), v.empty()) })],
  ["array lengths", v.object({ a: v.pipe(v.array(v.number()), v.minLength(1), v.maxLength(4)), b: v.pipe(v.array(v.string()), v.length(2)), c: v.pipe(v.array(v.string()), v.nonEmpty()) })],
  ["stricter bounds win", v.pipe(v.string(), v.minLength(5), v.minLength(2), v.maxLength(3), v.maxLength(8))],
  ["numbers", v.object({ i: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10)), g: v.pipe(v.number(), v.gtValue(0), v.ltValue(1)), m: v.pipe(v.number(), v.multipleOf(5)), s: v.pipe(v.number(), v.safeInteger()) })],
  ["bounds on a string are ignored", v.pipe(v.string(), v.minValue("a" as never), v.maxValue(Infinity as never))],
  ["formats", v.object({ e: v.pipe(v.string(), v.email()), r: v.pipe(v.string(), v.rfcEmail()), u: v.pipe(v.string(), v.url()), id: v.pipe(v.string(), v.uuid()), d: v.pipe(v.string(), v.isoDate()), dt: v.pipe(v.string(), v.isoDateTime()), ts: v.pipe(v.string(), v.isoTimestamp()), t: v.pipe(v.string(), v.isoTime()), ip4: v.pipe(v.string(), v.ipv4()), ip6: v.pipe(v.string(), v.ipv6()) })],
  ["patterns", v.object({ r: v.pipe(v.string(), v.regex(/^[a-z]+$/)), sw: v.pipe(v.string(), v.startsWith("a.b")), ew: v.pipe(v.string(), v.endsWith("(x)")), inc: v.pipe(v.string(), v.includes("*")), hex: v.pipe(v.string(), v.hexadecimal()), slug: v.pipe(v.string(), v.slug()), ulid: v.pipe(v.string(), v.ulid()), nano: v.pipe(v.string(), v.nanoid()), hc: v.pipe(v.string(), v.hexColor()), dig: v.pipe(v.string(), v.digits()) })],
  ["only the first pattern", v.pipe(v.string(), v.regex(/a/), v.regex(/b/), v.startsWith("c"))],
  ["regexes with no pattern form", v.object({ ip: v.pipe(v.string(), v.ip()), dts: v.pipe(v.string(), v.isoDateTimeSecond()), b64: v.pipe(v.string(), v.base64()) })],
  ["regex flags kept out", v.pipe(v.string(), v.regex(/abc/i))],
  ["optional, nullish, nullable, defaults", v.object({ o: v.optional(v.string()), od: v.optional(v.number(), 3), of: v.optional(v.string(), () => "f"), n: v.nullable(v.string()), nd: v.nullable(v.boolean(), false), nh: v.nullish(v.number()), eo: v.exactOptional(v.string()), ud: v.undefinedable(v.string()) })],
  ["literals and picklists", v.object({ l: v.literal("x"), l2: v.literal(2), l3: v.literal(true), p: v.picklist(["a", "b"]), pn: v.picklist([1, 2]), pm: v.picklist(["a", 1]) })],
  ["enums", v.object({ e: v.enum({ A: "a", B: "b" }) })],
  ["unions, variants, intersections", v.object({ u: v.union([v.string(), v.number()]), va: v.variant("k", [v.object({ k: v.literal("a"), a: v.string() }), v.object({ k: v.literal("b") })]), i: v.intersect([v.object({ a: v.string() }), v.object({ b: v.number() })]) })],
  ["object kinds", v.object({ lo: v.looseObject({ a: v.string() }), so: v.strictObject({ a: v.string() }), wr: v.objectWithRest({ a: v.string() }, v.number()) })],
  ["tuples", v.object({ t: v.tuple([v.string(), v.number()]), st: v.strictTuple([v.string()]), lt: v.looseTuple([v.boolean()]), tr: v.tupleWithRest([v.string()], v.number()) })],
  ["records", v.record(v.pipe(v.string(), v.minLength(1)), v.number())],
  ["record entries counts", v.object({ a: v.pipe(v.record(v.string(), v.string()), v.minEntries(1), v.maxEntries(3)), b: v.pipe(v.record(v.string(), v.string()), v.entries(2)) })],
  ["values and not_values", v.object({ a: v.pipe(v.number(), v.values([1, 2, 2])), b: v.pipe(v.picklist(["x", "y", "z"]), v.values(["y", "z", "q"] as never)), c: v.pipe(v.string(), v.notValue("no")), d: v.pipe(v.string(), v.notValues(["p", "q"]), v.notValue("r")), e: v.pipe(v.picklist(["x"]), v.values(["q"] as never)) })],
  ["value", v.object({ a: v.pipe(v.number(), v.value(3)), b: v.pipe(v.literal(3), v.value(4 as never)) })],
  ["examples and metadata", v.object({ a: v.pipe(v.string(), v.examples(["x"]), v.metadata({ title: "T", description: "D", examples: ["y"], deprecated: true })) })],
  ["checks and unknown actions are left to valibot", v.object({ even: v.pipe(v.number(), v.check((n) => n % 2 === 0)), t: v.pipe(v.string(), v.trim(), v.toLowerCase(), v.minLength(1)) })],
  ["the input side of a transform", v.object({ at: v.pipe(v.string(), v.transform((s) => new Date(s)), v.date()), n: v.pipe(v.string(), v.toNumber(), v.minValue(3)), j: v.pipe(v.string(), v.minLength(2), v.parseJson(), v.object({ a: v.string() })) })],
  ["recursion through lazy", treeNode],
  ["lazy used twice", v.object({ a: v.lazy(() => v.string()), b: v.array(treeNode) })],
  ["async schemas", v.objectAsync({ a: v.pipeAsync(v.string(), v.checkAsync(async () => true), v.description("async")) }) as unknown as v.GenericSchema],
  ["the bench and README tool", v.object({ city: v.pipe(v.string(), v.description("City name.")) })],
];

describe("valibotToJSONSchema matches @valibot/to-json-schema", () => {
  it.each(CASES)("%s", (_label, schema) => {
    const ours = valibotToJSONSchema(schema);
    expect(ours.unconvertible).toBeUndefined();
    // JSON text, not deep equality: key order is part of what the providers cache on.
    expect(JSON.stringify(ours.schema)).toBe(JSON.stringify(reference(schema)));
  });
});

describe("schemas with no JSON Schema form are reported with their JSON Pointer", () => {
  it.each([
    ["v.date()", v.object({ when: v.date() }), "date", "/properties/when"],
    ["in an optional", v.object({ at: v.optional(v.date()) }), "date", "/properties/at"],
    ["in a nullable", v.object({ at: v.nullable(v.bigint()) }), "bigint", "/properties/at/anyOf/0"],
    ["in an array", v.object({ ns: v.array(v.bigint()) }), "bigint", "/properties/ns/items"],
    ["in a union", v.object({ u: v.union([v.string(), v.date()]) }), "date", "/properties/u/anyOf/1"],
    ["in a variant", v.variant("k", [v.object({ k: v.literal("a") }), v.object({ k: v.literal("b"), m: v.map(v.string(), v.string()) })]), "map", "/oneOf/1/properties/m"],
    ["in a tuple", v.tuple([v.string(), v.set(v.string())]), "set", "/items/1"],
    ["a record keyed by numbers", v.object({ r: v.record(v.number() as never, v.string()) }), "record", "/properties/r"],
    ["a literal with no JSON form", v.object({ l: v.literal(Symbol.for("x") as never) }), "literal", "/properties/l"],
    ["a picklist with no JSON form", v.object({ p: v.picklist([1n] as never) }), "picklist", "/properties/p"],
    ["v.custom() behind a lazy", v.object({ c: v.lazy(() => v.custom(() => true)) }), "custom", "/$defs/0"],
    ["the first of several", v.object({ a: v.date(), b: v.map(v.string(), v.string()) }), "date", "/properties/a"],
  ])("%s", (_label, schema, type, path) => {
    expect(valibotToJSONSchema(schema).unconvertible).toEqual({ type, path });
  });
});
