// @mariozechner/pi-ai has no tool loop of its own: this is the loop its README shows
// (stream a turn, validateToolCall each call, push toolResult messages, repeat), with a
// TypeBox tool. Every pi-ai provider streams, so there is no JSON-mode variant.
import { Type, validateToolCall } from "@mariozechner/pi-ai";
import { MAX_STEPS, PROMPT, SYSTEM, TOOL_DESCRIPTION, TOOL_NAME, TOOL_OUTPUT } from "../common.mjs";

/** A custom model (README "Custom Models") pointing at baseUrl. */
export const model = (api, provider, id, baseUrl) => ({
  id,
  name: id,
  api,
  provider,
  baseUrl,
  reasoning: false,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 200000,
  maxTokens: 4096,
});

const tools = () => [{ name: TOOL_NAME, description: TOOL_DESCRIPTION, parameters: Type.Object({ city: Type.String({ description: "City name." }) }) }];
const context = (t) => ({ systemPrompt: SYSTEM, messages: [{ role: "user", content: PROMPT, timestamp: Date.now() }], tools: t });
const options = { apiKey: "bench-key", maxTokens: 4096 };

export function streamAgent(streamFn, m) {
  const t = tools();
  return {
    async run() {
      const ctx = context(t);
      let text = "";
      for (let step = 0; step < MAX_STEPS; step++) {
        const s = streamFn(m, ctx, options);
        for await (const ev of s) if (ev.type === "text_delta") text += ev.delta;
        const message = await s.result();
        if (message.stopReason === "error" || message.stopReason === "aborted") throw new Error(message.errorMessage);
        ctx.messages.push(message);
        const calls = message.content.filter((b) => b.type === "toolCall");
        if (calls.length === 0) return text;
        const results = await Promise.all(
          calls.map(async (call) => {
            validateToolCall(t, call);
            return {
              role: "toolResult",
              toolCallId: call.id,
              toolName: call.name,
              content: [{ type: "text", text: TOOL_OUTPUT }],
              isError: false,
              timestamp: Date.now(),
            };
          }),
        );
        ctx.messages.push(...results);
      }
      throw new Error("too many steps");
    },
  };
}

export async function decode(streamFn, m) {
  const s = streamFn(m, context(tools()), options);
  let n = 0;
  for await (const ev of s) if (ev.type === "text_delta" || ev.type === "toolcall_delta") n += ev.delta.length;
  const message = await s.result();
  if (message.stopReason === "error" || message.stopReason === "aborted") throw new Error(message.errorMessage);
  return n;
}
