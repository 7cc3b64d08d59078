// Content parts → Anthropic blocks: `image` (base64 or url source) and `document` (a PDF as
// base64 or url, plain text as a text source), in user turns and inside tool_result
// content. What the API does not list fails here, before anything is sent, with
// UnsupportedContentError naming the part; inside a tool result such a part goes as text
// instead (its rendering and why it was not sent), so a run is not stuck on what a tool made.
import { UnsupportedContentError } from "../../src/base/index.js";
import { type ContentPart, type FilePart, type ImagePart, renderParts } from "../../src/conversation/index.js";
import type { Block } from "./wire.js";

/** Base64ImageSource.media_type in the API's spec. */
const IMAGE_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp"];
const DATA_URL = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s;

/** A user turn's parts, or (`tool`) a tool result's, where a part the API cannot take goes as text. */
export function partBlocks(parts: readonly ContentPart[], tool?: boolean): Block[] {
  const blocks: Block[] = [];
  for (const p of parts) {
    if (p.type === "text") {
      if (p.text.trim() !== "") blocks.push({ type: "text", text: p.text }); // the API refuses blank text
      continue;
    }
    try {
      if (p.type === "image") blocks.push(imageBlock(p));
      else if (p.type === "file") blocks.push(documentBlock(p));
      else throw unsupported(p, "not a content part type this adapter knows");
    } catch (e) {
      if (!tool || !(e instanceof UnsupportedContentError)) throw e;
      blocks.push({ type: "text", text: `${renderParts([p])} (not sent to claude: ${e.why})` });
    }
  }
  return blocks;
}

function imageBlock(p: ImagePart): Block {
  if (p.data !== undefined) return { type: "image", source: { type: "base64", media_type: imageType(p, p.mediaType), data: p.data } };
  const inline = DATA_URL.exec(p.url);
  if (inline) return { type: "image", source: { type: "base64", media_type: imageType(p, inline[1]!), data: inline[2]! } };
  if (p.url.startsWith("data:")) throw unsupported(p, "a data: URL must be base64-encoded");
  // The API fetches the URL itself and reads its type there; a stated type must still be one it takes.
  if (p.mediaType !== undefined) imageType(p, p.mediaType);
  return { type: "image", source: { type: "url", url: p.url } };
}

function imageType(p: ImagePart, mediaType: string): string {
  const type = mediaType.toLowerCase();
  if (!IMAGE_TYPES.includes(type)) throw unsupported(p, `images must be ${IMAGE_TYPES.join(", ")}`);
  return type;
}

function documentBlock(p: FilePart): Block {
  const type = p.mediaType.toLowerCase();
  const title = p.filename ? { title: p.filename.slice(0, 500) } : {};
  let data = p.data;
  if (data === undefined) {
    const url = p.url ?? "";
    const inline = DATA_URL.exec(url);
    if (!inline) {
      if (url.startsWith("data:")) throw unsupported(p, "a data: URL must be base64-encoded");
      // A URL document source is a PDF the API fetches (URLPDFSource); nothing else.
      if (type !== "application/pdf") throw unsupported(p, "a document by URL must be application/pdf; send other files as base64 data");
      return { type: "document", source: { type: "url", url }, ...title };
    }
    data = inline[2]!;
  }
  if (type === "application/pdf") return { type: "document", source: { type: "base64", media_type: "application/pdf", data }, ...title };
  if (type === "text/plain") {
    // The API takes plain text as a text source (the text itself, not base64).
    return { type: "document", source: { type: "text", media_type: "text/plain", data: decodeText(p, data) }, ...title };
  }
  throw unsupported(p, "documents must be application/pdf or text/plain");
}

function decodeText(p: FilePart, base64: string): string {
  let binary: string;
  try {
    binary = atob(base64);
  } catch {
    throw unsupported(p, "its data is not valid base64");
  }
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

function unsupported(p: ContentPart, why: string): UnsupportedContentError {
  return new UnsupportedContentError("claude", describe(p), why);
}

function describe(p: ContentPart): string {
  const part = p as { type?: unknown; mediaType?: unknown; filename?: unknown };
  const name = typeof part.filename === "string" ? ` ${part.filename}` : "";
  const type = typeof part.mediaType === "string" ? ` (${part.mediaType})` : "";
  return `${part.type === "image" ? "an" : "a"} ${String(part.type)} part${name}${type}`;
}
