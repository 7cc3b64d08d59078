// ModelRequest → the JSON body of POST /v1/messages: the settings, the tools, and the
// neutral history as Anthropic `messages`.

import { copyWith, tryParse } from "../../src/base/index.js";
import type { AssistantMessage, Message, ModelRequest, ToolCall, ToolChoice, ToolResult } from "../../src/conversation/index.js";
import { addBreakpoints, type CacheSetting } from "./cache.js";
import { partBlocks } from "./content.js";
import { nativeOutputConfig, type OutputTool, outputToolChoice, type StructuredOutputMode } from "./structured-output.js";
import { type Block, isBlock, isRecord, type MessagesBody, type ToolResultBlock, type ToolUseBlock, type WireMessage } from "./wire.js";

export interface BodySettings {
  model: string;
  maxTokens: number;
  temperature?: number | undefined;
  topP?: number | undefined;
  topK?: number | undefined;
  stopSequences?: string[] | undefined;
  thinking?: { budgetTokens: number } | undefined;
  structuredOutput: StructuredOutputMode;
  cache: CacheSetting;
}

export function encodeRequest(request: ModelRequest, s: BodySettings, output: OutputTool | undefined): MessagesBody {
  const body: MessagesBody = { model: s.model, max_tokens: s.maxTokens, messages: toWireMessages(request.messages) };
  if (request.system) body.system = request.system;

  const tools: Record<string, unknown>[] = request.tools.map((t) => ({
    name: t.name,
    ...(t.description ? { description: t.description } : {}),
    input_schema: t.parameters,
  }));
  if (request.webSearch) tools.push({ type: "web_search_20250305", name: "web_search" });
  if (output) tools.push(output.spec);
  if (tools.length) {
    body.tools = tools;
    const choice = output ? outputToolChoice(output, request, s.thinking !== undefined) : toolChoice(request.toolChoice);
    if (choice) body.tool_choice = choice;
  }

  if (s.thinking) body.thinking = { type: "enabled", budget_tokens: s.thinking.budgetTokens };
  if (s.temperature !== undefined) body.temperature = s.temperature;
  if (s.topP !== undefined) body.top_p = s.topP;
  if (s.topK !== undefined) body.top_k = s.topK;
  if (s.stopSequences?.length) body.stop_sequences = [...s.stopSequences];
  if (request.responseSchema && !output) body.output_config = nativeOutputConfig(request.responseSchema.schema);
  if (request.onDelta) body.stream = true;
  addBreakpoints(body, s.cache);
  return body;
}

/**
 * The neutral toolChoice → tool_choice: "required" is Claude's "any", a name its "tool";
 * "auto" is the API's default, so it is left out (every byte is serialised on every step).
 * Forced tool use with extended thinking on is left to the API, whose 400 says exactly that:
 * a check here would ship in every agent for a mistake made once.
 */
function toolChoice(choice: ToolChoice | undefined): Record<string, unknown> | undefined {
  if (typeof choice === "object") return { type: "tool", name: choice.name };
  if (choice === "none" || choice === "required") return { type: choice === "none" ? "none" : "any" };
}

// ---------------------------------------------------------------------------------------
// Neutral history → Anthropic `messages`. The API wants alternating user/assistant turns
// where every tool_use is answered by a tool_result at the start of the very next user
// turn, and it rejects empty text blocks; the neutral history may hold consecutive
// same-role messages and empty texts, so blocks are collected per role and merged.
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
    if (m.role === "user") push("user", typeof m.content === "string" ? textBlocks(m.content) : partBlocks(m.content));
    else if (m.role === "assistant") push("assistant", encodedTurn(m, ids.turn()));
    else
      push(
        "user",
        m.results.map((r) => toolResult(r, ids)),
      );
  }
  return out;
}

/** An assistant turn as last encoded: what it was encoded from (compared by identity), the call ids it took (each sent unchanged: a renamed id depends on the turns before it), its blocks. */
interface EncodedTurn {
  content: string;
  toolCalls: AssistantMessage["toolCalls"];
  providerData: AssistantMessage["providerData"];
  stored: unknown;
  storedLength: number | false;
  ids: string[];
  blocks: Block[];
}

const encodedTurns = new WeakMap<AssistantMessage, EncodedTurn>();

/**
 * assistantBlocks, encoded once per turn: each request replays the whole history, so
 * re-encoding every earlier turn every step made a run's encoding O(steps²). A turn's blocks
 * are reused while the message still holds the same text, calls and providerData and its
 * call ids are still free in this request (then they get the same wire ids as before).
 * Blocks are never changed after encoding (cache.ts copies a block it marks), and the list
 * is copied because toWireMessages merges turns into it.
 */
function encodedTurn(m: AssistantMessage, ids: WireIds): Block[] {
  const { content, toolCalls, providerData } = m;
  const stored = providerData?.value;
  const storedLength = Array.isArray(stored) && stored.length;
  const hit = encodedTurns.get(m);
  if (
    hit &&
    hit.content === content &&
    hit.toolCalls === toolCalls &&
    hit.providerData === providerData &&
    hit.stored === stored &&
    hit.storedLength === storedLength &&
    ids.takeUnchanged(hit.ids)
  ) {
    return hit.blocks.slice();
  }
  const taken: string[] = [];
  ids.record = taken;
  const blocks = assistantBlocks(m, ids);
  ids.record = undefined;
  if (!taken.includes(RENAMED)) encodedTurns.set(m, { content, toolCalls, providerData, stored, storedLength, ids: taken, blocks });
  return blocks.slice();
}

/** What WireIds.record notes for a call whose wire id differs from its own. */
const RENAMED = "\u0000renamed";

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
  // By call, not by id: twin ids in one turn (a history from elsewhere) are two calls.
  const sent = new Set<ToolCall>();
  const blocks: Block[] = [];
  for (const b of stored) {
    if (!isBlock(b) || (b.type === "text" && isBlank(b.text))) continue;
    if (b.type !== "tool_use") {
      blocks.push(b);
      continue;
    }
    const c = calls.find((c) => c.id === String(b.id) && !sent.has(c)); // the first call under its id not sent yet
    if (!c) continue;
    sent.add(c);
    // Sent as stored (the body is serialised right away, never changed) unless its id must
    // change, its input is not an object (the API takes only an object input; the loop
    // already answered a call that had another), or the call's arguments are not the ones
    // the block was decoded to: an approval's edited input (suspension.ts), sent so the model
    // sees what ran. decode.ts made them JSON.stringify(input), or the streamed text that
    // `input` was parsed from, so a streamed call written with spaces re-parses to the same
    // value; this runs once per turn (encodedTurn). The thinking block before it keeps its
    // signature: the prefix check covers only what precedes a thinking block
    // (platform.claude.com/docs/en/build-with-claude/preserved-thinking/prefix-checks).
    const id = ids.call(c.id);
    const input = isRecord(b.input) && JSON.stringify(b.input) === c.arguments ? b.input : toolInput(c.arguments);
    blocks.push(id !== b.id || input !== b.input ? copyWith(b, { id, input }) : b);
  }
  // A kept call missing from the stored blocks still needs its tool_use for the result.
  for (const c of calls) if (!sent.has(c)) blocks.push(toolUse(c, ids));
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
  // is_error only when true: false is the API's default, and it was a tenth of a long loop's body.
  const block: ToolResultBlock = { type: "tool_result", tool_use_id: ids.result(r.callId) };
  if (r.isError) block.is_error = true;
  // Media go as blocks inside the result (text, image, document), else the text as it is.
  const content = r.content ? partBlocks(r.content, true) : r.output;
  // The API refuses an error result without content; an empty success needs none.
  if (content.length > 0) block.content = content;
  else if (r.isError) block.content = "error";
  return block;
}

/**
 * A tool_use `input` must be an object. Arguments the model got wrong were already
 * answered with an error by the loop; `{}` keeps the turn valid.
 */
function toolInput(args: string): Record<string, unknown> {
  // Plain JSON.parse, not the tool layer's cleanJSON: what the model wrapped in prose or
  // fences was the model's mistake on that turn, and the replay only has to be valid.
  const v = args.trim() === "" ? undefined : tryParse(args)?.value;
  return isRecord(v) ? v : {};
}

const WIRE_ID = /^[a-zA-Z0-9_-]+$/;

/**
 * The wire id of each call, unique over the whole request. The API wants tool_use ids
 * that match ^[a-zA-Z0-9_-]+$ and that are unique across every turn, while the neutral
 * history may hold ids another provider made (`call.1`, `fc:abc`), or one id used again
 * in a later step (local servers that say `call_0` every step). Each call gets the first
 * free wire id in history order, so the mapping is injective (`call.1` and `call:1` never
 * share one) and an unchanged prefix keeps its ids from request to request (prompt
 * caching). A result takes the wire id of the first call of the turn just before it that has
 * its id and no result yet: twin ids in one turn (`a`, `a` sent as `a`, `a_2`) are answered in
 * call order, each by its own result, as the healer pairs them.
 */
class WireIds {
  private readonly used = new Set<string>();
  /**
   * The current turn's calls in call order: their ids, and their wire ids until answered
   * (undefined after). Two short arrays rather than a Map of lists: a turn holds a few calls,
   * and this runs for every call of the history on every request.
   */
  private ids: string[] = [];
  private wires: (string | undefined)[] = [];
  /** Every call before this index is answered: results in call order find theirs at once. */
  private answered = 0;
  /** When set, each call's id is noted here (RENAMED when its wire id differs). */
  record: string[] | undefined;

  /** A new assistant turn: the results that follow answer its calls. */
  turn(): this {
    this.ids = [];
    this.wires = [];
    this.answered = 0;
    return this;
  }

  call(id: string): string {
    const base = WIRE_ID.test(id) ? id : id.replace(/[^a-zA-Z0-9_-]/g, "_") || "call";
    let wire = base;
    for (let n = 2; this.used.has(wire); n++) wire = `${base}_${n}`;
    this.take(id, wire);
    this.record?.push(wire === id ? id : RENAMED);
    return wire;
  }

  /** Takes ids that are wire ids as they are, as call() would, if none is taken yet; else takes nothing. */
  takeUnchanged(ids: readonly string[]): boolean {
    for (const id of ids) if (this.used.has(id)) return false;
    for (const id of ids) this.take(id, id);
    return true;
  }

  /** The wire id of the first call under `id` not answered yet; a result with none takes a new one (as a call). */
  result(id: string): string {
    const { ids, wires } = this;
    for (let i = this.answered; i < ids.length; i++) {
      const wire = wires[i];
      if (wire === undefined || ids[i] !== id) continue;
      wires[i] = undefined;
      while (this.answered < ids.length && wires[this.answered] === undefined) this.answered++;
      return wire;
    }
    return this.call(id);
  }

  private take(id: string, wire: string): void {
    this.used.add(wire);
    this.ids.push(id);
    this.wires.push(wire);
  }
}

function isBlank(text: unknown): boolean {
  return typeof text !== "string" || text.trim() === "";
}
