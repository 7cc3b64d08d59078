// The provider-neutral message model. Plain JSON all the way down, so `client.history`
// survives JSON.stringify / JSON.parse and can be stored anywhere (a Durable Object,
// localStorage, a database) and resumed with `createClient({ history })`.

export interface UserMessage {
  role: "user";
  content: string;
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

export interface ToolResult {
  callId: string;
  name: string;
  output: string;
  isError: boolean;
}

/** The results of one step's tool calls, in the order of the calls. */
export interface ToolMessage {
  role: "tool";
  results: ToolResult[];
}

export type Message = UserMessage | AssistantMessage | ToolMessage;

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Input tokens read from the provider's prompt cache (part of inputTokens where the provider counts them so). */
  cachedInputTokens?: number;
  /** Provider-side tool uses billed separately, e.g. web searches. */
  webSearches?: number;
}

export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0 };
}

export function addUsage(total: Usage, u: Usage): Usage {
  const sum: Usage = {
    inputTokens: total.inputTokens + u.inputTokens,
    outputTokens: total.outputTokens + u.outputTokens,
  };
  const cached = (total.cachedInputTokens ?? 0) + (u.cachedInputTokens ?? 0);
  if (total.cachedInputTokens !== undefined || u.cachedInputTokens !== undefined) sum.cachedInputTokens = cached;
  const searches = (total.webSearches ?? 0) + (u.webSearches ?? 0);
  if (total.webSearches !== undefined || u.webSearches !== undefined) sum.webSearches = searches;
  return sum;
}
