// The neutral request → a Chat Completions body (POST {baseURL}/chat/completions).

import type { ContentPart, Message, ModelRequest } from "../../src/conversation/index.js";
import { renderParts } from "../../src/conversation/index.js";
import { wireCallIds } from "./call-ids.js";
import { type ContentSupport, chatParts, hasMedia } from "./content.js";
import type { PreparedSchema } from "./strict-mode.js";

/** What the server takes; OpenAI itself takes everything. */
export interface ChatCapabilities {
  /** Send parallel_tool_calls with tools. */
  parallelToolCalls: boolean;
  /** Send stream_options: { include_usage: true } when streaming (usage arrives in a last chunk). */
  streamOptions: boolean;
  /** The system prompt goes in a "developer" message instead of "system". */
  developerRole: boolean;
  /** Name of the output-token limit field: OpenAI's current one or the older max_tokens. */
  maxTokensField: "max_completion_tokens" | "max_tokens";
  /** Chat Completions' native web search (search models only); else webSearch is ignored. */
  webSearchOptions: boolean;
}

export interface ChatSettings {
  model: string;
  maxOutputTokens?: number;
  temperature?: number;
  reasoningEffort?: string;
  parallelToolCalls?: boolean;
  /** Sent as prompt_cache_key (OpenAI only). */
  promptCacheKey?: string;
  capabilities: ChatCapabilities;
  /** Which media the server takes. Default: none (text only). */
  content?: ContentSupport;
}

export type ChatMessage =
  | { role: "system" | "developer"; content: string }
  | { role: "user"; content: string | Record<string, unknown>[] }
  | { role: "assistant"; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export function encodeChatRequest(
  request: ModelRequest,
  settings: ChatSettings,
  tools: readonly PreparedSchema[],
  format: PreparedSchema | undefined,
  stream: boolean,
): Record<string, unknown> {
  const caps = settings.capabilities;
  const messages: ChatMessage[] = [];
  if (request.system) messages.push({ role: caps.developerRole ? "developer" : "system", content: request.system });
  messages.push(...encodeMessages(request.messages, settings.content ?? TEXT_ONLY));

  const body: Record<string, unknown> = { model: settings.model, messages };
  if (tools.length > 0) {
    body.tools = tools.map((t) => {
      const fn: Record<string, unknown> = { name: t.name, description: t.description, parameters: t.schema };
      if (t.strict !== undefined) fn.strict = t.strict;
      return { type: "function", function: fn };
    });
    // tool_choice and parallel_tool_calls are rejected by OpenAI when no tools are sent.
    const choice = request.toolChoice;
    if (choice !== undefined && choice !== "auto") {
      body.tool_choice = typeof choice === "string" ? choice : { type: "function", function: { name: choice.name } };
    }
    if (caps.parallelToolCalls) body.parallel_tool_calls = settings.parallelToolCalls ?? true;
  }
  if (request.webSearch && caps.webSearchOptions) body.web_search_options = {};
  if (format) {
    const jsonSchema: Record<string, unknown> = { name: format.name, schema: format.schema };
    if (format.strict !== undefined) jsonSchema.strict = format.strict;
    body.response_format = { type: "json_schema", json_schema: jsonSchema };
  }
  if (settings.maxOutputTokens !== undefined) body[caps.maxTokensField] = settings.maxOutputTokens;
  if (settings.temperature !== undefined) body.temperature = settings.temperature;
  if (settings.reasoningEffort !== undefined) body.reasoning_effort = settings.reasoningEffort;
  if (settings.promptCacheKey !== undefined) body.prompt_cache_key = settings.promptCacheKey;
  if (stream) {
    body.stream = true;
    if (caps.streamOptions) body.stream_options = { include_usage: true };
  }
  return body;
}

const TEXT_ONLY: ContentSupport = { provider: "openai-compatible", images: false, files: false };

/**
 * Neutral history → chat messages. One neutral tool message becomes one tool message per
 * result; tool messages take text only, so a step's tool media follow them in one user
 * message, each part introduced by the call it came from.
 */
export function encodeMessages(history: readonly Message[], support: ContentSupport = TEXT_ONLY): ChatMessage[] {
  const out: ChatMessage[] = [];
  const wire = wireCallIds(history);
  for (const m of history) {
    switch (m.role) {
      case "user":
        out.push({ role: "user", content: typeof m.content === "string" ? m.content : userContent(m.content, support) });
        break;
      case "assistant": {
        const calls = m.toolCalls ?? [];
        // An empty assistant turn says nothing, and some servers reject empty content.
        if (calls.length === 0 && m.content === "") break;
        const msg: ChatMessage = { role: "assistant", content: m.content === "" ? null : m.content };
        if (calls.length > 0) {
          const ids = wire?.get(m);
          msg.tool_calls = calls.map((c, i) => ({
            id: ids?.[i] ?? c.id,
            type: "function",
            function: { name: c.name, arguments: c.arguments.trim() === "" ? "{}" : c.arguments },
          }));
        }
        out.push(msg);
        break;
      }
      case "tool": {
        const ids = wire?.get(m);
        for (const [i, r] of m.results.entries()) out.push({ role: "tool", tool_call_id: ids?.[i] ?? r.callId, content: r.output });
        const media = m.results.flatMap((r, i) =>
          hasMedia(r.content)
            ? r.content
                .filter((p) => p.type !== "text")
                .flatMap((p) => [{ type: "text", text: `Attachment from tool call ${ids?.[i] ?? r.callId} (${r.name}):` }, ...chatParts([p], support, true)])
            : [],
        );
        if (media.length > 0) out.push({ role: "user", content: media });
        break;
      }
    }
  }
  return out;
}

/** Text-only parts stay one string (what every server takes); media need the array form. */
function userContent(parts: readonly ContentPart[], support: ContentSupport): string | Record<string, unknown>[] {
  return hasMedia(parts) ? chatParts(parts, support) : renderParts(parts);
}
