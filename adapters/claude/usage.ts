// Anthropic `usage` and `stop_reason` → the neutral Usage and FinishReason. One module for
// toolloop/claude and toolloop/claude-local (the CLI reports the API's own fields), so both
// count the same way.
import { finiteNumber } from "../../src/base/index.js";
import type { FinishReason, Usage } from "../../src/conversation/index.js";
import { isRecord } from "./wire.js";

/**
 * `input_tokens` is only the part of the prompt after the last cache breakpoint; the
 * cache reads and writes are billed beside it. The neutral `inputTokens` is the whole
 * prompt (as OpenAI and Gemini count it), with the cached parts also reported alone.
 */
export function toUsage(raw: unknown): Usage {
  const u = isRecord(raw) ? raw : {};
  const fresh = finiteNumber(u.input_tokens) ?? 0;
  const write = finiteNumber(u.cache_creation_input_tokens);
  const read = finiteNumber(u.cache_read_input_tokens);
  const usage: Usage = { inputTokens: fresh + (write ?? 0) + (read ?? 0), outputTokens: finiteNumber(u.output_tokens) ?? 0 };
  if (read !== undefined) usage.cacheReadTokens = read;
  if (write !== undefined) usage.cacheWriteTokens = write;
  // Newer models report the thinking share of output_tokens (it stays part of outputTokens).
  const thinking = isRecord(u.output_tokens_details) ? finiteNumber(u.output_tokens_details.thinking_tokens) : undefined;
  if (thinking !== undefined) usage.reasoningTokens = thinking;
  const searches = isRecord(u.server_tool_use) ? finiteNumber(u.server_tool_use.web_search_requests) : undefined;
  if (searches !== undefined) usage.webSearches = searches;
  return usage;
}

const FINISH: Record<string, FinishReason> = {
  end_turn: "stop",
  stop_sequence: "stop",
  tool_use: "tool-calls",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  refusal: "content-filter",
};

export function finishReason(stop: unknown): FinishReason {
  // own keys only: a stop_reason of "constructor" is as unknown as any other
  return typeof stop === "string" && Object.hasOwn(FINISH, stop) ? FINISH[stop]! : "other";
}
