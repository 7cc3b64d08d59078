// Neutral ModelRequest → GenerateContentRequest. Pure: no I/O, no clock, no randomness.
//
// History mapping:
// - user → a "user" content: one text part, or the content parts mapped by media.ts
//   (inlineData / fileData).
// - assistant → a "model" content. With this adapter's own providerData the parts the
//   model sent are replayed verbatim (thoughtSignature, thought summaries, everything),
//   minus functionCall parts whose call the loop dropped. Otherwise the parts are built
//   from the neutral text and toolCalls.
// - tool → a "user" content of functionResponse parts, in the order of the calls; a result's
//   media go in its functionResponse.parts (Gemini 3), its text rendering in `response`.
// Consecutive contents of one role are merged into one (a prompt right after tool
// results, a user message after a failed request), which the API requires.
import { isRecord, MAX_ARGUMENT_DEPTH, nestsDeeperThan } from "../../src/base/index.js";
import type { AssistantMessage, Message, ModelRequest, ToolCall, ToolMessage } from "../../src/conversation/index.js";
import { beforeGemini3, toolResponseParts, userParts } from "./media.js";
import type { Content, FunctionCallingConfig, FunctionResponse, GeminiProviderValue, GenerateContentRequest, GenerationConfig, Part, Tool } from "./wire.js";

/**
 * The documented placeholder for a function call the model did not sign (history from
 * another provider, or a signed call the loop dropped): Gemini 3 accepts it in place of a
 * real thoughtSignature instead of rejecting the request.
 */
export const SKIP_SIGNATURE = "skip_thought_signature_validator";

export interface EncodeOptions {
  model: string;
  /** The factory's generation settings (maxOutputTokens, temperature, thinking, ...). */
  generationConfig: GenerationConfig;
}

export function encodeRequest(request: ModelRequest, options: EncodeOptions): GenerateContentRequest {
  const body: GenerateContentRequest = { contents: encodeContents(request.messages, options.model) };
  const system: Part[] = [];
  if (request.system) system.push({ text: request.system });

  const tools: Tool[] = [];
  if (request.tools.length > 0) {
    tools.push({
      functionDeclarations: request.tools.map((t) => ({ name: t.name, description: t.description, parametersJsonSchema: t.parameters })),
    });
  }
  if (request.webSearch) tools.push({ googleSearch: {} });
  if (tools.length > 0) body.tools = tools;
  if (request.tools.length > 0) {
    const config = functionCallingConfig(request.toolChoice);
    if (config) body.toolConfig = { functionCallingConfig: config };
  }

  const generationConfig: GenerationConfig = { ...options.generationConfig };
  if (request.responseSchema) {
    if (tools.length === 0 || structuredOutputWithTools(options.model)) {
      generationConfig.responseMimeType = "application/json";
      generationConfig.responseJsonSchema = request.responseSchema.schema;
    } else {
      // Gemini 1.x / 2.x reject JSON mode together with tools; ask() validates the answer
      // (and re-asks) anyway, so say what is wanted in the instructions instead.
      system.push({ text: `Reply with only a JSON value that matches this JSON schema: ${JSON.stringify(request.responseSchema.schema)}` });
    }
  }
  if (system.length > 0) body.systemInstruction = { parts: system };
  if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;
  return body;
}

/**
 * toolChoice → functionCallingConfig. "auto" is the API's default (mode unspecified means
 * AUTO), so it is not sent and a plain request stays as small as before; "required" is ANY
 * (some function must be called), `{ name }` is ANY limited to that function. Only sent with
 * function declarations: ANY without any would have nothing to call.
 */
function functionCallingConfig(choice: ModelRequest["toolChoice"]): FunctionCallingConfig | undefined {
  if (typeof choice === "object") return { mode: "ANY", allowedFunctionNames: [choice.name] };
  if (choice === "none" || choice === "required") return { mode: choice === "none" ? "NONE" : "ANY" };
}

/** Models before Gemini 3 cannot combine tools with responseMimeType application/json. */
export function structuredOutputWithTools(model: string): boolean {
  return !beforeGemini3(model);
}

/** `model` decides what tool media may be sent (functionResponse.parts needs Gemini 3). */
export function encodeContents(messages: readonly Message[], model = ""): Content[] {
  const contents: Content[] = [];
  // For the tool message that follows an assistant message: call id → the ids to put on its
  // functionResponses, in call order (undefined when the model's call carried none), and the call order.
  let responseIds: ResponseIds = new Map();
  let calls: readonly { id: string; name: string }[] = [];
  // Every functionCall id this request carries, so none is sent twice (see uniqueId).
  const sent = new Set<string>();
  for (const m of messages) {
    if (m.role === "user") appendContent(contents, "user", typeof m.content === "string" ? [{ text: m.content }] : userParts(m.content));
    else if (m.role === "assistant") {
      const encoded = encodeAssistant(m, sent);
      responseIds = encoded.responseIds;
      calls = m.toolCalls ?? [];
      appendContent(contents, "model", encoded.parts);
    } else appendContent(contents, "user", encodeToolResults(m, calls, responseIds, model));
  }
  return contents;
}

/** Appends parts as `role`, merging into the last content when it has the same role. */
export function appendContent(contents: Content[], role: Content["role"], parts: Part[]): void {
  if (parts.length === 0) return;
  const last = contents[contents.length - 1];
  if (last && last.role === role) last.parts.push(...parts);
  else contents.push({ role, parts });
}

/**
 * A call id not yet sent in this request. A history moved from another provider (or from a
 * local server that answers `call_0` every step) can repeat an id in a later step; the
 * functionResponse that answers it then could not be told apart by id. The later one is sent
 * as `<id>_2` (`_3`, ...) on both its functionCall and its functionResponse.
 */
function uniqueId(id: string, sent: Set<string>): string {
  let out = id;
  for (let n = 2; sent.has(out); n++) out = `${id}_${n}`;
  sent.add(out);
  return out;
}

/**
 * Call id → the functionResponse ids of the calls under it, in call order. A list, since twin
 * ids in one turn (a history from elsewhere) are two calls, sent as `a` and `a_2`: each result
 * takes the next one, as the healer pairs them by position.
 */
type ResponseIds = Map<string, (string | undefined)[]>;

function encodeAssistant(m: AssistantMessage, sent: Set<string>): { parts: Part[]; responseIds: ResponseIds } {
  const calls = m.toolCalls ?? [];
  // Each call's functionResponse id, by call (not by id: twins are two calls).
  const wire = new Map<ToolCall, string | undefined>();
  const value = m.providerData?.provider === "gemini" ? providerValue(m.providerData.value) : undefined;
  const parts: Part[] = value ? [] : m.content ? [{ text: m.content }] : [];
  const droppedSignature = value ? replayParts(value, calls, wire, sent, parts) : false;
  // Calls the parts do not hold (an edited history, or no stored parts): sent the neutral way.
  for (const c of calls) {
    if (wire.has(c)) continue;
    const id = uniqueId(c.id, sent);
    const part: Part = { functionCall: { id, name: c.name, args: callArgs(c) } };
    if (!value && wire.size === 0) part.thoughtSignature = SKIP_SIGNATURE;
    parts.push(part);
    wire.set(c, id);
  }
  if (droppedSignature) {
    const callParts = parts.filter((p) => isRecord(p.functionCall));
    if (callParts.length > 0 && !callParts.some((p) => p.thoughtSignature)) {
      const first = callParts[0]!;
      parts[parts.indexOf(first)] = { ...first, thoughtSignature: SKIP_SIGNATURE };
    }
  }
  if (parts.length === 0 && m.content) parts.push({ text: m.content });
  const responseIds: ResponseIds = new Map();
  for (const c of calls) responseIds.get(c.id)?.push(wire.get(c)) ?? responseIds.set(c.id, [wire.get(c)]);
  return { parts, responseIds };
}

/**
 * Appends the model's own parts to `parts`, noting in `wire` each call they hold; true when a
 * signed call part was left out (its call was not kept, or was renamed by the loop).
 */
function replayParts(
  value: GeminiProviderValue,
  calls: readonly ToolCall[],
  wire: Map<ToolCall, string | undefined>,
  sent: Set<string>,
  parts: Part[],
): boolean {
  let k = 0;
  let droppedSignature = false;
  for (let part of value.parts) {
    if (isRecord(part.functionCall)) {
      const wireId = typeof part.functionCall.id === "string" && part.functionCall.id ? part.functionCall.id : undefined;
      const id = wireId ?? value.callIds[k];
      k++;
      const c = calls.find((c) => c.id === id && !wire.has(c)); // the first call under its id not sent yet
      // not kept by the loop, or a second part under an id already sent (the loop renamed its call)
      if (!c) {
        if (part.thoughtSignature) droppedSignature = true;
        continue;
      }
      // The args text the part was decoded to (decode.ts: JSON.stringify of its args, "{}"
      // without any), worked out once per part. When the call's text differs, the values are
      // compared (a broken server's non-object args became {} in the part): a call whose args
      // serialise the same is replayed as stored, its signature with it.
      let text = partArgs.get(part);
      if (text === undefined) partArgs.set(part, (text = JSON.stringify(part.functionCall.args ?? {})));
      if (c.arguments !== text && JSON.stringify(callArgs(c)) !== text) {
        // An approval's edited input (suspension.ts) goes back as the call's args, so the model
        // sees what ran. The model's signature does not vouch for args it did not write: such a
        // call takes the placeholder Google documents for function calls the model did not
        // produce (ai.google.dev/gemini-api/docs/thought-signatures, FAQ).
        part = { ...part, functionCall: { ...part.functionCall, args: callArgs(c) } };
        if (part.thoughtSignature) part.thoughtSignature = SKIP_SIGNATURE;
      }
      if (wireId !== undefined && sent.has(wireId)) {
        const renamed = uniqueId(wireId, sent);
        wire.set(c, renamed);
        parts.push({ ...part, functionCall: { ...part.functionCall, id: renamed } });
        continue;
      }
      if (wireId !== undefined) sent.add(wireId);
      wire.set(c, wireId);
    }
    // Sent as stored (the body is serialised right away); only a part that is changed is copied.
    parts.push(part);
  }
  return droppedSignature;
}

function encodeToolResults(m: ToolMessage, calls: readonly { id: string; name: string }[], responseIds: ResponseIds, model: string): Part[] {
  const rank = (id: string) => {
    const i = calls.findIndex((c) => c.id === id);
    return i === -1 ? calls.length : i;
  };
  // Healed history has its results in call order already; sorting is for what was not healed.
  const inOrder = m.results.every((r, i) => r.callId === calls[i]?.id);
  const results = inOrder ? m.results : [...m.results].sort((a, b) => rank(a.callId) - rank(b.callId));
  return results.map((r) => {
    const parsed = objectOrUndefined(r.output);
    let response: Record<string, unknown>;
    if (!r.isError) response = { output: parsed ?? r.output };
    else if (parsed && Object.keys(parsed).length === 1 && "error" in parsed) response = parsed;
    else response = { error: parsed ?? r.output };
    const id = responseIds.get(r.callId)?.shift();
    const name = r.name || calls.find((c) => c.id === r.callId)?.name || "";
    const fr: FunctionResponse = id ? { id, name, response } : { name, response };
    if (r.content) {
      const media = toolResponseParts(r.content, model, response);
      if (media.length > 0) fr.parts = media;
    }
    return { functionResponse: fr };
  });
}

function providerValue(v: unknown): GeminiProviderValue | undefined {
  if (!isRecord(v) || !Array.isArray(v.parts)) return undefined;
  return {
    parts: v.parts.filter(isRecord) as Part[],
    callIds: Array.isArray(v.callIds) ? v.callIds.filter((x): x is string => typeof x === "string") : [],
  };
}

/** The args text of each replayed functionCall part (encodeAssistant): every request replays the whole history. */
const partArgs = new WeakMap<Part, string>();

/**
 * A call's args as an object (functionCall.args is a Struct: the model's arguments when they
 * are a JSON object, else {}), parsed once per call: every request replays the whole history,
 * so re-parsing every earlier call's arguments each step was a hot spot of a Gemini loop.
 * The cache is keyed by the call object and checked against its text, so a call whose
 * arguments were changed is parsed again. The object is only serialised, never changed.
 */
const parsedArgs = new WeakMap<ToolCall, { text: string; value: Record<string, unknown> }>();

function callArgs(c: ToolCall): Record<string, unknown> {
  const hit = parsedArgs.get(c);
  if (hit && hit.text === c.arguments) return hit.value;
  const value = argsObject(c.arguments);
  parsedArgs.set(c, { text: c.arguments, value });
  return value;
}

function argsObject(args: string): Record<string, unknown> {
  return objectOrUndefined(args || "{}") ?? {};
}

function objectOrUndefined(text: string): Record<string, unknown> | undefined {
  // Most tool outputs are plain text: not starting with "{" they cannot be an object, and
  // a throwing JSON.parse (or a depth scan) per output per request was the hot spot of a Gemini loop.
  if (text.trimStart().charCodeAt(0) !== 0x7b /* { */) return undefined;
  // Deeply nested JSON (a tool's output, arguments from another provider) stays text: as an
  // object it would overflow the stack when the request body is serialised.
  if (nestsDeeperThan(text, MAX_ARGUMENT_DEPTH)) return undefined;
  try {
    const v: unknown = JSON.parse(text);
    return isRecord(v) ? v : undefined;
  } catch {
    return undefined;
  }
}
