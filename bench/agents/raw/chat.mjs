// OpenAI Chat Completions for the hand-written loop.
import { SYSTEM, TOOL_DESCRIPTION, TOOL_NAME, TOOL_SCHEMA } from "../common.mjs";

export const chat = {
  url: (base) => `${base}/v1/chat/completions`,
  headers: { authorization: "Bearer bench-key" },
  body(history, stream) {
    const messages = [{ role: "system", content: SYSTEM }];
    for (const m of history) {
      if (m.role === "user") messages.push({ role: "user", content: m.text });
      else if (m.role === "tool") for (const r of m.results) messages.push({ role: "tool", tool_call_id: r.id, content: r.output });
      else {
        const msg = { role: "assistant", content: m.text || null };
        if (m.calls.length) msg.tool_calls = m.calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.args } }));
        messages.push(msg);
      }
    }
    const tools = [{ type: "function", function: { name: TOOL_NAME, description: TOOL_DESCRIPTION, parameters: TOOL_SCHEMA } }];
    const body = { model: "gpt-4.1-mini", messages, tools };
    if (stream) Object.assign(body, { stream: true, stream_options: { include_usage: true } });
    return body;
  },
  decode(body) {
    const m = body.choices[0].message;
    return { text: m.content ?? "", calls: (m.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, args: c.function.arguments })) };
  },
  stream(onText) {
    let text = "";
    const calls = [];
    return {
      event(ev) {
        if (ev.data === "[DONE]") return;
        const delta = JSON.parse(ev.data).choices[0]?.delta;
        if (!delta) return;
        if (delta.content) {
          text += delta.content;
          onText(delta.content);
        }
        for (const t of delta.tool_calls ?? []) {
          const call = (calls[t.index] ??= { id: t.id, name: t.function.name, args: "" });
          call.args += t.function.arguments ?? "";
        }
      },
      result: () => ({ text, calls }),
    };
  },
};
