// mcpHandler at the HTTP + JSON-RPC level: raw Requests straight into the handler, every
// status code and error code the transport and base protocol specs name, per revision.
import { afterEach, describe, expect, it, vi } from "vitest";
import { mcpHandler, PROTOCOL_VERSIONS } from "../../adapters/mcp/index.js";

/** The initialize-era revisions (2026-07-28 has no handshake; test/mcp/modern.test.ts covers it). */
const LEGACY = PROTOCOL_VERSIONS.filter((v) => v !== "2026-07-28");

import { jsonTool, type Tool } from "../../src/index.js";
import { allTools, getWeather, rawCalls, rawEcho, slowSignals } from "./fixtures/tools.js";
import { rpcRequest } from "./helpers.js";

const handler = mcpHandler({ name: "test-server", version: "1.2.3", tools: allTools, instructions: "Use get_weather for weather." });

const init = (protocolVersion: unknown, id: number | string = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw", version: "0" } },
});
const call = (name: string, args: unknown, id: number | string = 7) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });

async function post(body: unknown, headers: Record<string, string> = {}, h = handler) {
  const res = await h(rpcRequest(body, headers));
  const text = await res.text();
  return { res, status: res.status, text, json: text ? JSON.parse(text) : undefined };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("initialize and version negotiation", () => {
  it.each(LEGACY)("echoes the client's revision %s", async (version) => {
    const { status, json, res } = await post(init(version));
    expect(status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("mcp-session-id")).toBeNull(); // stateless
    expect(json).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: {
        protocolVersion: version,
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: "test-server", version: "1.2.3" },
        instructions: "Use get_weather for weather.",
      },
    });
  });

  it("serves 2026-07-28 (stateless) and 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05 (initialize)", () => {
    expect([...PROTOCOL_VERSIONS]).toEqual(["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]);
  });

  it("answers an unknown revision with its latest", async () => {
    const { json } = await post(init("2099-01-01"));
    expect(json.result.protocolVersion).toBe("2025-11-25");
  });

  it("needs params.protocolVersion (-32602)", async () => {
    const { status, json } = await post({ jsonrpc: "2.0", id: 3, method: "initialize", params: {} });
    expect(status).toBe(200);
    expect(json.error.code).toBe(-32602);
    expect(json.id).toBe(3);
  });

  it("ignores a bogus MCP-Protocol-Version header on initialize itself (it negotiates)", async () => {
    const { status, json } = await post(init("2025-06-18"), { "mcp-protocol-version": "1999-01-01" });
    expect(status).toBe(200);
    expect(json.result.protocolVersion).toBe("2025-06-18");
  });

  it("omits instructions when none were given", async () => {
    const h = mcpHandler({ name: "n", version: "1", tools: [] });
    const { json } = await post(init("2025-06-18"), {}, h);
    expect(json.result).not.toHaveProperty("instructions");
  });
});

describe("notifications, responses and ping", () => {
  it("notifications/initialized is 202 Accepted with no body", async () => {
    const { status, text } = await post({ jsonrpc: "2.0", method: "notifications/initialized" });
    expect(status).toBe(202);
    expect(text).toBe("");
  });

  it("any notification (even an unknown one) is 202", async () => {
    expect((await post({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } })).status).toBe(202);
    expect((await post({ jsonrpc: "2.0", method: "notifications/whatever" })).status).toBe(202);
  });

  it("a JSON-RPC response from the client is 202", async () => {
    expect((await post({ jsonrpc: "2.0", id: 5, result: {} })).status).toBe(202);
    expect((await post({ jsonrpc: "2.0", id: 6, error: { code: -32601, message: "no" } })).status).toBe(202);
  });

  it("ping answers an empty result", async () => {
    expect((await post({ jsonrpc: "2.0", id: "p", method: "ping" })).json).toEqual({ jsonrpc: "2.0", id: "p", result: {} });
  });
});

describe("tools/list", () => {
  it("lists every tool with its name, description and inputSchema; title and annotations when given", async () => {
    const { json } = await post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, { "mcp-protocol-version": "2025-06-18" });
    const tools = json.result.tools as { name: string; inputSchema: unknown; title?: string; annotations?: unknown }[];
    expect(tools.map((t) => t.name)).toEqual(allTools.map((t) => t.name)); // exact spelling: MCP names are case-sensitive
    expect(tools[0]).toEqual({ name: "get_weather", description: getWeather.description, inputSchema: getWeather.parameters });
    expect(tools.find((t) => t.name === "raw_echo")!.inputSchema).toEqual(rawEcho.parameters);
    expect(tools.find((t) => t.name === "Shout")).toMatchObject({ title: "Shout it", annotations: { readOnlyHint: true, idempotentHint: true } });
    expect(json.result).not.toHaveProperty("nextCursor");
  });

  it("does not publish the web_search marker tool", async () => {
    const { webSearch } = await import("../../src/index.js");
    const h = mcpHandler({ name: "n", version: "1", tools: [webSearch(), getWeather] });
    const { json } = await post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, {}, h);
    expect(json.result.tools.map((t: { name: string }) => t.name)).toEqual(["get_weather"]);
  });

  it("rejects a cursor it never issued (-32602)", async () => {
    const { json } = await post({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { cursor: "nope" } });
    expect(json.error.code).toBe(-32602);
  });
});

describe("tools/call", () => {
  const v = { "mcp-protocol-version": "2025-11-25" };

  it("runs a tool and returns its output as one text block", async () => {
    const { json } = await post(call("get_weather", { city: "Paris" }), v);
    expect(json).toEqual({
      jsonrpc: "2.0",
      id: 7,
      result: { content: [{ type: "text", text: '{"city":"Paris","temperature":21,"unit":"celsius"}' }], isError: false },
    });
  });

  it("passes a string result verbatim", async () => {
    const { json } = await post(call("add", { a: 2, b: 40 }), v);
    expect(json.result.content).toEqual([{ type: "text", text: "42" }]);
  });

  it("finds a tool by its lower-cased name (the registry's)", async () => {
    expect((await post(call("shout", { text: "hi" }), v)).json.result.content[0].text).toBe("HI");
    expect((await post(call("SHOUT", { text: "hi" }), v)).json.result.content[0].text).toBe("HI");
  });

  it("treats missing arguments as {}", async () => {
    const { json } = await post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "explode" } }, v);
    expect(json.result.isError).toBe(true);
    expect(json.result.content[0].text).toBe("kaboom: the tool failed");
  });

  it("a thrown Error is an isError result carrying its message, and the server keeps serving", async () => {
    const { status, json } = await post(call("explode", {}), v);
    expect(status).toBe(200);
    expect(json.result).toEqual({ content: [{ type: "text", text: "kaboom: the tool failed" }], isError: true });
    expect((await post(call("add", { a: 1, b: 1 }), v)).json.result.content[0].text).toBe("2");
  });

  it("a thrown non-Error is reported as a panic", async () => {
    const { json } = await post(call("panic", {}), v);
    expect(json.result.isError).toBe(true);
    expect(json.result.content[0].text).toBe('tool handler panicked: {"weird":true}');
  });

  it("a tool's timeout ends the call with an isError result", async () => {
    const { json } = await post(call("sleepy", {}), v);
    expect(json.result.isError).toBe(true);
    expect(json.result.content[0].text).toMatch(/timed out after 20 ms/);
  });

  it("an unknown tool is a protocol error (-32602) in every initialize-era revision", async () => {
    for (const version of LEGACY) {
      const { status, json } = await post(call("nope", {}), { "mcp-protocol-version": version });
      expect(status).toBe(200);
      expect(json.error).toMatchObject({ code: -32602, message: "Unknown tool: nope" });
      expect(json.id).toBe(7);
    }
  });

  it("a request that does not fit CallToolRequest is -32602", async () => {
    expect((await post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: {} }, v)).json.error.code).toBe(-32602);
    expect((await post({ jsonrpc: "2.0", id: 1, method: "tools/call" }, v)).json.error.code).toBe(-32602);
    expect((await post(call("add", [1, 2]), v)).json.error.code).toBe(-32602);
    expect((await post(call("add", "a=1"), v)).json.error.code).toBe(-32602);
  });

  describe("schema-invalid arguments never reach the tool", () => {
    it("2025-11-25: an isError result the model can act on (SEP-1303)", async () => {
      rawCalls.length = 0;
      const { json } = await post(call("raw_echo", { text: "" }), v);
      expect(json.result.isError).toBe(true);
      expect(json.result.content[0].text).toMatch(/^Invalid arguments for tool raw_echo:\n- \/text: .+\nCall the tool again/);
      expect((await post(call("raw_echo", {}), v)).json.result.isError).toBe(true);
      expect((await post(call("add", { a: 1, b: 2, c: 3 }), v)).json.result.isError).toBe(true);
      expect(rawCalls).toEqual([]);
      // and a valid call does arrive
      expect((await post(call("raw_echo", { text: "hi" }), v)).json.result.content[0].text).toBe("echo: hi");
      expect(rawCalls).toEqual(['{"text":"hi"}']);
    });

    it.each(["2025-06-18", "2025-03-26", "2024-11-05"])("%s: a -32602 protocol error with the issues", async (version) => {
      rawCalls.length = 0;
      const { json } = await post(call("raw_echo", { text: 5 }), { "mcp-protocol-version": version });
      expect(json.error.code).toBe(-32602);
      expect(json.error.message).toMatch(/^Invalid arguments for tool raw_echo: \/text: /);
      expect(json.error.data.issues).toEqual([{ path: "/text", message: expect.any(String) }]);
      expect(rawCalls).toEqual([]);
    });

    it("without a version header the server assumes 2025-03-26 (-32602)", async () => {
      expect((await post(call("get_weather", { city: 1 }))).json.error.code).toBe(-32602);
    });

    it("a typed tool's own checks beyond JSON Schema count as invalid arguments too", async () => {
      const r = await post(call("even_only", { n: 3 }), v);
      expect(r.json.result.isError).toBe(true);
      expect(r.json.result.content[0].text).toContain("/n: n must be even");
      const old = await post(call("even_only", { n: 3 }), { "mcp-protocol-version": "2025-06-18" });
      expect(old.json.error).toMatchObject({ code: -32602, data: { issues: [{ path: "/n", message: "n must be even" }] } });
      expect((await post(call("even_only", { n: 4 }), v)).json.result.content[0].text).toBe("4 is even");
    });
  });

  it("the tool's ctx carries the request id and a signal the request's abort reaches", async () => {
    slowSignals.length = 0;
    const controller = new AbortController();
    const req = new Request("http://127.0.0.1/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(call("slow", {}, "abc")),
      signal: controller.signal,
    });
    const pending = handler(req);
    await vi.waitFor(() => expect(slowSignals.length).toBe(1));
    expect(slowSignals[0]!.aborted).toBe(false);
    controller.abort();
    const res = await pending;
    expect(slowSignals[0]!.aborted).toBe(true);
    expect((await res.json()).result.isError).toBe(true);
  });

  it("a tool whose own schema cannot be used (unresolvable $ref) is -32603, and the server keeps serving", async () => {
    const broken: Tool = { ...rawEcho, name: "broken", parameters: { type: "object", properties: { a: { $ref: "#/nowhere" } } } };
    const h = mcpHandler({ name: "n", version: "1", tools: [broken, getWeather] });
    const { status, json } = await post(call("broken", { a: 1 }), v, h);
    expect(status).toBe(200);
    expect(json.error).toMatchObject({ code: -32603, message: expect.stringContaining("broken") });
    expect((await post(call("get_weather", { city: "Rome" }), v, h)).json.result.isError).toBe(false);
  });

  it("passes the JSON-RPC id as ctx.callId", async () => {
    const seen: string[] = [];
    const t = jsonTool({ name: "who", description: "A test tool.", parameters: { type: "object" }, run: (_i, ctx) => void seen.push(ctx.callId) });
    await post(call("who", {}, "req-42"), {}, mcpHandler({ name: "n", version: "1", tools: [t] }));
    expect(seen).toEqual(["req-42"]);
  });
});

describe("JSON-RPC errors", () => {
  it("malformed JSON: 400 with -32700 and a null id", async () => {
    const { status, json } = await post('{"jsonrpc":"2.0","id":1,"method":');
    expect(status).toBe(400);
    expect(json).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
  });

  it.each([
    ["an object without jsonrpc", { id: 1, method: "ping" }],
    ["jsonrpc 1.0", { jsonrpc: "1.0", id: 1, method: "ping" }],
    ["a number", 42],
    ["a JSON string", JSON.stringify("ping")],
    ["null", null],
    ["a null request id", { jsonrpc: "2.0", id: null, method: "ping" }],
    ["a non-string method", { jsonrpc: "2.0", id: 1, method: 5 }],
    ["neither method, result nor error", { jsonrpc: "2.0", id: 1 }],
    ["both result and error", { jsonrpc: "2.0", id: 1, result: {}, error: { code: 1, message: "x" } }],
  ])("not JSON-RPC (%s): 400 with -32600", async (_name, body) => {
    const { status, json } = await post(body);
    expect(status).toBe(400);
    expect(json.error.code).toBe(-32600);
  });

  it("unknown method: -32601 naming it, with the request's id", async () => {
    const { status, json } = await post({ jsonrpc: "2.0", id: 9, method: "resources/list" });
    expect(status).toBe(200);
    expect(json).toEqual({ jsonrpc: "2.0", id: 9, error: { code: -32601, message: "Method not found: resources/list" } });
  });
});

describe("HTTP transport rules", () => {
  it("an unsupported MCP-Protocol-Version header is 400", async () => {
    const { status, json } = await post({ jsonrpc: "2.0", id: 1, method: "tools/list" }, { "mcp-protocol-version": "2030-01-01" });
    expect(status).toBe(400);
    expect(json.error.message).toMatch(/unsupported MCP-Protocol-Version 2030-01-01/);
    expect((await post({ jsonrpc: "2.0", method: "notifications/initialized" }, { "mcp-protocol-version": "garbage" })).status).toBe(400);
  });

  it.each(LEGACY)("a supported MCP-Protocol-Version header (%s) is served", async (version) => {
    expect((await post({ jsonrpc: "2.0", id: 1, method: "ping" }, { "mcp-protocol-version": version })).status).toBe(200);
  });

  it("GET is 405 (no server-initiated stream), DELETE is 405 (no sessions)", async () => {
    for (const method of ["GET", "DELETE", "PUT"]) {
      const res = await handler(new Request("http://127.0.0.1/mcp", { method, headers: { accept: "text/event-stream" } }));
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
    }
  });

  it("a body that is not application/json is 415", async () => {
    const res = await handler(new Request("http://127.0.0.1/mcp", { method: "POST", headers: { "content-type": "text/plain" }, body: "{}" }));
    expect(res.status).toBe(415);
    const ok = await handler(rpcRequest({ jsonrpc: "2.0", id: 1, method: "ping" }, { "content-type": "application/json; charset=utf-8" }));
    expect(ok.status).toBe(200);
  });

  it("an Accept header without JSON or SSE is 406", async () => {
    expect((await post({ jsonrpc: "2.0", id: 1, method: "ping" }, { accept: "text/html" })).status).toBe(406);
  });

  it("answers with an SSE stream when the client accepts only text/event-stream", async () => {
    const res = await handler(rpcRequest(call("add", { a: 1, b: 2 }), { accept: "text/event-stream" }));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const text = await res.text();
    expect(text).toBe(
      `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: 7, result: { content: [{ type: "text", text: "3" }], isError: false } })}\n\n`,
    );
  });

  it("prefers JSON when the client accepts both", async () => {
    const res = await handler(rpcRequest({ jsonrpc: "2.0", id: 1, method: "ping" }));
    expect(res.headers.get("content-type")).toBe("application/json");
  });
});

describe("batches (allowed up to 2025-03-26, removed in 2025-06-18)", () => {
  const batch = [
    { jsonrpc: "2.0", id: 1, method: "ping" },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    call("add", { a: 2, b: 3 }, 2),
    { jsonrpc: "2.0", id: 3, method: "nope" },
    { not: "json-rpc" },
  ];

  it.each([undefined, "2025-03-26", "2024-11-05"])("header %s: one response per request, in order", async (version) => {
    const { status, json } = await post(batch, version ? { "mcp-protocol-version": version } : {});
    expect(status).toBe(200);
    expect(json).toEqual([
      { jsonrpc: "2.0", id: 1, result: {} },
      { jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "5" }], isError: false } },
      { jsonrpc: "2.0", id: 3, error: { code: -32601, message: "Method not found: nope" } },
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) } },
    ]);
  });

  it("a batch of notifications and responses only is 202", async () => {
    const { status, text } = await post([
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 1, result: {} },
    ]);
    expect(status).toBe(202);
    expect(text).toBe("");
  });

  it("initialize must not be part of a batch", async () => {
    const { json } = await post([init("2025-03-26", 1), { jsonrpc: "2.0", id: 2, method: "ping" }]);
    expect(json[0]).toMatchObject({ id: 1, error: { code: -32600 } });
    expect(json[1]).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
  });

  it("an empty batch is 400 -32600", async () => {
    const { status, json } = await post([]);
    expect(status).toBe(400);
    expect(json.error.code).toBe(-32600);
  });

  it.each(["2025-06-18", "2025-11-25"])("revision %s: a batch is 400 -32600", async (version) => {
    const { status, json } = await post(batch, { "mcp-protocol-version": version });
    expect(status).toBe(400);
    expect(json.error.code).toBe(-32600);
    expect(json.error.message).toContain("batches");
  });

  it("a batch over SSE: one event per response", async () => {
    const res = await handler(
      rpcRequest(
        [
          { jsonrpc: "2.0", id: 1, method: "ping" },
          { jsonrpc: "2.0", id: 2, method: "ping" },
        ],
        { accept: "text/event-stream" },
      ),
    );
    const events = (await res.text()).split("\n\n").filter(Boolean);
    expect(events.map((e) => JSON.parse(e.split("data: ")[1]!).id)).toEqual([1, 2]);
  });
});

describe("Origin (DNS-rebinding protection)", () => {
  it("without allowedOrigins, any request carrying an Origin is 403; one without is served", async () => {
    const { status, json } = await post({ jsonrpc: "2.0", id: 1, method: "ping" }, { origin: "http://evil.example" });
    expect(status).toBe(403);
    expect(json).toMatchObject({ id: null, error: { code: -32600 } });
    // not even the request's own origin: under DNS rebinding the Host is the attacker's
    expect((await post({ jsonrpc: "2.0", id: 1, method: "ping" }, { origin: "http://127.0.0.1" })).status).toBe(403);
    expect((await post({ jsonrpc: "2.0", id: 1, method: "ping" })).status).toBe(200);
  });

  const guarded = mcpHandler({ name: "n", version: "1", tools: [getWeather], allowedOrigins: ["https://app.example"] });

  it("with allowedOrigins, a listed Origin is served with CORS headers, another is 403", async () => {
    const ok = await post({ jsonrpc: "2.0", id: 1, method: "ping" }, { origin: "https://app.example" }, guarded);
    expect(ok.status).toBe(200);
    expect(ok.res.headers.get("access-control-allow-origin")).toBe("https://app.example");
    expect(ok.res.headers.get("access-control-expose-headers")).toContain("Mcp-Session-Id");
    const bad = await post({ jsonrpc: "2.0", id: 1, method: "ping" }, { origin: "https://app.example.evil.com" }, guarded);
    expect(bad.status).toBe(403);
    expect(bad.res.headers.get("access-control-allow-origin")).toBeNull();
    expect((await post({ jsonrpc: "2.0", id: 1, method: "ping" }, { origin: "null" }, guarded)).status).toBe(403);
  });

  it("answers a CORS preflight from an allowed origin, refuses others", async () => {
    const preflight = (origin: string) =>
      guarded(
        new Request("http://127.0.0.1/mcp", {
          method: "OPTIONS",
          headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type, mcp-protocol-version" },
        }),
      );
    const ok = await preflight("https://app.example");
    expect(ok.status).toBe(204);
    expect(ok.headers.get("access-control-allow-origin")).toBe("https://app.example");
    expect(ok.headers.get("access-control-allow-methods")).toContain("POST");
    expect(ok.headers.get("access-control-allow-headers")).toBe("content-type, mcp-protocol-version");
    expect((await preflight("https://other.example")).status).toBe(403);
  });
});

describe("authorize", () => {
  const seen: string[] = [];
  const secured = mcpHandler({
    name: "n",
    version: "1",
    tools: [getWeather],
    authorize: async (request) => {
      seen.push(request.method);
      return request.headers.get("authorization") === "Bearer s3cret";
    },
  });

  it("a missing or wrong bearer token is 401 with WWW-Authenticate: Bearer", async () => {
    for (const headers of [{}, { authorization: "Bearer nope" }, { authorization: "s3cret" }] as Record<string, string>[]) {
      const { status, res, json } = await post(init("2025-11-25"), headers, secured);
      expect(status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe("Bearer");
      expect(json.error).toBeDefined();
    }
  });

  it("the right token is served, and authorize sees the request", async () => {
    seen.length = 0;
    const { status, json } = await post(call("get_weather", { city: "Oslo" }), { authorization: "Bearer s3cret" }, secured);
    expect(status).toBe(200);
    expect(JSON.parse(json.result.content[0].text).city).toBe("Oslo");
    expect(seen).toEqual(["POST"]);
  });

  it("GET without a token is 401 before 405", async () => {
    expect((await secured(new Request("http://127.0.0.1/mcp"))).status).toBe(401);
    expect((await secured(new Request("http://127.0.0.1/mcp", { headers: { authorization: "Bearer s3cret" } }))).status).toBe(405);
  });

  it("an authorize that throws is a 500, never a pass", async () => {
    const broken = mcpHandler({
      name: "n",
      version: "1",
      tools: [],
      authorize: () => {
        throw new Error("db down");
      },
    });
    const { status, json } = await post(init("2025-11-25"), {}, broken);
    expect(status).toBe(500);
    expect(json.error.code).toBe(-32603);
    expect(json.error.message).not.toContain("db down");
  });

  it("a truthy non-true value does not authorize", async () => {
    const h = mcpHandler({ name: "n", version: "1", tools: [], authorize: () => "yes" as unknown as boolean });
    expect((await post(init("2025-11-25"), {}, h)).status).toBe(401);
  });
});

describe("construction", () => {
  it("does no I/O, randomness or timers (Workers forbid them at module top level)", () => {
    const forbidden = () => {
      throw new Error("called during construction");
    };
    vi.spyOn(globalThis, "fetch").mockImplementation(forbidden);
    vi.spyOn(globalThis, "setTimeout").mockImplementation(forbidden as never);
    vi.spyOn(globalThis, "setInterval").mockImplementation(forbidden as never);
    vi.spyOn(Math, "random").mockImplementation(forbidden);
    vi.spyOn(crypto, "getRandomValues").mockImplementation(forbidden);
    vi.spyOn(crypto, "randomUUID").mockImplementation(forbidden);
    expect(() => mcpHandler({ name: "n", version: "1", tools: allTools, allowedOrigins: ["https://a.example"], authorize: () => true })).not.toThrow();
  });

  it("refuses a tool set the registry refuses: bad names, case collisions", () => {
    const named = (name: string): Tool => ({ ...getWeather, name });
    expect(() => mcpHandler({ name: "n", version: "1", tools: [named("files.read")] })).toThrow(expect.objectContaining({ code: "invalid_tool_name" }));
    expect(() => mcpHandler({ name: "n", version: "1", tools: [named("Echo"), named("echo")] })).toThrow(
      expect.objectContaining({ code: "tool_name_collision" }),
    );
  });

  it("refuses an input schema that is not an object schema (MCP requires type object)", () => {
    const bad: Tool = { ...rawEcho, parameters: { type: "string" } };
    expect(() => mcpHandler({ name: "n", version: "1", tools: [bad] })).toThrow(expect.objectContaining({ code: "invalid_tool" }));
  });
});
