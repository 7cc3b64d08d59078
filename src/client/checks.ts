// The client's small checks: a positive integer option, and a queued call's abort.
import { abortReason, describeValue, InvalidOptionsError } from "../base/index.js";

/**
 * A call still waiting its turn behind another one rejects as soon as its signal aborts
 * (when the turn comes it sees the aborted signal and does nothing). Once running, the
 * run itself rejects, after it has left the history valid.
 */
export function abortWhileQueued<T>(p: Promise<T>, signal: AbortSignal, started: () => boolean): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      if (!started()) reject(abortReason(signal));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

export function positiveInt(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw new InvalidOptionsError(`${name} must be a positive integer, got ${describeValue(value)}`);
  return value;
}
