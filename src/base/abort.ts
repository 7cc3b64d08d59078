// Abort signals: the reason a signal carries, and telling an abort from other errors.

/** The abort reason used when a signal was aborted without one (matches fetch's). */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

export function isAbortError(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { name?: unknown }).name === "AbortError";
}
