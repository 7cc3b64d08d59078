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
// A tool's part that cannot go in functionResponse.parts (any, before Gemini 3) is left out, and
// the response says what it was and why (`note`), so a run is not stuck on what a tool made.
import { bytesToBase64, UnsupportedContentError } from "../../src/base/index.js";
import { type ContentPart, renderParts } from "../../src/conversation/index.js";
import type { Part } from "./wire.js";

type Media = Exclude<ContentPart, { type: "text" }>;

const IMAGE = /^image\/(png|jpeg|webp|heic|heif)$/;
const FILE = /^(application\/(pdf|json|rtf|x-javascript|x-python|x-typescript)|(text|audio|video)\/[\w.+-]+)$/;
const TOOL = /^(image\/(png|jpeg|webp)|application\/pdf|text\/plain)$/;
const EXTENSION: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  webp: "image/webp",
  heic: "image/heic",
  heif: "image/heif",
  pdf: "application/pdf",
};

/** Models before Gemini 3 (1.x, 2.x): no functionResponse.parts, no JSON mode beside tools. */
export function beforeGemini3(model: string): boolean {
  return /(^|\/)gemini-(1|2)([.-]|$)/.test(model);
}

/** A user turn's parts. */
export function userParts(content: readonly ContentPart[]): Part[] {
  // an empty text part carries nothing (and an empty text parameter is a 400)
  return content
    .filter((p) => p.type !== "text" || p.text !== "")
    .map((p): Part => {
      if (p.type === "text") return { text: p.text };
      const inline = inlineOf(p);
      if (inline) return checked(p, inline.mimeType, { inlineData: inline });
      const url = p.url!;
      if (!/^(https|gs):\/\//i.test(url)) throw unsupported(p, "a URL must be https:, gs:// or data:");
      const mimeType = p.mediaType ?? EXTENSION[/\.(\w+)$/.exec(url.replace(/[?#].*/, ""))?.[1]?.toLowerCase() ?? ""];
      if (mimeType) return checked(p, mimeType, { fileData: { mimeType, fileUri: url } });
      // The Files API knows the type of what it stores; any other URL needs it said.
      if (/^https:\/\/generativelanguage\.googleapis\.com\/v1(beta)?\/files\//.test(url)) return { fileData: { fileUri: url } };
      throw unsupported(p, "its media type is unknown: give it a mediaType");
    });
}

/**
 * A tool result's media as functionResponse.parts (its text stays in `response`); what cannot go
 * there is left out and said in `response.note`.
 */
export function toolResponseParts(content: readonly ContentPart[], model: string, response?: Record<string, unknown>): Part[] {
  const parts: Part[] = [];
  const notes: string[] = [];
  for (const p of content) {
    if (p.type === "text") continue;
    const why = (reason: string) => notes.push(`${renderParts([p])} (not sent to gemini: ${reason})`);
    if (beforeGemini3(model)) {
      why(`${model} takes no media in tool results; Gemini 3 does`);
      continue;
    }
    try {
      const inline = inlineOf(p);
      // FunctionResponsePart has no fileData on the Gemini API (Vertex only)
      if (!inline) why("tool media must be bytes (base64 or a data: URL), not a URL");
      else if (!TOOL.test(inline.mimeType)) why("tool media must be PNG, JPEG, WebP, PDF or text/plain");
      else parts.push({ inlineData: inline });
    } catch {
      why("the data: URL cannot be decoded");
    }
  }
  if (notes[0] && response) response.note = notes.join("\n");
  return parts;
}

/** base64 bytes of a part (its data, or a data: URL decoded); undefined for a remote URL. */
function inlineOf(p: Media): { mimeType: string; data: string } | undefined {
  if (p.data !== undefined) return { mimeType: p.mediaType, data: p.data };
  const m = /^data:([^;,]*)((?:;[^;,]*)*),(.*)$/s.exec(p.url);
  if (!m) return undefined;
  try {
    let data = m[3]!;
    if (/;base64$/i.test(m[2]!)) data = data.replace(/\s+/g, "");
    else {
      // percent-encoded text → its UTF-8 bytes → base64
      data = bytesToBase64(new TextEncoder().encode(decodeURIComponent(data)));
    }
    return { mimeType: m[1] || p.mediaType || "text/plain", data };
  } catch {
    throw unsupported(p, "the data: URL cannot be decoded");
  }
}

function checked(p: Media, mimeType: string, part: Part): Part {
  const type = mimeType.toLowerCase();
  if (IMAGE.test(type) || (p.type === "file" && !type.startsWith("image/") && FILE.test(type))) return part;
  throw unsupported(p, `the API does not take ${mimeType} (images: PNG, JPEG, WebP, HEIC, HEIF; files: PDF, text, audio, video)`);
}

function unsupported(p: Media, why: string): UnsupportedContentError {
  const where = p.data !== undefined ? `base64 ${p.mediaType}` : p.url.startsWith("data:") ? "a data: URL" : p.url.slice(0, 100);
  return new UnsupportedContentError("gemini", `${p.type === "image" ? "an image" : "a file"} part (${where})`, why);
}
