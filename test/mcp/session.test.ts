// mcpTools' client transport against scripted HTTP answers (a fake fetch): the cases a
// real server rarely produces on demand.
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { silentLogger } from "../../src/index.js";
import type { StandardJSONSchemaLike } from "../../src/schema/schema.js";

type Answer = (body: any, init: RequestInit) => Response | Promise<Response>;

/** A fetch that answers each JSON-RPC method with a scripted Response and records everything. */
function fakeServer(answers: Record<string, Answer>) {
  const log: { method: string; body: any; headers: Record<string, string> }[] = [];
  const fetchFn = (async (_url: string | URL | Request, init?: RequestInit) => {
    const body = init?.body ? JSON.parse(String(init.body)) : undefined;
    const key = init?.method === "GET" ? "GET" : (body?.method ?? (body && ("result" in body || "error" in body) ? "response" : "?"));
    log.push({ method: key, body, headers: init?.headers as Record<string, string> });
    const answer = answers[key];
    if (!answer) return new Response(null, { status: 202 });
    return answer(body, init!);
  }) as typeof fetch;
  return { fetch: fetchFn, log };
}

const json = (value: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(value), { headers: { "content-type": "application/json", ...headers } });
const sse = (text: string) => new Response(text, { headers: { "content-type": "text/event-stream" } });
const initOK =
  (version = "2025-06-18"): Answer =>
  (b) =>
    json({ jsonrpc: "2.0", id: b.id, result: { protocolVersion: version, capabilities: { tools: {} }, serverInfo: { name: "fake", version: "1" } } });
const listOK: Answer = (b) => json({ jsonrpc: "2.0", id: b.id, result: { tools: [{ name: "t", description: "d", inputSchema: { type: "object" } }] } });
const ctx = { signal: new AbortController().signal, callId: "c", logger: silentLogger };

describe("mcpTools transport", () => {
  it("speaks the revision the server chose, in every later request's header", async () => {
    const s = fakeServer({ initialize: initOK("2025-03-26"), "tools/list": listOK });
    await mcpTools({ url: "http://fake/mcp", fetch: s.fetch });
    // log[0] is the 2026-07-28 probe (server/discover), which this fake server does not know.
    expect(s.log[0]!.method).toBe("server/discover");
    expect(s.log[1]!.body.params).toMatchObject({
      protocolVersion: "2025-11-25",
      capabilities: { elicitation: { form: {} } },
      clientInfo: { name: "toolloop" },
    });
    expect(s.log[1]!.headers["mcp-protocol-version"]).toBeUndefined();
    expect(s.log.slice(2).map((r) => r.headers["mcp-protocol-version"])).toEqual(["2025-03-26", "2025-03-26"]);
  });

  it("refuses a server that answers with a revision it does not speak", async () => {
    const s = fakeServer({ initialize: initOK("2023-01-01") });
    await expect(mcpTools({ url: "http://fake/mcp", fetch: s.fetch })).rejects.toMatchObject({ code: "provider_error", type: "unsupported_protocol_version" });
  });

  it("answers a server's ping that arrives on the stream before the response", async () => {
    const s = fakeServer({
      initialize: initOK(),
      "tools/list": listOK,
      "tools/call": (b) =>
        sse(
          `event: message\ndata: {"jsonrpc":"2.0","id":"srv-1","method":"ping"}\n\n` +
            `event: message\ndata: {"jsonrpc":"2.0","id":"srv-2","method":"sampling/createMessage","params":{}}\n\n` +
            `event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}\n\n` +
            `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: b.id, result: { content: [{ type: "text", text: "done" }] } })}\n\n`,
        ),
    });
    const [t] = await mcpTools({ url: "http://fake/mcp", fetch: s.fetch });
    expect(await t!.call("{}", ctx)).toBe("done");
    await expect.poll(() => s.log.filter((r) => r.method === "response").length).toBe(2);
    const answers = s.log.filter((r) => r.method === "response").map((r) => r.body);
    expect(answers).toContainEqual({ jsonrpc: "2.0", id: "srv-1", result: {} });
    expect(answers).toContainEqual({ jsonrpc: "2.0", id: "srv-2", error: { code: -32601, message: "Method not found: sampling/createMessage" } });
  });

  it("a stream that ends without the response (and cannot be resumed) is a StreamError", async () => {
    const s = fakeServer({
      initialize: initOK(),
      "tools/list": listOK,
      "tools/call": () => sse(`event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress"}\n\n`),
    });
    const [t] = await mcpTools({ url: "http://fake/mcp", fetch: s.fetch });
    await expect(t!.call("{}", ctx)).rejects.toMatchObject({ code: "stream_error", message: expect.stringContaining("ended before the response") });
  });

  it("a connection cut mid-stream (no event id to resume from) is a StreamError naming the cause", async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress"}\n\n`));
        controller.error(new TypeError("socket hang up"));
      },
    });
    const s = fakeServer({
      initialize: initOK(),
      "tools/list": listOK,
      "tools/call": () => new Response(body, { headers: { "content-type": "text/event-stream" } }),
    });
    const [t] = await mcpTools({ url: "http://fake/mcp", fetch: s.fetch });
    await expect(t!.call("{}", ctx)).rejects.toMatchObject({ code: "stream_error", message: expect.stringContaining("broke (socket hang up)") });
  });

  it("an event that is not JSON is a StreamError", async () => {
    const s = fakeServer({ initialize: initOK(), "tools/list": listOK, "tools/call": () => sse("event: message\ndata: {nope\n\n") });
    const [t] = await mcpTools({ url: "http://fake/mcp", fetch: s.fetch });
    await expect(t!.call("{}", ctx)).rejects.toMatchObject({ code: "stream_error" });
  });

  it("a body of another media type is a ProviderError (invalid_response)", async () => {
    const s = fakeServer({ initialize: () => new Response("<html>login</html>", { headers: { "content-type": "text/html" } }) });
    await expect(mcpTools({ url: "http://fake/mcp", fetch: s.fetch })).rejects.toMatchObject({ code: "provider_error", type: "invalid_response" });
  });

  it("a JSON answer to another request id is a ProviderError, a batch answer is searched for ours", async () => {
    const wrongId = fakeServer({ initialize: (b) => json({ jsonrpc: "2.0", id: b.id + 100, result: {} }) });
    await expect(mcpTools({ url: "http://fake/mcp", fetch: wrongId.fetch })).rejects.toMatchObject({ type: "invalid_response" });
    const batch = fakeServer({
      initialize: (b) =>
        json([
          { jsonrpc: "2.0", id: 999, result: {} },
          { jsonrpc: "2.0", id: b.id, result: { protocolVersion: "2025-03-26" } },
        ]),
      "tools/list": listOK,
    });
    expect((await mcpTools({ url: "http://fake/mcp", fetch: batch.fetch })).map((t) => t.name)).toEqual(["t"]);
  });

  it("skips malformed entries in tools/list and keeps each schema as served ($schema, no added type)", async () => {
    const s = fakeServer({
      initialize: initOK(),
      "tools/list": (b) =>
        json({
          jsonrpc: "2.0",
          id: b.id,
          result: {
            tools: [
              { name: 5 },
              "junk",
              { name: "no_schema" },
              {
                name: "draft7",
                title: "Only a title",
                inputSchema: { $schema: "http://json-schema.org/draft-07/schema#", properties: { a: { type: "string" } } },
              },
            ],
          },
        }),
    });
    const tools = await mcpTools({ url: "http://fake/mcp", fetch: s.fetch });
    expect(tools.map((t) => [t.name, t.description, t.parameters])).toEqual([
      ["no_schema", "no_schema", { type: "object" }], // no description or title: its name (every tool sent has one)
      ["draft7", "Only a title", { $schema: "http://json-schema.org/draft-07/schema#", properties: { a: { type: "string" } } }],
    ]);
  });

  it("a remote schema our validator cannot resolve is left to the server; the call still goes out", async () => {
    const s = fakeServer({
      initialize: initOK(),
      "tools/list": (b) =>
        json({ jsonrpc: "2.0", id: b.id, result: { tools: [{ name: "r", inputSchema: { type: "object", properties: { a: { $ref: "#/x" } } } }] } }),
      "tools/call": (b) => json({ jsonrpc: "2.0", id: b.id, result: { content: [{ type: "text", text: `got ${JSON.stringify(b.params.arguments)}` }] } }),
    });
    const [t] = await mcpTools({ url: "http://fake/mcp", fetch: s.fetch });
    expect(await t!.call('{"a":1}', ctx)).toBe('got {"a":1}');
    await expect(t!.call("[1]", ctx)).rejects.toMatchObject({ code: "failed_unmarshal_input" });
  });

  it("the signal given to mcpTools aborts connecting", async () => {
    const controller = new AbortController();
    const s = fakeServer({
      initialize: (_b, init) =>
        new Promise((_r, reject) => {
          init.signal!.addEventListener("abort", () => reject(init.signal!.reason));
          controller.abort(new Error("gave up"));
        }),
    });
    await expect(mcpTools({ url: "http://fake/mcp", fetch: s.fetch, signal: controller.signal })).rejects.toThrow("gave up");
  });

  it("does not put the session id or headers on the Tool objects (nothing secret in JSON)", async () => {
    const s = fakeServer({
      initialize: (b) => json({ jsonrpc: "2.0", id: b.id, result: { protocolVersion: "2025-06-18" } }, { "mcp-session-id": "sess-xyz" }),
      "tools/list": listOK,
    });
    const tools = await mcpTools({ url: "http://fake/mcp", fetch: s.fetch, headers: { authorization: "Bearer very-secret" } });
    expect(s.log[2]!.headers["mcp-session-id"]).toBe("sess-xyz");
    expect(JSON.stringify(tools)).not.toMatch(/sess-xyz|very-secret/);
  });

  it("leaves out tools that can only run as tasks (execution.taskSupport required)", async () => {
    const s = fakeServer({
      initialize: initOK("2025-11-25"),
      "tools/list": (b) =>
        json({
          jsonrpc: "2.0",
          id: b.id,
          result: {
            tools: [
              { name: "now", inputSchema: { type: "object" } },
              { name: "optional_task", inputSchema: { type: "object" }, execution: { taskSupport: "optional" } },
              { name: "task_only", inputSchema: { type: "object" }, execution: { taskSupport: "required" } },
            ],
          },
        }),
    });
    expect((await mcpTools({ url: "http://fake/mcp", fetch: s.fetch })).map((t) => t.name)).toEqual(["now", "optional_task"]);
  });

  it("close() ends a 2025-era session with DELETE and its Mcp-Session-Id; a 405 answer is fine", async () => {
    const s = fakeServer({
      initialize: (b) => json({ jsonrpc: "2.0", id: b.id, result: { protocolVersion: "2025-11-25" } }, { "mcp-session-id": "sess-1" }),
      "tools/list": listOK,
    });
    const fetchFn = (async (u: string | URL | Request, init?: RequestInit) => {
      if (init?.method === "DELETE") {
        s.log.push({ method: "DELETE", body: undefined, headers: init.headers as Record<string, string> });
        return new Response(null, { status: 405 });
      }
      return s.fetch(u, init);
    }) as typeof fetch;
    const tools = await mcpTools({ url: "http://fake/mcp", fetch: fetchFn });
    await tools.close();
    const del = s.log.find((r) => r.method === "DELETE");
    expect(del?.headers).toMatchObject({ "mcp-session-id": "sess-1", "mcp-protocol-version": "2025-11-25" });
    await tools.close(); // once is enough
    expect(s.log.filter((r) => r.method === "DELETE")).toHaveLength(1);
  });

  it("a server question leaves fields out: their schema defaults fill them (SEP-1034)", async () => {
    const s = fakeServer({
      initialize: initOK("2025-11-25"),
      "tools/list": listOK,
      "tools/call": (b) =>
        sse(
          `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: "q1", method: "elicitation/create", params: { message: "Who?", requestedSchema: { type: "object", properties: { name: { type: "string", default: "Ann" }, age: { type: "integer", default: 30 }, note: { type: "string" } }, required: ["name", "note"] } } })}\n\n` +
            `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: b.id, result: { content: [{ type: "text", text: "ok" }] } })}\n\n`,
        ),
    });
    const [t] = await mcpTools({ url: "http://fake/mcp", fetch: s.fetch });
    let form: StandardJSONSchemaLike | undefined;
    const requestInput = async (q: { schema?: unknown }) => ((form = q.schema as StandardJSONSchemaLike), { age: 41, note: "n" });
    expect(await t!.call("{}", { ...ctx, requestInput } as never)).toBe("ok");
    await expect
      .poll(() => s.log.find((r) => r.method === "response")?.body)
      .toEqual({ jsonrpc: "2.0", id: "q1", result: { action: "accept", content: { age: 41, note: "n", name: "Ann" } } });
    // The form an answer is checked against: a required field with a default may be left out, one without may not.
    expect(await form!["~standard"].validate({ note: "n" })).toEqual({ value: { note: "n" } });
    expect(await form!["~standard"].validate({ name: "Bo" })).toMatchObject({ issues: [expect.anything()] });
  });
});
