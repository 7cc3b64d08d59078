// What a tool tells the model is checked when the tool is built (issue 24, newcomer 5): a tool
// without a description used to be sent without one, and a raw JSON Schema with
// `{ type: "strnig" }` used to reach the provider as written.
import Ajv2020 from "ajv/dist/2020.js";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { createClient, externalTool, InvalidToolError, isToolloopError, jsonTool, suspension, type Tool, toJSONSchema, tool } from "../../src/index.js";
import { scriptedProvider } from "../../src/testing.js";

const input = v.object({ city: v.string() });
const run = () => "ok";
const js = (options: Record<string, unknown>): never => options as never;

function thrown(call: () => unknown): Error {
  try {
    call();
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected a throw");
}

describe("a tool needs a description", () => {
  const missing: [string, Record<string, unknown>][] = [
    ["left out", {}],
    ["empty", { description: "" }],
    ["blank", { description: " \n\t" }],
    ["not a string", { description: 42 }],
  ];
  const builders: [string, (extra: Record<string, unknown>) => unknown][] = [
    ["tool()", (extra) => tool(js({ name: "get_weather", input, run, ...extra }))],
    ["jsonTool()", (extra) => jsonTool(js({ name: "get_weather", parameters: { type: "object" }, run, ...extra }))],
    ["externalTool()", (extra) => externalTool(js({ name: "get_weather", input, ...extra }))],
    [
      "setTools (a hand-written Tool)",
      (extra) =>
        createClient({ provider: scriptedProvider([]) }).setTools([
          js({ name: "get_weather", parameters: { type: "object" }, call: async () => "", ...extra }),
        ]),
    ],
  ];
  for (const [builder, build] of builders) {
    it.each(missing)(`${builder}: a description %s is an InvalidToolError that says what to write`, (_, extra) => {
      const err = thrown(() => build(extra));
      expect(err).toBeInstanceOf(InvalidToolError);
      expect(isToolloopError(err, "invalid_tool")).toBe(true);
      expect(err.message).toBe('tool "get_weather" needs a description: what it does and when to call it, e.g. "Current temperature for a city."');
    });
  }

  it("createClient({ tools }) and a step's tools from prepareStep are checked the same way", async () => {
    const bare = js({ name: "bare", parameters: { type: "object" }, call: async () => "" }) as Tool;
    expect(() => createClient({ provider: scriptedProvider([]), tools: [bare] })).toThrow(/tool "bare" needs a description/);
    const c = createClient({ provider: scriptedProvider(["unused"]), prepareStep: () => ({ tools: [bare] }) });
    await expect(c.chat("hi")).rejects.toThrow(/tool "bare" needs a description/);
  });

  it("a tool with a description is sent with it, unchanged", async () => {
    const provider = scriptedProvider(["done"]);
    const c = createClient({ provider, tools: [tool({ name: "get_weather", description: "Current temperature for a city.", input, run })] });
    await c.chat("hi");
    expect(provider.requests[0]!.tools.map((t) => t.description)).toEqual(["Current temperature for a city."]);
  });
});

/** [what is wrong, the schema, the JSON Pointer the error must name]. */
const BAD: [string, Record<string, unknown>, string][] = [
  ["a misspelt type", { type: "object", properties: { city: { type: "strnig" } } }, "/properties/city/type"],
  ["a type list with a misspelt entry", { type: "object", properties: { n: { type: ["number", "nul"] } } }, "/properties/n/type"],
  ["an empty type list", { type: "object", properties: { n: { type: [] } } }, "/properties/n/type"],
  ["a repeated type", { type: "object", properties: { n: { type: ["string", "string"] } } }, "/properties/n/type"],
  ["required as a string", { type: "object", properties: { city: { type: "string" } }, required: "city" }, "/required"],
  ["required with a repeat", { type: "object", required: ["a", "a"] }, "/required"],
  ["required with a number", { type: "object", required: [1] }, "/required"],
  ["properties as a list", { type: "object", properties: [{ type: "string" }] }, "/properties"],
  ["a property that is a string", { type: "object", properties: { city: "string" } }, "/properties/city"],
  ["items as a string", { type: "object", properties: { tags: { type: "array", items: "string" } } }, "/properties/tags/items"],
  ["additionalProperties as a string", { type: "object", additionalProperties: "no" }, "/additionalProperties"],
  ["an empty anyOf", { type: "object", properties: { x: { anyOf: [] } } }, "/properties/x/anyOf"],
  ["oneOf as an object", { type: "object", properties: { x: { oneOf: { type: "string" } } } }, "/properties/x/oneOf"],
  ["enum as a string", { type: "object", properties: { unit: { type: "string", enum: "c" } } }, "/properties/unit/enum"],
  ["a negative minLength", { type: "object", properties: { s: { type: "string", minLength: -1 } } }, "/properties/s/minLength"],
  ["a fractional maxItems", { type: "object", properties: { a: { type: "array", maxItems: 1.5 } } }, "/properties/a/maxItems"],
  ["minimum as a string", { type: "object", properties: { n: { type: "number", minimum: "0" } } }, "/properties/n/minimum"],
  ["multipleOf 0", { type: "object", properties: { n: { type: "number", multipleOf: 0 } } }, "/properties/n/multipleOf"],
  ["description as a number", { type: "object", properties: { n: { type: "number", description: 5 } } }, "/properties/n/description"],
  ["uniqueItems as a string", { type: "object", properties: { a: { type: "array", uniqueItems: "yes" } } }, "/properties/a/uniqueItems"],
  ["a pattern that is not a regular expression", { type: "object", properties: { s: { type: "string", pattern: "([a-z" } } }, "/properties/s/pattern"],
  [
    "a deep misspelt type in $defs",
    { type: "object", $defs: { City: { type: "object", properties: { name: { type: "sting" } } } } },
    "/$defs/City/properties/name/type",
  ],
  ["a misspelt type inside anyOf", { type: "object", properties: { x: { anyOf: [{ type: "string" }, { type: "numbr" }] } } }, "/properties/x/anyOf/1/type"],
  ["a name with a slash, escaped in the path", { type: "object", properties: { "a/b": { type: "strnig" } } }, "/properties/a~1b/type"],
];

/** Schemas the check must let through: what providers and tool() produce, and 2020-12 and draft-07 forms. */
const GOOD: [string, Record<string, unknown>][] = [
  ["the smallest", { type: "object" }],
  [
    "properties and required",
    { type: "object", properties: { city: { type: "string", description: "City name." } }, required: ["city"], additionalProperties: false },
  ],
  ["a nullable type list", { type: "object", properties: { n: { type: ["number", "null"] } } }],
  ["$defs and $ref", { type: "object", properties: { a: { $ref: "#/$defs/A" } }, $defs: { A: { type: "string", enum: ["x", "y"] } } }],
  ["boolean subschemas", { type: "object", properties: { any: true, none: false }, additionalProperties: false }],
  ["prefixItems and items", { type: "object", properties: { pair: { type: "array", prefixItems: [{ type: "number" }, { type: "number" }], items: false } } }],
  [
    "numbers, counts, formats, patterns",
    {
      type: "object",
      properties: {
        n: { type: "integer", minimum: 0, exclusiveMaximum: 10, multipleOf: 2 },
        s: { type: "string", minLength: 1, maxLength: 9, pattern: "^[a-z]+$", format: "email" },
      },
    },
  ],
  [
    "combinators",
    {
      type: "object",
      properties: { x: { oneOf: [{ type: "string" }, { type: "number" }], not: { const: 3 } } },
      if: { required: ["x"] },
      then: { minProperties: 1 },
    },
  ],
  ["dependentRequired, patternProperties", { type: "object", dependentRequired: { a: ["b"] }, patternProperties: { "^x-": { type: "string" } } }],
  [
    "unknown keywords are allowed (x-mcp-header, examples, default)",
    { type: "object", properties: { id: { type: "string", "x-mcp-header": "Id", examples: ["a"], default: "a" } } },
  ],
  [
    "a valibot schema's JSON Schema",
    toJSONSchema(v.object({ city: v.pipe(v.string(), v.description("City.")), days: v.optional(v.array(v.number())), unit: v.picklist(["c", "f"]) })),
  ],
];

describe("a raw JSON Schema is checked against the meta-schema when the tool is built", () => {
  it.each(BAD)("jsonTool() refuses %s, naming the keyword's path", (_, parameters, path) => {
    const err = thrown(() => jsonTool({ name: "t", description: "A tool.", parameters, run }));
    expect(err).toBeInstanceOf(InvalidToolError);
    expect(isToolloopError(err, "invalid_tool")).toBe(true);
    expect(err.message).toContain(`tool "t": \`parameters\` is not a valid JSON Schema: ${path} must be `);
  });

  it.each(BAD)("externalTool() refuses %s in a raw input schema", (_, raw, path) => {
    expect(() => externalTool({ name: "t", description: "A tool.", input: raw })).toThrow(`\`input\` is not a valid JSON Schema: ${path} must be `);
  });

  it("the error says what the keyword takes and what it got", () => {
    expect(thrown(() => jsonTool({ name: "t", description: "A tool.", parameters: BAD[0]![1], run })).message).toBe(
      'tool "t": `parameters` is not a valid JSON Schema: /properties/city/type must be one of string, number, integer, boolean, object, array, null, or an array of distinct ones, got "strnig"',
    );
  });

  it.each(GOOD)("lets a valid schema through: %s", (_, parameters) => {
    expect(() => jsonTool({ name: "t", description: "A tool.", parameters, run })).not.toThrow();
  });

  it("a keyword set to undefined is no keyword (as in the JSON sent)", () => {
    const parameters = { type: "object", properties: { a: { type: "string", description: undefined } }, required: undefined };
    expect(() => jsonTool({ name: "t", description: "A tool.", parameters, run })).not.toThrow();
  });

  it("draft-07 forms the project takes are valid too (a tuple `items`, `definitions`)", () => {
    const parameters = {
      type: "object",
      properties: { p: { type: "array", items: [{ type: "string" }, { type: "number" }] } },
      definitions: { A: { type: "string" } },
    };
    expect(() => jsonTool({ name: "t", description: "A tool.", parameters, run })).not.toThrow();
  });

  it("a bad schema never reaches the provider: the tool cannot be built, so setTools never sees it", async () => {
    const provider = scriptedProvider(["done"]);
    const c = createClient({ provider, suspension: suspension({ unsigned: true }) });
    expect(() => c.setTools([jsonTool({ name: "t", description: "A tool.", parameters: BAD[0]![1], run })])).toThrow(InvalidToolError);
    await c.chat("hi");
    expect(provider.requests[0]!.tools).toEqual([]);
  });
});

describe("the check agrees with the JSON Schema 2020-12 meta-schema (Ajv's copy, as a differential check)", () => {
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  // The one place the check is stricter: the meta-schema only annotates `pattern` as a regex
  // (format "regex"), but one that does not compile would make every call's validation throw.
  it.each(BAD.filter(([what]) => !what.startsWith("a pattern")))("the meta-schema refuses %s too", (_, schema) => {
    expect(ajv.validateSchema(schema)).toBe(false);
  });
  it.each(GOOD)("the meta-schema accepts %s too", (_, schema) => {
    expect(ajv.validateSchema(schema), JSON.stringify(ajv.errors)).toBe(true);
  });
});
