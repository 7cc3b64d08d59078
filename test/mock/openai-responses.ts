// A wire-faithful OpenAI Responses API server for tests (node:http on 127.0.0.1, port 0).
// Validates like api.openai.com (auth, model, every function_call answered by a
// function_call_output, strict schemas, reasoning items that cannot be resolved under
// store: false) and answers a scripted turn as a Response object or as the real event
// stream (`event:` + `data:` lines ending with response.completed), arguments cut into
// several deltas. Raw replies queued with enqueue() win over the script.
import {
  argumentsOf,
  estimateTokens,
  formatSchemaError,
  fragments,
  type MockTurn,
  mockId,
  type OpenAIMock,
  type OpenAIMockOptions,
  type RawReply,
  reject,
  schemaError,
  sseEvent,
  startOpenAIMockServer,
  words,
} from "./openai-chat.js";

export type { MockTurn, OpenAIMock, RawReply } from "./openai-chat.js";

/** A scripted Responses turn: MockTurn plus the server-side items the Responses API adds. */
export interface ResponsesMockTurn extends MockTurn {
  /** Produce a reasoning item first (summary text); encrypted when the request includes reasoning.encrypted_content. */
  reasoning?: string;
  /** Produce a web_search_call item (needs the web_search tool) and cite its first source in the text. */
  webSearch?: { query: string; sources?: string[] };
}

export interface OpenAIResponsesMockOptions extends Omit<OpenAIMockOptions, "script"> {
  script?: ResponsesMockTurn[] | ((body: unknown, index: number) => ResponsesMockTurn);
}

type Item = Record<string, unknown>;

export async function startOpenAIResponsesMock(options: OpenAIResponsesMockOptions = {}): Promise<OpenAIMock> {
  // What the "server" handed out: reasoning it can resolve by id (store: true) or decrypt.
  const stored = new Set<string>();
  const encrypted = new Set<string>();
  return startOpenAIMockServer({
    path: "/responses",
    options: options as OpenAIMockOptions,
    handle: (body, turn) => {
      validateResponses(body, stored, encrypted);
      return answer(body, turn() as ResponsesMockTurn, stored, encrypted);
    },
  });
}

function answer(body: Record<string, unknown>, turn: ResponsesMockTurn, stored: Set<string>, encrypted: Set<string>): RawReply {
  const store = body.store !== false;
  const include = Array.isArray(body.include) ? body.include : [];
  const tools = Array.isArray(body.tools) ? (body.tools as Item[]) : [];
  const id = mockId("resp_");
  const created = Math.floor(Date.now() / 1000);
  const output: Item[] = [];

  if (turn.reasoning !== undefined) {
    const item: Item = { id: mockId("rs_"), type: "reasoning", summary: [{ type: "summary_text", text: turn.reasoning }] };
    if (include.includes("reasoning.encrypted_content")) {
      const enc = `gAAAAA${mockId("")}`;
      encrypted.add(enc);
      item.encrypted_content = enc;
    }
    if (store) stored.add(String(item.id));
    output.push(item);
  }
  let annotations: Item[] = [];
  if (turn.webSearch) {
    if (!tools.some((t) => t.type === "web_search")) {
      throw new Error("the script asks for a web search but the request has no web_search tool");
    }
    const sources = turn.webSearch.sources ?? ["https://example.com/result"];
    output.push({
      id: mockId("ws_"),
      type: "web_search_call",
      status: "completed",
      action: { type: "search", query: turn.webSearch.query, sources: sources.map((url) => ({ type: "url", url })) },
    });
    const text = turn.text ?? "";
    annotations = [{ type: "url_citation", start_index: 0, end_index: text.length, url: sources[0], title: "Mock source" }];
  }
  const text = turn.text ?? "";
  if (text !== "" || (turn.toolCalls ?? []).length === 0) {
    output.push({
      id: mockId("msg_"),
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text, annotations, logprobs: [] }],
    });
  }
  for (const c of turn.toolCalls ?? []) {
    output.push({
      id: mockId("fc_"),
      type: "function_call",
      status: "completed",
      arguments: argumentsOf(c),
      call_id: c.id ?? mockId("call_").slice(0, 29),
      name: c.name,
    });
  }
  const usage = {
    input_tokens: estimateTokens(body.input),
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: estimateTokens(output),
    output_tokens_details: { reasoning_tokens: turn.reasoning ? estimateTokens(turn.reasoning) : 0 },
    total_tokens: 0,
  };
  usage.total_tokens = usage.input_tokens + usage.output_tokens;
  const response = (status: string, out: Item[], u: unknown) => ({
    id,
    object: "response",
    created_at: created,
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: `${String(body.model)}-mock`,
    output: out,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null, ...(body.reasoning as object | undefined) },
    store,
    temperature: body.temperature ?? 1,
    text: body.text ?? { format: { type: "text" } },
    tool_choice: body.tool_choice ?? "auto",
    tools,
    top_p: 1,
    truncation: "disabled",
    usage: u,
    user: null,
    metadata: {},
  });

  if (body.stream !== true) return { status: 200, body: response("completed", output, usage) };

  let seq = 0;
  const sse: string[] = [];
  const ev = (type: string, fields: Record<string, unknown>) => sse.push(sseEvent(type, { type, sequence_number: seq++, ...fields }));
  ev("response.created", { response: response("in_progress", [], null) });
  ev("response.in_progress", { response: response("in_progress", [], null) });
  output.forEach((item, output_index) => {
    const item_id = item.id;
    switch (item.type) {
      case "reasoning": {
        const { summary: _s, ...rest } = item;
        ev("response.output_item.added", { output_index, item: { ...rest, summary: [] } });
        const summary = (item.summary as { text: string }[])[0]!.text;
        ev("response.reasoning_summary_part.added", { item_id, output_index, summary_index: 0, part: { type: "summary_text", text: "" } });
        for (const w of words(summary)) ev("response.reasoning_summary_text.delta", { item_id, output_index, summary_index: 0, delta: w });
        ev("response.reasoning_summary_text.done", { item_id, output_index, summary_index: 0, text: summary });
        ev("response.reasoning_summary_part.done", { item_id, output_index, summary_index: 0, part: { type: "summary_text", text: summary } });
        break;
      }
      case "web_search_call":
        ev("response.output_item.added", { output_index, item: { id: item_id, type: "web_search_call", status: "in_progress" } });
        ev("response.web_search_call.in_progress", { output_index, item_id });
        ev("response.web_search_call.searching", { output_index, item_id });
        ev("response.web_search_call.completed", { output_index, item_id });
        break;
      case "message": {
        const part = (item.content as Item[])[0]!;
        ev("response.output_item.added", { output_index, item: { ...item, status: "in_progress", content: [] } });
        ev("response.content_part.added", { item_id, output_index, content_index: 0, part: { type: "output_text", annotations: [], logprobs: [], text: "" } });
        for (const w of words(String(part.text))) ev("response.output_text.delta", { item_id, output_index, content_index: 0, delta: w, logprobs: [] });
        (part.annotations as Item[]).forEach((annotation, annotation_index) =>
          ev("response.output_text.annotation.added", { item_id, output_index, content_index: 0, annotation_index, annotation }),
        );
        ev("response.output_text.done", { item_id, output_index, content_index: 0, text: part.text, logprobs: [] });
        ev("response.content_part.done", { item_id, output_index, content_index: 0, part });
        break;
      }
      case "function_call": {
        ev("response.output_item.added", { output_index, item: { ...item, status: "in_progress", arguments: "" } });
        const args = String(item.arguments);
        for (const f of args === "" ? [] : fragments(args)) ev("response.function_call_arguments.delta", { item_id, output_index, delta: f });
        ev("response.function_call_arguments.done", { item_id, output_index, arguments: args });
        break;
      }
    }
    ev("response.output_item.done", { output_index, item });
  });
  ev("response.completed", { response: response("completed", output, usage) });
  return { sse };
}

function validateResponses(body: Record<string, unknown>, stored: Set<string>, encrypted: Set<string>): void {
  const store = body.store !== false;
  const tools = body.tools;
  if (tools !== undefined) {
    if (!Array.isArray(tools)) reject("Invalid type for 'tools': expected an array.", "tools", "invalid_type");
    tools.forEach((t, i) => {
      const tool = t as Item;
      if (tool.type === "web_search" || tool.type === "web_search_preview") return;
      if (tool.type !== "function")
        reject(`Invalid value: '${String(tool.type)}'. Supported values are: 'function', 'web_search', ...`, `tools[${i}].type`, "invalid_value");
      if (typeof tool.name !== "string" || !/^[a-zA-Z0-9_-]{1,64}$/.test(tool.name)) {
        reject(
          `Invalid 'tools[${i}].name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
          `tools[${i}].name`,
          "invalid_value",
        );
      }
      // The Responses API treats a function without `strict` as strict.
      const problem = schemaError(tool.parameters, tool.strict !== false);
      if (problem) reject(`Invalid schema for function '${tool.name}': ${problem}`, `tools[${i}].parameters`, "invalid_function_parameters");
    });
  }
  if (body.tool_choice !== undefined && !["none", "auto", "required"].includes(body.tool_choice as string) && typeof body.tool_choice !== "object") {
    reject(`Invalid value: '${String(body.tool_choice)}'. Supported values are: 'none', 'auto', and 'required'.`, "tool_choice", "invalid_value");
  }
  if (typeof body.tool_choice === "object" && body.tool_choice !== null) {
    const c = body.tool_choice as Item;
    if (c.type === "function") {
      if (typeof c.name !== "string") reject("Missing required parameter: 'tool_choice.name'.", "tool_choice.name", "missing_required_parameter");
      const names = (Array.isArray(tools) ? (tools as Item[]) : []).filter((t) => t.type === "function").map((t) => t.name);
      if (!names.includes(c.name)) reject(`Tool choice '${String(c.name)}' not found in 'tools' parameter.`, "tool_choice", null);
    } else if (c.type !== "allowed_tools" && c.type !== "web_search" && c.type !== "web_search_preview") {
      reject(`Invalid value: '${String(c.type)}'.`, "tool_choice.type", "invalid_value");
    }
  }
  if (body.parallel_tool_calls !== undefined && typeof body.parallel_tool_calls !== "boolean") {
    reject("Invalid type for 'parallel_tool_calls': expected a boolean.", "parallel_tool_calls", "invalid_type");
  }
  const format = (body.text as { format?: Item } | undefined)?.format;
  if (format?.type === "json_schema") {
    if (typeof format.name !== "string") reject("Missing required parameter: 'text.format.name'.", "text.format.name", "missing_required_parameter");
    const problem = formatSchemaError(format.schema, format.strict === true);
    if (problem) reject(`Invalid schema for response_format '${format.name}': ${problem}`, "text.format.schema", "invalid_json_schema");
  }
  if (body.include !== undefined) {
    const known = ["reasoning.encrypted_content", "web_search_call.action.sources", "web_search_call.results", "message.output_text.logprobs"];
    for (const inc of body.include as unknown[]) {
      if (!known.includes(inc as string)) reject(`Invalid value: '${String(inc)}'.`, "include", "invalid_value");
    }
  }

  const input = body.input;
  if (typeof input === "string") return;
  if (!Array.isArray(input)) reject("Invalid type for 'input': expected one of a string or array of input items.", "input", "invalid_type");
  const calls = new Map<string, number>();
  const answered = new Set<string>();
  input.forEach((raw, i) => {
    const item = raw as Item;
    const type = item.type ?? (item.role !== undefined ? "message" : undefined);
    switch (type) {
      case "message":
        if (!["user", "assistant", "system", "developer"].includes(item.role as string)) {
          reject(
            `Invalid value: '${String(item.role)}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.`,
            `input[${i}].role`,
            "invalid_value",
          );
        }
        if (typeof item.content !== "string" && !Array.isArray(item.content)) {
          reject(`Invalid type for 'input[${i}].content': expected one of a string or array of input items.`, `input[${i}].content`, "invalid_type");
        }
        if (Array.isArray(item.content) && item.role !== "assistant") checkInputParts(item.content, `input[${i}].content`);
        break;
      case "function_call":
        if (typeof item.call_id !== "string" || typeof item.name !== "string" || typeof item.arguments !== "string") {
          reject(`Missing required parameter: 'input[${i}].call_id'.`, `input[${i}]`, "missing_required_parameter");
        }
        calls.set(item.call_id as string, i);
        break;
      case "function_call_output":
        if (!calls.has(item.call_id as string)) reject(`No tool call found for function call output with call_id ${String(item.call_id)}.`, "input");
        if (typeof item.output !== "string" && !Array.isArray(item.output)) {
          reject(`Invalid type for 'input[${i}].output': expected a string.`, `input[${i}].output`, "invalid_type");
        }
        if (Array.isArray(item.output)) checkInputParts(item.output, `input[${i}].output`);
        answered.add(item.call_id as string);
        break;
      case "reasoning": {
        const rid = String(item.id);
        if (typeof item.encrypted_content === "string") {
          if (!encrypted.has(item.encrypted_content)) {
            reject(`The encrypted content for item ${rid} could not be verified.`, null, "invalid_encrypted_content");
          }
        } else if (!store || !stored.has(rid)) {
          reject(
            `Item with id '${rid}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to \`true\`, or remove this item from your input.`,
            "input",
          );
        }
        if (i + 1 >= input.length) reject(`Item '${rid}' of type 'reasoning' was provided without its required following item.`, "input");
        break;
      }
      case "web_search_call":
        if (typeof item.id !== "string" || typeof item.status !== "string")
          reject(`Missing required parameter: 'input[${i}].id'.`, `input[${i}]`, "missing_required_parameter");
        break;
      default:
        reject(`Invalid value: '${String(type)}'.`, `input[${i}].type`, "invalid_value");
    }
  });
  for (const [callId] of calls) {
    if (!answered.has(callId)) reject(`No tool output found for function call ${callId}.`, "input");
  }
}

const IMAGE_DATA_URL = /^data:image\/(png|jpeg|jpg|webp|gif);base64,[A-Za-z0-9+/=]*$/;

/** input_text / input_image / input_file, in a user message or a function_call_output array. */
function checkInputParts(parts: unknown[], where: string): void {
  parts.forEach((raw, j) => {
    const at = `${where}[${j}]`;
    const part = raw as Item;
    switch (part.type) {
      case "input_text":
        if (typeof part.text !== "string") reject(`Missing required parameter: '${at}.text'.`, `${at}.text`, "missing_required_parameter");
        break;
      case "input_image": {
        const url = part.image_url;
        if (typeof url !== "string" && typeof part.file_id !== "string")
          reject(`Missing required parameter: '${at}.image_url'.`, `${at}.image_url`, "missing_required_parameter");
        if (typeof url === "string" && !/^https?:\/\//.test(url) && !IMAGE_DATA_URL.test(url)) {
          reject(
            "Invalid image URL: the URL must be an http(s) URL or a base64 data URL of a PNG, JPEG, WEBP or GIF image.",
            `${at}.image_url`,
            "invalid_image_url",
          );
        }
        if (part.detail !== undefined && !["auto", "low", "high", "original"].includes(part.detail as string)) {
          reject(`Invalid value: '${String(part.detail)}'. Supported values are: 'low', 'high', 'auto' and 'original'.`, `${at}.detail`, "invalid_value");
        }
        break;
      }
      case "input_file": {
        const sources = ["file_data", "file_id", "file_url"].filter((k) => typeof part[k] === "string");
        if (sources.length !== 1) reject(`Invalid '${at}': exactly one of 'file_data', 'file_id' or 'file_url' must be provided.`, at, "invalid_value");
        if (typeof part.file_data === "string") {
          if (!/^data:[\w.+-]+\/[\w.+-]+;base64,[A-Za-z0-9+/=]*$/.test(part.file_data))
            reject("Invalid file data: expected a base64 data URL.", `${at}.file_data`, "invalid_value");
          if (typeof part.filename !== "string") reject(`Missing required parameter: '${at}.filename'.`, `${at}.filename`, "missing_required_parameter");
        }
        if (typeof part.file_url === "string" && !/^https?:\/\//.test(part.file_url)) reject("Invalid file URL.", `${at}.file_url`, "invalid_value");
        break;
      }
      default:
        reject(`Invalid value: '${String(part.type)}'. Supported values are: 'input_text', 'input_image', and 'input_file'.`, `${at}.type`, "invalid_value");
    }
  });
}
