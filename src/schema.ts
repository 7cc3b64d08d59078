// Schemas in, JSON Schema out, and validation without code generation (Workers forbid
// eval / new Function, so no ajv): @cfworker/json-schema interprets the schema.
import { Validator } from "@cfworker/json-schema";
import { toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import type { ValidationIssue } from "./errors.js";

/** A JSON Schema document (draft-07 / 2020-12 subset the providers accept). */
export type JSONSchema = { [key: string]: unknown };

type AnyValibot = v.GenericSchema | v.GenericSchemaAsync;

/** A Standard Schema that can also describe itself as JSON Schema (Standard JSON Schema). */
interface StandardJSONSchemaLike {
  "~standard": {
    validate(value: unknown): unknown;
    jsonSchema?: { input(options: { target: string }): Record<string, unknown> };
  };
}

/** The schema forms tool() and ask() accept. */
export type SchemaInput = AnyValibot | StandardJSONSchemaLike;

function isValibot(s: unknown): s is AnyValibot {
  return typeof s === "object" && s !== null && (s as { kind?: unknown }).kind === "schema" && "~run" in s;
}

/** Converts a valibot (or Standard JSON Schema) schema to a plain JSON Schema without `$schema`. */
export function toJSONSchema(schema: SchemaInput): JSONSchema {
  let out: Record<string, unknown>;
  if (isValibot(schema)) {
    // "ignore": transforms and custom checks have no JSON Schema form; valibot still
    // enforces them after the JSON Schema check (see compileValidator).
    out = toJsonSchema(schema as v.GenericSchema, { errorMode: "ignore" }) as Record<string, unknown>;
  } else if (schema["~standard"]?.jsonSchema) {
    out = schema["~standard"].jsonSchema.input({ target: "draft-07" });
  } else {
    throw new TypeError("expected a valibot schema or a Standard Schema with JSON Schema support");
  }
  const { $schema: _drop, ...rest } = out;
  return rest;
}

export type ValidateResult = { ok: true; value: unknown } | { ok: false; issues: ValidationIssue[] };
export type ValidateFn = (value: unknown) => ValidateResult | Promise<ValidateResult>;

/** A validator for a JSON Schema and, when given, the typed schema it came from (for transforms). */
export function compileValidator(json: JSONSchema, typed?: SchemaInput): ValidateFn {
  const validator = new Validator(json as never, "2020-12", false);
  const checkJSON = (value: unknown): ValidationIssue[] | undefined => {
    const r = validator.validate(value);
    if (r.valid) return undefined;
    // cfworker reports every failing keyword up the tree; the leaves are the useful ones.
    const leaves = r.errors.filter((e) => !r.errors.some((o) => o !== e && o.instanceLocation.startsWith(e.instanceLocation + "/")));
    const list = (leaves.length ? leaves : r.errors).map((e) => ({
      path: e.instanceLocation.replace(/^#/, "") || "/",
      message: e.error,
    }));
    return dedupeIssues(list);
  };
  if (!typed) {
    return (value) => {
      const issues = checkJSON(value);
      return issues ? { ok: false, issues } : { ok: true, value };
    };
  }
  if (isValibot(typed)) {
    const isAsync = typed.async;
    return (value) => {
      const issues = checkJSON(value);
      if (issues) return { ok: false, issues };
      if (isAsync) return v.safeParseAsync(typed, value).then(fromValibot);
      return fromValibot(v.safeParse(typed as v.GenericSchema, value));
    };
  }
  const std = typed["~standard"];
  return async (value) => {
    const issues = checkJSON(value);
    if (issues) return { ok: false, issues };
    const r = (await std.validate(value)) as { value?: unknown; issues?: { message: string; path?: unknown[] }[] };
    if (!r.issues) return { ok: true, value: r.value };
    return {
      ok: false,
      issues: r.issues.map((i) => ({ path: "/" + (i.path ?? []).map(pathKey).join("/"), message: i.message })),
    };
  };
}

function pathKey(p: unknown): string {
  return String(typeof p === "object" && p !== null && "key" in p ? (p as { key: unknown }).key : p);
}

function fromValibot(r: v.SafeParseResult<v.GenericSchema>): ValidateResult {
  if (r.success) return { ok: true, value: r.output };
  return {
    ok: false,
    issues: r.issues.map((i) => ({
      path: "/" + (i.path ?? []).map((p) => String(p.key)).join("/"),
      message: i.message,
    })),
  };
}

function dedupeIssues(list: ValidationIssue[]): ValidationIssue[] {
  const seen = new Set<string>();
  return list.filter((i) => {
    const k = i.path + "\0" + i.message;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
