// The loop's types: what a run yields (events, steps, results), what it is configured with,
// and the one interface suspension() implements. Kept apart from loop.ts so stop conditions
// and step-finish can name them without importing the loop (no cycle, type-only included).
import type { Logger } from "../base/index.js";
import type { ContentPart, Delta, FinishReason, Message, PendingKind, Provider, ToolCall, ToolChoice, ToolResult, Usage } from "../conversation/index.js";
import type { JSONSchema } from "../schema/index.js";
import type { Registry, Tool } from "../tools/index.js";
import type { CallGate, ToolOutcome } from "./execute.js";

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

export interface StopState {
  /** Steps (model calls) made so far in this run. */
  steps: number;
  /** The run's usage so far. */
  usage: Usage;
  lastStep: StepResult;
}

export type StopCondition = (state: StopState) => boolean;
