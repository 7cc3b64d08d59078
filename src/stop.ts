// Stop conditions for stopWhen: checked after each step that ran tools; when one holds, the
// loop makes one last call with tools off and that answer ends the run. Plain functions, so
// a program that uses none of them ships none of them.
import type { StepResult } from "./loop.js";
import type { Usage } from "./messages.js";

export interface StopState {
  /** Steps (model calls) made so far in this run. */
  steps: number;
  /** The run's usage so far. */
  usage: Usage;
  lastStep: StepResult;
}

export type StopCondition = (state: StopState) => boolean;

/** Stops after `n` tool steps (then the final answer): stepCountIs(2) is two tool steps, then the answer. */
export const stepCountIs =
  (n: number): StopCondition =>
  (s) =>
    s.steps >= n;

/** Stops once the model called `name` (after that step's results are in). */
export const hasToolCall =
  (name: string): StopCondition =>
  (s) =>
    s.lastStep.toolCalls.some((c) => c.name.toLowerCase() === name.toLowerCase());

/** Stops once the run's input plus output tokens pass `n`. */
export const tokensExceed =
  (n: number): StopCondition =>
  (s) =>
    s.usage.inputTokens + s.usage.outputTokens > n;

/** Stops once the run's cost (USD; needs createClient({ pricing })) passes `usd`. */
export const costExceeds =
  (usd: number): StopCondition =>
  (s) =>
    (s.usage.cost ?? 0) > usd;
