// Errors from the Claude adapter are typed values a caller can branch on (code, status,
// the API's error type, request id), retries follow the server's retry-after hints, and
// the API key never shows up in anything an error or the provider exposes.
import { afterEach, describe, expect, it } from "vitest";
import { type ClaudeOptions, claude } from "../../adapters/claude/index.js";
import { InvalidOptionsError, isToolloopError, type ProviderError, type StreamError } from "../../src/base/errors.js";
import type { ModelRequest } from "../../src/conversation/provider.js";
import { createClient } from "../../src/index.js";
import { type ClaudeMock, errorBody, type MockTurn, messageEvents, startClaudeMock } from "../mock/claude.js";

const KEY = "sk-ant-api03-SECRETSECRET-0123456789";
const MODEL = "claude-haiku-4-5";
const mocks: ClaudeMock[] = [];
afterEach(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.close()));
});

async function setup(script: MockTurn[] = [{ text: "ok" }], options: Partial<ClaudeOptions> = {}, apiKey = KEY) {
  const mock = await startClaudeMock({ apiKey: KEY, script });
  mocks.push(mock);
  const provider = claude({ apiKey, model: MODEL, baseURL: mock.url, ...options });
  return { mock, provider };
}

const ask = (stream = false): ModelRequest => ({
  messages: [{ role: "user", content: "Hello" }],
  tools: [],
  webSearch: false,
  ...(stream ? { onDelta: () => {} } : {}),
});

async function failure(p: Promise<unknown>): Promise<ProviderError & StreamError> {
  const err = await p.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e: unknown) => e,
  );
  return err as ProviderError & StreamError;
}

function expectNoKey(err: unknown): void {
  const e = err as Error;
  for (const text of [e.message, String(e), JSON.stringify(e), e.stack ?? "", JSON.stringify(Object.entries(e))]) {
    expect(text).not.toContain(KEY);
  }
}

describe("claude: HTTP errors", () => {
  it("a wrong key gives a 401 authentication_error with the request id, and never the key", async () => {
    const { provider } = await setup([], {}, "sk-ant-api03-WRONGWRONG-9876543210");
    const err = await failure(createClient({ provider }).chat("Hi"));
    expect(isToolloopError(err, "provider_error")).toBe(true);
    expect(err.name).toBe("ProviderError");
    expect(err.status).toBe(401);
    expect(err.type).toBe("authentication_error");
    expect(err.requestId).toMatch(/^req_/);
    expect(err.retryable).toBe(false);
    expect(err.message).toContain("invalid x-api-key");
    expect(err.message).not.toContain("WRONGWRONG");
  });

  it("the key never appears in an error, even when a server echoes it back", async () => {
    const { mock, provider } = await setup([], { maxRetries: 0 });
    mock.enqueue({ status: 400, body: errorBody("invalid_request_error", `bad header x-api-key: ${KEY}`) });
    const err = await failure(provider.generate(ask()));
    expect(err.message).toContain("[redacted]");
    expectNoKey(err);
    mock.enqueue({ status: 502, body: `<html>upstream said ${KEY}</html>` });
    expectNoKey(await failure(provider.generate(ask())));
  });

  it("the provider object never exposes the key", async () => {
    const { provider } = await setup();
    expect(JSON.stringify(provider)).toBe(JSON.stringify({ name: "claude", model: MODEL }));
    expect(String(provider)).not.toContain(KEY);
    expect(Object.values(provider).some((v) => typeof v === "string" && v.includes(KEY))).toBe(false);
    expect(JSON.stringify(createClient({ provider }).history)).not.toContain(KEY);
  });

  it("reads type, message and request_id from an Anthropic error body; the request-id header wins", async () => {
    const { mock, provider } = await setup([], { maxRetries: 0 });
    mock.enqueue({ status: 400, body: errorBody("invalid_request_error", "messages: bad", "req_fromBody") });
    let err = await failure(provider.generate(ask()));
    expect([err.status, err.type, err.requestId]).toEqual([400, "invalid_request_error", "req_fromBody"]);
    mock.enqueue({ status: 404, headers: { "request-id": "req_fromHeader" }, body: errorBody("not_found_error", "model: x", "req_fromBody") });
    err = await failure(provider.generate(ask()));
    expect([err.status, err.type, err.requestId]).toEqual([404, "not_found_error", "req_fromHeader"]);
  });

  it("the mock's own validation errors come back typed (a bad tool schema)", async () => {
    const { mock, provider } = await setup([], { maxRetries: 0 });
    const err = await failure(provider.generate({ ...ask(), tools: [{ name: "bad", description: "", parameters: { type: "array" } }] }));
    expect(err.status).toBe(400);
    expect(err.type).toBe("invalid_request_error");
    expect(err.message).toContain("tools.0.custom.input_schema.type: Input should be 'object'");
    expect(mock.requests).toHaveLength(1);
  });
});

describe("claude: retries", () => {
  it("retries 429 and 529, honouring retry-after-ms and retry-after", async () => {
    const { mock, provider } = await setup([{ text: "finally" }], { maxRetries: 3 });
    mock.enqueue({
      status: 429,
      headers: { "retry-after-ms": "5" },
      body: errorBody("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"),
    });
    mock.enqueue({ status: 529, headers: { "retry-after": "0.01" }, body: errorBody("overloaded_error", "Overloaded") });
    const r = await provider.generate(ask());
    expect(r.text).toBe("finally");
    expect(mock.requests).toHaveLength(3);
    // the same request body every time
    expect(new Set(mock.requests.map((q) => JSON.stringify(q.body))).size).toBe(1);
  });

  it("does not wait out a retry-after longer than a minute: the 429 comes back at once", async () => {
    const { mock, provider } = await setup([{ text: "unused" }], { maxRetries: 3 });
    mock.enqueue({ status: 429, headers: { "retry-after": "120" }, body: errorBody("rate_limit_error", "Try again in two minutes") });
    const err = await failure(provider.generate(ask()));
    expect([err.status, err.type, err.retryable]).toEqual([429, "rate_limit_error", true]);
    expect(mock.requests).toHaveLength(1);
  });

  it("gives up after maxRetries with the last error, marked retryable", async () => {
    const { mock, provider } = await setup([], { maxRetries: 1 });
    for (let i = 0; i < 3; i++) mock.enqueue({ status: 529, headers: { "retry-after-ms": "1" }, body: errorBody("overloaded_error", "Overloaded") });
    const err = await failure(provider.generate(ask()));
    expect([err.status, err.type, err.retryable]).toEqual([529, "overloaded_error", true]);
    expect(mock.requests).toHaveLength(2);
  });

  it("the client's maxRetries overrides the provider's", async () => {
    const { mock, provider } = await setup([{ text: "ok" }], { maxRetries: 0 });
    mock.enqueue({ status: 429, headers: { "retry-after-ms": "1" }, body: errorBody("rate_limit_error", "slow down") });
    expect(await createClient({ provider, maxRetries: 1 }).chat("Hi")).toBe("ok");
    expect(mock.requests).toHaveLength(2);
  });

  it("does not retry when the server says x-should-retry: false", async () => {
    const { mock, provider } = await setup([{ text: "unused" }], { maxRetries: 3 });
    mock.enqueue({ status: 500, headers: { "x-should-retry": "false", "retry-after-ms": "1" }, body: errorBody("api_error", "Internal server error") });
    const err = await failure(provider.generate(ask()));
    expect([err.status, err.type, err.retryable]).toEqual([500, "api_error", false]);
    expect(mock.requests).toHaveLength(1);
  });

  it("retries a streaming request refused before the stream starts", async () => {
    const { mock, provider } = await setup([{ text: "streamed" }], { maxRetries: 2 });
    mock.enqueue({ status: 529, headers: { "retry-after-ms": "1" }, body: errorBody("overloaded_error", "Overloaded") });
    const r = await provider.generate(ask(true));
    expect(r.text).toBe("streamed");
    expect(mock.requests).toHaveLength(2);
  });
});

describe("claude: stream failures", () => {
  const start = messageEvents({
    id: "msg_01broken",
    type: "message",
    role: "assistant",
    model: MODEL,
    content: [{ type: "text", text: "Partial answer" }],
    stop_reason: "end_turn",
    usage: { input_tokens: 3, output_tokens: 4 },
  }).slice(0, 4);

  it("an error event mid-stream is a ProviderError with the API's type and the request id", async () => {
    const { mock, provider } = await setup([], { maxRetries: 2 });
    mock.enqueue({
      sse: [...start, 'event: error\ndata: {"type": "error", "error": {"details": null, "type": "overloaded_error", "message": "Overloaded"}}\n\n'],
      headers: { "request-id": "req_01midstream" },
    });
    const err = await failure(provider.generate(ask(true)));
    expect(isToolloopError(err, "provider_error")).toBe(true);
    expect(err.type).toBe("overloaded_error");
    expect(err.message).toContain("Overloaded");
    expect(err.requestId).toBe("req_01midstream");
    expect(mock.requests).toHaveLength(1); // nothing is sent twice once a stream has started
  });

  it("a stream that ends before message_stop is a StreamError, never a half message", async () => {
    const { mock, provider } = await setup([], { maxRetries: 0 });
    mock.enqueue({ sse: start, headers: { "request-id": "req_01short" } });
    const err = await failure(provider.generate(ask(true)));
    expect(isToolloopError(err, "stream_error")).toBe(true);
    expect(err.message).toContain("before message_stop");
    expect(err.requestId).toBe("req_01short");
  });

  it("a connection cut mid-stream is a StreamError", async () => {
    const { mock, provider } = await setup([], { maxRetries: 0 });
    mock.enqueue({ sse: start, cutAfter: true });
    const err = await failure(provider.generate(ask(true)));
    expect(isToolloopError(err, "stream_error")).toBe(true);
  });

  it("a stream that goes quiet fails with IdleTimeoutError (idleTimeout)", async () => {
    const { mock, provider } = await setup([], { maxRetries: 0, idleTimeout: 50 });
    mock.enqueue({ sse: start, hold: true });
    const err = await failure(provider.generate(ask(true)));
    expect(isToolloopError(err, "idle_timeout")).toBe(true);
  });

  it("after a failed stream the history is unchanged and the next chat works", async () => {
    const { mock, provider } = await setup([{ text: "Back again." }], { maxRetries: 0 });
    mock.enqueue({ sse: [...start, 'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"Internal server error"}}\n\n'] });
    const client = createClient({ provider });
    const stream = client.stream("Hi");
    await expect(
      (async () => {
        for await (const _ of stream) void _;
      })(),
    ).rejects.toMatchObject({ type: "api_error" });
    expect(client.history).toEqual([{ role: "user", content: "Hi" }]);
    expect(await client.chat("Hello?")).toBe("Back again.");
    expect(mock.requests[1]!.body.messages).toHaveLength(1);
  });
});

describe("claude: browser", () => {
  function asBrowser<T>(fn: () => Promise<T>): Promise<T> {
    const g = globalThis as { window?: unknown; document?: unknown };
    g.window = {};
    g.document = {};
    return fn().finally(() => {
      delete g.window;
      delete g.document;
    });
  }

  it("in a browser, sends anthropic-dangerous-direct-browser-access to a proxy baseURL", async () => {
    const { mock, provider } = await setup();
    await asBrowser(() => provider.generate(ask()));
    expect(mock.requests[0]!.headers["anthropic-dangerous-direct-browser-access"]).toBe("true");
  });

  it("in a browser, refuses to send a key to api.anthropic.com unless dangerouslyAllowBrowser", async () => {
    const seen: string[] = [];
    const fakeFetch: typeof fetch = async (input) => {
      seen.push(String(input));
      return new Response(JSON.stringify({ type: "message", content: [{ type: "text", text: "hi" }], stop_reason: "end_turn", usage: {} }), {
        headers: { "content-type": "application/json" },
      });
    };
    const blocked = claude({ apiKey: KEY, model: MODEL, fetch: fakeFetch });
    const err = await asBrowser(() => failure(blocked.generate(ask())));
    expect(isToolloopError(err, "browser_key")).toBe(true);
    expect(seen).toEqual([]);
    const allowed = claude({ apiKey: KEY, model: MODEL, fetch: fakeFetch, dangerouslyAllowBrowser: true });
    expect((await asBrowser(() => allowed.generate(ask()))).text).toBe("hi");
    expect(seen).toEqual(["https://api.anthropic.com/v1/messages"]);
  });
});

describe("claude: options", () => {
  it("rejects a missing model and a thinking budget that does not fit maxTokens", () => {
    expect(() => claude({ apiKey: KEY } as never)).toThrow(expect.objectContaining({ code: "invalid_options" }));
    expect(() => claude({ apiKey: KEY, model: MODEL, thinking: { budgetTokens: 4096 } })).toThrow(/budgetTokens/);
    expect(() => claude({ apiKey: KEY, model: MODEL, maxTokens: 0 })).toThrow(InvalidOptionsError);
  });

  it("sends the sampling options, extra headers and a custom anthropic-version", async () => {
    const { mock, provider } = await setup([{ text: "ok" }], {
      temperature: 0.2,
      topP: 0.9,
      topK: 40,
      stopSequences: ["END"],
      maxTokens: 1000,
      anthropicVersion: "2023-06-01",
      headers: { "anthropic-beta": "context-1m-2025-08-07", "x-trace": "t1" },
    });
    await provider.generate(ask());
    const { body, headers } = mock.requests[0]!;
    expect(body).toMatchObject({ temperature: 0.2, top_p: 0.9, top_k: 40, stop_sequences: ["END"], max_tokens: 1000 });
    expect(headers["anthropic-beta"]).toBe("context-1m-2025-08-07");
    expect(headers["x-trace"]).toBe("t1");
  });

  it("a baseURL with a trailing slash and no key (a proxy adding it) still works", async () => {
    const mock = await startClaudeMock({ script: [{ text: "via proxy" }] });
    mocks.push(mock);
    const provider = claude({ model: MODEL, baseURL: `${mock.url}/` });
    expect((await provider.generate(ask())).text).toBe("via proxy");
    expect(mock.requests[0]!.path).toBe("/v1/messages");
    expect(mock.requests[0]!.headers["x-api-key"]).toBeUndefined();
  });
});
