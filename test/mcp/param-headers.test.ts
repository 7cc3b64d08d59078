import { describe, expect, it } from "vitest";
import { headersFor, paramHeaders } from "../../adapters/mcp/param-headers.js";

describe("SEP-2243 x-mcp-header (client side)", () => {
  const schema = (props: Record<string, unknown>) => ({ type: "object", properties: props });

  it("maps marked string/integer/boolean properties and mirrors their values, base64 when unsafe, none for null", () => {
    const r = paramHeaders(schema({ region: { type: "string", "x-mcp-header": "Region" }, n: { type: "integer", "x-mcp-header": "N" }, v: { type: "boolean", "x-mcp-header": "Verbose" }, q: { type: "string" } }));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(headersFor(r.map, { region: " padded", n: 42, v: null, q: "x" })).toEqual({ "mcp-param-region": `=?base64?${btoa(" padded")}?=`, "mcp-param-n": "42" });
    expect(headersFor(r.map, { region: "us-west1", v: false })).toEqual({ "mcp-param-region": "us-west1", "mcp-param-verbose": "false" });
  });

  it("refuses malformed markings: empty, non-token, case-only duplicates, non-primitive or number types", () => {
    for (const props of [
      { a: { type: "string", "x-mcp-header": "" } },
      { a: { type: "string", "x-mcp-header": "My Region" } },
      { a: { type: "string", "x-mcp-header": "Région" } },
      { a: { type: "string", "x-mcp-header": "X" }, b: { type: "string", "x-mcp-header": "x" } },
      { a: { type: "object", "x-mcp-header": "A" } },
      { a: { type: "number", "x-mcp-header": "A" } },
    ]) expect(paramHeaders(schema(props)).ok, JSON.stringify(props)).toBe(false);
  });
});
