// SEP-2243 (2026-07-28) custom headers: a tool's inputSchema may mark a
// top-level property with "x-mcp-header": "<Name>", and every tools/call then mirrors that
// argument into an `Mcp-Param-<Name>` header, so gateways can route on it without parsing
// the body. A tool whose markings are malformed (empty or non-token names, duplicates that
// differ only in case, a mark on anything but a string, integer or boolean) must not be
// called at all: paramHeaders() says so and mcpTools leaves that tool out, keeping the rest.
// mcpHandler reads the same markings of its own tools to check the headers it is sent
// (envelope.ts checkParamHeaders).
import { isRecord } from "../../../src/base/index.js";
import { encodeHeaderValue } from "./envelope.js";

/** RFC 9110 token characters: what a header field name may contain. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const MIRRORED_TYPES = new Set(["string", "integer", "boolean"]);

/** property name → header name, or a reason the tool is unusable. */
export type ParamHeaders = { ok: true; map: Map<string, string> } | { ok: false; reason: string };

export function paramHeaders(schema: Record<string, unknown>): ParamHeaders {
  const map = new Map<string, string>();
  const seen = new Set<string>();
  const props = isRecord(schema.properties) ? schema.properties : {};
  for (const [prop, def] of Object.entries(props)) {
    if (!isRecord(def) || !("x-mcp-header" in def)) continue;
    const name = def["x-mcp-header"];
    if (typeof name !== "string" || !TOKEN.test(name))
      return { ok: false, reason: `property ${prop}: x-mcp-header ${JSON.stringify(name)} is not a header name` };
    if (typeof def.type !== "string" || !MIRRORED_TYPES.has(def.type)) {
      return { ok: false, reason: `property ${prop}: x-mcp-header is only for string, integer or boolean properties (it is ${JSON.stringify(def.type)})` };
    }
    const folded = name.toLowerCase();
    if (seen.has(folded)) return { ok: false, reason: `property ${prop}: x-mcp-header ${name} is used twice` };
    seen.add(folded);
    map.set(prop, name);
  }
  return { ok: true, map };
}

/** The Mcp-Param-* headers for one call's arguments; a null or absent argument sends none. */
export function headersFor(map: Map<string, string>, args: unknown): Record<string, string> | undefined {
  if (map.size === 0 || !isRecord(args)) return undefined;
  const out: Record<string, string> = {};
  for (const [prop, name] of map) {
    const v = args[prop];
    if (v === null || v === undefined) continue;
    if (typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean") continue;
    out[`mcp-param-${name.toLowerCase()}`] = encodeHeaderValue(String(v));
  }
  return out;
}
