// The provider-neutral message model. Plain JSON all the way down, so `client.history`
// survives JSON.stringify / JSON.parse and can be stored anywhere (a Durable Object,
// localStorage, a database) and resumed with `createClient({ history })`.
//
// Widened once for 0.2: user turns and tool results may carry content parts (images and
// files), and a tool result may be *pending* (waiting for an approval, an answer or an
// external tool's output). A suspended run is nothing but a history whose last tool
// message has pending results; resuming replaces them with real ones.

/** The result of a call that was started but never finished (aborted, or repaired into a history). */
export const CANCELLED_OUTPUT = '{"error":"cancelled"}';

export interface TextPart {
  type: "text";
  text: string;
}

/** An image: base64 `data` (no "data:" prefix) with its media type, or an https:/data: URL. */
export type ImagePart =
  | { type: "image"; mediaType: string; data: string; url?: undefined }
  | { type: "image"; url: string; mediaType?: string; data?: undefined };

/** A document (PDF and others): base64 `data` or a URL, with its media type. */
export type FilePart =
  | { type: "file"; mediaType: string; data: string; filename?: string; url?: undefined }
  | { type: "file"; url: string; mediaType: string; filename?: string; data?: undefined };

export type ContentPart = TextPart | ImagePart | FilePart;

export interface UserMessage {
  role: "user";
  content: string | ContentPart[];
}

/** A call the model asked for. `arguments` is the raw string the model produced. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Provider-specific content that must be sent back verbatim on the next request to the
 * same provider (thinking blocks and signatures, reasoning items, server-tool results,
 * citations). Opaque above the adapter; other providers ignore it.
 */
export interface ProviderData {
  provider: string;
  value: unknown;
}

export interface AssistantMessage {
  role: "assistant";
  content: string;
  toolCalls?: ToolCall[];
  providerData?: ProviderData;
}

export type PendingKind = "approval" | "input" | "external";

/**
 * Why a tool result is not there yet. Stored in history (plain JSON). `signature` is set when
 * the client has `suspension({ secret })`: an HMAC-SHA-256 over the call (id, name, arguments),
 * this state (kind, message, schema, answers, approved) and the conversation the call was made
 * in (see sign.ts). With `suspension({ unsigned: true })` there is none.
 */
export interface PendingState {
  kind: PendingKind;
  /** requestInput(): the question. */
  message?: string;
  /** requestInput(): the JSON Schema the answer must match. */
  schema?: unknown;
  /** requestInput(): answers already given to earlier requests of this handler run, in order. */
  answers?: unknown[];
  /** Set when an approval was given but the handler then asked for input. */
  approved?: boolean;
  signature?: string;
}

export interface ToolResult {
  callId: string;
  name: string;
  /** The text rendering the model reads (text parts joined; media named, e.g. "[image image/png]"). */
  output: string;
  isError: boolean;
  /** Present when the tool returned media; adapters send these parts natively. */
  content?: ContentPart[];
  /** Present while the call waits for a decision; such a result is never sent to a provider. */
  pending?: PendingState;
}

/** The results of one step's tool calls, in the order of the calls. */
export interface ToolMessage {
  role: "tool";
  results: ToolResult[];
}

export type Message = UserMessage | AssistantMessage | ToolMessage;

/**
 * Token counts of one model call (or a sum of them). On every provider `inputTokens` counts all
 * prompt tokens (cache reads and writes are parts of it) and `outputTokens` all generated
 * tokens (reasoning is part of it), so figures compare across providers.
 */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Prompt tokens served from the provider's cache (part of inputTokens). */
  cacheReadTokens?: number;
  /** Prompt tokens written to the provider's cache (part of inputTokens). */
  cacheWriteTokens?: number;
  /** Generated tokens spent on reasoning (part of outputTokens). */
  reasoningTokens?: number;
  /** Provider-side tool uses billed separately, e.g. web searches. */
  webSearches?: number;
  /** USD, when the client has `pricing`. */
  cost?: number;
}

export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0 };
}

const OPTIONAL = ["cacheReadTokens", "cacheWriteTokens", "reasoningTokens", "webSearches", "cost"] as const;

export function addUsage(total: Usage, u: Usage): Usage {
  const sum: Usage = {
    inputTokens: total.inputTokens + u.inputTokens,
    outputTokens: total.outputTokens + u.outputTokens,
  };
  for (const k of OPTIONAL) {
    if (total[k] !== undefined || u[k] !== undefined) sum[k] = (total[k] ?? 0) + (u[k] ?? 0);
  }
  return sum;
}

/** The text rendering of content parts: what a text-only reader (and `ToolResult.output`) sees. */
export function renderParts(parts: readonly ContentPart[]): string {
  return parts
    .map((p) =>
      p.type === "text" ? p.text : p.type === "image" ? `[image ${p.mediaType ?? "url"}]` : `[file ${p.filename ? `${p.filename} ` : ""}${p.mediaType}]`,
    )
    .join("\n");
}
