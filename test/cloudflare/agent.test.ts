// durableAgent's own behaviour in workerd, through a small worker (fixtures/agent-worker.ts) with
// the strict Claude mock behind a gate: bounded recovery with backoff, stop of an interrupted run,
// the event log's retention, and events larger than a SQLite row.
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { durableAgent } from "../../adapters/cloudflare/agent.js";
import { eventLog } from "../../adapters/cloudflare/event-log.js";
import { root } from "../support/runtimes.js";
import { type Example, eventually, expectOrdered, startWorkerWithMocks } from "./example.js";
import type { SseEvent } from "./sse-client.js";

const file = join(root, "test/cloudflare/fixtures/agent-worker.ts");
let ex: Example;

beforeAll(async () => {
  ex = await startWorkerWithMocks({ file, durableObjects: { AGENTS: "Agent" }, bindings: { HEARTBEAT_MS: "300", RETRY_MS: "50", MAX_RECOVERIES: "2" } });
}, 60_000);

beforeEach(() => {
  ex.turns.length = 0;
});

afterAll(async () => {
  await ex?.dispose();
});

async function run(id: string, message: string): Promise<SseEvent[]> {
  const r = await ex.chat(id, message);
  expect(r.status).toBe(200);
  expect(await r.end).toBe("closed");
  expectOrdered(r.events);
  return r.events;
}

describe("durableAgent in workerd", () => {
  it("a run that keeps breaking is continued with backoff up to maxRecoveries, then ends with recovery_limit and a valid history", async () => {
    for (let i = 0; i < 3; i++) {
      ex.gate.cutNext(6);
      ex.turns.push({ text: "An answer that never arrives whole." });
    }
    const events = await run("breaks", "Say something.");
    expect(events.filter((e) => e.event === "recovery").map((e) => e.data.recoveries)).toEqual([1, 2]);
    expect(events.filter((e) => e.event === "error")).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ event: "error", data: { type: "error", code: "recovery_limit" } });
    const s = await ex.state("breaks");
    expect(s).toMatchObject({ status: "failed", error: { code: "recovery_limit" } });

    ex.turns.push({ text: "Now it works." });
    const next = await run("breaks", "Try again?");
    expect(next.at(-1)).toMatchObject({ event: "finish", data: { status: "done", text: "Now it works." } });
    ex.expectValidRequests();
  }, 30_000);

  it("retention keeps the current and the last run: an id from an older run is 410 events_gone, and ids never start over", async () => {
    const runs: SseEvent[][] = [];
    for (const word of ["one", "two", "three"]) {
      ex.turns.push({ text: `Run ${word}.` });
      runs.push(await run("kept", `Say ${word}.`));
    }
    expect(runs[1]![0]!.id).toBe(runs[0]!.at(-1)!.id + 1);
    const gone = await fetch(ex.url(`/chat/kept/events`), { headers: { "last-event-id": String(runs[0]![0]!.id) } });
    expect(gone.status).toBe(410);
    expect(await gone.json()).toMatchObject({ code: "events_gone" });
    const fromEndOfFirst = await ex.follow("kept", runs[0]!.at(-1)!.id);
    expect(await fromEndOfFirst.end).toBe("closed");
    expect(fromEndOfFirst.events).toEqual([...runs[1]!, ...runs[2]!]);
    const last = await ex.follow("kept");
    await last.end;
    expect(last.events).toEqual(runs[2]);
  });

  it("an event larger than a SQLite row (a 3.6 MB tool result) is stored in parts and replayed whole, also after a restart", async () => {
    ex.turns.push({ toolCalls: [{ id: "toolu_big", name: "big", input: { unit: "日本", count: 600_000 } }] }, { text: "That was long." });
    const events = await run("big", "Make something big.");
    const result = events.find((e) => e.event === "tool-result")!;
    expect(result.data.output).toBe("日本".repeat(600_000));
    expect(new TextEncoder().encode(JSON.stringify(result.data)).length).toBeGreaterThan(3_600_000);
    expect(events.at(-1)).toMatchObject({ event: "finish", data: { status: "done" } });
    await ex.runtime.kill();
    await ex.runtime.start();
    const again = await ex.follow("big");
    await again.end;
    expect(again.events).toEqual(events);
    expect((await ex.state("big")).history[2].results[0].output).toBe("日本".repeat(600_000));
    ex.expectValidRequests();
  }, 60_000);
});

describe("durableAgent: stop", () => {
  let slow: Example;
  beforeAll(async () => {
    // An alarm a minute away: after the crash the interrupted run waits, so stop() meets it interrupted.
    slow = await startWorkerWithMocks({ file, durableObjects: { AGENTS: "Agent" }, bindings: { HEARTBEAT_MS: "60000" } });
  }, 60_000);
  afterAll(async () => {
    await slow?.dispose();
  });

  it("stop ends an interrupted run: its unsettled call gets an interrupted result, readers see `stopped`, and the conversation goes on", async () => {
    slow.turns.push({ text: "Waiting.", toolCalls: [{ id: "toolu_wait", name: "wait", input: {} }] });
    const reader = await slow.chat("halt", "Wait for me.");
    await reader.until((e) => e.event === "tool-call");
    await new Promise((r) => setTimeout(r, 300)); // the call's start is recorded
    await slow.runtime.kill();
    expect(await reader.end).toBe("broken");
    await slow.runtime.start();

    const res = await slow.stop("halt");
    expect(res.status).toBe(200);
    const s = (await res.json()) as { status: string; history: any[] };
    expect(s.status, JSON.stringify(s)).toBe("stopped");
    const result = s.history.at(-1).results[0];
    expect(result).toMatchObject({ callId: "toolu_wait", isError: true });
    expect(result.output).toMatch(/interrupted/);
    const rest = await slow.follow("halt", reader.events.at(-1)!.id);
    expect(await rest.end).toBe("closed");
    expect(rest.events).toEqual([expect.objectContaining({ event: "error", data: expect.objectContaining({ code: "stopped" }) })]);
    // The alarm brought forward by the request finds nothing to continue.
    await new Promise((r) => setTimeout(r, 300));
    expect((await slow.state("halt")).status).toBe("stopped");

    slow.turns.push({ text: "Alright, no more waiting." });
    const next = await slow.chat("halt", "Forget it.");
    await next.end;
    expect(next.events.at(-1)).toMatchObject({ event: "finish", data: { status: "done" } });
    await eventually(() => slow.mock.requests.length === 2, "two model requests");
    slow.expectValidRequests();
  }, 30_000);
});

describe("durableAgent and eventLog options", () => {
  const ctx = { id: { toString: () => "id" }, storage: {} } as never;
  const client = () => ({}) as never;
  it("refuse a misspelt option, a missing client and a bad number with what to write", () => {
    expect(() => durableAgent(ctx, { client, secret: "s".repeat(32), hearbeat: 5 } as never)).toThrow(/unknown option `hearbeat`; did you mean `heartbeat`/);
    expect(() => durableAgent(ctx, { secret: "s".repeat(32) } as never)).toThrow(/needs `client`: \(journal\) => /);
    expect(() => durableAgent(ctx, { client, secret: "s".repeat(32), heartbeat: 0 })).toThrow(/heartbeat must be a positive number of ms/);
    expect(() => durableAgent(ctx, { client, secret: "s".repeat(32), retryDelay: "1s" } as never)).toThrow(/retryDelay must be a positive number of ms/);
    expect(() => eventLog({ exec: () => ({ toArray: () => [] }) }, { keepRuns: 0 })).toThrow(/keepRuns must be a whole number of runs from 1 up/);
  });
});
