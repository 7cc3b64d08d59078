// ask() on Claude, two ways. "native" (the default) sends the schema as
// output_config.format, Claude's constrained JSON output (GA, no beta header; Claude 4.5
// models and later). "tool" is for models and gateways without it: the schema becomes
// the input schema of one extra tool the model is steered to call, and that call is
// turned back into the answer text here.
import type { ModelRequest } from "../../src/conversation/index.js";
import type { JSONSchema } from "../../src/schema/index.js";
import { toOutputSchema } from "./output-schema.js";
import { type Block, isRecord, type Turn } from "./wire.js";

export type StructuredOutputMode = "native" | "tool";

/** What the request needs and what decoding must undo for a tool-mode answer. */
export interface OutputTool {
  name: string;
  /** The schema was not an object, so it travels as { value: schema }. */
  wrapped: boolean;
  spec: { name: string; description: string; input_schema: JSONSchema };
}

export function nativeOutputConfig(schema: JSONSchema): { format: { type: "json_schema"; schema: JSONSchema } } {
  return { format: { type: "json_schema", schema: toOutputSchema(schema) } };
}

export function outputTool(request: ModelRequest): OutputTool | undefined {
  const rs = request.responseSchema;
  if (!rs) return undefined;
  const taken = new Set(request.tools.map((t) => t.name));
  let name = "structured_output";
  while (taken.has(name)) name = `_${name}`;
  const wrapped = rs.schema.type !== "object";
  const input_schema: JSONSchema = wrapped ? { type: "object", properties: { value: rs.schema }, required: ["value"], additionalProperties: false } : rs.schema;
  return {
    name,
    wrapped,
    spec: { name, description: "Give the final answer by calling this tool with it. Call it once, last.", input_schema },
  };
}

/**
 * Turns the output tool's call into the answer. With other tool calls in the same turn
 * the answer is premature (the model has not seen those results): it is dropped and the
 * model answers again after the tools ran. Returns the answer text, if there is one.
 */
export function takeOutputCall(turn: Turn, tool: OutputTool): { turn: Turn; answer: string | undefined } {
  const at = turn.content.findIndex((b) => b.type === "tool_use" && b.name === tool.name);
  if (at < 0) return { turn, answer: undefined };
  const others = turn.content.some((b, i) => i !== at && b.type === "tool_use");
  const block = turn.content[at]!;
  const input = isRecord(block.input) ? block.input : {};
  const raw = turn.rawArguments[at];
  const answer = tool.wrapped ? JSON.stringify(input.value ?? null) : (raw ?? JSON.stringify(input));
  const content: Block[] = [...turn.content];
  const rawArguments = [...turn.rawArguments];
  if (others) {
    content.splice(at, 1);
    rawArguments.splice(at, 1);
    return { turn: { ...turn, content, rawArguments }, answer: undefined };
  }
  // Kept in history as the text it stands for, so a replay shows the model its answer.
  content[at] = { type: "text", text: answer };
  rawArguments[at] = undefined;
  const stopReason = turn.stopReason === "tool_use" ? "end_turn" : turn.stopReason;
  return { turn: { ...turn, content, rawArguments, stopReason }, answer };
}

/**
 * tool_choice for tool mode, where the answer itself is a tool call: force the output tool
 * when nothing else may ("none") or can be called; "auto" and "required" become "any" (a
 * real tool or the answer, as the model sees fit: both are tool calls); a named tool
 * stays forced (the answer comes on a later step).
 */
export function outputToolChoice(tool: OutputTool, request: ModelRequest, thinking: boolean): Record<string, unknown> {
  // Extended thinking refuses forced tool use ("any" / "tool").
  if (thinking) return { type: "auto" };
  const choice = request.toolChoice;
  if (typeof choice === "object") return { type: "tool", name: choice.name };
  const others = request.tools.length > 0 || request.webSearch;
  if (choice === "none" || !others) return { type: "tool", name: tool.name };
  return { type: "any" };
}
