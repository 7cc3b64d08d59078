// Content parts (images, files) in the two OpenAI wire shapes, and what each API cannot take.
// Everything is checked before a byte is sent: a part an API would refuse is an
// UnsupportedContentError naming the provider and the part, and the history stays as it was.
//
// What the APIs take (OpenAI's file-inputs and vision guides, and the OpenAPI document):
// - images: PNG, JPEG, WEBP, non-animated GIF, as an http(s) URL or a data URL, on both APIs;
// - Responses `input_file`: base64 data (a data URL plus a filename) or `file_url`, for PDF and
//   the document, text, code and spreadsheet types it lists;
// - Chat Completions `file`: base64 data only, and PDF only (no file URL field exists);
// - Chat Completions tool messages: text only (the media go in a user message after them).
// Inside a tool result (`tool`), a part the API cannot take goes as text instead: its rendering and
// why it was not sent, so a run is not stuck on what a tool made (the history keeps the part).
import { UnsupportedContentError } from "../../src/base/index.js";
import { type ContentPart, type FilePart, type ImagePart, renderParts } from "../../src/conversation/index.js";

const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/jpg", "image/webp", "image/gif"]);

/** What the server at the other end takes; OpenAI itself takes images and files. */
export interface ContentSupport {
  /** Provider name for errors. */
  provider: string;
  images: boolean;
  files: boolean;
  /** Where to point a user who hits a part the server cannot take (a capability flag), if anywhere. */
  hint?: string;
}

type Item = Record<string, unknown>;

/** A user turn's or (`tool`) a tool result's parts as Responses content (input_text / input_image / input_file). */
export function responsesParts(parts: readonly ContentPart[], support: ContentSupport, tool?: boolean): Item[] {
  return each(parts, support, tool, "input_text", (p) => {
    if (p.type === "image") return { type: "input_image", image_url: imageURL(p, support), detail: "auto" };
    const type = fileType(p, support);
    if (type.startsWith("audio/") || type.startsWith("video/")) fail(p, support, "the Responses API takes documents, not audio or video, as files");
    if (p.url !== undefined && !/^(https?|data):/i.test(p.url)) fail(p, support, "a file URL must be http(s): or data:");
    const data = inlineData(p);
    if (data === undefined) return { type: "input_file", file_url: p.url };
    return { type: "input_file", filename: filenameOf(p), file_data: data };
  });
}

/** A user turn's or (`tool`) a tool result's parts as Chat Completions content parts (text / image_url / file). */
export function chatParts(parts: readonly ContentPart[], support: ContentSupport, tool?: boolean): Item[] {
  return each(parts, support, tool, "text", (p) => {
    if (p.type === "image") return { type: "image_url", image_url: { url: imageURL(p, support) } };
    const type = fileType(p, support);
    const data = inlineData(p);
    if (data === undefined) fail(p, support, "Chat Completions takes files as base64 data only (no file URLs); use the Responses API or inline the data");
    if (type !== "application/pdf") fail(p, support, "Chat Completions takes PDF files only; use the Responses API for other documents");
    return { type: "file", file: { filename: filenameOf(p), file_data: data } };
  });
}

/**
 * Text parts as `text` items, media through `media`; in a tool result a part it refuses becomes a
 * text item saying what it was and why it was not sent (the developer's hint left out).
 */
function each(
  parts: readonly ContentPart[],
  support: ContentSupport,
  tool: boolean | undefined,
  text: string,
  media: (p: ImagePart | FilePart) => Item,
): Item[] {
  return parts.map((p) => {
    if (p.type === "text") return { type: text, text: p.text };
    try {
      return media(p);
    } catch (e) {
      if (!tool || !(e instanceof UnsupportedContentError)) throw e;
      return { type: text, text: `${renderParts([p])} (not sent to ${e.provider}: ${support.hint ? e.why.replace(` (${support.hint})`, "") : e.why})` };
    }
  });
}

/** True when some part is not text (and so needs more than a string on the wire). */
export function hasMedia(parts: readonly ContentPart[] | undefined): parts is readonly ContentPart[] {
  return parts?.some((p) => p.type !== "text") === true;
}

function describe(p: ImagePart | FilePart): string {
  const what = p.type === "image" ? "an image" : `a file${p.filename ? ` (${p.filename})` : ""}`;
  const type = p.mediaType ?? (p.url !== undefined ? mediaTypeOfDataURL(p.url) : undefined);
  return `${what}${type ? ` of type ${type}` : ""}${p.url !== undefined && !p.url.startsWith("data:") ? " by URL" : ""}`;
}

function fail(p: ImagePart | FilePart, support: ContentSupport, why: string): never {
  throw new UnsupportedContentError(support.provider, describe(p), why);
}

/** A part of a kind the server is not declared to take. */
function notTaken(p: ImagePart | FilePart, support: ContentSupport, what: string): never {
  return fail(p, support, `this server is not known to take ${what}${support.hint ? ` (${support.hint})` : ""}`);
}

function imageURL(p: ImagePart, support: ContentSupport): string {
  if (!support.images) notTaken(p, support, "images");
  const type = (p.mediaType ?? (p.url !== undefined ? mediaTypeOfDataURL(p.url) : undefined))?.toLowerCase();
  if (type !== undefined && !IMAGE_TYPES.has(type)) fail(p, support, "OpenAI takes PNG, JPEG, WEBP and GIF images");
  if (p.url !== undefined) {
    if (!/^(https?|data):/i.test(p.url)) fail(p, support, "an image URL must be http(s): or data:");
    return p.url;
  }
  return `data:${p.mediaType};base64,${p.data}`;
}

/**
 * The checks both APIs make on a file part; its media type, lower-cased. Each API's own checks
 * follow in responsesParts / chatParts, so a bundle carries only the messages of the API it uses.
 */
function fileType(p: FilePart, support: ContentSupport): string {
  if (!support.files) notTaken(p, support, "files");
  const type = (p.mediaType ?? "").toLowerCase();
  if (type.startsWith("image/")) fail(p, support, "send images as image parts");
  return type;
}

/** The part's bytes as a data URL, or undefined for a remote URL. */
function inlineData(p: FilePart): string | undefined {
  if (p.data !== undefined) return `data:${p.mediaType};base64,${p.data}`;
  return p.url.startsWith("data:") ? p.url : undefined;
}

/** The APIs want a filename with inline file data; the extension tells them the type. */
function filenameOf(p: FilePart): string {
  if (p.filename) return p.filename;
  const sub = (p.mediaType.split("/")[1] ?? "").split(/[+;]/)[0];
  return sub ? `file.${sub === "plain" ? "txt" : sub}` : "file";
}

function mediaTypeOfDataURL(url: string): string | undefined {
  const m = /^data:([^;,]+)/i.exec(url);
  return m ? m[1] : undefined;
}
