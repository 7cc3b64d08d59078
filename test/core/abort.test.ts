import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { createClient, type Message, type Provider, type ToolContext, type ToolMessage, tool } from "../../src/index.js";
import { type ScriptedCall, scriptedProvider } from "../../src/testing.js";
import { aborted, historyProblems, settle, until } from "./helpers.js";

/**
 * A tool whose call `n` finishes at once when n is in `quick`, and otherwise waits until
 * its ctx.signal aborts (like a fetch would). Records every context it was given.
 */
function waitingTool(quick: number[]) {
  const seen = new Map<number, ToolContext>();
  const t = tool({
    name: "work",
    description: "A test tool.",
    input: v.object({ n: v.number() }),
    run: async ({ n }, ctx) => {
      seen.set(n, ctx);
      if (quick.includes(n)) return `done ${n}`;
      await aborted(ctx.signal);
      return `finished after abort ${n}`; // too late: the call is already answered "cancelled"
    },
  });
  return { tool: t, seen };
}

const calls = (count: number): ScriptedCall[] => Array.from({ length: count }, (_, n) => ({ name: "work", arguments: { n }, id: `c${n}` }));

const outputs = (history: Message[], index: number) => (history[index] as ToolMessage).results.map((r) => r.output);

describe("abort during tool calls", () => {
  it("sequential: reaches the running handler, rejects with an AbortError, keeps completed results, cancels the rest", async () => {
    const { tool: t, seen } = waitingTool([0]);
    const provider = scriptedProvider([{ toolCalls: calls(3) }, "after resume"]);
    const client = createClient({ provider, tools: [t] });
    const controller = new AbortController();
    const run = settle(client.chat("go", { signal: controller.signal }));
    await until(() => seen.has(1));
    controller.abort();
    const r = await run;
    expect(r.ok).toBe(false);
    const error = (r as { error: DOMException }).error;
    expect(error).toBeInstanceOf(DOMException);
    expect(error.name).toBe("AbortError");
    expect(error).toBe(controller.signal.reason);
    expect(seen.get(1)!.signal.aborted).toBe(true);
    expect(seen.get(1)!.signal.reason).toBe(error);
    expect(seen.has(2)).toBe(false); // never started
    const h = client.history;
    expect(historyProblems(h)).toEqual([]);
    expect(outputs(h, 2)).toEqual(["done 0", '{"error":"cancelled"}', '{"error":"cancelled"}']);
    expect((h[2] as ToolMessage).results.map((x) => x.isError)).toEqual([false, true, true]);
    // the next chat works and sends a valid history
    expect(await client.chat("again")).toBe("after resume");
    expect(historyProblems(provider.requests[1]!.messages)).toEqual([]);
    expect(provider.requests[1]!.messages.slice(0, 3)).toEqual(h);
  });

  it("parallel: reaches every in-flight handler, cancels the ones still waiting for a slot", async () => {
    const { tool: t, seen } = waitingTool([0]);
    const provider = scriptedProvider([{ toolCalls: calls(5) }, "after resume"]);
    const client = createClient({ provider, tools: [t], parallelTools: true, maxParallelTools: 3 });
    const controller = new AbortController();
    const run = settle(client.chat("go", { signal: controller.signal }));
    // call 0 finishes, so calls 1, 2 and 3 hold the three slots and call 4 waits
    await until(() => seen.has(1) && seen.has(2) && seen.has(3));
    controller.abort();
    const r = await run;
    expect(r.ok).toBe(false);
    expect((r as { error: Error }).error.name).toBe("AbortError");
    for (const n of [1, 2, 3]) expect(seen.get(n)!.signal.aborted).toBe(true);
    expect(seen.has(4)).toBe(false);
    const h = client.history;
    expect(historyProblems(h)).toEqual([]);
    expect(outputs(h, 2)).toEqual(["done 0", ...Array(4).fill('{"error":"cancelled"}')]);
    expect(await client.chat("again")).toBe("after resume");
    expect(historyProblems(provider.requests[1]!.messages)).toEqual([]);
  });

  it("rejects with the caller's own reason when one is given", async () => {
    const { tool: t, seen } = waitingTool([]);
    const client = createClient({ provider: scriptedProvider([{ toolCalls: calls(2) }]), tools: [t], parallelTools: true });
    const controller = new AbortController();
    const reason = new Error("user closed the tab");
    const run = settle(client.chat("go", { signal: controller.signal }));
    await until(() => seen.size === 2);
    controller.abort(reason);
    expect(await run).toEqual({ ok: false, error: reason });
    expect(seen.get(0)!.signal.reason).toBe(reason);
    expect(historyProblems(client.history)).toEqual([]);
  });

  it("an abort is not counted as a tool failure and leaves lastRun from the previous run", async () => {
    const { tool: t, seen } = waitingTool([]);
    const client = createClient({ provider: scriptedProvider(["first", { toolCalls: calls(1) }]), tools: [t] });
    await client.chat("one");
    const before = client.lastRun;
    const controller = new AbortController();
    const run = settle(client.chat("two", { signal: controller.signal }));
    await until(() => seen.size === 1);
    controller.abort();
    await run;
    expect(client.lastRun).toBe(before);
  });
});

describe("abort around the model call", () => {
  it("an already-aborted signal rejects before any request, leaving the history untouched", async () => {
    const provider = scriptedProvider(["never"]);
    const client = createClient({
      provider,
      history: [
        { role: "user", content: "earlier" },
        { role: "assistant", content: "hi" },
      ],
    });
    const controller = new AbortController();
    controller.abort();
    const r = await settle(client.chat("go", { signal: controller.signal }));
    expect((r as { error: Error }).error.name).toBe("AbortError");
    expect(provider.requests).toHaveLength(0);
    expect(client.history).toEqual([
      { role: "user", content: "earlier" },
      { role: "assistant", content: "hi" },
    ]);
  });

  it("an abort during the model call rejects with the reason; the prompt stays; the next chat works", async () => {
    const provider = scriptedProvider([{ text: "slow", delayMs: 60_000 }, "second"]);
    const client = createClient({ provider });
    const controller = new AbortController();
    const run = settle(client.chat("first", { signal: controller.signal }));
    await until(() => provider.requests.length === 1);
    controller.abort();
    const r = await run;
    expect((r as { error: Error }).error).toBe(controller.signal.reason);
    expect(client.history).toEqual([{ role: "user", content: "first" }]);
    expect(await client.chat("next")).toBe("second");
    expect(provider.requests[1]!.messages).toEqual([
      { role: "user", content: "first" },
      { role: "user", content: "next" },
    ]);
  });

  it("whatever a provider throws on abort, the caller gets signal.reason", async () => {
    const provider: Provider = {
      name: "clumsy",
      generate: (req) =>
        new Promise((_, reject) => {
          req.signal!.addEventListener("abort", () => reject(new TypeError("fetch failed")), { once: true });
        }),
    };
    const client = createClient({ provider });
    const controller = new AbortController();
    const reason = new Error("mine");
    const run = settle(client.chat("go", { signal: controller.signal }));
    await new Promise((r) => setTimeout(r, 0));
    controller.abort(reason);
    expect(await run).toEqual({ ok: false, error: reason });
  });

  it("an abort that lands after the step's tools finished keeps their results and makes no further model call", async () => {
    const controller = new AbortController();
    const t = tool({ name: "work", description: "A test tool.", input: v.object({}), run: () => "done" });
    // The logger hears "tool result" after the call settled, before the next request.
    const logger = {
      debug() {},
      warn() {},
      error() {},
      info(message: string) {
        if (message === "tool result") controller.abort();
      },
    };
    const provider = scriptedProvider([{ toolCalls: [{ name: "work", id: "w" }] }, "never"]);
    const client = createClient({ provider, tools: [t], logger });
    const r = await settle(client.chat("go", { signal: controller.signal }));
    expect((r as { error: Error }).error.name).toBe("AbortError");
    expect(provider.requests).toHaveLength(1);
    expect(historyProblems(client.history)).toEqual([]);
    expect(outputs(client.history, 2)).toEqual(["done"]);
  });

  it("a handler that triggers the abort itself is cancelled like any other in-flight call", async () => {
    const controller = new AbortController();
    const t = tool({
      name: "work",
      description: "A test tool.",
      input: v.object({}),
      run: () => {
        controller.abort();
        return "done";
      },
    });
    const provider = scriptedProvider([{ toolCalls: [{ name: "work", id: "w" }] }, "never"]);
    const client = createClient({ provider, tools: [t] });
    const r = await settle(client.chat("go", { signal: controller.signal }));
    expect((r as { error: Error }).error.name).toBe("AbortError");
    expect(provider.requests).toHaveLength(1);
    expect(outputs(client.history, 2)).toEqual(['{"error":"cancelled"}']);
  });
});

describe("abort through stream()", () => {
  it("breaking out of the for-await aborts the run, and the history is valid when the loop is left", async () => {
    const { tool: t, seen } = waitingTool([]);
    const provider = scriptedProvider([{ toolCalls: calls(2) }, "after"]);
    const client = createClient({ provider, tools: [t], parallelTools: true });
    for await (const e of client.stream("go")) {
      if (e.type === "tool-call") {
        await until(() => seen.size === 2);
        break;
      }
    }
    expect(seen.get(0)!.signal.aborted).toBe(true);
    expect(seen.get(1)!.signal.aborted).toBe(true);
    const h = client.history;
    expect(historyProblems(h)).toEqual([]);
    expect(outputs(h, 2)).toEqual(['{"error":"cancelled"}', '{"error":"cancelled"}']);
    expect(await client.chat("again")).toBe("after");
    expect(historyProblems(provider.requests[1]!.messages)).toEqual([]);
  });

  it("the stream's signal option aborts it like chat's; the iterator throws the reason", async () => {
    const { tool: t, seen } = waitingTool([]);
    const client = createClient({ provider: scriptedProvider([{ toolCalls: calls(1) }]), tools: [t] });
    const controller = new AbortController();
    const reason = new Error("stop streaming");
    const types: string[] = [];
    const r = await settle(
      (async () => {
        for await (const e of client.stream("go", { signal: controller.signal })) {
          types.push(e.type);
          if (e.type === "tool-call") {
            await until(() => seen.size === 1);
            controller.abort(reason);
          }
        }
      })(),
    );
    expect(r).toEqual({ ok: false, error: reason });
    expect(types).not.toContain("finish");
    expect(historyProblems(client.history)).toEqual([]);
  });

  it("a stream with an already-aborted signal throws at the first next() and sends nothing", async () => {
    const provider = scriptedProvider(["never"]);
    const client = createClient({ provider });
    const controller = new AbortController();
    controller.abort("gone");
    const it = client.stream("go", { signal: controller.signal })[Symbol.asyncIterator]();
    expect(await settle(it.next())).toEqual({ ok: false, error: "gone" });
    expect(provider.requests).toHaveLength(0);
  });
});
