// examples/cloudflare-worker's HTTP contract (issue 26), in workerd with its SQLite-backed Durable
// Object, against the strict Claude mock and a payments mock that dedups by Idempotency-Key.
// What happens when the runtime dies mid-run is test/cloudflare/crash.test.ts.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Example, eventually, expectOrdered, startExample, text } from "../cloudflare/example.js";
import type { MockTurn } from "../mock/claude.js";

let ex: Example;

beforeAll(async () => {
  ex = await startExample();
}, 60_000);

// A failed test must not leave its unused turns to the next one.
beforeEach(() => {
  ex.turns.length = 0;
});

afterAll(async () => {
  await ex?.dispose();
});

/** The run's final event, which must be `finish` (the stream is shown if not). */
function finish(events: { event: string; data: any }[]) {
  const last = events.at(-1);
  expect(last?.event, JSON.stringify(events.filter((e) => e.event !== "text-delta"))).toBe("finish");
  return last!.data;
}

/** A whole run: POST /chat/:id, read to the end. */
async function chat(id: string, message: string) {
  const r = await ex.chat(id, message);
  expect(r.status).toBe(200);
  expect(await r.end).toBe("closed");
  return r.events;
}

/** The text of each message of a recorded Anthropic request, for comparing conversations. */
function transcript(body: { messages: { role: string; content: { type: string; text?: string; name?: string }[] }[] }): string[] {
  return body.messages.flatMap((m) => m.content.map((b) => `${m.role}:${b.type === "text" ? b.text : b.type === "tool_use" ? `tool_use ${b.name}` : b.type}`));
}

const payTurn = (id: string): MockTurn => ({
  text: "I will pay Ada 40 EUR once you approve.",
  toolCalls: [{ id, name: "pay", input: { amount: 40, currency: "EUR", to: "Ada" } }],
});

describe("Cloudflare Worker example: runs and their events", () => {
  it("streams a run as SSE: every event has an integer id (strictly increasing), its type as `event:`, itself as `data:`", async () => {
    ex.turns.push(
      { text: "Let me look at the clock.", toolCalls: [{ name: "current_time", input: { timeZone: "UTC" } }] },
      { text: "Nice to meet you, Ada. Noted the time." },
    );
    const events = await chat("ada", "Hi, I am Ada. What time is it in UTC?");
    expectOrdered(events);
    for (const e of events) expect(e.data.type).toBe(e.event);
    expect(events.find((e) => e.event === "tool-call")!.data).toMatchObject({ name: "current_time", input: { timeZone: "UTC" } });
    const result = events.find((e) => e.event === "tool-result")!;
    expect(result.data).toMatchObject({ name: "current_time", isError: false });
    expect(result.data.output).toMatch(/\b20\d\d\b.*UTC/); // a real date from the tool
    expect(text(events)).toBe("Let me look at the clock.Nice to meet you, Ada. Noted the time.");
    expect(finish(events)).toMatchObject({ status: "done", text: "Nice to meet you, Ada. Noted the time.", steps: 2, toolCalls: 1 });
    ex.expectValidRequests();
  });

  it("the next request carries the history; GET /chat/:id has { status, pending, payments, history }", async () => {
    ex.turns.push({ text: "Your name is Ada." });
    const before = ex.mock.requests.length;
    const events = await chat("ada", "What is my name?");
    expect(finish(events).text).toBe("Your name is Ada.");
    expect(ex.mock.requests.length).toBe(before + 1);
    expect(transcript(ex.mock.requests.at(-1)!.body)).toEqual([
      "user:Hi, I am Ada. What time is it in UTC?",
      "assistant:Let me look at the clock.",
      "assistant:tool_use current_time",
      "user:tool_result",
      "assistant:Nice to meet you, Ada. Noted the time.",
      "user:What is my name?",
    ]);
    const s = await ex.state("ada");
    expect(Object.keys(s).sort()).toEqual(["history", "payments", "pending", "status"]);
    expect(s).toMatchObject({ status: "done", pending: [], payments: [] });
    expect(s.history.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "user", "assistant"]);
  });

  it("another conversation id starts fresh, with ids of its own", async () => {
    ex.turns.push({ text: "Hello! I do not know your name yet." });
    const events = await chat("bob", "What is my name?");
    expect(finish(events).text).toBe("Hello! I do not know your name yet.");
    expect(events[0]!.id).toBe(1);
    expect(transcript(ex.mock.requests.at(-1)!.body)).toEqual(["user:What is my name?"]);
  });

  it("GET /chat/:id/events replays the last run (neither id: from its start; Last-Event-ID or ?after=n: after n) and closes after finish", async () => {
    ex.turns.push({ text: "One more answer, in a few words." });
    const run = await chat("ada", "Say something.");
    const whole = await ex.follow("ada");
    expect(await whole.end).toBe("closed");
    expect(whole.events).toEqual(run);
    const cut = run[2]!.id;
    for (const how of ["header", "query"] as const) {
      const rest = await ex.follow("ada", cut, how);
      expect(await rest.end).toBe("closed");
      expect(rest.events).toEqual(run.filter((e) => e.id > cut));
    }
    const none = await ex.follow("ada", run.at(-1)!.id);
    expect(await none.end).toBe("closed");
    expect(none.events).toEqual([]);
    // Ids go on from run to run: this run's are above the first two runs'.
    expect(run[0]!.id).toBeGreaterThan(1);
  });

  it("a provider failure is an `error` event that ends the stream; the conversation stays usable", async () => {
    // No turn queued: the mock answers 500 with x-should-retry: false.
    const events = await chat("carol", "Hello?");
    expect(events.at(-1)).toMatchObject({ event: "error", data: { type: "error", code: "provider_error" } });
    expect((await ex.state("carol")).status).toBe("failed");
    ex.turns.push({ text: "Sorry about that. Hello!" });
    expect(finish(await chat("carol", "Hello again?")).text).toBe("Sorry about that. Hello!");
    expect(transcript(ex.mock.requests.at(-1)!.body)).toEqual(["user:Hello?", "user:Hello again?"]);
  });

  it("409 while a run is in progress; a reader that goes away does not stop it; POST /stop does, and the history stays valid", async () => {
    ex.turns.push({ text: "A long answer that is still being written when the stop comes." });
    const held = ex.gate.holdNext(4);
    const first = await ex.chat("dave", "Tell me a story.");
    await first.until((e) => e.event === "text-delta");
    first.close(); // the reader goes away
    await held.sent;
    const busy = await fetch(ex.url("/chat/dave"), { method: "POST", body: JSON.stringify({ message: "And another?" }) });
    expect(busy.status).toBe(409);
    expect((await ex.decide("dave", [{ callId: "x", approved: true }])).status).toBe(409);
    expect((await ex.state("dave")).status).toBe("running");
    const follower = await ex.follow("dave");
    const res = await ex.stop("dave");
    expect(res.status).toBe(200);
    const s = (await res.json()) as { status: string; history: any[] };
    expect(s.status).toBe("stopped");
    expect(await follower.end).toBe("closed");
    expect(follower.events.at(-1)).toMatchObject({ event: "error", data: { code: "stopped" } });
    held.release();
    ex.turns.push({ text: "Fine, another time." });
    expect(finish(await chat("dave", "Never mind."))).toMatchObject({ status: "done", text: "Fine, another time." });
    ex.expectValidRequests();
  });

  it("a reader that goes away mid-run does not stop it: the run completes, and a rejoin with Last-Event-ID gets the rest", async () => {
    ex.turns.push({ text: "An answer that goes on while nobody reads it." });
    const held = ex.gate.holdNext(4);
    const reader = await ex.chat("gail", "Keep talking.");
    await reader.until((e) => e.event === "text-delta");
    reader.close();
    held.release();
    await eventually(() => ex.turns.length === 0, "the model to be asked");
    const rest = await ex.follow("gail", reader.events.at(-1)!.id);
    expect(await rest.end).toBe("closed");
    const all = [...reader.events, ...rest.events];
    expectOrdered(all);
    expect(text(all)).toBe("An answer that goes on while nobody reads it.");
    expect(finish(all)).toMatchObject({ status: "done" });
    expect((await ex.state("gail")).status).toBe("done");
  });

  it("refuses a bad body, a bad event id, an unknown path and a wrong method", async () => {
    expect((await fetch(ex.url("/chat/ada"), { method: "POST", body: "{}" })).status).toBe(400);
    expect((await fetch(ex.url("/chat/ada/events?after=-1"))).status).toBe(400);
    expect((await fetch(ex.url("/chat/ada/events"), { headers: { "last-event-id": "seven" } })).status).toBe(400);
    expect((await fetch(ex.url("/elsewhere"))).status).toBe(404);
    expect((await fetch(ex.url("/chat/ada/stop"))).status).toBe(405);
    expect((await fetch(ex.url("/chat/ada"), { method: "DELETE" })).status).toBe(405);
  });
});

describe("Cloudflare Worker example: pay, with approval", () => {
  it("a payment suspends the run; GET shows the pending call; nothing is paid", async () => {
    ex.turns.push(payTurn("toolu_pay_dora"));
    const events = await chat("dora", "Pay 40 EUR to Ada for the concert tickets.");
    expect(events.map((e) => e.event).slice(-2)).toEqual(["suspended", "finish"]);
    const { pending } = events.at(-2)!.data;
    expect(pending).toEqual([
      { callId: "toolu_pay_dora", name: "pay", kind: "approval", input: { amount: 40, currency: "EUR", to: "Ada" }, arguments: expect.any(String) },
    ]);
    const s = await ex.state("dora");
    expect(s).toMatchObject({ status: "suspended", pending, payments: [] });
    expect(ex.payments.requests).toEqual([]);
  });

  it("approving runs pay once: it POSTs to PAYMENTS_URL with the call's Idempotency-Key, and the payment is listed", async () => {
    ex.turns.push({ text: "Paid 40 EUR to Ada." });
    const r = await ex.decide("dora", [{ callId: "toolu_pay_dora", approved: true }]);
    expect(r.status).toBe(200);
    expect(await r.end).toBe("closed");
    const result = r.events.find((e) => e.event === "tool-result")!;
    expect(result.data).toMatchObject({ callId: "toolu_pay_dora", name: "pay", isError: false });
    const paid = JSON.parse(result.data.output);
    expect(ex.payments.requests).toHaveLength(1);
    const [request] = ex.payments.requests;
    expect(request).toMatchObject({ status: 200, body: { amount: 40, currency: "EUR", to: "Ada" }, key: expect.stringMatching(/^tl_[0-9a-f]{40}$/) });
    const made = ex.payments.payments.get(request!.key!)!;
    expect(paid).toMatchObject({ paid: true, id: made.id, amount: 40, currency: "EUR", to: "Ada" });
    expect(finish(r.events)).toMatchObject({ status: "done", text: "Paid 40 EUR to Ada." });
    const s = await ex.state("dora");
    expect(s.payments).toEqual([{ id: made.id, amount: 40, currency: "EUR", to: "Ada", at: expect.any(String) }]);
    expect(s).toMatchObject({ status: "done", pending: [] });

    // The same decision again: refused before anything runs, and nothing is paid twice.
    const again = await ex.decide("dora", [{ callId: "toolu_pay_dora", approved: true }]);
    expect(again.status).toBe(400);
    expect(again.error).toMatchObject({ code: "invalid_decision", callId: "toolu_pay_dora" });
    expect(ex.payments.requests).toHaveLength(1);
    ex.expectValidRequests();
  });

  it("denying with a reason tells the model why and pays nothing", async () => {
    ex.turns.push(payTurn("toolu_pay_erin"), { text: "Understood, I did not pay." });
    finish(await chat("erin", "Pay 40 EUR to Ada."));
    const r = await ex.decide("erin", [{ callId: "toolu_pay_erin", approved: false, reason: "I already paid her in cash" }]);
    expect(await r.end).toBe("closed");
    expect(r.events.find((e) => e.event === "tool-result")!.data).toMatchObject({ isError: true, output: '{"error":"denied: I already paid her in cash"}' });
    expect(finish(r.events)).toMatchObject({ status: "done", text: "Understood, I did not pay." });
    expect((await ex.state("erin")).payments).toEqual([]);
  });

  it("refuses bad decisions with 400 invalid_decision and changes nothing", async () => {
    ex.turns.push(payTurn("toolu_pay_finn"));
    finish(await chat("finn", "Pay 40 EUR to Ada."));
    const before = await ex.state("finn");
    const requests = ex.mock.requests.length;
    for (const decisions of [
      [{ callId: "toolu_unknown", approved: true }],
      [{ callId: "toolu_pay_finn", answer: "yes" }],
      [{ callId: "toolu_pay_finn", approved: true, input: { amount: -5, currency: "EUR", to: "Ada" } }],
    ]) {
      const r = await ex.decide("finn", decisions);
      expect(r.status, JSON.stringify(decisions)).toBe(400);
      expect(r.error).toMatchObject({ code: "invalid_decision" });
    }
    for (const body of ['{"approve": true}', '{"decisions": []}']) {
      expect((await fetch(ex.url("/chat/finn/decisions"), { method: "POST", body })).status, body).toBe(400);
    }
    expect(ex.mock.requests.length).toBe(requests);
    expect(await ex.state("finn")).toEqual(before);
    expect(ex.payments.requests.filter((r) => JSON.stringify(r.body).includes("finn"))).toEqual([]);
  });

  it("a new message instead of a decision cancels what waits", async () => {
    ex.turns.push(payTurn("toolu_pay_ivan"), { text: "OK, forget the payment." });
    finish(await chat("ivan", "Pay 40 EUR to Ada."));
    expect(finish(await chat("ivan", "Actually, never mind."))).toMatchObject({ status: "done" });
    const blocks = ex.mock.requests.at(-1)!.body.messages.flatMap((m: { content: any[] }) => m.content);
    const sent = blocks.find((b: { type: string; tool_use_id?: string }) => b.type === "tool_result" && b.tool_use_id === "toolu_pay_ivan");
    expect(JSON.stringify(sent.content)).toContain("cancelled: no decision");
    expect(await ex.state("ivan")).toMatchObject({ pending: [], payments: [] });
    ex.expectValidRequests();
  });
});
