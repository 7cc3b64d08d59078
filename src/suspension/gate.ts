// The gate: what suspension() adds to running one call (the loop's executeCalls calls `run`
// in runOne's place). A call waits before its handler runs (an external tool, one that needs
// approval), or its handler runs with ctx.requestInput and waits for the first question not
// answered yet. What waits is signed where it is made, over the conversation it is made in.
import { formatIssues, jsonWithin, MAX_RESPONSE_DEPTH } from "../base/index.js";
import { CANCELLED_OUTPUT, type Message, type PendingState, type ToolCall } from "../conversation/index.js";
import { askingWith, type ExecutedCall, type ExecuteOptions, runOne, thrownText } from "../loop/index.js";
import { compileValidator, isSchemaInput, toJSONSchema } from "../schema/index.js";
import { checksInput, type InputRequest, type Tool, type ToolContext, toolInput } from "../tools/index.js";
import type { Signer } from "./sign.js";

/** Runs `call` through the gate, signing a result that waits (with `sign`, unless unsigned). */
export async function gateRun(call: ToolCall, opts: ExecuteOptions, sign: Signer | undefined): Promise<ExecutedCall> {
  const r = await gated(call, opts);
  if (r.pending) {
    opts.logger.info("tool waits for a decision", { tool: r.name, kind: r.pending.kind });
    // Signed where it is made, over the conversation it is made in: a decision for it is
    // checked against the signature. Not found there, it stays unsigned, so it is refused.
    const made = sign && opts.history ? madeAt(opts.history, call) : -1;
    if (made >= 0) r.pending.signature = await sign!(call, r.pending, opts.history!, made);
  }
  return r;
}

/** A call's result: waiting before its handler runs, waiting for the input its handler asked for, or run. */
async function gated(call: ToolCall, opts: ExecuteOptions): Promise<ExecutedCall> {
  const tool = opts.registry.tools.get(call.name.toLowerCase());
  const waiting = tool && (await hold(tool, call, opts));
  if (waiting) return waiting;
  const a = asker(call, opts);
  const r = await runOne(call, { ...opts, extend: askingWith(a.ask) });
  // Cancelled without an abort: the handler asked for input (suspended); aborted, it stays cancelled.
  return r.outcome === "cancelled" && !opts.signal?.aborted ? a.result() : r;
}

/**
 * Where the assistant message that made `call` is in `history`: the newest one that holds the
 * call itself (the loop's own step) or under which it waits (a resumed call, whose edited input
 * makes it another object); -1 if none.
 */
function madeAt(history: readonly Message[], call: ToolCall): number {
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i]!;
    const next = history[i + 1];
    if (m.role !== "assistant" || !m.toolCalls) continue;
    if (m.toolCalls.includes(call) || (next?.role === "tool" && next.results.some((r) => r.callId === call.id && r.pending))) return i;
  }
  return -1;
}

/** A call's result before its handler runs: waiting, or the error its approval rule threw. */
function held(call: ToolCall, r: Pick<ExecutedCall, "output" | "isError" | "outcome" | "pending" | "badAnswer">): ExecutedCall {
  return { callId: call.id, name: call.name.toLowerCase(), ...r };
}
const waits = (call: ToolCall, pending: PendingState) => held(call, { output: "", isError: false, outcome: "ok", pending });

/** Whether the call waits before its handler runs: an external tool, or one that needs approval. */
async function hold(tool: Tool, call: ToolCall, opts: ExecuteOptions): Promise<ExecutedCall | undefined> {
  if (opts.resumed?.get(call.id)?.approved) return;
  if (tool.external) return waits(call, { kind: "external" });
  if (!tool.needsApproval) return;
  try {
    const ctx = { signal: opts.signal ?? new AbortController().signal, callId: call.id, logger: opts.logger };
    if (await needsApproval(tool, call, ctx)) return waits(call, { kind: "approval" });
  } catch (err) {
    return held(call, { output: JSON.stringify({ error: thrownText(err).message }), isError: true, outcome: "error" });
  }
}

/** needsApproval: true, or its function of the parsed (and, for tool()s, validated) input. */
async function needsApproval(tool: Tool, call: ToolCall, ctx: ToolContext): Promise<boolean> {
  const rule = tool.needsApproval;
  if (typeof rule !== "function") return rule === true;
  let input: unknown;
  try {
    input = await toolInput(tool, call.arguments);
  } catch {
    // Invalid arguments: a tool() never runs with them (the model gets the issues), so there is
    // nothing to approve; a hand-written tool would run with them, so it waits for a person.
    return !checksInput(tool);
  }
  return !!(await rule(input, ctx));
}

/** ctx.requestInput for one invocation: the answers given so far, in order; the first unanswered question suspends. */
function asker(call: ToolCall, opts: ExecuteOptions) {
  const prior = opts.resumed?.get(call.id);
  const answers = prior?.answers ?? [];
  let asked: InputRequest | undefined;
  let bad: string | undefined;
  let n = 0;
  return {
    async ask(request: InputRequest, suspend: () => void): Promise<unknown> {
      const i = n++;
      if (i < answers.length) {
        // Checked each time (not only when new), so the handler always gets the schema's output.
        let value = answers[i];
        if (isSchemaInput(request.schema)) {
          const r = await compileValidator(request.schema)(value);
          if (r.ok) value = r.value;
          else bad = formatIssues(r.issues);
        }
        if (bad === undefined && !(prior?.check && i === answers.length - 1)) return value;
      } else asked = request;
      suspend();
      return new Promise(() => {});
    },
    result(): ExecutedCall {
      if (bad !== undefined) return held(call, { output: CANCELLED_OUTPUT, isError: true, outcome: "cancelled", badAnswer: bad });
      if (prior?.check) return held(call, { output: "", isError: false, outcome: "ok" }); // the newest answer fits
      const state: PendingState = { kind: "input", message: String(asked!.message) };
      const schema = answerSchema(asked!.schema);
      if (schema) state.schema = schema;
      if (answers.length) state.answers = answers;
      if (prior?.approved) state.approved = true;
      return waits(call, state);
    },
  };
}

/**
 * The JSON Schema form of a requestInput() schema, as stored in history (and shown by
 * client.pending): a JSON copy within the depth a loaded history may have (the pending state
 * is one level more), or none, so the history that holds it can be saved and loaded again.
 */
function answerSchema(schema: unknown): unknown {
  let json = schema ?? undefined;
  if (isSchemaInput(schema)) {
    try {
      json = toJSONSchema(schema);
    } catch {
      return undefined;
    }
  }
  const text = json === undefined ? undefined : jsonWithin(json, MAX_RESPONSE_DEPTH - 1);
  return text === undefined ? undefined : JSON.parse(text);
}
