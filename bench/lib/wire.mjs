// The mock model's answers, serialised once before any measurement: every provider format
// (Anthropic Messages, OpenAI Chat Completions, OpenAI Responses, Gemini) as a JSON body
// and as an SSE stream shaped like the vendors' own (event names, framing, usage, ids).
//
// Scenarios:
//   loop        20 steps that each ask for TOOL_CALLS parallel calls of get_weather, then
//               a final text answer. The step is read from the request: every tool result
//               carries MARK, so (count of MARK in the body) / TOOL_CALLS = steps done.
//   text-N      one streamed answer made of N text-delta events.
//   args-N      one streamed tool call whose arguments arrive in N fragments.

import { MARK } from "../agents/common.mjs";

export { MARK };
export const FORMATS = ["anthropic", "chat", "responses", "gemini"];
export const TOOL_STEPS = 20;
export const TOOL_CALLS = 5;
export const FINAL_TEXT = "All 100 readings are in: it is sunny everywhere.";
/** One text-delta event of the decode scenarios; a fragment of the args scenarios. */
export const TEXT_PIECE = " word";
export const ARGS_PIECE = "abcdefgh";

const CREATED = 1764962401;
const usageIn = 120;
const usageOut = 40;

const cities = (step) => Array.from({ length: TOOL_CALLS }, (_, i) => `City ${step}-${i}`);
/** Split a string into n roughly equal pieces (n ≥ 1). */
function split(s, n) {
  const out = [];
  const size = Math.ceil(s.length / n);
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}
/** The argument fragments of the args-N scenario: {"city":"abcdefgh…"} in exactly n pieces. */
export function argFragments(n) {
  const pieces = ['{"city":"'];
  for (let i = 0; i < n - 2; i++) pieces.push(ARGS_PIECE);
  pieces.push('"}');
  return pieces;
}

// ---------------------------------------------------------------- Anthropic Messages
const anthropic = {
  json(step) {
    if (step >= TOOL_STEPS) return anthropicMessage(`msg_final`, [{ type: "text", text: FINAL_TEXT }], "end_turn");
    const content = [{ type: "text", text: "Checking every city." }];
    cities(step).forEach((city, i) => content.push({ type: "tool_use", id: `toolu_${step}_${i}`, name: "get_weather", input: { city } }));
    return anthropicMessage(`msg_${step}`, content, "tool_use");
  },
  sse(step) {
    if (step >= TOOL_STEPS) return anthropicStream(`msg_final`, [{ text: split(FINAL_TEXT, 8) }], "end_turn");
    const blocks = [{ text: split("Checking every city.", 3) }];
    cities(step).forEach((city, i) => blocks.push({ id: `toolu_${step}_${i}`, name: "get_weather", args: split(JSON.stringify({ city }), 3) }));
    return anthropicStream(`msg_${step}`, blocks, "tool_use");
  },
  text: (n) => anthropicStream("msg_text", [{ text: Array(n).fill(TEXT_PIECE) }], "end_turn"),
  args: (n) => anthropicStream("msg_args", [{ id: "toolu_args", name: "get_weather", args: argFragments(n) }], "tool_use"),
};

function anthropicUsage(out = usageOut) {
  return { input_tokens: usageIn, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: out, service_tier: "standard" };
}
function anthropicMessage(id, content, stop) {
  return json({ id, type: "message", role: "assistant", model: "claude-bench", content, stop_reason: stop, stop_sequence: null, usage: anthropicUsage() });
}
function anthropicStream(id, blocks, stop) {
  const ev = [];
  const add = (type, data) => ev.push(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  add("message_start", {
    message: { id, type: "message", role: "assistant", model: "claude-bench", content: [], stop_reason: null, stop_sequence: null, usage: anthropicUsage(1) },
  });
  blocks.forEach((b, index) => {
    if (b.text) {
      add("content_block_start", { index, content_block: { type: "text", text: "" } });
      for (const text of b.text) add("content_block_delta", { index, delta: { type: "text_delta", text } });
    } else {
      add("content_block_start", { index, content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } });
      for (const partial_json of b.args) add("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } });
    }
    add("content_block_stop", { index });
  });
  add("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usageOut } });
  add("message_stop", {});
  return sse(ev);
}

// ---------------------------------------------------------------- OpenAI Chat Completions
const chat = {
  json(step) {
    const message = { role: "assistant", content: null, refusal: null, annotations: [] };
    let finish = "tool_calls";
    if (step >= TOOL_STEPS) {
      message.content = FINAL_TEXT;
      finish = "stop";
    } else {
      message.tool_calls = cities(step).map((city, i) => ({
        id: `call_${step}_${i}`,
        type: "function",
        function: { name: "get_weather", arguments: JSON.stringify({ city }) },
      }));
    }
    return json({
      id: `chatcmpl-${step}`,
      object: "chat.completion",
      created: CREATED,
      model: "gpt-bench",
      choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
      usage: chatUsage(),
      service_tier: "default",
      system_fingerprint: "fp_bench",
    });
  },
  sse(step) {
    if (step >= TOOL_STEPS) return chatStream(`chatcmpl-${step}`, { text: split(FINAL_TEXT, 8) }, "stop");
    const calls = cities(step).map((city, i) => ({ id: `call_${step}_${i}`, args: split(JSON.stringify({ city }), 3) }));
    return chatStream(`chatcmpl-${step}`, { calls }, "tool_calls");
  },
  text: (n) => chatStream("chatcmpl-text", { text: Array(n).fill(TEXT_PIECE) }, "stop"),
  args: (n) => chatStream("chatcmpl-args", { calls: [{ id: "call_args", args: argFragments(n) }] }, "tool_calls"),
};

function chatUsage() {
  return {
    prompt_tokens: usageIn,
    completion_tokens: usageOut,
    total_tokens: usageIn + usageOut,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}
function chatStream(id, { text, calls }, finish) {
  const ev = [];
  const chunk = (delta, finish_reason = null, extra = {}) =>
    ev.push(
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: CREATED, model: "gpt-bench", service_tier: "default", system_fingerprint: "fp_bench", choices: [{ index: 0, delta, logprobs: null, finish_reason }], ...extra })}\n\n`,
    );
  chunk({ role: "assistant", content: text ? "" : null, refusal: null });
  if (text) for (const t of text) chunk({ content: t });
  if (calls) {
    calls.forEach((c, index) => {
      chunk({ tool_calls: [{ index, id: c.id, type: "function", function: { name: "get_weather", arguments: "" } }] });
      for (const a of c.args) chunk({ tool_calls: [{ index, function: { arguments: a } }] });
    });
  }
  chunk({}, finish);
  ev.push(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: CREATED, model: "gpt-bench", choices: [], usage: chatUsage() })}\n\n`);
  ev.push("data: [DONE]\n\n");
  return sse(ev);
}

// ---------------------------------------------------------------- OpenAI Responses
const responses = {
  json(step) {
    return json(responseObject(`resp_${step}`, "completed", responsesOutput(step)));
  },
  sse(step) {
    if (step >= TOOL_STEPS) return responsesStream(`resp_${step}`, [{ id: `msg_${step}`, text: split(FINAL_TEXT, 8) }]);
    const items = cities(step).map((city, i) => ({ id: `fc_${step}_${i}`, callId: `call_${step}_${i}`, args: split(JSON.stringify({ city }), 3) }));
    return responsesStream(`resp_${step}`, items);
  },
  text: (n) => responsesStream("resp_text", [{ id: "msg_text", text: Array(n).fill(TEXT_PIECE) }]),
  args: (n) => responsesStream("resp_args", [{ id: "fc_args", callId: "call_args", args: argFragments(n) }]),
};

function responsesOutput(step) {
  if (step >= TOOL_STEPS) return [messageItem(`msg_${step}`, FINAL_TEXT)];
  return cities(step).map((city, i) => callItem(`fc_${step}_${i}`, `call_${step}_${i}`, JSON.stringify({ city })));
}
function messageItem(id, text, status = "completed") {
  return {
    id,
    type: "message",
    status,
    content: status === "completed" ? [{ type: "output_text", annotations: [], logprobs: [], text }] : [],
    role: "assistant",
  };
}
function callItem(id, call_id, args, status = "completed") {
  return { id, type: "function_call", status, arguments: args, call_id, name: "get_weather" };
}
function responseObject(id, status, output) {
  return {
    id,
    object: "response",
    created_at: CREATED,
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model: "gpt-bench",
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    service_tier: "default",
    store: false,
    temperature: 1,
    text: { format: { type: "text" }, verbosity: "medium" },
    tool_choice: "auto",
    tools: [],
    top_p: 1,
    truncation: "disabled",
    usage:
      status === "completed"
        ? {
            input_tokens: usageIn,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: usageOut,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: usageIn + usageOut,
          }
        : null,
    user: null,
    metadata: {},
  };
}
function responsesStream(id, items) {
  const ev = [];
  let seq = 0;
  const add = (type, data) => ev.push(`event: ${type}\ndata: ${JSON.stringify({ type, ...data, sequence_number: seq++ })}\n\n`);
  add("response.created", { response: responseObject(id, "in_progress", []) });
  add("response.in_progress", { response: responseObject(id, "in_progress", []) });
  const done = [];
  items.forEach((it, output_index) => {
    if (it.text) {
      const full = it.text.join("");
      add("response.output_item.added", { output_index, item: messageItem(it.id, "", "in_progress") });
      add("response.content_part.added", {
        item_id: it.id,
        output_index,
        content_index: 0,
        part: { type: "output_text", annotations: [], logprobs: [], text: "" },
      });
      for (const delta of it.text) add("response.output_text.delta", { item_id: it.id, output_index, content_index: 0, delta, logprobs: [] });
      add("response.output_text.done", { item_id: it.id, output_index, content_index: 0, text: full, logprobs: [] });
      add("response.content_part.done", {
        item_id: it.id,
        output_index,
        content_index: 0,
        part: { type: "output_text", annotations: [], logprobs: [], text: full },
      });
      const item = messageItem(it.id, full);
      add("response.output_item.done", { output_index, item });
      done.push(item);
    } else {
      const full = it.args.join("");
      add("response.output_item.added", { output_index, item: callItem(it.id, it.callId, "", "in_progress") });
      for (const delta of it.args) add("response.function_call_arguments.delta", { item_id: it.id, output_index, delta });
      add("response.function_call_arguments.done", { item_id: it.id, output_index, arguments: full });
      const item = callItem(it.id, it.callId, full);
      add("response.output_item.done", { output_index, item });
      done.push(item);
    }
  });
  add("response.completed", { response: responseObject(id, "completed", done) });
  return sse(ev);
}

// ---------------------------------------------------------------- Gemini
const gemini = {
  json(step) {
    if (step >= TOOL_STEPS) return json(geminiChunk([{ text: FINAL_TEXT }], "STOP", true));
    return json(
      geminiChunk(
        cities(step).map((city) => ({ functionCall: { name: "get_weather", args: { city } } })),
        "STOP",
        true,
      ),
    );
  },
  sse(step) {
    if (step >= TOOL_STEPS) return geminiStream(split(FINAL_TEXT, 8).map((text) => [{ text }]));
    // The Gemini API sends function calls whole (no argument fragments).
    return geminiStream([cities(step).map((city) => ({ functionCall: { name: "get_weather", args: { city } } }))]);
  },
  text: (n) => geminiStream(Array.from({ length: n }, () => [{ text: TEXT_PIECE }])),
  args: null, // the Gemini API has no streamed function-call arguments
};

function geminiChunk(parts, finishReason, last) {
  const c = { content: { parts, role: "model" }, index: 0 };
  if (finishReason) c.finishReason = finishReason;
  const usage = last
    ? { promptTokenCount: usageIn, candidatesTokenCount: usageOut, totalTokenCount: usageIn + usageOut }
    : { promptTokenCount: usageIn, totalTokenCount: usageIn };
  return { candidates: [c], usageMetadata: usage, modelVersion: "gemini-bench", responseId: "gemini-resp" };
}
function geminiStream(chunks) {
  return sse(
    chunks.map((parts, i) => `data: ${JSON.stringify(geminiChunk(parts, i === chunks.length - 1 ? "STOP" : undefined, i === chunks.length - 1))}\r\n\r\n`),
  );
}

// ----------------------------------------------------------------
function json(value) {
  return { type: "application/json", body: Buffer.from(JSON.stringify(value)) };
}
function sse(events) {
  return { type: "text/event-stream; charset=utf-8", body: Buffer.from(events.join("")) };
}

export const WIRE = { anthropic, chat, responses, gemini };

/** Every loop answer, pre-serialised: answers[format][mode][step]. */
export function loopAnswers() {
  const out = {};
  for (const f of FORMATS) {
    out[f] = { json: [], sse: [] };
    for (let s = 0; s <= TOOL_STEPS; s++) {
      out[f].json.push(WIRE[f].json(s));
      out[f].sse.push(WIRE[f].sse(s));
    }
  }
  return out;
}
