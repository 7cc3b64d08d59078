// Chat Completions responses → the neutral ModelResponse. The stream decoder is a small
// state machine: push() each SSE data payload, then finish(). It keeps no I/O of its own,
// so tests feed it recorded streams cut at any byte.
import { StreamError } from "../../src/base/index.js";
import type { Delta, FinishReason, ModelResponse, StreamDecoder, ToolCall, Usage } from "../../src/conversation/index.js";
import { type DecodeContext, errorFromObject, invalidResponse, isRecord, num, parseEventData, str } from "./decode.js";

export function chatUsage(u: unknown): Usage {
  if (!isRecord(u)) return { inputTokens: 0, outputTokens: 0 };
  const usage: Usage = { inputTokens: num(u.prompt_tokens) ?? 0, outputTokens: num(u.completion_tokens) ?? 0 };
  const details = u.prompt_tokens_details;
  const cached = isRecord(details) ? num(details.cached_tokens) : undefined;
  if (cached !== undefined) usage.cacheReadTokens = cached;
  const out = u.completion_tokens_details;
  const reasoning = isRecord(out) ? num(out.reasoning_tokens) : undefined;
  if (reasoning !== undefined) usage.reasoningTokens = reasoning;
  return usage;
}

export function chatFinishReason(reason: string | undefined, hasToolCalls: boolean, refused: boolean): FinishReason {
  if (reason === "length") return "length";
  if (reason === "content_filter" || refused) return "content-filter";
  // Some compatible servers answer tool calls with finish_reason "stop".
  if (hasToolCalls) return "tool-calls";
  if (reason === "stop") return "stop";
  if (reason === "tool_calls" || reason === "function_call") return "tool-calls";
  return "other";
}

/** A whole (non-streamed) chat.completion body. */
export function decodeChatBody(ctx: DecodeContext, body: unknown): ModelResponse {
  if (!isRecord(body)) throw invalidResponse(ctx, "the response body is not a JSON object");
  if (body.error !== undefined && body.error !== null) throw errorFromObject(ctx, body.error, "the server returned an error");
  const choices = body.choices;
  const choice = Array.isArray(choices) ? choices[0] : undefined;
  if (!isRecord(choice)) throw invalidResponse(ctx, "the response has no choices");
  const message = isRecord(choice.message) ? choice.message : {};
  let text = contentText(message.content);
  const refusal = str(message.refusal);
  const refused = text === "" && !!refusal;
  if (refused) text = refusal!;
  const toolCalls: ToolCall[] = [];
  if (Array.isArray(message.tool_calls)) {
    message.tool_calls.forEach((tc, i) => {
      if (!isRecord(tc)) return;
      const fn = isRecord(tc.function) ? tc.function : {};
      toolCalls.push({
        id: str(tc.id) || `call_${i + 1}`,
        name: str(fn.name) ?? "",
        arguments: normalizeArguments(str(fn.arguments) ?? ""),
      });
    });
  }
  return {
    text,
    toolCalls,
    finishReason: chatFinishReason(str(choice.finish_reason), toolCalls.length > 0, refused),
    usage: chatUsage(body.usage),
  };
}

/** message.content is a string, null, or (on a few servers) an array of text parts. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (isRecord(p) ? (str(p.text) ?? "") : "")).join("");
  return "";
}

/** "" means "no arguments". */
function normalizeArguments(args: string): string {
  return args.trim() === "" ? "{}" : args;
}

interface StreamingCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * push() takes one SSE data payload (a JSON chunk or "[DONE]"); finish() gives the
 * response, or throws StreamError when the stream stopped before its end.
 */
export function createChatStreamDecoder(ctx: DecodeContext, onDelta?: (delta: Delta) => void): StreamDecoder {
  let text = "";
  let refusal = "";
  const calls: StreamingCall[] = [];
  const byIndex = new Map<number, StreamingCall>();
  let finishReason: string | undefined;
  let usage: Usage = { inputTokens: 0, outputTokens: 0 };
  let done = false;

  const toolDelta = (tc: Record<string, unknown>) => {
    const fn = isRecord(tc.function) ? tc.function : {};
    const id = str(tc.id) || undefined;
    const index = num(tc.index);
    let call = index !== undefined ? byIndex.get(index) : calls[calls.length - 1];
    // A new id on a known index starts a new call (servers that number every call 0).
    if (!call || (id !== undefined && call.id !== id)) {
      call = { id: id ?? `call_${calls.length + 1}`, name: "", arguments: "" };
      calls.push(call);
      if (index !== undefined) byIndex.set(index, call);
    }
    const name = str(fn.name);
    if (name && call.name === "") call.name = name;
    const args = str(fn.arguments);
    if (args) {
      call.arguments += args;
      onDelta?.({ type: "tool-call-delta", callId: call.id, name: call.name, argsDelta: args });
    }
  };

  return {
    push(data) {
      if (done) return;
      if (data.trim() === "[DONE]") {
        done = true;
        return;
      }
      const chunk = parseEventData(ctx, data);
      if (!isRecord(chunk)) return;
      if (chunk.error !== undefined && chunk.error !== null) throw errorFromObject(ctx, chunk.error, "error event in the stream");
      if (isRecord(chunk.usage)) usage = chatUsage(chunk.usage);
      const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
      for (const choice of choices) {
        if (!isRecord(choice) || (num(choice.index) ?? 0) !== 0) continue;
        const delta = isRecord(choice.delta) ? choice.delta : {};
        const content = str(delta.content);
        if (content) {
          text += content;
          onDelta?.({ type: "text-delta", text: content });
        }
        // Compatible servers that reason (vLLM, DeepSeek, llama.cpp, Ollama) stream the thinking
        // beside the answer under one of these names; OpenAI's Chat Completions shows none.
        const thinking = str(delta.reasoning_content) || str(delta.reasoning);
        if (thinking) onDelta?.({ type: "reasoning-delta", text: thinking });
        const refusalPart = str(delta.refusal);
        if (refusalPart) refusal += refusalPart;
        if (Array.isArray(delta.tool_calls)) for (const tc of delta.tool_calls) if (isRecord(tc)) toolDelta(tc);
        const reason = str(choice.finish_reason);
        if (reason) finishReason = reason;
      }
    },
    finish() {
      // [DONE] is the end; a server that closes cleanly after a finish_reason lost only usage.
      if (!done && finishReason === undefined) {
        throw new StreamError(ctx.provider, "the stream ended before the response was complete (no finish_reason or [DONE])", {
          requestId: ctx.requestId?.(),
        });
      }
      const refused = text === "" && refusal !== "";
      if (refused) {
        text = refusal;
        onDelta?.({ type: "text-delta", text: refusal });
      }
      const toolCalls = calls.map((c) => ({ id: c.id, name: c.name, arguments: normalizeArguments(c.arguments) }));
      return { text, toolCalls, finishReason: chatFinishReason(finishReason, toolCalls.length > 0, refused), usage };
    },
  };
}
