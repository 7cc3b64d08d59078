// The history invariant: every tool call in history has exactly one result, in the tool
// message right after the assistant message that made it. Every provider rejects a
// history that breaks it, so the client checks and repairs it before each request.
import { describeValue, InvalidHistoryError, InvalidOptionsError, isToolloopError, jsonWithin, MAX_RESPONSE_DEPTH } from "../base/index.js";
import { type AssistantMessage, CANCELLED_OUTPUT, type ContentPart, type Message, type PendingState, type ToolMessage, type ToolResult } from "./messages.js";

/**
 * Repairs `history` in place: missing results become cancelled-tool errors, results
 * for calls that do not exist are dropped, results are put in call order. Returns the
 * number of repairs (0 when the history was already valid).
 */
export function healHistory(history: Message[]): number {
  let repairs = 0;
  for (let i = 0; i < history.length; i++) {
    const m = history[i]!;
    if (m.role === "tool") {
      // a tool message that does not follow an assistant's calls answers nothing
      const prev = history[i - 1];
      if (prev?.role !== "assistant" || !prev.toolCalls?.length) {
        history.splice(i--, 1);
        repairs++;
      }
      continue;
    }
    if (m.role !== "assistant" || !m.toolCalls?.length) continue;
    const next = history[i + 1];
    const given = next?.role === "tool" ? next.results : [];
    // Checked before every request over the whole history: the common case (every call
    // answered once, in order) is confirmed without building anything.
    if (answersInOrder(m.toolCalls, given)) continue;
    // Each call takes the first result under its id not taken yet: twin ids in one step (a
    // history from elsewhere) are answered in call order, each by its own result.
    const byId = new Map<string, ToolResult[]>();
    for (const r of given) byId.get(r.callId)?.push(r) ?? byId.set(r.callId, [r]);
    const results: ToolResult[] = m.toolCalls.map(
      (c) => byId.get(c.id)?.shift() ?? { callId: c.id, name: c.name.toLowerCase(), output: CANCELLED_OUTPUT, isError: true },
    );
    const changed = results.length !== given.length || results.some((r, k) => r !== given[k]);
    if (!changed) continue;
    repairs++;
    const tm: ToolMessage = { role: "tool", results };
    if (next?.role === "tool") history[i + 1] = tm;
    else history.splice(i + 1, 0, tm);
  }
  return repairs;
}

/**
 * True when `results` answer `calls` one to one, in call order: the history needs no repair
 * here. Results pair with calls by position, so twin ids answered in call order pass too.
 */
function answersInOrder(calls: readonly { id: string }[], results: readonly ToolResult[]): boolean {
  return results.length === calls.length && calls.every((c, k) => c.id === results[k]!.callId);
}

/**
 * What a client without suspension() is missing, in its refusals of a tool that would wait,
 * a waiting call and decisions: the remedy, since what waits is already named.
 */
export const NEEDS_SUSPENSION = "needs a client with suspension(): createClient({ suspension: suspension({ secret }) })";

/** Checks a result's `pending` state (suspension() has one); `fail` refuses it. */
export type PendingCheck = (pending: unknown, fail: (why: string) => never) => PendingState;

/** createClient({ history }): a saved client.history, each message checked (checkMessage). */
export function loadHistory(history: unknown, pending?: PendingCheck): Message[] {
  if (history === undefined) return [];
  // A saved history passed as its JSON text (or anything else) would fail on .map as a TypeError.
  if (!Array.isArray(history)) throw new InvalidHistoryError(`history must be an array of messages (a saved client.history), got ${describeValue(history)}`);
  return history.map((m, i) => checkMessage(m, `history[${i}]`, pending));
}

/**
 * A prompt, checked as a user message. A malformed one is a bad argument of the call
 * (InvalidOptionsError, as ask()'s schema and decisions are), not a bad history.
 */
export function checkPrompt(content: unknown): Message {
  try {
    return checkMessage({ role: "user", content }, "prompt");
  } catch (err) {
    throw isToolloopError(err, "invalid_history") ? new InvalidOptionsError(err.message) : err;
  }
}

/**
 * Checks the shape of a message handed in from outside (add(), createClient({ history })).
 * A waiting call is refused without `pending`: nothing could answer it, and a waiting
 * result must never reach a provider.
 */
export function checkMessage(m: unknown, where: string, pending?: PendingCheck): Message {
  const fail = (why: string): never => {
    throw new InvalidHistoryError(`${where}: ${why}`);
  };
  if (typeof m !== "object" || m === null) fail("a message must be an object");
  const msg = m as Record<string, unknown>;
  switch (msg.role) {
    case "user":
      if (typeof msg.content === "string") return { role: "user", content: msg.content };
      if (!Array.isArray(msg.content)) fail('a user message needs "content": a string or an array of content parts');
      return { role: "user", content: checkParts(msg.content as unknown[], `${where}.content`) };
    case "assistant": {
      if (typeof msg.content !== "string") fail('an assistant message needs a string "content"');
      const out: AssistantMessage = { role: "assistant", content: msg.content as string };
      if (msg.toolCalls !== undefined) {
        if (!Array.isArray(msg.toolCalls)) fail('"toolCalls" must be an array');
        out.toolCalls = (msg.toolCalls as unknown[]).map((c) => {
          const call = c as Record<string, unknown>;
          if (typeof call?.id !== "string" || typeof call.name !== "string" || typeof call.arguments !== "string") {
            fail("a tool call needs string id, name and arguments");
          }
          return { id: call.id as string, name: call.name as string, arguments: call.arguments as string };
        });
      }
      if (msg.providerData !== undefined) {
        // A JSON copy, bounded: one nested 10,000 deep (or cyclic) would overflow the stack at the
        // next save or request; a model's own is cut at MAX_RESPONSE_DEPTH when it arrives.
        const text = jsonWithin(msg.providerData, MAX_RESPONSE_DEPTH) ?? fail(`"providerData" must be JSON nested at most ${MAX_RESPONSE_DEPTH} levels deep`);
        out.providerData = JSON.parse(text) as AssistantMessage["providerData"];
      }
      return out;
    }
    case "tool": {
      if (!Array.isArray(msg.results)) fail('a tool message needs "results"');
      return {
        role: "tool",
        results: (msg.results as unknown[]).map((r) => {
          const res = r as Record<string, unknown>;
          if (typeof res?.callId !== "string" || typeof res.output !== "string") fail("a tool result needs string callId and output");
          const out: ToolResult = { callId: res.callId as string, name: String(res.name ?? ""), output: res.output as string, isError: res.isError === true };
          if (res.content !== undefined) {
            if (!Array.isArray(res.content)) fail('a tool result\'s "content" must be an array of content parts');
            out.content = checkParts(res.content as unknown as unknown[], `${where}.results.content`);
          }
          if (res.pending !== undefined) out.pending = pending ? pending(res.pending, fail) : fail(`a waiting call ${NEEDS_SUSPENSION}`);
          return out;
        }),
      };
    }
    default:
      return fail(`unknown role ${JSON.stringify(msg.role)} (expected "user", "assistant" or "tool")`);
  }
}

/** Checks content parts from outside (prompts, saved history): a wrong part fails here, not at the provider. */
export function checkParts(parts: readonly unknown[], where: string): ContentPart[] {
  return parts.map((raw, i) => {
    const p = raw as Record<string, unknown> | null;
    const fail = (why: string): never => {
      throw new InvalidHistoryError(`${where}[${i}]: ${why}`);
    };
    if (typeof p !== "object" || p === null) return fail("a content part must be an object");
    const str = (k: string) => typeof p[k] === "string" && p[k] !== "";
    switch (p.type) {
      case "text":
        if (typeof p.text !== "string") fail('a text part needs a string "text"');
        return { type: "text", text: p.text as string };
      case "image":
      case "file": {
        const hasData = str("data");
        const hasUrl = str("url");
        const a = p.type === "file" ? "a file" : "an image";
        if (hasData === hasUrl) fail(`${a} part needs exactly one of "data" (base64) or "url"`);
        if ((hasData || p.type === "file") && !str("mediaType")) fail(`${a} part needs a "mediaType"`);
        if (hasData && String(p.data).startsWith("data:")) fail('"data" is base64 without a "data:" prefix (or pass the data: URL as "url")');
        const part: Record<string, unknown> = { type: p.type };
        if (hasData) part.data = p.data;
        if (hasUrl) part.url = p.url;
        if (str("mediaType")) part.mediaType = p.mediaType;
        if (p.type === "file" && str("filename")) part.filename = p.filename;
        return part as unknown as ContentPart;
      }
      default:
        return fail(`unknown content part type ${JSON.stringify(p.type)} (expected "text", "image" or "file")`);
    }
  });
}
