// client.stream(): the loop's event callbacks as an async iterable.
import { abortReason, runController } from "../base/index.js";
import type { StreamEvent } from "../loop/index.js";

/**
 * Bridges the loop's callbacks to an async iterable. The run starts on the first next();
 * leaving the for-await early aborts it (the history stays valid, as for any abort).
 */
export function streamRun(
  start: (onEvent: (e: StreamEvent) => void, signal: AbortSignal) => Promise<unknown>,
  outer: AbortSignal | undefined,
): AsyncIterable<StreamEvent> {
  return {
    [Symbol.asyncIterator]() {
      // The run's own signal: the provider's requests may pass it to fetch as it is (base/abort.ts).
      const controller = runController();
      const forward = () => controller.abort(abortReason(outer!));
      if (outer?.aborted) forward();
      else outer?.addEventListener("abort", forward, { once: true });
      let buffer: StreamEvent[] = [];
      let head = 0; // read position: shift() would make long streams quadratic
      let wake: (() => void) | undefined;
      let done = false;
      let failure: { error: unknown } | undefined;
      let started = false;
      let settled: Promise<void> | undefined;
      const poke = () => {
        const w = wake;
        wake = undefined;
        w?.();
      };
      const begin = () => {
        started = true;
        settled = start((e) => {
          buffer.push(e);
          poke();
        }, controller.signal)
          .then(
            () => {
              done = true;
              poke();
            },
            (error) => {
              failure = { error };
              done = true;
              poke();
            },
          )
          .finally(() => outer?.removeEventListener("abort", forward));
      };
      /** The next buffered event (there is one). */
      const take = (): IteratorResult<StreamEvent> => {
        const value = buffer[head++]!;
        if (head === buffer.length) {
          buffer = [];
          head = 0;
        }
        return { value, done: false };
      };
      /** next() when nothing is buffered yet: starts the run, waits for an event, the end or a failure. */
      const wait = async (): Promise<IteratorResult<StreamEvent>> => {
        if (!started) begin();
        for (;;) {
          if (head < buffer.length) return take();
          if (failure) {
            const { error } = failure;
            failure = undefined;
            throw error;
          }
          if (done) return { value: undefined, done: true };
          await new Promise<void>((r) => (wake = r));
        }
      };
      return {
        // A buffered event is handed out by a plain function: an async function's frame per
        // event was most of what iterating a stream allocated.
        next: () => (head < buffer.length ? Promise.resolve(take()) : wait()),
        async return(): Promise<IteratorResult<StreamEvent>> {
          if (started && !done) {
            controller.abort(new DOMException("The stream was closed by its consumer", "AbortError"));
            // Wait for the run to wind down, so the history is valid once the for-await is left.
            await settled;
          }
          failure = undefined;
          done = true;
          buffer = [];
          head = 0;
          return { value: undefined, done: true };
        },
      };
    },
  };
}
