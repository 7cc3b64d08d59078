// Answering an MCP server's questions during a call: the embedded input requests of a 2026-07-28
// input_required result and a 2025-era elicitation/create, asked through ctx.requestInput (so
// inside a toolloop client a call that asks becomes a pending call of the run's suspension).
import { isRecord } from "../../../src/base/index.js";
import { jsonSchema } from "../../../src/schema/index.js";
import type { ToolContext } from "../../../src/tools/index.js";

/** One embedded input request of an input_required result, answered. */
export async function answerInputRequest(ctx: ToolContext, tool: string, req: unknown): Promise<Record<string, unknown>> {
  const method = isRecord(req) ? req.method : undefined;
  if (method === "elicitation/create") return elicit(ctx, tool, (req as Record<string, unknown>).params);
  // We have no roots to share; sampling (the server borrowing our model) is not offered.
  if (method === "roots/list") return { roots: [] };
  throw new Error(`the MCP tool ${tool} asks for ${String(method)}, which toolloop does not offer`);
}

/** An elicitation (form mode) asked through ctx.requestInput; the answer as an elicitation result. */
export async function elicit(ctx: ToolContext, tool: string, params: unknown): Promise<Record<string, unknown>> {
  const p = isRecord(params) ? params : {};
  const message = typeof p.message === "string" ? p.message : `The tool ${tool} needs input.`;
  if (p.mode === "url") throw new Error(`the MCP tool ${tool} asks the user to open a URL (${String(p.url)}), which toolloop does not offer`);
  if (!ctx.requestInput) {
    throw new Error(
      `the MCP tool ${tool} asks for input ("${message}"); answering needs a client made with createClient({ suspension: suspension({ secret }) }) (ctx.requestInput)`,
    );
  }
  const schema = isRecord(p.requestedSchema) ? p.requestedSchema : undefined;
  // As a Standard Schema (jsonSchema()), so a client with suspension() checks the person's answer
  // against the server's form on resume, as it does for a valibot schema; a raw JSON Schema would
  // only be shown. mcpTools already carries the JSON Schema validator, for the listed tools.
  const answer = await ctx.requestInput(schema ? { message, schema: jsonSchema(answerForm(schema)) } : { message });
  return { action: "accept", content: withDefaults(isRecord(answer) ? { ...answer } : {}, schema) };
}

/** The form as an answer must meet it: a field with a default may be left out (withDefaults fills it). */
function answerForm(schema: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(schema.required)) return schema;
  return { ...schema, required: schema.required.filter((k) => defaultOf(schema, String(k)) === undefined) };
}

/** SEP-1034: a field the answer leaves out takes the default its schema names. */
function withDefaults(content: Record<string, unknown>, schema: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!schema || !isRecord(schema.properties)) return content;
  for (const key of Object.keys(schema.properties)) {
    const value = defaultOf(schema, key);
    if (!(key in content) && value !== undefined) content[key] = value;
  }
  return content;
}

/** The default a form's field names, if any. */
function defaultOf(schema: Record<string, unknown>, key: string): unknown {
  const prop = isRecord(schema.properties) ? schema.properties[key] : undefined;
  return isRecord(prop) ? prop.default : undefined;
}
