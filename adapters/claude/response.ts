// From the API's message to the neutral ModelResponse. Streamed and non-streamed turns
// both arrive here as a Turn, so they are mapped by one function and cannot drift apart.
import { ProviderError } from "../../src/errors.js";
import type { ToolCall, Usage } from "../../src/messages.js";
import type { ModelResponse } from "../../src/provider.js";
import { finishReason, toUsage } from "./usage.js";
import { isBlock, isRecord, type Turn, type WireUsage } from "./wire.js";

/** Reads a non-streaming response body. */
export function decodeMessage(body: unknown, requestId?: string): Turn {
  if (!isRecord(body) || !Array.isArray(body.content)) {
    throw new ProviderError({
      provider: "claude",
      type: "invalid_response",
      message: "the response is not a message (no content array)",
      ...(requestId ? { requestId } : {}),
    });
  }
  const content = body.content.filter(isBlock);
  return {
    id: typeof body.id === "string" ? body.id : undefined,
    content,
    stopReason: typeof body.stop_reason === "string" ? body.stop_reason : undefined,
    usage: isRecord(body.usage) ? (body.usage as WireUsage) : {},
    rawArguments: content.map(() => undefined),
  };
}

/** Joins a paused turn and its continuation(s) into one, as if the model never paused. */
export function mergeTurns(first: Turn, next: Turn): Turn {
  return {
    id: first.id,
    content: [...first.content, ...next.content],
    stopReason: next.stopReason,
    usage: first.usage, // usage is summed per request by the caller (each was billed)
    rawArguments: [...first.rawArguments, ...next.rawArguments],
  };
}

export function toModelResponse(turn: Turn, usage: Usage = toUsage(turn.usage)): ModelResponse {
  let text = "";
  const toolCalls: ToolCall[] = [];
  turn.content.forEach((block, i) => {
    if (block.type === "text" && typeof block.text === "string") text += block.text;
    else if (block.type === "tool_use") {
      const raw = turn.rawArguments[i];
      toolCalls.push({
        id: String(block.id ?? ""),
        name: String(block.name ?? ""),
        // A non-object input (a broken gateway) reaches validation as it is, not as a silent {}.
        arguments: raw ?? (block.input === undefined ? "{}" : JSON.stringify(block.input)),
      });
    }
  });
  const response: ModelResponse = { text, toolCalls, finishReason: finishReason(turn.stopReason), usage };
  if (turn.content.length > 0) {
    // The blocks were parsed for this turn alone (stream decoder or response body) and are
    // not touched again here, so history can own them as they are.
    response.providerData = { provider: "claude", value: turn.content };
  }
  return response;
}
