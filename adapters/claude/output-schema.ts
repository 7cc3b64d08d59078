// ask()'s schema → the schema sent in output_config.format. Claude's constrained decoding
// takes a subset of JSON Schema: every object must say additionalProperties: false, and
// numeric / length / count constraints are refused. Those constraints are moved into the
// description (so the model still sees them) — the client validates the answer against
// the original schema anyway and re-asks once on a mismatch.
import type { JSONSchema } from "../../src/schema/index.js";
import { mapSubschemas } from "../../src/schema/index.js";
import { isRecord } from "./wire.js";

const MOVED = "minimum maximum exclusiveMinimum exclusiveMaximum multipleOf minLength maxLength maxItems minProperties maxProperties".split(" ");

export function toOutputSchema(schema: JSONSchema): JSONSchema {
  return transform(schema) as JSONSchema;
}

function transform(node: unknown): unknown {
  if (!isRecord(node)) return node;
  const out = mapSubschemas(node, transform);

  const moved: string[] = [];
  for (const key of MOVED) {
    if (key in out) {
      moved.push(`${key}: ${JSON.stringify(out[key])}`);
      delete out[key];
    }
  }
  // minItems 0 and 1 are accepted; larger values are not.
  if (typeof out.minItems === "number" && out.minItems > 1) {
    moved.push(`minItems: ${out.minItems}`);
    delete out.minItems;
  }
  if (moved.length) {
    const note = `{${moved.join(", ")}}`;
    out.description = typeof out.description === "string" && out.description ? `${out.description} ${note}` : note;
  }
  const isObject = out.type === "object" || (Array.isArray(out.type) && out.type.includes("object")) || isRecord(out.properties);
  if (isObject && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}
