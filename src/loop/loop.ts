// The ReAct loop: call the model, run the tools it asks for, feed back the results,
// until it answers or maxSteps model calls have been made. The history it appends to
// is valid after every return, throw and abort.

import type { Logger } from "../base/index.js";
import { abortReason, MaxStepsError } from "../base/index.js";
import type { ModelRequest, ModelResponse, ToolChoice } from "../conversation/index.js";
import { type AssistantMessage, addUsage, emptyUsage, healHistory, type Message, type ToolCall, type ToolResult } from "../conversation/index.js";
import type { Registry } from "../tools/index.js";
import { parseJSONArguments } from "../tools/index.js";
import { executeCalls, failed } from "./execute.js";
import { plainResult, stepFinish, toolResultEvent } from "./step-finish.js";
import type { LoopConfig, PendingCall, RunOptions, RunResult } from "./types.js";

const NOT_RUN_OUTPUT = '{"error":"not run: the step limit (maxSteps) was reached"}';

export async function runLoop(history: Message[], cfg: LoopConfig, opts: RunOptions): Promise<RunResult> {
  const { signal, onEvent } = opts;
  const emit = onEvent ?? (() => {});
  let usage = emptyUsage();
  // Resuming: the decisions' calls run first, and count in this run.
  const resumed = opts.plan && (await cfg.gate?.resume(history, opts.plan, cfg, opts));
  let toolCalls = resumed?.toolCalls ?? 0;
  let toolFailures = resumed?.toolFailures ?? 0;
  const finish = (text: string, steps: number, pending: PendingCall[] = []): RunResult => {
    const r: RunResult = { status: pending[0] ? "suspended" : "done", pending, text, steps, usage, toolCalls, toolFailures };
    emit({ type: "finish", ...r });
    return r;
  };
  let prev = resumed?.last; // the step before: what stop conditions read, and a suspended run's text

  for (let step = 1; ; step++) {
    // Calls wait (from a saved history, or the step before): no request is made, since a
    // pending result must never reach a provider. Calls that needed nothing have run (once).
    // (Without suspension() the client refuses a history with waiting calls before it gets here.)
    const waiting = cfg.gate?.waiting(history, emit);
    if (waiting) return finish(prev ? prev.text : "", step - 1, waiting);
    // A stop condition that held after the step before makes this call the last, with tools off;
    // so does passing maxSteps, which only finalAnswerOnMaxSteps gets to (the step at maxSteps
    // throws MaxStepsError otherwise, before its tools run).
    const last = step > cfg.maxSteps || (prev && [cfg.steps.stopWhen].flat().some((c) => c?.({ steps: step - 1, usage, lastStep: prev! })));
    // Repaired before prepareStep and compaction read it (a summary request sends a prefix of it).
    heal(history, cfg.logger);
    const p = (await cfg.steps.prepareStep?.({ step, history: structuredClone(history), usage })) || {};
    const registry = p.tools ? cfg.toolSet(p.tools) : cfg.registry;
    if (cfg.compact) usage = addUsage(usage, await cfg.compact(history, cfg, opts));
    // Where the answer goes: a message add()ed during the request comes after it, unseen by it.
    // Taken after the repair (which inserts and drops messages; add() may have run while
    // prepareStep or compaction waited), and callModel sends history as it is now, with no
    // await in between: else a saved run's repair pushed the answer in front of its prompt.
    heal(history, cfg.logger);
    const at = history.length;
    const response = await callModel(history, cfg, opts, registry, p.system ?? cfg.system, last ? "none" : (p.toolChoice ?? cfg.toolChoice));
    usage = addUsage(usage, response.usage);
    const calls = last ? [] : uniqueCallIds(response.toolCalls, cfg.logger);
    const { providerData } = response;
    const message: AssistantMessage = { role: "assistant", content: response.text };
    if (calls.length) message.toolCalls = calls;
    if (providerData) message.providerData = providerData;
    history.splice(at, 0, message);
    // A step ends after its tool results: step-finish follows the step's tool-result events.
    const stepFinished = async (toolResults: ToolResult[]) => {
      const s = stepFinish(response, step, calls, toolResults);
      emit(s);
      await cfg.steps.onStepFinish?.(s);
      return s;
    };
    if (calls.length === 0) {
      await stepFinished([]);
      return finish(response.text, step);
    }

    toolCalls += calls.length;
    if (onEvent) {
      for (const c of calls) emit({ type: "tool-call", callId: c.id, name: c.name.toLowerCase(), input: callInput(c.arguments), arguments: c.arguments });
    }
    if (step === cfg.maxSteps && !cfg.finalAnswerOnMaxSteps) {
      // No model call will read these results, so the tools are not run; the history still gets answers.
      const notRun = calls.map((c) => ({ callId: c.id, name: c.name.toLowerCase(), output: NOT_RUN_OUTPUT, isError: true }));
      // Each tool-call event gets its tool-result, so a UI waiting on a call is not left hanging.
      if (onEvent) for (const r of notRun) emit(toolResultEvent(r, "cancelled"));
      answer(history, message, notRun);
      await stepFinished(notRun);
      throw new MaxStepsError(cfg.maxSteps);
    }
    // Named, not spread from cfg: a spread of every client option made a wide object per step that each call read from.
    const executed = await executeCalls(calls, {
      parallel: cfg.parallel,
      maxParallel: cfg.maxParallel,
      maxToolOutput: cfg.maxToolOutput,
      logger: cfg.logger,
      gate: cfg.gate,
      registry,
      history,
      signal,
      onResult: onEvent ? (r) => emit(toolResultEvent(r, r.outcome)) : undefined,
    });
    for (const r of executed) if (failed(r.outcome)) toolFailures++;
    const results = executed.map(plainResult);
    answer(history, message, results);
    prev = await stepFinished(results);
    if (signal?.aborted) throw abortReason(signal);
  }
}

/**
 * The step's calls with one id each. A model (or a compatible server) that reuses an id
 * within a step would need two results under one id, which no provider accepts; the later
 * call gets a fresh id (`<id>_2`, ...), so every call is run and answered exactly once.
 * Adapters replay at most one call per id from providerData and send the renamed ones
 * from the neutral history.
 */
export function uniqueCallIds(calls: ToolCall[], logger: Logger): ToolCall[] {
  const taken = new Set(calls.map((c) => c.id));
  const used = new Set<string>();
  return calls.map((c) => {
    if (c.id !== "" && !used.has(c.id)) {
      used.add(c.id);
      return c;
    }
    const base = c.id || "call";
    let n = 2;
    while (taken.has(`${base}_${n}`) || used.has(`${base}_${n}`)) n++;
    const id = `${base}_${n}`;
    used.add(id);
    logger.warn("tool call id reused in one step; renamed", { tool: c.name, id: c.id, renamed: id });
    return { ...c, id };
  });
}

/**
 * Puts the results right after the assistant message that made the calls: a message
 * add()ed while the tools ran must come after them, or the pair would be split.
 */
function answer(history: Message[], calls: AssistantMessage, results: ToolResult[]): void {
  const at = history.lastIndexOf(calls);
  history.splice(at < 0 ? history.length : at + 1, 0, { role: "tool", results });
}

async function callModel(
  history: Message[],
  cfg: LoopConfig,
  opts: RunOptions,
  registry: Registry,
  system: string | undefined,
  toolChoice: ToolChoice | undefined,
): Promise<ModelResponse> {
  const { signal } = opts;
  if (signal?.aborted) throw abortReason(signal);
  const request: ModelRequest = {
    messages: history,
    tools: registry.specs,
    webSearch: registry.webSearch,
    // A named tool is the registry's (lower-cased) name, as sent in `tools`.
    toolChoice: typeof toolChoice === "object" ? { name: toolChoice.name.toLowerCase() } : (toolChoice ?? "auto"),
  };
  if (system !== undefined) request.system = system;
  if (opts.responseSchema) request.responseSchema = opts.responseSchema;
  if (signal) request.signal = signal;
  if (cfg.maxRetries !== undefined) request.maxRetries = cfg.maxRetries;
  if (cfg.idleTimeout !== undefined) request.idleTimeout = cfg.idleTimeout;
  const emit = opts.onEvent;
  if (opts.stream && emit) request.onDelta = emit;
  try {
    return await cfg.provider.generate(request);
  } catch (err) {
    // Whatever the adapter threw on abort, the caller gets the signal's reason.
    if (signal?.aborted) throw abortReason(signal);
    throw err;
  }
}

/** Restores the history invariant (history.ts), saying so when anything had to change. */
function heal(history: Message[], logger: Logger): void {
  const repairs = healHistory(history);
  if (repairs) logger.warn("history repaired", { repairs });
}

/** The parsed arguments, or the raw string when they do not parse. */
export function callInput(args: string): unknown {
  try {
    return parseJSONArguments(args);
  } catch {
    return args;
  }
}
