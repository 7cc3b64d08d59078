// Responses API output → the neutral ModelResponse. The stream decoder is a small state
// machine fed one SSE event at a time; the final answer is built from the terminal event's
// output items (or, when a proxy leaves those out, from the items the stream completed),
// and those items become providerData so the next request can replay them.
import { StreamError } from "../../src/base/index.js";
import type { Delta, FinishReason, ModelResponse, StreamDecoder, ToolCall, Usage } from "../../src/conversation/index.js";
import { type DecodeContext, errorFromObject, invalidResponse, isRecord, num, parseEventData, str } from "./decode.js";

type Item = Record<string, unknown>;

/** Text of separate message items is joined with a blank line (the stream emits it too). */
const MESSAGE_SEPARATOR = "\n\n";

export function responsesUsage(u: unknown, items: readonly Item[]): Usage {
  const usage: Usage = { inputTokens: 0, outputTokens: 0 };
  if (isRecord(u)) {
    usage.inputTokens = num(u.input_tokens) ?? 0;
    usage.outputTokens = num(u.output_tokens) ?? 0;
    // input_tokens counts the cached ones too, output_tokens the reasoning: as Usage wants them.
    const details = u.input_tokens_details;
    const cached = isRecord(details) ? num(details.cached_tokens) : undefined;
    if (cached !== undefined) usage.cacheReadTokens = cached;
    const out = u.output_tokens_details;
    const reasoning = isRecord(out) ? num(out.reasoning_tokens) : undefined;
    if (reasoning !== undefined) usage.reasoningTokens = reasoning;
  }
  const searches = items.filter(isSearch).length;
  if (searches > 0) usage.webSearches = searches;
  return usage;
}

/**
 * A web_search_call that ran a search (what is billed): not the open_page / find_in_page
 * actions the model takes on pages it already found. Items without an action (older
 * web_search_preview output) were searches.
 */
function isSearch(item: Item): boolean {
  if (item.type !== "web_search_call") return false;
  return !isRecord(item.action) || item.action.type === undefined || item.action.type === "search";
}

/** The neutral response for a finished Response object (status completed or incomplete). */
export function responseFromOutput(ctx: DecodeContext, response: Item, items: readonly Item[]): ModelResponse {
  const texts: string[] = [];
  let refused = false;
  const toolCalls: ToolCall[] = [];
  for (const item of items) {
    if (item.type === "message") {
      const t = messageText(item);
      if (t.text !== "") texts.push(t.text);
      refused ||= t.refused;
    } else if (item.type === "function_call") {
      const args = str(item.arguments) ?? "";
      toolCalls.push({
        id: str(item.call_id) || str(item.id) || `call_${toolCalls.length + 1}`,
        name: str(item.name) ?? "",
        arguments: args.trim() === "" ? "{}" : args,
      });
    }
  }
  const result: ModelResponse = {
    text: texts.join(MESSAGE_SEPARATOR),
    toolCalls,
    finishReason: finishReason(response, toolCalls.length > 0, refused),
    usage: responsesUsage(response.usage, items),
  };
  // The items are the decoder's own (parsed from this response, never handed out elsewhere), so
  // the history keeps them as they are instead of a copy.
  if (items.length > 0) result.providerData = { provider: ctx.provider, value: items };
  return result;
}

function messageText(item: Item): { text: string; refused: boolean } {
  let text = "";
  let refused = false;
  const content = Array.isArray(item.content) ? item.content : [];
  for (const part of content) {
    if (!isRecord(part)) continue;
    if (part.type === "output_text") text += str(part.text) ?? "";
    else if (part.type === "refusal") {
      text += str(part.refusal) ?? "";
      refused = true;
    }
  }
  return { text, refused };
}

function finishReason(response: Item, hasToolCalls: boolean, refused: boolean): FinishReason {
  if (response.status === "incomplete") {
    const reason = isRecord(response.incomplete_details) ? str(response.incomplete_details.reason) : undefined;
    if (reason === "max_output_tokens") return "length";
    if (reason === "content_filter") return "content-filter";
    return "other";
  }
  if (hasToolCalls) return "tool-calls";
  if (refused) return "content-filter";
  return response.status === "completed" || response.status === undefined ? "stop" : "other";
}

/** A whole (non-streamed) Response object. */
export function decodeResponsesBody(ctx: DecodeContext, body: unknown): ModelResponse {
  if (!isRecord(body)) throw invalidResponse(ctx, "the response body is not a JSON object");
  if (body.status === "failed" || (isRecord(body.error) && body.status !== "completed")) {
    throw errorFromObject(ctx, body.error, "the response failed");
  }
  if (!Array.isArray(body.output)) throw invalidResponse(ctx, "the response has no output");
  return responseFromOutput(ctx, body, body.output.filter(isRecord));
}

interface StreamItem {
  index: number;
  item: Item;
  /** Arguments or text gathered from deltas, used when no final copy of the item arrives. */
  text: string;
  args: string;
  done: boolean;
}

/**
 * push() takes one SSE event's data (its JSON payload; the `event:` name repeats the JSON
 * type); finish() gives the response, or throws StreamError when no terminal event arrived.
 */
export function createResponsesStreamDecoder(ctx: DecodeContext, onDelta?: (delta: Delta) => void): StreamDecoder {
  const byIndex = new Map<number, StreamItem>();
  const byId = new Map<string, StreamItem>();
  let result: ModelResponse | undefined;
  let textItem: StreamItem | undefined; // the message item text deltas last went to
  let emittedText = false;
  let reasoningAt: string | undefined; // the item and summary part reasoning deltas last went to

  const find = (ev: Item): StreamItem | undefined => {
    const id = str(ev.item_id);
    if (id !== undefined && byId.has(id)) return byId.get(id);
    const index = num(ev.output_index);
    return index !== undefined ? byIndex.get(index) : undefined;
  };

  const track = (ev: Item): StreamItem | undefined => {
    if (!isRecord(ev.item)) return undefined;
    const index = num(ev.output_index) ?? byIndex.size;
    const item = ev.item; // parsed from this event alone: nothing else holds it
    let s = byIndex.get(index);
    if (!s) {
      s = { index, item, text: "", args: "", done: false };
      byIndex.set(index, s);
    } else s.item = item;
    const id = str(item.id);
    if (id !== undefined) byId.set(id, s);
    return s;
  };

  const text = (s: StreamItem | undefined, delta: string) => {
    if (!delta) return;
    if (s) s.text += delta;
    // A new message item after text was shown: the same blank line the final text has.
    if (emittedText && s !== textItem) onDelta?.({ type: "text-delta", text: MESSAGE_SEPARATOR });
    textItem = s;
    emittedText = true;
    onDelta?.({ type: "text-delta", text: delta });
  };

  const terminal = (response: unknown) => {
    if (!isRecord(response)) throw invalidResponse(ctx, "a terminal event carries no response");
    const output = Array.isArray(response.output) ? response.output : [];
    // Each item as response.output_item.done gave it: OpenAI documents that copy (its
    // encrypted_content) as the one to send back. Proxies sometimes leave the terminal
    // event's output empty; the stream had the items.
    const items =
      output.length > 0
        ? output
            .map((item, i) => {
              const s = byIndex.get(i);
              return s?.done ? s.item : item;
            })
            .filter(isRecord)
        : streamedItems();
    result = responseFromOutput(ctx, response, items);
  };

  const streamedItems = (): Item[] =>
    [...byIndex.values()]
      .sort((a, b) => a.index - b.index)
      .map((s) => {
        if (s.done) return s.item;
        const item = { ...s.item };
        if (item.type === "function_call" && s.args) item.arguments = s.args;
        if (item.type === "message" && s.text && !(Array.isArray(item.content) && item.content.length > 0)) {
          item.content = [{ type: "output_text", text: s.text, annotations: [] }];
        }
        return item;
      });

  return {
    push(data) {
      if (result) return;
      const ev = parseEventData(ctx, data);
      if (!isRecord(ev)) return;
      switch (ev.type) {
        case "response.output_item.added":
          track(ev);
          break;
        case "response.output_item.done": {
          const s = track(ev);
          if (s) s.done = true;
          break;
        }
        case "response.output_text.delta":
        case "response.refusal.delta":
          text(find(ev), str(ev.delta) ?? "");
          break;
        case "response.reasoning_summary_text.delta": {
          const delta = str(ev.delta) ?? "";
          if (!delta) break;
          // Summary parts (and reasoning items) are separate paragraphs, as they read in the output.
          const at = `${str(ev.item_id) ?? num(ev.output_index) ?? ""}/${num(ev.summary_index) ?? 0}`;
          if (reasoningAt !== undefined && at !== reasoningAt) onDelta?.({ type: "reasoning-delta", text: MESSAGE_SEPARATOR });
          reasoningAt = at;
          onDelta?.({ type: "reasoning-delta", text: delta });
          break;
        }
        case "response.function_call_arguments.delta": {
          const s = find(ev);
          const delta = str(ev.delta) ?? "";
          if (!s || !delta) break;
          s.args += delta;
          const callId = str(s.item.call_id) ?? str(s.item.id) ?? "";
          onDelta?.({ type: "tool-call-delta", callId, name: str(s.item.name) ?? "", argsDelta: delta });
          break;
        }
        case "response.function_call_arguments.done": {
          const s = find(ev);
          const args = str(ev.arguments);
          if (s && args !== undefined) s.args = args;
          break;
        }
        case "response.completed":
        case "response.incomplete":
          terminal(ev.response);
          break;
        case "response.failed": {
          const response = isRecord(ev.response) ? ev.response : {};
          throw errorFromObject(ctx, response.error, "the response failed");
        }
        case "error":
          // {type:"error", error:{type, code, message}} or the flat {type:"error", code, message}
          throw errorFromObject(ctx, isRecord(ev.error) ? ev.error : { ...ev, type: ev.code }, "error event in the stream");
      }
    },
    finish() {
      if (!result) {
        throw new StreamError(ctx.provider, "the stream ended without response.completed", { requestId: ctx.requestId?.() });
      }
      return result;
    },
  };
}
