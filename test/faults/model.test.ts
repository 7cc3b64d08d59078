// A model that misbehaves, for every adapter over real HTTP: it calls a tool that does
// not exist, sends no arguments, wraps them in fences or prose, sends an array or a string
// instead of an object, plants __proto__ / constructor / prototype keys, nests 10,000
// levels deep, reuses a tool-call id within a step, or never stops calling tools. The
// run never crashes, no handler sees input its schema forbids, nothing pollutes
// Object.prototype, and the history stays valid on the wire (the mocks reject what the
// real APIs reject), so the next chat works.

import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, jsonTool, type Tool, tool } from "../../src/index.js";
import { type Mock, type RawCall, ROWS, type Row } from "./rows.js";
import { drive, expectValidHistory, MODES, type Mode, rejection } from "./support.js";

let mock: Mock | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

/** The tool a misbehaving call goes to: records what its handler got (if it ever runs). */
function recorder(schema: "optional-city" | "required-city" = "optional-city") {
  const got: unknown[] = [];
  const t = tool({
    name: "lookup",
    description: "Looks a city up.",
    input: schema === "optional-city" ? v.object({ city: v.optional(v.string()) }) : v.object({ city: v.string() }),
    run: (input) => {
      got.push(input);
      return "looked up";
    },
  });
  return { tool: t, got };
}

/** Serves one tool-call reply (then the script's text), runs a chat, returns the client and the tool result. */
async function runWithReply(row: Row, mode: Mode, calls: RawCall[], tools: Tool[], options: Record<string, unknown> = {}) {
  const m = await row.start({ script: [{ text: "final answer" }, { text: "next ok" }] });
  mock = m;
  const reply = row.toolCallReply(mode, calls);
  if (!reply) throw new Error("this row cannot send that reply");
  m.enqueue(reply);
  const client = createClient({ provider: row.provider(m), tools, ...options });
  return { m, client };
}

/** Rows × modes where the wire carries the arguments as raw text (OpenAI always, Claude when streaming). */
const TEXT_WIRE: [Row, Mode][] = ROWS.flatMap((row) =>
  MODES.filter((mode) => row.toolCallReply(mode, [{ id: "x", name: "x", args: { raw: "x" } }])).map((mode) => [row, mode] as [Row, Mode]),
);
const EVERY: [Row, Mode][] = ROWS.flatMap((row) => MODES.map((mode) => [row, mode] as [Row, Mode]));
const label = ([row, mode]: [Row, Mode]) => `${row.label} (${mode})`;

async function expectNextChatWorks(client: ReturnType<typeof createClient>, mode: Mode): Promise<void> {
  expectValidHistory(client);
  await expect(drive(client, "and now?", mode)).resolves.toBe("next ok");
  expectValidHistory(client);
}

describe.each(EVERY.map((rm) => ({ name: label(rm), rm })))("$name: model misbehaviour", ({ rm: [row, mode] }) => {
  it("calls a tool that does not exist: answered with the list of tools, the run goes on", async () => {
    const r = recorder();
    const { client, m } = await runWithReply(row, mode, [{ id: "call_u1", name: "no_such_tool", args: { json: '{"a": 1}' } }], [r.tool]);
    await expect(drive(client, "go", mode)).resolves.toBe("final answer");
    const out = row.toolResults(m.bodies()[1])[0]!.output;
    expect(out).toContain('unknown tool \\"no_such_tool\\"');
    expect(out).toContain("available tools: lookup");
    await expectNextChatWorks(client, mode);
  });

  it("sends no arguments at all: a tool without required input runs with {}", async () => {
    const r = recorder();
    const { client } = await runWithReply(row, mode, [{ id: "call_e1", name: "lookup", args: { absent: true } }], [r.tool]);
    await expect(drive(client, "go", mode)).resolves.toBe("final answer");
    expect(r.got).toEqual([{}]);
    await expectNextChatWorks(client, mode);
  });

  it("sends no arguments to a tool that needs some: the model is asked to fix them against the schema", async () => {
    const r = recorder("required-city");
    const { client, m } = await runWithReply(row, mode, [{ id: "call_e2", name: "lookup", args: { absent: true } }], [r.tool]);
    await expect(drive(client, "go", mode)).resolves.toBe("final answer");
    expect(r.got).toEqual([]);
    const out = JSON.parse(row.toolResults(m.bodies()[1])[0]!.output);
    expect(out.error).toContain("failed to unmarshal input");
    expect(out.schema).toMatchObject({ type: "object", required: ["city"] });
    await expectNextChatWorks(client, mode);
  });

  for (const [what, json] of [
    ["an array", "[1, 2]"],
    ["a string", '"Paris"'],
    ["a double-encoded object string", JSON.stringify(JSON.stringify({ city: "Paris" }))],
    ["a number", "42"],
    ["null", "null"],
  ] as const) {
    it(`sends ${what} instead of an object: the handler never runs, the replayed history stays valid`, async () => {
      const r = recorder();
      const { client, m } = await runWithReply(row, mode, [{ id: "call_a1", name: "lookup", args: { json } }], [r.tool]);
      await expect(drive(client, "go", mode)).resolves.toBe("final answer");
      expect(r.got).toEqual([]);
      const out = JSON.parse(row.toolResults(m.bodies()[1])[0]!.output);
      expect(out.error).toContain("failed to unmarshal input");
      await expectNextChatWorks(client, mode);
    });
  }

  it("plants __proto__ / constructor / prototype keys: no pollution, the handler gets plain own properties", async () => {
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    const args = '{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}, "prototype": {"polluted": "yes"}, "city": "Paris"}';
    const got: Record<string, unknown>[] = [];
    const raw = jsonTool({
      name: "raw_lookup",
      description: "A test tool.",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      run: (input) => (got.push(input), "ok"),
    });
    const typed: unknown[] = [];
    const valibot = tool({
      name: "typed_lookup",
      description: "A test tool.",
      input: v.object({ city: v.string() }),
      run: (input) => (typed.push(input), "ok"),
    });
    const loose: unknown[] = [];
    const looseTool = tool({
      name: "loose_lookup",
      description: "A test tool.",
      input: v.looseObject({ city: v.string() }),
      run: (input) => (loose.push(input), "ok"),
    });
    const { client } = await runWithReply(
      row,
      mode,
      [
        { id: "call_p1", name: "raw_lookup", args: { json: args } },
        { id: "call_p2", name: "typed_lookup", args: { json: args } },
        { id: "call_p3", name: "loose_lookup", args: { json: args } },
      ],
      [raw, valibot, looseTool],
    );
    await expect(drive(client, "go", mode)).resolves.toBe("final answer");
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // jsonTool: the parsed JSON as is, every key an own data property
    expect(got).toHaveLength(1);
    const input = got[0]!;
    expect(Object.getPrototypeOf(input)).toBe(Object.prototype);
    expect(Object.hasOwn(input, "__proto__")).toBe(true);
    expect(Object.getOwnPropertyDescriptor(input, "__proto__")!.value).toEqual({ polluted: "yes" });
    expect(Object.hasOwn(input, "constructor")).toBe(true);
    expect(input.polluted).toBeUndefined();
    expect(input.city).toBe("Paris");
    // valibot object: unknown keys dropped, nothing inherited
    expect(typed).toHaveLength(1);
    expect(Object.getPrototypeOf(typed[0])).toBe(Object.prototype);
    expect((typed[0] as Record<string, unknown>).polluted).toBeUndefined();
    expect((typed[0] as Record<string, unknown>).city).toBe("Paris");
    // looseObject: whatever it keeps is its own, nothing inherited from the planted keys
    expect(loose).toHaveLength(1);
    expect(Object.getPrototypeOf(loose[0])).toBe(Object.prototype);
    expect((loose[0] as Record<string, unknown>).polluted).toBeUndefined();
    await expectNextChatWorks(client, mode);
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before);
  });

  it("reuses one tool-call id for two calls in a step: each call is answered once and the request stays valid", async () => {
    const r = recorder();
    const { client, m } = await runWithReply(
      row,
      mode,
      [
        { id: "call_dup", name: "lookup", args: { json: '{"city": "Paris"}' } },
        { id: "call_dup", name: "lookup", args: { json: '{"city": "Rome"}' } },
      ],
      [r.tool],
    );
    await expect(drive(client, "go", mode)).resolves.toBe("final answer");
    expect(r.got).toEqual([{ city: "Paris" }, { city: "Rome" }]);
    const history = client.history;
    const calls = history[1]!.role === "assistant" ? history[1]!.toolCalls! : [];
    expect(new Set(calls.map((c) => c.id)).size).toBe(2);
    const body = m.bodies()[1];
    const ids = row.toolCallIds(body);
    expect(new Set(ids).size).toBe(ids.length);
    expect(row.toolResults(body).map((x) => x.id)).toEqual(ids);
    await expectNextChatWorks(client, mode);
  });

  for (const shape of ["array", "object"] as const) {
    it(`nests ${shape}s 10,000 deep: the call is answered as invalid input on every wire, the run goes on, the next chat works`, async () => {
      const n = 10_000;
      const deep = shape === "array" ? "[".repeat(n) + "]".repeat(n) : '{"a":'.repeat(n) + "1" + "}".repeat(n);
      const r = recorder();
      const anything = jsonTool({ name: "anything", description: "A test tool.", parameters: { type: "object" }, run: (x) => (r.got.push(x), "ok") });
      const json = shape === "array" ? deep : `{"tree": ${deep}}`;
      const { client, m } = await runWithReply(row, mode, [{ id: "call_d1", name: "anything", args: { json } }], [anything]);
      // Arguments as text (OpenAI) or as an object inside the response (Claude, Gemini): on
      // every wire the one call is answered as invalid input and the run goes on.
      await expect(drive(client, "go", mode)).resolves.toBe("final answer");
      expect(r.got).toEqual([]);
      const out = JSON.parse(row.toolResults(m.bodies()[1])[0]!.output);
      expect(out.error).toContain("failed to unmarshal input");
      expect(out.error).toContain("nested deeper than");
      expect(() => structuredClone(client.history)).not.toThrow();
      expect(() => JSON.stringify(client.history)).not.toThrow();
      await expectNextChatWorks(client, mode);
    });
  }

  it("never stops calling tools: MaxStepsError, every call answered, the next chat works", async () => {
    let looping = true;
    let n = 0;
    const m = await row.start({
      script: () => (looping ? { toolCalls: [{ id: `call_loop${++n}`, name: "lookup", input: { city: "Paris" } }] } : { text: "next ok" }),
    });
    mock = m;
    const r = recorder();
    const client = createClient({ provider: row.provider(m), tools: [r.tool], maxSteps: 3 });
    const err = await rejection(drive(client, "go", mode));
    expect(err.code).toBe("max_steps");
    expect(err.name).toBe("MaxStepsError");
    expect(err.steps).toBe(3);
    expect(m.bodies()).toHaveLength(3);
    expect(r.got).toHaveLength(2); // the third step's call is answered "not run": no model call would read it
    expectValidHistory(client);
    const last = client.history[client.history.length - 1]!;
    expect(last.role === "tool" && last.results[0]!.output).toContain("maxSteps");
    looping = false;
    await expect(drive(client, "stop now", mode)).resolves.toBe("next ok");
    expectValidHistory(client);
  });

  it("finalAnswerOnMaxSteps: one last call with tools disabled on the wire, and its answer is returned", async () => {
    const choices: boolean[] = [];
    let n = 0;
    const m = await row.start({
      script: (body) => {
        const none = row.toolChoiceNone(body);
        choices.push(none);
        return none ? { text: "summary without tools" } : { toolCalls: [{ id: `call_f${++n}`, name: "lookup", input: { city: "Oslo" } }] };
      },
    });
    mock = m;
    const r = recorder();
    const client = createClient({ provider: row.provider(m), tools: [r.tool], maxSteps: 2, finalAnswerOnMaxSteps: true });
    await expect(drive(client, "go", mode)).resolves.toBe("summary without tools");
    expect(choices).toEqual([false, false, true]);
    expectValidHistory(client);
  });
});

describe.each(TEXT_WIRE.map((rm) => ({ name: label(rm), rm })))("$name: arguments as text", ({ rm: [row, mode] }) => {
  for (const [what, raw] of [
    ["a ```json fence", '```json\n{"city": "Paris"}\n```'],
    ["prose around them", 'Sure! Here are the arguments: {"city": "Paris"} Let me know if you need anything else.'],
    ["a BOM and whitespace", '\uFEFF  \n {"city": "Paris"}  \n'],
    ["an empty string", ""],
  ] as const) {
    it(`wrapped in ${what}: the handler gets the object inside`, async () => {
      const r = recorder();
      const { client } = await runWithReply(row, mode, [{ id: "call_w1", name: "lookup", args: { raw } }], [r.tool]);
      await expect(drive(client, "go", mode)).resolves.toBe("final answer");
      expect(r.got).toEqual([raw === "" ? {} : { city: "Paris" }]);
      await expectNextChatWorks(client, mode);
    });
  }

  it("broken JSON (a trailing comma) is not repaired: the model is asked to fix it", async () => {
    const r = recorder();
    const { client, m } = await runWithReply(row, mode, [{ id: "call_b1", name: "lookup", args: { raw: '{"city": "Paris",}' } }], [r.tool]);
    await expect(drive(client, "go", mode)).resolves.toBe("final answer");
    expect(r.got).toEqual([]);
    expect(JSON.parse(row.toolResults(m.bodies()[1])[0]!.output).error).toContain("not valid JSON");
    await expectNextChatWorks(client, mode);
  });
});

describe("prototype keys on the adapters' own argument paths", () => {
  const PROTO_ARGS = '{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}, "city": "Paris", "unit": null}';

  for (const row of ROWS.filter((r) => r.label.startsWith("openai ("))) {
    it.each(MODES)(`${row.label} (%s): the strict null-stripper keeps a planted __proto__ key an own property`, async (mode) => {
      const before = Object.getOwnPropertyNames(Object.prototype).sort();
      const got: Record<string, unknown>[] = [];
      // unit is optional: strict mode sends it required-but-nullable, and the adapter strips the null again
      const t = jsonTool({
        name: "weather",
        description: "A test tool.",
        parameters: { type: "object", properties: { city: { type: "string" }, unit: { type: "string" } }, required: ["city"] },
        run: (input) => (got.push(input), "ok"),
      });
      const { client, m } = await runWithReply(row, mode, [{ id: "call_s1", name: "weather", args: { json: PROTO_ARGS } }], [t]);
      await expect(drive(client, "go", mode)).resolves.toBe("final answer");
      expect(m.bodies()[0].tools[0].strict ?? m.bodies()[0].tools[0].function?.strict).toBe(true);
      expect(got).toHaveLength(1);
      const input = got[0]!;
      expect(Object.hasOwn(input, "unit")).toBe(false); // the strict-mode null was stripped ...
      expect(Object.hasOwn(input, "__proto__")).toBe(true); // ... and the planted key stayed data
      expect(Object.getPrototypeOf(input)).toBe(Object.prototype);
      expect(input.polluted).toBeUndefined();
      expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before);
    });
  }

  it.each(MODES)("gemini (%s): streamed partialArgs with $.__proto__ / $.constructor.prototype paths never reach a prototype", async (mode) => {
    const row = ROWS.find((r) => r.label === "gemini")!;
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    const m = await row.start({ script: [{ text: "final answer" }] });
    mock = m;
    const chunk = (parts: unknown[], extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ candidates: [{ content: { role: "model", parts }, index: 0, ...extra }], responseId: "vertex-1" })}\r\n\r\n`;
    const frags = [
      { jsonPath: "$.__proto__.polluted", stringValue: "yes" },
      { jsonPath: "$.constructor.prototype.polluted", stringValue: "yes" },
      { jsonPath: "$['__proto__']['admin']", boolValue: true },
      { jsonPath: "$.city", stringValue: "Par", willContinue: true },
      { jsonPath: "$.city", stringValue: "is" },
    ];
    const sse = [
      chunk([{ functionCall: { id: "call_v1", name: "lookup", willContinue: true } }]),
      chunk([{ functionCall: { partialArgs: frags, willContinue: true } }]),
      chunk([{ functionCall: {} }]),
      chunk([{ text: "" }], { finishReason: "STOP" }),
    ];
    if (mode === "sse") m.enqueue({ sse });
    else {
      // generateContent has no partialArgs; the same call arrives whole and is checked the same way
      m.enqueue({
        status: 200,
        headers: { "content-type": "application/json" },
        body: '{"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"id": "call_v1", "name": "lookup", "args": {"__proto__": {"polluted": "yes", "admin": true}, "constructor": {"prototype": {"polluted": "yes"}}, "city": "Paris"}}}]}, "finishReason": "STOP", "index": 0}]}',
      });
    }
    const got: Record<string, unknown>[] = [];
    const t = jsonTool({
      name: "lookup",
      description: "A test tool.",
      parameters: { type: "object", properties: { city: { type: "string" } } },
      run: (i) => (got.push(i), "ok"),
    });
    const client = createClient({ provider: row.provider(m), tools: [t] });
    await expect(drive(client, "go", mode)).resolves.toBe("final answer");
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
    expect(got).toHaveLength(1);
    const input = got[0]!;
    expect(input.city).toBe("Paris");
    expect(Object.getPrototypeOf(input)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(input, "__proto__")?.value).toEqual({ polluted: "yes", admin: true });
    expect(Object.getOwnPropertyDescriptor(input, "constructor")?.value).toEqual({ prototype: { polluted: "yes" } });
  });
});

describe("provider-specific stop reasons", () => {
  const claudeRow = ROWS.find((r) => r.providerName === "claude")!;
  const geminiRow = ROWS.find((r) => r.providerName === "gemini")!;

  it.each(MODES)("claude (%s): pause_turn is continued with the paused content, and the parts become one answer", async (mode) => {
    const m = await claudeRow.start({
      script: [{ text: "Searching the web.", stopReason: "pause_turn" } as never, { text: " Found it." }, { text: "next ok" }],
    });
    mock = m;
    const client = createClient({ provider: claudeRow.provider(m) });
    await expect(drive(client, "look it up", mode)).resolves.toBe("Searching the web. Found it.");
    const bodies = m.bodies();
    expect(bodies).toHaveLength(2);
    const lastMessage = bodies[1].messages[bodies[1].messages.length - 1];
    expect(lastMessage.role).toBe("assistant");
    expect(JSON.stringify(lastMessage.content)).toContain("Searching the web.");
    expect(client.history.map((x) => x.role)).toEqual(["user", "assistant"]);
    await expectNextChatWorks(client, mode);
  });

  it.each(MODES)("claude (%s): a turn that pauses forever is continued a bounded number of times, then returned", async (mode) => {
    let paused = true;
    const m = await claudeRow.start({ script: () => (paused ? ({ text: "still searching", stopReason: "pause_turn" } as never) : { text: "next ok" }) });
    mock = m;
    const client = createClient({ provider: claudeRow.provider(m) });
    const text = await drive(client, "look it up", mode);
    const requests = m.bodies().length;
    expect(requests).toBeGreaterThan(1);
    expect(requests).toBeLessThan(10);
    expect(text).toBe("still searching".repeat(requests));
    expectValidHistory(client);
    paused = false;
    await expect(drive(client, "and now?", mode)).resolves.toBe("next ok");
  });

  it.each(MODES)("gemini (%s): MALFORMED_FUNCTION_CALL is re-asked, then the corrected call runs", async (mode) => {
    const m = await geminiRow.start({
      script: [
        { malformed: true } as never,
        { toolCalls: [{ id: "call_m1", name: "lookup", input: { city: "Paris" } }] },
        { text: "final answer" },
        { text: "next ok" },
      ],
    });
    mock = m;
    const r = recorder();
    const client = createClient({ provider: geminiRow.provider(m), tools: [r.tool] });
    await expect(drive(client, "go", mode)).resolves.toBe("final answer");
    expect(r.got).toEqual([{ city: "Paris" }]);
    expect(m.bodies()).toHaveLength(3);
    expect(geminiRow.lastUserText(m.bodies()[1])).toContain("malformed");
    await expectNextChatWorks(client, mode);
  });

  it.each(MODES)("gemini (%s): a model that keeps sending malformed calls fails with a typed error; history stays valid", async (mode) => {
    let malformed = true;
    const m = await geminiRow.start({ script: () => (malformed ? ({ malformed: true } as never) : { text: "next ok" }) });
    mock = m;
    const r = recorder();
    const client = createClient({ provider: geminiRow.provider(m), tools: [r.tool] });
    await expect(drive(client, "go", mode)).rejects.toMatchObject({ code: "provider_error", type: "MALFORMED_FUNCTION_CALL" });
    expect(r.got).toEqual([]);
    expect(m.bodies().length).toBeGreaterThan(1);
    expect(m.bodies().length).toBeLessThan(6);
    expectValidHistory(client);
    malformed = false;
    await expect(drive(client, "and now?", mode)).resolves.toBe("next ok");
  });
});
