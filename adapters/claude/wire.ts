// The slice of the Anthropic Messages API wire format this adapter reads and writes.
// Content blocks stay loosely typed on purpose: blocks the adapter does not interpret
// (server tool results, citations, blocks from future API versions) pass through as
// they came, so they can be replayed verbatim.
import { isRecord } from "../../src/base/index.js";

/** Any content block: `type` plus whatever fields that type carries. */
export interface Block {
  type: string;
  [key: string]: unknown;
}

export interface ToolUseBlock extends Block {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
}

export interface ToolResultBlock extends Block {
  type: "tool_result";
  tool_use_id: string;
  content?: string | Block[];
  is_error?: boolean;
}

export interface WireMessage {
  role: "user" | "assistant";
  content: Block[];
}

/** `usage` of a message or of message_delta; every field optional (gateways send fewer). */
export interface WireUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  server_tool_use?: { web_search_requests?: number | null } | null;
  [key: string]: unknown;
}

/** One finished assistant turn as the API described it, streamed or not. */
export interface Turn {
  id: string | undefined;
  content: Block[];
  stopReason: string | undefined;
  usage: WireUsage;
  /**
   * The raw argument text of each tool_use block, by position in `content`, when it was
   * streamed (concatenated input_json_delta). A non-streamed block has none: its
   * arguments are JSON.stringify(input).
   */
  rawArguments: (string | undefined)[];
}

export { isRecord };

export function isBlock(v: unknown): v is Block {
  return isRecord(v) && typeof v.type === "string";
}

/** The Messages API request body toolloop sends. */
export interface MessagesBody {
  model: string;
  max_tokens: number;
  messages: WireMessage[];
  system?: string | Block[];
  tools?: Record<string, unknown>[];
  tool_choice?: Record<string, unknown>;
  thinking?: { type: "enabled"; budget_tokens: number };
  temperature?: number;
  top_p?: number;
  top_k?: number;
  stop_sequences?: string[];
  output_config?: Record<string, unknown>;
  stream?: true;
}
