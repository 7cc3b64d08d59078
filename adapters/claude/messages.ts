// Neutral history → Anthropic `messages`. The API wants alternating user/assistant turns
// where every tool_use is answered by a tool_result at the start of the very next user
// turn, and it rejects empty text blocks; the neutral history may hold consecutive
// same-role messages and empty texts, so blocks are collected per role and merged.
import { renderParts } from "../../src/messages.js";
import { parseJSONArguments } from "../../src/clean-json.js";
import type { AssistantMessage, Message, ToolCall, ToolResult } from "../../src/messages.js";
import { isBlock, isRecord, type Block, type ToolResultBlock, type ToolUseBlock, type WireMessage } from "./wire.js";

export function toWireMessages(history: readonly Message[]): WireMessage[] {
  const out: WireMessage[] = [];
  const push = (role: WireMessage["role"], blocks: Block[]) => {
    if (blocks.length === 0) return; // an empty turn is dropped; its neighbours merge
    const last = out[out.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of history) {
    if (m.role === "user") push("user", textBlocks(typeof m.content === "string" ? m.content : renderParts(m.content)));
    else if (m.role === "assistant") push("assistant", assistantBlocks(m));
    else push("user", m.results.map(toolResult));
  }
  return out;
}

/**
 * An assistant turn: Claude's own blocks replayed verbatim when this adapter produced
 * them (thinking + signature, server tools, citations), otherwise built from the neutral
 * text and calls. Either way only the calls the loop kept (message.toolCalls) are sent,
 * because only those have results.
 */
export function assistantBlocks(m: AssistantMessage): Block[] {
  const calls = m.toolCalls ?? [];
  const stored = m.providerData?.provider === "claude" && Array.isArray(m.providerData.value) ? m.providerData.value : undefined;
  if (!stored) return [...textBlocks(m.content), ...calls.map(toolUse)];
  const kept = new Set(calls.map((c) => c.id));
  const sent = new Set<string>();
  const blocks: Block[] = [];
  for (const b of stored) {
    if (!isBlock(b)) continue;
    if (b.type === "tool_use") {
      const id = String(b.id);
      if (!kept.has(id) || sent.has(id)) continue;
      sent.add(id);
    }
    if (b.type === "text" && isBlank(b.text)) continue;
    // Sent as stored (the body is serialised right away, never changed). The API takes only
    // an object input; the loop already answered a call that had another.
    blocks.push(b.type === "tool_use" && !isRecord(b.input) ? { ...b, input: {} } : b);
  }
  // A kept call missing from the stored blocks still needs its tool_use for the result.
  for (const c of calls) if (!sent.has(c.id)) blocks.push(toolUse(c));
  return blocks;
}

/** Drops the blocks the API refuses in a replayed turn (empty text). */
export function replayable(blocks: readonly Block[]): Block[] {
  return blocks.filter((b) => !(b.type === "text" && isBlank(b.text)));
}

function textBlocks(text: string): Block[] {
  return isBlank(text) ? [] : [{ type: "text", text }];
}

function toolUse(c: ToolCall): ToolUseBlock {
  return { type: "tool_use", id: wireId(c.id), name: c.name, input: toolInput(c.arguments) };
}

function toolResult(r: ToolResult): ToolResultBlock {
  const block: ToolResultBlock = { type: "tool_result", tool_use_id: wireId(r.callId), is_error: r.isError };
  // The API refuses an error result without content; an empty success needs none.
  if (r.output !== "") block.content = r.output;
  else if (r.isError) block.content = "error";
  return block;
}

/**
 * A tool_use `input` must be an object. Arguments the model got wrong were already
 * answered with an error by the loop; `{}` keeps the turn valid.
 */
function toolInput(args: string): Record<string, unknown> {
  try {
    const v = parseJSONArguments(args);
    return isRecord(v) ? v : {};
  } catch {
    return {};
  }
}

/**
 * Tool-use ids must match ^[a-zA-Z0-9_-]+$. Ids made by other providers may not; the
 * same mapping is applied to the call and its result, so they still pair up.
 */
function wireId(id: string): string {
  if (/^[a-zA-Z0-9_-]+$/.test(id)) return id;
  return id.replace(/[^a-zA-Z0-9_-]/g, "_") || "call";
}

function isBlank(text: unknown): boolean {
  return typeof text !== "string" || text.trim() === "";
}
