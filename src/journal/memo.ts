// The journal's two wrappers. A durable run is the loop over a provider and tools whose every
// answer is recorded before the loop acts on it: the model's reply before any of its calls runs,
// each call's start before its handler runs and its result as it settles. Continuing a run is
// the same loop again from the recorded history, where the wrappers answer from the record —
// the reply without asking the model, a settled call without running it — until the run passes
// its last record. So the loop itself knows nothing of journals, and a client without one ships
// none of this.
import { bytesToHex, sha256Hex, type ToolloopError } from "../base/index.js";
import type { ModelResponse, Provider } from "../conversation/index.js";
import { type Tool, type ToolCallResult, type ToolContext, withCall } from "../tools/index.js";
import { INTERRUPTED } from "./close.js";
import type { CallRecord, Done } from "./record.js";
import type { JournalState } from "./state.js";

/** What a run in progress shares with the wrappers. */
export interface RunLink {
  /** A recorded reply to answer the next request with (a continued run's first step), once. */
  replay: ModelResponse | undefined;
  /** Stops the run (a write failed): no further call starts. */
  fail(err: ToolloopError): void;
  /** fail() was called. */
  failed: boolean;
  /** The run's finished steps so far (recorded with each reply: a continued run counts from there). */
  done(): Done;
}

/** The provider, recording each reply of the loop's steps (compaction's summaries pass through). */
export function journaledProvider(inner: Provider, j: JournalState, link: () => RunLink | undefined): Provider {
  const p: Provider = Object.create(inner);
  Object.defineProperty(p, "generate", {
    value: async (request: Parameters<Provider["generate"]>[0]): Promise<ModelResponse> => {
      const run = link();
      if (!run || request.purpose) return inner.generate(request);
      const replayed = run.replay;
      if (replayed) {
        run.replay = undefined;
        return structuredClone(replayed);
      }
      const response = await inner.generate(request);
      const r = j.rec.run;
      if (r) {
        // What the model answered, and the conversation it answered: a continued run starts from here.
        j.rec.history = structuredClone(request.messages) as typeof j.rec.history;
        r.reply = response;
        r.nonce = nonce();
        r.calls = {};
        delete r.call;
        r.recoveries = 0;
        r.done = run.done();
        await written(j, run);
      }
      return response;
    },
  });
  return p;
}

/** The tools, each call recorded as it starts and as it settles, and answered from the record when it did. */
export function journaledTools(tools: readonly Tool[], j: JournalState, link: () => RunLink | undefined): Tool[] {
  return tools.map((t) =>
    withCall(t, async (input: string, ctx: ToolContext): Promise<ToolCallResult> => {
      const run = link();
      const r = j.rec.run;
      if (!run || !r) return t.call(input, ctx);
      const id = ctx.callId;
      const prior: CallRecord | undefined = r.calls[id];
      if (prior?.result) return settled(prior.result);
      // Started before an interruption and never settled: run again only when the tool says it is safe.
      if (prior && t.replay !== "safe") {
        r.calls[id] = { attempts: prior.attempts, result: { thrown: INTERRUPTED } };
        await written(j, run);
        throw new Error(INTERRUPTED);
      }
      const attempts = (prior?.attempts ?? 0) + 1;
      const batch = r.nonce;
      r.calls[id] = { attempts };
      await written(j, run);
      ctx.idempotencyKey = await keyOf(batch, id);
      let result: CallRecord["result"];
      try {
        const output = await t.call(input, ctx);
        result = { output };
        return output;
      } catch (err) {
        result = thrown(err);
        throw err;
      } finally {
        // A call given up on (its timeout, an abort) is recorded as what the loop made of it.
        if (ctx.signal.aborted) result = thrown(ctx.signal.reason);
        if (j.rec.run?.nonce === batch) {
          j.rec.run.calls[id] = { attempts, ...(result && { result }) };
          j.rec.run.recoveries = 0;
          await written(j, run).catch(() => {}); // the call ran: its output still goes to the model; the run stops after it
        }
      }
    }),
  );
}

/** Writes the record; a failure stops the run (before its next side effect) and rejects. */
async function written(j: JournalState, run: RunLink): Promise<void> {
  try {
    await j.write();
  } catch (err) {
    run.fail(err as ToolloopError);
    throw err;
  }
}

/** A recorded result as the handler gave it: its output, or its error thrown again. */
function settled(result: NonNullable<CallRecord["result"]>): ToolCallResult {
  if ("output" in result) return result.output;
  throw Object.assign(new Error(result.thrown), result.code ? { code: result.code } : {});
}

function thrown(err: unknown): NonNullable<CallRecord["result"]> {
  const message = err instanceof Error ? err.message : typeof err === "string" ? err : String(err);
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? { thrown: message, code } : { thrown: message };
}

/** 16 random bytes, hex: names a batch of calls. */
export function nonce(): string {
  return bytesToHex(crypto.getRandomValues(new Uint8Array(16)));
}

/** The idempotency key of call `id` in batch `batch`: the same for every attempt, different between calls. */
async function keyOf(batch: string, id: string): Promise<string> {
  return `tl_${(await sha256Hex(`${batch}\n${id}`)).slice(0, 40)}`;
}
