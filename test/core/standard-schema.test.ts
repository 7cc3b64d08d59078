// Schemas from any library that implements Standard JSON Schema (https://standardschema.dev:
// `~standard.jsonSchema` beside `~standard.validate`) work wherever a valibot schema does:
// tool() and ask(). The library converts its own schema (draft 2020-12, input side) and
// validates what the model wrote (applying its transforms). zod 4 here, and valibot wrapped
// by toStandardJsonSchema(); end to end through the scripted provider and over real HTTP
// against the Claude and OpenAI Responses mocks (which check tool schemas as the APIs do).
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import { afterEach, describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { claude } from "../../adapters/claude/index.js";
import { openai } from "../../adapters/openai/index.js";
import { createClient, isToolloopError, type ToolInput, toJSONSchema, tool, type UnsupportedSchemaError } from "../../src/index.js";
import { scriptedProvider } from "../../src/testing.js";
import { type ClaudeMock, startClaudeMock } from "../mock/claude.js";
import { type OpenAIMock, startOpenAIResponsesMock } from "../mock/openai-responses.js";

const mocks: (ClaudeMock | OpenAIMock)[] = [];
afterEach(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.close()));
});

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error("expected a throw");
}

const ZodWeather = z.object({
  city: z.string().min(1).describe("City name.").meta({ title: "City" }),
  days: z.number().int().min(1).max(7).optional().describe("Days ahead."),
  // The model writes the input side (a string); zod hands run() the output side.
  unit: z.enum(["c", "f"]).transform((u) => (u === "c" ? "celsius" : "fahrenheit")),
});

/** What the model is sent for ZodWeather: zod's own draft 2020-12 input schema, without `$schema`. */
const ZOD_WEATHER_SENT = {
  type: "object",
  properties: {
    city: { type: "string", minLength: 1, description: "City name.", title: "City" },
    days: { description: "Days ahead.", type: "integer", minimum: 1, maximum: 7 },
    unit: { type: "string", enum: ["c", "f"] },
  },
  required: ["city", "unit"],
};

const zodWeather = tool({
  name: "get_weather",
  description: "Weather for a city.",
  input: ZodWeather,
  run: ({ city, days, unit }) => ({ city, days: days ?? 1, unit }),
});

describe("zod schemas (Standard JSON Schema)", () => {
  it("tool(): the model is sent zod's own JSON Schema of the input side, titles and descriptions kept, no $schema", () => {
    expect(zodWeather.parameters).toEqual(ZOD_WEATHER_SENT);
    expect(JSON.stringify(zodWeather.parameters)).toBe(JSON.stringify(ZOD_WEATHER_SENT));
    // The same document zod writes itself (so its own conversion is the one used).
    const { $schema, ...own } = z.toJSONSchema(ZodWeather, { target: "draft-2020-12", io: "input" });
    expect($schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(zodWeather.parameters).toEqual(own);
  });

  it("tool(): run() gets zod's typed output", () => {
    expectTypeOf<ToolInput<typeof zodWeather>>().toEqualTypeOf<{ city: string; days?: number | undefined; unit: "celsius" | "fahrenheit" }>();
  });

  it("end to end through the scripted provider: valid arguments reach run() transformed, invalid ones go back to the model with zod's issues", async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ name: "get_weather", arguments: { city: "", unit: "k" } }] },
      { toolCalls: [{ name: "get_weather", arguments: { city: "Paris", unit: "c", days: 2 } }] },
      "Paris: 2 days, in celsius.",
    ]);
    const client = createClient({ provider, tools: [zodWeather] });
    expect(await client.chat("Weather in Paris?")).toBe("Paris: 2 days, in celsius.");
    expect(provider.requests[0]!.tools).toEqual([{ name: "get_weather", description: "Weather for a city.", parameters: ZOD_WEATHER_SENT }]);
    const results = client.history.flatMap((m) => (m.role === "tool" ? m.results : []));
    expect(results).toHaveLength(2);
    // The first call failed zod's validation: the model reads where and why.
    expect(results[0]!.isError).toBe(true);
    expect(results[0]!.output).toContain("/city");
    expect(results[0]!.output).toContain("/unit");
    expect(JSON.parse(results[1]!.output)).toEqual({ city: "Paris", days: 2, unit: "celsius" });
  });

  it("ask(): the answer is validated and transformed by zod, and typed", async () => {
    const provider = scriptedProvider(['{"city":"Oslo","unit":"f"}']);
    const client = createClient({ provider });
    const answer = await client.ask("Where?", ZodWeather);
    expectTypeOf(answer).toEqualTypeOf<{ city: string; days?: number | undefined; unit: "celsius" | "fahrenheit" }>();
    expect(answer).toEqual({ city: "Oslo", unit: "fahrenheit" });
  });

  it("async refinements: zod's validate returns a promise, and a failing one goes back to the model", async () => {
    const booked = new Set(["Paris"]);
    const book = tool({
      name: "book",
      description: "Book a city.",
      input: z.object({ city: z.string().refine(async (c) => !booked.has(c), "already booked") }),
      run: ({ city }) => `booked ${city}`,
    });
    const provider = scriptedProvider([
      {
        toolCalls: [
          { name: "book", arguments: { city: "Paris" } },
          { name: "book", arguments: { city: "Rome" } },
        ],
      },
      "done",
    ]);
    await createClient({ provider, tools: [book] }).chat("Book Paris and Rome.");
    const results = provider.requests[1]!.messages.flatMap((m) => (m.role === "tool" ? m.results : []));
    expect(results.map((r) => r.isError ?? false)).toEqual([true, false]);
    expect(results[0]!.output).toContain("already booked");
    expect(results[1]!.output).toBe("booked Rome");
  });

  it("a zod schema with no JSON Schema form (z.date(), z.bigint()) is refused when the tool is built, with a typed error", () => {
    for (const [input, what] of [
      [z.object({ when: z.date() }), "Date"],
      [z.object({ n: z.bigint() }), "BigInt"],
    ] as const) {
      const err = thrown(() => tool({ name: "when_free", description: "d", input, run: () => "ok" }));
      expect(isToolloopError(err, "unsupported_schema"), String(err)).toBe(true);
      expect((err as UnsupportedSchemaError).toolName).toBe("when_free");
      expect((err as Error).message).toContain("zod");
      expect((err as Error).message).toContain(what);
    }
  });

  it("tuples come out in draft 2020-12's form (prefixItems), the target the spec asks every library for", () => {
    expect(toJSONSchema(z.object({ at: z.tuple([z.number(), z.number()]) }))).toMatchObject({
      properties: { at: { type: "array", prefixItems: [{ type: "number" }, { type: "number" }], minItems: 2 } },
    });
  });
});

describe("valibot wrapped by toStandardJsonSchema()", () => {
  const Wrapped = toStandardJsonSchema(
    v.object({
      city: v.pipe(v.string(), v.trim(), v.minLength(1), v.description("City name.")),
      days: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
    }),
  );

  it("is converted with the options a plain valibot schema gets (an action with no JSON form left to valibot, not thrown)", () => {
    const direct = toJSONSchema(
      v.object({
        city: v.pipe(v.string(), v.trim(), v.minLength(1), v.description("City name.")),
        days: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
      }),
    );
    expect(toJSONSchema(Wrapped)).toEqual(direct);
    expect(direct).toEqual({
      type: "object",
      properties: { city: { type: "string", minLength: 1, description: "City name." }, days: { type: "integer", minimum: 1 } },
      required: ["city"],
    });
  });

  it("a schema with no JSON Schema form inside it is refused with its JSON Pointer, like a plain one", () => {
    const err = thrown(() => toJSONSchema(toStandardJsonSchema(v.object({ at: v.optional(v.date()) })), "when_free"));
    expect(isToolloopError(err, "unsupported_schema")).toBe(true);
    expect((err as UnsupportedSchemaError).path).toBe("/properties/at");
  });

  it("end to end through the scripted provider: validated (and trimmed) by valibot", async () => {
    const t = tool({ name: "forecast", description: "Forecast.", input: Wrapped, run: ({ city, days }) => `${city}:${days ?? 1}` });
    expectTypeOf<ToolInput<typeof t>>().toEqualTypeOf<{ city: string; days?: number | undefined }>();
    const provider = scriptedProvider([{ toolCalls: [{ name: "forecast", arguments: { city: "  Lima " } }] }, "ok"]);
    await createClient({ provider, tools: [t] }).chat("Lima?");
    const results = provider.requests[1]!.messages.flatMap((m) => (m.role === "tool" ? m.results : []));
    expect(results[0]!.output).toBe("Lima:1");
  });
});

describe("what is not a Standard JSON Schema is refused with a typed error", () => {
  const validate = (value: unknown) => ({ value });

  it("a Standard Schema without jsonSchema (nothing to send the model)", () => {
    const err = thrown(() => tool({ name: "t", description: "d", input: { "~standard": { version: 1, vendor: "x", validate } } as never, run: () => "ok" }));
    expect(isToolloopError(err)).toBe(true);
    expect((err as Error).message).toContain("~standard.jsonSchema");
  });

  it("a jsonSchema.input that throws for the target, or gives no object", () => {
    const refusing = {
      "~standard": {
        version: 1,
        vendor: "old",
        validate,
        jsonSchema: {
          input: () => {
            throw new Error("Unsupported target: draft-2020-12");
          },
        },
      },
    };
    const err = thrown(() => toJSONSchema(refusing, "t"));
    expect(isToolloopError(err, "unsupported_schema")).toBe(true);
    expect((err as Error).message).toContain("Unsupported target: draft-2020-12");
    const empty = { "~standard": { version: 1, vendor: "odd", validate, jsonSchema: { input: () => "{}" as never } } };
    expect(
      isToolloopError(
        thrown(() => toJSONSchema(empty, "t")),
        "unsupported_schema",
      ),
    ).toBe(true);
  });
});

describe("a zod tool over real HTTP", () => {
  it("Claude: the request carries zod's schema as input_schema, and the loop runs the tool", async () => {
    const KEY = "sk-ant-test-zod-0123456789";
    const mock = await startClaudeMock({
      apiKey: KEY,
      script: [{ toolCalls: [{ name: "get_weather", input: { city: "Paris", unit: "c" } }] }, { text: "21 in Paris." }],
    });
    mocks.push(mock);
    const client = createClient({ provider: claude({ apiKey: KEY, model: "claude-sonnet-4-5", baseURL: mock.url, cache: "off" }), tools: [zodWeather] });
    expect(await client.chat("Weather in Paris?")).toBe("21 in Paris.");
    expect(mock.requests).toHaveLength(2);
    expect(mock.requests[0]!.body.tools).toEqual([{ name: "get_weather", description: "Weather for a city.", input_schema: ZOD_WEATHER_SENT }]);
    const result = mock.requests[1]!.body.messages.at(-1).content[0];
    expect(result.type).toBe("tool_result");
    expect(JSON.parse(result.content)).toEqual({ city: "Paris", days: 1, unit: "celsius" });
  });

  it("OpenAI Responses: a zod schema passes the mock's strict-mode checks (optional made nullable), and the model's null is taken out before zod validates", async () => {
    const KEY = "sk-test-zod-5a5a5a5a";
    const mock = await startOpenAIResponsesMock({
      apiKey: KEY,
      script: [{ toolCalls: [{ name: "forecast", input: { city: "Rome", days: null } }] }, { text: "Rome, one day." }],
    });
    mocks.push(mock);
    const forecast = tool({
      name: "forecast",
      description: "Forecast for a city.",
      input: z.object({ city: z.string().describe("City name."), days: z.number().int().optional() }),
      run: ({ city, days }) => ({ city, days: days ?? 1 }),
    });
    const client = createClient({ provider: openai({ apiKey: KEY, model: "gpt-5-mini", baseURL: mock.url, maxRetries: 0 }), tools: [forecast] });
    const events = [];
    for await (const ev of client.stream("Forecast for Rome?")) events.push(ev);
    expect(events.at(-1)).toMatchObject({ type: "finish", text: "Rome, one day." });
    const sent = (mock.requests[0]!.body as { tools: { name: string; strict?: boolean; parameters: { required: string[] } }[] }).tools[0]!;
    expect(sent).toMatchObject({ name: "forecast", strict: true });
    expect(sent.parameters.required).toEqual(["city", "days"]);
    const output = (mock.requests[1]!.body as { input: { type: string; output?: string }[] }).input.find((i) => i.type === "function_call_output")!.output!;
    expect(JSON.parse(output)).toEqual({ city: "Rome", days: 1 });
  });
});
