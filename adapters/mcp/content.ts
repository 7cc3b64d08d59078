// MCP content blocks <-> toolloop content parts, both directions.
// Remote results (mcpTools): text stays text; `image` becomes an image part; `audio`
// becomes a file part with its audio/* media type (toolloop has no audio part; a provider
// that cannot take it says so before sending); an embedded `resource` becomes text when it
// holds text, an image part when its blob is an image, a file part when the blob has a
// media type, else a short "[resource ...]" line; a `resource_link` is a line of text.
// Published results (mcpHandler): the same mapping backwards, so a round trip keeps parts.
import type { ContentPart } from "../../src/messages.js";
import { isObject } from "./jsonrpc.js";

export interface RemoteResult {
  /** The text rendering (text blocks joined with newlines, other blocks named briefly). */
  text: string;
  /** Set when the result holds media: every block as a part, in order. */
  content?: ContentPart[];
  isError: boolean;
}

export function readToolResult(result: Record<string, unknown>): RemoteResult {
  const blocks = Array.isArray(result.content) ? result.content : [];
  const parts: ContentPart[] = [];
  const lines: string[] = [];
  let hasText = false;
  let hasMedia = false;
  for (const block of blocks) {
    if (!isObject(block)) continue;
    const part = toPart(block);
    if (!part) continue;
    parts.push(part.part);
    lines.push(part.line);
    if (part.isText) hasText = true;
    if (part.part.type !== "text") hasMedia = true;
  }
  let text = lines.join("\n");
  if (!hasText && !hasMedia && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent);
  const out: RemoteResult = { text, isError: result.isError === true };
  if (hasMedia) out.content = parts;
  return out;
}

function toPart(block: Record<string, unknown>): { part: ContentPart; line: string; isText: boolean } | undefined {
  switch (block.type) {
    case "text": {
      const text = typeof block.text === "string" ? block.text : "";
      return { part: { type: "text", text }, line: text, isText: true };
    }
    case "image":
    case "audio": {
      const mediaType = str(block.mimeType);
      if (typeof block.data !== "string" || mediaType === "") return note(`[${String(block.type)}${mediaType ? ` ${mediaType}` : ""}]`);
      const part: ContentPart = block.type === "image" ? { type: "image", mediaType, data: block.data } : { type: "file", mediaType, data: block.data };
      return { part, line: `[${block.type} ${mediaType}]`, isText: false };
    }
    case "resource": {
      const r = isObject(block.resource) ? block.resource : {};
      if (typeof r.text === "string") return { part: { type: "text", text: r.text }, line: r.text, isText: true };
      const mediaType = str(r.mimeType);
      if (typeof r.blob === "string" && mediaType !== "") {
        if (mediaType.startsWith("image/")) return { part: { type: "image", mediaType, data: r.blob }, line: `[image ${mediaType}]`, isText: false };
        const filename = fileName(str(r.uri));
        const part: ContentPart = filename ? { type: "file", mediaType, data: r.blob, filename } : { type: "file", mediaType, data: r.blob };
        return { part, line: `[file ${filename ? `${filename} ` : ""}${mediaType}]`, isText: false };
      }
      return note(`[resource ${str(r.uri)}${mediaType ? ` (${mediaType})` : ""}]`);
    }
    case "resource_link":
      return note(`[resource link ${str(block.name ?? block.uri)}: ${str(block.uri)}]`);
    default:
      return undefined;
  }
}

function note(line: string): { part: ContentPart; line: string; isText: boolean } {
  return { part: { type: "text", text: line }, line, isText: false };
}

function fileName(uri: string): string | undefined {
  const last = uri.split(/[/\\]/).pop() ?? "";
  return last && !last.includes(":") ? decodeURIComponentSafe(last) : undefined;
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function str(v: unknown): string {
  return typeof v === "string" ? v : v === undefined ? "" : (JSON.stringify(v) ?? "");
}

/** A tool's output as MCP content blocks: text, image, audio (audio/* files), embedded resources, links. */
export function toMcpContent(parts: readonly ContentPart[]): Record<string, unknown>[] {
  return parts.map((p, i) => {
    if (p.type === "text") return { type: "text", text: p.text };
    if (p.data !== undefined) {
      if (p.type === "image") return { type: "image", data: p.data, mimeType: p.mediaType };
      if (p.mediaType.startsWith("audio/")) return { type: "audio", data: p.data, mimeType: p.mediaType };
      return { type: "resource", resource: { uri: fileUri(p.filename, i), mimeType: p.mediaType, blob: p.data } };
    }
    // A data: URL carries the bytes: publish them inline like base64 parts.
    const inline = parseDataUrl(p.url);
    if (inline) {
      const mediaType = p.mediaType ?? inline.mediaType;
      if (p.type === "image") return { type: "image", data: inline.data, mimeType: mediaType };
      return { type: "resource", resource: { uri: fileUri(p.filename, i), mimeType: mediaType, blob: inline.data } };
    }
    const link: Record<string, unknown> = { type: "resource_link", uri: p.url, name: (p.type === "file" ? p.filename : undefined) ?? fileName(p.url) ?? p.url };
    if (p.mediaType) link.mimeType = p.mediaType;
    return link;
  });
}

function fileUri(filename: string | undefined, index: number): string {
  return `toolloop://output/${encodeURIComponent(filename ?? `part-${index}`)}`;
}

function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const m = /^data:([^;,]+)?((?:;[^;,]+)*?);base64,(.*)$/s.exec(url);
  return m ? { mediaType: m[1] ?? "application/octet-stream", data: m[3]! } : undefined;
}
