// An abort that lands while a response body is being read must end the run even when the
// body itself never ends. Node's fetch (undici) does exactly that: when the signal aborts
// after the whole response has arrived but before it was read, the abort no longer reaches
// the body and the next read() stays pending forever (the history property test hung on
// it under CPU load: a stream aborted on its first text delta). Here the fetch wraps the
// mock's real response in a body that behaves like that, deterministically: it passes the
// first chunk through, and on the next pull the caller's abort lands and nothing settles
// any more. Each way a body is read is covered: an event stream, a JSON body, an error
// body, and a body that is not the event stream that was asked for.
import { afterEach, describe, expect, it } from "vitest";
import type { FetchFn } from "../../src/http/http.js";
import { createClient } from "../../src/index.js";
import { type Mock, ROWS, type Row } from "./rows.js";
import { drive, expectValidHistory, type Mode, rejection } from "./support.js";

let mock: Mock | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

/**
 * A fetch whose next response body passes its first chunk through, then aborts `controller`
 * on the following pull and never settles that pull or any later one, whatever the real
 * body does. Later requests go through untouched.
 */
function bodyIgnoringAbort(controller: AbortController, reason: Error): { fetch: FetchFn; pulls: () => number } {
  let used = false;
  let pulls = 0;
  const fetchFn: FetchFn = async (input, init) => {
    const res = await fetch(input, init);
    if (used || !res.body) return res;
    used = true;
    const upstream = res.body.getReader();
    let delivered = false;
    const never = new Promise<void>(() => {});
    const body = new ReadableStream<Uint8Array>({
      async pull(c) {
        pulls++;
        if (delivered) {
          controller.abort(reason);
          return never;
        }
        const r = await upstream.read();
        delivered = true;
        if (r.done) c.close();
        else c.enqueue(r.value);
      },
    });
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  return { fetch: fetchFn, pulls: () => pulls };
}

type Case = { name: string; mode: Mode; prepare(row: Row, m: Mock): void };

const CASES: Case[] = [
  { name: "an event stream", mode: "sse", prepare: () => {} },
  { name: "a JSON body", mode: "json", prepare: () => {} },
  {
    name: "an error body",
    mode: "sse",
    prepare: (row, m) => m.enqueue({ status: 500, headers: { "content-type": "application/json", "x-should-retry": "false" }, body: row.errorBody(500).body }),
  },
  {
    name: "a body that is not an event stream",
    mode: "sse",
    prepare: (_row, m) => m.enqueue({ status: 200, headers: { "content-type": "text/html" }, body: "<html>captive portal</html>" }),
  },
];

describe.each(ROWS)("$label: an abort while the body is read, with a body that ignores it", (row) => {
  it.each(CASES)("$name: the run rejects with the caller's reason and the next chat works", async ({ mode, prepare }) => {
    const m = await row.start({ script: (body) => ({ text: row.lastUserText(body) === "again" ? "next ok" : "first answer" }) });
    mock = m;
    prepare(row, m);
    const controller = new AbortController();
    const reason = new Error("user pressed stop");
    const faulty = bodyIgnoringAbort(controller, reason);
    const client = createClient({ provider: row.provider(m, { fetch: faulty.fetch, maxRetries: 0 }) });

    const err = await rejection(drive(client, "hi", mode, controller.signal));
    expect(err).toBe(reason);
    // the abort came from inside the body read, after its first chunk
    expect(faulty.pulls()).toBe(2);
    expect(m.bodies()).toHaveLength(1);
    expect(client.history).toEqual([{ role: "user", content: "hi" }]);

    await expect(client.chat("again")).resolves.toBe("next ok");
    expect(m.bodies()).toHaveLength(2);
    expectValidHistory(client);
  });
});
