// Durable runs in examples/cloudflare-worker: workerd is killed (SIGKILL) at each point of a run —
// during a model request, during a tool call (pay), between a tool result and the next request,
// while clients follow the stream — and started again over the same storage. With no request to
// the worker, the alarm continues the run from its last record: settled calls are not run again,
// an interrupted pay is sent again with the same Idempotency-Key (one payment), readers rejoin
// with Last-Event-ID and miss nothing and see nothing twice, and the strict mock found every
// request valid.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { MockTurn } from "../mock/claude.js";
import { type Example, eventually, expectOrdered, startExample, text } from "./example.js";
import type { SseEvent } from "./sse-client.js";

let ex: Example;

beforeAll(async () => {
  ex = await startExample({ heartbeatMs: 300 });
}, 60_000);

beforeEach(() => {
  ex.turns.length = 0;
});

afterAll(async () => {
  await ex?.dispose();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Rejoins the conversation's stream after `lastId` and reads it to its end (the run's finish or error). */
async function rejoin(id: string, lastId: number, how: "header" | "query" = "header"): Promise<SseEvent[]> {
  const r = await ex.follow(id, lastId, how);
  expect(r.status).toBe(200);
  expect(await r.end).toBe("closed");
  return r.events;
}

/** The whole last run as the log keeps it (neither id: from its start). */
async function wholeRun(id: string): Promise<SseEvent[]> {
  const r = await ex.follow(id);
  expect(await r.end).toBe("closed");
  return r.events;
}

/** The mock's requests whose last message is the user's prompt `prompt` (a model call for the run's first step). */
const firstStepRequests = (prompt: string) =>
  ex.mock.requests.filter((r) => {
    const last = r.body.messages.at(-1);
    return last.role === "user" && last.content.some((b: { type: string; text?: string }) => b.type === "text" && b.text === prompt);
  });

/** The content of the tool_result for `callId` in a recorded request. */
const toolResultIn = (body: any, callId: string) =>
  JSON.stringify(
    body.messages
      .flatMap((m: { content: any[] }) => m.content)
      .find((b: { type: string; tool_use_id?: string }) => b.type === "tool_result" && b.tool_use_id === callId)?.content,
  );

const timeTurn = (id: string): MockTurn => ({
  text: "Let me look at the clock for you.",
  toolCalls: [{ id, name: "current_time", input: { timeZone: "UTC" } }],
});
const payTurn = (id: string): MockTurn => ({
  text: "I will pay Ada 25 EUR once you approve.",
  toolCalls: [{ id, name: "pay", input: { amount: 25, currency: "EUR", to: "Ada" } }],
});

describe("a run survives a crash of the runtime", () => {
  it("killed during a model request: after the restart the run asks again with the same conversation and completes by itself", async () => {
    ex.turns.push(timeTurn("toolu_time_a"));
    const held = ex.gate.holdNext(5); // message_start, ping, the text block's start, two deltas
    const reader = await ex.chat("crash-a", "What time is it?");
    await reader.until((e) => e.event === "text-delta");
    const asked = ex.mock.requests.length;
    await ex.runtime.kill();
    expect(await reader.end).toBe("broken");
    held.release();
    const seen = reader.events;

    ex.turns.push(timeTurn("toolu_time_a2"), { text: "It is a fine time of day." });
    await ex.runtime.start();
    // No request to the worker: its alarm continues the run.
    await eventually(() => ex.mock.requests.length === asked + 2, "the run to go on by itself after the restart");
    const rest = await rejoin("crash-a", seen.at(-1)!.id);
    const all = [...seen, ...rest];
    expectOrdered(all);
    expect(await wholeRun("crash-a")).toEqual(all);
    // The cut reply was not recorded: the step is asked again (restart: true), from the same conversation.
    // (The reader may not have got every event logged before the kill: the rejoin starts with those.)
    expect(rest.filter((e) => e.event === "recovery")).toMatchObject([{ data: { restart: true, recoveries: 1 } }]);
    expect(ex.mock.requests[asked]!.body).toEqual(ex.mock.requests[asked - 1]!.body);
    expect(all.at(-1)).toMatchObject({ event: "finish", data: { status: "done", text: "It is a fine time of day.", steps: 2, toolCalls: 1 } });
    expect(text(rest.slice(rest.findIndex((e) => e.event === "recovery")))).toBe("Let me look at the clock for you.It is a fine time of day.");
    expect(await ex.state("crash-a")).toMatchObject({ status: "done", pending: [] });
    ex.expectValidRequests();
  }, 30_000);

  it("killed during pay: the call runs again with the same Idempotency-Key and the payments API makes one payment", async () => {
    ex.turns.push(payTurn("toolu_pay_b"));
    const asked = await ex.chat("crash-b", "Pay 25 EUR to Ada.");
    expect(await asked.end).toBe("closed");
    expect(asked.events.at(-1)).toMatchObject({ event: "finish", data: { status: "suspended" } });
    const lastBefore = asked.events.at(-1)!.id;

    const taken = ex.payments.holdNext();
    const approving = ex.decide("crash-b", [{ callId: "toolu_pay_b", approved: true }]).catch((err: unknown) => err);
    const first = await taken; // the payment is made; its answer never comes
    await ex.runtime.kill();
    expect(await approving).toBeInstanceOf(Error); // the request died with the runtime

    ex.turns.push({ text: "Paid 25 EUR to Ada." });
    const calls = ex.mock.requests.length;
    await ex.runtime.start();
    await eventually(() => ex.mock.requests.length === calls + 1, "the run to go on by itself and report the payment to the model");
    const events = await rejoin("crash-b", lastBefore);
    expectOrdered(events);
    expect(events.filter((e) => e.event === "recovery")).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ event: "finish", data: { status: "done", text: "Paid 25 EUR to Ada." } });

    const mine = ex.payments.requests.filter((r) => r.key === first.key);
    expect(mine).toHaveLength(2); // the interrupted call, and its retry with the same key
    expect(mine[1]).toMatchObject({ status: 200, body: { amount: 25, currency: "EUR", to: "Ada" } });
    const payment = ex.payments.payments.get(first.key!)!;
    expect([...ex.payments.payments.values()].filter((p) => p.id === payment.id)).toHaveLength(1);
    const result = events.find((e) => e.event === "tool-result")!;
    expect(JSON.parse(result.data.output)).toMatchObject({ paid: true, id: payment.id });
    expect(toolResultIn(ex.mock.requests.at(-1)!.body, "toolu_pay_b")).toContain(payment.id);
    expect((await ex.state("crash-b")).payments).toEqual([{ id: payment.id, amount: 25, currency: "EUR", to: "Ada", at: expect.any(String) }]);
    ex.expectValidRequests();
  }, 30_000);

  it("killed between a tool result and the next model request: the settled call is not run again and its reply is not asked for again", async () => {
    const prompt = "What time is it now, exactly?";
    ex.turns.push(timeTurn("toolu_time_c"), { text: "Noted, thank you." });
    const held = ex.gate.holdNext(0, 1); // the first answer passes; the second is held before its first byte
    const reader = await ex.chat("crash-c", prompt);
    const result = await reader.until((e) => e.event === "tool-result");
    await ex.runtime.kill();
    held.release();
    expect(await reader.end).toBe("broken");
    // A clock read again after the restart would say another second.
    await sleep(1100);
    if (ex.turns.length === 0) ex.turns.push({ text: "Noted, thank you." }); // the held request had used it
    const calls = ex.mock.requests.length;
    await ex.runtime.start();
    await eventually(() => ex.turns.length === 0 && ex.mock.requests.length > calls, "the run to go on by itself");
    const rest = await rejoin("crash-c", reader.events.at(-1)!.id);
    const all = [...reader.events, ...rest];
    expectOrdered(all);
    expect(await wholeRun("crash-c")).toEqual(all);
    // One recovery: restart false if the kill came before the step's end was recorded (the step is
    // carried out again from the record), true after it (the next reply is asked for); either way the
    // settled call's result is neither run again nor sent twice.
    expect(rest.filter((e) => e.event === "recovery")).toHaveLength(1);
    expect(rest.filter((e) => e.event === "tool-result")).toEqual([]);
    expect(all.at(-1)).toMatchObject({ event: "finish", data: { status: "done", text: "Noted, thank you.", steps: 2, toolCalls: 1 } });
    expect(firstStepRequests(prompt)).toHaveLength(1);
    expect(toolResultIn(ex.mock.requests.at(-1)!.body, "toolu_time_c")).toContain(JSON.stringify(result.data.output).slice(1, -1));
    ex.expectValidRequests();
  }, 30_000);

  it("killed after pay settled: the payment is not made again, and the run completes", async () => {
    ex.turns.push(payTurn("toolu_pay_d"));
    const asked = await ex.chat("crash-d", "Pay 25 EUR to Ada, please.");
    await asked.end;
    ex.turns.push({ text: "Done, paid." });
    const held = ex.gate.holdNext(0);
    const before = ex.payments.requests.length;
    const r = await ex.decide("crash-d", [{ callId: "toolu_pay_d", approved: true }]);
    await r.until((e) => e.event === "tool-result");
    await held.sent; // the next model request went out after the result was recorded
    await ex.runtime.kill();
    held.release();
    ex.turns.push({ text: "Done, paid." });
    await ex.runtime.start();
    await eventually(() => ex.turns.length === 0, "the run to go on by itself");
    const rest = await rejoin("crash-d", r.events.at(-1)!.id);
    expect(rest.at(-1)).toMatchObject({ event: "finish", data: { status: "done", text: "Done, paid." } });
    expect(ex.payments.requests.length).toBe(before + 1);
    expect((await ex.state("crash-d")).payments).toHaveLength(1);
    ex.expectValidRequests();
  }, 30_000);

  it("killed while two clients follow the stream: each rejoins with its last id and gets the rest, nothing missed, nothing twice", async () => {
    const story = "Once upon a time, a durable run kept every event it emitted, and no reader lost a word of it. ".repeat(4);
    ex.turns.push({ text: story });
    const held = ex.gate.holdNext(30);
    const poster = await ex.chat("crash-e", "Tell me a story.");
    const follower = await ex.follow("crash-e");
    await held.sent;
    await poster.until(() => poster.events.filter((e) => e.event === "text-delta").length >= 20);
    await follower.until(() => follower.events.filter((e) => e.event === "text-delta").length >= 20);
    await ex.runtime.kill();
    held.release();
    expect(await poster.end).toBe("broken");
    expect(await follower.end).toBe("broken");
    const lastBeforeCrash = Math.max(poster.events.at(-1)!.id, follower.events.at(-1)!.id);

    ex.turns.push({ text: story });
    await ex.runtime.start();
    const a = [...follower.events, ...(await rejoin("crash-e", follower.events.at(-1)!.id, "header"))];
    const b = [...poster.events, ...(await rejoin("crash-e", poster.events.at(-1)!.id, "query"))];
    const whole = await wholeRun("crash-e");
    expectOrdered(whole);
    expect(a).toEqual(whole);
    expect(b).toEqual(whole);
    // Ids go on after the crash: none given before it is given again.
    const recovery = whole.findIndex((e) => e.event === "recovery");
    expect(whole[recovery]!.id).toBeGreaterThan(lastBeforeCrash);
    expect(whole[recovery]!.data).toMatchObject({ restart: true });
    expect(text(whole.slice(recovery))).toBe(story);
    expect(whole.at(-1)).toMatchObject({ event: "finish", data: { status: "done", text: story } });
    ex.expectValidRequests();
  }, 30_000);

  it("killed twice in one run (during pay, then during the next model request): one payment, ids never reused, the run completes", async () => {
    ex.turns.push(payTurn("toolu_pay_g"));
    const asked = await ex.chat("crash-g", "Pay 25 EUR to Ada, twice as carefully.");
    await asked.end;
    const lastBefore = asked.events.at(-1)!.id;
    const taken = ex.payments.holdNext();
    void ex.decide("crash-g", [{ callId: "toolu_pay_g", approved: true }]).catch(() => {});
    const first = await taken;
    await ex.runtime.kill();

    ex.turns.push({ text: "Paid, I think." });
    const held = ex.gate.holdNext(4);
    await ex.runtime.start();
    await held.sent; // the continued run paid (same key) and asks the model again: the second crash
    const reader = await ex.follow("crash-g", lastBefore);
    await reader.until((e) => e.event === "text-delta");
    await ex.runtime.kill();
    held.release();
    expect(await reader.end).toBe("broken");

    ex.turns.push({ text: "Paid 25 EUR to Ada." });
    await ex.runtime.start();
    await eventually(() => ex.turns.length === 0, "the run to go on by itself again");
    const all = [...reader.events, ...(await rejoin("crash-g", reader.events.at(-1)!.id))];
    expectOrdered(all);
    expect(await rejoin("crash-g", lastBefore)).toEqual(all);
    expect(all.filter((e) => e.event === "recovery").map((e) => e.data.recoveries)).toEqual([1, 1]);
    expect(all.at(-1)).toMatchObject({ event: "finish", data: { status: "done", text: "Paid 25 EUR to Ada." } });
    expect(ex.payments.requests.filter((r) => r.key === first.key)).toHaveLength(2);
    expect((await ex.state("crash-g")).payments).toEqual([expect.objectContaining({ id: ex.payments.payments.get(first.key!)!.id })]);
    ex.expectValidRequests();
  }, 30_000);

  it("a stream that breaks after content is continued by the alarm after a backoff, with no terminal event in between", async () => {
    ex.gate.cutNext(6);
    ex.turns.push({ text: "This answer breaks off in the middle." }, { text: "This answer arrives whole." });
    const reader = await ex.chat("crash-f", "Say something.");
    expect(await reader.end).toBe("closed");
    const events = reader.events;
    expectOrdered(events);
    expect(events.filter((e) => e.event === "error")).toEqual([]);
    expect(events.find((e) => e.event === "recovery")).toMatchObject({ data: { restart: true, recoveries: 1 } });
    expect(events.at(-1)).toMatchObject({ event: "finish", data: { status: "done", text: "This answer arrives whole." } });
    ex.expectValidRequests();
  }, 30_000);
});
