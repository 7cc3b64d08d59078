// The error contract of a tool call: whatever a handler does, the model gets a result and
// the run goes on.
import * as v from "valibot";
import { describe, expect, it, vi } from "vitest";
import { createClient, type StreamEvent, type Tool, type ToolMessage, tool } from "../../src/index.js";
import { scriptedProvider } from "../../src/testing.js";
import { historyProblems, recordingLogger } from "./helpers.js";

const cityTool = (run: (input: { city: string }) => unknown): Tool =>
  tool({
    name: "weather",
    description: "Weather for a city.",
    input: v.object({ city: v.pipe(v.string(), v.minLength(2), v.description("City name.")) }),
    run,
  });

/** One tool call with `args`, then "final": returns the tool result and the client. */
async function callOnce(t: Tool, args: string | Record<string, unknown>, name = t.name) {
  const provider = scriptedProvider([{ toolCalls: [{ name, arguments: args, id: "c1" }] }, "final"]);
  const logger = recordingLogger();
  const client = createClient({ provider, tools: [t], logger });
  const events: StreamEvent[] = [];
  for await (const e of client.stream("go")) events.push(e);
  const toolMsg = client.history[2] as ToolMessage;
  expect(historyProblems(client.history)).toEqual([]);
  const finish = events.at(-1);
  expect(finish).toMatchObject({ type: "finish", text: "final" });
  return { result: toolMsg.results[0]!, provider, client, logger, events };
}

describe("schema-invalid arguments", () => {
  it("never reach the handler; the model is asked to fix them, with the issues and the schema; the loop goes on", async () => {
    const run = vi.fn(() => "never");
    const t = cityTool(run);
    const { result, provider, client, events } = await callOnce(t, { city: "X", extra: 1 });
    expect(run).not.toHaveBeenCalled();
    expect(result.isError).toBe(true);
    const answer = JSON.parse(result.output) as { error: string; fix: string; schema: unknown };
    expect(answer.error).toContain("/city");
    expect(answer.fix).toMatch(/arguments/i);
    expect(answer.schema).toEqual(t.parameters);
    // the loop continued: the second request carries the fix-it result
    expect(provider.requests).toHaveLength(2);
    expect(provider.requests[1]!.messages.at(-1)).toEqual({ role: "tool", results: [result] });
    expect(events.find((e) => e.type === "tool-result")).toMatchObject({ outcome: "invalid_input", isError: true });
    expect(client.lastRun).toMatchObject({ toolCalls: 1, toolFailures: 0 });
  });

  it("arguments that are not JSON at all get the same fix-it answer and are not a tool failure", async () => {
    const run = vi.fn(() => "never");
    const { result, client, events } = await callOnce(cityTool(run), "city=Paris");
    expect(run).not.toHaveBeenCalled();
    expect(JSON.parse(result.output)).toMatchObject({ error: expect.stringContaining("not valid JSON"), schema: expect.any(Object) });
    expect(events.find((e) => e.type === "tool-result")).toMatchObject({ outcome: "invalid_input" });
    expect(client.lastRun!.toolFailures).toBe(0);
  });

  it("a hand-written Tool that throws FailedUnmarshalInputError gets the same treatment", async () => {
    const { FailedUnmarshalInputError } = await import("../../src/index.js");
    const raw: Tool = {
      name: "raw",
      description: "A test tool.",
      parameters: { type: "object", properties: { q: { type: "string" } } },
      call: async () => {
        throw new FailedUnmarshalInputError("bad q", [{ path: "/q", message: "must be a string" }]);
      },
    };
    const { result, client } = await callOnce(raw, {});
    expect(JSON.parse(result.output)).toMatchObject({ error: expect.stringContaining("bad q"), schema: raw.parameters });
    expect(client.lastRun!.toolFailures).toBe(0);
  });
});

describe("handler errors", () => {
  it('a thrown Error becomes {"error":"<message>"}, flagged, logged at warn, and the run continues', async () => {
    const t = cityTool(() => {
      throw new Error("service down");
    });
    const { result, provider, client, logger } = await callOnce(t, { city: "Paris" });
    expect(result).toEqual({ callId: "c1", name: "weather", output: '{"error":"service down"}', isError: true });
    expect(provider.requests).toHaveLength(2);
    expect(logger.entries.filter((e) => e.level === "warn")).toEqual([
      { level: "warn", message: "tool error", fields: expect.objectContaining({ tool: "weather", error: "service down" }) },
    ]);
    expect(logger.entries.some((e) => e.level === "error")).toBe(false);
    expect(client.lastRun).toMatchObject({ toolCalls: 1, toolFailures: 1 });
  });

  it("a rejecting promise is handled like a throw", async () => {
    const t = cityTool(() => Promise.reject(new TypeError("bad thing")));
    const { result, logger } = await callOnce(t, { city: "Paris" });
    expect(result.output).toBe('{"error":"bad thing"}');
    expect(result.isError).toBe(true);
    expect(logger.entries.some((e) => e.level === "warn" && e.message === "tool error")).toBe(true);
  });

  it.each([
    ["a string", () => "boom", "boom"],
    ["a number", () => 42, "42"],
    ["an object", () => ({ reason: "x" }), '{"reason":"x"}'],
    ["undefined", () => undefined, "undefined"],
    ["null", () => null, "null"],
  ])("a thrown non-Error (%s) is a panic: tool handler panicked, logged at error", async (_what, value, shown) => {
    const t = cityTool(() => {
      throw value();
    });
    const { result, provider, client, logger } = await callOnce(t, { city: "Paris" });
    expect(result.output).toBe(JSON.stringify({ error: `tool handler panicked: ${shown}` }));
    expect(result.isError).toBe(true);
    expect(provider.requests).toHaveLength(2);
    expect(logger.entries.filter((e) => e.level === "error")).toEqual([
      { level: "error", message: "tool panic", fields: expect.objectContaining({ tool: "weather" }) },
    ]);
    expect(client.lastRun!.toolFailures).toBe(1);
  });

  it("a promise rejected with a non-Error is a panic too", async () => {
    const { result, logger } = await callOnce(
      cityTool(() => Promise.reject("nope")),
      { city: "Paris" },
    );
    expect(result.output).toBe('{"error":"tool handler panicked: nope"}');
    expect(logger.entries.some((e) => e.level === "error")).toBe(true);
  });

  it("a synchronous throw from a hand-written Tool.call becomes an error result", async () => {
    const raw: Tool = {
      name: "sync_thrower",
      description: "A test tool.",
      parameters: { type: "object" },
      call: ((_input: string) => {
        throw new Error("thrown before any promise");
      }) as Tool["call"],
    };
    const { result } = await callOnce(raw, {});
    expect(result).toEqual({ callId: "c1", name: "sync_thrower", output: '{"error":"thrown before any promise"}', isError: true });
  });

  it("a hand-written Tool.call resolving to a non-string is stringified", async () => {
    const raw: Tool = { name: "num", description: "A test tool.", parameters: { type: "object" }, call: (async () => 7) as unknown as Tool["call"] };
    const { result } = await callOnce(raw, {});
    expect(result).toMatchObject({ output: "7", isError: false });
  });

  it("an unknown tool name is answered with an error listing the available tools", async () => {
    const { result, provider, client, logger } = await callOnce(
      cityTool(() => ""),
      {},
      "teleport",
    );
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.output)).toEqual({ error: 'unknown tool "teleport"; available tools: weather' });
    expect(provider.requests).toHaveLength(2);
    expect(logger.entries.some((e) => e.level === "warn")).toBe(true);
    expect(client.lastRun!.toolFailures).toBe(1);
  });

  it("the unknown-tool answer lists every registered tool", async () => {
    const provider = scriptedProvider([{ toolCalls: [{ name: "nope", id: "c1" }] }, "final"]);
    const mk = (name: string) => tool({ name, description: "A test tool.", input: v.object({}), run: () => "" });
    const client = createClient({ provider, tools: [mk("Alpha"), mk("beta")] });
    await client.chat("go");
    expect((client.history[2] as ToolMessage).results[0]!.output).toBe('{"error":"unknown tool \\"nope\\"; available tools: alpha, beta"}');
  });

  it("one failing call does not spoil the others of the same step", async () => {
    const ok = tool({ name: "ok", description: "A test tool.", input: v.object({}), run: () => "fine" });
    const bad = tool({
      name: "bad",
      description: "A test tool.",
      input: v.object({}),
      run: () => {
        throw new Error("broken");
      },
    });
    for (const parallelTools of [false, true]) {
      const provider = scriptedProvider([
        {
          toolCalls: [
            { name: "ok", id: "a" },
            { name: "bad", id: "b" },
            { name: "ok", id: "c" },
          ],
        },
        "final",
      ]);
      const client = createClient({ provider, tools: [ok, bad], parallelTools });
      expect(await client.chat("go")).toBe("final");
      expect((client.history[2] as ToolMessage).results.map((r) => [r.callId, r.output, r.isError])).toEqual([
        ["a", "fine", false],
        ["b", '{"error":"broken"}', true],
        ["c", "fine", false],
      ]);
      expect(client.lastRun).toMatchObject({ toolCalls: 3, toolFailures: 1 });
    }
  });
});
