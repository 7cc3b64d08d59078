// mcpHandler speaking 2026-07-28 (stateless): raw Requests into the handler, checking the
// envelope, the standard headers, server/discover, cacheable lists, resultType, and the
// multi-round-trip answer to a tool that calls ctx.requestInput.
import { describe, expect, it } from "vitest";
import { mcpHandler } from "../../adapters/mcp/index.js";
import { encodeHeaderValue } from "../../adapters/mcp/wire/envelope.js";
import { jsonTool } from "../../src/index.js";
import { booking, picture } from "./fixtures/input-tools.js";
import { allTools, getWeather } from "./fixtures/tools.js";
import { PNG } from "./fixtures/v2-server.js";
import { rpcRequest } from "./helpers.js";

const V = "2026-07-28";
const elicitingClient = { elicitation: { form: {} } };

const handler = mcpHandler({
  name: "modern-server",
  version: "2.0.0",
  tools: [...allTools, booking, picture],
  instructions: "Use the tools.",
  cache: { ttlMs: 60_000 },
});

const meta = (caps: Record<string, unknown> = {}) => ({
  "io.modelcontextprotocol/protocolVersion": V,
  "io.modelcontextprotocol/clientCapabilities": caps,
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
});

/** A well-formed 2026-07-28 request: envelope in params._meta, and the standard headers. */
function modern(
  method: string,
  params: Record<string, unknown> = {},
  opts: { caps?: Record<string, unknown>; headers?: Record<string, string | null>; id?: number } = {},
) {
  const body = { jsonrpc: "2.0", id: opts.id ?? 1, method, params: { ...params, _meta: meta(opts.caps) } };
  const headers: Record<string, string | null> = { "mcp-protocol-version": V, "mcp-method": method };
  if (typeof params.name === "string") headers["mcp-name"] = encodeHeaderValue(params.name);
  Object.assign(headers, opts.headers);
  return send(body, Object.fromEntries(Object.entries(headers).filter((e): e is [string, string] => e[1] !== null)));
}

async function send(body: unknown, headers: Record<string, string>) {
  const res = await handler(rpcRequest(body, headers));
  const text = await res.text();
  return { status: res.status, res, json: text ? JSON.parse(text) : undefined };
}

describe("2026-07-28: discovery and lists", () => {
  it("server/discover names the revision, capabilities, instructions, cache hints and serverInfo in _meta", async () => {
    const { status, json, res } = await modern("server/discover");
    expect(status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toBeNull();
    expect(json.result).toEqual({
      resultType: "complete",
      supportedVersions: [V],
      capabilities: { tools: {} },
      instructions: "Use the tools.",
      ttlMs: 60_000,
      cacheScope: "public",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "modern-server", version: "2.0.0" } },
    });
  });

  it("tools/list carries resultType, ttlMs and cacheScope, and each name as spelled", async () => {
    const { json } = await modern("tools/list");
    expect(json.result).toMatchObject({ resultType: "complete", ttlMs: 60_000, cacheScope: "public" });
    const names = (json.result.tools as { name: string }[]).map((t) => t.name);
    expect(names).toContain("Shout");
    expect(names).toContain("Book_Trip");
    expect(json.result.tools[0]).toEqual({ name: "get_weather", description: getWeather.description, inputSchema: getWeather.parameters });
  });

  it("tools/call answers resultType complete; the exact name and the lower-cased one both reach the tool", async () => {
    const { json } = await modern("tools/call", { name: "Shout", arguments: { text: "hi" } });
    expect(json.result).toEqual({ resultType: "complete", content: [{ type: "text", text: "HI" }], isError: false });
    expect((await modern("tools/call", { name: "shout", arguments: { text: "x" } })).json.result.content[0].text).toBe("X");
  });

  it("a tool's image and file parts are published as image content and an embedded resource", async () => {
    const { json } = await modern("tools/call", { name: "picture", arguments: {} });
    expect(json.result.content).toEqual([
      { type: "text", text: "here" },
      { type: "image", data: PNG, mimeType: "image/png" },
      { type: "resource", resource: { uri: "toolloop://output/r.pdf", mimeType: "application/pdf", blob: "JVBERi0=" } },
    ]);
  });

  it("methods this revision removed (initialize, ping, logging/setLevel) and features not offered are HTTP 404 with -32601", async () => {
    for (const method of ["initialize", "ping", "logging/setLevel", "resources/list", "prompts/list", "completion/complete", "tasks/get"]) {
      const { status, json } = await modern(
        method,
        method === "initialize" ? { protocolVersion: V, capabilities: {}, clientInfo: { name: "x", version: "1" } } : {},
      );
      expect(status, method).toBe(404);
      expect(json.error.code, method).toBe(-32601);
    }
  });

  it("a notification is 202 with no body", async () => {
    const { status, json } = await send(
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } },
      { "mcp-protocol-version": V, "mcp-method": "notifications/cancelled" },
    );
    expect(status).toBe(202);
    expect(json).toBeUndefined();
  });

  it("answers over SSE when the client accepts only text/event-stream", async () => {
    const res = await handler(
      rpcRequest(
        { jsonrpc: "2.0", id: 3, method: "tools/list", params: { _meta: meta() } },
        { accept: "text/event-stream", "mcp-protocol-version": V, "mcp-method": "tools/list" },
      ),
    );
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    expect(await res.text()).toMatch(/^event: message\ndata: \{"jsonrpc":"2.0","id":3,"result":\{"resultType":"complete"/);
  });
});

describe("2026-07-28: the envelope and the standard headers", () => {
  it("a missing MCP-Protocol-Version or Mcp-Method header is 400 with -32020", async () => {
    for (const header of ["mcp-protocol-version", "mcp-method"]) {
      const { status, json } = await modern("tools/list", {}, { headers: { [header]: null } });
      expect(status, header).toBe(400);
      expect(json.error.code, header).toBe(-32020);
    }
  });

  it("headers that disagree with the body are 400 with -32020: version, method, tool name", async () => {
    const cases: [string, Record<string, unknown>, Record<string, string | null>][] = [
      ["tools/list", {}, { "mcp-protocol-version": "2025-11-25" }],
      ["tools/list", {}, { "mcp-method": "tools/call" }],
      ["tools/call", { name: "Shout", arguments: { text: "a" } }, { "mcp-name": "shout" }],
      ["tools/call", { name: "Shout", arguments: { text: "a" } }, { "mcp-name": null }],
      ["tools/call", { name: "Shout", arguments: { text: "a" } }, { "mcp-name": "=?base64?!!!?=" }],
    ];
    for (const [method, params, headers] of cases) {
      const { status, json } = await modern(method, params, { headers });
      expect(status, JSON.stringify(headers)).toBe(400);
      expect(json.error.code, JSON.stringify(headers)).toBe(-32020);
      expect(json.id).toBe(1);
    }
  });

  it("Mcp-Name in its base64 form is decoded before the comparison", async () => {
    const echo = jsonTool({ name: "echo", description: "echo", parameters: { type: "object", properties: {} }, run: () => "ok" });
    const h = mcpHandler({ name: "s", version: "1", tools: [echo] });
    const body = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: {}, _meta: meta() } };
    const res = await h(rpcRequest(body, { "mcp-protocol-version": V, "mcp-method": "tools/call", "mcp-name": "=?base64?ZWNobw==?=" }));
    expect((await res.json()).result.content[0].text).toBe("ok");
    expect(encodeHeaderValue("café")).toBe("=?base64?Y2Fmw6k=?=");
  });

  it("an envelope without clientCapabilities, or with a malformed one, is 400 with -32602 naming the key", async () => {
    const bad = [
      { "io.modelcontextprotocol/protocolVersion": V },
      { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": [] },
    ];
    for (const m of bad) {
      const { status, json } = await send(
        { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: m } },
        { "mcp-protocol-version": V, "mcp-method": "tools/list" },
      );
      expect(status).toBe(400);
      expect(json.error.code).toBe(-32602);
      expect(json.error.message).toContain("io.modelcontextprotocol/clientCapabilities");
    }
  });

  it("a 2026-07-28 header on a request without the envelope is 400 with -32602", async () => {
    const { status, json } = await send({ jsonrpc: "2.0", id: 1, method: "tools/list" }, { "mcp-protocol-version": V, "mcp-method": "tools/list" });
    expect(status).toBe(400);
    expect(json.error.code).toBe(-32602);
  });

  it("initialize with a 2026-07-28 header is a header mismatch (-32020)", async () => {
    const body = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    };
    const { status, json } = await send(body, { "mcp-protocol-version": V });
    expect(status).toBe(400);
    expect(json.error.code).toBe(-32020);
  });

  it("an envelope naming a revision we do not serve is 400 with -32022 listing the supported ones", async () => {
    const m = { ...meta(), "io.modelcontextprotocol/protocolVersion": "2027-03-01" };
    const { status, json } = await send(
      { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: m } },
      { "mcp-protocol-version": "2027-03-01", "mcp-method": "tools/list" },
    );
    expect(status).toBe(400);
    expect(json.error).toMatchObject({ code: -32022, data: { supported: [V], requested: "2027-03-01" } });
  });

  it("a batch carrying a 2026-07-28 request is refused", async () => {
    const body = [{ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta() } }];
    expect((await send(body, { "mcp-protocol-version": "2025-03-26" })).status).toBe(400);
  });

  it("legacy requests keep working on the same endpoint, request by request", async () => {
    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    };
    expect((await send(init, {})).json.result.protocolVersion).toBe("2025-11-25");
    // initialize never settles on the stateless revision, even when asked for it
    expect((await send({ ...init, params: { ...init.params, protocolVersion: V } }, {})).json.result.protocolVersion).toBe("2025-11-25");
    const list = await send({ jsonrpc: "2.0", id: 2, method: "tools/list" }, { "mcp-protocol-version": "2025-11-25" });
    expect(list.json.result).not.toHaveProperty("ttlMs");
    expect(list.json.result).not.toHaveProperty("resultType");
  });
});

describe("2026-07-28: a tool that asks for input (multi round trip)", () => {
  const call = (extra: Record<string, unknown> = {}, caps: Record<string, unknown> = elicitingClient) =>
    modern("tools/call", { name: "Book_Trip", arguments: { nights: 2 }, ...extra }, { caps });

  it("answers input_required with an elicitation, then takes each answer on the retried call", async () => {
    const first = (await call()).json.result;
    expect(first).toMatchObject({
      resultType: "input_required",
      inputRequests: {
        q0: {
          method: "elicitation/create",
          params: {
            mode: "form",
            message: "Which city?",
            requestedSchema: { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] },
          },
        },
      },
    });
    expect(typeof first.requestState).toBe("string");

    const second = (await call({ inputResponses: { q0: { action: "accept", content: { answer: "Oslo" } } }, requestState: first.requestState })).json.result;
    expect(second.resultType).toBe("input_required");
    expect(second.inputRequests.q1.params).toMatchObject({
      message: "Book 2 nights in Oslo?",
      requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } } },
    });

    const done = (await call({ inputResponses: { q1: { action: "accept", content: { confirm: true } } }, requestState: second.requestState })).json.result;
    expect(done).toEqual({ resultType: "complete", content: [{ type: "text", text: "booked 2 nights in Oslo" }], isError: false });
  });

  it("refuses an edited requestState (-32602) instead of replaying it into the tool", async () => {
    const first = (await call()).json.result;
    const second = (await call({ inputResponses: { q0: { action: "accept", content: { answer: "Oslo" } } }, requestState: first.requestState })).json.result;
    for (const state of [`${second.requestState}-TAMPERED`, second.requestState.replace(/^./, (c: string) => (c === "A" ? "B" : "A")), "", 42]) {
      const r = (await call({ inputResponses: { q1: { action: "accept", content: { confirm: true } } }, requestState: state })).json;
      expect(r.error).toMatchObject({ code: -32602, message: expect.stringMatching(/requestState failed its integrity check/) });
    }
  });

  it("refuses inputResponses that are not result objects (-32602) and ignores keys it never asked", async () => {
    expect((await call({ inputResponses: null })).json.error.code).toBe(-32602);
    expect((await call({ inputResponses: { q0: 12345 } })).json.error.code).toBe(-32602);
    const r = (await call({ inputResponses: { q0: { action: "accept", content: { answer: "Oslo" } }, stray: { action: "accept", content: {} } } })).json.result;
    expect(r).toMatchObject({ resultType: "input_required", inputRequests: { q1: { method: "elicitation/create" } } });
    expect(Object.keys(r.inputRequests)).toEqual(["q1"]);
  });

  it("a declined question ends the call with a tool error naming it", async () => {
    const first = (await call()).json.result;
    const r = (await call({ inputResponses: { q0: { action: "decline" } }, requestState: first.requestState })).json.result;
    expect(r.resultType).toBe("complete");
    expect(r.isError).toBe(true);
    expect(r.content[0].text).toMatch(/did not answer "Which city\?" \(decline\)/);
  });

  it("a client without the elicitation capability gets 400 with -32021 naming it, instead of a question", async () => {
    const { status, json } = await call({}, {});
    expect(status).toBe(400);
    expect(json.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
    expect(json.error.message).toMatch(/elicitation.*"Which city\?"/);
  });

  it("on an older revision the same tool ends in a tool error (no multi round trip there)", async () => {
    const body = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "Book_Trip", arguments: { nights: 1 } } };
    const r = (await send(body, { "mcp-protocol-version": "2025-11-25" })).json.result;
    expect(r.isError).toBe(true);
    expect(r.content[0].text).toMatch(/needs input from the user/);
  });
});
