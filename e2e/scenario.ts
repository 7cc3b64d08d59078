// The conformance scenario: one module, imported unchanged by every runtime (Node 20/22/24,
// Deno, Bun, workerd, Chromium). It uses only what toolloop itself may use (fetch, timers,
// AbortController, Web Streams), drives a client against whatever provider the host built,
// and returns a plain-data summary the host compares across runtimes.

import { createClient, type Message, memoryStore, openJournal, type Provider, type Store, type StreamEvent, suspension, type Tool, tool } from "toolloop";
import * as v from "valibot";
import { prompt } from "./script.js";

export interface ScenarioInput {
  /** Shown in the summary, e.g. "claude". */
  label: string;
  /** The provider under test, already pointed at the host's mock server. */
  provider: Provider;
}

/** A failed phase reports its error instead of its data, so the other phases still run. */
export type Outcome<T> = T | { error: string };

export interface ScenarioSummary {
  label: string;
  parallel: Outcome<{ maxConcurrency: number; outputs: string[]; text: string; steps: number; toolCalls: number }>;
  stream: Outcome<{ types: string[]; last: string; text: string; deltasMatchText: boolean; toolArgs: { fromDeltas: unknown; input: unknown }; steps: number }>;
  ask: Outcome<{ value: unknown }>;
  approve: Outcome<{
    status: string;
    pending: { name: string; kind: string; input: unknown }[];
    ranBeforeDecision: boolean;
    tampered: string;
    text: string;
    paid: number[];
  }>;
  abortThenChat: Outcome<{
    error: string;
    cancelledOutput: string | undefined;
    roles: string[];
    text: string;
    historyResumes: boolean;
  }>;
  durable: Outcome<{
    interrupted: boolean;
    first: StreamEvent | undefined;
    results: { isError: boolean; output: string }[];
    text: string;
    status: string;
  }>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The two tools every client gets. Both count how many calls are inside a tool at once;
 * `shout` with `hold: true` calls `onHold` and then waits for the run's abort.
 */
function makeTools(onHold: () => void): { tools: Tool[]; maxConcurrency: () => number } {
  let active = 0;
  let max = 0;
  const tracked = async <T>(work: () => Promise<T>): Promise<T> => {
    active++;
    max = Math.max(max, active);
    try {
      // Long enough that every call the semaphore lets in is inside at the same time.
      await sleep(25);
      return await work();
    } finally {
      active--;
    }
  };
  const add = tool({
    name: "add",
    description: "Adds two numbers.",
    input: v.object({ a: v.number(), b: v.number() }),
    run: ({ a, b }) => tracked(async () => ({ sum: a + b })),
  });
  const shout = tool({
    name: "shout",
    description: "Upper-cases a text.",
    input: v.object({ text: v.string(), hold: v.optional(v.boolean()) }),
    run: ({ text, hold }, ctx) =>
      tracked(async () => {
        if (!hold) return text.toUpperCase();
        onHold();
        await new Promise<never>((_, reject) => {
          if (ctx.signal.aborted) reject(ctx.signal.reason);
          ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true });
        });
        return "unreachable";
      }),
  });
  return { tools: [add, shout], maxConcurrency: () => max };
}

async function phase<T>(fn: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return await fn();
  } catch (err) {
    const e = err as { name?: string; code?: string; message?: string };
    return { error: `${e?.name ?? "Error"}${e?.code ? ` [${e.code}]` : ""}: ${e?.message ?? String(err)}` };
  }
}

export async function runScenario({ label, provider }: ScenarioInput): Promise<ScenarioSummary> {
  const newClient = (onHold: () => void = () => {}) => {
    const t = makeTools(onHold);
    const client = createClient({ provider, tools: t.tools, parallelTools: true, maxParallelTools: 2, maxRetries: 0 });
    return { client, maxConcurrency: t.maxConcurrency };
  };

  // 1. Three calls in one step, at most two at a time, results in call order.
  const parallel = await phase(async () => {
    const { client, maxConcurrency } = newClient();
    const text = await client.chat(prompt("parallel", "Add 2+3, shout hi, add 4+5."));
    const toolMessage = client.history.find((m) => m.role === "tool");
    return {
      maxConcurrency: maxConcurrency(),
      outputs: toolMessage?.role === "tool" ? toolMessage.results.map((r) => r.output) : [],
      text,
      steps: client.lastRun?.steps ?? 0,
      toolCalls: client.lastRun?.toolCalls ?? 0,
    };
  });

  // 2. A streamed run with one tool step: which event types arrive, and finish comes last.
  const stream = await phase(async () => {
    const { client } = newClient();
    const events: StreamEvent[] = [];
    for await (const ev of client.stream(prompt("stream", "Add 1+1 and tell me."))) events.push(ev);
    const types: string[] = [];
    for (const ev of events) if (!types.includes(ev.type)) types.push(ev.type);
    const last = events.at(-1);
    const deltas = events.flatMap((e) => (e.type === "text-delta" ? [e.text] : [])).join("");
    const argDeltas = events.flatMap((e) => (e.type === "tool-call-delta" ? [e.argsDelta] : [])).join("");
    const call = events.find((e) => e.type === "tool-call");
    return {
      types,
      last: last?.type ?? "none",
      text: last?.type === "finish" ? last.text : "",
      deltasMatchText: last?.type === "finish" && deltas === last.text,
      // The streamed argument deltas must add up to the tool call's input.
      toolArgs: { fromDeltas: argDeltas ? (JSON.parse(argDeltas) as unknown) : null, input: call?.type === "tool-call" ? call.input : null },
      steps: last?.type === "finish" ? last.steps : 0,
    };
  });

  // 3. Structured output, typed and validated by a valibot schema.
  const ask = await phase(async () => {
    const { client } = newClient();
    const value = await client.ask(prompt("ask", "Weather in Paris as JSON."), v.object({ city: v.string(), celsius: v.number() }));
    return { value };
  });

  // 4. Suspend for an approval, save the history as JSON, resume it in a new client with a
  //    signed decision (Web Crypto HMAC); a tampered copy is refused.
  const approve = await phase(async () => {
    const paid: number[] = [];
    const pay = tool({
      name: "pay",
      description: "Pays an amount.",
      input: v.object({ amount: v.number() }),
      needsApproval: true,
      run: ({ amount }) => (paid.push(amount), `paid ${amount}`),
    });
    const opts = { provider, tools: [pay], maxRetries: 0, suspension: suspension({ secret: "e2e-secret-e2e-secret-e2e-secret-e2e" }) };
    const first = createClient(opts);
    const r = await first.run(prompt("approve", "Pay 40."));
    const ranBeforeDecision = paid.length > 0;
    const saved = JSON.stringify(first.history);
    const forged = JSON.parse(saved.replace('{\\"amount\\":40}', '{\\"amount\\":4000}')) as Message[];
    let tampered = "accepted";
    try {
      await createClient({ ...opts, history: forged }).resume(r.pending.map((p) => ({ callId: p.callId, approved: true as const })));
    } catch (err) {
      tampered = (err as { code?: string }).code ?? String(err);
    }
    const second = createClient({ ...opts, history: JSON.parse(saved) as Message[] });
    const done = await second.resume(second.pending.map((p) => ({ callId: p.callId, approved: true as const })));
    return {
      status: r.status,
      pending: r.pending.map((p) => ({ name: p.name, kind: p.kind, input: p.input })),
      ranBeforeDecision,
      tampered,
      text: done.text,
      paid,
    };
  });

  // 5. Abort while a tool runs, then chat again on the same client: the history must stay valid.
  const abortThenChat = await phase(async () => {
    const controller = new AbortController();
    const { client } = newClient(() => controller.abort());
    let error = "no error";
    try {
      await client.chat(prompt("abort", "Shout and wait."), { signal: controller.signal });
    } catch (err) {
      error = (err as { name?: string }).name ?? String(err);
    }
    const afterAbort = client.history;
    const toolMessage = afterAbort.find((m) => m.role === "tool");
    const text = await client.chat(prompt("after-abort", "Are you still there?"));
    // A saved history resumes in a new client (it must be plain JSON).
    const saved = JSON.parse(JSON.stringify(client.history)) as Message[];
    const resumed = createClient({ provider, history: saved });
    return {
      error,
      cancelledOutput: toolMessage?.role === "tool" ? toolMessage.results[0]?.output : undefined,
      roles: client.history.map((m) => m.role),
      text,
      historyResumes: resumed.history.length === saved.length,
    };
  });

  // 6. A durable run (a journal over a store, Web Crypto signing): the "process" running it dies
  //    while a tool runs (its store writes stop landing); another opens the record and continues:
  //    the settled call is answered from the record, the interrupted one (not replay-safe) is
  //    reported, and the model is not asked again for the reply it already gave.
  const durable = await phase(async () => {
    const store = memoryStore();
    let dead = false;
    const firstProcess: Store = {
      get: (key) => store.get(key),
      put: (key, value) => (dead ? new Promise<void>(() => {}) : store.put(key, value)),
      delete: (key) => store.delete(key),
    };
    const secret = "e2e-journal-secret-e2e-journal-secret";
    let held!: () => void;
    const holding = new Promise<void>((resolve) => (held = resolve));
    const stop = new AbortController();
    const j1 = await openJournal({ store: firstProcess, key: "e2e", secret });
    const one = makeTools(() => held());
    j1.createClient({ provider, tools: one.tools, parallelTools: true, maxParallelTools: 2, maxRetries: 0 })
      .run(prompt("durable", "Add 2+3, then shout and wait."), { signal: stop.signal })
      .catch(() => {});
    await holding;
    await sleep(50); // add's result is recorded
    dead = true;
    const j2 = await openJournal({ store, key: "e2e", secret });
    const interrupted = j2.interrupted;
    const client = j2.createClient({ provider, tools: makeTools(() => {}).tools, parallelTools: true, maxParallelTools: 2, maxRetries: 0 });
    const events: StreamEvent[] = [];
    for await (const ev of client.stream()) events.push(ev);
    stop.abort(); // the first "process" is gone: its run ends without a trace in the store
    const tool = client.history.find((m) => m.role === "tool");
    const last = events.at(-1);
    return {
      interrupted,
      first: events[0],
      results:
        tool?.role === "tool"
          ? tool.results.map((r) => ({
              isError: r.isError,
              output: r.isError ? String((JSON.parse(r.output) as { error: string }).error).split(":")[0]! : r.output,
            }))
          : [],
      text: last?.type === "finish" ? last.text : "",
      status: j2.status,
    };
  });

  return { label, parallel, stream, ask, approve, abortThenChat, durable };
}
