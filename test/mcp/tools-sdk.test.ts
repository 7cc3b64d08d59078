// mcpTools() against the official SDK's McpServer (zod schemas, StreamableHTTPServerTransport
// on node:http, with sessions): listing, calling over SSE and JSON, errors, name mapping,
// cancellation, session expiry, pagination and stream resumption.

import { InMemoryEventStore } from "@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { mcpTools } from "../../adapters/mcp/index.js";
import { silentLogger, type Tool, type ToolContext } from "../../src/index.js";
import { deferred, type SdkServer, startSdkServer } from "./helpers.js";

const ctx = (signal = new AbortController().signal): ToolContext => ({ signal, callId: "call_1", logger: silentLogger });
const byName = (tools: Tool[], name: string) => {
  const t = tools.find((x) => x.name === name);
  if (!t) throw new Error(`no tool ${name} in ${tools.map((x) => x.name).join(", ")}`);
  return t;
};

/** What the peer's tools received, in order. */
let received: { tool: string; args: unknown }[] = [];
let slowStarted = deferred();
let slowAborted = deferred<unknown>();

function registerTools(server: McpServer): void {
  server.registerTool(
    "get_weather",
    {
      title: "Weather",
      description: "Current temperature for a city.",
      inputSchema: { city: z.string().describe("City name."), days: z.number().int().min(1).max(7).optional() },
    },
    async (args) => {
      received.push({ tool: "get_weather", args });
      return {
        content: [
          { type: "text", text: `${args.city}: 21°C` },
          { type: "text", text: "sunny" },
        ],
      };
    },
  );
  server.registerTool("files.read", { description: "Reads a file (a dotted name).", inputSchema: { path: z.string() } }, async (args) => {
    received.push({ tool: "files.read", args });
    return { content: [{ type: "text", text: `contents of ${args.path}` }] };
  });
  server.registerTool("fail", { description: "Reports an error.", inputSchema: { why: z.string() } }, async ({ why }) => ({
    content: [{ type: "text", text: `refused: ${why}` }],
    isError: true,
  }));
  server.registerTool("throws", { description: "Throws.", inputSchema: {} }, async () => {
    throw new Error("server-side kaboom");
  });
  server.registerTool("stats", { description: "Structured only.", inputSchema: {}, outputSchema: { count: z.number(), ok: z.boolean() } }, async () => ({
    content: [],
    structuredContent: { count: 3, ok: true },
  }));
  server.registerTool("slow", { description: "Waits until cancelled.", inputSchema: {} }, async (_args, extra) => {
    slowStarted.resolve();
    await new Promise<void>((resolve) => {
      extra.signal.addEventListener("abort", () => {
        slowAborted.resolve(extra.signal.reason);
        resolve();
      });
    });
    return { content: [{ type: "text", text: "too late" }] };
  });
}

describe("mcpTools ↔ SDK McpServer (SSE responses)", () => {
  let peer: SdkServer;
  let tools: Tool[];
  beforeAll(async () => {
    peer = await startSdkServer(registerTools);
    tools = await mcpTools({ url: peer.url, headers: { authorization: "Bearer t0k" }, clientInfo: { name: "toolloop-test", version: "9.9.9" } });
  });
  afterAll(() => peer?.close());
  afterEach(() => {
    received = [];
  });

  it("lists the remote tools as Tools, schemas converted from zod intact", () => {
    expect(tools.map((t) => t.name)).toEqual(["get_weather", "files_read", "fail", "throws", "stats", "slow"]);
    const weather = byName(tools, "get_weather");
    expect(weather.description).toBe("Current temperature for a city.");
    expect(weather.parameters).toMatchObject({
      type: "object",
      properties: { city: { type: "string", description: "City name." }, days: { type: "integer", minimum: 1, maximum: 7 } },
      required: ["city"],
    });
    // As served: the SDK's zod conversion names its draft, and we keep it (providers' encoders strip what they must).
    expect(weather.parameters).toHaveProperty("$schema");
    expect(byName(tools, "throws").parameters).toMatchObject({ type: "object" });
  });

  it("keeps the session id the server issued and sends the negotiated MCP-Protocol-Version and the user's headers", () => {
    // First the 2026-07-28 probe (this 1.x server does not speak it), then the handshake.
    const [probe, first, ...rest] = peer.requests;
    expect((probe!.body as { method: string }).method).toBe("server/discover");
    expect(probe!.headers["mcp-protocol-version"]).toBe("2026-07-28");
    expect(first!.headers["mcp-session-id"]).toBeUndefined();
    expect(first!.headers["mcp-protocol-version"]).toBeUndefined();
    const sid = rest[0]!.headers["mcp-session-id"];
    expect(sid).toMatch(/^[0-9a-f-]{36}$/);
    for (const r of rest) {
      expect(r.headers["mcp-session-id"]).toBe(sid);
      expect(r.headers["mcp-protocol-version"]).toBe("2025-11-25");
    }
    for (const r of peer.requests) {
      expect(r.headers.authorization).toBe("Bearer t0k");
      expect(r.headers.accept).toContain("text/event-stream");
    }
  });

  it("calls a tool: text blocks joined with newlines", async () => {
    expect(await byName(tools, "get_weather").call('{"city":"Paris"}', ctx())).toBe("Paris: 21°C\nsunny");
    expect(received).toEqual([{ tool: "get_weather", args: { city: "Paris" } }]);
  });

  it("cleans model arguments first (fences, prose) like every Tool", async () => {
    expect(await byName(tools, "get_weather").call('Sure:\n```json\n{"city":"Rome"}\n```', ctx())).toBe("Rome: 21°C\nsunny");
  });

  it("maps a dotted name for providers and sends the original name back", async () => {
    expect(await byName(tools, "files_read").call('{"path":"/etc/motd"}', ctx())).toBe("contents of /etc/motd");
    expect(received).toEqual([{ tool: "files.read", args: { path: "/etc/motd" } }]);
  });

  it("a remote isError result rejects with its text", async () => {
    await expect(byName(tools, "fail").call('{"why":"no reason"}', ctx())).rejects.toThrow("refused: no reason");
    await expect(byName(tools, "throws").call("{}", ctx())).rejects.toThrow("server-side kaboom");
  });

  it("passes structuredContent as JSON when there is no text", async () => {
    expect(JSON.parse((await byName(tools, "stats").call("{}", ctx())) as string)).toEqual({ count: 3, ok: true });
  });

  it("bad JSON or schema-invalid input is a FailedUnmarshalInputError and never reaches the server", async () => {
    const before = peer.requests.length;
    await expect(byName(tools, "get_weather").call("{city: Paris", ctx())).rejects.toMatchObject({ code: "failed_unmarshal_input" });
    const invalid = byName(tools, "get_weather").call('{"city":"Paris","days":9}', ctx());
    await expect(invalid).rejects.toMatchObject({ code: "failed_unmarshal_input", issues: [{ path: "/days", message: expect.any(String) }] });
    expect(peer.requests.length).toBe(before);
    expect(received).toEqual([]);
  });

  it("an abort reaches the remote tool (notifications/cancelled) and rejects with the signal's reason", async () => {
    slowStarted = deferred();
    slowAborted = deferred<unknown>();
    const controller = new AbortController();
    const pending = byName(tools, "slow").call("{}", ctx(controller.signal));
    await slowStarted.promise;
    const reason = new Error("user pressed stop");
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await expect(slowAborted.promise).resolves.toBe("user pressed stop");
  });

  it("an already-aborted signal sends nothing", async () => {
    const before = peer.requests.length;
    const controller = new AbortController();
    controller.abort();
    await expect(byName(tools, "get_weather").call('{"city":"X"}', ctx(controller.signal))).rejects.toMatchObject({ name: "AbortError" });
    expect(peer.requests.length).toBe(before);
  });

  it("an expired session (404) starts a new one and the call goes through", async () => {
    peer.expireSessions();
    const before = peer.requests.length;
    expect(await byName(tools, "get_weather").call('{"city":"Oslo"}', ctx())).toBe("Oslo: 21°C\nsunny");
    // (a late notifications/cancelled from an earlier test may interleave: look at requests only)
    const after = peer.requests.slice(before).filter((r) => (r.body as { method?: string }).method !== "notifications/cancelled");
    expect(after.map((r) => (r.body as { method: string }).method)).toEqual(["tools/call", "initialize", "notifications/initialized", "tools/call"]);
    expect(after[1]!.headers["mcp-session-id"]).toBeUndefined();
    const fresh = after[3]!.headers["mcp-session-id"];
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe(after[0]!.headers["mcp-session-id"]);
  });
});

describe("mcpTools ↔ SDK McpServer (JSON responses)", () => {
  let peer: SdkServer;
  beforeAll(async () => {
    peer = await startSdkServer(registerTools, { enableJsonResponse: true });
  });
  afterAll(() => peer?.close());

  it("reads application/json answers the same way", async () => {
    const tools = await mcpTools({ url: new URL(peer.url) });
    expect(await byName(tools, "get_weather").call('{"city":"Bern"}', ctx())).toBe("Bern: 21°C\nsunny");
    await expect(byName(tools, "fail").call('{"why":"json"}', ctx())).rejects.toThrow("refused: json");
  });
});

describe("mcpTools: paging, resuming, odd names, failures", () => {
  it("follows nextCursor through every page of tools/list", async () => {
    const pages: Record<string, { tools: { name: string; inputSchema: object }[]; nextCursor?: string }> = {
      "": { tools: [{ name: "a", inputSchema: { type: "object" } }], nextCursor: "p2" },
      p2: { tools: [{ name: "b", inputSchema: { type: "object" } }], nextCursor: "p3" },
      p3: { tools: [{ name: "c", inputSchema: { type: "object" } }] },
    };
    const cursors: (string | undefined)[] = [];
    const peer = await startSdkServer((server) => {
      server.server.registerCapabilities({ tools: {} });
      server.server.setRequestHandler(ListToolsRequestSchema, (req) => {
        cursors.push(req.params?.cursor);
        return pages[req.params?.cursor ?? ""]!;
      });
    });
    try {
      const tools = await mcpTools({ url: peer.url });
      expect(tools.map((t) => t.name)).toEqual(["a", "b", "c"]);
      expect(cursors).toEqual([undefined, "p2", "p3"]);
    } finally {
      await peer.close();
    }
  });

  it("refuses a server that repeats a cursor (it would page forever)", async () => {
    const peer = await startSdkServer((server) => {
      server.server.registerCapabilities({ tools: {} });
      server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [], nextCursor: "again" }));
    });
    try {
      await expect(mcpTools({ url: peer.url })).rejects.toMatchObject({ code: "provider_error", type: "invalid_response" });
    } finally {
      await peer.close();
    }
  });

  it("maps names providers cannot take, reversibly and uniquely; the server gets the originals", async () => {
    const names = ["search docs", "a/b", "a_b", "x".repeat(80), "Tool", "tool", "ok-name"];
    const calls: string[] = [];
    const peer = await startSdkServer((server) => {
      server.server.registerCapabilities({ tools: {} });
      server.server.setRequestHandler(ListToolsRequestSchema, () => ({
        tools: names.map((name) => ({ name, inputSchema: { type: "object" as const } })),
      }));
      server.server.setRequestHandler(CallToolRequestSchema, (req) => {
        calls.push(req.params.name);
        return { content: [{ type: "text" as const, text: `ran ${req.params.name}` }] };
      });
    });
    try {
      const tools = await mcpTools({ url: peer.url });
      const local = tools.map((t) => t.name);
      for (const n of local) expect(n).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(new Set(local.map((n) => n.toLowerCase())).size).toBe(names.length);
      expect(local[2]).toBe("a_b"); // a valid name keeps itself, even when a mapped one wanted it
      expect(local[6]).toBe("ok-name");
      expect(local[0]).toBe("search_docs");
      for (const [i, t] of tools.entries()) expect(await t.call("{}", ctx())).toBe(`ran ${names[i]}`);
      expect(calls).toEqual(names);
    } finally {
      await peer.close();
    }
  });

  it("resumes a stream the server closed (2025-11-25 polling) with GET + Last-Event-ID", async () => {
    const peer = await startSdkServer(
      (server) => {
        server.registerTool("poll", { description: "Closes its stream, answers later.", inputSchema: {} }, async (_args, extra) => {
          expect(extra.closeSSEStream).toBeTypeOf("function");
          extra.closeSSEStream!();
          await new Promise((r) => setTimeout(r, 50));
          return { content: [{ type: "text", text: "answered after the reconnect" }] };
        });
      },
      { eventStore: new InMemoryEventStore(), retryInterval: 10 },
    );
    try {
      const tools = await mcpTools({ url: peer.url });
      expect(await byName(tools, "poll").call("{}", ctx())).toBe("answered after the reconnect");
      // (the first GET may be the session's listening stream, which carries no Last-Event-ID)
      const resume = peer.requests.find((r) => r.method === "GET" && r.headers["last-event-id"]);
      expect(resume?.headers["last-event-id"]).toBeTruthy();
    } finally {
      await peer.close();
    }
  });

  it("a -32602 for bad arguments (servers before 2025-11-25) asks the model to fix them; other JSON-RPC errors are ProviderErrors", async () => {
    const peer = await startSdkServer((server) => {
      server.server.registerCapabilities({ tools: {} });
      server.server.setRequestHandler(ListToolsRequestSchema, () => ({
        tools: ["strict", "gone", "broken"].map((name) => ({ name, inputSchema: { type: "object" as const } })),
      }));
      server.server.setRequestHandler(CallToolRequestSchema, (req) => {
        if (req.params.name === "strict") {
          throw new McpError(ErrorCode.InvalidParams, "Invalid arguments", { issues: [{ path: "/q", message: "required" }] });
        }
        if (req.params.name === "gone") throw new McpError(ErrorCode.InvalidParams, "Unknown tool: gone");
        throw new McpError(ErrorCode.InternalError, "database unavailable");
      });
    });
    try {
      const tools = await mcpTools({ url: peer.url });
      await expect(byName(tools, "strict").call("{}", ctx())).rejects.toMatchObject({
        code: "failed_unmarshal_input",
        issues: [{ path: "/q", message: "required" }],
      });
      await expect(byName(tools, "gone").call("{}", ctx())).rejects.toMatchObject({ code: "provider_error", type: "invalid_params" });
      await expect(byName(tools, "broken").call("{}", ctx())).rejects.toMatchObject({
        code: "provider_error",
        provider: "mcp",
        type: "internal_error",
        message: expect.stringContaining("database unavailable"),
      });
    } finally {
      await peer.close();
    }
  });

  it("an unreachable server is a ConnectionError", async () => {
    const peer = await startSdkServer(registerTools);
    await peer.close();
    await expect(mcpTools({ url: peer.url })).rejects.toMatchObject({ code: "connection_error" });
  });

  it("an HTTP error is a ProviderError with the status (never retried for tools/call)", async () => {
    const { serveHandler } = await import("./helpers.js");
    const server = await serveHandler(
      async () =>
        new Response('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Unauthorized"}}', {
          status: 401,
          headers: { "content-type": "application/json", "www-authenticate": "Bearer" },
        }),
    );
    try {
      await expect(mcpTools({ url: server.url })).rejects.toMatchObject({
        code: "provider_error",
        provider: "mcp",
        status: 401,
        type: "unauthorized",
        message: expect.stringContaining("Unauthorized"),
      });
    } finally {
      await server.close();
    }
  });

  it("uses the fetch it was given", async () => {
    const peer = await startSdkServer(registerTools, { enableJsonResponse: true });
    const seen: string[] = [];
    try {
      const tools = await mcpTools({
        url: peer.url,
        fetch: (input, init) => {
          seen.push(`${init?.method} ${JSON.parse(String(init?.body ?? "{}")).method ?? ""}`);
          return fetch(input, init);
        },
      });
      await byName(tools, "get_weather").call('{"city":"Kyiv"}', ctx());
      // The GET is the session's listening stream, open while a call that can answer questions runs.
      expect(seen).toEqual(["POST server/discover", "POST initialize", "POST notifications/initialized", "POST tools/list", "GET ", "POST tools/call"]);
    } finally {
      await peer.close();
    }
  });
});
