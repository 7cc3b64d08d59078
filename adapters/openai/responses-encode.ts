// The neutral request → a Responses API body (POST {baseURL}/responses).
// Requests are stateless (store: false by default): the whole conversation is sent each
// time, and what the model produced last time (reasoning items with their encrypted
// content, web_search_call items, messages with citations, function calls) is replayed
// from providerData verbatim.
import type { AssistantMessage, Message, ModelRequest } from "../../src/conversation/index.js";
import { wireCallIds } from "./call-ids.js";
import { type ContentSupport, hasMedia, responsesParts } from "./content.js";
import { isRecord, str } from "./decode.js";
import type { PreparedSchema } from "./strict-mode.js";

export interface ResponsesSettings {
  provider: string;
  model: string;
  store: boolean;
  maxOutputTokens?: number;
  temperature?: number;
  reasoning?: { effort?: string; summary?: string };
  /** The model reasons: ask for a summary on streamed requests unless one was set or turned off. */
  reasons?: boolean;
  promptCacheKey?: string;
  parallelToolCalls?: boolean;
  /** Ask for reasoning.encrypted_content so reasoning survives a stateless (store: false) replay. */
  includeEncryptedReasoning: boolean;
}

export type ResponsesItem = Record<string, unknown>;

export function encodeResponsesRequest(
  request: ModelRequest,
  settings: ResponsesSettings,
  tools: readonly PreparedSchema[],
  format: PreparedSchema | undefined,
  stream: boolean,
): Record<string, unknown> {
  const body: Record<string, unknown> = { model: settings.model };
  if (request.system) body.instructions = request.system;
  body.input = encodeInput(request.messages, settings);
  const toolList: Record<string, unknown>[] = tools.map((t) => ({
    type: "function",
    name: t.name,
    description: t.description,
    parameters: t.schema,
    // The Responses API defaults strict to true, so "not strict" must be said.
    strict: t.strict ?? false,
  }));
  if (request.webSearch) toolList.push({ type: "web_search" });
  if (toolList.length > 0) {
    body.tools = toolList;
    const choice = request.toolChoice;
    // "auto" is the API's default and stays unsaid (the prefix stays byte-identical).
    if (choice !== undefined && choice !== "auto") body.tool_choice = typeof choice === "string" ? choice : { type: "function", name: choice.name };
    if (settings.parallelToolCalls !== undefined && tools.length > 0) body.parallel_tool_calls = settings.parallelToolCalls;
  }
  if (format) {
    body.text = { format: { type: "json_schema", name: format.name, schema: format.schema, strict: format.strict ?? false } };
  }
  const reasoning = reasoningParam(settings, stream);
  if (reasoning) body.reasoning = reasoning;
  if (settings.promptCacheKey !== undefined) body.prompt_cache_key = settings.promptCacheKey;
  if (settings.includeEncryptedReasoning && !settings.store) body.include = ["reasoning.encrypted_content"];
  if (settings.maxOutputTokens !== undefined) body.max_output_tokens = settings.maxOutputTokens;
  if (settings.temperature !== undefined) body.temperature = settings.temperature;
  body.store = settings.store;
  if (stream) body.stream = true;
  return body;
}

/**
 * The reasoning parameter: what the caller set, plus `summary: "auto"` on streamed requests to
 * a model that reasons (the summary is what `reasoning-delta` shows; a whole response has
 * nowhere to put it, so non-streamed requests do not pay for it). "off" is never sent.
 */
function reasoningParam(settings: ResponsesSettings, stream: boolean): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  const given = settings.reasoning ?? {};
  if (given.effort !== undefined) out.effort = given.effort;
  if (given.summary !== undefined && given.summary !== "off") out.summary = given.summary;
  else if (given.summary === undefined && stream && settings.reasons && given.effort !== "none") out.summary = "auto";
  return Object.keys(out).length > 0 ? out : undefined;
}

export function encodeInput(history: readonly Message[], settings: ResponsesSettings): ResponsesItem[] {
  const input: ResponsesItem[] = [];
  const wire = wireCallIds(history);
  // The Responses API is OpenAI's own: it takes images and files in input and in tool output.
  const support: ContentSupport = { provider: settings.provider, images: true, files: true };
  for (const m of history) {
    switch (m.role) {
      case "user":
        input.push({ role: "user", content: typeof m.content === "string" ? m.content : responsesParts(m.content, support) });
        break;
      case "assistant":
        input.push(...assistantItems(m, settings, wire?.get(m)));
        break;
      case "tool": {
        const ids = wire?.get(m);
        m.results.forEach((r, i) => {
          // Media travel as the output array (text parts included); text alone stays a string.
          const output = hasMedia(r.content) ? responsesParts(r.content, support, true) : r.output;
          input.push({ type: "function_call_output", call_id: ids?.[i] ?? r.callId, output });
        });
        break;
      }
    }
  }
  return input;
}

// A loop appends to its history and sends all of it every step; re-encoding each earlier turn
// (its replayed items filtered, renamed, copied) made a run's encoding O(steps²). A turn's items
// are kept and reused while everything they were built from is the same: the client edits
// history in place in a few ways (a decision's calls), and a caller of generate() may too.
// The items are never changed once built, so one request's body cannot reach another's.
const encoded = new WeakMap<AssistantMessage, { from: unknown[]; items: ResponsesItem[] }>();

function assistantItems(m: AssistantMessage, settings: ResponsesSettings, wire?: readonly string[]): ResponsesItem[] {
  const data = m.providerData;
  const from: unknown[] = [settings, m.content, data, data?.provider, data?.value, m.toolCalls, wire?.length];
  for (const c of m.toolCalls ?? []) from.push(c, c.id, c.name, c.arguments);
  if (wire) from.push(...wire);
  const hit = encoded.get(m);
  if (hit && hit.from.length === from.length && hit.from.every((v, i) => v === from[i])) return hit.items;
  const items = encodeAssistant(m, settings, wire);
  encoded.set(m, { from, items });
  return items;
}

/** `wire`: the calls' ids on the wire, by position, when some had to be renamed (./call-ids.ts). */
function encodeAssistant(m: AssistantMessage, settings: ResponsesSettings, wire?: readonly string[]): ResponsesItem[] {
  const calls = m.toolCalls ?? [];
  const data = m.providerData;
  const out: ResponsesItem[] = [];
  if (data && data.provider === settings.provider && Array.isArray(data.value)) {
    // A replayed function_call is the first call under its id; it goes out under that call's wire id, with its arguments.
    const kept = new Map<string, [string, string]>();
    calls.forEach((c, i) => {
      if (!kept.has(c.id)) kept.set(c.id, [wire?.[i] ?? c.id, c.arguments]);
    });
    out.push(...replayItems(data.value, kept, settings.store));
  } else if (m.content !== "") {
    out.push({ role: "assistant", content: m.content });
  }
  // Every call the loop kept must be in the input (its output follows), replayed or not.
  const present = new Set(out.filter((i) => i.type === "function_call").map((i) => i.call_id));
  calls.forEach((c, i) => {
    const id = wire?.[i] ?? c.id;
    if (present.has(id)) return;
    present.add(id);
    out.push({ type: "function_call", call_id: id, name: c.name, arguments: c.arguments.trim() === "" ? "{}" : c.arguments });
  });
  return out;
}

/**
 * The items of an earlier response, verbatim, minus what would make the input invalid:
 * function calls the loop dropped (their outputs are not in the history); a second call
 * under an id already replayed (the loop renamed it, so it is sent from the neutral
 * history); under store: false, reasoning items without encrypted_content (the server
 * cannot look them up); and a reasoning item whose following item is gone (the API pairs them).
 * A replayed function_call goes back without its output-only `status`, and without its item `id`
 * unless a reasoning item goes back with it or responses are stored (the API pairs a reasoning
 * item with the items after it by id; nothing else reads a function_call's id): ~35 bytes per
 * call less in every later request of a run. A call whose arguments were edited (an approval's
 * edited input, suspension.ts) goes back with them, so the model sees what ran.
 * `keptCalls` maps each kept call id to the id it goes out under and the call's arguments.
 */
export function replayItems(items: readonly unknown[], keptCalls: ReadonlyMap<string, readonly [string, string]>, store: boolean): ResponsesItem[] {
  const replayed = new Set<string>();
  const keep = items.map((item) => {
    if (!isRecord(item)) return false;
    if (item.type === "function_call") {
      const id = str(item.call_id) ?? "";
      if (!keptCalls.has(id) || replayed.has(id)) return false;
      replayed.add(id);
      return true;
    }
    if (item.type === "reasoning" && !store) return typeof item.encrypted_content === "string" && item.encrypted_content !== "";
    return true;
  });
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (keep[i] && isRecord(item) && item.type === "reasoning" && !(i + 1 < items.length && keep[i + 1])) keep[i] = false;
  }
  const kept = items.filter((_, i) => keep[i]) as ResponsesItem[];
  const keepIds = store || kept.some((item) => item.type === "reasoning");
  return kept.map((item) => {
    if (item.type !== "function_call") return withoutOutputOnlyData(item);
    const { status: _status, id, ...call } = item;
    const [wire, args] = keptCalls.get(str(item.call_id) ?? "")!;
    call.call_id = wire;
    // The neutral arguments are the item's (decode: "{}" for blank ones), or strict mode's restore
    // of them without the nulls the model wrote for optional properties (restore-nulls.ts), or
    // edited. A text compare settles the usual case; the rest compare with nulls left out, once
    // per turn (assistantItems), so only an edit replaces the model's text.
    if (args !== item.arguments && withoutNulls(args) !== withoutNulls(str(item.arguments) ?? "")) call.arguments = args;
    if (keepIds && id !== undefined) call.id = id;
    return call;
  });
}

/** JSON text (blank: "{}") re-serialised with every null property left out; the text itself when it does not parse. */
function withoutNulls(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text.trim() || "{}", (_key, v: unknown) => v ?? undefined));
  } catch {
    return text;
  }
}

/**
 * web_search_call.action.sources is output-only (asked for with include); clients send the
 * call back without it, and some sources (type "api") have no input form at all.
 */
function withoutOutputOnlyData(item: ResponsesItem): ResponsesItem {
  if (item.type !== "web_search_call" || !isRecord(item.action) || !("sources" in item.action)) return item;
  const { sources: _drop, ...action } = item.action;
  return { ...item, action };
}
