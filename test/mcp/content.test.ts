// MCP content blocks <-> toolloop content parts, both directions.
import { describe, expect, it } from "vitest";
import { readToolResult, toMcpContent } from "../../adapters/mcp/wire/content.js";

describe("readToolResult", () => {
  it("joins text blocks with newlines", () => {
    expect(
      readToolResult({
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      }),
    ).toEqual({ text: "a\nb", isError: false });
  });

  it("prefers text over structuredContent (servers mirror structured results in text)", () => {
    expect(readToolResult({ content: [{ type: "text", text: '{"n":1}' }], structuredContent: { n: 1 } }).text).toBe('{"n":1}');
  });

  it("uses structuredContent as JSON when there is no text", () => {
    expect(readToolResult({ content: [], structuredContent: { n: 1, ok: true } }).text).toBe('{"n":1,"ok":true}');
    expect(readToolResult({ structuredContent: [1, 2] }).text).toBe("[1,2]");
  });

  it("turns media into content parts: image, audio (a file part), blob resources; text resources are text; links are lines", () => {
    const r = readToolResult({
      content: [
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
        { type: "resource", resource: { uri: "file:///a.txt", mimeType: "text/plain", text: "inside a.txt" } },
        { type: "resource", resource: { uri: "file:///dir/b.pdf", mimeType: "application/pdf", blob: "JVBERi0=" } },
        { type: "resource", resource: { uri: "file:///c.bin" } },
        { type: "resource_link", uri: "file:///c.md", name: "c.md" },
        { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
        { type: "future_thing" },
      ],
    });
    expect(r.content).toEqual([
      { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" },
      { type: "text", text: "inside a.txt" },
      { type: "file", mediaType: "application/pdf", data: "JVBERi0=", filename: "b.pdf" },
      { type: "text", text: "[resource file:///c.bin]" },
      { type: "text", text: "[resource link c.md: file:///c.md]" },
      { type: "file", mediaType: "audio/wav", data: "UklGRg==" },
    ]);
    // The text rendering never carries base64.
    expect(r.text).toBe(
      "[image image/png]\ninside a.txt\n[file b.pdf application/pdf]\n[resource file:///c.bin]\n[resource link c.md: file:///c.md]\n[audio audio/wav]",
    );
  });

  it("a text-only result has no parts (the tool returns a plain string)", () => {
    expect(
      readToolResult({
        content: [
          { type: "text", text: "a" },
          { type: "resource", resource: { uri: "x", text: "b" } },
        ],
      }),
    ).toEqual({ text: "a\nb", isError: false });
  });

  it("publishes parts as MCP blocks: image, audio, embedded resources, links; data: URLs inline", () => {
    expect(
      toMcpContent([
        { type: "text", text: "t" },
        { type: "image", mediaType: "image/png", data: "AAA=" },
        { type: "file", mediaType: "application/pdf", data: "JVBE", filename: "r.pdf" },
        { type: "file", mediaType: "audio/wav", data: "UklG" },
        { type: "image", url: "data:image/gif;base64,R0lG" },
        { type: "file", url: "https://x.example/a.pdf", mediaType: "application/pdf" },
      ]),
    ).toEqual([
      { type: "text", text: "t" },
      { type: "image", data: "AAA=", mimeType: "image/png" },
      { type: "resource", resource: { uri: "toolloop://output/r.pdf", mimeType: "application/pdf", blob: "JVBE" } },
      { type: "audio", data: "UklG", mimeType: "audio/wav" },
      { type: "image", data: "R0lG", mimeType: "image/gif" },
      { type: "resource_link", uri: "https://x.example/a.pdf", name: "a.pdf", mimeType: "application/pdf" },
    ]);
  });

  it("a round trip through both mappings keeps every base64 part", () => {
    const parts = [
      { type: "image" as const, mediaType: "image/png", data: "AAA=" },
      { type: "file" as const, mediaType: "application/pdf", data: "JVBE", filename: "r.pdf" },
      { type: "file" as const, mediaType: "audio/wav", data: "UklG" },
    ];
    expect(readToolResult({ content: toMcpContent(parts) }).content).toEqual(parts);
  });

  it("reads isError strictly and tolerates a missing content array", () => {
    expect(readToolResult({ content: [{ type: "text", text: "x" }], isError: true }).isError).toBe(true);
    expect(readToolResult({ isError: "yes" }).isError).toBe(false);
    expect(readToolResult({}).text).toBe("");
  });
});
