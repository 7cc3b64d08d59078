// A small counting semaphore: FIFO, abort-aware, and a release that is safe to call twice.
import { abortReason } from "./errors.js";

export type Release = () => void;

interface Waiter {
  grant: (release: Release) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

export class Semaphore {
  #free: number;
  #queue: Waiter[] = [];

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`semaphore limit must be a positive integer, got ${limit}`);
    this.#free = limit;
  }

  /** Resolves with a release function once a slot is free; rejects if `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<Release> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.#free > 0 && this.#queue.length === 0) {
      this.#free--;
      return Promise.resolve(this.#release());
    }
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = {
        grant: resolve,
        signal,
        onAbort: () => {
          const i = this.#queue.indexOf(waiter);
          if (i >= 0) this.#queue.splice(i, 1);
          reject(abortReason(signal!));
        },
      };
      signal?.addEventListener("abort", waiter.onAbort, { once: true });
      this.#queue.push(waiter);
    });
  }

  /** Slots free right now (for tests and diagnostics). */
  get available(): number {
    return this.#free;
  }

  #release(): Release {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.#queue.shift();
      if (next) {
        next.signal?.removeEventListener("abort", next.onAbort);
        next.grant(this.#release()); // hand the slot straight over: FIFO, no barging
      } else {
        this.#free++;
      }
    };
  }
}
