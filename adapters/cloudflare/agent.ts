// durableAgent(): one agent run at a time per Durable Object, checkpointed through the journal
// (openJournal over durableObjectStore), its events in the event log, and an alarm as heartbeat
// while a run is in progress. If the isolate dies mid-run (eviction, a deploy, a crash), the
// alarm fires in a new one, finds no run in memory but a journal that says "interrupted", and
// continues the run from its last record, no request needed. Nothing here waits on a reader:
// a client that goes away stops reading; only stop() stops the run.
import { checkOptions, InvalidOptionsError, isToolloopError, numberOption } from "../../src/base/index.js";
import type { Client } from "../../src/client/index.js";
import type { Message } from "../../src/conversation/index.js";
import { type Journal, openJournal } from "../../src/journal/index.js";
import type { PendingCall, StreamEvent } from "../../src/loop/index.js";
import type { Decision } from "../../src/suspension/index.js";
import { type EventLog, eventLog } from "./event-log.js";
import { followResponse, resumePoint } from "./sse.js";
import { durableObjectStore } from "./store.js";
import type { DurableObjectStateLike } from "./types.js";

export interface DurableAgentOptions {
  /** Builds the agent's client over the journal, once per isolate: `(journal) => journal.createClient({ provider, tools, suspension })`. */
  client: (journal: Journal) => Client | Promise<Client>;
  /** Signs the journal's record, as suspension() signs waiting calls: 32+ random characters or an HMAC CryptoKey. */
  secret?: string | CryptoKey | undefined;
  /** The record is not signed (instead of `secret`): only for storage nobody else can write. */
  unsigned?: true | undefined;
  /** Milliseconds between alarms while a run is in progress: how soon a run whose isolate died goes on. Default 30 000. */
  heartbeat?: number | undefined;
  /** Recoveries of one step with no progress before the run ends with RecoveryLimitError (the journal's option). */
  maxRecoveries?: number | undefined;
  /** Delay before continuing a run that failed with a recoverable error; doubles on each failure in a row, up to 5 minutes. Default 1000 ms. */
  retryDelay?: number | undefined;
  /** Runs whose events the log keeps: the current and the ones before it. Default 2. */
  keepRuns?: number | undefined;
  /** Prefix of the storage keys (journal record) this helper writes. Default "toolloop:". */
  prefix?: string | undefined;
}

/** The conversation's state: `status` is "running" while a run is in progress (also one the alarm will continue). */
export interface AgentStatus {
  status: "idle" | "running" | "suspended" | "done" | "failed" | "stopped";
  pending: PendingCall[];
  history: Message[];
  /** Why the last run failed. */
  error?: { code: string; message: string };
  /** The newest event id: `GET events?after=<it>` follows what comes next. */
  lastEventId: number;
}

export interface DurableAgent {
  /** Starts a run with a prompt; the response follows its events (SSE). 409 while a run is in progress. */
  start(prompt: Parameters<Client["stream"]>[0]): Promise<Response>;
  /** Resumes a suspended run with decisions; 400 `invalid_decision` before anything runs when the batch is refused, 409 while a run is in progress. */
  resume(decisions: readonly Decision[]): Promise<Response>;
  /** Follows the run's events from the request's `Last-Event-ID` (or `?after=n`; neither: from the start of the current or last run). */
  follow(request: Request): Promise<Response>;
  /** Stops the run in progress (or abandons an interrupted one); resolves with the status once it has ended. */
  stop(): Promise<AgentStatus>;
  status(): Promise<AgentStatus>;
  /** Call from the object's alarm(): the heartbeat, and the continuation of an interrupted run. */
  alarm(): Promise<void>;
}

interface Ready {
  journal: Journal;
  client: Client;
  log: EventLog;
}

/** A run this isolate is driving. */
interface Live {
  controller: AbortController;
  stopped: boolean;
  done: Promise<void>;
}

const MAX_RETRY_DELAY = 5 * 60_000;

export function durableAgent(ctx: DurableObjectStateLike, options: DurableAgentOptions): DurableAgent {
  checkOptions("durableAgent", options, "client secret unsigned heartbeat maxRecoveries retryDelay keepRuns prefix");
  if (typeof options.client !== "function") {
    throw new InvalidOptionsError("durableAgent needs `client`: (journal) => createClient({ provider, tools, journal })");
  }
  const heartbeat = numberOption("durableAgent: heartbeat", options.heartbeat, 1, true) ?? 30_000;
  const retryDelay = numberOption("durableAgent: retryDelay", options.retryDelay, 1, true) ?? 1000;
  const { storage } = ctx;
  let ready: Promise<Ready> | undefined;
  // One log per isolate, whatever happens to the journal: readers' listeners live on it.
  let log: EventLog | undefined;
  let live: Live | undefined;
  let failures = 0; // recoverable failures in a row, for the backoff

  const open = (): Promise<Ready> =>
    (ready ??= (async () => {
      const store = durableObjectStore(storage, { prefix: options.prefix });
      // The object's id, not its name: ctx.id.name is undefined in alarm().
      const key = ctx.id.toString();
      const { maxRecoveries } = options;
      const journal = await openJournal(
        options.unsigned === true ? { store, key, maxRecoveries, unsigned: true } : { store, key, maxRecoveries, secret: options.secret as string | CryptoKey },
      );
      log ??= eventLog(storage.sql, { keepRuns: options.keepRuns });
      const client = await options.client(journal);
      settleLog(journal, log);
      // A run this isolate did not start is waiting for its alarm: the first request after a
      // restart brings the alarm forward instead of leaving it to the next heartbeat.
      if (journal.interrupted) {
        const due = await storage.getAlarm();
        if (due === null || due > Date.now()) await storage.setAlarm(Date.now());
      }
      return { journal, client, log };
    })().catch((err) => {
      ready = undefined; // a bad secret or a storage failure: the next request tries again
      throw err;
    }));

  /** A log left open by a run that is over (the isolate died between its end and its last event): close it, so readers do not wait forever. */
  function settleLog(journal: Journal, log: EventLog): void {
    if (live || !log.open || journal.interrupted) return;
    log.append({
      type: "error",
      code: "interrupted",
      message: `The run ended (${journal.status}) while its last events were being recorded; the conversation's status has its outcome.`,
    });
  }

  const busy = (r: Ready): Response | undefined =>
    live || r.journal.interrupted ? Response.json({ error: "a run is in progress in this conversation", status: "running" }, { status: 409 }) : undefined;

  /**
   * Drives `events` into the log. Resolves `first` once the first event is logged or the run
   * failed before any, so resume() can answer a refused batch with 400.
   */
  function drive(r: Ready, begin: boolean, events: (signal: AbortSignal) => AsyncIterable<StreamEvent>): { first: Promise<unknown> } {
    const controller = new AbortController();
    const self: Live = { controller, stopped: false, done: Promise.resolve() };
    live = self;
    if (begin || !r.log.open) r.log.begin();
    let firstDone!: (failure: unknown) => void;
    const first = new Promise<unknown>((resolve) => (firstDone = resolve));
    self.done = (async () => {
      try {
        await storage.setAlarm(Date.now() + heartbeat);
        for await (const event of events(controller.signal)) {
          r.log.append(event);
          firstDone(undefined);
        }
        firstDone(undefined);
        failures = 0;
      } catch (err) {
        firstDone(err);
        await ended(r, self, err);
        return;
      } finally {
        if (live === self) live = undefined;
      }
      await storage.deleteAlarm();
    })().catch(() => {
      // The log or the alarm failed (storage is gone): the journal holds the run, the next alarm or request sees it.
    });
    return { first };
  }

  /** A run that threw: a recoverable error leaves it interrupted (the alarm goes on after a backoff); any other ends it. */
  async function ended(r: Ready, self: Live, err: unknown): Promise<void> {
    if (live === self) live = undefined;
    if (r.journal.interrupted && !self.stopped) {
      const delay = Math.min(retryDelay * 2 ** failures++, MAX_RETRY_DELAY);
      await storage.setAlarm(Date.now() + delay);
      return;
    }
    failures = 0;
    r.log.append(
      self.stopped
        ? { type: "error", code: "stopped", message: "The run was stopped." }
        : { type: "error", code: isToolloopError(err) ? err.code : "error", message: err instanceof Error ? err.message : String(err) },
    );
    await storage.deleteAlarm();
  }

  async function status(): Promise<AgentStatus> {
    const r = await open();
    const { journal, client, log } = r;
    const running = live !== undefined || journal.interrupted;
    const s: AgentStatus = { status: running ? "running" : journal.status, pending: client.pending, history: client.history, lastEventId: log.lastId };
    if (!running && journal.error) s.error = { ...journal.error };
    return s;
  }

  return {
    async start(prompt) {
      const r = await open();
      const refused = busy(r);
      if (refused) return refused;
      const after = r.log.lastId;
      drive(r, true, (signal) => r.client.stream(prompt, { signal }));
      return followResponse(r.log, after);
    },

    async resume(decisions) {
      const r = await open();
      const refused = busy(r);
      if (refused) return refused;
      const after = r.log.lastId;
      const { first } = drive(r, true, (signal) => r.client.stream(undefined, { signal, decisions }));
      const failure = await first;
      if (isToolloopError(failure, "invalid_decision")) {
        return Response.json({ error: failure.message, code: failure.code, callId: failure.callId }, { status: 400 });
      }
      return followResponse(r.log, after);
    },

    async follow(request) {
      const after = resumePoint(request);
      if (typeof after === "object") return Response.json({ error: after.error, code: "invalid_event_id" }, { status: 400 });
      const r = await open();
      return followResponse(r.log, after);
    },

    async stop() {
      const current = open();
      const r = await current;
      if (live) {
        live.stopped = true;
        live.controller.abort(new DOMException("stopped", "AbortError"));
        await live.done;
      } else if (r.journal.interrupted) {
        await r.journal.abandon();
        if (r.log.open) r.log.append({ type: "error", code: "stopped", message: "The interrupted run was stopped." });
        await storage.deleteAlarm();
        // The client still holds the history from before abandon() closed the run: the next
        // use opens the journal again, with a client over the closed history.
        if (ready === current) ready = undefined;
      }
      return status();
    },

    status,

    async alarm() {
      const r = await open();
      if (live) {
        await storage.setAlarm(Date.now() + heartbeat); // the run is alive here: keep the object awake
        return;
      }
      if (r.journal.interrupted) {
        // No prompt, no decisions: the client continues the interrupted run from its last record.
        drive(r, false, (signal) => r.client.stream(undefined, { signal }));
        return;
      }
      settleLog(r.journal, r.log);
    },
  };
}
