// Anthropic Messages for the hand-written loop.
import { SYSTEM, TOOL_DESCRIPTION, TOOL_NAME, TOOL_SCHEMA } from "../common.mjs";

export const anthropic = {
  url: (base) => `${base}/v1/messages`,
  headers: { "x-api-key": "bench-key", "anthropic-version": "2023-06-01" },
  body(history, stream) {
    const messages = history.map((m) => {
      if (m.role === "user") return { role: "user", content: m.text };
      if (m.role === "tool") return { role: "user", content: m.results.map((r) => ({ type: "tool_result", tool_use_id: r.id, content: r.output })) };
      const content = m.text ? [{ type: "text", text: m.text }] : [];
      for (const c of m.calls) content.push({ type: "tool_use", id: c.id, name: c.name, input: JSON.parse(c.args || "{}") });
      return { role: "assistant", content };
    });
    const tools = [{ name: TOOL_NAME, description: TOOL_DESCRIPTION, input_schema: TOOL_SCHEMA }];
    return { model: "claude-sonnet-4-6", max_tokens: 4096, system: SYSTEM, tools, messages, stream };
  },
  decode(body) {
    let text = "";
    const calls = [];
    for (const b of body.content) {
      if (b.type === "text") text += b.text;
      else if (b.type === "tool_use") calls.push({ id: b.id, name: b.name, args: JSON.stringify(b.input) });
    }
    return { text, calls };
  },
  stream(onText) {
    let text = "";
    const calls = [];
    const byIndex = new Map();
    return {
      event(ev) {
        const e = JSON.parse(ev.data);
        if (e.type === "content_block_start" && e.content_block.type === "tool_use") {
          const call = { id: e.content_block.id, name: e.content_block.name, args: "" };
          byIndex.set(e.index, call);
          calls.push(call);
        } else if (e.type === "content_block_delta") {
          if (e.delta.type === "text_delta") {
            text += e.delta.text;
            onText(e.delta.text);
          } else if (e.delta.type === "input_json_delta") byIndex.get(e.index).args += e.delta.partial_json;
        } else if (e.type === "error") throw new Error(e.error.message);
      },
      result: () => ({ text, calls }),
    };
  },
};
