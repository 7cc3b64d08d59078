// examples/cloudflare-worker: the worker bundled as wrangler would, served by workerd
// (Miniflare) with its Durable Object binding, talking to a local Claude mock.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type ClaudeMock, type MockTurn, startClaudeMock } from "../mock/claude.js";
import { bundle, root, startWorker } from "../support/runtimes.js";
import { parseSSE } from "./helpers.js";

let mock: ClaudeMock;
/** The model's next turns; each test queues its own. An empty queue makes the mock answer 500. */
const turns: MockTurn[] = [];
let worker: Awaited<ReturnType<typeof startWorker>>;

/** The parts of wrangler.toml the test must agree with (a few lines of TOML, read by pattern). */
function wranglerConfig() {
  const toml = readFileSync(join(root, "examples/cloudflare-worker/wrangler.toml"), "utf8");
  const value = (key: string, text = toml) => new RegExp(`^${key}\\s*=\\s*"([^"]+)"`, "m").exec(text)?.[1];
  const flags = /^compatibility_flags\s*=\s*\[([^\]]*)\]/m.exec(toml)?.[1] ?? "";
  return {
    main: value("main"),
    compatibilityDate: value("compatibility_date"),
    compatibilityFlags: [...flags.matchAll(/"([^"]+)"/g)].map((m) => m[1]!),
    binding: value("name", toml.slice(toml.indexOf("[[durable_objects.bindings]]"))),
    className: value("class_name"),
    migratedClasses: /^new_sqlite_classes\s*=\s*\[\s*"([^"]+)"\s*\]/m.exec(toml)?.[1],
  };
}

beforeAll(async () => {
  const config = wranglerConfig();
  expect(config).toMatchObject({ main: "src/worker.ts", binding: "CONVERSATIONS", className: "Conversation", migratedClasses: "Conversation" });
  expect(config.compatibilityFlags).not.toContain("nodejs_compat");
  mock = await startClaudeMock({ apiKey: "sk-ant-test", script: () => turns.shift() as MockTurn });
  const script = await bundle(`examples/cloudflare-worker/${config.main}`, { platform: "neutral", external: ["cloudflare:workers"] });
  worker = await startWorker(script, {
    compatibilityDate: config.compatibilityDate,
    compatibilityFlags: config.compatibilityFlags,
    durableObjects: { [config.binding!]: config.className! },
    bindings: {
      ANTHROPIC_API_KEY: "sk-ant-test",
      PROVIDER_BASE_URL: mock.url,
      MODEL: "claude-test-model",
      DECISION_SECRET: "test-decision-secret-of-32-characters",
    },
  });
}, 60_000);

// A failed test must not leave its unused turns to the next one.
beforeEach(() => {
  turns.length = 0;
});

afterAll(async () => {
  await worker?.dispose();
  await mock?.close();
});

async function chat(conversation: string, message: string) {
  const res = await fetch(new URL(`/chat/${conversation}`, worker.url), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
  return parseSSE(await res.text());
}

/** The run's final event, which must be `finish` (the whole stream is shown if not). */
function finish(events: { event: string; data: any }[]) {
  const last = events.at(-1);
  expect(last?.event, JSON.stringify(events.filter((e) => e.event !== "text-delta"))).toBe("finish");
  return last!.data;
}

/** The text of each message of a recorded Anthropic request, for comparing conversations. */
function transcript(body: { messages: { role: string; content: { type: string; text?: string; name?: string }[] }[] }): string[] {
  return body.messages.flatMap((m) => m.content.map((b) => `${m.role}:${b.type === "text" ? b.text : b.type === "tool_use" ? `tool_use ${b.name}` : b.type}`));
}

describe("Cloudflare Worker example in workerd", () => {
  it("streams a run as server-sent events, tool call included", async () => {
    turns.push(
      { text: "Let me look at the clock.", toolCalls: [{ name: "current_time", input: { timeZone: "UTC" } }] },
      { text: "Nice to meet you, Ada. Noted the time." },
    );
    const events = await chat("ada", "Hi, I am Ada. What time is it in UTC?");
    const done = finish(events);
    const types = events.map((e) => e.event);
    expect(types).toContain("text-delta");
    expect(types).not.toContain("error");
    const call = events.find((e) => e.event === "tool-call")!;
    expect(call.data).toMatchObject({ name: "current_time", input: { timeZone: "UTC" } });
    const result = events.find((e) => e.event === "tool-result")!;
    expect(result.data.isError).toBe(false);
    expect(result.data.output).toMatch(/\b20\d\d\b.*UTC/); // a real date from the tool, in UTC
    expect(
      events
        .filter((e) => e.event === "text-delta")
        .map((e) => e.data.text)
        .join(""),
    ).toContain("Nice to meet you, Ada.");
    expect(done).toMatchObject({ text: "Nice to meet you, Ada. Noted the time.", steps: 2, toolCalls: 1 });
  });

  it("a second request to the same conversation carries the first one's history", async () => {
    turns.push({ text: "Your name is Ada." });
    const before = mock.requests.length;
    const events = await chat("ada", "What is my name?");
    expect(finish(events).text).toBe("Your name is Ada.");
    expect(mock.requests.length).toBe(before + 1);
    expect(transcript(mock.requests.at(-1)!.body)).toEqual([
      "user:Hi, I am Ada. What time is it in UTC?",
      "assistant:Let me look at the clock.",
      "assistant:tool_use current_time",
      "user:tool_result",
      "assistant:Nice to meet you, Ada. Noted the time.",
      "user:What is my name?",
    ]);
    // and the Durable Object's storage holds the whole conversation in the neutral format
    const { history, pending } = (await (await fetch(new URL("/chat/ada", worker.url))).json()) as { history: { role: string }[]; pending: unknown[] };
    expect(pending).toEqual([]);
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "user", "assistant"]);
  });

  it("another conversation id starts fresh", async () => {
    turns.push({ text: "Hello! I do not know your name yet." });
    const events = await chat("bob", "What is my name?");
    expect(finish(events).text).toBe("Hello! I do not know your name yet.");
    expect(transcript(mock.requests.at(-1)!.body)).toEqual(["user:What is my name?"]);
  });

  it("a provider failure arrives as an error event and leaves the conversation usable", async () => {
    // No turn queued: the mock answers 500 (with x-should-retry: false).
    const events = await chat("carol", "Hello?");
    expect(events.at(-1)!.event).toBe("error");
    expect(events.at(-1)!.data.code).toBe("provider_error");
    turns.push({ text: "Sorry about that. Hello!" });
    const retry = await chat("carol", "Hello again?");
    expect(finish(retry).text).toBe("Sorry about that. Hello!");
    expect(transcript(mock.requests.at(-1)!.body)).toEqual(["user:Hello?", "user:Hello again?"]);
  });

  it("rejects a request without a message and unknown paths", async () => {
    const bad = await fetch(new URL("/chat/ada", worker.url), { method: "POST", body: "{}" });
    expect(bad.status).toBe(400);
    expect((await fetch(new URL("/elsewhere", worker.url))).status).toBe(404);
  });
});

/** POST /chat/:id/decisions; the raw response (a stream, or a 400 for a refused batch). */
function decide(conversation: string, decisions: unknown[]) {
  return fetch(new URL(`/chat/${conversation}/decisions`, worker.url), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ decisions }),
  });
}

/** GET /chat/:id: what waits, what was paid, the stored history. */
async function state(conversation: string): Promise<{ pending: any[]; payments: any[]; history: any[] }> {
  const res = await fetch(new URL(`/chat/${conversation}`, worker.url));
  expect(res.status).toBe(200);
  return (await res.json()) as never;
}

/** The tool_result blocks of the newest user turn of a recorded Anthropic request. */
function lastToolResults(body: { messages: { role: string; content: { type: string }[] }[] }): any[] {
  return body.messages.at(-1)!.content.filter((b) => b.type === "tool_result");
}

const payTurn = (id: string): MockTurn => ({
  text: "I will pay Ada 40 EUR once you approve.",
  toolCalls: [{ id, name: "pay", input: { amount: 40, currency: "EUR", to: "Ada" } }],
});

describe("Cloudflare Worker example: approval flow", () => {
  it("a payment suspends the run: the stream ends with suspended, GET shows the pending call, nothing is paid", async () => {
    turns.push(payTurn("toolu_pay_dora"));
    const before = mock.requests.length;
    const events = await chat("dora", "Pay 40 EUR to Ada for the concert tickets.");
    expect(events.map((e) => e.event).slice(-2)).toEqual(["suspended", "finish"]);
    const suspended = events.at(-2)!.data;
    expect(suspended.pending).toEqual([
      { callId: "toolu_pay_dora", name: "pay", kind: "approval", input: { amount: 40, currency: "EUR", to: "Ada" }, arguments: expect.any(String) },
    ]);
    expect(events.at(-1)!.data).toMatchObject({ status: "suspended", pending: suspended.pending });
    expect(events.find((e) => e.event === "tool-result")).toBeUndefined();
    expect(mock.requests.length).toBe(before + 1);

    // Another request, later: the Durable Object still holds the waiting call.
    const s = await state("dora");
    expect(s.pending).toEqual(suspended.pending);
    expect(s.payments).toEqual([]);
    expect(s.history.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(s.history[2].results[0].pending).toMatchObject({ kind: "approval", signature: expect.any(String) });
  });

  it("approving runs the tool once and streams the rest of the run; the model gets the tool's result", async () => {
    turns.push({ text: "Paid 40 EUR to Ada." });
    const before = mock.requests.length;
    const res = await decide("dora", [{ callId: "toolu_pay_dora", approved: true }]);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = parseSSE(await res.text());
    const result = events.find((e) => e.event === "tool-result")!;
    expect(result.data).toMatchObject({ callId: "toolu_pay_dora", name: "pay", isError: false });
    expect(JSON.parse(result.data.output)).toMatchObject({ paid: true, amount: 40, currency: "EUR", to: "Ada" });
    expect(finish(events)).toMatchObject({ status: "done", pending: [], text: "Paid 40 EUR to Ada." });

    expect(mock.requests.length).toBe(before + 1);
    const [sent] = lastToolResults(mock.requests.at(-1)!.body);
    expect(sent).toMatchObject({ tool_use_id: "toolu_pay_dora" });
    expect(sent.is_error).not.toBe(true);
    expect(JSON.stringify(sent.content)).toContain('\\"paid\\":true');

    const s = await state("dora");
    expect(s.pending).toEqual([]);
    expect(s.payments).toEqual([{ amount: 40, currency: "EUR", to: "Ada", reference: expect.stringMatching(/^pay_/) }]);
    expect(s.history.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);

    // The same decision again: the call no longer waits, so it is refused and nothing is paid twice.
    const again = await decide("dora", [{ callId: "toolu_pay_dora", approved: true }]);
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ code: "invalid_decision", callId: "toolu_pay_dora" });
    expect((await state("dora")).payments).toHaveLength(1);
  });

  it("denying with a reason tells the model why, and pays nothing", async () => {
    turns.push(payTurn("toolu_pay_erin"), { text: "Understood, I did not pay." });
    finish(await chat("erin", "Pay 40 EUR to Ada."));
    const res = await decide("erin", [{ callId: "toolu_pay_erin", approved: false, reason: "I already paid her in cash" }]);
    expect(res.status).toBe(200);
    const events = parseSSE(await res.text());
    expect(events.find((e) => e.event === "tool-result")!.data).toMatchObject({
      callId: "toolu_pay_erin",
      isError: true,
      output: '{"error":"denied: I already paid her in cash"}',
    });
    expect(finish(events)).toMatchObject({ status: "done", text: "Understood, I did not pay." });
    const [sent] = lastToolResults(mock.requests.at(-1)!.body);
    expect(sent).toMatchObject({ tool_use_id: "toolu_pay_erin", is_error: true });
    expect(JSON.stringify(sent.content)).toContain("denied: I already paid her in cash");
    expect((await state("erin")).payments).toEqual([]);
  });

  it("refuses bad decisions with 400 invalid_decision and changes nothing", async () => {
    turns.push(payTurn("toolu_pay_finn"));
    finish(await chat("finn", "Pay 40 EUR to Ada."));
    const before = await state("finn");
    const requests = mock.requests.length;
    for (const decisions of [
      [{ callId: "toolu_unknown", approved: true }],
      [{ callId: "toolu_pay_finn", answer: "yes" }], // the wrong form for an approval
      [{ callId: "toolu_pay_finn", approved: true, input: { amount: -5, currency: "EUR", to: "Ada" } }], // edited input fails the schema
    ]) {
      const res = await decide("finn", decisions);
      expect(res.status, JSON.stringify(decisions)).toBe(400);
      expect(await res.json()).toMatchObject({ code: "invalid_decision" });
    }
    for (const body of ['{"approve": true}', '{"decisions": []}']) {
      const bad = await fetch(new URL("/chat/finn/decisions", worker.url), { method: "POST", body });
      expect(bad.status, body).toBe(400);
    }
    expect(mock.requests.length).toBe(requests);
    expect(await state("finn")).toEqual(before);
  });

  it("a history changed on its way in (PUT) cannot get its changed call approved", async () => {
    // The signed history of finn's waiting payment, with the amount raised from 40 to 4000.
    const { history } = await state("finn");
    const tampered = structuredClone(history);
    const call = tampered[1].toolCalls[0];
    call.arguments = call.arguments.replace("40", "4000");
    expect(JSON.parse(call.arguments).amount).toBe(4000);

    const put = await fetch(new URL("/chat/gina", worker.url), { method: "PUT", body: JSON.stringify({ history: tampered }) });
    expect(put.status).toBe(200);
    expect(((await put.json()) as { pending: any[] }).pending[0].input.amount).toBe(4000);
    const requests = mock.requests.length;
    const res = await decide("gina", [{ callId: "toolu_pay_finn", approved: true }]);
    expect(res.status).toBe(400);
    const refusal = (await res.json()) as { code: string; error: string };
    expect(refusal.code).toBe("invalid_decision");
    expect(refusal.error).toMatch(/unsigned, changed, or signed with another secret/);
    expect(mock.requests.length).toBe(requests);
    expect((await state("gina")).payments).toEqual([]);

    // The untouched copy moves in fine and is approved as usual: the signature is over the call, not the conversation id.
    await fetch(new URL("/chat/hugo", worker.url), { method: "PUT", body: JSON.stringify({ history }) });
    turns.push({ text: "Paid." });
    const ok = await decide("hugo", [{ callId: "toolu_pay_finn", approved: true }]);
    expect(ok.status).toBe(200);
    expect(finish(parseSSE(await ok.text())).status).toBe("done");
    expect((await state("hugo")).payments).toMatchObject([{ amount: 40 }]);
  });

  it("a new message instead of a decision cancels what waits", async () => {
    turns.push(payTurn("toolu_pay_ivan"), { text: "OK, forget the payment." });
    finish(await chat("ivan", "Pay 40 EUR to Ada."));
    expect(finish(await chat("ivan", "Actually, never mind."))).toMatchObject({ status: "done" });
    const blocks = mock.requests.at(-1)!.body.messages.flatMap((m: { content: { type: string; tool_use_id?: string }[] }) => m.content);
    const sent = blocks.find((b: { type: string; tool_use_id?: string }) => b.type === "tool_result" && b.tool_use_id === "toolu_pay_ivan");
    expect(JSON.stringify(sent.content)).toContain("cancelled: no decision");
    const s = await state("ivan");
    expect(s.pending).toEqual([]);
    expect(s.payments).toEqual([]);
  });

  it("a malformed history is refused by PUT", async () => {
    const res = await fetch(new URL("/chat/jade", worker.url), { method: "PUT", body: JSON.stringify({ history: [{ role: "robot", content: "hi" }] }) });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "invalid_history" });
    const missing = await fetch(new URL("/chat/jade", worker.url), { method: "PUT", body: "{}" });
    expect(missing.status).toBe(400);
  });
});

describe("Cloudflare Worker example without a key", () => {
  it("runs offline: a scripted run that calls the real current_time tool and says it is offline, and asks approval to pay", async () => {
    const config = wranglerConfig();
    const script = await bundle(`examples/cloudflare-worker/${config.main}`, { platform: "neutral", external: ["cloudflare:workers"] });
    const offline = await startWorker(script, {
      compatibilityDate: config.compatibilityDate,
      compatibilityFlags: config.compatibilityFlags,
      durableObjects: { [config.binding!]: config.className! },
      bindings: {},
    });
    try {
      const res = await fetch(new URL("/chat/offline", offline.url), { method: "POST", body: JSON.stringify({ message: "What time is it?" }) });
      const events = parseSSE(await res.text());
      const done = events.at(-1)!;
      expect(done.event, JSON.stringify(events)).toBe("finish");
      expect(events.find((e) => e.event === "tool-call")!.data).toMatchObject({ name: "current_time", input: { timeZone: "UTC" } });
      expect(events.find((e) => e.event === "tool-result")!.data.output).toMatch(/\b20\d\d\b.*UTC/);
      expect(
        events
          .filter((e) => e.event === "text-delta")
          .map((e) => e.data.text)
          .join(""),
      ).toMatch(/^Offline mode/);
      expect(done.data.text).toMatch(/^It is .*20\d\d.*\(UTC\)\. Set ANTHROPIC_API_KEY or OPENAI_API_KEY/);

      // The approval flow works offline too: the script asks to pay, the run waits for a decision.
      const post = (path: string, body: unknown) => fetch(new URL(path, offline.url), { method: "POST", body: JSON.stringify(body) });
      const asked = parseSSE(await (await post("/chat/offline-pay", { message: "Pay 25 EUR to Ada." })).text());
      expect(asked.map((e) => e.event).slice(-2)).toEqual(["suspended", "finish"]);
      const [waiting] = asked.at(-2)!.data.pending;
      expect(waiting).toMatchObject({ callId: "call_1", name: "pay", kind: "approval", input: { amount: 25, currency: "EUR", to: "Ada" } });
      const paid = parseSSE(await (await post("/chat/offline-pay/decisions", { decisions: [{ callId: waiting.callId, approved: true }] })).text());
      expect(paid.at(-1)).toMatchObject({ event: "finish", data: { status: "done", text: "Done: I paid 25 EUR to Ada." } });

      // Without DECISION_SECRET each conversation signs with its own secret: its waiting calls
      // moved into a worker with another secret are refused.
      const asked2 = parseSSE(await (await post("/chat/offline-pay2", { message: "Pay 30 EUR to Bob." })).text());
      const [waiting2] = asked2.at(-2)!.data.pending;
      const { history } = (await (await fetch(new URL("/chat/offline-pay2", offline.url))).json()) as { history: unknown[] };
      await fetch(new URL("/chat/moved-in", worker.url), { method: "PUT", body: JSON.stringify({ history }) });
      const refused = await decide("moved-in", [{ callId: waiting2.callId, approved: true }]);
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ code: "invalid_decision" });
      const denied = parseSSE(
        await (await post("/chat/offline-pay2/decisions", { decisions: [{ callId: waiting2.callId, approved: false, reason: "not today" }] })).text(),
      );
      expect(denied.at(-1)!.data.text).toBe("I did not pay (denied: not today).");
    } finally {
      await offline.dispose();
    }
  }, 60_000);
});
