// The one seam between the loop and a model API. Adapters (adapters/*.ts) implement it;
// the core never imports an adapter, and nothing provider-shaped crosses this line
// except `ProviderData`, which is opaque here.

import type { JSONSchema } from "../schema/index.js";
import type { Message, ProviderData, ToolCall, Usage } from "./messages.js";

/** A function tool as the model sees it. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: JSONSchema;
}

export type FinishReason =
  | "stop" // a final answer
  | "tool-calls" // the model wants tools run
  | "length" // max tokens reached
  | "content-filter" // refused or filtered
  | "other";

/** Streaming deltas an adapter reports while a response is arriving. */
export type Delta =
  | { type: "text-delta"; text: string }
  | { type: "reasoning-delta"; text: string }
  | { type: "tool-call-delta"; callId: string; name: string; argsDelta: string };

/**
 * What the model may do with tools on one request. "required": it must call some tool;
 * `{ name }`: it must call that tool (the lower-cased registry name).
 */
export type ToolChoice = "auto" | "none" | "required" | { name: string };

/**
 * The one shape every adapter's stream decoder wears: a pure state machine fed one wire
 * event at a time (an SSE event's data, or a parsed chunk), reporting deltas through the
 * callback it was built with, and giving the whole response at the end. No I/O, so it is
 * tested by feeding the same stream split at every boundary.
 */
export interface StreamDecoder<Event = string> {
  push(event: Event): void;
  finish(): ModelResponse;
}

export interface ModelRequest {
  system?: string;
  messages: readonly Message[];
  tools: readonly ToolSpec[];
  /** A tool named web_search was set: attach the provider's native web search. */
  webSearch: boolean;
  /** Default "auto". "none" forbids tool calls (the last call of finalAnswerOnMaxSteps / stopWhen). */
  toolChoice?: ToolChoice;
  /** ask(): the final answer must be JSON matching this schema. */
  responseSchema?: { name: string; schema: JSONSchema };
  signal?: AbortSignal;
  /** Present when the caller streams: the adapter streams and reports deltas here. */
  onDelta?: (delta: Delta) => void;
  /** Per-request overrides of the provider's own settings (createClient options). */
  maxRetries?: number;
  idleTimeout?: number;
  /** What the request is for when it is not a step of the loop: compaction's summary says "summary" (a journal does not record it). */
  purpose?: "summary";
}

export interface ModelResponse {
  text: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  usage: Usage;
  /** Replayed verbatim on the next request to the same provider. */
  providerData?: ProviderData;
  /** The provider that answered, when it is not the one called (fallback()). */
  provider?: string;
}

export interface Provider {
  /** Short stable name ("claude", "openai", "gemini", ...), used in errors and ProviderData. */
  readonly name: string;
  readonly model?: string;
  /** false for providers that cannot call tools (claude-local). Default true. */
  readonly supportsTools?: boolean;
  /** false for providers with no native web search (Chat Completions, compatible servers): webSearch() is refused. Default true. */
  readonly supportsWebSearch?: boolean;
  /**
   * Called by setTools(): throw (UnsupportedSchemaError) if a tool's schema cannot be sent,
   * so the mistake surfaces when the tool is set, not at the first request.
   */
  checkTools?(tools: readonly ToolSpec[]): void;
  generate(request: ModelRequest): Promise<ModelResponse>;
}
