// The bridge's two wrappers: the provider, whose every model call is a step.do, and the tools,
// whose every call is a step.do keyed by the call's idempotency key. Workflows runs run() again
// from the top on every wake-up (an event, a retry, a restart after a crash) and answers each
// step it already kept with the kept value, so the loop runs again over the same replies and
// results, to where it stopped. Every step name comes out the same on each replay: the n-th
// model call of the run is "model n", a call it asked for is "tool n <call id>".
import { fnv1a36, isToolloopError, sha256Hex, ToolTimeoutError } from "../../src/base/index.js";
import type { ModelRequest, ModelResponse, Provider } from "../../src/conversation/index.js";
import { thrownText } from "../../src/loop/index.js";
import { type Tool, type ToolCallResult, type ToolContext, toOutput, withCall } from "../../src/tools/index.js";
import { type AskedQuestion, recordInput, replayInput } from "./workflow-input.js";
import type { WorkflowStepConfig, WorkflowStepLike } from "./workflow-types.js";
import { type ErrorValue, errorValue, MAX_STEP_BYTES, rebuildError, StepTooLargeError, stepValue } from "./workflow-values.js";

/** What the model reads for a call cut off by a restart that is not run again (a tool without replay: "safe"). */
export const INTERRUPTED = "interrupted: the workflow restarted while this call ran; whether it took effect is unknown, and it was not run again";

/** A model call's step value. */
type ModelValue = { response: ModelResponse } | { error: ErrorValue } | { tooLarge: number };

/** A tool call's step value: what the handler did, as the loop will be told on every replay. */
type ToolValue =
  | { output: ToolCallResult }
  | { error: ErrorValue }
  /** It threw something that is not an Error: the text the loop makes of it. */
  | { panic: string }
  | { timeout: number }
  /** It asked for input nobody had given yet: the run suspended on it. */
  | { asked: AskedQuestion[] }
  | { interrupted: true }
  | { cancelled: true }
  | { tooLarge: number };

export interface BridgeOptions {
  step: WorkflowStepLike;
  /** Names the run's calls: idempotency keys are made from it ("<workflow>\n<instance>"). */
  scope: string;
  modelStep: WorkflowStepConfig;
  toolStep: WorkflowStepConfig;
  /** Ends the run with `err` (a value too large to keep): tool errors do not end a run by themselves. */
  fail(err: Error): void;
}

/** The durable provider and tools of one workflow run. */
export interface Bridge {
  provider(inner: Provider): Provider;
  tools(tools: readonly Tool[]): Tool[];
}

export function bridge(o: BridgeOptions): Bridge {
  let calls = 0; // model calls so far: the n of "model n", and of the calls its reply asked for
  const attempts = new Map<string, number>(); // runs of one call (a handler that asked for input runs again)
  const wrapped = new WeakMap<Tool, Tool>(); // prepareStep gives the same tools each step
  const retryLimit = o.modelStep.retries?.limit ?? 0;

  const provider = (inner: Provider): Provider => {
    const p: Provider = Object.create(inner);
    Object.defineProperty(p, "generate", {
      value: async (request: ModelRequest): Promise<ModelResponse> => {
        const name = `model ${++calls}`;
        const { onDelta: _none, ...plain } = request; // deltas could not be replayed: the step asks for the whole reply
        const v = (await o.step.do(name, o.modelStep, async (ctx) => {
          try {
            return stepValue({ response: await inner.generate(plain) });
          } catch (err) {
            // A failure in transit is thrown, so the engine retries the step (with its delay and
            // backoff); the last attempt's, and any other, is kept, so a replay fails the same way.
            if (transient(err) && (ctx?.attempt ?? 1) <= retryLimit) throw err;
            return { error: errorValue(err) };
          }
        })) as ModelValue;
        if ("response" in v) return v.response;
        if ("error" in v) throw rebuildError(v.error);
        throw new StepTooLargeError(`the reply of ${name}`, v.tooLarge, MAX_STEP_BYTES);
      },
    });
    return p;
  };

  const durableTool = (t: Tool): Tool => {
    const w = withCall(t, async (input: string, ctx: ToolContext): Promise<ToolCallResult> => {
      const n = calls;
      const id = ctx.callId;
      const run = `${n}\n${id}`;
      const attempt = (attempts.get(run) ?? 0) + 1;
      attempts.set(run, attempt);
      const key = await idempotencyKey(o.scope, n, id);
      const name = `tool ${n} ${stepId(id)}${attempt > 1 ? ` #${attempt}` : ""}`;
      const v = (await o.step.do(name, o.toolStep, async (sctx) => {
        // A second attempt of this step means the first was cut off (a crash, a restart, the
        // step's timeout): its outcome is unknown, so only a tool that says so runs again.
        if ((sctx?.attempt ?? 1) > 1 && t.replay !== "safe") return { interrupted: true };
        return runInStep(t, input, ctx, key);
      })) as ToolValue;
      return settle(v, t, ctx, name, o.fail);
    });
    // The tool's own timeout is kept inside the step (see runInStep), so a replay sees it as the
    // first run did; left on the tool, the loop's timer would race a replay's kept output.
    delete w.timeout;
    return w;
  };

  return {
    provider,
    tools: (tools) =>
      tools.map((t) => {
        let w = wrapped.get(t);
        if (!w) wrapped.set(t, (w = durableTool(t)));
        return w;
      }),
  };
}

/** Runs the handler in its step and says what it did, as a value the step keeps. */
async function runInStep(t: Tool, input: string, ctx: ToolContext, key: string): Promise<ToolValue> {
  const recorder = ctx.requestInput && recordInput(ctx.requestInput);
  const timeout = t.timeout !== undefined && t.timeout > 0 ? t.timeout : undefined;
  const timer = timeout === undefined ? undefined : new AbortController();
  const signal = timer ? AbortSignal.any([ctx.signal, timer.signal]) : ctx.signal;
  const handlerCtx: ToolContext = { ...ctx, signal, idempotencyKey: key };
  if (recorder) handlerCtx.requestInput = recorder.requestInput;
  let clock: ReturnType<typeof setTimeout> | undefined;
  let stop: () => void = () => {};
  const ended = new Promise<ToolValue>((resolve) => {
    // The loop aborts the handler's signal when it suspends the run for input (or the run stops).
    const onAbort = () => resolve(recorder?.waiting ? { asked: recorder.asked } : { cancelled: true });
    ctx.signal.addEventListener("abort", onAbort, { once: true });
    if (timeout !== undefined) {
      clock = setTimeout(() => {
        timer!.abort(new DOMException(`the tool's timeout (${timeout} ms) passed`, "TimeoutError"));
        resolve({ timeout });
      }, timeout);
    }
    stop = () => ctx.signal.removeEventListener("abort", onAbort);
  });
  const ran = (async (): Promise<ToolValue> => {
    try {
      const out = await t.call(input, handlerCtx);
      const content = (out as { content?: unknown } | null)?.content;
      return { output: typeof out === "string" || Array.isArray(content) ? out : toOutput(out) };
    } catch (err) {
      const { message, panic } = thrownText(err);
      return panic ? { panic: message.slice(PANIC_PREFIX.length) } : { error: errorValue(err) };
    }
  })();
  try {
    const v = await Promise.race([ran, ended]);
    return "output" in v ? (stepValue(v) as ToolValue) : v;
  } finally {
    clearTimeout(clock);
    stop();
  }
}

/** What thrownText puts before the description of a thrown non-Error. */
const PANIC_PREFIX = thrownText("").message;

/** A tool step's value as the loop takes it: the output, or the handler's error thrown again. */
function settle(v: ToolValue, t: Tool, ctx: ToolContext, step: string, fail: (err: Error) => void): Promise<ToolCallResult> | ToolCallResult {
  if ("output" in v) return v.output;
  if ("error" in v) throw rebuildError(v.error);
  if ("panic" in v) throw v.panic; // thrown again as text, which the loop describes as it described the value
  if ("timeout" in v) throw new ToolTimeoutError(t.name, v.timeout);
  if ("interrupted" in v) throw new Error(INTERRUPTED);
  if ("asked" in v) {
    // The call waits as it did: the asker suspends on the first question it has no answer for.
    if (!ctx.requestInput) throw new Error("the workflow's replay has no ctx.requestInput for a call that asked for input");
    return replayInput(ctx.requestInput, v.asked).then(() => {
      throw new Error("the workflow's replay answered every question of a call that waited for input: the run's code or decisions changed");
    });
  }
  if ("tooLarge" in v) {
    const err = new StepTooLargeError(`the output of ${step}`, v.tooLarge, MAX_STEP_BYTES);
    fail(err);
    throw err;
  }
  throw new Error("the run stopped while this call ran");
}

/** A failure in transit, worth the step's retries: no answer, a broken or silent stream, a 429 or 5xx the provider's own retries did not get past. */
function transient(err: unknown): boolean {
  if (isToolloopError(err, "provider_error")) return err.retryable;
  return isToolloopError(err) && ["connection_error", "stream_error", "idle_timeout", "stall"].includes(err.code);
}

/** A call id as a step name may hold it (printable, short); another id keeps apart by its hash. */
function stepId(id: string): string {
  const safe = id.replace(/[^\w.:-]/g, "_").slice(0, 100);
  return safe === id ? id : `${safe}~${fnv1a36(id)}`;
}

/**
 * A call's idempotency key: the same on every replay and attempt of the call, different between
 * calls and between runs (the workflow and instance are in it). Hashed, so the ids it is made
 * of do not travel to the services it is sent to, in the journal's form (tl_ and 40 hex digits).
 */
async function idempotencyKey(scope: string, n: number, id: string): Promise<string> {
  return `tl_${(await sha256Hex(`${scope}\n${n}\n${id}`)).slice(0, 40)}`;
}
