// What one request may cost mcpHandler: the body it reads (maxBodyBytes), the messages one
// JSON-RPC batch may hold (maxBatchSize) and how many of them run at once
// (maxBatchConcurrency). Without them a client could make the server hold a 20 MB body in
// memory or start 500 tool calls with one POST.
import { InvalidOptionsError } from "../../../src/base/index.js";

export interface HandlerLimits {
  maxBodyBytes: number;
  maxBatchSize: number;
  maxBatchConcurrency: number;
}

/** The defaults: far above any real MCP message or batch, far below what would hurt a server. */
const DEFAULT_LIMITS: HandlerLimits = { maxBodyBytes: 4 * 1024 * 1024, maxBatchSize: 50, maxBatchConcurrency: 8 };

/** The limits `options` sets, defaults for the rest; a value that is not a positive integer is refused. */
export function handlerLimits(options: Partial<Record<keyof HandlerLimits, unknown>>): HandlerLimits {
  const out = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof HandlerLimits)[]) {
    const value = options[key];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0) {
      const got = typeof value === "string" ? `the string ${JSON.stringify(value)}` : String(value);
      throw new InvalidOptionsError(`mcpHandler(): ${key} must be a positive integer, got ${got}`);
    }
    out[key] = value;
  }
  return out;
}

/**
 * The request body as text, or undefined when it is longer than `max` bytes. A declared
 * Content-Length past the limit is refused unread; otherwise the body is read as a stream
 * and reading stops at the first chunk past the limit (a chunked upload declares no length,
 * and a declared one only says where the message ends, not that it is small).
 */
export async function readBodyWithin(request: Request, max: number): Promise<string | undefined> {
  const declared = Number(request.headers.get("content-length") ?? "");
  if (Number.isFinite(declared) && declared > max) return undefined;
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      // The rest is not wanted; the host drains or closes the connection, as for a refusal.
      reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  // As Request.text() decodes: UTF-8, a malformed sequence replaced rather than refused.
  return new TextDecoder().decode(bytes);
}

/** fn over every item with at most `limit` running at once (workers take items in order); results in item order. */
export async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
