// Gemini generateContent for the hand-written loop.
import { SYSTEM, TOOL_DESCRIPTION, TOOL_NAME, TOOL_SCHEMA } from "../common.mjs";

function turnOf(chunk, turn, onText) {
  for (const p of chunk.candidates?.[0]?.content?.parts ?? []) {
    if (typeof p.text === "string") {
      turn.text += p.text;
      onText?.(p.text);
    } else if (p.functionCall) {
      turn.calls.push({ id: `call_${turn.calls.length}`, name: p.functionCall.name, args: JSON.stringify(p.functionCall.args ?? {}) });
    }
  }
  return turn;
}

export const gemini = {
  url: (base, stream) => `${base}/v1beta/models/gemini-2.5-flash:${stream ? "streamGenerateContent?alt=sse" : "generateContent"}`,
  headers: { "x-goog-api-key": "bench-key" },
  body(history) {
    const contents = history.map((m) => {
      if (m.role === "user") return { role: "user", parts: [{ text: m.text }] };
      if (m.role === "tool") return { role: "user", parts: m.results.map((r) => ({ functionResponse: { name: r.name, response: { output: r.output } } })) };
      const parts = m.text ? [{ text: m.text }] : [];
      for (const c of m.calls) parts.push({ functionCall: { name: c.name, args: JSON.parse(c.args) } });
      return { role: "model", parts };
    });
    const tools = [
      {
        functionDeclarations: [
          {
            name: TOOL_NAME,
            description: TOOL_DESCRIPTION,
            parameters: { type: "object", properties: TOOL_SCHEMA.properties, required: TOOL_SCHEMA.required },
          },
        ],
      },
    ];
    return { systemInstruction: { parts: [{ text: SYSTEM }] }, contents, tools };
  },
  decode: (body) => turnOf(body, { text: "", calls: [] }),
  stream(onText) {
    const turn = { text: "", calls: [] };
    return {
      event: (ev) => turnOf(JSON.parse(ev.data), turn, onText),
      result: () => turn,
    };
  },
};
