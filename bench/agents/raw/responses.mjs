// OpenAI Responses for the hand-written loop.
import { SYSTEM, TOOL_DESCRIPTION, TOOL_NAME, TOOL_SCHEMA } from "../common.mjs";

export const responses = {
  url: (base) => `${base}/v1/responses`,
  headers: { authorization: "Bearer bench-key" },
  body(history, stream) {
    const input = [];
    for (const m of history) {
      if (m.role === "user") input.push({ role: "user", content: m.text });
      else if (m.role === "tool") for (const r of m.results) input.push({ type: "function_call_output", call_id: r.id, output: r.output });
      else {
        if (m.text) input.push({ role: "assistant", content: m.text });
        for (const c of m.calls) input.push({ type: "function_call", call_id: c.id, name: c.name, arguments: c.args });
      }
    }
    const tools = [{ type: "function", name: TOOL_NAME, description: TOOL_DESCRIPTION, parameters: TOOL_SCHEMA, strict: false }];
    return { model: "gpt-4.1-mini", instructions: SYSTEM, input, tools, store: false, stream };
  },
  decode(body) {
    let text = "";
    const calls = [];
    for (const item of body.output) {
      if (item.type === "message") for (const p of item.content) text += p.type === "output_text" ? p.text : "";
      else if (item.type === "function_call") calls.push({ id: item.call_id, name: item.name, args: item.arguments });
    }
    return { text, calls };
  },
  stream(onText) {
    let text = "";
    const calls = [];
    const byItem = new Map();
    return {
      event(ev) {
        const e = JSON.parse(ev.data);
        if (e.type === "response.output_text.delta") {
          text += e.delta;
          onText(e.delta);
        } else if (e.type === "response.output_item.added" && e.item.type === "function_call") {
          const call = { id: e.item.call_id, name: e.item.name, args: "" };
          byItem.set(e.item.id, call);
          calls.push(call);
        } else if (e.type === "response.function_call_arguments.delta") byItem.get(e.item_id).args += e.delta;
        else if (e.type === "error" || e.type === "response.failed") throw new Error(ev.data);
      },
      result: () => ({ text, calls }),
    };
  },
};
