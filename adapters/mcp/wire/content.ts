// MCP content blocks <-> toolloop content parts, both directions.
// Remote results (mcpTools): text stays text; `image` becomes an image part; `audio`
// becomes a file part with its audio/* media type (toolloop has no audio part; a provider
// that cannot take it says so before sending); an embedded `resource` becomes text when it
// holds text, an image part when its blob is an image, a file part when the blob has a
// media type, else a short "[resource ...]" line; a `resource_link` is a line of text.
// structuredContent is added after the content as JSON text unless a text block already is
// that JSON (the mirror the spec asks servers to send); with no content it is the result.
// Published results (mcpHandler): the same mapping backwards, so a round trip keeps parts.

import { isRecord } from "../../../src/base/index.js";
import type { ContentPart } from "../../../src/conversation/index.js";
import { canonicalJson } from "./jsonrpc.js";

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
  let hasMedia = false;
  // Spec: a tool returning structuredContent SHOULD also return its serialized JSON as a
  // text block, for clients that read only content. That block is the one duplicate; links,
  // media and other text are content of their own and are kept.
  const structured = result.structuredContent;
  const data = structured === undefined ? undefined : canonicalJson(structured);
  let mirrored = false;
  for (const block of blocks) {
    if (!isRecord(block)) continue;
    const part = toPart(block);
    if (!part) continue;
    parts.push(part.part);
    lines.push(part.line);
    if (part.part.type !== "text") hasMedia = true;
    if (data !== undefined && block.type === "text" && parsedJson(part.line) === data) mirrored = true;
  }
  // The structured result the content does not carry yet goes after it, as JSON text.
  if (data !== undefined && !mirrored) {
    const text = JSON.stringify(structured) ?? "null";
    parts.push({ type: "text", text });
    lines.push(text);
  }
  const out: RemoteResult = { text: lines.join("\n"), isError: result.isError === true };
  if (hasMedia) out.content = parts;
  return out;
}

function toPart(block: Record<string, unknown>): { part: ContentPart; line: string } | undefined {
  switch (block.type) {
    case "text": {
      const text = typeof block.text === "string" ? block.text : "";
      return { part: { type: "text", text }, line: text };
    }
    case "image":
    case "audio": {
      const mediaType = str(block.mimeType);
      if (typeof block.data !== "string" || mediaType === "") return note(`[${String(block.type)}${mediaType ? ` ${mediaType}` : ""}]`);
      const part: ContentPart = block.type === "image" ? { type: "image", mediaType, data: block.data } : { type: "file", mediaType, data: block.data };
      return { part, line: `[${block.type} ${mediaType}]` };
    }
    case "resource": {
      const r = isRecord(block.resource) ? block.resource : {};
      if (typeof r.text === "string") return { part: { type: "text", text: r.text }, line: r.text };
      const mediaType = str(r.mimeType);
      if (typeof r.blob === "string" && mediaType !== "") {
        if (mediaType.startsWith("image/")) return { part: { type: "image", mediaType, data: r.blob }, line: `[image ${mediaType}]` };
        const uri = str(r.uri);
        const filename = UNNAMED.test(uri) ? undefined : fileName(uri);
        const part: ContentPart = filename ? { type: "file", mediaType, data: r.blob, filename } : { type: "file", mediaType, data: r.blob };
        return { part, line: `[file ${filename ? `${filename} ` : ""}${mediaType}]` };
      }
      return note(`[resource ${str(r.uri)}${mediaType ? ` (${mediaType})` : ""}]`);
    }
    case "resource_link":
      return note(`[resource link ${str(block.name ?? block.uri)}: ${str(block.uri)}]`);
    default:
      return undefined;
  }
}

/** The canonical JSON of a text that is JSON, else undefined. */
function parsedJson(text: string): string | undefined {
  try {
    return canonicalJson(JSON.parse(text));
  } catch {
    return undefined;
  }
}

function note(line: string): { part: ContentPart; line: string } {
  return { part: { type: "text", text: line }, line };
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
      if (mediaType.startsWith("audio/")) return { type: "audio", data: inline.data, mimeType: mediaType };
      return { type: "resource", resource: { uri: fileUri(p.filename, i), mimeType: mediaType, blob: inline.data } };
    }
    const link: Record<string, unknown> = { type: "resource_link", uri: p.url, name: (p.type === "file" ? p.filename : undefined) ?? fileName(p.url) ?? p.url };
    if (p.mediaType) link.mimeType = p.mediaType;
    return link;
  });
}

/** An embedded resource needs a URI: a file part without a name is published under its position. */
function fileUri(filename: string | undefined, index: number): string {
  return `toolloop://output/${encodeURIComponent(filename ?? `part-${index}`)}`;
}

/** The URI fileUri gives a file without a name: read back, it names no file. */
const UNNAMED = /^toolloop:\/\/output\/part-\d+$/;

function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const m = /^data:([^;,]+)?((?:;[^;,]+)*?);base64,(.*)$/s.exec(url);
  return m ? { mediaType: m[1] ?? "application/octet-stream", data: m[3]! } : undefined;
}
