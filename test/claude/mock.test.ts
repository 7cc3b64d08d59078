// The mock is only useful if it behaves like the real API. Its responses are checked
// against the official response schemas, and its refusals against the real error texts
// recorded in the fixtures.
import { afterEach, describe, expect, it } from "vitest";
import { type ClaudeMock, type ClaudeMockOptions, startClaudeMock } from "../mock/claude.js";
import { fixtureText, specValidator, sseData } from "./helpers.js";

const KEY = "sk-ant-mock-key";
const mocks: ClaudeMock[] = [];
afterEach(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.close()));
});

async function start(options: ClaudeMockOptions = {}): Promise<ClaudeMock> {
  const mock = await startClaudeMock({ apiKey: KEY, script: () => ({ text: "ok" }), ...options });
  mocks.push(mock);
  return mock;
}

const headers = { "x-api-key": KEY, "anthropic-version": "2023-06-01", "content-type": "application/json" };
const post = (mock: ClaudeMock, body: unknown, h: Record<string, string> = headers) =>
  fetch(`${mock.url}/messages`, { method: "POST", headers: h, body: JSON.stringify(body) });
const user = (text: string) => ({ role: "user", content: [{ type: "text", text }] });

async function refusal(res: Response): Promise<{ status: number; type: string; message: string; requestId: string | null; bodyId: unknown }> {
  const body = (await res.json()) as { type: string; error: { type: string; message: string }; request_id: unknown };
  expect(body.type).toBe("error");
  return { status: res.status, type: body.error.type, message: body.error.message, requestId: res.headers.get("request-id"), bodyId: body.request_id };
}

describe("mock responses follow the official response schemas", () => {
  const message = specValidator("Message", { nullableOptional: true });
  const streamEvent = specValidator("MessageStreamEvent", { nullableOptional: true });

  it("recorded real responses pass the same checks (so the checks fit the wire)", () => {
    for (const file of [
      "vercel-ai/anthropic-text.json",
      "vercel-ai/anthropic-web-search-tool.1.json",
      "vercel-ai/anthropic-clear-thinking.1.json",
      "pydantic-ai/test_multiple_parallel_tool_calls.1.response.json",
    ]) {
      expect(message(JSON.parse(fixtureText(file)))).toEqual([]);
    }
    for (const file of [
      "pydantic-ai/test_anthropic_web_search_tool_stream.1.sse",
      "pydantic-ai/test_anthropic_model_thinking_part_stream.1.sse",
      "pydantic-ai/test_anthropic_model_thinking_part_redacted_stream.1.sse",
    ]) {
      for (const e of sseData(fixtureText(file))) if (e.type !== "ping") expect(streamEvent(e)).toEqual([]);
    }
  });

  const script = () => ({
    thinking: "Think first.",
    text: "Answer.",
    toolCalls: [{ name: "get_weather", input: { city: "Paris" } }],
    blocks: [
      { type: "server_tool_use", id: "srvtoolu_01x", name: "web_search", input: { query: "q" } },
      {
        type: "web_search_tool_result",
        tool_use_id: "srvtoolu_01x",
        content: [{ type: "web_search_result", title: "T", url: "https://e.com", encrypted_content: "E", page_age: null }],
      },
    ],
  });
  const body = { model: "claude-test", max_tokens: 10, messages: [user("Hi")], tools: [{ name: "get_weather", input_schema: { type: "object" } }] };

  it("JSON: a Message", async () => {
    const mock = await start({ script });
    const res = await post(mock, body);
    expect(res.status).toBe(200);
    expect(res.headers.get("request-id")).toMatch(/^req_/);
    const json = (await res.json()) as Record<string, unknown>;
    expect(message(json)).toEqual([]);
    expect(json).toMatchObject({ type: "message", role: "assistant", stop_reason: "tool_use", id: expect.stringMatching(/^msg_/) });
    expect((json.content as { type: string; id?: string }[]).find((b) => b.type === "tool_use")!.id).toMatch(/^toolu_/);
  });

  it("SSE: every event is a MessageStreamEvent (or a ping), framed as event:/data:", async () => {
    const mock = await start({ script });
    const res = await post(mock, { ...body, stream: true });
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const text = await res.text();
    const events = sseData(text);
    expect(events.map((e) => e.type)).toContain("ping");
    for (const e of events) if (e.type !== "ping") expect(streamEvent(e)).toEqual([]);
    for (const frame of text.split("\n\n").filter(Boolean)) expect(frame).toMatch(/^event: (\w+)\ndata: \{"type": ?"\1"/);
    expect(events.at(-1)).toEqual({ type: "message_stop" });
  });

  it("the check can fail: a malformed message is reported", () => {
    expect(message({ type: "message", content: "nope" })).not.toEqual([]);
    expect(streamEvent({ type: "content_block_delta", index: "x" })).not.toEqual([]);
  });
});

describe("mock request validation matches the real API", () => {
  it("authentication and version headers", async () => {
    const mock = await start();
    const { "x-api-key": _k, ...noKey } = headers;
    expect(await refusal(await post(mock, {}, noKey))).toMatchObject({ status: 401, type: "authentication_error", message: "x-api-key header is required" });
    expect(await refusal(await post(mock, {}, { ...headers, "x-api-key": "wrong" }))).toMatchObject({
      status: 401,
      type: "authentication_error",
      message: "invalid x-api-key",
    });
    const { "anthropic-version": _v, ...noVersion } = headers;
    expect(await refusal(await post(mock, {}, noVersion))).toMatchObject({ status: 400, message: "anthropic-version: header is required" });
    const r = await refusal(await post(mock, {}, { ...headers, "x-api-key": "wrong" }));
    expect(r.requestId).toMatch(/^req_/);
    expect(r.bodyId).toBe(r.requestId);
  });

  it("required fields, message order and text", async () => {
    const mock = await start();
    const cases: [unknown, string][] = [
      [{ max_tokens: 5, messages: [user("a")] }, "model: Field required"],
      [{ model: "m", messages: [user("a")] }, "max_tokens: Field required"],
      [{ model: "m", max_tokens: 5, messages: [] }, "messages: List should have at least 1 item after validation, not 0"],
      [{ model: "m", max_tokens: 5, messages: [{ role: "assistant", content: "hi" }] }, 'messages: first message must use the "user" role'],
      [{ model: "m", max_tokens: 5, messages: [{ role: "user", content: [{ type: "text", text: "" }] }] }, "messages: text content blocks must be non-empty"],
      [
        { model: "m", max_tokens: 5, messages: [{ role: "user", content: [{ type: "text", text: " \n" }] }] },
        "messages: text content blocks must contain non-whitespace text",
      ],
      [
        { model: "m", max_tokens: 5, messages: [user("a")], tools: [{ name: "bad name", input_schema: { type: "object" } }] },
        "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'",
      ],
    ];
    for (const [body, message] of cases) expect(await refusal(await post(mock, body))).toMatchObject({ status: 400, type: "invalid_request_error", message });
  });

  it("a tool_use without its tool_result: the real error text (anthropic-parallel-provider-client-tools.error.json)", async () => {
    const real = JSON.parse(fixtureText("vercel-ai/anthropic-parallel-provider-client-tools.error.json")) as { error: { message: string } };
    const mock = await start();
    const body = {
      model: "m",
      max_tokens: 5,
      messages: [
        user("Run both tools"),
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_issue8112_custom", name: "custom", input: {} }] },
        user("hello?"),
      ],
      tools: [{ name: "custom", input_schema: { type: "object" } }],
    };
    expect(await refusal(await post(mock, body))).toMatchObject({ status: 400, message: real.error.message });
    // results after other content do not count either: they must open the user turn
    body.messages[2] = {
      role: "user",
      content: [
        { type: "text", text: "here:" },
        { type: "tool_result", tool_use_id: "toolu_issue8112_custom", content: "ok" },
      ] as never,
    };
    expect((await refusal(await post(mock, body))).message).toBe(real.error.message);
  });

  it("a tool_result for a call that is not in the previous turn: the real error text (anthropic-issue-17366-error.json)", async () => {
    const real = JSON.parse(fixtureText("vercel-ai/anthropic-issue-17366-error.json")) as { error: { message: string } };
    const mock = await start();
    const body = {
      model: "m",
      max_tokens: 5,
      messages: [
        user("Search"),
        { role: "assistant", content: [{ type: "text", text: "Searching." }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "srvtoolu_issue_17366_invalid", content: "x" }] },
      ],
    };
    expect(await refusal(await post(mock, body))).toMatchObject({ status: 400, message: real.error.message });
  });

  it("accepts a valid tool round trip, consecutive same-role turns and an assistant prefill", async () => {
    const mock = await start();
    const res = await post(mock, {
      model: "m",
      max_tokens: 5,
      messages: [
        user("a"),
        user("b"),
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "t", input: {} }] },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_1", content: "ok" },
            { type: "text", text: "thanks" },
          ],
        },
        { role: "assistant", content: "Sure" },
      ],
      tools: [{ name: "t", input_schema: { type: "object" } }],
    });
    expect(res.status).toBe(200);
  });

  it("structured output schemas must close every object", async () => {
    const mock = await start();
    const body = {
      model: "m",
      max_tokens: 5,
      messages: [user("a")],
      output_config: { format: { type: "json_schema", schema: { type: "object", properties: { a: { type: "object" } }, additionalProperties: false } } },
    };
    expect((await refusal(await post(mock, body))).message).toBe(
      "output_config.format.schema.properties.a: For 'object' type, 'additionalProperties' must be explicitly set to false",
    );
  });

  it("running out of script is a non-retryable 500; unknown paths are 404", async () => {
    const mock = await start({ script: [] });
    const res = await post(mock, { model: "m", max_tokens: 5, messages: [user("a")] });
    expect(res.status).toBe(500);
    expect(res.headers.get("x-should-retry")).toBe("false");
    const other = await fetch(`${mock.url}/models`, { method: "POST", headers, body: "{}" });
    expect(await refusal(other)).toMatchObject({ status: 404, type: "not_found_error" });
  });
});

describe("mock CORS", () => {
  it("with cors: answers preflights and exposes headers", async () => {
    const mock = await start({ cors: true });
    const pre = await fetch(`${mock.url}/messages`, {
      method: "OPTIONS",
      headers: {
        origin: "http://page.test",
        "access-control-request-method": "POST",
        "access-control-request-headers": "x-api-key,anthropic-version,content-type",
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("http://page.test");
    expect(pre.headers.get("access-control-allow-headers")).toBe("x-api-key,anthropic-version,content-type");
    expect(pre.headers.get("access-control-allow-methods")).toContain("POST");
    const res = await post(mock, { model: "m", max_tokens: 5, messages: [user("a")] }, { ...headers, origin: "http://page.test" });
    expect(res.headers.get("access-control-allow-origin")).toBe("http://page.test");
    expect(res.headers.get("access-control-expose-headers")).toContain("request-id");
  });

  it("without cors: no CORS headers", async () => {
    const mock = await start();
    const res = await post(mock, { model: "m", max_tokens: 5, messages: [user("a")] });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });
});
