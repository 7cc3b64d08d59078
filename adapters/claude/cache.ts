// Prompt caching (on by default): cache_control breakpoints so that each step reads the
// previous step's prefix from Anthropic's cache instead of paying for it again. The
// prompt is cached in the order tools → system → messages, up to each breakpoint; a
// request may carry at most 4, counting any the caller's own blocks already hold.
import { copyWith } from "../../src/base/index.js";
import { type Block, isRecord, type MessagesBody } from "./wire.js";

export type CacheSetting = "auto" | "off" | { ttl: "5m" | "1h" };

const MAX_BREAKPOINTS = 4;
/** Blocks the API does not take cache_control on. */
const UNMARKABLE = new Set(["thinking", "redacted_thinking"]);

/**
 * Marks, in order of value while breakpoints are left:
 * 1. the end of the stable prefix (the system prompt, else the last tool), read by every step;
 * 2. the newest message (the rolling breakpoint: this step's whole prompt is written, so the
 *    next step reads it);
 * 3. the newest message of the previous step, so that step's entry is found even when more
 *    than the API's 20-block lookback was added since (a step with many tool results);
 * 4. the last tool when there is a system prompt too, so a per-step system prompt
 *    (prepareStep) still finds the tools cached.
 * Tools and system keep the same bytes from step to step (the same marks on the same blocks).
 */
export function addBreakpoints(body: MessagesBody, cache: CacheSetting): void {
  if (cache === "off") return;
  const control = typeof cache === "object" && cache.ttl === "1h" ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" };
  let left = MAX_BREAKPOINTS - countMarks(body);
  const mark = (apply: () => boolean) => {
    if (left > 0 && apply()) left--;
  };
  const tools = body.tools;
  const markLastTool = () => {
    const last = tools?.[tools.length - 1];
    if (!last || last.cache_control !== undefined) return false;
    last.cache_control = control; // encodeRequest built these objects for this request
    return true;
  };
  mark(() => {
    if (body.system === undefined) return markLastTool();
    const system = typeof body.system === "string" ? [{ type: "text", text: body.system }] : body.system;
    const last = system[system.length - 1];
    if (!last || last.cache_control !== undefined) return false;
    system[system.length - 1] = copyWith(last, { cache_control: control });
    body.system = system;
    return true;
  });
  const { messages } = body;
  const newest = messages.length - 1;
  mark(() => markMessage(body, newest, control));
  mark(() => {
    // The previous step's newest message: the last user turn before the newest assistant turn.
    let i = newest;
    while (i >= 0 && messages[i]!.role !== "assistant") i--;
    while (i >= 0 && messages[i]!.role !== "user") i--;
    return i >= 0 && i < newest && markMessage(body, i, control);
  });
  if (body.system !== undefined) mark(markLastTool);
}

function markMessage(body: MessagesBody, index: number, control: Record<string, unknown>): boolean {
  const message = body.messages[index];
  if (!message) return false;
  const { content } = message;
  for (let i = content.length - 1; i >= 0; i--) {
    const block = content[i]!;
    if (UNMARKABLE.has(block.type)) continue;
    if (block.cache_control !== undefined) return false; // already a breakpoint
    // A copy: the block may be one history holds (a replayed Claude turn).
    content[i] = copyWith(block, { cache_control: control });
    return true;
  }
  return false;
}

/**
 * Breakpoints already in the body: blocks a caller or a replayed turn brought. Only messages
 * can hold one; encodeRequest builds the tools and the (string) system prompt without.
 */
function countMarks(body: MessagesBody): number {
  const marked = (b: unknown) => (isRecord(b) && b.cache_control != null ? 1 : 0);
  let n = 0;
  for (const m of body.messages) {
    for (const b of m.content) {
      n += marked(b);
      if (b.type === "tool_result" && Array.isArray(b.content)) for (const inner of b.content as Block[]) n += marked(inner);
    }
  }
  return n;
}
