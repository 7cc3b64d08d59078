// Resuming: the loop carries out a plan of decisions (suspension/decisions.ts made it, checked)
// before its first step (through Gate.resume, so only a client with suspension() ships this
// file), through the same executeCalls as the model's calls. Nothing is written
// to history until every answered handler has taken its answer, so a bad answer changes nothing.
import { InvalidDecisionError } from "../base/index.js";
import { type AssistantMessage, emptyUsage, type Message, type ToolCall, type ToolResult } from "../conversation/index.js";
import { executeCalls, failed } from "./execute.js";
import { plainResult, toolResultEvent } from "./step-finish.js";
import type { ExecutedCall, LoopConfig, Plan, PlanDone, Resumed, RunOptions, StepResult, ToolOutcome } from "./types.js";

export async function runPlan(history: Message[], plan: Plan, cfg: LoopConfig, opts: RunOptions): Promise<PlanDone> {
  const run = (calls: readonly ToolCall[], resumed: ReadonlyMap<string, Resumed>) =>
    executeCalls(calls, {
      parallel: cfg.parallel,
      maxParallel: cfg.maxParallel,
      maxToolOutput: cfg.maxToolOutput,
      logger: cfg.logger,
      gate: cfg.gate,
      registry: cfg.registry,
      history,
      signal: opts.signal,
      resumed,
    });
  // Answered handlers run first: an answer that fails the schema its handler asks with refuses
  // the batch before any other handler runs or anything is written. With two or more, each
  // first runs only up to its newest answer, which is checked, not given, so no handler goes
  // past an answer before all have passed (the code before a requestInput runs again on every
  // resume anyway).
  if (plan.answered.length > 1) {
    refuseBad(await run(plan.answered, new Map([...plan.resumed].map(([id, r]) => [id, { ...r, check: true }]))));
  }
  const ran = [...refuseBad(await run(plan.answered, plan.resumed)), ...(await run(plan.approved, plan.resumed))];
  const done = new Map(plan.results);
  const outcomes = new Map<string, ToolOutcome>();
  let toolFailures = 0;
  for (const r of ran) {
    done.set(r.callId, plainResult(r));
    outcomes.set(r.callId, r.outcome);
    if (failed(r.outcome)) toolFailures++;
  }
  const edited = new Map([...plan.answered, ...plan.approved].map((c) => [c.id, c]));
  // Results replace the pending ones in place (call order), in history order, so `last` is the
  // latest step the decisions completed; edited input becomes the call.
  let last: StepResult | undefined;
  history.forEach((m, at) => {
    const assistant = history[at - 1];
    if (m.role !== "tool" || assistant?.role !== "assistant" || !m.results.some((r) => r.pending && done.has(r.callId))) return;
    assistant.toolCalls = assistant.toolCalls!.map((c) => edited.get(c.id) ?? c);
    const results = m.results.map((r) => (r.pending && done.get(r.callId)) || r);
    history[at] = { role: "tool", results };
    for (const r of results) {
      if (done.get(r.callId) === r && !r.pending) opts.onEvent?.(toolResultEvent(r, outcomes.get(r.callId) ?? (r.isError ? "error" : "ok")));
    }
    // The step as stop conditions see it: made in an earlier call (step 0 of this one), its usage spent there.
    last = stepOf(assistant, results);
  });
  // This run counts the calls its decisions ran (denials and external outputs ran nothing).
  return { last, toolCalls: ran.length, toolFailures };
}

function stepOf(assistant: AssistantMessage, results: ToolResult[]): StepResult {
  return {
    type: "step-finish",
    step: 0,
    text: assistant.content,
    toolCalls: assistant.toolCalls!,
    toolResults: results,
    finishReason: "tool-calls",
    usage: emptyUsage(),
  };
}

function refuseBad(ran: ExecutedCall[]): ExecutedCall[] {
  const bad = ran.find((r) => r.badAnswer !== undefined);
  if (bad) throw new InvalidDecisionError(`decision for "${bad.callId}": the answer does not match the schema (${bad.badAnswer})`, bad.callId);
  return ran;
}
