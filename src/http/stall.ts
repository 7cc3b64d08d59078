// Stall timeouts on streams: how long a streamed reply may go without content, counted from
// the request to the first content delta (`first`) and from one content delta to the next
// (`between`). idleTimeout counts bytes, so a server that sends only keep-alives (Anthropic's
// `event: ping`, comment lines, empty events) never trips it; here only model output counts.
//
// The watch sits around a provider's generate (stallTimeout(provider, limits) in cost/), where
// every delta of every adapter passes through the request's onDelta, so no decoder knows about
// it: it times the content deltas and, on a stall, aborts the request's signal with a
// StallError, which ends the fetch or the body read (body.ts) and closes the connection.
// http.ts never retries an abort, so a stall is not sent again here (as an idleTimeout is
// not): a provider that went silent is unlikely to answer a second time within the limit;
// fallback() moves a stall before any content to its next provider, and after content
// isRecoverable says a run may be continued. A wrapper rather than a provider option, so an
// agent that sets no limit ships none of this (DESIGN: options never select code).
import { abortReason, checkOptions, describeValue, InvalidOptionsError, numberOption, runController, StallError } from "../base/index.js";

/** ms limits on a streamed reply's silences; keep-alives do not count, only content does. */
export interface StallTimeout {
  /** ms from the request to its first content delta (text, reasoning or a tool call). */
  first?: number | undefined;
  /** ms from one content delta to the next (and from the last one to the end of the reply). */
  between?: number | undefined;
}

/** What the watch needs of a request (a ModelRequest; structural, the http layer sits below it). */
export interface StallWatched {
  signal?: AbortSignal | undefined;
  // A method, so a ModelRequest's onDelta (taking the Delta union) fits.
  onDelta?(delta: { type: string; text?: string }): void;
}

/** The checked limits (a copy); anything else, unset or `{}` included, is refused with what to write. */
export function stallTimeoutOption(what: string, value: unknown): StallTimeout {
  const { first, between } = Object(value) as StallTimeout;
  if (typeof value === "object") checkOptions(what, value as StallTimeout, "first between");
  if (typeof value !== "object" || (first === undefined && between === undefined)) {
    throw new InvalidOptionsError(`${what} must be { first?, between? } in ms, at least one, got ${describeValue(value)}`);
  }
  return { first: numberOption(`${what}.first`, first, 0, true), between: numberOption(`${what}.between`, between, 0, true) };
}

/**
 * `generate` under the (checked) limits, its stalls named for `provider`. Only streamed
 * requests (onDelta set) are watched; the others pass straight through.
 */
export function watchStalls<R extends StallWatched, T>(
  provider: string,
  limits: StallTimeout,
  generate: (request: R) => Promise<T>,
): (request: R) => Promise<T> {
  const { first, between } = limits;
  return async (request) => {
    const { signal, onDelta } = request;
    if (!onDelta) return generate(request);
    // Dropped with this request, so fetch may hold it as it is (base/abort.ts).
    const controller = runController();
    const forward = () => controller.abort(abortReason(signal!));
    if (signal?.aborted) forward();
    else signal?.addEventListener("abort", forward);
    // The adapter ends with the signal's reason (the http kit does), so the StallError surfaces as it is.
    const stall = (phase: "first" | "between", ms: number) => controller.abort(new StallError(provider, phase, ms));
    let timer = first && setTimeout(stall, first, "first", first);
    try {
      return await generate({
        ...request,
        signal: controller.signal,
        onDelta(delta: { type: string; text?: string }) {
          // Content is model output: text or reasoning with something in it, a tool call or a piece of its arguments.
          if (delta.type === "tool-call-delta" || delta.text) {
            clearTimeout(timer);
            timer = between && setTimeout(stall, between, "between", between);
          }
          onDelta(delta);
        },
      });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", forward);
    }
  };
}
