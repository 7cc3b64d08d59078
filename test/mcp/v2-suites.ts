// The v2 interop checks shared by Node (v2-interop.test.ts) and workerd (v2-workerd.test.ts).
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type McpToolSet, mcpTools } from "../../adapters/mcp/index.js";
import { silentLogger } from "../../src/base/log.js";
import { createClient, suspension, type ToolMessage } from "../../src/index.js";
import type { StandardJSONSchemaLike } from "../../src/schema/schema.js";
import { scriptedProvider } from "../../src/testing.js";
import { PNG } from "./fixtures/v2-server.js";

export const ctx = (extra: Record<string, unknown> = {}) => ({ signal: new AbortController().signal, callId: "c1", logger: silentLogger, ...extra });

/** The v2 Client, negotiating ("auto": server/discover first) or not ("legacy"), answering elicitations with `answer`. */
export async function v2Client(url: string, mode: "auto" | "legacy", answer?: (message: string) => Record<string, unknown>) {
  const client = new Client({ name: "v2-peer-client", version: "2.4.0" }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode } });
  client.setRequestHandler("elicitation/create", async (req) => {
    const message = (req.params as { message: string }).message;
    // The SDK types content values as primitives; our answers are.
    return answer ? { action: "accept" as const, content: answer(message) as Record<string, string | number | boolean> } : { action: "decline" as const };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { "accept-encoding": "identity" } } }));
  return client;
}

/** The v2 client's view of mcpHandler: the checks both runtimes share. */
export function v2ClientSuite(url: () => string) {
  it("negotiates 2026-07-28 with server/discover, lists every tool as spelled, calls one", async () => {
    const client = await v2Client(url(), "auto");
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("Shout");
      expect(tools.map((t) => t.name)).toContain("Book_Trip");
      const r = await client.callTool({ name: "Shout", arguments: { text: "hi" } });
      expect(r.content).toEqual([{ type: "text", text: "HI" }]);
    } finally {
      await client.close();
    }
  });

  it("gets a toolOutput image as MCP image content and a file part as an embedded resource", async () => {
    const client = await v2Client(url(), "auto");
    try {
      const r = await client.callTool({ name: "picture", arguments: {} });
      expect(r.content).toEqual([
        { type: "text", text: "here" },
        { type: "image", data: PNG, mimeType: "image/png" },
        { type: "resource", resource: { uri: "toolloop://output/r.pdf", mimeType: "application/pdf", blob: "JVBERi0=" } },
      ]);
    } finally {
      await client.close();
    }
  });

  it("answers a tool's requestInput questions through its elicitation handler (input_required rounds)", async () => {
    const asked: string[] = [];
    const client = await v2Client(url(), "auto", (message) => {
      asked.push(message);
      return message === "Which city?" ? { answer: "Oslo" } : { confirm: true };
    });
    try {
      const r = await client.callTool({ name: "Book_Trip", arguments: { nights: 3 } });
      expect(r.content).toEqual([{ type: "text", text: "booked 3 nights in Oslo" }]);
      expect(asked).toEqual(["Which city?", "Book 3 nights in Oslo?"]);
    } finally {
      await client.close();
    }
  });

  it("without negotiation it speaks 2025-11-25 to the same endpoint", async () => {
    const client = await v2Client(url(), "legacy");
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe("2025-11-25");
      expect((await client.callTool({ name: "Shout", arguments: { text: "yo" } })).content).toEqual([{ type: "text", text: "YO" }]);
      // No multi round trip on this revision, and no session to remember capabilities: a tool error says so.
      const r = await client.callTool({ name: "Book_Trip", arguments: { nights: 1 } });
      expect(r.isError).toBe(true);
    } finally {
      await client.close();
    }
  });
}

/** mcpTools' view of the v2 server: the checks both runtimes share. */
export function mcpToolsSuite(url: () => string) {
  let tools: McpToolSet;
  beforeAll(async () => {
    tools = await mcpTools({ url: url(), headers: { "accept-encoding": "identity" } });
  });
  afterAll(() => tools?.close());
  const byName = (n: string) => tools.find((t) => t.name === n)!;

  it("lists the remote tools; a case-only twin is renamed locally and each call sends the exact remote name", async () => {
    const names = tools.map((t) => t.name);
    expect(names[0]).toBe("Get_Weather");
    expect(names[1]).toMatch(/^GET_WEATHER_[0-9a-z]{7}$/);
    expect(await byName("Get_Weather").call('{"city":"Oslo"}', ctx())).toBe("Oslo: 21°C");
    expect(await byName(names[1]!).call('{"city":"Oslo"}', ctx())).toBe("twin Oslo");
  });

  it("keeps each input schema as served ($schema included)", () => {
    expect(byName("Get_Weather").parameters).toMatchObject({ $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", required: ["city"] });
  });

  it("turns remote image content into an image part", async () => {
    expect(await byName("chart").call("{}", ctx())).toEqual({
      content: [
        { type: "text", text: "chart:" },
        { type: "image", mediaType: "image/png", data: PNG },
      ],
    });
  });

  it("a remote question goes to ctx.requestInput and the call is retried with the answer", async () => {
    const asked: unknown[] = [];
    const out = await byName("deploy").call('{"env":"prod"}', ctx({ requestInput: async (q: unknown) => (asked.push(q), { confirm: true }) }));
    expect(out).toBe("deployed to prod");
    expect(asked).toMatchObject([{ message: "Deploy to prod?" }]);
    // The server's form, as a Standard Schema: what a person is shown, and what their answer is checked against.
    const schema = (asked[0] as { schema: StandardJSONSchemaLike }).schema;
    expect(schema["~standard"].jsonSchema!.input({ target: "draft-2020-12" })).toMatchObject({ type: "object", properties: { confirm: { type: "boolean" } } });
    expect(await schema["~standard"].validate({ confirm: "yes" })).toMatchObject({ issues: [expect.anything()] });
  });

  it("without ctx.requestInput a remote question is a clear tool error", async () => {
    await expect(byName("deploy").call('{"env":"prod"}', ctx())).rejects.toThrow(
      /asks for input \("Deploy to prod\?"\).*createClient\(\{ suspension: suspension\(\{ secret \}\) \}\)/,
    );
  });

  it("inside a client the question suspends the run as a pending input call; the answer resumes it", async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ name: "deploy", arguments: { env: "prod" } }] },
      (req) => `tool said: ${(req.messages.at(-1) as ToolMessage).results[0]!.output}`,
    ]);
    const client = createClient({ suspension: suspension({ unsigned: true }), provider, tools });
    const first = await client.run("Deploy to prod");
    expect(first.status).toBe("suspended");
    expect(first.pending).toMatchObject([{ name: "deploy", kind: "input", message: "Deploy to prod?" }]);
    // The suspended state is plain JSON: resume it in a new client.
    const saved = JSON.parse(JSON.stringify(client.history));
    const resumed = createClient({ suspension: suspension({ unsigned: true }), provider, tools, history: saved });
    expect(first.pending[0]!.schema).toMatchObject({ type: "object", properties: { confirm: { type: "boolean" } } });
    // An answer that does not fit the server's form is refused before the server sees it; nothing changes.
    await expect(resumed.resume([{ callId: first.pending[0]!.callId, answer: { confirm: "yes" } }])).rejects.toMatchObject({ code: "invalid_decision" });
    expect(resumed.history).toEqual(saved);
    const done = await resumed.resume([{ callId: first.pending[0]!.callId, answer: { confirm: true } }]);
    expect(done.status).toBe("done");
    expect(done.text).toBe("tool said: deployed to prod");
  });
}
