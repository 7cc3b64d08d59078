// The client of a journal (journal.createClient): createClient's client over the journaled
// provider and tools (memo.ts), with each run's start and end recorded around it. A run that
// stops on an error it may get past (a broken or stalled stream, a store that failed) stays
// "running" in the record: run() or stream() without a prompt continues it from its last record.
import {
  checkOptions,
  InvalidDecisionError,
  InvalidOptionsError,
  isRecoverable,
  isToolloopError,
  runController,
  SuspendedError,
  sha256Hex,
} from "../base/index.js";
import { type CallOptions, type Client, type ClientOptions, createClient, streamRun } from "../client/index.js";
import { addUsage, type ContentPart, emptyUsage, type Message, type PendingState } from "../conversation/index.js";
import type { RunResult, StepResult, StreamEvent } from "../loop/index.js";
import type { Decision } from "../suspension/index.js";
import type { Tool } from "../tools/index.js";
import { closeRun } from "./close.js";
import { RecoveryLimitError, RunInterruptedError } from "./errors.js";
import { journaledProvider, journaledTools, nonce, type RunLink } from "./memo.js";
import { type Done, MAX_CONSUMED, type RunRecord } from "./record.js";
import type { JournalState } from "./state.js";

/** A client whose runs are recorded in a journal (the Client interface; ask() is not journaled). */
export type DurableClient = Client;

const zero = (): Done => ({ steps: 0, usage: emptyUsage(), toolCalls: 0, toolFailures: 0 });

export function durableClient(j: JournalState, options: ClientOptions): DurableClient {
  if (typeof options !== "object" || options === null || typeof options.provider?.generate !== "function") return createClient(options); // its own error
  if (options.history !== undefined && j.rec.status === "running") {
    throw new RunInterruptedError("createClient({ history }): the journal holds an interrupted run; continue it (run() with no prompt) or abandon() it first");
  }
  let link: RunLink | undefined;
  const linked = () => link;
  const provider = journaledProvider(options.provider, j, linked);
  const wrap = (tools: readonly Tool[] | undefined) => (Array.isArray(tools) ? journaledTools(tools, j, linked) : tools);
  let tools = options.tools;
  /** The finished steps before this invocation (a continued run's), and the run's so far. */
  let base = zero();
  let tally = zero();
  const make = (history: readonly Message[]) =>
    createClient({
      ...options,
      provider,
      tools: wrap(tools),
      history,
      onStepFinish: async (s) => {
        tally = {
          steps: tally.steps + 1,
          usage: addUsage(tally.usage, s.usage),
          toolCalls: tally.toolCalls + s.toolResults.length,
          toolFailures: tally.toolFailures + s.toolResults.filter((r) => r.isError).length,
        };
        // The step's results are in the history: recorded as the point a continued run starts from
        // (no reply to replay, so none of this step's events comes again).
        // (Not after a failed write stopped the run: its cancelled calls are not results to keep.)
        const r = link && !link.failed && j.rec.run;
        if (r) {
          j.rec.history = inner.history;
          delete r.reply;
          r.calls = {};
          r.done = tally;
          r.recoveries = 0;
          await j.write().catch((err) => {
            link?.fail(err);
            throw err;
          });
        }
        await options.onStepFinish?.(renumber(s));
      },
      prepareStep:
        options.prepareStep &&
        (async (state) => {
          const p = await options.prepareStep!({ ...state, step: state.step + base.steps });
          return p?.tools ? { ...p, tools: wrap(p.tools)! } : p;
        }),
    });
  let inner = make(options.history ?? j.rec.history);
  // abandon() closed the record's run: this client continues from the closed history.
  j.reset = () => {
    inner = make(j.rec.history);
  };
  let lastRun: RunResult | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const p = queue.then(fn, fn);
    queue = p.catch(() => {});
    return p;
  };
  const renumber = (s: StepResult): StepResult => (base.steps ? { ...s, step: s.step + base.steps } : s);
  const whole = (r: RunResult): RunResult => ({
    ...r,
    steps: r.steps + base.steps,
    usage: addUsage(base.usage, r.usage),
    toolCalls: r.toolCalls + base.toolCalls,
    toolFailures: r.toolFailures + base.toolFailures,
  });

  /** One run (or the continuation of an interrupted one), recorded from start to end. */
  const go = async (prompt: string | ContentPart[] | undefined, call: CallOptions, onEvent?: (e: StreamEvent) => void): Promise<RunResult> => {
    checkOptions("per-call options", call, "signal maxSteps toolChoice system decisions");
    const controller = runController();
    const outer = call.signal;
    const forward = () => controller.abort(outer!.reason);
    if (outer?.aborted) forward();
    else outer?.addEventListener("abort", forward, { once: true });
    const runLink: RunLink = {
      replay: undefined,
      failed: false,
      fail: (err) => {
        runLink.failed = true;
        controller.abort(err);
      },
      done: () => tally,
    };
    const before = structuredClone(j.rec);
    let decisions = call.decisions;
    const replayed = new Set<string>();
    const settled = new Set<string>();
    let settings: RunRecord["options"] = jsonOptions(call);
    if (j.rec.status === "running") {
      if (prompt !== undefined || decisions) {
        throw new RunInterruptedError(
          "this conversation has an interrupted run: continue it with run() or stream() with no prompt (or abandon() it) before a new prompt or decisions",
        );
      }
      const r = j.rec.run!;
      r.recoveries++;
      if (r.recoveries > j.maxRecoveries) {
        const err = new RecoveryLimitError(r.recoveries - 1, j.rec.error?.message);
        j.rec = { ...j.rec, history: closeRun(j.rec), status: "failed", error: { code: err.code, message: err.message } };
        delete j.rec.run;
        inner = make(j.rec.history);
        await j.write();
        throw err;
      }
      await j.write();
      inner = make(j.rec.history);
      base = r.done;
      runLink.replay = r.reply;
      if (r.reply) for (const c of r.reply.toolCalls) replayed.add(c.id);
      for (const [id, c] of Object.entries(r.calls)) if (c.result) settled.add(id);
      prompt = r.call?.prompt;
      decisions = r.call?.decisions;
      settings = r.options;
      onEvent?.({ type: "recovery", step: base.steps + 1, recoveries: r.recoveries, restart: !r.reply });
    } else {
      const consumed = decisions ? await spend(inner.history, decisions, j.rec.consumed) : [];
      j.rec = { v: 1, status: "running", history: inner.history, consumed: [...j.rec.consumed, ...consumed].slice(-MAX_CONSUMED) };
      j.rec.run = { options: settings, nonce: nonce(), calls: {}, done: zero(), recoveries: 0 };
      if (prompt !== undefined || decisions) j.rec.run.call = { ...(prompt !== undefined && { prompt }), ...(decisions && { decisions }) };
      base = zero();
      try {
        await j.write();
      } catch (err) {
        j.rec = before;
        throw err;
      }
    }
    tally = { ...base };
    link = runLink;
    j.running = true;
    const maxSteps = (settings.maxSteps ?? options.maxSteps ?? 20) - base.steps;
    const opts: CallOptions = { ...settings, maxSteps: Math.max(maxSteps, 1), signal: controller.signal, ...(decisions && { decisions }) };
    try {
      let result: RunResult | undefined;
      if (onEvent) {
        for await (const e of inner.stream(prompt, opts)) {
          // A continued step's calls and settled results were sent before the interruption: not again.
          if ((e.type === "tool-call" && replayed.has(e.callId)) || (e.type === "tool-result" && settled.has(e.callId))) continue;
          if (e.type === "finish") {
            const { type: _, ...r } = e;
            result = whole(r);
            onEvent({ type: "finish", ...result });
          } else onEvent(e.type === "step-finish" ? renumber(e) : e);
        }
      } else result = whole(await inner.run(prompt, opts));
      j.rec.history = inner.history;
      j.rec.status = result!.status === "suspended" ? "suspended" : "done";
      delete j.rec.run;
      delete j.rec.error;
      await j.write();
      lastRun = result;
      return result!;
    } catch (err) {
      const stopped = outer?.aborted === true;
      // Refused decisions changed nothing (and ran nothing): the record goes back to what it was.
      if (isToolloopError(err, "invalid_decision") && before.status !== "running") {
        j.rec = before;
        await j.write().catch(() => {});
        throw err;
      }
      if (!stopped && recoverable(err)) {
        if (j.rec.run) j.rec.error = { code: (err as { code: string }).code, message: (err as Error).message };
        throw err; // the record stays "running": continued by the next run() without a prompt
      }
      j.rec.history = inner.history;
      j.rec.status = stopped ? "stopped" : "failed";
      j.rec.error = { code: (err as { code?: string }).code ?? "error", message: err instanceof Error ? err.message : String(err) };
      delete j.rec.run;
      await j.write().catch(() => {});
      throw err;
    } finally {
      link = undefined;
      j.running = false;
      outer?.removeEventListener("abort", forward);
    }
  };

  const run = (prompt: string | ContentPart[] | undefined, call: CallOptions = {}) => serial(() => go(prompt, call));
  return {
    setTools(next) {
      inner.setTools(wrap(next)!);
      tools = next;
    },
    add(message) {
      inner.add(message);
    },
    async chat(prompt, call) {
      const r = await run(prompt, call);
      if (r.status === "suspended") throw new SuspendedError(r.pending);
      return r.text;
    },
    ask() {
      return Promise.reject(
        new InvalidOptionsError(
          "ask() is not journaled: a durable client runs run(), stream(), chat() and resume(); ask() on a client without a journal, or validate run()'s text yourself",
        ),
      );
    },
    stream(prompt, call) {
      return streamRun((onEvent, signal) => serial(() => go(prompt, { ...call, signal }, onEvent)), call?.signal);
    },
    run,
    resume(decisions, call) {
      return run(undefined, { ...call, decisions });
    },
    get pending() {
      return inner.pending;
    },
    get history() {
      return inner.history;
    },
    get lastRun() {
      return lastRun;
    },
  };
}

/** Per-call options as the record keeps them (JSON), to continue with the same ones. */
function jsonOptions(call: CallOptions): RunRecord["options"] {
  const o: RunRecord["options"] = {};
  if (call.maxSteps !== undefined) o.maxSteps = call.maxSteps;
  if (call.toolChoice !== undefined) o.toolChoice = call.toolChoice;
  if (call.system !== undefined) o.system = call.system;
  return o;
}

/**
 * Errors a run may get past by trying again from its last record: the stream broke or went
 * silent, the connection failed, the provider was overloaded after its retries, or the store
 * failed. Anything else (a refused request, maxSteps, an abort) ends the run.
 */
function recoverable(err: unknown): boolean {
  return isRecoverable(err) || isToolloopError(err, "journal") || (isToolloopError(err, "provider_error") && err.retryable);
}

/**
 * A decision is used once: the pending states a batch answers, by their signature (or, unsigned,
 * a digest of where they are and what they wait for), refused when the journal has seen them
 * answered — even from an older copy of the history that still shows them waiting.
 */
async function spend(history: readonly Message[], decisions: readonly Decision[], consumed: readonly string[]): Promise<string[]> {
  if (!Array.isArray(decisions)) return []; // the gate refuses it
  const tokens: string[] = [];
  for (const d of decisions) {
    const id = (d as { callId?: unknown } | null)?.callId;
    const at = history.findIndex((m) => m.role === "tool" && m.results.some((r) => r.callId === id && r.pending));
    if (at < 0) continue; // nothing waits for it: the gate refuses it
    const m = history[at] as Extract<Message, { role: "tool" }>;
    const pending = m.results.find((r) => r.callId === id && r.pending)!.pending as PendingState;
    const token = pending.signature ?? (await digest([at, id, pending.kind, pending.answers?.length ?? 0, pending.approved === true]));
    if (consumed.includes(token)) {
      throw new InvalidDecisionError(
        `decision for ${JSON.stringify(id)}: this call was already decided (a decision is used once; the history it came with is an older copy)`,
        id as string,
      );
    }
    tokens.push(token);
  }
  return tokens;
}

async function digest(value: unknown): Promise<string> {
  return `d:${await sha256Hex(JSON.stringify(value))}`;
}
