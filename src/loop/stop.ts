// Stop conditions for stopWhen: checked after each step that ran tools; when one holds, the
// loop makes one last call with tools off and that answer ends the run. Plain functions, so
// a program that uses none of them ships none of them.
import { InvalidOptionsError } from "../base/index.js";
import type { StopCondition } from "./types.js";

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

/**
 * Stops once the run's cost (USD) passes `usd`. Needs createClient({ pricing }) (or a provider
 * that reports `usage.cost`): without a cost it throws InvalidOptionsError at the first check,
 * rather than never holding while the run spends.
 */
export const costExceeds =
  (usd: number): StopCondition =>
  ({ usage: { cost } }) => {
    if (cost === undefined) throw new InvalidOptionsError("stopWhen: costExceeds() reads usage.cost, which needs createClient({ pricing: { input, output } })");
    return cost > usd;
  };
