// Stall timeouts (stallTimeout(provider, { first, between })) for every adapter, over real HTTP
// against each provider's wire-faithful mock: only content (text, reasoning, tool-call deltas)
// resets them; pings, keep-alive comments, empty lines and metadata events do not, so a server
// that keeps the connection busy without producing anything still stalls. A stall aborts the
// request (the mock sees its connection close), is a StallError with the phase and whether
// content had arrived, is not sent again, leaves a valid history, fallback() moves only a stall
// before any content to its next provider, and a journaled run stalled after content continues.
// The wrapper keeps everything of the provider it wraps; the factories and createClient refuse
// a `stallTimeout` option (refused as an unknown key).
import { getEventListeners } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { claude } from "../../adapters/claude/index.js";
import { gemini } from "../../adapters/gemini/index.js";
import { openai, openaiChat, openaiCompatible } from "../../adapters/openai/index.js";
import {
  type Client,
  createClient,
  fallback,
  isRecoverable,
  isToolloopError,
  memoryStore,
  openJournal,
  type Provider,
  StallError,
  type StreamEvent,
  stallTimeout,
  type Tool,
  webSearch,
} from "../../src/index.js";
import { type Mock, ROWS, type Row } from "./rows.js";
import { expectValidHistory, until } from "./support.js";

const mocks: Mock[] = [];
afterEach(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.close()));
});

async function start(row: Row, script: { text: string }[] = []): Promise<Mock> {
  const m = await row.start({ script });
  mocks.push(m);
  return m;
}

/** A keep-alive as each provider's stream carries one: Anthropic's ping event, an SSE comment, an empty line. */
function ping(row: Row, i: number): string {
  if (row.label === "claude") return 'event: ping\ndata: {"type": "ping"}\n\n';
  if (row.label === "gemini") return i % 2 ? "\r\n" : ": keep-alive\r\n\r\n";
  return ": keep-alive\n\n";
}

/** The stream's opening events that carry no content (message_start, response.created, a role-only chunk). */
const prelude = (row: Row): string[] => row.partialStream().slice(0, -1);
/** One event carrying the text delta "Hel". */
const content = (row: Row): string => row.partialStream().at(-1)!;

/** Streams a run, recording its text deltas and when each arrived; resolves to the run's error (or undefined). */
async function run(client: Client, prompt: string | undefined, seen: string[] = [], signal?: AbortSignal): Promise<{ error: any; text: string | undefined }> {
  let text: string | undefined;
  try {
    for await (const ev of client.stream(prompt, signal ? { signal } : undefined) as AsyncIterable<StreamEvent>) {
      if (ev.type === "text-delta") seen.push(ev.text);
      if (ev.type === "finish") text = ev.text;
    }
    return { error: undefined, text };
  } catch (error) {
    return { error, text };
  }
}

describe.each(ROWS)("$label: stallTimeout(provider, limits)", (row) => {
  it("a stream of pings with no content stalls in the first phase, though bytes keep coming; the connection is closed and nothing is sent again", async () => {
    const m = await start(row, [{ text: "next ok" }]);
    let closed = false;
    const pings = Array.from({ length: 40 }, (_, i) => ping(row, i));
    m.enqueue({ sse: [...prelude(row), ...pings], delayMs: 25, hold: true, onClose: () => (closed = true) });
    // A ping comes every 25 ms: with idleTimeout below `first`, a stall (not an idle timeout)
    // shows that bytes kept coming; idleTimeout alone would never fire.
    const client = createClient({ provider: stallTimeout(row.provider(m, { maxRetries: 2, idleTimeout: 250 }), { first: 300 }) });
    const seen: string[] = [];
    const t0 = Date.now();
    const { error } = await run(client, "hi", seen);
    const took = Date.now() - t0;
    expect(error).toBeInstanceOf(StallError);
    expect(error).toMatchObject({ code: "stall", name: "StallError", phase: "first", ms: 300, afterContent: false, provider: row.providerName });
    expect(error.message).toContain("stallTimeout.first");
    expect(isRecoverable(error)).toBe(true);
    expect(seen).toEqual([]);
    // Not reset by the pings: it fired at 300 ms, long before the 40 pings (1 s) were through.
    expect(took).toBeGreaterThanOrEqual(295);
    expect(took).toBeLessThan(900);
    await until(() => closed);
    expect(m.bodies()).toHaveLength(1);
    expect(client.history.map((x) => x.role)).toEqual(["user"]);
    expectValidHistory(client);
    await expect(client.chat("again")).resolves.toBe("next ok");
  });

  it("content then only pings stalls in the between phase (afterContent); the history stays valid and the next call works", async () => {
    const m = await start(row, [{ text: "next ok" }]);
    let closed = false;
    const pings = Array.from({ length: 40 }, (_, i) => ping(row, i));
    m.enqueue({ sse: [...row.partialStream(), ...pings], delayMs: 20, hold: true, onClose: () => (closed = true) });
    const client = createClient({ provider: stallTimeout(row.provider(m), { first: 2000, between: 150 }) });
    const seen: string[] = [];
    const { error } = await run(client, "hi", seen);
    expect(isToolloopError(error, "stall")).toBe(true);
    expect(error).toMatchObject({ phase: "between", ms: 150, afterContent: true, provider: row.providerName });
    expect(error.message).toContain("stallTimeout.between");
    expect(isRecoverable(error)).toBe(true);
    expect(seen).toEqual(["Hel"]);
    await until(() => closed);
    expect(m.bodies()).toHaveLength(1);
    // No half answer in the history.
    expect(client.history.map((x) => x.role)).toEqual(["user"]);
    expectValidHistory(client);
    const next: string[] = [];
    await expect(run(client, "again", next)).resolves.toEqual({ error: undefined, text: "next ok" });
    expect(next.join("")).toBe("next ok");
    expectValidHistory(client);
  });

  it("content resets the between timer: deltas 50 ms apart over 500 ms pass a 300 ms limit", async () => {
    const m = await start(row);
    const deltas = Array.from({ length: 10 }, () => content(row));
    m.enqueue({ sse: [...prelude(row), ...deltas, ...row.streamRest()], delayMs: 50 });
    const client = createClient({ provider: stallTimeout(row.provider(m), { first: 1000, between: 300 }) });
    const seen: string[] = [];
    const t0 = Date.now();
    const { error, text } = await run(client, "hi", seen);
    expect(error).toBeUndefined();
    // Content from ~first delta to the last spans 450 ms or more: one timer not reset by it would have fired.
    expect(Date.now() - t0).toBeGreaterThan(500);
    expect(seen.join("")).toBe(`${"Hel".repeat(10)}lo`);
    expect(seen).toHaveLength(11);
    // (OpenAI's Responses takes the final text from its terminal event, which says "Hello".)
    expect(text).toMatch(/lo$/);
  });

  it("first alone: once content came, a slow rest of the stream is not limited", async () => {
    const m = await start(row);
    m.enqueue({ sse: [...row.partialStream(), ...row.streamRest()], delayMs: 120 });
    const client = createClient({ provider: stallTimeout(row.provider(m), { first: 1500 }) });
    await expect(run(client, "hi")).resolves.toEqual({ error: undefined, text: "Hello" });
  });

  it("the caller's abort still ends a watched request with the caller's reason, not a stall", async () => {
    const m = await start(row);
    let closed = false;
    m.enqueue({ sse: prelude(row), hold: true, onClose: () => (closed = true) });
    const client = createClient({ provider: stallTimeout(row.provider(m), { first: 5000, between: 5000 }) });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const { error } = await run(client, "hi", [], controller.signal);
    expect(error?.name).toBe("AbortError");
    await until(() => closed);
  });

  it("a server that never sends the response headers stalls in the first phase; the fetch is aborted and the server sees the connection close", async () => {
    let requests = 0;
    let closed = false;
    const server: Server = createServer((req) => {
      requests++;
      req.resume(); // read the body, never answer
      req.socket.on("close", () => (closed = true));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      const { error } = await run(createClient({ provider: stallTimeout(row.provider({ url }), { first: 150 }) }), "hi");
      expect(error).toMatchObject({ code: "stall", phase: "first", afterContent: false });
      await until(() => closed);
      expect(requests).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it("the wrapped provider keeps everything of the one it wraps: name, model, tool support, web search, checkTools, toJSON", async () => {
    const m = await start(row, [{ text: "ok" }]);
    const bare = row.provider(m);
    const wrapped = stallTimeout(bare, { first: 1000 });
    expect(wrapped).not.toBe(bare);
    expect(wrapped.name).toBe(row.providerName);
    for (const key of ["name", "model", "supportsTools", "supportsWebSearch", "checkTools"] as const) expect(wrapped[key], key).toBe(bare[key]);
    expect(JSON.stringify(wrapped)).toBe(JSON.stringify(bare));
    expect(JSON.parse(JSON.stringify(wrapped))).toMatchObject({ name: row.providerName });
    // A schema the adapter cannot send (a tool whose input is an array, which the core's own
    // tool() and jsonTool() refuse, so the tool is written by hand) is refused when the tools are
    // set, by the adapter's own checkTools, through the wrapper as without it.
    const listy = { name: "list_things", description: "Lists.", parameters: { type: "array", items: { type: "string" } }, call: async () => "x" } as Tool;
    for (const provider of [bare, wrapped]) {
      let error: any;
      try {
        createClient({ provider, tools: [listy] });
      } catch (e) {
        error = e;
      }
      expect(error).toMatchObject({ code: "unsupported_schema", provider: row.providerName, toolName: "list_things", path: "/type" });
    }
    // (A provider without checkTools takes it: the refusal above is the adapter's.)
    expect(() => createClient({ provider: { name: "plain", generate: bare.generate }, tools: [listy] })).not.toThrow();
    // Native web search: refused for compatible servers (supportsWebSearch: false), with or without the wrapper.
    const search = () => createClient({ provider: wrapped, tools: [webSearch()] });
    if (bare.supportsWebSearch === false)
      expect(search).toThrow(expect.objectContaining({ code: "invalid_tool", message: expect.stringContaining("no native web search") }));
    else expect(search).not.toThrow();
    // And it still answers, through the wrapper.
    await expect(createClient({ provider: wrapped }).chat("hi")).resolves.toBe("ok");
  });

  it("wrappers nest: each one's limits apply (an outer between around an inner first)", async () => {
    const m = await start(row);
    m.enqueue({ sse: [...row.partialStream(), ping(row, 0)], hold: true });
    const provider = stallTimeout(stallTimeout(row.provider(m), { first: 3000 }), { between: 150 });
    const { error } = await run(createClient({ provider }), "hi");
    expect(error).toMatchObject({ code: "stall", phase: "between", ms: 150 });
  });

  it("fallback() moves a stall before any content to the next provider", async () => {
    const a = await start(row);
    const b = await start(row, [{ text: "from the second" }]);
    let closed = false;
    a.enqueue({ sse: [...prelude(row), ping(row, 0), ping(row, 1)], delayMs: 10, hold: true, onClose: () => (closed = true) });
    const provider = fallback([stallTimeout(row.provider(a), { first: 150 }), row.provider(b)]);
    const client = createClient({ provider });
    const seen: string[] = [];
    await expect(run(client, "hi", seen)).resolves.toEqual({ error: undefined, text: "from the second" });
    expect(seen.join("")).toBe("from the second");
    expect(a.bodies()).toHaveLength(1);
    expect(b.bodies()).toHaveLength(1);
    await until(() => closed);
    expectValidHistory(client);
  });

  it("fallback() throws a stall after content: never a silent switch mid-answer", async () => {
    const a = await start(row);
    const b = await start(row, [{ text: "never" }]);
    a.enqueue({ sse: [...row.partialStream(), ping(row, 0)], hold: true });
    const client = createClient({ provider: fallback([stallTimeout(row.provider(a), { between: 150 }), row.provider(b)]) });
    const seen: string[] = [];
    const { error } = await run(client, "hi", seen);
    expect(error).toMatchObject({ code: "stall", phase: "between", afterContent: true });
    expect(seen).toEqual(["Hel"]);
    expect(b.bodies()).toHaveLength(0);
    expectValidHistory(client);
  });

  it("wrapped around fallback() the limit is the whole request's: a stall ends it there (wrap each provider to move on)", async () => {
    const a = await start(row);
    const b = await start(row, [{ text: "never" }]);
    a.enqueue({ sse: [...prelude(row), ping(row, 0)], hold: true });
    const provider = stallTimeout(fallback([row.provider(a), row.provider(b)]), { first: 150 });
    const { error } = await run(createClient({ provider }), "hi");
    expect(error).toMatchObject({ code: "stall", phase: "first", afterContent: false });
    expect(b.bodies()).toHaveLength(0);
  });

  it("a journaled run that stalls after content is left interrupted, and continuing it asks for the reply again", async () => {
    const m = await start(row, [{ text: "recovered" }]);
    m.enqueue({ sse: [...row.partialStream(), ping(row, 0)], hold: true });
    const journal = await openJournal({ store: memoryStore(), key: "c1", unsigned: true });
    const client = journal.createClient({ provider: stallTimeout(row.provider(m), { between: 150 }) });
    const { error } = await run(client, "hi");
    expect(error).toMatchObject({ code: "stall", phase: "between", afterContent: true });
    expect(journal.interrupted).toBe(true);
    const events: StreamEvent[] = [];
    for await (const ev of client.stream()) events.push(ev);
    expect(events[0]).toMatchObject({ type: "recovery", restart: true });
    expect(events.at(-1)).toMatchObject({ type: "finish", text: "recovered" });
    expect(m.bodies()).toHaveLength(2);
    expect(journal.interrupted).toBe(false);
    expectValidHistory(client);
  });

  it("an app-wide signal handed to generate() keeps no listener per watched request, whether the reply completes or stalls", async () => {
    // (client.stream() hands the provider a signal of the run's own; a provider called
    // directly, or by another framework, gets the caller's.)
    const m = await start(
      row,
      Array.from({ length: 20 }, () => ({ text: "ok" })),
    );
    const app = new AbortController();
    const provider = stallTimeout(row.provider(m), { first: 30_000, between: 150 });
    const request = (signal: AbortSignal) => ({ messages: [{ role: "user" as const, content: "hi" }], tools: [], webSearch: false, signal, onDelta: () => {} });
    for (let i = 0; i < 20; i++) await expect(provider.generate(request(app.signal))).resolves.toMatchObject({ text: "ok" });
    expect(getEventListeners(app.signal, "abort")).toHaveLength(0);
    m.enqueue({ sse: [...row.partialStream(), ping(row, 0)], hold: true });
    await expect(provider.generate(request(app.signal))).rejects.toMatchObject({ code: "stall", phase: "between" });
    expect(getEventListeners(app.signal, "abort")).toHaveLength(0);
  });

  it("a request that is not streamed is not watched", async () => {
    const m = await start(row, [{ text: "plain" }]);
    const client = createClient({ provider: stallTimeout(row.provider(m), { first: 1, between: 1 }) });
    // 1 ms would stall any stream; chat() asks for a JSON body, which has no deltas to time.
    await expect(client.chat("hi")).resolves.toBe("plain");
  });
});

describe("stallTimeout's arguments, and no stallTimeout option anywhere", () => {
  const factories: [string, (extra: Record<string, unknown>) => Provider][] = [
    ["claude", (x) => claude({ apiKey: "k", model: "m", ...x })],
    ["openai", (x) => openai({ apiKey: "k", model: "m", ...x })],
    ["openaiChat", (x) => openaiChat({ apiKey: "k", model: "m", ...x })],
    ["openaiCompatible", (x) => openaiCompatible({ baseURL: "http://127.0.0.1:1/v1", model: "m", ...x })],
    ["gemini", (x) => gemini({ apiKey: "k", model: "m", ...x })],
  ];
  const bad: [unknown, RegExp][] = [
    [{ frist: 100 }, /stallTimeout: unknown option `frist`; did you mean `first`\?/],
    [{ first: 0 }, /stallTimeout\.first must be a positive number of ms, got 0/],
    [{ between: -5 }, /stallTimeout\.between must be a positive number of ms, got -5/],
    [{ first: "100" }, /stallTimeout\.first must be a positive number of ms, got the string "100"/],
    [{ first: Number.POSITIVE_INFINITY }, /positive number of ms/],
    ["100", /stallTimeout must be \{ first\?, between\? \} in ms, at least one, got the string "100"/],
    [100, /stallTimeout must be \{ first\?, between\? \}/],
    [null, /stallTimeout must be \{ first\?, between\? \}.*got null/],
    [undefined, /stallTimeout must be \{ first\?, between\? \} in ms, at least one, got undefined/],
    [{}, /stallTimeout must be \{ first\?, between\? \} in ms, at least one, got/],
    [{ first: undefined }, /stallTimeout must be \{ first\?, between\? \}/],
  ];

  it.each(factories)("stallTimeout(%s(), limits) refuses limits it cannot use, saying what to write", (_name, make) => {
    const p = make({});
    for (const [value, message] of bad) {
      expect(() => stallTimeout(p, value as never), JSON.stringify(value)).toThrow(message);
      expect(() => stallTimeout(p, value as never), JSON.stringify(value)).toThrow(expect.objectContaining({ code: "invalid_options" }));
    }
    expect(() => stallTimeout(p, { first: 100, between: 50.5 })).not.toThrow();
    expect(() => stallTimeout(p, { first: 100, between: undefined })).not.toThrow();
  });

  // Refused as any unknown key is; naming the wrapper in the message would cost every agent ~22 B
  // (issue 26: a minimal agent grows by 0 bytes), so docs/providers.md says what to write.
  it.each(factories)("%s() refuses a stallTimeout option", (_name, make) => {
    expect(() => make({ stallTimeout: { first: 100 } })).toThrow(/unknown option `stallTimeout`/);
    expect(() => make({ stallTimeout: undefined })).toThrow(expect.objectContaining({ code: "invalid_options" }));
    // A misspelt neighbour is still matched to the option it is near.
    expect(() => make({ idleTimout: 100 })).toThrow(/did you mean `idleTimeout`\?/);
  });

  it("createClient() has no stallTimeout option either: it is refused", () => {
    const provider = claude({ apiKey: "k", model: "m" });
    expect(() => createClient({ provider, stallTimeout: { first: 100 } } as never)).toThrow(/createClient\(\): unknown option `stallTimeout`/);
  });

  it("stallTimeout() takes a provider first", () => {
    for (const p of [undefined, null, {}, "claude", { name: "x" }]) {
      expect(() => stallTimeout(p as never, { first: 100 }), JSON.stringify(p)).toThrow(
        /stallTimeout\(\) takes a provider, then the limits: stallTimeout\(claude/,
      );
    }
  });
});

describe("StallError, isRecoverable and fallback's rule", () => {
  it("StallError carries the phase, the limit and whether content had arrived", () => {
    const first = new StallError("claude", "first", 100);
    expect(first).toMatchObject({ code: "stall", name: "StallError", provider: "claude", phase: "first", ms: 100, afterContent: false });
    expect(first.message).toBe("claude: no content for 100 ms (stallTimeout.first)");
    const between = new StallError("gemini", "between", 50);
    expect(between).toMatchObject({ phase: "between", ms: 50, afterContent: true });
    expect(between.message).toBe("gemini: no content for 50 ms (stallTimeout.between)");
    expect(isToolloopError(between, "stall")).toBe(true);
  });

  it("isRecoverable: true for failures in transit (stall, broken or silent stream, no connection), false for the rest; by code, across realms", async () => {
    const { ConnectionError, IdleTimeoutError, InvalidOptionsError, ProviderError, StreamError, MaxStepsError } = await import("../../src/index.js");
    expect(isRecoverable(new StallError("x", "first", 1))).toBe(true);
    expect(isRecoverable(new StallError("x", "between", 1))).toBe(true);
    expect(isRecoverable(new StreamError("x", "cut"))).toBe(true);
    expect(isRecoverable(new IdleTimeoutError("x", 1))).toBe(true);
    expect(isRecoverable(new ConnectionError("x", "refused"))).toBe(true);
    expect(isRecoverable({ name: "StallError", code: "stall", message: "copied across a worker" })).toBe(true);
    expect(isRecoverable(new ProviderError({ provider: "x", status: 400, message: "bad" }))).toBe(false);
    expect(isRecoverable(new InvalidOptionsError("bad"))).toBe(false);
    expect(isRecoverable(new MaxStepsError(3))).toBe(false);
    expect(isRecoverable(new DOMException("aborted", "AbortError"))).toBe(false);
    expect(isRecoverable({ code: "ECONNRESET" })).toBe(false);
    expect(isRecoverable(undefined)).toBe(false);
  });

  it("shouldFallBack: a stall before content moves on, a stall after content does not", async () => {
    const { shouldFallBack } = await import("../../src/cost/fallback.js");
    expect(shouldFallBack(new StallError("x", "first", 1))).toBe(true);
    expect(shouldFallBack(new StallError("x", "between", 1))).toBe(false);
  });
});
