// A tools/call result → the one string a Tool returns.
import { describe, expect, it } from "vitest";
import { readToolResult } from "../../adapters/mcp/content.js";

describe("readToolResult", () => {
  it("joins text blocks with newlines", () => {
    expect(readToolResult({ content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] })).toEqual({ text: "a\nb", isError: false });
  });

  it("prefers text over structuredContent (servers mirror structured results in text)", () => {
    expect(readToolResult({ content: [{ type: "text", text: '{"n":1}' }], structuredContent: { n: 1 } }).text).toBe('{"n":1}');
  });

  it("uses structuredContent as JSON when there is no text", () => {
    expect(readToolResult({ content: [], structuredContent: { n: 1, ok: true } }).text).toBe('{"n":1,"ok":true}');
    expect(readToolResult({ structuredContent: [1, 2] }).text).toBe("[1,2]");
  });

  it("names non-text blocks briefly instead of passing base64 to the model; embedded text resources are text", () => {
    const r = readToolResult({
      content: [
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
        { type: "resource", resource: { uri: "file:///a.txt", mimeType: "text/plain", text: "inside a.txt" } },
        { type: "resource", resource: { uri: "file:///b.bin", mimeType: "application/octet-stream", blob: "AAAA" } },
        { type: "resource_link", uri: "file:///c.md", name: "c.md" },
        { type: "audio", data: "AAAA", mimeType: "audio/wav" },
        { type: "future_thing" },
      ],
    });
    expect(r.text).toBe(
      "[image image/png]\ninside a.txt\n[resource file:///b.bin (application/octet-stream)]\n[resource link c.md: file:///c.md]\n[audio audio/wav]",
    );
    expect(r.text).not.toContain("iVBOR");
  });

  it("reads isError strictly and tolerates a missing content array", () => {
    expect(readToolResult({ content: [{ type: "text", text: "x" }], isError: true }).isError).toBe(true);
    expect(readToolResult({ isError: "yes" }).isError).toBe(false);
    expect(readToolResult({}).text).toBe("");
  });
});
