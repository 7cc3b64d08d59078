// The ReAct loop: call the model, run the tools it asks for, feed back the results,
// until it answers or maxSteps model calls have been made. The history it appends to
// is valid after every return, throw and abort.
import { abortReason, MaxStepsError } from "./errors.js";
import { executeCalls, failed, type CallGate, type ExecutedCall, type ToolOutcome } from "./execute.js";
import { healHistory } from "./history.js";
import type { Logger } from "./log.js";
import { addUsage, emptyUsage, type AssistantMessage, type ContentPart, type Message, type PendingKind, type ToolCall, type ToolResult, type Usage } from "./messages.js";
import type { Delta, FinishReason, ModelRequest, ModelResponse, Provider, ToolChoice } from "./provider.js";
import type { Registry } from "./registry.js";
import type { StopCondition } from "./stop.js";
import type { Tool } from "./tool.js";
import type { JSONSchema } from "./schema.js";
import { parseJSONArguments } from "./clean-json.js";
import { stepFinish } from "./step-finish.js";

/** What client.stream() yields; the last event is always `finish`. */
export type StreamEvent =
  | Delta
  | { type: "tool-call"; callId: string; name: string; input: unknown; arguments: string }
  | { type: "tool-result"; callId: string; name: string; output: string; isError: boolean; outcome: ToolOutcome; content?: ContentPart[] }
  | StepResult
  | { type: "compaction"; removed: number; summaryTokens: number }
  | { type: "suspended"; pending: PendingCall[] }
  | ({ type: "finish" } & RunResult);

/** A call waiting for a decision (client.pending, SuspendedError.pending, the `suspended` event). */
export interface PendingCall {
  callId: string;
  name: string;
  /** The parsed arguments (the raw string when they do not parse). */
  input: unknown;
  arguments: string;
  kind: PendingKind;
  message?: string;
  schema?: unknown;
}

/**
 * A finished step: the stream's `step-finish` event, what onStepFinish gets and what stop
 * conditions read as `lastStep`. `usage` is that step's own; `provider` names the one that
 * answered when a fallback() chain did. The calls and results are the history's own (not
 * copied for every step), hence read-only.
 */
export interface StepResult {
  type: "step-finish";
  step: number;
  text: string;
  toolCalls: readonly ToolCall[];
  toolResults: readonly ToolResult[];
  finishReason: FinishReason;
  usage: Usage;
  provider?: string;
}

/** What prepareStep may change for the next model call (tools are Tool objects). */
export interface StepSettings {
  tools?: readonly Tool[];
  toolChoice?: ToolChoice;
  system?: string;
}

/** Runs before each model call; `usage` is the run's total so far. */
export type PrepareStep = (state: { step: number; history: Message[]; usage: Usage }) => StepSettings | void | Promise<StepSettings | void>;

/** The client options the loop reads on every step (ClientOptions extends this). */
export interface StepOptions {
  /** Runs before each model call: may change the tools, toolChoice and system prompt for it. */
  prepareStep?: PrepareStep | undefined;
  /** Called after each step (in chat, ask and stream alike). */
  onStepFinish?: ((step: StepResult) => void | Promise<void>) | undefined;
  /** After a step with tool calls, if one holds: one last call with tools off gives the answer. */
  stopWhen?: StopCondition | readonly StopCondition[] | undefined;
}

export interface LoopConfig {
  provider: Provider;
  registry: Registry;
  /** The client's tool-set check (tools that would wait, web search, the provider's tool rules) for prepareStep's tools. */
  toolSet: (tools: readonly Tool[]) => Registry;
  system: string | undefined;
  maxSteps: number;
  parallel: boolean;
  maxParallel: number;
  maxToolOutput: number;
  finalAnswerOnMaxSteps?: boolean | undefined;
  logger: Logger;
  maxRetries?: number | undefined;
  idleTimeout?: number | undefined;
  toolChoice?: ToolChoice | undefined;
  /** The client's options, read as they are (not copied per run): the step hooks. */
  steps: StepOptions;
  /** createClient({ suspension }): calls may wait for decisions. */
  suspender?: StepGate | undefined;
  /** createClient({ compaction }): may shorten history before a request; resolves what that cost. */
  compact?: (history: Message[], cfg: LoopConfig, opts: RunOptions) => Promise<Usage>;
}

/** What the loop needs of suspension() (see suspension.ts) besides running (and signing) calls. */
export interface StepGate extends CallGate {
  /** The calls in history that wait for a decision, in call order, after the `suspended` event; undefined if none waits. */
  waiting(history: readonly Message[], emit: (event: StreamEvent) => void): PendingCall[] | undefined;
}

export interface RunOptions {
  signal?: AbortSignal;
  responseSchema?: { name: string; schema: JSONSchema };
  /** Stream from the provider and report deltas. */
  stream?: boolean;
  onEvent?: (event: StreamEvent) => void;
  /** Set by suspension() on resume: the step the decisions completed, for stop conditions. */
  resumed?: StepResult | undefined;
  /** Set by suspension() on resume: the calls the decisions ran, which this run's counts include. */
  ran?: { toolCalls: number; toolFailures: number } | undefined;
}

export interface RunResult {
  /** "suspended": calls wait for decisions (see `pending`); the history holds them. */
  status: "done" | "suspended";
  pending: PendingCall[];
  text: string;
  steps: number;
  usage: Usage;
  toolCalls: number;
  /** Tool calls that ended in an error, panic, unknown tool or timeout (invalid input is not a failure). */
  toolFailures: number;
}

const NOT_RUN_OUTPUT = '{"error":"not run: the step limit (maxSteps) was reached"}';

export async function runLoop(history: Message[], cfg: LoopConfig, opts: RunOptions): Promise<RunResult> {
  const { signal, onEvent } = opts;
  const emit = onEvent ?? (() => {});
  let usage = emptyUsage();
  let toolCalls = opts.ran?.toolCalls ?? 0;
  let toolFailures = opts.ran?.toolFailures ?? 0;
  const finish = (text: string, steps: number, pending: PendingCall[] = []): RunResult => {
    const r: RunResult = { status: pending[0] ? "suspended" : "done", pending, text, steps, usage, toolCalls, toolFailures };
    emit({ type: "finish", ...r });
    return r;
  };
  let prev = opts.resumed; // the step before: what stop conditions read, and a suspended run's text

  for (let step = 1; ; step++) {
    // Calls wait (from a saved history, or the step before): no request is made, since a
    // pending result must never reach a provider. Calls that needed nothing have run (once).
    // (Without suspension() the client refuses a history with waiting calls before it gets here.)
    const waiting = cfg.suspender?.waiting(history, emit);
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
      for (const c of calls) emit({ type: "tool-call", callId: c.id, name: c.name.toLowerCase(), input: tryParse(c.arguments), arguments: c.arguments });
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
      suspender: cfg.suspender,
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

/** The `tool-result` event for a result (from the loop, or from decisions on resume). */
export function toolResultEvent(r: ToolResult, outcome: ToolOutcome): StreamEvent {
  return { type: "tool-result", callId: r.callId, name: r.name, output: r.output, isError: r.isError, outcome, ...(r.content && { content: r.content }) };
}

/** A result as history stores it (execution details dropped). */
export function plainResult({ outcome: _, badAnswer: _b, ...r }: ExecutedCall): ToolResult {
  return r;
}

/**
 * The step's calls with one id each. A model (or a compatible server) that reuses an id
 * within a step would need two results under one id, which no provider accepts; the later
 * call gets a fresh id (`<id>_2`, ...), so every call is run and answered exactly once.
 * Adapters replay at most one call per id from providerData and send the renamed ones
 * from the neutral history.
 */
function uniqueCallIds(calls: ToolCall[], logger: Logger): ToolCall[] {
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
export function tryParse(args: string): unknown {
  try {
    return parseJSONArguments(args);
  } catch {
    return args;
  }
}
