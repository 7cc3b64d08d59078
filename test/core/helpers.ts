// Shared helpers for the core tests: an independent checker of the history invariant,
// a logger that records, and small async utilities that do not depend on wall time.
import type { Logger, Message } from "../../src/index.js";

/**
 * The history invariant, checked independently of src/conversation/history.ts: every assistant message
 * with tool calls is followed by exactly one tool message holding one result per call, in
 * call order; every tool message answers the assistant message right before it. Returns the
 * problems found (empty when valid), so a failing test says what broke.
 */
export function historyProblems(history: readonly Message[], options: { json?: boolean } = {}): string[] {
  const problems: string[] = [];
  history.forEach((m, i) => {
    if (m.role === "assistant" && m.toolCalls && m.toolCalls.length > 0) {
      const next = history[i + 1];
      if (next?.role !== "tool") {
        problems.push(`[${i}] assistant with ${m.toolCalls.length} tool call(s) is not followed by a tool message`);
        return;
      }
      const calls = m.toolCalls;
      const results = next.results;
      if (calls.length !== results.length || calls.some((c, k) => c.id !== results[k]!.callId)) {
        const want = calls.map((c) => c.id);
        const got = results.map((r) => r.callId);
        problems.push(`[${i + 1}] results ${JSON.stringify(got)} do not answer calls ${JSON.stringify(want)} in order`);
      }
      for (const r of next.results) {
        if (typeof r.output !== "string") problems.push(`[${i + 1}] result ${r.callId} has a non-string output`);
        if (typeof r.isError !== "boolean") problems.push(`[${i + 1}] result ${r.callId} has a non-boolean isError`);
      }
    }
    if (m.role === "tool") {
      const prev = history[i - 1];
      if (prev?.role !== "assistant" || !prev.toolCalls?.length) {
        problems.push(`[${i}] tool message does not follow an assistant message with tool calls`);
      }
    }
  });
  // Plain JSON all the way down.
  if (options.json !== false && JSON.stringify(JSON.parse(JSON.stringify(history))) !== JSON.stringify(history)) {
    problems.push("history is not plain JSON");
  }
  return problems;
}

export interface LogEntry {
  level: "debug" | "info" | "warn" | "error";
  message: string;
  fields: Record<string, unknown> | undefined;
}

export function recordingLogger(): Logger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at =
    (level: LogEntry["level"]) =>
    (message: string, fields?: Record<string, unknown>): void => {
      entries.push({ level, message, fields });
    };
  return { entries, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (reason: unknown) => void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets `n` rounds of already-queued microtasks run (no timers involved). */
export async function ticks(n = 1): Promise<void> {
  for (let i = 0; i < n; i++) await Promise.resolve();
}

/** Resolves once `check()` is true, polling on macrotasks; fails the test after `limit` polls. */
export async function until(check: () => boolean, limit = 1000): Promise<void> {
  for (let i = 0; i < limit; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 0));
  }
  throw new Error("condition never became true");
}

/** Resolves when `signal` aborts (used by handlers that wait to be cancelled). */
export function aborted(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    else signal.addEventListener("abort", () => resolve(signal.reason), { once: true });
  });
}

/** Rejections are settled values here, so assertions can look at what a promise rejected with. */
export async function settle<T>(p: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await p };
  } catch (error) {
    return { ok: false, error };
  }
}
