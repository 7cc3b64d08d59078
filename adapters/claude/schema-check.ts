// Claude takes a tool's JSON Schema as it is (draft 2020-12), with one rule of its own:
// `input_schema` must describe an object. Only that is rejected here, when setTools() runs,
// instead of as a 400 at the first request.
import { UnsupportedSchemaError } from "../../src/base/index.js";
import type { ToolSpec } from "../../src/conversation/index.js";
import { isRecord } from "./wire.js";

export function checkTools(tools: readonly ToolSpec[]): void {
  for (const t of tools) {
    const s: unknown = t.parameters;
    const fail = (path: string, reason: string): never => {
      throw new UnsupportedSchemaError("claude", t.name, path, reason);
    };
    if (!isRecord(s)) fail("", "the input schema must be a JSON object");
    const schema = s as Record<string, unknown>;
    if (schema.type !== "object") {
      fail("/type", `the input schema must have "type": "object" at the top level (got ${JSON.stringify(schema.type) ?? "none"})`);
    }
    if (schema.properties !== undefined && schema.properties !== null && !isRecord(schema.properties)) {
      fail("/properties", '"properties" must be an object');
    }
    if (schema.required !== undefined && schema.required !== null && !Array.isArray(schema.required)) {
      fail("/required", '"required" must be an array of property names');
    }
  }
}
