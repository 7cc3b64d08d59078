// A tools/call result as the one string a toolloop Tool returns: text blocks joined with
// newlines, other blocks named briefly (a model cannot use base64 in a text result), and
// structuredContent as JSON when there is no text at all.
import { isObject } from "./jsonrpc.js";

export interface RemoteResult {
  text: string;
  isError: boolean;
}

export function readToolResult(result: Record<string, unknown>): RemoteResult {
  const blocks = Array.isArray(result.content) ? result.content : [];
  const parts: string[] = [];
  let hasText = false;
  for (const block of blocks) {
    if (!isObject(block)) continue;
    const part = describeBlock(block);
    if (part.text !== undefined) {
      parts.push(part.text);
      if (part.isText) hasText = true;
    }
  }
  let text = parts.join("\n");
  if (!hasText && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent);
  return { text, isError: result.isError === true };
}

function describeBlock(block: Record<string, unknown>): { text?: string; isText: boolean } {
  switch (block.type) {
    case "text":
      return { text: typeof block.text === "string" ? block.text : "", isText: true };
    case "resource": {
      const r = isObject(block.resource) ? block.resource : {};
      if (typeof r.text === "string") return { text: r.text, isText: true };
      return { text: `[resource ${str(r.uri)}${r.mimeType ? ` (${str(r.mimeType)})` : ""}]`, isText: false };
    }
    case "resource_link":
      return { text: `[resource link ${str(block.name ?? block.uri)}: ${str(block.uri)}]`, isText: false };
    case "image":
    case "audio":
      return { text: `[${block.type}${block.mimeType ? ` ${str(block.mimeType)}` : ""}]`, isText: false };
    default:
      return { isText: false };
  }
}

function str(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v) ?? "";
}
