// Durable runs along the paths a real agent takes: parallel calls, several steps (numbering,
// counts across an interruption), compaction's summary requests (not recorded), an explicit
// stop, abandon(), and the record each step leaves in the store.
import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { claude } from "../../adapters/claude/index.js";
import { compaction, isToolloopError, type Message, memoryStore, openJournal, type StreamEvent, type Tool, tool } from "../../src/index.js";
import { type ClaudeMock, type MockTurn, startClaudeMock } from "../mock/claude.js";

const SECRET = "a-journal-secret-of-at-least-32-characters!";
let mock: ClaudeMock | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

async function start(script: MockTurn[] | ((body: unknown, i: number) => MockTurn)) {
  mock = await startClaudeMock({ apiKey: "sk-ant-k", script });
  return claude({ apiKey: "sk-ant-k", model: "claude-sonnet-4-5", baseURL: mock.url, maxRetries: 0 });
}

async function until(cond: () => boolean) {
  for (let i = 0; i < 400 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(cond()).toBe(true);
}

function counter(hangOn?: string, gate?: Promise<void>) {
  const ran: string[] = [];
  const keys = new Map<string, string | undefined>();
  const make = (name: string): Tool =>
    tool({
      name,
      description: `The ${name} tool.`,
      input: v.object({ n: v.number() }),
      replay: "safe",
      run: async ({ n }, ctx) => {
        ran.push(`${name}${n}`);
        keys.set(`${name}${n}:${ran.filter((r) => r === `${name}${n}`).length}`, ctx.idempotencyKey);
        if (name === hangOn && gate) await gate;
        return `${name} ${n} done`;
      },
    });
  return { ran, keys, tools: [make("a"), make("b"), make("slow")] };
}

const step = (...calls: [string, number][]): MockTurn => ({ text: "", toolCalls: calls.map(([name, n]) => ({ name, input: { n } })) });

describe("parallel calls", () => {
  it("records each call as it settles; after a crash only the unsettled ones run again, with their own keys", async () => {
    const provider = await start([step(["a", 1], ["slow", 2], ["b", 3]), { text: "Done." }]);
    const store = memoryStore();
    const c1 = counter("slow", new Promise(() => {}));
    const j1 = await openJournal({ store, key: "p", secret: SECRET });
    void j1
      .createClient({ provider, tools: c1.tools, parallelTools: true })
      .run("Go.")
      .catch(() => {});
    await until(() => c1.ran.length === 3);
    // Give a and b time to record their results (they settled; slow never will).
    await new Promise((r) => setTimeout(r, 30));
    const c2 = counter();
    const j2 = await openJournal({ store, key: "p", secret: SECRET });
    const r = await j2.createClient({ provider, tools: c2.tools, parallelTools: true }).run();
    expect(r.text).toBe("Done.");
    expect(c2.ran).toEqual(["slow2"]);
    expect(c2.keys.get("slow2:1")).toBe(c1.keys.get("slow2:1"));
    expect(new Set(c1.keys.values()).size).toBe(3);
  });
});

describe("a run of several steps", () => {
  it("numbers steps and counts the whole run across an interruption", async () => {
    const provider = await start([step(["a", 1]), step(["b", 2]), step(["slow", 3]), { text: "Done." }]);
    const store = memoryStore();
    const c1 = counter("slow", new Promise(() => {}));
    const j1 = await openJournal({ store, key: "n", secret: SECRET });
    void j1
      .createClient({ provider, tools: c1.tools })
      .run("Go.")
      .catch(() => {});
    await until(() => c1.ran.includes("slow3"));
    const j2 = await openJournal({ store, key: "n", secret: SECRET });
    const seen: number[] = [];
    const c2 = counter();
    const client = j2.createClient({ provider, tools: c2.tools, onStepFinish: (s) => void seen.push(s.step) });
    const events: StreamEvent[] = [];
    for await (const e of client.stream()) events.push(e);
    expect(events[0]).toEqual({ type: "recovery", step: 3, recoveries: 1, restart: false });
    expect(events.filter((e) => e.type === "step-finish").map((e) => (e as { step: number }).step)).toEqual([3, 4]);
    expect(seen).toEqual([3, 4]);
    const finish = events.at(-1) as Extract<StreamEvent, { type: "finish" }>;
    expect(finish).toMatchObject({ steps: 4, toolCalls: 3 });
    expect(finish.usage.inputTokens).toBeGreaterThan(0);
    expect(mock!.requests).toHaveLength(4);
  });

  it("the stored record after each step is a valid history a plain client can load", async () => {
    const provider = await start([step(["a", 1]), { text: "Done." }]);
    const store = memoryStore();
    const j = await openJournal({ store, key: "h", unsigned: true });
    const c = j.createClient({ provider, tools: counter().tools });
    await c.run("Go.");
    const stored = (await store.get("h")) as { record: { status: string; history: Message[]; run?: unknown } };
    expect(stored.record.status).toBe("done");
    expect(stored.record.run).toBeUndefined();
    expect(stored.record.history).toEqual(c.history);
    expect(j.history).toEqual(c.history);
  });
});

describe("compaction", () => {
  it("a summary request passes through unrecorded; the step after it is recorded and continued", async () => {
    let n = 0;
    const provider = await start((body) => {
      n++;
      const msgs = (body as { messages: { content: unknown }[] }).messages;
      if (JSON.stringify(msgs.at(-1)).includes("Summarise")) return { text: "Summary of earlier turns." };
      return n < 6 ? step(["a", n]) : { text: "Done." };
    });
    const store = memoryStore();
    const j = await openJournal({ store, key: "cp", secret: SECRET });
    const c = j.createClient({ provider, tools: counter().tools, compaction: compaction({ maxInputTokens: 60, keepRecent: 2 }) });
    const events: StreamEvent[] = [];
    for await (const e of c.stream(`Start. ${"x".repeat(200)}`)) events.push(e);
    expect(events.some((e) => e.type === "compaction")).toBe(true);
    expect(j.status).toBe("done");
    const stored = (await store.get("cp")) as { record: { history: Message[] } };
    expect(JSON.stringify(stored.record.history)).toContain("Summary of earlier turns.");
  });
});

describe("stopping", () => {
  it("an abort is an explicit stop: the record ends stopped with a valid history, and nothing continues it", async () => {
    const gate = new Promise<void>(() => {});
    const provider = await start([step(["slow", 1]), { text: "never" }]);
    const store = memoryStore();
    const c1 = counter("slow", gate);
    const j = await openJournal({ store, key: "s", secret: SECRET });
    const ctl = new AbortController();
    const c = j.createClient({ provider, tools: c1.tools });
    const p = c.run("Go.", { signal: ctl.signal }).catch((e) => e);
    await until(() => c1.ran.length === 1);
    ctl.abort(new Error("user stop"));
    const err = await p;
    expect(err.message).toBe("user stop");
    expect(j.status).toBe("stopped");
    expect(j.interrupted).toBe(false);
    const again = await openJournal({ store, key: "s", secret: SECRET });
    expect(again.status).toBe("stopped");
    expect(again.interrupted).toBe(false);
    const h = again.history;
    expect(h.at(-1)).toMatchObject({ role: "tool" });
  });

  it("abandon() ends an interrupted run: what settled stays in the history, the rest is answered", async () => {
    const provider = await start([step(["a", 1], ["slow", 2], ["b", 3])]);
    const store = memoryStore();
    const c1 = counter("slow", new Promise(() => {}));
    const j1 = await openJournal({ store, key: "ab", secret: SECRET });
    void j1
      .createClient({ provider, tools: c1.tools })
      .run("Go.")
      .catch(() => {});
    await until(() => c1.ran.length === 2);
    const j2 = await openJournal({ store, key: "ab", secret: SECRET });
    await j2.abandon();
    expect(j2.status).toBe("stopped");
    const results = (j2.history.at(-1) as Extract<Message, { role: "tool" }>).results;
    expect(results.map((r) => [r.isError, JSON.parse(r.output === "a 1 done" ? '"ok"' : r.output)])).toEqual([
      [false, "ok"],
      [true, { error: expect.stringContaining("interrupted") }],
      [true, { error: expect.stringContaining("not run") }],
    ]);
    const j3 = await openJournal({ store, key: "ab", secret: SECRET });
    expect(j3.interrupted).toBe(false);
    await expect(j3.abandon()).rejects.toSatisfy((e: unknown) => isToolloopError(e, "invalid_options"));
  });
});

describe("what a continued run sends again, and what it keeps", () => {
  it("a step that finished before the interruption is not replayed: no tool-call, tool-result or step-finish of it comes again", async () => {
    let n = 0;
    const provider = await start(() => (n++ === 0 ? step(["a", 1]) : { text: "Done." }));
    // The second request hangs (the crash comes while the model answers step 2).
    const store = memoryStore();
    const j1 = await openJournal({ store, key: "ev", secret: SECRET });
    const first: StreamEvent[] = [];
    const c1 = j1.createClient({ provider, tools: counter().tools });
    void (async () => {
      for await (const e of c1.stream("Go.")) {
        first.push(e);
        if (e.type === "step-finish") mock!.enqueue({ sse: [], hold: true });
      }
    })().catch(() => {});
    await until(() => mock!.requests.length === 2);
    const j2 = await openJournal({ store, key: "ev", secret: SECRET });
    const events: StreamEvent[] = [];
    const c2 = j2.createClient({ provider, tools: counter().tools });
    for await (const e of c2.stream()) events.push(e);
    expect(first.filter((e) => e.type === "step-finish")).toHaveLength(1);
    expect(events[0]).toEqual({ type: "recovery", step: 2, recoveries: 1, restart: true });
    expect(events.map((e) => e.type)).not.toContain("tool-call");
    expect(events.filter((e) => e.type === "step-finish").map((e) => (e as { step: number }).step)).toEqual([2]);
    expect(events.at(-1)).toMatchObject({ type: "finish", steps: 2, toolCalls: 1 });
  });

  it("within a step, calls that settled before the interruption are not announced again", async () => {
    const provider = await start([step(["a", 1], ["slow", 2]), { text: "Done." }]);
    const store = memoryStore();
    const c1 = counter("slow", new Promise(() => {}));
    const j1 = await openJournal({ store, key: "ev2", secret: SECRET });
    void (async () => {
      for await (const _ of j1.createClient({ provider, tools: c1.tools }).stream("Go."));
    })().catch(() => {});
    await until(() => c1.ran.length === 2);
    const j2 = await openJournal({ store, key: "ev2", secret: SECRET });
    const events: StreamEvent[] = [];
    for await (const e of j2.createClient({ provider, tools: counter().tools }).stream()) events.push(e);
    expect(events[0]).toMatchObject({ type: "recovery", restart: false });
    expect(events.filter((e) => e.type === "tool-call")).toEqual([]);
    // Only slow's result is new; a's was sent before the interruption.
    expect(events.filter((e) => e.type === "tool-result").map((e) => (e as { name: string }).name)).toEqual(["slow"]);
  });

  it("abandon() with a client open: the client goes on from the closed history", async () => {
    const provider = await start([step(["slow", 1]), { text: "Fresh start." }]);
    const store = memoryStore();
    void (await openJournal({ store, key: "ab2", secret: SECRET }))
      .createClient({ provider, tools: counter("slow", new Promise(() => {})).tools })
      .run("Go.")
      .catch(() => {});
    await until(() => mock!.requests.length === 1);
    await new Promise((r) => setTimeout(r, 20));
    const j = await openJournal({ store, key: "ab2", secret: SECRET });
    const c = j.createClient({ provider, tools: counter().tools });
    await j.abandon();
    const r = await c.run("Again.");
    expect(r.text).toBe("Fresh start.");
    const roles = c.history.map((m) => m.role);
    expect(roles).toEqual(["user", "assistant", "tool", "user", "assistant"]);
  });

  it("a run that ends before the model's first reply keeps its prompt in the history", async () => {
    const provider = await start([{ text: "never" }]);
    mock!.enqueue({ sse: [], hold: true });
    const store = memoryStore();
    void (await openJournal({ store, key: "pr", secret: SECRET }))
      .createClient({ provider })
      .run("Remember me.")
      .catch(() => {});
    await until(() => mock!.requests.length === 1);
    const j = await openJournal({ store, key: "pr", secret: SECRET });
    await j.abandon();
    expect(j.history).toEqual([{ role: "user", content: "Remember me." }]);
  });
});
