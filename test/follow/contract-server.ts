// A local server that keeps the durable-run HTTP contract of the Worker example (issue 26,
// docs/durable-runs.md), with scripted runs instead of a model, and drops connections where a
// test tells it to:
//
//   POST /chat/:id {"message"}                 → 200 event stream of the new run (409 while one runs)
//   POST /chat/:id/decisions {"decisions"}     → 200 event stream of the resumed run (400 refused, 409 running)
//   GET  /chat/:id/events  (Last-Event-ID: n | ?after=n)
//                                               → every event with id > n, then the live ones, closing
//                                                 after the run's last event (finish or error); without
//                                                 either, from the start of the current or last run
//   GET  /chat/:id                             → { status, pending, payments, history }
//
// Every SSE event is `id: <n>` (integer, growing, never reused), `event: <type>`, `data: <JSON>`.
// A run goes on when its connection closes, as the Worker's does. CORS is open, so a page from
// another origin can use it (the preflight allows Last-Event-ID).
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** What a run emits: stream events (objects with a `type`), the last one `finish` or `error`. */
export type RunEvent = { type: string } & Record<string, unknown>;

/** A run's script: what it emits, given what started it and the conversation's state. */
export type Script = (input: { message: string } | { decisions: Decision[] }, conversation: ConversationState) => RunEvent[];

export interface Decision {
  callId: string;
  approved?: boolean;
  reason?: string;
}

export interface ConversationState {
  status: "idle" | "running" | "suspended" | "done" | "failed";
  pending: { callId: string; name: string; input: unknown }[];
  payments: unknown[];
  history: RunEvent[];
}

/**
 * What happens to one stream connection (POST or GET), taken in order from `drops`:
 * - `between`: after `after` events of this connection, the response ends cleanly (a proxy's timeout);
 * - `reset`: after `after` events, the socket is destroyed (a network drop);
 * - `mid-event`: after `after` events, half of the next event is written, then the socket is destroyed;
 * - `before-first`: the 200 headers go out, then the socket is destroyed before any event;
 * - `status`: the request is answered with that status (a 503 during a deploy), no stream;
 * - `no-answer`: the socket is destroyed before any answer (a refused or lost request).
 */
export type Drop = { at: "between" | "reset" | "mid-event"; after: number } | { at: "before-first" } | { at: "status"; status: number } | { at: "no-answer" };

export interface StreamRequest {
  method: string;
  path: string;
  /** The Last-Event-ID header, as sent. */
  lastEventId: string | undefined;
  /** The ?after= query, as sent. */
  after: string | undefined;
  /** ms since the server started. */
  at: number;
  /** What this connection was told to do (undefined: stream normally). */
  drop: Drop | undefined;
  headers: IncomingHttpHeaders;
}

export interface ContractServer {
  url: string;
  /** Every stream request (POST /chat/:id, POST .../decisions, GET .../events), in arrival order. */
  streams: StreamRequest[];
  /** CORS preflights (OPTIONS): the path and the headers the browser asked to send. */
  preflights: { path: string; headers: string | undefined }[];
  /** Plans for the next stream connections, used up in order. */
  drops: Drop[];
  /** Every event a conversation emitted, with its id: what a follower must end up with. */
  log(conversation: string): { id: number; type: string; data: RunEvent }[];
  /** Stream connections still open. */
  open(): number;
  /** Resolves when the conversation's current run has emitted its last event. */
  settled(conversation: string): Promise<void>;
  close(): Promise<void>;
}

export interface ContractServerOptions {
  script: Script;
  /** ms between a run's events (default 5), or per conversation. */
  tick?: number | ((conversation: string) => number);
  /** Writes each event in pieces of this many bytes, with a pause between (default: whole). */
  chunkBytes?: number;
  /** A server that answers every GET from the start of the run, whatever Last-Event-ID says. */
  ignoreLastEventId?: boolean;
  /** Raw text written instead of an event's SSE lines (to break the contract on purpose). */
  rewrite?: (id: number, event: RunEvent) => string | undefined;
}

interface Conversation extends ConversationState {
  id: string;
  log: { id: number; type: string; data: RunEvent }[];
  /** The id of the current (or last) run's first event. */
  runStart: number;
  listeners: Set<() => void>;
  ended: Promise<void>;
}

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "content-type, last-event-id",
};

/** A conversation's events, numbered from 1 across every run of the server. */
export async function startContractServer(options: ContractServerOptions): Promise<ContractServer> {
  const tickOf = (id: string) => (typeof options.tick === "function" ? options.tick(id) : (options.tick ?? 5));
  const conversations = new Map<string, Conversation>();
  const streams: StreamRequest[] = [];
  const drops: Drop[] = [];
  const preflights: ContractServer["preflights"] = [];
  const sockets = new Set<Socket>();
  let openStreams = 0;
  let nextId = 1;
  const started = Date.now();

  const conversation = (id: string): Conversation => {
    let c = conversations.get(id);
    if (!c) {
      c = { id, status: "idle", pending: [], payments: [], history: [], log: [], runStart: 0, listeners: new Set(), ended: Promise.resolve() };
      conversations.set(id, c);
    }
    return c;
  };

  /** Starts a run: its events are appended one per tick, whoever listens. */
  const startRun = (c: Conversation, events: RunEvent[]) => {
    c.status = "running";
    c.runStart = nextId;
    const tick = tickOf(c.id);
    let end!: () => void;
    c.ended = new Promise((r) => (end = r));
    let i = 0;
    const step = () => {
      const data = events[i++]!;
      c.log.push({ id: nextId++, type: data.type, data });
      c.history.push(data);
      if (data.type === "suspended") c.pending = data.pending as ConversationState["pending"];
      if (data.type === "tool-result" && data.name === "pay") {
        const result = JSON.parse(String(data.output));
        if (result.paid) c.payments.push(result);
      }
      const last = data.type === "finish" || data.type === "error";
      if (last) c.status = data.type === "error" ? "failed" : data.status === "suspended" ? "suspended" : "done";
      for (const l of c.listeners) l();
      if (last) end();
      else setTimeout(step, tick);
    };
    setTimeout(step, tick);
  };

  const sse = (id: number, data: RunEvent) => options.rewrite?.(id, data) ?? `id: ${id}\nevent: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;

  /** Streams the conversation's events with id > after, then the live ones, until a run's last event. */
  const stream = (res: ServerResponse, c: Conversation, after: number, drop: Drop | undefined) => {
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", ...CORS });
    res.flushHeaders();
    openStreams++;
    let sent = 0;
    let next = after;
    let writing = Promise.resolve();
    let done = false; // no more events go out on this connection
    let gone = false; // the connection closed
    res.on("close", () => {
      gone = done = true;
      openStreams--;
      c.listeners.delete(pump);
    });
    const stop = (how: "end" | "destroy") => {
      done = true;
      c.listeners.delete(pump);
      void writing.then(() => (how === "end" ? res.end() : setTimeout(() => res.socket?.destroy(), 5)));
    };
    const write = (text: string) => {
      const size = options.chunkBytes;
      if (!size) return void res.write(text);
      const bytes = Buffer.from(text);
      writing = writing.then(async () => {
        for (let i = 0; i < bytes.length && !gone; i += size) {
          res.write(bytes.subarray(i, i + size));
          await new Promise((r) => setImmediate(r));
        }
      });
    };
    const pump = () => {
      for (const event of c.log) {
        if (done || event.id <= next) continue;
        if (drop && "after" in drop && sent === drop.after) {
          if (drop.at === "mid-event") {
            const text = sse(event.id, event.data);
            write(text.slice(0, Math.max(1, Math.floor(text.length / 2))));
          }
          return stop(drop.at === "between" ? "end" : "destroy");
        }
        write(sse(event.id, event.data));
        next = event.id;
        sent++;
        if (event.type === "finish" || event.type === "error") return stop("end");
      }
    };
    if (drop?.at === "before-first") return stop("destroy");
    c.listeners.add(pump);
    pump();
  };

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const match = /^\/chat\/([\w-]+)(\/decisions|\/events)?$/.exec(url.pathname);
    if (req.method === "OPTIONS") {
      preflights.push({ path: url.pathname, headers: req.headers["access-control-request-headers"] });
      return res.writeHead(204, CORS).end();
    }
    if (!match) return json(res, 404, { error: "not found" });
    const c = conversation(match[1]!);
    const isStream = (req.method === "POST" && match[2] !== "/events") || (req.method === "GET" && match[2] === "/events");
    let drop: Drop | undefined;
    if (isStream) {
      drop = drops.shift();
      const lastEventId = req.headers["last-event-id"] as string | undefined;
      streams.push({
        method: req.method!,
        path: url.pathname,
        lastEventId,
        after: url.searchParams.get("after") ?? undefined,
        at: Date.now() - started,
        drop,
        headers: req.headers,
      });
      if (drop?.at === "no-answer") return req.socket.destroy();
      // Before anything starts: a POST refused this way started no run.
      if (drop?.at === "status") return json(res, drop.status, { error: `unavailable (status ${drop.status} by plan)` });
    }
    if (req.method === "GET" && !match[2]) return json(res, 200, { status: c.status, pending: c.pending, payments: c.payments, history: c.history });
    if (req.method === "GET" && match[2] === "/events") {
      if (c.status === "idle") return json(res, 404, { error: "no run in this conversation" });
      const header = (req.headers["last-event-id"] as string | undefined) ?? url.searchParams.get("after") ?? undefined;
      const after = header === undefined || options.ignoreLastEventId ? c.runStart - 1 : Number(header);
      if (!Number.isInteger(after)) return json(res, 400, { error: "Last-Event-ID must be an integer" });
      return stream(res, c, after, drop);
    }
    if (req.method !== "POST") return json(res, 405, { error: "method not allowed" });
    let body: { message?: unknown; decisions?: unknown };
    try {
      body = JSON.parse(await text(req));
    } catch {
      return json(res, 400, { error: "the body is not JSON" });
    }
    if (c.status === "running") return json(res, 409, { error: "a run is in progress", code: "running" });
    const before = nextId - 1;
    if (match[2] === "/decisions") {
      const decisions = body.decisions as Decision[];
      const waiting = new Set(c.pending.map((p) => p.callId));
      if (!Array.isArray(decisions) || decisions.length === 0 || decisions.some((d) => !waiting.has(d?.callId) || typeof d.approved !== "boolean")) {
        return json(res, 400, { error: "no call waits for these decisions", code: "invalid_decision" });
      }
      const events = options.script({ decisions }, c);
      c.pending = [];
      startRun(c, events);
    } else {
      if (typeof body.message !== "string" || body.message === "") return json(res, 400, { error: 'expected {"message": "..."}' });
      c.pending = [];
      startRun(c, options.script({ message: body.message }, c));
    }
    return stream(res, c, before, drop);
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    streams,
    preflights,
    drops,
    log: (id) => conversation(id).log,
    open: () => openStreams,
    settled: (id) => conversation(id).ended,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json", ...CORS }).end(JSON.stringify(body));
}

async function text(req: IncomingMessage): Promise<string> {
  let s = "";
  for await (const chunk of req) s += chunk;
  return s;
}

/**
 * The script of the tests and the browser page: a message about paying asks to pay (the run
 * suspends for approval), any other message is answered in `words` text deltas; an approval
 * pays and answers, a denial answers without paying.
 */
export function paymentScript(words = 6): Script {
  let calls = 0;
  const text = (t: string) => t.split(/(?<= )/).map((piece) => ({ type: "text-delta", text: piece }));
  const finish = (status: "done" | "suspended", answer: string, pending: unknown[] = []) => ({
    type: "finish",
    status,
    pending,
    text: answer,
    steps: 1,
    usage: { inputTokens: 10, outputTokens: 5 },
    toolCalls: pending.length,
    toolFailures: 0,
  });
  return (input, c) => {
    if ("decisions" in input) {
      const d = input.decisions[0]!;
      const call = c.pending.find((p) => p.callId === d.callId)!;
      const { amount, currency, to } = call.input as { amount: number; currency: string; to: string };
      const paid = d.approved ? { paid: true, amount, currency, to, id: `pay_${d.callId}` } : { paid: false, error: d.reason ?? "denied" };
      const answer = d.approved ? `Done: I paid ${amount} ${currency} to ${to}.` : `I did not pay (${paid.error}).`;
      return [
        { type: "tool-result", callId: d.callId, name: "pay", output: JSON.stringify(paid), isError: false, outcome: d.approved ? "ok" : "denied" },
        ...text(answer),
        finish("done", answer),
      ];
    }
    if (/crash/i.test(input.message)) {
      // A run continued after its process died mid-reply: the step's reply is asked for again.
      const answer = "Checking. The answer is 42.";
      return [
        ...text("Checking. "),
        {
          type: "step-finish",
          step: 1,
          text: "Checking. ",
          toolCalls: [],
          toolResults: [],
          finishReason: "tool-calls",
          usage: { inputTokens: 1, outputTokens: 1 },
        },
        ...text("The ans"),
        { type: "recovery", step: 2, recoveries: 1, restart: true },
        ...text("The answer is 42."),
        finish("done", answer),
      ];
    }
    const pay = /pay (\d+) (\w+) to (\w+)/i.exec(input.message);
    if (pay) {
      const callId = `call_${++calls}`;
      const args = { amount: Number(pay[1]), currency: pay[2]!, to: pay[3]! };
      const pending = [{ callId, name: "pay", input: args, arguments: JSON.stringify(args), kind: "approval" }];
      const answer = "This payment needs your approval.";
      return [
        ...text(answer),
        { type: "tool-call", callId, name: "pay", input: args, arguments: JSON.stringify(args) },
        { type: "suspended", pending },
        finish("suspended", answer, pending),
      ];
    }
    const answer = Array.from({ length: words }, (_, i) => `word${i + 1}`).join(" ");
    return [...text(answer), finish("done", answer)];
  };
}
