// Durable runs in the core: a journal over a store, a "crash" at each point of a run (the
// process that ran it is dropped mid-run: its promises never settle, only what it wrote to the
// store is left), and a second "process" that opens the same record and continues the run.
// The model is the real Claude adapter over HTTP against the strict Anthropic mock.
import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { claude } from "../../adapters/claude/index.js";
import { isToolloopError, type Message, memoryStore, openJournal, type Store, type StreamEvent, suspension, type Tool, tool } from "../../src/index.js";
import { type ClaudeMock, type MockTurn, startClaudeMock } from "../mock/claude.js";

const SECRET = "a-journal-secret-of-at-least-32-characters!";
let mock: ClaudeMock | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

/** A gate a handler can wait on: the test opens it, or never does (the "crash"). */
function latch() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { opened, open };
}

async function start(script: MockTurn[] | ((body: unknown, i: number) => MockTurn)) {
  mock = await startClaudeMock({ apiKey: "sk-ant-k", script });
  return claude({ apiKey: "sk-ant-k", model: "claude-sonnet-4-5", baseURL: mock.url, maxRetries: 0 });
}

/** The side effects tools had, by idempotency key: what a payments API that dedups by key would count once. */
function ledger() {
  const calls: { name: string; key: string | undefined; input: unknown }[] = [];
  return { calls, keys: () => new Set(calls.map((c) => c.key)) };
}

function tools(led: ReturnType<typeof ledger>, hang?: { name: string; gate: Promise<void> }): Tool[] {
  const make = (name: string, replay?: "safe") =>
    tool({
      name,
      description: `The ${name} tool.`,
      input: v.object({ n: v.number() }),
      ...(replay && { replay }),
      run: async (input, ctx) => {
        led.calls.push({ name, key: ctx.idempotencyKey, input });
        if (hang?.name === name) await hang.gate;
        return { ok: name, n: input.n };
      },
    });
  return [make("pay", "safe"), make("email"), make("lookup")];
}

const calls = (...names: string[]): MockTurn => ({ text: "Working.", toolCalls: names.map((name, i) => ({ name, input: { n: i } })) });

/** Waits until `cond` holds (a crash point is reached). */
async function until(cond: () => boolean) {
  for (let i = 0; i < 400 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(cond()).toBe(true);
}

function validHistory(h: Message[]) {
  // Every call has exactly one result right after it.
  h.forEach((m, i) => {
    if (m.role === "assistant" && m.toolCalls?.length) {
      const next = h[i + 1];
      expect(next?.role).toBe("tool");
      const ids = (next as Extract<Message, { role: "tool" }>).results.map((r) => r.callId);
      expect(ids.sort()).toEqual(m.toolCalls.map((c) => c.id).sort());
    }
  });
}

describe("a run interrupted while a tool runs", () => {
  it("continues from its record: settled calls are not run again, a replay-safe call runs again with the same key, an unsafe one is reported interrupted", async () => {
    const provider = await start([calls("lookup", "pay", "email"), { text: "All done." }]);
    const store = memoryStore();
    const led = ledger();
    // Process 1: lookup settles, pay hangs (the crash), email never starts (sequential).
    const j1 = await openJournal({ store, key: "c1", secret: SECRET });
    const never = latch();
    const c1 = j1.createClient({ provider, tools: tools(led, { name: "pay", gate: never.opened }) });
    void c1.run("Pay and tell me.").catch(() => {});
    await until(() => led.calls.length === 2);
    expect(led.calls.map((c) => c.name)).toEqual(["lookup", "pay"]);
    const payKey = led.calls[1]!.key;
    expect(payKey).toMatch(/^tl_[0-9a-f]{40}$/);
    expect(led.calls[0]!.key).not.toBe(payKey);

    // Process 2: the same store, a new journal and client.
    const j2 = await openJournal({ store, key: "c1", secret: SECRET });
    expect(j2.status).toBe("running");
    expect(j2.interrupted).toBe(true);
    const c2 = j2.createClient({ provider, tools: tools(led) });
    const events: StreamEvent[] = [];
    for await (const e of c2.stream()) events.push(e);
    expect(events[0]).toEqual({ type: "recovery", step: 1, recoveries: 1, restart: false });
    // The model was asked twice in all: the recorded reply was not asked for again.
    expect(mock!.requests).toHaveLength(2);
    // lookup ran once; pay twice with the same key; email once (it had not started).
    expect(led.calls.map((c) => c.name)).toEqual(["lookup", "pay", "pay", "email"]);
    expect(led.calls[2]!.key).toBe(payKey);
    const finish = events.at(-1) as Extract<StreamEvent, { type: "finish" }>;
    expect(finish).toMatchObject({ status: "done", text: "All done.", steps: 2 });
    expect(j2.status).toBe("done");
    validHistory(c2.history);
    // What the mock got second answered every call once (the strict mock refuses otherwise).
    const results = mock!.requests[1]!.body.messages.at(-1).content;
    expect(results.map((b: { type: string }) => b.type)).toEqual(["tool_result", "tool_result", "tool_result"]);
    // lookup's answer is its recorded output, not an interruption.
    expect(results[0].is_error).toBeFalsy();
    expect(JSON.stringify(results[0].content)).toContain('\\"ok\\":\\"lookup\\"');
  });

  it("an interrupted call that is not replay-safe is not run again: the model reads that its outcome is unknown", async () => {
    const provider = await start([calls("email"), { text: "I could not confirm the email." }]);
    const store = memoryStore();
    const led = ledger();
    const never = latch();
    const j1 = await openJournal({ store, key: "c", secret: SECRET });
    void j1
      .createClient({ provider, tools: tools(led, { name: "email", gate: never.opened }) })
      .run("Email them.")
      .catch(() => {});
    await until(() => led.calls.length === 1);
    const j2 = await openJournal({ store, key: "c", secret: SECRET });
    const c2 = j2.createClient({ provider, tools: tools(led) });
    const r = await c2.run();
    expect(r.text).toBe("I could not confirm the email.");
    expect(led.calls).toHaveLength(1);
    const result = mock!.requests[1]!.body.messages.at(-1).content[0];
    expect(result.is_error).toBe(true);
    expect(JSON.stringify(result.content)).toContain("interrupted");
    validHistory(c2.history);
  });
});

describe("a run interrupted during a model request", () => {
  it("asks again (restart: true), and the run's prompt is there once", async () => {
    let n = 0;
    const provider = await start(() => (n++ === 0 ? calls("lookup") : { text: "Done." }));
    // The first request hangs mid-stream (the crash): a partial reply, then nothing.
    mock!.enqueue({
      sse: [
        'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"usage":{"input_tokens":5,"output_tokens":1}}}\n\n',
      ],
      hold: true,
    });
    const store = memoryStore();
    const led = ledger();
    const j1 = await openJournal({ store, key: "m", secret: SECRET });
    void j1
      .createClient({ provider, tools: tools(led) })
      .run("Look it up.")
      .catch(() => {});
    await until(() => mock!.requests.length === 1);
    const j2 = await openJournal({ store, key: "m", secret: SECRET });
    expect(j2.interrupted).toBe(true);
    const c2 = j2.createClient({ provider, tools: tools(led) });
    const events: StreamEvent[] = [];
    for await (const e of c2.stream()) events.push(e);
    expect(events[0]).toMatchObject({ type: "recovery", restart: true });
    expect(led.calls).toHaveLength(1);
    const first = c2.history.filter((m) => m.role === "user" && m.content === "Look it up.");
    expect(first).toHaveLength(1);
    validHistory(c2.history);
  });
});

describe("the store", () => {
  it("a write that fails stops the run before the next side effect, and the run continues once the store works", async () => {
    const provider = await start([calls("lookup", "pay"), { text: "Paid." }]);
    const inner = memoryStore();
    let failing = false;
    const store: Store = { ...inner, put: (k, v) => (failing ? Promise.reject(new Error("disk full")) : inner.put(k, v)) };
    const led = ledger();
    const j = await openJournal({ store, key: "s", secret: SECRET });
    const c = j.createClient({
      provider,
      tools: tools(led).map((t) =>
        t.name === "lookup"
          ? {
              ...t,
              call: async (i: string, ctx: never) => {
                const out = await t.call(i, ctx);
                failing = true; // the next write (lookup's result) fails
                return out;
              },
            }
          : t,
      ),
    });
    const err = await c.run("Go.").catch((e) => e);
    expect(isToolloopError(err, "journal")).toBe(true);
    expect(led.calls.map((x) => x.name)).toEqual(["lookup"]); // pay never started
    expect(j.interrupted).toBe(true);
    failing = false;
    const r = await c.run();
    expect(r.text).toBe("Paid.");
    expect(led.calls.map((x) => x.name)).toEqual(["lookup", "pay"]);
    validHistory(c.history);
  });

  it("a record changed in the store is refused when opened", async () => {
    const store = memoryStore();
    const provider = await start([{ text: "Hi." }]);
    const j = await openJournal({ store, key: "t", secret: SECRET });
    await j.createClient({ provider }).run("Hello");
    const stored = (await store.get("t")) as { record: { history: Message[] } };
    (stored.record.history[0] as { content: string }).content = "Changed";
    await store.put("t", stored);
    const err = await openJournal({ store, key: "t", secret: SECRET }).catch((e) => e);
    expect(isToolloopError(err, "journal")).toBe(true);
    const other = await openJournal({ store, key: "t", secret: `${SECRET}-other` }).catch((e) => e);
    expect(isToolloopError(other, "journal")).toBe(true);
  });

  it("refuses a missing or short secret, naming what to write", async () => {
    const store = memoryStore();
    await expect(openJournal({ store, key: "k" } as never)).rejects.toThrow(/unsigned: true/);
    await expect(openJournal({ store, key: "k", secret: "short" })).rejects.toThrow(/at least 32/);
    await expect(openJournal({ store, key: "k", secret: SECRET, maxRecovery: 2 } as never)).rejects.toThrow(/maxRecoveries/);
    await expect(openJournal({ store, key: "", unsigned: true })).rejects.toThrow(/key/);
  });
});

describe("recovery is bounded", () => {
  it("a run interrupted the same way more than maxRecoveries times ends with RecoveryLimitError and a valid history", async () => {
    const provider = await start([calls("lookup", "pay")]);
    const store = memoryStore();
    const led = ledger();
    const never = latch();
    // Each "process" opens the record and runs (or continues) the run; pay (replay-safe) hangs every time.
    const proc = async () => {
      const j = await openJournal({ store, key: "r", secret: SECRET, maxRecoveries: 2 });
      const c = j.createClient({ provider, tools: tools(led, { name: "pay", gate: never.opened }) });
      return { j, done: c.run(j.interrupted ? undefined : "Go.").catch((e) => e) };
    };
    await proc();
    await until(() => led.calls.length === 2);
    for (let i = 1; i <= 2; i++) {
      await proc();
      await until(() => led.calls.length === 2 + i); // pay again, with the same key
    }
    expect(new Set(led.calls.slice(1).map((c) => c.key)).size).toBe(1);
    const { j, done } = await proc();
    const err = await done;
    expect(isToolloopError(err, "recovery_limit")).toBe(true);
    expect(j.status).toBe("failed");
    expect(led.calls).toHaveLength(4);
    const h = j.history;
    validHistory(h);
    const results = (h.at(-1) as Extract<Message, { role: "tool" }>).results;
    expect(results[0]).toMatchObject({ isError: false }); // lookup's output is kept
    expect(results[1]!.output).toContain("interrupted");
  });
});

describe("single-use decisions", () => {
  const payTool = (led: ReturnType<typeof ledger>) =>
    tool({
      name: "pay",
      description: "Pays.",
      input: v.object({ n: v.number() }),
      needsApproval: true,
      run: async (input, ctx) => {
        led.calls.push({ name: "pay", key: ctx.idempotencyKey, input });
        return "paid";
      },
    });

  it("an approval replayed with an older copy of the history is refused", async () => {
    const provider = await start((_b, i) => (i % 2 === 0 ? calls("pay") : { text: "Paid." }));
    const store = memoryStore();
    const led = ledger();
    const j = await openJournal({ store, key: "d", secret: SECRET });
    const c = j.createClient({ provider, tools: [payTool(led)], suspension: suspension({ secret: SECRET }) });
    const r = await c.run("Pay.");
    expect(r.status).toBe("suspended");
    const saved = c.history;
    const callId = r.pending[0]!.callId;
    await c.resume([{ callId, approved: true }]);
    expect(led.calls).toHaveLength(1);
    // The old copy comes back (a new process, a PUT of a saved history): its approval is spent.
    const j2 = await openJournal({ store, key: "d", secret: SECRET });
    const c2 = j2.createClient({ provider, tools: [payTool(led)], suspension: suspension({ secret: SECRET }), history: saved });
    const err = await c2.resume([{ callId, approved: true }]).catch((e) => e);
    expect(isToolloopError(err, "invalid_decision")).toBe(true);
    expect(err.message).toMatch(/already decided/);
    expect(led.calls).toHaveLength(1);
  });

  it("an approve-then-ask handler cannot be run again with a saved copy and any answer", async () => {
    const provider = await start((_b, i) => (i === 0 ? calls("transfer") : { text: "Done." }));
    const store = memoryStore();
    let ran = 0;
    const transfer = tool({
      name: "transfer",
      description: "Transfers after a question.",
      input: v.object({ n: v.number() }),
      needsApproval: true,
      run: async (_i, ctx) => {
        const memo = await ctx.requestInput!({ message: "Memo?" });
        ran++;
        return `sent with ${String(memo)}`;
      },
    });
    const opts = () => ({ provider, tools: [transfer], suspension: suspension({ secret: SECRET }) });
    const j = await openJournal({ store, key: "b", secret: SECRET });
    const c = j.createClient(opts());
    const r = await c.run("Transfer.");
    const callId = r.pending[0]!.callId;
    const asked = await c.resume([{ callId, approved: true }]);
    expect(asked.pending[0]).toMatchObject({ kind: "input" });
    const saved = c.history; // approved: true, waiting for the memo
    await c.resume([{ callId, answer: "rent" }]);
    expect(ran).toBe(1);
    const j2 = await openJournal({ store, key: "b", secret: SECRET });
    const c2 = j2.createClient({ ...opts(), history: saved });
    const err = await c2.resume([{ callId, answer: "anything" }]).catch((e) => e);
    expect(isToolloopError(err, "invalid_decision")).toBe(true);
    expect(ran).toBe(1);
  });
});

describe("an error a run can get past", () => {
  it("a stream that breaks after content leaves the run interrupted; run() with no prompt continues it", async () => {
    const provider = await start([calls("lookup"), { text: "Done." }]);
    mock!.enqueue({
      sse: [
        'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"usage":{"input_tokens":5,"output_tokens":1}}}\n\n',
      ],
      cutAfter: true,
    });
    const store = memoryStore();
    const led = ledger();
    const j = await openJournal({ store, key: "e", secret: SECRET });
    const c = j.createClient({ provider, tools: tools(led) });
    const events: StreamEvent[] = [];
    const err = await (async () => {
      for await (const e of c.stream("Go.")) events.push(e);
    })().catch((e) => e);
    expect(isToolloopError(err, "stream_error")).toBe(true);
    expect(j.interrupted).toBe(true);
    await expect(c.run("Something else")).rejects.toMatchObject({ code: "run_interrupted" });
    const r = await c.run();
    expect(r).toMatchObject({ status: "done", text: "Done.", steps: 2 });
    expect(led.calls).toHaveLength(1);
    validHistory(c.history);
    expect(c.history.filter((m) => m.role === "user")).toHaveLength(1);
  });
});
