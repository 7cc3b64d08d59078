// compaction: a 200-step run stays under maxInputTokens with a valid history in every request
// (each call answered by the very next message, never split), on the scripted provider and over
// real HTTP against the Claude mock, which refuses a broken history the way the API does.
import { afterEach, describe, expect, it } from "vitest";
import { claude } from "../../adapters/claude/index.js";
import { isToolloopError } from "../../src/base/errors.js";
import { SUMMARY_HEADER } from "../../src/cost/compaction.js";
import { compaction, createClient, type StreamEvent } from "../../src/index.js";
import { type RecordedRequest, scriptedProvider } from "../../src/testing.js";
import { type ClaudeMock, startClaudeMock } from "../mock/claude.js";
import { checkInvariant, isSummaryRequest, reading, tokensOf } from "./compaction-helpers.js";

const mocks: ClaudeMock[] = [];
afterEach(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.close()));
});

describe("compaction on the scripted provider", () => {
  for (const keepRecent of [0, 1, 3, 4]) {
    it(`a 200-step run stays under maxInputTokens with a valid history in every request (keepRecent ${keepRecent})`, async () => {
      const LIMIT = 3000;
      let steps = 0;
      const provider = scriptedProvider(
        [
          (req: RecordedRequest) => {
            const usage = { inputTokens: tokensOf(req.messages), outputTokens: 20 };
            if (isSummaryRequest(req)) return { text: `Sensors read so far: ${steps}. Keep reading.`, usage };
            steps++;
            return steps < 200 ? { text: "", toolCalls: [{ name: "read_sensor", arguments: { n: steps } }], usage } : { text: "All 199 readings done.", usage };
          },
        ],
        { onExhausted: "repeat-last" },
      );
      const client = createClient({ provider, tools: [reading], maxSteps: 200, compaction: compaction({ maxInputTokens: LIMIT, keepRecent }) });
      const events: StreamEvent[] = [];
      for await (const e of client.stream("Read sensors 1 to 199, one per step.")) events.push(e);
      expect(events.at(-1)).toMatchObject({ type: "finish", text: "All 199 readings done.", steps: 200 });
      const compactions = events.filter((e) => e.type === "compaction");
      expect(compactions.length).toBeGreaterThanOrEqual(3);
      for (const c of compactions) {
        expect(c.removed).toBeGreaterThan(1);
        expect(c.summaryTokens).toBe(20);
      }
      for (const [i, r] of provider.requests.entries()) {
        expect(tokensOf(r.messages), `request ${i + 1}`).toBeLessThanOrEqual(LIMIT);
        checkInvariant(r.messages);
        // The summary call sends the run's tools (with tool use off), as Claude needs for tool_use blocks.
        if (isSummaryRequest(r)) expect(r.tools.map((t) => t.name)).toEqual(["read_sensor"]);
      }
      const summaries = provider.requests.filter(isSummaryRequest).length;
      expect(summaries).toBe(compactions.length);
      expect(provider.requests.length).toBe(200 + summaries);
      checkInvariant(client.history);
      expect(client.history[0]).toMatchObject({ role: "user", content: expect.stringContaining(SUMMARY_HEADER) });
      // The summary calls are billed too: the run's total counts them, the steps do not.
      const stepInput = events.reduce((s, e) => s + (e.type === "step-finish" ? e.usage.inputTokens : 0), 0);
      const fin = events.at(-1)!;
      if (fin.type === "finish") expect(fin.usage.inputTokens).toBeGreaterThan(stepInput);
    });
  }

  it("nothing is compacted while the input stays under the limit", async () => {
    const provider = scriptedProvider([{ toolCalls: [{ name: "read_sensor", arguments: { n: 1 } }] }, "done"]);
    const client = createClient({ provider, tools: [reading], compaction: compaction({ maxInputTokens: 1_000_000 }) });
    const events: StreamEvent[] = [];
    for await (const e of client.stream("go")) events.push(e);
    expect(events.some((e) => e.type === "compaction")).toBe(false);
    expect(provider.requests.length).toBe(2);
  });

  it("a later chat() compacts before its first request when the last one was over the limit", async () => {
    const provider = scriptedProvider(
      [
        (req: RecordedRequest) => ({
          text: isSummaryRequest(req) ? "summary" : "ok",
          usage: { inputTokens: req.messages.length > 4 && !isSummaryRequest(req) ? 5000 : 100, outputTokens: 3 },
        }),
      ],
      { onExhausted: "repeat-last" },
    );
    const client = createClient({ provider, compaction: compaction({ maxInputTokens: 1000, keepRecent: 1 }) });
    for (const q of ["one", "two", "three"]) await client.chat(q);
    expect(provider.requests.some(isSummaryRequest)).toBe(false);
    await client.chat("four"); // the request before it reported 5000 input tokens
    await client.chat("five");
    expect(provider.requests.filter(isSummaryRequest).length).toBe(1);
    expect(client.history[0]).toEqual({ role: "user", content: `${SUMMARY_HEADER}summary` });
  });

  it("an abort during the summary call rejects with the signal's reason and leaves the history as it was", async () => {
    const controller = new AbortController();
    const reason = new Error("user left");
    const provider = scriptedProvider([
      { toolCalls: [{ name: "read_sensor", arguments: { n: 1 } }], usage: { inputTokens: 10 } },
      { toolCalls: [{ name: "read_sensor", arguments: { n: 2 } }], usage: { inputTokens: 5000 } },
      () => {
        controller.abort(reason);
        return { error: new Error("adapter saw the abort its own way") };
      },
    ]);
    const client = createClient({ provider, tools: [reading], compaction: compaction({ maxInputTokens: 1000, keepRecent: 1 }) });
    await expect(client.chat("go", { signal: controller.signal })).rejects.toBe(reason);
    const history = client.history;
    expect(history[0]).toEqual({ role: "user", content: "go" });
    checkInvariant(history);
    expect(history.filter((m) => m.role === "tool")).toHaveLength(2);
  });

  it("refuses a bad limit with invalid_options", () => {
    const provider = scriptedProvider([]);
    for (const options of [
      { maxInputTokens: 0 },
      { maxInputTokens: -5 },
      { maxInputTokens: 100, keepRecent: -1 },
      { maxInputTokens: 100, keepRecent: 1.5 },
      {} as never,
    ]) {
      let err: unknown;
      try {
        compaction(options);
      } catch (e) {
        err = e;
      }
      expect(isToolloopError(err, "invalid_options"), JSON.stringify(options)).toBe(true);
    }
    // The 0.2 draft's plain object (not built by compaction()) is refused by name.
    expect(() => createClient({ provider, compaction: { maxInputTokens: 100 } as never })).toThrow(/compaction: compaction\(/);
    void provider;
  });
});

describe("compaction over real HTTP (Claude mock)", () => {
  it("60 steps stay under the limit; every request passes the mock's tool_use/tool_result checks", async () => {
    const LIMIT = 2500;
    let steps = 0;
    const mock = await startClaudeMock({
      script: (body) => {
        const b = body as { tool_choice?: { type: string } };
        if (b.tool_choice?.type === "none") return { text: `Read ${steps} sensors so far.` };
        steps++;
        return steps < 60 ? { toolCalls: [{ name: "read_sensor", input: { n: steps } }] } : { text: "Done." };
      },
    });
    mocks.push(mock);
    // Every response's input tokens as the mock counts them (steps and summary calls alike).
    const inputs: number[] = [];
    const inner = claude({ apiKey: "sk-ant-test-0123456789", model: "claude-sonnet-4-5", baseURL: mock.url });
    const client = createClient({
      provider: {
        name: inner.name,
        model: inner.model,
        generate: async (request) => {
          const r = await inner.generate(request);
          inputs.push(r.usage.inputTokens);
          return r;
        },
      },
      tools: [reading],
      maxSteps: 60,
      compaction: compaction({ maxInputTokens: LIMIT }),
    });
    const events: StreamEvent[] = [];
    for await (const e of client.stream("Read sensors 1 to 59.")) events.push(e);
    expect(events.at(-1)).toMatchObject({ type: "finish", text: "Done." });
    const compactions = events.filter((e) => e.type === "compaction").length;
    expect(compactions).toBeGreaterThanOrEqual(2);
    // The mock answered every request (a split pair would have been a 400), each under the limit.
    expect(mock.requests.length).toBe(60 + compactions);
    expect(inputs).toHaveLength(mock.requests.length);
    expect(Math.max(...inputs)).toBeLessThanOrEqual(LIMIT);
    expect(Math.max(...inputs)).toBeGreaterThan(LIMIT * 0.8); // it did get close: the limit was what mattered
    for (const r of mock.requests) expect(r.body.tools?.length).toBe(1);
    checkInvariant(client.history);
  });
});
