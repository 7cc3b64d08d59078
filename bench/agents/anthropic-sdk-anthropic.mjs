// The official @anthropic-ai/sdk: beta.messages.toolRunner with a zod tool. `thread: false`
// sends the whole history each turn, as every other SDK here does (the default runs over a
// server-held message thread).
import Anthropic from "@anthropic-ai/sdk";
import { betaZodTool } from "@anthropic-ai/sdk/helpers/beta/zod";
import { z } from "zod";
import { MAX_STEPS, PROMPT, SYSTEM, TOOL_DESCRIPTION, TOOL_NAME, TOOL_OUTPUT } from "./common.mjs";

const client = (base) => new Anthropic({ apiKey: "bench-key", baseURL: base });
const tools = () => [
  betaZodTool({
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    inputSchema: z.object({ city: z.string().describe("City name.") }),
    run: async () => TOOL_OUTPUT,
  }),
];
const params = (t) => ({
  model: "claude-sonnet-4-6",
  max_tokens: 4096,
  system: SYSTEM,
  messages: [{ role: "user", content: PROMPT }],
  tools: t,
  max_iterations: MAX_STEPS,
  thread: false,
});
const textOf = (message) => message.content.map((b) => (b.type === "text" ? b.text : "")).join("");

export const jsonAgent = ({ base }) => {
  const c = client(base);
  const t = tools();
  return { run: async () => textOf(await c.beta.messages.toolRunner(params(t))) };
};

export const streamAgent = ({ base }) => {
  const c = client(base);
  const t = tools();
  return {
    async run() {
      let text = "";
      for await (const stream of c.beta.messages.toolRunner({ ...params(t), stream: true })) {
        for await (const ev of stream) if (ev.type === "content_block_delta" && ev.delta.type === "text_delta") text += ev.delta.text;
      }
      return text;
    },
  };
};

/** One streamed call through the SDK's MessageStream (the one the runner uses). */
export const decode = async ({ base }) => {
  const { max_iterations: _, thread: __, tools: t, ...p } = params(tools());
  const stream = client(base).beta.messages.stream({ ...p, tools: t.map(({ name, description, input_schema }) => ({ name, description, input_schema })) });
  let n = 0;
  for await (const ev of stream) {
    if (ev.type === "content_block_delta")
      n += ev.delta.type === "text_delta" ? ev.delta.text.length : ev.delta.type === "input_json_delta" ? ev.delta.partial_json.length : 0;
  }
  await stream.finalMessage();
  return n;
};
