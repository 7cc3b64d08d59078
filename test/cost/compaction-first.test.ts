// compaction's first request: a fresh client loaded with a long saved history has no earlier
// request's tokens to go on, so its input is estimated from the history's size (a token per 4
// characters of JSON; an image as ~1,600 tokens, not its base64). A long history is compacted
// before that first request, a short one is not, and after a request has reported its tokens
// (or failed) the estimate goes on from the last request that did report.
import { afterEach, describe, expect, it } from "vitest";
import { claude } from "../../adapters/claude/index.js";
import { SUMMARY_HEADER } from "../../src/cost/compaction.js";
import { compaction, createClient, type Message, type StreamEvent } from "../../src/index.js";
import { type RecordedRequest, scriptedProvider } from "../../src/testing.js";
import { type ClaudeMock, startClaudeMock } from "../mock/claude.js";
import { checkInvariant, isSummaryRequest, reading, tokensOf } from "./compaction-helpers.js";

const mocks: ClaudeMock[] = [];
afterEach(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.close()));
});

/** A saved history of a finished `steps`-step sensor run (what client.history held after it). */
function savedRun(steps: number): Message[] {
  const h: Message[] = [{ role: "user", content: `Read sensors 1 to ${steps}, one per step.` }];
  for (let n = 1; n <= steps; n++) {
    const id = `toolu_${String(n).padStart(4, "0")}`;
    h.push({ role: "assistant", content: "", toolCalls: [{ id, name: "read_sensor", arguments: JSON.stringify({ n }) }] });
    const values = Array.from({ length: 40 }, (_, i) => (n * 31 + i) % 97);
    h.push({ role: "tool", results: [{ callId: id, name: "read_sensor", output: JSON.stringify({ n, values }), isError: false }] });
  }
  h.push({ role: "assistant", content: `All ${steps} readings done.` });
  return h;
}

/** Answers summary requests with a summary and the rest with `answer`, reporting tokensOf(messages). */
function honestProvider(answer = "The highest reading was 96.") {
  return scriptedProvider(
    [
      (req: RecordedRequest) => ({
        text: isSummaryRequest(req) ? `Read ${req.messages.length} messages of sensor values.` : answer,
        usage: { inputTokens: tokensOf(req.messages), outputTokens: 12 },
      }),
    ],
    { onExhausted: "repeat-last" },
  );
}

async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const e of stream) events.push(e);
  return events;
}

describe("compaction of a saved history, on the scripted provider", () => {
  it("a fresh client with a long saved history compacts before its first request, and every request stays under the limit", async () => {
    const LIMIT = 2000;
    const saved = savedRun(100);
    expect(tokensOf(saved)).toBeGreaterThan(LIMIT * 4); // several times the limit: one summary call cannot take it all
    const provider = honestProvider();
    const client = createClient({ provider, tools: [reading], history: saved, compaction: compaction({ maxInputTokens: LIMIT }) });
    const events = await collect(client.stream("What was the highest reading?"));
    expect(events.at(-1)).toMatchObject({ type: "finish", text: "The highest reading was 96.", steps: 1 });
    const compactions = events.filter((e) => e.type === "compaction");
    expect(compactions.length).toBeGreaterThanOrEqual(2);
    expect(isSummaryRequest(provider.requests[0]!)).toBe(true);
    expect(provider.requests.filter(isSummaryRequest)).toHaveLength(compactions.length);
    // The one step request: fewer messages than the saved history, ending with its newest turns whole.
    const steps = provider.requests.filter((r) => !isSummaryRequest(r));
    expect(steps).toHaveLength(1);
    const sent = steps[0]!.messages;
    expect(sent.length).toBeLessThan(saved.length + 1);
    expect(sent.slice(-5)).toEqual([...saved.slice(-4), { role: "user", content: "What was the highest reading?" }]);
    expect(sent[0]).toMatchObject({ role: "user", content: expect.stringContaining(SUMMARY_HEADER) });
    for (const [i, r] of provider.requests.entries()) {
      expect(tokensOf(r.messages), `request ${i + 1}`).toBeLessThanOrEqual(LIMIT);
      checkInvariant(r.messages);
    }
    checkInvariant(client.history);
    expect(client.history.at(-1)).toEqual({ role: "assistant", content: "The highest reading was 96." });
  });

  it("the audit's case: 40 saved messages of 2,000 characters under a 1,000-token limit are compacted before the first request", async () => {
    const history: Message[] = [];
    for (let i = 0; i < 20; i++) history.push({ role: "user", content: "x".repeat(2000) }, { role: "assistant", content: "y".repeat(2000) });
    const provider = scriptedProvider([
      { text: "summary", usage: { inputTokens: 50 } },
      { text: "answer", usage: { inputTokens: 2000 } },
    ]);
    const client = createClient({ provider, history, compaction: compaction({ maxInputTokens: 1000 }) });
    const events = await collect(client.stream("hi"));
    expect(events.filter((e) => e.type === "compaction")).toHaveLength(1);
    expect(provider.requests).toHaveLength(2);
    expect(isSummaryRequest(provider.requests[0]!)).toBe(true);
    // The summary and the 4 kept messages (the last 3 saved and "hi"): 1,000 tokens cannot hold
    // three 500-token messages, but what could be summarised was.
    expect(provider.requests[1]!.messages).toHaveLength(5);
    checkInvariant(client.history);
    expect(client.history[0]).toEqual({ role: "user", content: `${SUMMARY_HEADER}summary` });
  });

  it("a short saved history is sent whole, also one just under the limit", async () => {
    for (const chars of [40, 500]) {
      // 6 messages of `chars` characters: ~60 and ~800 tokens by the size rule, under 1,000.
      const history: Message[] = [];
      for (let i = 0; i < 3; i++) history.push({ role: "user", content: "q".repeat(chars) }, { role: "assistant", content: "a".repeat(chars) });
      const provider = honestProvider("ok");
      const client = createClient({ provider, history, compaction: compaction({ maxInputTokens: 1000, keepRecent: 1 }) });
      const events = await collect(client.stream("next"));
      expect(
        events.some((e) => e.type === "compaction"),
        `${chars} characters a message`,
      ).toBe(false);
      expect(provider.requests).toHaveLength(1);
      expect(provider.requests[0]!.messages).toHaveLength(7);
    }
  });

  it("an image counts as ~1,600 tokens, not as its base64", async () => {
    // 40,000 base64 characters: 10,000 tokens if counted as text.
    const image = (n: number): Message => ({
      role: "user",
      content: [
        { type: "text", text: `Photo ${n}?` },
        { type: "image", mediaType: "image/png", data: "A".repeat(40_000) },
      ],
    });
    const run = async (images: number) => {
      const history: Message[] = [];
      for (let n = 1; n <= images; n++) history.push(image(n), { role: "assistant", content: `A cat (${n}).` });
      const provider = scriptedProvider([{ text: "summary" }, { text: "ok" }]);
      const client = createClient({ provider, history, compaction: compaction({ maxInputTokens: 4000, keepRecent: 2 }) });
      const events = await collect(client.stream("And now?"));
      checkInvariant(client.history);
      return { provider, compactions: events.filter((e) => e.type === "compaction") };
    };
    const two = await run(2); // ~3,200 tokens
    expect(two.compactions).toHaveLength(0);
    expect(two.provider.requests).toHaveLength(1);
    const three = await run(3); // ~4,800 tokens: the first two photos and their answers are summarised
    expect(three.compactions).toEqual([{ type: "compaction", removed: 3, summaryTokens: 5 }]);
    expect(isSummaryRequest(three.provider.requests[0]!)).toBe(true);
    expect(three.provider.requests[1]!.messages).toHaveLength(5);
  });

  it("after the first request, the reported tokens decide, not the size rule", async () => {
    // A short saved history the provider reports as 5,000 tokens: the next call compacts.
    const history: Message[] = [];
    for (let i = 0; i < 3; i++) history.push({ role: "user", content: `q${i}` }, { role: "assistant", content: `a${i}` });
    const provider = scriptedProvider([
      { text: "one", usage: { inputTokens: 5000 } },
      { text: "summary", usage: { inputTokens: 100 } },
      { text: "two", usage: { inputTokens: 120 } },
      { text: "three", usage: { inputTokens: 150 } },
    ]);
    const client = createClient({ provider, history, compaction: compaction({ maxInputTokens: 1000, keepRecent: 1 }) });
    expect(await client.chat("first")).toBe("one");
    expect(provider.requests).toHaveLength(1);
    expect(await client.chat("second")).toBe("two");
    expect(isSummaryRequest(provider.requests[1]!)).toBe(true);
    expect(await client.chat("third")).toBe("three");
    expect(provider.requests.filter(isSummaryRequest)).toHaveLength(1);
    checkInvariant(client.history);
  });

  it("after a failed request the estimate goes on from the last request that reported: a compacted history is not compacted again", async () => {
    const provider = scriptedProvider([
      { text: "a1", usage: { inputTokens: 100 } },
      { text: "a2", usage: { inputTokens: 5000 } },
      { text: "summary", usage: { inputTokens: 200 } },
      { error: new Error("the step after the summary failed") },
      { text: "a3", usage: { inputTokens: 300 } },
    ]);
    const client = createClient({ provider, compaction: compaction({ maxInputTokens: 1000, keepRecent: 1 }) });
    await client.chat("one");
    await client.chat("two"); // reports 5,000
    await expect(client.chat("three")).rejects.toThrow("the step after the summary failed");
    expect(provider.requests.filter(isSummaryRequest)).toHaveLength(1);
    // [summary, a2, three, (this), four]: a cut at "(this)" would be possible, and is not needed.
    client.add({ role: "assistant", content: "(no answer: the provider failed)" });
    expect(await client.chat("four")).toBe("a3");
    expect(provider.requests.filter(isSummaryRequest)).toHaveLength(1);
    checkInvariant(client.history);
  });

  it("after a failed request what it carried still counts as added", async () => {
    // Requests report tokensOf(messages); the third fails, and the next call must count its prompt.
    let calls = 0;
    const provider = scriptedProvider(
      [
        (req: RecordedRequest) => {
          if (!isSummaryRequest(req) && ++calls === 3) return { error: new Error("failed") };
          return { text: isSummaryRequest(req) ? "summary" : "ok", usage: { inputTokens: tokensOf(req.messages) } };
        },
      ],
      { onExhausted: "repeat-last" },
    );
    const LIMIT = 1000;
    const client = createClient({ provider, compaction: compaction({ maxInputTokens: LIMIT, keepRecent: 1 }) });
    await client.chat("p".repeat(1200));
    await client.chat("q".repeat(1200));
    await expect(client.chat("r".repeat(1200))).rejects.toThrow("failed");
    await client.chat("s".repeat(1200));
    for (const [i, r] of provider.requests.entries()) expect(tokensOf(r.messages), `request ${i + 1}`).toBeLessThanOrEqual(LIMIT);
    expect(provider.requests.filter(isSummaryRequest).length).toBeGreaterThanOrEqual(1);
    checkInvariant(client.history);
  });

  it("a provider that reports no input tokens still gets compaction by the size rule", async () => {
    const provider = scriptedProvider(
      [(req: RecordedRequest) => ({ text: isSummaryRequest(req) ? "summary" : "ok", usage: { inputTokens: 0, outputTokens: 1 } })],
      { onExhausted: "repeat-last" },
    );
    const client = createClient({ provider, compaction: compaction({ maxInputTokens: 1000, keepRecent: 1 }) });
    for (let i = 0; i < 8; i++) await client.chat(`${i}`.repeat(1000));
    for (const [i, r] of provider.requests.entries()) expect(tokensOf(r.messages), `request ${i + 1}`).toBeLessThanOrEqual(1000);
    expect(provider.requests.filter(isSummaryRequest).length).toBeGreaterThanOrEqual(1);
    checkInvariant(client.history);
  });
});

describe("compaction of a saved history over real HTTP (Claude mock)", () => {
  it("the first request of a fresh client with a long saved run is compacted; every request passes the mock's checks", async () => {
    const LIMIT = 2500;
    const mock = await startClaudeMock({
      script: (body) =>
        (body as { tool_choice?: { type: string } }).tool_choice?.type === "none"
          ? { text: "Sensors 1 to 60 were read; values 0-96." }
          : { text: "The highest was 96." },
    });
    mocks.push(mock);
    const inputs: number[] = [];
    const inner = claude({ apiKey: "sk-ant-test-0123456789", model: "claude-sonnet-4-5", baseURL: mock.url });
    const saved = savedRun(60);
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
      history: saved,
      compaction: compaction({ maxInputTokens: LIMIT }),
    });
    const events = await collect(client.stream("What was the highest reading?"));
    expect(events.at(-1)).toMatchObject({ type: "finish", text: "The highest was 96." });
    const compactions = events.filter((e) => e.type === "compaction").length;
    expect(compactions).toBeGreaterThanOrEqual(1);
    // Every request was answered (a split call/result pair would have been a 400), the summary calls first.
    expect(mock.requests).toHaveLength(compactions + 1);
    expect(mock.requests[0]!.body.tool_choice).toEqual({ type: "none" });
    const step = mock.requests.at(-1)!.body as { messages: unknown[]; tool_choice?: unknown };
    expect(step.tool_choice).not.toEqual({ type: "none" });
    expect(step.messages.length).toBeLessThan(saved.length);
    expect(inputs).toHaveLength(mock.requests.length);
    expect(Math.max(...inputs)).toBeLessThanOrEqual(LIMIT);
    checkInvariant(client.history);
    expect(client.history[0]).toMatchObject({ role: "user", content: expect.stringContaining(SUMMARY_HEADER) });
  });
});
