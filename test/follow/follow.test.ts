// follow() against a real HTTP server that keeps the durable-run contract (contract-server.ts)
// and drops connections where each test says: between events, in the middle of one, by a reset,
// before the first event, with a 503 or with no answer at all. Whatever the network does, the
// consumer must see the conversation's log exactly: every event once, in order, with the ids
// and types the server sent, and each reconnection must ask for what comes after the last id.
import { afterEach, describe, expect, it } from "vitest";
import { type FollowedEvent, follow, isToolloopError } from "../../src/index.js";
import { type ContractServer, type ContractServerOptions, type Drop, paymentScript, startContractServer } from "./contract-server.js";

let server: ContractServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(options: Partial<ContractServerOptions> = {}): Promise<ContractServer> {
  server = await startContractServer({ script: paymentScript(), ...options });
  return server;
}

/** Starts a run with POST /chat/:id and returns its (unread) response. */
function post(s: ContractServer, id: string, message = "hello"): Promise<Response> {
  return fetch(`${s.url}/chat/${id}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ message }) });
}

async function collect(events: AsyncIterable<FollowedEvent>): Promise<FollowedEvent[]> {
  const out: FollowedEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

/** The error an iteration ends with (fails the test if it ends without one). */
async function failure(events: AsyncIterable<FollowedEvent>): Promise<unknown> {
  try {
    await collect(events);
  } catch (err) {
    return err;
  }
  throw new Error("the follow ended without an error");
}

const fast = { retryDelay: 1, maxRetryDelay: 5 };

describe("follow(): a run's events, each once and in order", () => {
  it("yields every event of a run with its id, type and parsed data, and ends after finish", async () => {
    const s = await serve();
    const events = await collect(follow(`${s.url}/chat/a/events`, { response: await post(s, "a") }));
    expect(events).toEqual(s.log("a"));
    expect(events.map((e) => e.type)).toEqual([...Array(6).fill("text-delta"), "finish"]);
    expect(
      events
        .filter((e) => e.type === "text-delta")
        .map((e) => (e.data as { text: string }).text)
        .join(""),
    ).toBe("word1 word2 word3 word4 word5 word6");
    expect(events.at(-1)!.data).toMatchObject({ type: "finish", status: "done", text: "word1 word2 word3 word4 word5 word6" });
    expect(s.streams.map((r) => r.method)).toEqual(["POST"]); // no reconnection was needed
  });

  it("GET alone (no response): follows the current run from its start; a closed POST does not stop the run", async () => {
    const s = await serve({ tick: 10 });
    const res = await post(s, "b");
    await res.body!.cancel(); // the page that started the run went away
    const events = await collect(follow(`${s.url}/chat/b/events`));
    expect(events).toEqual(s.log("b"));
    expect(events.at(-1)!.type).toBe("finish");
    expect(s.streams[1]).toMatchObject({ method: "GET", lastEventId: undefined });
  });

  for (const at of ["between", "reset", "mid-event"] as const) {
    it(`a drop (${at}) after any number of events: reconnects with Last-Event-ID of the last event seen, no gap, no duplicate`, async () => {
      const s = await serve({ tick: 2 });
      const length = 7; // six text deltas and finish
      for (let k = 0; k < length; k++) {
        const id = `${at}-${k}`;
        s.drops.push({ at, after: k });
        const before = s.streams.length;
        const events = await collect(follow(`${s.url}/chat/${id}/events`, { ...fast, response: await post(s, id) }));
        const log = s.log(id);
        expect(events, `drop after ${k}`).toEqual(log);
        const [first, again, ...more] = s.streams.slice(before);
        expect(first).toMatchObject({ method: "POST", drop: { at, after: k } });
        // The reconnection names the last event handed out (none yet: no header, the server starts at the run).
        expect(again).toMatchObject({ method: "GET", path: `/chat/${id}/events`, lastEventId: k === 0 ? undefined : String(log[k - 1]!.id) });
        expect(more).toEqual([]);
      }
    });
  }

  it("drops before the first event, refused and unanswered reconnections: still every event once", async () => {
    const s = await serve({ tick: 3 });
    s.drops.push({ at: "before-first" }, { at: "no-answer" }, { at: "status", status: 503 }, { at: "mid-event", after: 2 }, { at: "status", status: 502 });
    s.drops.push({ at: "reset", after: 1 }, { at: "before-first" }, { at: "between", after: 1 });
    const events = await collect(follow(`${s.url}/chat/c/events`, { ...fast, response: await post(s, "c") }));
    const log = s.log("c");
    expect(events).toEqual(log);
    const gets = s.streams.slice(1);
    expect(gets.every((r) => r.method === "GET")).toBe(true);
    // Each reconnection asked for what follows the last event handed out before it.
    expect(gets.map((r) => r.lastEventId)).toEqual([
      undefined,
      undefined,
      undefined,
      String(log[1]!.id),
      String(log[1]!.id),
      String(log[2]!.id),
      String(log[2]!.id),
      String(log[3]!.id),
    ]);
  });

  it("a server that replays from the start whatever Last-Event-ID says: what was seen is skipped", async () => {
    const s = await serve({ tick: 2, ignoreLastEventId: true });
    s.drops.push({ at: "mid-event", after: 3 }, { at: "between", after: 5 });
    const events = await collect(follow(`${s.url}/chat/d/events`, { ...fast, response: await post(s, "d") }));
    expect(events).toEqual(s.log("d"));
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  });

  it("bytes split anywhere, multi-byte characters across chunks and drops: the text arrives whole", async () => {
    const s = await serve({
      tick: 1,
      chunkBytes: 1,
      script: () => [...["Grüße ", "aus ", "Köln ", "🚀 ", "→ ", "東京"].map((text) => ({ type: "text-delta", text })), { type: "finish", status: "done" }],
    });
    s.drops.push({ at: "mid-event", after: 1 }, { at: "mid-event", after: 2 });
    const events = await collect(follow(`${s.url}/chat/e/events`, { ...fast, response: await post(s, "e") }));
    expect(events).toEqual(s.log("e"));
    expect(events.map((e) => (e.data as { text?: string }).text ?? "").join("")).toBe("Grüße aus Köln 🚀 → 東京");
  });

  it("after: n asks for (and yields) only the events after n", async () => {
    const s = await serve({ tick: 1 });
    await post(s, "f").then((r) => r.body!.cancel());
    await s.settled("f");
    const log = s.log("f");
    const events = await collect(follow(`${s.url}/chat/f/events`, { after: log[3]!.id }));
    expect(events).toEqual(log.slice(4));
    expect(s.streams.at(-1)!.lastEventId).toBe(String(log[3]!.id));
  });

  it("the run's error event is yielded and ends the follow", async () => {
    const s = await serve({
      script: () => [
        { type: "text-delta", text: "Hm" },
        { type: "error", message: "provider down", code: "provider_error" },
      ],
    });
    const events = await collect(follow(`${s.url}/chat/g/events`, { response: await post(s, "g") }));
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ["text-delta", { type: "text-delta", text: "Hm" }],
      ["error", { type: "error", message: "provider down", code: "provider_error" }],
    ]);
  });

  it("sends the caller's headers and uses the caller's fetch; Accept is text/event-stream", async () => {
    const s = await serve({ tick: 2 });
    s.drops.push({ at: "reset", after: 2 });
    const calls: string[] = [];
    const myFetch: typeof fetch = (input, init) => {
      calls.push(String(input));
      return fetch(input, init);
    };
    await collect(
      follow(new URL(`${s.url}/chat/h/events`), { ...fast, response: await post(s, "h"), headers: { authorization: "Bearer t0k" }, fetch: myFetch }),
    );
    expect(calls).toEqual([`${s.url}/chat/h/events`]);
    expect(s.streams[1]!.headers).toMatchObject({ authorization: "Bearer t0k", accept: "text/event-stream" });
  });
});

describe("follow(): reconnecting is bounded", () => {
  it("waits retryDelay, then twice as long each time, never more than maxRetryDelay (up to 25 % less)", async () => {
    const s = await serve({ tick: 1 });
    await post(s, "i").then((r) => r.body!.cancel());
    const refusals: Drop[] = Array(5).fill({ at: "status", status: 503 });
    s.drops.push(...refusals);
    await collect(follow(`${s.url}/chat/i/events`, { retryDelay: 60, maxRetryDelay: 200 }));
    const at = s.streams.slice(1).map((r) => r.at);
    expect(at).toHaveLength(6);
    const gaps = at.slice(1).map((t, i) => t - at[i]!);
    const expected = [60, 120, 200, 200, 200];
    for (const [i, gap] of gaps.entries()) {
      expect(gap, `gap ${i}: ${gaps}`).toBeGreaterThanOrEqual(expected[i]! * 0.75 - 2);
      expect(gap, `gap ${i}: ${gaps}`).toBeLessThan(expected[i]! + 150);
    }
  });

  it("gives up after `retries` reconnections in a row that bring nothing, with the last failure typed", async () => {
    const s = await serve({ tick: 1 });
    await post(s, "j").then((r) => r.body!.cancel());
    await s.settled("j");
    s.drops.push(...Array(4).fill({ at: "status", status: 503 }));
    const err = await failure(follow(`${s.url}/chat/j/events`, { ...fast, retries: 3 }));
    expect(isToolloopError(err, "provider_error") && err.status).toBe(503);
    expect(s.streams).toHaveLength(5); // the POST, the first GET and three reconnections

    s.drops.push(...Array(3).fill({ at: "no-answer" }));
    expect(isToolloopError(await failure(follow(`${s.url}/chat/j/events`, { ...fast, retries: 2 })), "connection_error")).toBe(true);

    s.drops.push(...Array(2).fill({ at: "between", after: 0 }));
    const cut = await failure(follow(`${s.url}/chat/j/events`, { ...fast, retries: 1 }));
    expect(isToolloopError(cut, "stream_error")).toBe(true);
    expect((cut as Error).message).toContain("closed before the run's last event");
  });

  it("the count starts again after a reconnection that brought new events", async () => {
    const s = await serve({ tick: 2, script: () => [...Array(12)].map((_, i) => ({ type: "text-delta", text: `${i} ` })).concat({ type: "finish" } as never) });
    // A drop after every event: twelve reconnections, never two in a row without news.
    s.drops.push({ at: "reset", after: 1 }, ...Array(11).fill({ at: "mid-event", after: 1 }));
    const events = await collect(follow(`${s.url}/chat/k/events`, { ...fast, retries: 1, response: await post(s, "k") }));
    expect(events).toEqual(s.log("k"));
    expect(s.streams).toHaveLength(13);
  });

  it("retries: 0 never reconnects", async () => {
    const s = await serve({ tick: 2 });
    s.drops.push({ at: "reset", after: 2 });
    const seen: number[] = [];
    const err = await failure(
      (async function* () {
        for await (const e of follow(`${s.url}/chat/l/events`, { retries: 0, response: await post(s, "l") })) yield (seen.push(e.id), e);
      })(),
    );
    expect(isToolloopError(err, "stream_error")).toBe(true);
    expect(seen).toEqual(
      s
        .log("l")
        .slice(0, 2)
        .map((e) => e.id),
    );
    expect(s.streams).toHaveLength(1);
  });
});

describe("follow(): stopping", () => {
  it("an abort while reading rejects with the signal's reason and closes the connection; the run goes on", async () => {
    const s = await serve({ tick: 20 });
    const controller = new AbortController();
    const reason = new Error("page closed");
    const seen: FollowedEvent[] = [];
    const err = await failure(
      (async function* () {
        for await (const e of follow(`${s.url}/chat/m/events`, { signal: controller.signal, response: await post(s, "m") })) {
          seen.push(e);
          if (seen.length === 2) controller.abort(reason);
          yield e;
        }
      })(),
    );
    expect(err).toBe(reason);
    await expect.poll(() => s.open()).toBe(0);
    await s.settled("m");
    expect(s.log("m").at(-1)!.type).toBe("finish");
    expect(seen).toHaveLength(2);
  });

  it("an abort during the wait before a reconnection ends it at once", async () => {
    const s = await serve({ tick: 1 });
    s.drops.push({ at: "reset", after: 1 });
    const controller = new AbortController();
    const iterating = collect(follow(`${s.url}/chat/n/events`, { retryDelay: 10_000, signal: controller.signal, response: await post(s, "n") }));
    await expect.poll(() => s.open()).toBe(0); // dropped; now waiting 7.5-10 s
    const t = Date.now();
    controller.abort();
    await expect(iterating).rejects.toMatchObject({ name: "AbortError" });
    expect(Date.now() - t).toBeLessThan(500);
    expect(s.streams).toHaveLength(1);
  });

  it("an already aborted signal makes no request", async () => {
    const s = await serve();
    const reason = new Error("stop");
    await expect(collect(follow(`${s.url}/chat/o/events`, { signal: AbortSignal.abort(reason) }))).rejects.toBe(reason);
    expect(s.streams).toEqual([]);
  });

  it("leaving the loop early (break) closes the connection", async () => {
    const s = await serve({ tick: 20 });
    for await (const e of follow(`${s.url}/chat/p/events`, { response: await post(s, "p") })) if (e.type === "text-delta") break;
    await expect.poll(() => s.open()).toBe(0);
  });
});

describe("follow(): typed errors", () => {
  it("a 4xx is final: ProviderError with the status and the body's code, no reconnection", async () => {
    const s = await serve();
    const missing = await failure(follow(`${s.url}/chat/nobody/events`, fast));
    expect(isToolloopError(missing, "provider_error") && [missing.status, missing.message]).toEqual([404, "follow 404: no run in this conversation"]);
    expect(s.streams).toHaveLength(1);

    // The first answer is the caller's own POST: a 409 (a run is in progress) is not retried either.
    const running = await post(s, "q");
    const busy = await failure(follow(`${s.url}/chat/q/events`, { response: await post(s, "q") }));
    expect(isToolloopError(busy, "provider_error") && [busy.status, busy.type]).toEqual([409, "running"]);
    await running.body!.cancel();
    await s.settled("q");
    const refused = await fetch(`${s.url}/chat/q/decisions`, { method: "POST", body: JSON.stringify({ decisions: [{ callId: "nope", approved: true }] }) });
    const invalid = await failure(follow(`${s.url}/chat/q/events`, { response: refused }));
    expect(isToolloopError(invalid, "provider_error") && [invalid.status, invalid.type]).toEqual([400, "invalid_decision"]);
    expect(s.streams.filter((r) => r.method === "GET")).toHaveLength(1);
  });

  it("a first answer that is a 5xx is not retried (the run may not have started)", async () => {
    const s = await serve();
    s.drops.push({ at: "status", status: 503 });
    const err = await failure(follow(`${s.url}/chat/r/events`, { ...fast, response: await post(s, "r") }));
    expect(isToolloopError(err, "provider_error") && err.status).toBe(503);
    expect(s.streams).toHaveLength(1);
  });

  it("a 200 that is not an event stream: ProviderError invalid_response, with the start of the body", async () => {
    const s = await serve();
    const err = await failure(follow(`${s.url}/chat/s`)); // GET /chat/:id is the JSON status, not the stream
    expect(isToolloopError(err, "provider_error") && [err.status, err.type]).toEqual([200, "invalid_response"]);
    expect((err as Error).message).toMatch(/^follow 200 invalid_response: expected an event stream, got application\/json: \{"status":"idle"/);
  });

  it("an event without an integer id, or with data that is not JSON, ends it with a StreamError", async () => {
    for (const [rewrite, message] of [
      [(id: number) => (id % 3 === 2 ? `event: text-delta\ndata: {}\n\n` : undefined), "a text-delta event came with no id"],
      [(id: number) => (id % 3 === 2 ? `id: abc\nevent: text-delta\ndata: {}\n\n` : undefined), 'the id "abc"'],
      [(id: number) => (id % 3 === 2 ? `id: ${id}\nevent: text-delta\ndata: {oops\n\n` : undefined), "has data that is not JSON: {oops"],
    ] as const) {
      const s = await serve({ tick: 1, rewrite });
      const err = await failure(follow(`${s.url}/chat/t/events`, { ...fast, response: await post(s, "t") }));
      expect(isToolloopError(err, "stream_error"), String(err)).toBe(true);
      expect((err as Error).message).toContain(message);
      await s.close();
      server = undefined;
    }
  });
});

describe("follow(): options are checked when it is called", () => {
  it("refuses a misspelt option with the one it meant, and values it cannot use", () => {
    const url = "http://127.0.0.1:9/events";
    const bad: [unknown, unknown, RegExp][] = [
      [url, { retrys: 3 }, /unknown option `retrys`; did you mean `retries`\?/],
      [url, { Signal: undefined }, /unknown option `Signal`; did you mean `signal`\?/],
      [url, { lastEventId: 3 }, /unknown option `lastEventId` \(it takes response, after, retries/],
      [url, { retries: -1 }, /retries must be a whole number, 0 or more, got -1/],
      [url, { retries: "3" }, /retries must be a whole number, 0 or more, got the string "3"/],
      [url, { after: 1.5 }, /after must be a whole number/],
      [url, { retryDelay: 0 }, /retryDelay must be a positive number of ms/],
      [url, { retryDelay: 500, maxRetryDelay: 100 }, /maxRetryDelay \(100\) is shorter than retryDelay \(500\)/],
      [url, { fetch: "fetch" }, /fetch must be a function/],
      [url, { signal: {} }, /signal must be an AbortSignal/],
      [url, { headers: 5 }, /headers must be a Headers/],
      [url, { response: { ok: true } }, /response must be the Response of the request that started the run/],
      [url, "fast", /the options must be an object/],
      [undefined, {}, /follow\(\) takes the URL of a run's event stream first, got undefined/],
    ];
    for (const [u, options, message] of bad) {
      let thrown: unknown;
      try {
        follow(u as string, options as never); // synchronously: no next() needed
      } catch (err) {
        thrown = err;
      }
      expect(isToolloopError(thrown, "invalid_options"), `${JSON.stringify(options)}: ${thrown}`).toBe(true);
      expect((thrown as Error).message).toMatch(message);
    }
  });

  it("refuses a response whose body was already read", async () => {
    const used = new Response("id: 1\ndata: {}\n\n", { headers: { "content-type": "text/event-stream" } });
    await used.text();
    expect(() => follow("http://127.0.0.1:9/events", { response: used })).toThrow(/body was already read/);
  });
});
