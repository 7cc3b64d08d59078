// The API's answer → the neutral ModelResponse. A non-streamed body and a stream both
// become a Turn (the message as the API described it), mapped by one function, so the two
// cannot drift apart. The stream decoder is a small state machine fed one SSE event at a
// time (no I/O, no timers): postSSE drives it, and tests split recorded streams at
// arbitrary byte boundaries. It rebuilds the message a non-streaming request would have
// returned, plus the raw argument text of each tool call as the model wrote it.
import { optionalString, ProviderError, StreamError, stringOr, tryParse } from "../../src/base/index.js";
import type { Delta, ModelResponse, StreamDecoder, ToolCall, Usage } from "../../src/conversation/index.js";
import { finishReason, toUsage } from "./usage.js";
import { type Block, isBlock, isRecord, type Turn, type WireUsage } from "./wire.js";

const PROVIDER = "claude";

export interface SSEEvent {
  event?: string | undefined;
  data: string;
}

/**
 * The one decoder contract (src/provider.ts), fed one SSE event at a time. push() throws
 * ProviderError on an `error` event and StreamError on malformed data; finish() throws
 * StreamError when the stream ended before message_stop. turn() is the same end as the
 * Turn, for what the adapter does before mapping it (pause_turn, tool-mode ask()).
 */
export interface ClaudeStreamDecoder extends StreamDecoder<SSEEvent> {
  /** True once message_stop arrived. */
  readonly finished: boolean;
  turn(): Turn;
}

/** What a decoder knows of its request, as the OpenAI and Gemini decoders' DecodeContext. */
export interface DecodeContext {
  /** The HTTP request id, for errors raised by an in-stream `error` event. */
  requestId?: () => string | undefined;
}

/** The delta types whose pieces are joined into a field, and that field of the delta (text_delta's `text`, ...). */
const DELTAS = ["text_delta", "thinking_delta", "signature_delta", "input_json_delta"];
const FIELDS = ["text", "thinking", "signature", "partial_json"] as const;

/** A content block being assembled from its deltas: the pieces of each field (as FIELDS), joined at the end. */
interface Building {
  block: Block;
  pieces: (string[] | undefined)[];
}

export function createStreamDecoder(ctx: DecodeContext = {}, onDelta?: (delta: Delta) => void): ClaudeStreamDecoder {
  let started = false;
  let finished = false;
  let id: string | undefined;
  let stopReason: string | undefined;
  let usage: WireUsage = {};
  let blocks = new Map<number, Building>();

  const fail = (why: string): never => {
    throw new StreamError(PROVIDER, why, { requestId: ctx.requestId?.() });
  };

  const onMessageStart = (data: Record<string, unknown>) => {
    // A second message_start means whatever sent the stream (the API or a proxy that
    // retried upstream) began the message again: what came before is not part of it.
    const message = isRecord(data.message) ? data.message : {};
    started = true;
    id = optionalString(message.id);
    // Usually null here, but a continuation (programmatic tool calling) may send the whole
    // message in message_start, stop_reason included, and no message_delta after it.
    stopReason = optionalString(message.stop_reason);
    usage = isRecord(message.usage) ? { ...(message.usage as WireUsage) } : {};
    blocks = new Map();
    // Some gateways put content into message_start; keep it as already-finished blocks.
    if (Array.isArray(message.content)) {
      message.content.forEach((b, i) => {
        if (isBlock(b)) blocks.set(i, { block: b, pieces: [] });
      });
    }
  };

  const onBlockStart = (data: Record<string, unknown>) => {
    const index = indexOf(data);
    if (!isBlock(data.content_block)) return fail(`content_block_start ${index} has no content block`);
    // `data` was parsed from this event's text inside push() and nothing else holds it, so the
    // block can be finished in place: no copy needed.
    blocks.set(index, { block: data.content_block, pieces: [] });
  };

  const onBlockDelta = (data: Record<string, unknown>) => {
    const index = indexOf(data);
    const b = blocks.get(index);
    if (!b) return fail(`content_block_delta for block ${index}, which never started`);
    const delta = isRecord(data.delta) ? data.delta : {};
    if (delta.type === "citations_delta") {
      const list = Array.isArray(b.block.citations) ? b.block.citations : (b.block.citations = []);
      (list as unknown[]).push(delta.citation);
      return;
    }
    const kind = DELTAS.indexOf(delta.type as string);
    if (kind < 0) return; // a delta type from a newer API version: nothing here depends on it
    const piece = stringOr(delta[FIELDS[kind]!], "");
    (b.pieces[kind] ??= []).push(piece);
    if (!piece || !onDelta) return;
    // Thinking is shown as reasoning; the block (with its signature) is still replayed whole.
    if (kind === 0) onDelta({ type: "text-delta", text: piece });
    else if (kind === 1) onDelta({ type: "reasoning-delta", text: piece });
    else if (kind === 3 && b.block.type === "tool_use") {
      onDelta({ type: "tool-call-delta", callId: stringOr(b.block.id, ""), name: stringOr(b.block.name, ""), argsDelta: piece });
    }
  };

  const onMessageDelta = (data: Record<string, unknown>) => {
    const delta = isRecord(data.delta) ? data.delta : {};
    if (typeof delta.stop_reason === "string") stopReason = delta.stop_reason;
    // message_delta usage is cumulative: a field it carries replaces the message_start one
    // (output_tokens always; input_tokens too on some models and gateways).
    if (isRecord(data.usage)) {
      for (const [k, v] of Object.entries(data.usage)) if (v !== undefined && v !== null) usage[k] = v;
    }
  };

  return {
    get finished() {
      return finished;
    },
    push(event) {
      if (finished) return;
      let data: unknown;
      try {
        data = JSON.parse(event.data);
      } catch {
        // not JSON: failed below like JSON that is not an object
      }
      if (!isRecord(data)) return fail(`malformed event data: ${event.data.slice(0, 120)}`);
      const type = typeof data.type === "string" ? data.type : event.event;
      if (type === "error" || event.event === "error") throw streamedError(data, ctx.requestId?.());
      if (type === "ping") return;
      if (type === "message_start") return onMessageStart(data);
      if (!started) return fail(`${type} arrived before message_start`);
      switch (type) {
        case "content_block_start":
          return onBlockStart(data);
        case "content_block_delta":
          return onBlockDelta(data);
        case "content_block_stop":
          return; // blocks are finalized together at the end, in index order
        case "message_delta":
          return onMessageDelta(data);
        case "message_stop":
          finished = true;
          return;
        default:
          return; // an event type from a newer API version
      }
    },
    finish() {
      return toModelResponse(this.turn());
    },
    turn() {
      if (!finished) fail(started ? "the stream ended before message_stop" : "the stream ended before message_start");
      const content: Block[] = [];
      const rawArguments: (string | undefined)[] = [];
      for (const index of [...blocks.keys()].sort((a, b) => a - b)) {
        const { block, raw } = finalize(blocks.get(index)!);
        content.push(block);
        rawArguments.push(raw);
      }
      return { id, content, stopReason, usage, rawArguments };
    },
  };
}

/** The finished block, and for a streamed tool call the argument text the model wrote. */
function finalize({ block, pieces }: Building): { block: Block; raw: string | undefined } {
  // text, thinking, signature: the pieces appended to what the block started with
  for (let k = 0; k < 3; k++) if (pieces[k]) block[FIELDS[k]!] = stringOr(block[FIELDS[k]!], "") + pieces[k]!.join("");
  if (!pieces[3]) return { block, raw: undefined };
  const raw = pieces[3].join("");
  if (raw.trim() !== "") {
    // A block must carry an object `input` to be replayed; text that does not parse
    // (cut off by max_tokens) stays available to the loop as the raw arguments.
    const parsed = tryParse(raw)?.value;
    block.input = isRecord(parsed) ? parsed : {};
  } else if (!isRecord(block.input)) {
    block.input = {};
  }
  return { block, raw: block.type === "tool_use" ? (raw.trim() === "" ? "{}" : raw) : undefined };
}

function streamedError(data: Record<string, unknown>, headerRequestId: string | undefined): ProviderError {
  const error = isRecord(data.error) ? data.error : {};
  const type = typeof error.type === "string" ? error.type : "error";
  const requestId = typeof data.request_id === "string" ? data.request_id : headerRequestId;
  return new ProviderError({
    provider: PROVIDER,
    type,
    message: typeof error.message === "string" ? error.message : "error event in the stream",
    ...(requestId ? { requestId } : {}),
    retryable: ["overloaded_error", "api_error", "rate_limit_error"].includes(type),
  });
}

function indexOf(data: Record<string, unknown>): number {
  return typeof data.index === "number" ? data.index : 0;
}

// ---------------------------------------------------------------------------------------
// Non-streamed bodies, and the Turn → ModelResponse mapping both paths share

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
    id: optionalString(body.id),
    content,
    stopReason: optionalString(body.stop_reason),
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
