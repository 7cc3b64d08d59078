// Content parts (images and files) → Gemini parts, with the API's rules checked before
// anything is sent (UnsupportedContentError names the part and the rule):
// - base64 data, or a data: URL (decoded here), → `inlineData { mimeType, data }`;
// - an https: URL (a Files API uri, a public or signed URL, which the API has fetched itself
//   since January 2026) or a gs:// uri → `fileData { mimeType, fileUri }` — in user turns only:
//   a FunctionResponsePart takes inlineData alone on the Gemini API (fileData there is
//   Vertex-only), so a tool that returns a URL must return the bytes instead;
// - tool media goes in `functionResponse.parts`, which Gemini 3 introduced; Gemini 1.x / 2.x
//   answer 400 "function_response.parts is not supported for this model".
// Media types: the lists of the API's "supported file formats" pages (images png, jpeg, webp,
// heic, heif; documents pdf and text; audio and video), and for function responses the
// shorter list of the multimodal function-response docs (png, jpeg, webp, pdf, text/plain).
import { UnsupportedContentError } from "../../src/errors.js";
import type { ContentPart } from "../../src/messages.js";
import type { Part } from "./wire.js";

const NAME = "gemini";
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"]);
const FILE_TYPES = /^(application\/(pdf|json|rtf|x-javascript|x-python|x-typescript)|text\/[\w.+-]+|audio\/[\w.+-]+|video\/[\w.+-]+)$/;
const TOOL_TYPES = new Set(["image/png", "image/jpeg", "image/webp", "application/pdf", "text/plain"]);
const EXTENSIONS: Record<string, string> = { png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", webp: "image/webp", heic: "image/heic", heif: "image/heif", pdf: "application/pdf" };

/** Models before Gemini 3 (1.x, 2.x): no functionResponse.parts, no JSON mode beside tools. */
export function beforeGemini3(model: string): boolean {
  return /(^|\/)gemini-(1|2)([.-]|$)/.test(model);
}

/** A user turn's parts. */
export function userParts(content: readonly ContentPart[]): Part[] {
  return content.map((p): Part => {
    if (p.type === "text") return { text: p.text };
    const inline = inlineOf(p);
    if (inline) {
      checkType(p, inline.mimeType, p.type === "image" ? "image" : "file");
      return { inlineData: inline };
    }
    const url = p.url!;
    if (!/^(https:\/\/|gs:\/\/)/i.test(url)) {
      throw unsupported(p, "a URL must be https: (a Files API uri or a public/signed URL), gs:// or data:");
    }
    const mimeType = p.mediaType ?? guessType(url);
    if (mimeType === undefined) {
      // The Files API knows the type of what it stores; any other URL needs it said.
      if (isFilesApiUri(url)) return { fileData: { fileUri: url } };
      throw unsupported(p, "the media type of this URL is not known: give the part a mediaType");
    }
    checkType(p, mimeType, p.type === "image" ? "image" : "file");
    return { fileData: { mimeType, fileUri: url } };
  });
}

/** A tool result's media as functionResponse.parts (its text stays in `response`). */
export function toolResponseParts(content: readonly ContentPart[], model: string): Part[] {
  const media = content.filter((p) => p.type !== "text");
  if (media.length === 0) return [];
  if (beforeGemini3(model)) {
    throw unsupported(media[0]!, `a tool result's media go in functionResponse.parts, which ${model} does not take (Gemini 3 and later do)`);
  }
  return media.map((p) => {
    const inline = inlineOf(p);
    if (!inline) throw unsupported(p, "a tool result takes media as bytes only (functionResponse.parts has no fileData on the Gemini API): return base64 data or a data: URL");
    if (!TOOL_TYPES.has(inline.mimeType)) {
      throw unsupported(p, `a tool result's media must be one of ${[...TOOL_TYPES].join(", ")}`);
    }
    return { inlineData: inline };
  });
}

/** base64 bytes of a part (its data, or a data: URL decoded); undefined for a remote URL. */
function inlineOf(p: Exclude<ContentPart, { type: "text" }>): { mimeType: string; data: string } | undefined {
  if (p.data !== undefined) return { mimeType: p.mediaType, data: p.data };
  const m = /^data:([^;,]*)((?:;[^;,]*)*),(.*)$/s.exec(p.url);
  if (!m) return undefined;
  const mimeType = m[1] || p.mediaType || "text/plain";
  const base64 = /;base64$/i.test(m[2]!);
  let data: string;
  try {
    data = base64 ? m[3]!.replace(/\s+/g, "") : toBase64(decodeURIComponent(m[3]!));
  } catch {
    throw unsupported(p, "the data: URL cannot be decoded");
  }
  return { mimeType, data };
}

function toBase64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function checkType(p: ContentPart, mimeType: string, kind: "image" | "file"): void {
  const type = mimeType.toLowerCase();
  const ok = type.startsWith("image/") ? IMAGE_TYPES.has(type) : kind === "file" && FILE_TYPES.test(type);
  if (!ok) throw unsupported(p, `the API does not take ${mimeType} (images: ${[...IMAGE_TYPES].join(", ")}; files: PDF, text, audio, video)`);
}

function guessType(url: string): string | undefined {
  const ext = /\.([a-z0-9]+)(?:[?#]|$)/i.exec(new URL(url).pathname)?.[1];
  return ext ? EXTENSIONS[ext.toLowerCase()] : undefined;
}

function isFilesApiUri(url: string): boolean {
  return /^https:\/\/generativelanguage\.googleapis\.com\/v1(beta)?\/files\//.test(url);
}

function unsupported(p: ContentPart, why: string): UnsupportedContentError {
  const where = p.type === "text" ? "" : p.data !== undefined ? `base64 ${p.mediaType}` : p.url.startsWith("data:") ? "a data: URL" : p.url.slice(0, 100);
  const what = p.type === "text" ? "a text part" : `${p.type === "image" ? "an image" : "a file"} part (${where})`;
  return new UnsupportedContentError(NAME, what, why);
}
