// GenerateContentResponse → neutral ModelResponse, as a small pure state machine fed one
// response chunk at a time: createStreamDecoder() is the StreamDecoder (src/conversation/provider.ts) for
// streamGenerateContent?alt=sse (push() each event's data, deltas go to onDelta), and
// decodeBody() runs the same machine over one generateContent body. No I/O, so it can be fed
// a recorded stream split anywhere.
//
// What is kept for the next request (providerData.value.parts):
// - JSON mode: the candidate's parts exactly as received.
// - Stream mode: the chunks' parts joined. Text chunks of the same kind (thought or not)
//   are concatenated while neither carries a thoughtSignature; a part that carries one is
//   kept as it came (Gemini 3 wants a signature back on the exact part it arrived on, and
//   in a stream it often arrives on an empty-text part or a part of its own). Empty text
//   parts without a signature carry nothing and are dropped. Complete functionCall parts
//   are kept verbatim; Vertex `partialArgs` calls are assembled into one
//   `{functionCall: {name, args}}` part (see partial-args.ts).
// Thought-summary text (parts with `thought: true`, thinkingConfig.includeThoughts) is
// reported as reasoning-delta, never as answer text.
import { isRecord, optionalString, StreamError } from "../../src/base/index.js";
import type { Delta, ModelResponse, StreamDecoder, ToolCall } from "../../src/conversation/index.js";
import { type ArgsAssembler, createArgsAssembler } from "./partial-args.js";
import { callId, errorFromChunk, mapFinishReason, usageFrom } from "./response-fields.js";
import type { GeminiProviderValue, Part, UsageMetadata } from "./wire.js";

type DecodeMode = "stream" | "json";

export interface DecodeContext {
  /** Name used in errors (default "gemini"). */
  provider?: string;
  /** The response's request id, once known (for a StreamError at the end). */
  requestId?: () => string | undefined;
  /**
   * The call ids the request's history already holds. Asked only when a call comes without
   * an id: the id derived for it never repeats one (a response without responseId that makes
   * the same call as an earlier step would otherwise get that step's id).
   */
  takenIds?: () => ReadonlySet<string>;
}

export interface Decoded {
  response: ModelResponse;
  /** The raw finishReason ("STOP", "MALFORMED_FUNCTION_CALL", ...); undefined if none came. */
  finishReason: string | undefined;
  finishMessage: string | undefined;
}

/** The StreamDecoder over SSE event data, plus the raw finish the adapter's re-ask needs. */
export interface GeminiStreamDecoder extends StreamDecoder<string> {
  /** finish() with the raw finishReason / finishMessage beside the response. */
  finishDecoded(): Decoded;
}

type Emit = ((delta: Delta) => void) | undefined;

interface Machine {
  /**
   * Feeds one GenerateContentResponse, its deltas to `emit` as they are found. Throws
   * ProviderError on an error object, before anything of the chunk is taken or emitted.
   */
  push(chunk: unknown, emit: Emit): void;
  /** In stream mode, throws StreamError if no finishReason (or blockReason) came. */
  finish(): Decoded;
}

/** The decoder for streamGenerateContent?alt=sse: push() each event's data string. */
export function createStreamDecoder(ctx: DecodeContext = {}, onDelta?: (delta: Delta) => void): GeminiStreamDecoder {
  const provider = ctx.provider ?? "gemini";
  const m = createMachine("stream", ctx);
  return {
    push(data) {
      let chunk: unknown;
      try {
        chunk = JSON.parse(data);
      } catch {
        throw new StreamError(provider, `an event is not JSON: ${data.slice(0, 200)}`, { requestId: ctx.requestId?.() });
      }
      m.push(chunk, onDelta);
    },
    finish: () => m.finish().response,
    finishDecoded: () => m.finish(),
  };
}

/**
 * One generateContent body, parsed for this call alone (the adapter's own response): its
 * parts are kept as they are, not copied, as a stream's are.
 */
export function decodeBody(ctx: DecodeContext, body: unknown): Decoded {
  const m = createMachine("json", ctx);
  m.push(body, undefined);
  return m.finish();
}

interface OpenCall {
  name: string;
  id: string | undefined;
  thoughtSignature: string | undefined;
  args: ArgsAssembler;
}

function createMachine(mode: DecodeMode, ctx: DecodeContext): Machine {
  const provider = ctx.provider ?? "gemini";
  // The chunks (a stream's events, or the one body) were parsed for this response and are held
  // by nothing else, so their parts are kept as they are: no copies.
  const parts: Part[] = [];
  const calls: ToolCall[] = [];
  // Text is gathered in pieces and joined once at the end: a string grown by += over thousands
  // of events is a rope that costs far more to build and collect (a 20k-event stream took ~10 %
  // longer for each string grown so). `merged`: the pieces of each text part later ones merged into.
  const textPieces: string[] = [];
  const merged = new Map<Part, string[]>();
  let usage: UsageMetadata | undefined;
  let responseId: string | undefined;
  let finishReason: string | undefined;
  let finishMessage: string | undefined;
  let blockReason: string | undefined;
  let grounding: Record<string, unknown> | undefined;
  let citation: unknown;
  let open: OpenCall | undefined;
  let taken: ReadonlySet<string> | undefined;

  /** A derived id no earlier call of this response or of the history has. */
  const deriveId = (name: string, argsJSON: string): string => {
    taken ??= ctx.takenIds?.() ?? new Set();
    for (let salt = 0; ; salt++) {
      const id = callId(responseId, calls.length, name, argsJSON, salt);
      if (!taken.has(id) && !calls.some((c) => c.id === id)) return id;
    }
  };

  const addCall = (part: Part, emit: Emit) => {
    const fc = part.functionCall!;
    const argsJSON = fc.args === undefined ? "{}" : JSON.stringify(fc.args);
    const name = typeof fc.name === "string" ? fc.name : "";
    // Args that are not an object (a broken server) reach validation as they are; the
    // part kept for replay gets {} because the API takes only a Struct there.
    if (fc.args !== undefined && !isRecord(fc.args)) fc.args = {};
    const id = typeof fc.id === "string" && fc.id ? fc.id : deriveId(name, argsJSON);
    calls.push({ id, name, arguments: argsJSON });
    parts.push(part);
    emit?.({ type: "tool-call-delta", callId: id, name, argsDelta: argsJSON });
  };

  const closeOpen = (emit: Emit) => {
    if (!open) return;
    const fc: Record<string, unknown> = { name: open.name, args: open.args.value() };
    if (open.id) fc.id = open.id;
    const part: Part = { functionCall: fc };
    if (open.thoughtSignature) part.thoughtSignature = open.thoughtSignature;
    open = undefined;
    addCall(part, emit);
  };

  const onFunctionCall = (part: Part, emit: Emit) => {
    const fc = part.functionCall as Record<string, unknown>;
    const fragments = Array.isArray(fc.partialArgs) ? fc.partialArgs : undefined;
    const empty = fc.name === undefined && fc.args === undefined && fragments === undefined;
    if (!empty && fragments === undefined && fc.willContinue !== true) {
      closeOpen(emit);
      addCall(part, emit);
      return;
    }
    if (typeof fc.name === "string") {
      closeOpen(emit);
      open = {
        name: fc.name,
        id: typeof fc.id === "string" && fc.id ? fc.id : undefined,
        thoughtSignature: optionalString(part.thoughtSignature),
        args: createArgsAssembler(),
      };
    }
    if (!open) return; // fragments for a call we never saw open: nothing to attach them to
    if (!open.thoughtSignature && typeof part.thoughtSignature === "string") open.thoughtSignature = part.thoughtSignature;
    if (fragments) open.args.add(fragments);
    if (fc.willContinue !== true) closeOpen(emit); // the empty `{}` (or a last fragment) ends the call
  };

  const onText = (part: Part, emit: Emit) => {
    const t = part.text as string;
    const thought = part.thought === true;
    if (t) {
      if (!thought) textPieces.push(t);
      emit?.(thought ? { type: "reasoning-delta", text: t } : { type: "text-delta", text: t });
    }
    if (mode === "json") {
      parts.push(part);
      return;
    }
    const plain = onlyText(part);
    if (plain && t === "") return;
    const last = parts[parts.length - 1];
    const lastPlain = last !== undefined && typeof last.text === "string" && onlyText(last);
    if (plain && lastPlain && (last.thought === true) === thought) {
      const pieces = merged.get(last);
      if (pieces) pieces.push(t);
      else merged.set(last, [last.text as string, t]);
    } else parts.push(part);
  };

  return {
    push(chunk, emit) {
      if (!isRecord(chunk)) throw new StreamError(provider, `unexpected response chunk: ${JSON.stringify(chunk)?.slice(0, 200)}`);
      if (chunk.error !== undefined) throw errorFromChunk(provider, chunk.error);
      if (typeof chunk.responseId === "string") responseId ??= chunk.responseId;
      if (isRecord(chunk.usageMetadata)) usage = chunk.usageMetadata as UsageMetadata;
      const feedback = chunk.promptFeedback;
      if (isRecord(feedback) && typeof feedback.blockReason === "string") blockReason = feedback.blockReason;
      const candidates = Array.isArray(chunk.candidates) ? chunk.candidates : [];
      const candidate = candidates.find((c) => isRecord(c) && (c.index === undefined || c.index === 0));
      if (!isRecord(candidate)) return;
      const content = candidate.content;
      const list = isRecord(content) && Array.isArray(content.parts) ? content.parts : [];
      for (const p of list) {
        if (!isRecord(p)) continue;
        const part = p as Part;
        if (isRecord(part.functionCall)) onFunctionCall(part, emit);
        else {
          if (mode === "stream") closeOpen(emit);
          if (typeof part.text === "string") onText(part, emit);
          else parts.push(part); // a lone thoughtSignature, code execution, media: kept as is
        }
      }
      if (typeof candidate.finishReason === "string") finishReason = candidate.finishReason;
      if (typeof candidate.finishMessage === "string") finishMessage = candidate.finishMessage;
      if (isRecord(candidate.groundingMetadata) && Object.keys(candidate.groundingMetadata).length > 0) {
        grounding = candidate.groundingMetadata;
      }
      if (candidate.citationMetadata !== undefined) citation = candidate.citationMetadata;
    },
    finish() {
      if (mode === "stream" && finishReason === undefined && blockReason === undefined) {
        throw new StreamError(provider, "the stream ended before a finishReason arrived", { requestId: ctx.requestId?.() });
      }
      closeOpen(undefined);
      for (const [part, pieces] of merged) part.text = pieces.join("");
      const response: ModelResponse = {
        text: textPieces.join(""),
        toolCalls: calls,
        finishReason: mapFinishReason(finishReason, blockReason, calls.length > 0),
        usage: usageFrom(usage, grounding),
      };
      if (parts.length || grounding || citation !== undefined) {
        const value: GeminiProviderValue = { parts, callIds: calls.map((c) => c.id) };
        if (grounding) value.groundingMetadata = grounding;
        if (citation !== undefined) value.citationMetadata = citation;
        response.providerData = { provider: "gemini", value };
      }
      return { response, finishReason, finishMessage };
    },
  };
}

/** True when a part holds nothing but text (and the thought flag): checked per streamed event, so without building key lists. */
function onlyText(part: Part): boolean {
  for (const k in part) if (k !== "text" && k !== "thought") return false;
  return true;
}
