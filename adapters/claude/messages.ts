// Neutral history → Anthropic `messages`. The API wants alternating user/assistant turns
// where every tool_use is answered by a tool_result at the start of the very next user
// turn, and it rejects empty text blocks; the neutral history may hold consecutive
// same-role messages and empty texts, so blocks are collected per role and merged.
import { renderParts } from "../../src/messages.js";
import { parseJSONArguments } from "../../src/clean-json.js";
import type { AssistantMessage, Message, ToolCall, ToolResult } from "../../src/messages.js";
import { isBlock, isRecord, type Block, type ToolResultBlock, type ToolUseBlock, type WireMessage } from "./wire.js";

export function toWireMessages(history: readonly Message[]): WireMessage[] {
  const ids = new WireIds();
  const out: WireMessage[] = [];
  const push = (role: WireMessage["role"], blocks: Block[]) => {
    if (blocks.length === 0) return; // an empty turn is dropped; its neighbours merge
    const last = out[out.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of history) {
    if (m.role === "user") push("user", textBlocks(typeof m.content === "string" ? m.content : renderParts(m.content)));
    else if (m.role === "assistant") push("assistant", assistantBlocks(m, ids));
    else push("user", m.results.map((r) => toolResult(r, ids)));
  }
  return out;
}

/**
 * An assistant turn: Claude's own blocks replayed verbatim when this adapter produced
 * them (thinking + signature, server tools, citations), otherwise built from the neutral
 * text and calls. Either way only the calls the loop kept (message.toolCalls) are sent,
 * because only those have results.
 */
function assistantBlocks(m: AssistantMessage, ids: WireIds): Block[] {
  const calls = m.toolCalls ?? [];
  const stored = m.providerData?.provider === "claude" && Array.isArray(m.providerData.value) ? m.providerData.value : undefined;
  if (!stored) return [...textBlocks(m.content), ...calls.map((c) => toolUse(c, ids))];
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
    if (b.type !== "tool_use") {
      blocks.push(b);
      continue;
    }
    // Sent as stored (the body is serialised right away, never changed) unless its id must
    // change or its input is not an object (the API takes only an object input; the loop
    // already answered a call that had another).
    const id = ids.call(String(b.id));
    blocks.push(id !== b.id || !isRecord(b.input) ? { ...b, id, input: isRecord(b.input) ? b.input : {} } : b);
  }
  // A kept call missing from the stored blocks still needs its tool_use for the result.
  for (const c of calls) if (!sent.has(c.id)) blocks.push(toolUse(c, ids));
  return blocks;
}

/** Drops the blocks the API refuses in a replayed turn (empty text). */
export function replayable(blocks: readonly Block[]): Block[] {
  return blocks.filter((b) => !(b.type === "text" && isBlank(b.text)));
}

function textBlocks(text: string): Block[] {
  return isBlank(text) ? [] : [{ type: "text", text }];
}

function toolUse(c: ToolCall, ids: WireIds): ToolUseBlock {
  return { type: "tool_use", id: ids.call(c.id), name: c.name, input: toolInput(c.arguments) };
}

function toolResult(r: ToolResult, ids: WireIds): ToolResultBlock {
  const block: ToolResultBlock = { type: "tool_result", tool_use_id: ids.result(r.callId), is_error: r.isError };
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

const WIRE_ID = /^[a-zA-Z0-9_-]+$/;

/**
 * The wire id of each call, unique over the whole request. The API wants tool_use ids
 * that match ^[a-zA-Z0-9_-]+$ and that are unique across every turn, while the neutral
 * history may hold ids another provider made (`call.1`, `fc:abc`), or one id used again
 * in a later step (local servers that say `call_0` every step). Each call gets the first
 * free wire id in history order, so the mapping is injective (`call.1` and `call:1` never
 * share one) and an unchanged prefix keeps its ids from request to request (prompt
 * caching); a result takes the id of the latest call it answers, the one just before it.
 */
export class WireIds {
  private readonly used = new Set<string>();
  private readonly latest = new Map<string, string>();

  call(id: string): string {
    const base = WIRE_ID.test(id) ? id : id.replace(/[^a-zA-Z0-9_-]/g, "_") || "call";
    let wire = base;
    for (let n = 2; this.used.has(wire); n++) wire = `${base}_${n}`;
    this.used.add(wire);
    this.latest.set(id, wire);
    return wire;
  }

  result(id: string): string {
    return this.latest.get(id) ?? this.call(id);
  }
}

function isBlank(text: unknown): boolean {
  return typeof text !== "string" || text.trim() === "";
}
