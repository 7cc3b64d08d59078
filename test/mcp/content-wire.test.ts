// Content over real HTTP, both ways. Publishing (mcpHandler): an audio file part is MCP
// `audio` content whether its bytes come as base64 `data` or in a data: URL, and a file
// without a name is not given one on the way back. Using (mcpTools): structuredContent stands
// in for the content only where the content is nothing but its serialized JSON; links,
// media and other text are kept, and the JSON is added when no text block carries it.
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod/v4";
import { type McpToolSet, mcpHandler, mcpTools } from "../../adapters/mcp/index.js";
import { tool, toolOutput } from "../../src/index.js";
import { PNG } from "./fixtures/v2-server.js";
import { serveHandler } from "./helpers.js";
import { ctx, v2Client } from "./v2-suites.js";

type Served = Awaited<ReturnType<typeof serveHandler>>;
const WAV = "UklGRiQAAABXQVZF";

describe("mcpHandler publishes audio file parts as audio content, however the bytes are given", () => {
  const voice = tool({
    name: "voice",
    description: "Audio and unnamed files, as base64 data and as data: URLs.",
    input: v.object({}),
    run: () =>
      toolOutput([
        { type: "file", mediaType: "audio/wav", url: `data:audio/wav;base64,${WAV}` },
        { type: "file", mediaType: "audio/wav", data: WAV },
        { type: "file", mediaType: "audio/mpeg", url: "data:audio/mpeg;base64,SUQz" },
        { type: "file", mediaType: "application/pdf", data: "JVBERi0=" },
        { type: "file", mediaType: "application/pdf", url: "data:application/pdf;base64,JVBERi0=" },
        { type: "file", mediaType: "application/pdf", data: "JVBERi0=", filename: "r.pdf" },
      ]),
  });
  let served: Served;
  beforeAll(async () => {
    served = await serveHandler(mcpHandler({ name: "media", version: "1", tools: [voice] }));
  });
  afterAll(() => served?.close());

  it("the official v2 SDK Client gets audio blocks for both audio forms; other files stay embedded resources", async () => {
    for (const mode of ["auto", "legacy"] as const) {
      const client = await v2Client(served.url, mode);
      try {
        const r = await client.callTool({ name: "voice", arguments: {} });
        expect(r.content, mode).toEqual([
          { type: "audio", data: WAV, mimeType: "audio/wav" },
          { type: "audio", data: WAV, mimeType: "audio/wav" },
          { type: "audio", data: "SUQz", mimeType: "audio/mpeg" },
          { type: "resource", resource: { uri: "toolloop://output/part-3", mimeType: "application/pdf", blob: "JVBERi0=" } },
          { type: "resource", resource: { uri: "toolloop://output/part-4", mimeType: "application/pdf", blob: "JVBERi0=" } },
          { type: "resource", resource: { uri: "toolloop://output/r.pdf", mimeType: "application/pdf", blob: "JVBERi0=" } },
        ]);
      } finally {
        await client.close();
      }
    }
  });

  it("mcpTools reads them back as file parts with no made-up filename (a real one is kept)", async () => {
    const tools: McpToolSet = await mcpTools({ url: served.url });
    try {
      expect(await tools[0]!.call("{}", ctx())).toEqual({
        content: [
          { type: "file", mediaType: "audio/wav", data: WAV },
          { type: "file", mediaType: "audio/wav", data: WAV },
          { type: "file", mediaType: "audio/mpeg", data: "SUQz" },
          { type: "file", mediaType: "application/pdf", data: "JVBERi0=" },
          { type: "file", mediaType: "application/pdf", data: "JVBERi0=" },
          { type: "file", mediaType: "application/pdf", data: "JVBERi0=", filename: "r.pdf" },
        ],
      });
    } finally {
      await tools.close();
    }
  });
});

describe("mcpTools: structuredContent next to content (an official v2 SDK server)", () => {
  const data = { pages: 3, title: "Report" };
  const link = { type: "resource_link" as const, uri: "https://files.example/report.pdf", name: "report.pdf", mimeType: "application/pdf" };
  const results: Record<string, { content: Record<string, unknown>[] }> = {
    link_and_data: { content: [link] },
    // The backwards-compatible shape the spec asks for: the JSON again, as text (any key order, any spacing).
    mirrored: { content: [{ type: "text", text: '{"title":"Report","pages":3}' }] },
    mirrored_and_link: { content: [{ type: "text", text: JSON.stringify(data, null, 2) }, link] },
    only_data: { content: [] },
    summary_and_data: { content: [{ type: "text", text: "A 3-page report." }] },
    image_and_data: { content: [{ type: "image", data: PNG, mimeType: "image/png" }] },
  };
  let served: Served;
  let tools: McpToolSet;
  beforeAll(async () => {
    const handler = createMcpHandler(() => {
      const server = new McpServer({ name: "structured-peer", version: "1.0.0" });
      for (const [name, result] of Object.entries(results)) {
        server.registerTool(
          name,
          { description: name, inputSchema: z.object({}), outputSchema: z.object({ pages: z.number(), title: z.string() }) },
          async () => ({
            ...(result as { content: [] }),
            structuredContent: data,
          }),
        );
      }
      return server;
    });
    served = await serveHandler((request) => handler.fetch(request));
    tools = await mcpTools({ url: served.url });
  });
  afterAll(async () => {
    await tools?.close();
    await served?.close();
  });
  const call = (name: string) => tools.find((t) => t.name === name)!.call("{}", ctx());
  const json = JSON.stringify(data);

  it("a resource_link with structuredContent keeps the link, and the JSON it does not carry", async () => {
    expect(await call("link_and_data")).toBe(`[resource link report.pdf: https://files.example/report.pdf]\n${json}`);
  });

  it("text that is the structuredContent's JSON is the duplicate: passed as it is, nothing added", async () => {
    expect(await call("mirrored")).toBe('{"title":"Report","pages":3}');
    expect(await call("mirrored_and_link")).toBe(`${JSON.stringify(data, null, 2)}\n[resource link report.pdf: https://files.example/report.pdf]`);
  });

  it("only structuredContent: passed on as JSON", async () => {
    expect(await call("only_data")).toBe(json);
  });

  it("other text and media are kept, with the JSON after them", async () => {
    expect(await call("summary_and_data")).toBe(`A 3-page report.\n${json}`);
    expect(await call("image_and_data")).toEqual({
      content: [
        { type: "image", mediaType: "image/png", data: PNG },
        { type: "text", text: json },
      ],
    });
  });
});
