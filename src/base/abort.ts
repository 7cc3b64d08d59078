// Abort signals: the reason a signal carries, and telling an abort from other errors.

/** The abort reason used when a signal was aborted without one (matches fetch's). */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

export function isAbortError(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { name?: unknown }).name === "AbortError";
}

/** Signals toolloop made for a single run (see runSignal). */
const perRun = new WeakSet<AbortSignal>();

/**
 * A new controller whose signal belongs to one run and nothing else (client.stream()'s): the
 * HTTP layer may hand that signal to fetch as it is (isRunSignal). A caller's own signal may be
 * app-wide, and a runtime keeps a listener on a fetch's signal per request (Node's undici until
 * the response is collected), so those are forwarded through a controller per request instead;
 * a run's signal is dropped with the run, listeners and all.
 */
export function runController(): AbortController {
  const controller = new AbortController();
  perRun.add(controller.signal);
  return controller;
}

/** True for a signal made by runController(). */
export function isRunSignal(signal: AbortSignal): boolean {
  return perRun.has(signal);
}
