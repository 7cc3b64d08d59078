// A validator for request bodies built from Google's OpenAPI 3.0 export of v1beta
// (components.schemas, referenced as #/components/schemas/X), made as strict as the
// real API's proto-JSON parser:
// - every object schema with `properties` gets additionalProperties: false (an unknown
//   field is a 400 "Unknown name ... Cannot find field");
// - `format: byte` gets a base64 pattern (cfworker does not know the format);
// - `model` is dropped from GenerateContentRequest.required: the REST method binds it
//   from the URL path (models/{model}:generateContent), clients do not send it.
import { Validator } from "@cfworker/json-schema";
import { openapi } from "./recordings.js";

let validator: Validator | undefined;

export function validateRequestBody(body: unknown): string[] {
  validator ??= build();
  const r = validator.validate(body);
  return r.valid ? [] : r.errors.map((e) => `${e.instanceLocation}: ${e.error}`);
}

function build(): Validator {
  const schemas = structuredClone(openapi().components.schemas);
  const tighten = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(tighten);
    if (typeof node !== "object" || node === null) return;
    const s = node as Record<string, unknown>;
    if (typeof s.properties === "object" && s.properties !== null && s.additionalProperties === undefined) s.additionalProperties = false;
    if (s.format === "byte") s.pattern = "^[A-Za-z0-9+/_-]*={0,2}$";
    for (const [key, value] of Object.entries(s)) {
      // a `properties` map holds schemas; the map itself is not one
      if (key === "properties" && typeof value === "object" && value !== null) Object.values(value).forEach(tighten);
      else tighten(value);
    }
  };
  tighten(schemas);
  const request = schemas.GenerateContentRequest!;
  request.required = (request.required as string[]).filter((k) => k !== "model");
  return new Validator({ $ref: "#/components/schemas/GenerateContentRequest", components: { schemas } } as never, "2020-12", false);
}
