import { describe, expect, it } from "vitest";
import { mcpHandler, mcpTools } from "../../adapters/mcp/index.js";
import { headersFor, paramHeaders } from "../../adapters/mcp/wire/param-headers.js";
import { silentLogger } from "../../src/base/log.js";
import type { Tool } from "../../src/tools/tool.js";
import { rpcRequest, serveHandler } from "./helpers.js";

describe("SEP-2243 x-mcp-header (client side)", () => {
  const schema = (props: Record<string, unknown>) => ({ type: "object", properties: props });

  it("maps marked string/integer/boolean properties and mirrors their values, base64 when unsafe, none for null", () => {
    const r = paramHeaders(
      schema({
        region: { type: "string", "x-mcp-header": "Region" },
        n: { type: "integer", "x-mcp-header": "N" },
        v: { type: "boolean", "x-mcp-header": "Verbose" },
        q: { type: "string" },
      }),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(headersFor(r.map, { region: " padded", n: 42, v: null, q: "x" })).toEqual({
      "mcp-param-region": `=?base64?${btoa(" padded")}?=`,
      "mcp-param-n": "42",
    });
    expect(headersFor(r.map, { region: "us-west1", v: false })).toEqual({ "mcp-param-region": "us-west1", "mcp-param-verbose": "false" });
  });

  it("refuses malformed markings: empty, non-token, case-only duplicates, non-primitive or number types", () => {
    for (const props of [
      { a: { type: "string", "x-mcp-header": "" } },
      { a: { type: "string", "x-mcp-header": "My Region" } },
      { a: { type: "string", "x-mcp-header": "Région" } },
      { a: { type: "string", "x-mcp-header": "X" }, b: { type: "string", "x-mcp-header": "x" } },
      { a: { type: "object", "x-mcp-header": "A" } },
      { a: { type: "number", "x-mcp-header": "A" } },
    ])
      expect(paramHeaders(schema(props)).ok, JSON.stringify(props)).toBe(false);
  });
});

describe("SEP-2243 x-mcp-header (server side: mcpHandler checks Mcp-Param-* against the body)", () => {
  const region: Tool = {
    name: "where",
    description: "echo",
    parameters: { type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } } },
    call: async (input) => input,
  };
  const handler = mcpHandler({ name: "ph", version: "1", tools: [region] });
  const call = async (args: Record<string, unknown>, extra: Record<string, string>) => {
    const _meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
    const body = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "where", arguments: args, _meta } };
    const res = await handler(rpcRequest(body, { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "where", ...extra }));
    return { status: res.status, json: JSON.parse(await res.text()) };
  };

  it("accepts a matching header, plain or base64, and takes an unwrapped value literally", async () => {
    expect((await call({ region: "Hello" }, { "mcp-param-region": `=?base64?${btoa("Hello")}?=` })).json.result.isError).toBe(false);
    expect((await call({ region: "us-west1" }, { "mcp-param-region": "us-west1" })).status).toBe(200);
    expect((await call({ region: `=?base64?${btoa("x")}` }, { "mcp-param-region": `=?base64?${btoa("x")}` })).status).toBe(200);
    expect((await call({}, {})).status).toBe(200); // nothing given, nothing to mirror
  });

  it("refuses a missing, different, unpadded or non-alphabet header with 400 and -32020", async () => {
    const cases: Record<string, string>[] = [
      {},
      { "mcp-param-region": "eu" },
      { "mcp-param-region": "=?base64?SGVsbG8?=" },
      { "mcp-param-region": "=?base64?SGVs!!!bG8=?=" },
    ];
    for (const headers of cases) {
      const { status, json } = await call({ region: "Hello" }, headers);
      expect(status, JSON.stringify(headers)).toBe(400);
      expect(json).toMatchObject({ id: 7, error: { code: -32020 } });
    }
  });
});

describe("SEP-2243 end to end: mcpTools against mcpHandler over real HTTP", () => {
  it("mirrors marked arguments the server then verifies, and leaves out only the malformed tool", async () => {
    const seen: string[] = [];
    const tools: Tool[] = [
      {
        name: "route",
        description: "echo",
        parameters: { type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" }, note: { type: "string" } } },
        call: async (input) => input,
      },
      {
        name: "broken",
        description: "bad mark",
        parameters: { type: "object", properties: { v: { type: "string", "x-mcp-header": "" } } },
        call: async () => "never",
      },
    ];
    const inner = mcpHandler({ name: "e2e", version: "1", tools });
    const server = await serveHandler(async (req) => {
      const h = req.headers.get("mcp-param-region");
      if (h !== null) seen.push(h);
      return inner(req);
    });
    try {
      const remote = await mcpTools({ url: server.url });
      try {
        expect(remote.map((t) => t.name)).toEqual(["route"]);
        const ctx = { signal: new AbortController().signal, callId: "c", logger: silentLogger };
        expect(await remote[0]!.call(JSON.stringify({ region: "Zürich", note: "x" }), ctx)).toBe('{"region":"Zürich","note":"x"}');
        expect(seen).toEqual([`=?base64?${btoa(String.fromCharCode(...new TextEncoder().encode("Zürich")))}?=`]);
      } finally {
        await remote.close();
      }
    } finally {
      await server.close();
    }
  });
});
