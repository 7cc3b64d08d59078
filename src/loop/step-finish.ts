// The step-finish event (the StepResult stop conditions and onStepFinish read), made from the
// step's model response.

import type { ModelResponse, ToolCall, ToolResult } from "../conversation/index.js";
import type { ExecutedCall, StepResult, StreamEvent, ToolOutcome } from "./types.js";

/** The fields a ModelResponse may have: a response with only these takes the fast path. */
const RESPONSE_FIELDS = new Set(["text", "toolCalls", "finishReason", "usage", "providerData", "provider"]);

/**
 * What the step said, in the response's own key order, without what the history keeps apart
 * (providerData) or renames (its calls: the step's are `calls`); then the event's own fields,
 * so a custom provider's own fields cannot pass for the event's type or step. A response with
 * only the known fields is copied key by key: `{ ...rest, type, step, ... }` over the rest of a
 * destructured response took V8's slow path, ~6 µs a step.
 */
export function stepFinish(response: ModelResponse, step: number, calls: readonly ToolCall[], toolResults: readonly ToolResult[]): StepResult {
  const keys = Object.keys(response);
  let s: Record<string, unknown>;
  if (keys.every((k) => RESPONSE_FIELDS.has(k))) {
    s = {};
    for (const k of keys) if (k !== "providerData" && k !== "toolCalls") s[k] = response[k as keyof ModelResponse];
  } else {
    const { providerData: _p, toolCalls: _c, ...said } = response;
    s = { ...said };
  }
  s.type = "step-finish";
  s.step = step;
  s.toolCalls = calls;
  s.toolResults = toolResults;
  return s as unknown as StepResult;
}

/** The `tool-result` event for a result (from the loop, or from decisions on resume). */
export function toolResultEvent(r: ToolResult, outcome: ToolOutcome): StreamEvent {
  return { type: "tool-result", callId: r.callId, name: r.name, output: r.output, isError: r.isError, outcome, ...(r.content && { content: r.content }) };
}

/** A result as history stores it (execution details dropped). */
export function plainResult({ outcome: _, badAnswer: _b, ...r }: ExecutedCall): ToolResult {
  return r;
}
