// examples/browser/durable.html in Chromium against the real Worker example (issue 26: "the
// browser example follows a run across a dropped connection"): examples/cloudflare-worker in
// workerd with its SQLite-backed Durable Object (test/cloudflare/example.ts), the strict Claude
// mock as its model and the payments mock for `pay`. The page's serve.mjs forwards /chat/* to a
// small proxy in front of the Worker, which is where the connection drops: it passes the Worker's
// event stream on event by event and, when told, cuts the next one in the middle of an event
// (half an event written, then the socket destroyed). The page must then reconnect with
// Last-Event-ID to the Worker itself, which answers from its own event log.
//
// All three checks of durable-page.ts run here: the payment run dropped twice with Approve, Deny,
// and a page that rejoins a run in progress. Each drop cuts a run that is still going: the
// model's answer is held at the gate (test/cloudflare/model-gate.ts) until the page reconnects,
// so what follows the reconnection is the run going on live, not a finished run's record.
// What the proxy saw (each planned drop cut a stream mid-run, and the page's next request asked
// for what follows the last whole event) and what the model and the payments API were sent is
// checked after them.
import { createServer, request as forward, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { type Example, type ModelScript, startExample } from "../cloudflare/example.js";
import type { Held } from "../cloudflare/model-gate.js";
import type { MockTurn } from "../mock/claude.js";
import { type DurableAPI, durablePageTests } from "./durable-page.js";

/**
 * The model of the page's conversations, answering from what it is sent: "Pay 40 EUR to Ada."
 * asks to call `pay` with those arguments; a `pay` result is answered with what it says (the
 * payment made, or the refusal the person gave in the browser). Anything else gets no answer
 * (the mock's 500), so a request the page tests did not mean to cause fails its run.
 */
const payingModel: ModelScript = (body) => {
  const last = body.messages.at(-1) as { role: string; content: string | { type: string; text?: string; content?: unknown }[] };
  const blocks = typeof last.content === "string" ? [{ type: "text", text: last.content }] : last.content;
  const result = blocks.find((b) => b.type === "tool_result");
  if (result) {
    const content = result.content;
    const text = typeof content === "string" ? content : (content as { text?: string }[]).map((c) => c.text ?? "").join("");
    const out = JSON.parse(text) as { paid?: boolean; amount?: number; currency?: string; to?: string; error?: string };
    return { text: out.paid ? `Done: I paid ${out.amount} ${out.currency} to ${out.to}.` : `I did not pay (${out.error}).` };
  }
  const said = blocks.map((b) => (b.type === "text" ? b.text : "")).join(" ");
  const pay = /\bPay (\d+(?:\.\d+)?) (EUR|USD|GBP) to (\w+)/.exec(said);
  if (!pay) return undefined;
  const [, amount, currency, to] = pay;
  return {
    text: `I will pay ${to} ${amount} ${currency} once you approve.`,
    toolCalls: [{ name: "pay", input: { amount: Number(amount), currency, to } }],
  } satisfies MockTurn;
};

/** One event-stream answer that went through the proxy. */
interface Passed {
  method: string;
  path: string;
  /** The conversation id from the path. */
  chat: string;
  lastEventId: string | undefined;
  /** Ids of the events passed on whole, in order. */
  ids: number[];
  /** The drop planned for this stream: cut after this many events. */
  cutAfter: number | undefined;
  /** The stream was cut mid-event (rather than ended by the Worker). */
  cut: boolean;
  /** When cut: the run was still in progress on the Worker (its model answer held at the gate). */
  cutMidRun?: boolean;
}

const HOP_BY_HOP = ["connection", "keep-alive", "transfer-encoding", "host", "content-length"];

function passable(headers: IncomingHttpHeaders, keepLength: boolean): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || (HOP_BY_HOP.includes(name) && !(keepLength && name === "content-length"))) continue;
    out[name] = value;
  }
  return out;
}

/**
 * A pass-through to the Worker that can drop the next event stream after `after` of its events:
 * half of the event that follows is written, then the socket is destroyed, as a network drop
 * would leave it. Other answers (JSON, errors) pass unchanged. `onStream` sees each event-stream
 * request as it arrives, `onCut` each cut as it is made.
 */
async function startDropProxy(target: () => string, hooks: { onStream(r: Passed): void; onCut(r: Passed): void }) {
  const drops: number[] = [];
  const passed: Passed[] = [];
  const sockets = new Set<Socket>();

  const relay = (req: IncomingMessage, res: ServerResponse) => {
    const upstream = forward(new URL(req.url ?? "/", target()), { method: req.method, headers: passable(req.headers, true) }, (answer) => {
      if (!String(answer.headers["content-type"]).startsWith("text/event-stream")) {
        res.writeHead(answer.statusCode ?? 502, passable(answer.headers, true));
        answer.pipe(res);
        return;
      }
      const path = new URL(req.url ?? "/", "http://x").pathname;
      const record: Passed = {
        method: req.method ?? "",
        path,
        chat: /^\/chat\/([\w-]+)/.exec(path)?.[1] ?? "",
        lastEventId: req.headers["last-event-id"] as string | undefined,
        ids: [],
        cutAfter: drops.shift(),
        cut: false,
      };
      passed.push(record);
      hooks.onStream(record);
      res.writeHead(answer.statusCode ?? 502, passable(answer.headers, false));
      res.flushHeaders();
      answer.setEncoding("utf8");
      let buffer = "";
      answer.on("data", (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf("\n\n"); end !== -1 && !record.cut; end = buffer.indexOf("\n\n")) {
          const block = buffer.slice(0, end + 2);
          buffer = buffer.slice(end + 2);
          const id = /^id: ?(\d+)\r?$/m.exec(block)?.[1];
          if (id !== undefined && record.ids.length === record.cutAfter) {
            // The drop: the Worker's connection goes (the run goes on there), the page's breaks mid-event.
            // The break comes a moment after the bytes: a reset that arrives with them can make a
            // browser discard what it had not handed on yet, and then the page could not say
            // which event it had (it would rejoin from the run's start, which is a different test).
            record.cut = true;
            hooks.onCut(record);
            answer.destroy();
            res.write(block.slice(0, Math.max(1, Math.floor(block.length / 2))), () => setTimeout(() => res.destroy(), 100));
            return;
          }
          res.write(block);
          if (id !== undefined) record.ids.push(Number(id));
        }
      });
      answer.on("end", () => {
        if (!record.cut) res.end(buffer);
      });
      answer.on("error", () => res.destroy());
    });
    upstream.on("error", () => res.destroy());
    res.on("close", () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  };

  const server = createServer(relay);
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    drops,
    passed,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

// Kept after the page tests close the servers, for the checks of what they saw.
let ex: Example | undefined;
let proxy: Awaited<ReturnType<typeof startDropProxy>> | undefined;
let planned = 0;

/**
 * The Worker example behind the drop proxy. So that each drop cuts a run in progress (and the
 * page's reconnection follows it live, not a finished run's record), the model's answer is held
 * at the gate a few text deltas past the planned cut, and released when the page reconnects
 * after the cut. The frames of an answer are message_start, ping, content_block_start, then one
 * text delta each (one event each on the Worker's stream): held after 4 + `after` frames, at
 * least `after` + 1 events are out (a resumed run's tool-result comes before them), so the cut
 * comes first.
 */
async function workerAPI(): Promise<DurableAPI> {
  const example = await startExample({ model: payingModel });
  ex = example;
  let held: { answer: Held; sent: boolean; released: boolean } | undefined;
  const hold = (frames: number) => {
    const answer = example.gate.holdNext(frames);
    const h = { answer, sent: false, released: false };
    void answer.sent.then(() => (h.sent = true));
    held = h;
    return answer;
  };
  const release = () => {
    if (!held || held.released) return;
    held.released = true;
    held.answer.release();
  };
  let reconnecting = "";
  proxy = await startDropProxy(() => example.runtime.url, {
    onCut(r) {
      r.cutMidRun = !!held?.sent && !held.released;
      reconnecting = r.chat;
    },
    onStream(r) {
      if (r.chat !== reconnecting) return;
      reconnecting = "";
      release();
    },
  });
  const drops = proxy.drops;
  const close = proxy.close;
  return {
    url: proxy.url,
    dropNextStream(after) {
      planned++;
      drops.push(after);
      // A run started by startRun is held already; otherwise hold the answer of the run to come.
      if (!held || held.released) hold(4 + after);
    },
    async startRun(chat, message) {
      // Held after three text deltas: the run is in progress, with events, when the page opens.
      const answer = hold(6);
      const res = await fetch(example.url(`/chat/${chat}`), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ message }),
      });
      expect(res.status).toBe(200);
      await res.body?.cancel(); // nobody reads this run's stream; it goes on
      await answer.sent;
    },
    async close() {
      release();
      await close();
      await example.dispose();
    },
  };
}

durablePageTests("against the Worker example in workerd, drops made by a proxy in front of it", workerAPI);

describe("examples/browser/durable.html against the Worker example: what the proxy, the model and the payments API saw", () => {
  it("each planned drop cut a stream mid-event after that many events, while the run went on; the page's next request asked for what follows the last whole event", () => {
    if (!proxy) return expect.fail("the page tests above did not start the Worker (run this file whole)");
    const { passed } = proxy;
    const cutStreams = passed.filter((r) => r.cutAfter !== undefined);
    expect(proxy.drops).toEqual([]); // no drop was left unused
    expect(cutStreams).toHaveLength(planned);
    expect(planned).toBe(4); // 2 in the Approve test, 1 in Deny, 1 in the rejoin
    for (const r of cutStreams) {
      const shown = `${r.method} ${r.path}: ${JSON.stringify(r)}`;
      expect(r.cut, shown).toBe(true);
      expect(r.cutMidRun, shown).toBe(true);
      expect(r.ids, shown).toHaveLength(r.cutAfter!);
      const next = passed.slice(passed.indexOf(r) + 1).find((n) => n.chat === r.chat);
      expect(next, `no request after the cut of ${shown}`).toBeDefined();
      expect(next).toMatchObject({ method: "GET", path: `/chat/${r.chat}/events`, lastEventId: String(r.ids.at(-1)) });
    }
    // The POSTs and decisions the page sent were cut too, not only its GETs.
    expect(cutStreams.map((r) => r.method).sort()).toEqual(["GET", "POST", "POST", "POST"]);
  });

  it("the model was sent only requests the real API accepts; the payments API was asked to pay once (the approved 40 EUR to Ada)", () => {
    if (!ex) return expect.fail("the page tests above did not start the Worker (run this file whole)");
    ex.expectValidRequests();
    expect(ex.payments.requests).toHaveLength(1);
    expect(ex.payments.requests[0]).toMatchObject({ status: 200, body: { amount: 40, currency: "EUR", to: "Ada" } });
    // Pay 40 EUR to Ada + its result, Pay 12 EUR to Bob + its refusal, Pay 7 EUR to Cy (waiting): five model requests.
    expect(ex.mock.requests).toHaveLength(5);
  });
});
