// The loop's types: what a run yields (events, steps, results), what it is configured with,
// and the one interface suspension() implements (Gate) with the plan it hands a resumed run. Kept apart from loop.ts so stop conditions
// and step-finish can name them without importing the loop (no cycle, type-only included).
import type { Logger } from "../base/index.js";
import type {
  ContentPart,
  Delta,
  FinishReason,
  Message,
  PendingCheck,
  PendingKind,
  Provider,
  ToolCall,
  ToolChoice,
  ToolResult,
  Usage,
} from "../conversation/index.js";
import type { JSONSchema } from "../schema/index.js";
import type { Registry, Tool } from "../tools/index.js";
import type { Extend } from "./invoke.js";

/** What client.stream() yields; the last event is always `finish`. */
export type StreamEvent =
  | Delta
  | { type: "tool-call"; callId: string; name: string; input: unknown; arguments: string }
  | { type: "tool-result"; callId: string; name: string; output: string; isError: boolean; outcome: ToolOutcome; content?: ContentPart[] }
  | StepResult
  | { type: "compaction"; removed: number; summaryTokens: number }
  | { type: "suspended"; pending: PendingCall[] }
  /**
   * A durable run continues after an interruption (a journal's client): `step` is the step it
   * continues; `restart` says that step's model reply was cut off and is asked for again, so the
   * text and tool-call events already seen for it are to be dropped.
   */
  | { type: "recovery"; step: number; recoveries: number; restart: boolean }
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
export type PrepareStep = (state: { step: number; history: Message[]; usage: Usage }) => StepSettings | undefined | Promise<StepSettings | undefined>;

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
  gate?: Gate | undefined;
  /** createClient({ compaction }): may shorten history before a request; resolves what that cost. */
  compact?: (history: Message[], cfg: LoopConfig, opts: RunOptions) => Promise<Usage>;
}

export type ToolOutcome = "ok" | "invalid_input" | "error" | "panic" | "unknown_tool" | "timeout" | "cancelled";

export interface ExecutedCall extends ToolResult {
  outcome: ToolOutcome;
  /** requestInput() got an answer that fails its schema (resume refuses the batch). */
  badAnswer?: string;
}

/** What a resumed call already has: the approval, and the answers given so far (in order). */
export interface Resumed {
  approved?: boolean | undefined;
  answers?: unknown[] | undefined;
  /** Only check the newest answer: the handler is stopped where it would get it. */
  check?: boolean | undefined;
}

export interface ExecuteOptions {
  registry: Registry;
  parallel: boolean;
  maxParallel: number;
  maxToolOutput: number;
  logger: Logger;
  signal?: AbortSignal;
  /** createClient({ suspension }): lets calls wait for decisions. */
  gate?: Gate | undefined;
  /** Adds to each handler's context (the gate's ctx.requestInput). */
  extend?: Extend | undefined;
  /** The conversation the calls are made in: suspension() signs a waiting call over it. */
  history?: readonly Message[] | undefined;
  /** Calls resumed after a suspension, by call id. */
  resumed?: ReadonlyMap<string, Resumed>;
  /** Called as each call settles (in completion order); not for calls left pending. */
  onResult?: (result: ExecutedCall) => void;
}

/**
 * A batch of decisions, checked (suspension/decisions.ts) and turned into what the loop does
 * before its first step (loop/plan.ts): the calls that run, with the input they run with,
 * through the loop's one executeCalls; the results given without running.
 */
export interface Plan {
  /** requestInput handlers answered: run first, so an answer that fails its schema refuses the batch before anything else runs. */
  answered: readonly ToolCall[];
  /** Approved calls (edited input as their arguments): run after the answered ones. */
  approved: readonly ToolCall[];
  /** What each planned call already has (its approval, its answers), by call id. */
  resumed: ReadonlyMap<string, Resumed>;
  /** Results that need no run (a denial, an external tool's output), by call id. */
  results: ReadonlyMap<string, ToolResult>;
}

/** What a plan did: the latest step it completed (stop conditions read it), and the calls it ran. */
export interface PlanDone {
  last: StepResult | undefined;
  toolCalls: number;
  toolFailures: number;
}

/**
 * The one interface between the loop and suspension() (suspension/ implements it); without it
 * no call ever waits. The loop calls `run`, `waiting` and `resume`; the client calls the rest.
 */
export interface Gate {
  /**
   * Runs a call in runOne's place: holds it (it waits before its handler runs, or its approval
   * rule threw), or runs it through runOne with an `extend` behind ctx.requestInput, and
   * returns the waiting (signed) result when the handler asked for something not answered yet.
   */
  run(call: ToolCall, opts: ExecuteOptions): Promise<ExecutedCall>;
  /** The calls in history that wait for a decision, in call order, after the `suspended` event; undefined if none waits. */
  waiting(history: readonly Message[], emit: (event: StreamEvent) => void): PendingCall[] | undefined;
  /**
   * Carries out a plan before the first step: the loop's own runPlan (loop/plan.ts), reached
   * through the gate only so that an agent without suspension() ships none of it.
   */
  resume(history: Message[], plan: Plan, cfg: LoopConfig, opts: RunOptions): Promise<PlanDone>;
  /** The calls in history that wait for a decision, in call order (client.pending). */
  pending(history: readonly Message[]): PendingCall[];
  /** Checks a batch of decisions (InvalidDecisionError if any is refused; history is only read) and plans it. */
  plan(history: readonly Message[], decisions: unknown, registry: Registry, maxToolOutput: number): Promise<Plan>;
  /** A new prompt: answers every call still waiting (but those `plan` runs or answers) as cancelled; returns the undo. */
  cancel(history: Message[], plan: Plan | undefined): () => void;
  /** Checks a saved history's pending state (add(), createClient({ history })). */
  check: PendingCheck;
  /** chat() and ask() take a run's text: a suspended run rejects them with SuspendedError. */
  done(r: RunResult): RunResult;
}

export interface RunOptions {
  signal?: AbortSignal;
  responseSchema?: { name: string; schema: JSONSchema };
  /** Stream from the provider and report deltas. */
  stream?: boolean;
  onEvent?: (event: StreamEvent) => void;
  /** Resuming: the decisions' plan, carried out before the first step (its runs count in this run). */
  plan?: Plan | undefined;
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

export interface StopState {
  /** Steps (model calls) made so far in this run. */
  steps: number;
  /** The run's usage so far. */
  usage: Usage;
  lastStep: StepResult;
}

export type StopCondition = (state: StopState) => boolean;
