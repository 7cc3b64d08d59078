// The mock servers themselves: they must reject what api.openai.com rejects, with its
// error shapes, or the adapter tests that pass against them prove little.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OpenAIMock, startOpenAIChatMock } from "../mock/openai-chat.js";
import { startOpenAIResponsesMock } from "../mock/openai-responses.js";
import { ssePayloads } from "./support/fixtures.js";

const KEY = "sk-mock-check-123456789";
let chat: OpenAIMock;
let responses: OpenAIMock;
beforeAll(async () => {
  chat = await startOpenAIChatMock({ apiKey: KEY, cors: true, script: (_b, i) => ({ text: `turn ${i}` }) });
  responses = await startOpenAIResponsesMock({ apiKey: KEY, cors: true, script: (_b, i) => ({ text: `turn ${i}` }) });
});
afterAll(async () => {
  await chat.close();
  await responses.close();
});

async function post(url: string, body: unknown, headers: Record<string, string> = { authorization: `Bearer ${KEY}` }) {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return {
    status: res.status,
    headers: res.headers,
    text,
    json: json as { error?: { message: string; type: string; param: string | null; code: string | null } },
  };
}

const user = { role: "user", content: "hi" };

describe("Chat Completions mock", () => {
  const url = () => `${chat.url}/chat/completions`;

  it("answers preflights and exposes the request id to browsers", async () => {
    const pre = await fetch(url(), {
      method: "OPTIONS",
      headers: { origin: "http://page.test", "access-control-request-method": "POST", "access-control-request-headers": "authorization,content-type" },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("http://page.test");
    expect(pre.headers.get("access-control-allow-headers")).toBe("authorization,content-type");
    const res = await fetch(url(), {
      method: "POST",
      headers: { origin: "http://page.test", authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: [user] }),
    });
    expect(res.headers.get("access-control-allow-origin")).toBe("http://page.test");
    expect(res.headers.get("access-control-expose-headers")).toContain("x-request-id");
  });

  it("rejects a missing or wrong key with OpenAI's 401 shapes", async () => {
    const none = await post(url(), { model: "m", messages: [user] }, {});
    expect(none.status).toBe(401);
    expect(none.json.error).toMatchObject({ type: "invalid_request_error", code: null });
    expect(none.json.error!.message).toMatch(/^You didn't provide an API key/);
    const wrong = await post(url(), { model: "m", messages: [user] }, { authorization: "Bearer sk-nope-999999999" });
    expect(wrong.json.error).toMatchObject({ type: "invalid_request_error", code: "invalid_api_key" });
    expect(wrong.json.error!.message).not.toContain("sk-nope-999999999");
  });

  it("rejects unanswered tool calls and tool messages without a call", async () => {
    const call = { role: "assistant", content: null, tool_calls: [{ id: "call_x", type: "function", function: { name: "f", arguments: "{}" } }] };
    const unanswered = await post(url(), { model: "m", messages: [user, call, user] });
    expect(unanswered.status).toBe(400);
    expect(unanswered.json.error).toMatchObject({ type: "invalid_request_error", param: "messages.[1].role" });
    expect(unanswered.json.error!.message).toBe(
      "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_x",
    );
    const orphan = await post(url(), { model: "m", messages: [user, { role: "tool", tool_call_id: "call_x", content: "r" }] });
    expect(orphan.json.error!.message).toMatch(/messages with role 'tool' must be a response to a preceeding message with 'tool_calls'/);
    const ok = await post(url(), { model: "m", messages: [user, call, { role: "tool", tool_call_id: "call_x", content: "r" }] });
    expect(ok.status).toBe(200);
  });

  it("checks strict schemas, tool_choice without tools and the model", async () => {
    const tool = (parameters: unknown, strict: boolean) => ({ type: "function", function: { name: "f", parameters, strict } });
    const open = await post(url(), { model: "m", messages: [user], tools: [tool({ type: "object", properties: { a: { type: "string" } } }, true)] });
    expect(open.json.error).toMatchObject({ code: "invalid_function_parameters", param: "tools[0].function.parameters" });
    expect(open.json.error!.message).toBe("Invalid schema for function 'f': In context=(), 'additionalProperties' is required to be supplied and to be false.");
    const notRequired = await post(url(), {
      model: "m",
      messages: [user],
      tools: [tool({ type: "object", properties: { a: { type: "string" } }, additionalProperties: false }, true)],
    });
    expect(notRequired.json.error!.message).toMatch(/'required' is required to be supplied and to be an array including every key in properties. Missing 'a'/);
    const loose = await post(url(), { model: "m", messages: [user], tools: [tool({ type: "object", properties: { a: { type: "string" } } }, false)] });
    expect(loose.status).toBe(200);
    const noItems = await post(url(), { model: "m", messages: [user], tools: [tool({ type: "object", properties: { a: { type: "array" } } }, false)] });
    expect(noItems.json.error!.message).toMatch(/In context=\('properties', 'a'\), array schema missing items/);
    const choice = await post(url(), { model: "m", messages: [user], tool_choice: "none" });
    expect(choice.json.error!.message).toMatch(/'tool_choice' is only allowed when 'tools' are specified/);
    const noModel = await post(url(), { messages: [user] });
    expect(noModel.json.error).toMatchObject({ message: "you must provide a model parameter", param: "model" });
  });

  it("streams chunks with usage in a last choices: [] chunk and ends with [DONE]", async () => {
    const res = await post(url(), { model: "m", messages: [user], stream: true, stream_options: { include_usage: true } });
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const payloads = ssePayloads(res.text);
    expect(payloads.at(-1)).toBe("[DONE]");
    const usageChunk = JSON.parse(payloads.at(-2)!) as { choices: unknown[]; usage: { prompt_tokens: number } };
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage.prompt_tokens).toBeGreaterThan(0);
    expect(
      res.text
        .split("\n\n")
        .filter(Boolean)
        .every((block) => block.startsWith("data: ")),
    ).toBe(true);
  });
});

describe("Responses mock", () => {
  const url = () => `${responses.url}/responses`;

  it("rejects a function call without its output, and an output without its call", async () => {
    const call = { type: "function_call", call_id: "call_1", name: "f", arguments: "{}" };
    const missing = await post(url(), { model: "m", input: [user, call] });
    expect(missing.json.error).toMatchObject({ message: "No tool output found for function call call_1.", type: "invalid_request_error", param: "input" });
    const orphan = await post(url(), { model: "m", input: [user, { type: "function_call_output", call_id: "call_2", output: "x" }] });
    expect(orphan.json.error!.message).toBe("No tool call found for function call output with call_id call_2.");
  });

  it("rejects reasoning it cannot resolve when nothing is stored", async () => {
    const r = await post(url(), {
      model: "m",
      store: false,
      input: [user, { type: "reasoning", id: "rs_1", summary: [] }, { role: "assistant", content: "a" }],
    });
    expect(r.json.error!.message).toMatch(/^Item with id 'rs_1' not found. Items are not persisted when `store` is set to false./);
  });

  it("treats a function tool without strict as strict, as the API does", async () => {
    const r = await post(url(), {
      model: "m",
      input: "hi",
      tools: [{ type: "function", name: "f", parameters: { type: "object", properties: { a: { type: "string" } } } }],
    });
    expect(r.json.error).toMatchObject({ code: "invalid_function_parameters" });
  });

  it("streams named events that end with response.completed", async () => {
    const res = await post(url(), { model: "m", input: "hi", stream: true });
    const blocks = res.text.split("\n\n").filter(Boolean);
    for (const b of blocks) {
      const [event, data] = b.split("\n");
      expect(event!.slice("event: ".length)).toBe((JSON.parse(data!.slice("data: ".length)) as { type: string }).type);
    }
    expect(blocks.at(-1)).toMatch(/^event: response\.completed\n/);
  });

  it("answers unknown paths with 404", async () => {
    const r = await post(`${responses.url}/nope`, { model: "m" });
    expect(r.status).toBe(404);
    expect(r.json.error!.message).toBe("Invalid URL (POST /v1/nope)");
  });
});
