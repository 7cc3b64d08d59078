// ModelRequest → the JSON body of POST /v1/messages.
import type { ModelRequest } from "../../src/provider.js";
import { toWireMessages } from "./messages.js";
import { nativeOutputConfig, outputToolChoice, type OutputTool, type StructuredOutputMode } from "./structured-output.js";
import type { WireMessage } from "./wire.js";

export interface BodySettings {
  model: string;
  maxTokens: number;
  temperature: number | undefined;
  topP: number | undefined;
  topK: number | undefined;
  stopSequences: string[] | undefined;
  thinking: { budgetTokens: number } | undefined;
  structuredOutput: StructuredOutputMode;
}

export interface MessagesBody {
  model: string;
  max_tokens: number;
  messages: WireMessage[];
  system?: string;
  tools?: Record<string, unknown>[];
  tool_choice?: Record<string, unknown>;
  thinking?: { type: "enabled"; budget_tokens: number };
  temperature?: number;
  top_p?: number;
  top_k?: number;
  stop_sequences?: string[];
  output_config?: Record<string, unknown>;
  stream?: true;
}

export function encodeRequest(request: ModelRequest, s: BodySettings, output: OutputTool | undefined): MessagesBody {
  const body: MessagesBody = { model: s.model, max_tokens: s.maxTokens, messages: toWireMessages(request.messages) };
  if (request.system) body.system = request.system;

  const tools: Record<string, unknown>[] = request.tools.map((t) => ({
    name: t.name,
    ...(t.description ? { description: t.description } : {}),
    input_schema: t.parameters,
  }));
  if (request.webSearch) tools.push({ type: "web_search_20250305", name: "web_search" });
  if (output) tools.push(output.spec);
  if (tools.length) {
    body.tools = tools;
    if (output) body.tool_choice = outputToolChoice(output, request, s.thinking !== undefined);
    else body.tool_choice = request.toolChoice === "none" ? { type: "none" } : { type: "auto" };
  }

  if (s.thinking) body.thinking = { type: "enabled", budget_tokens: s.thinking.budgetTokens };
  if (s.temperature !== undefined) body.temperature = s.temperature;
  if (s.topP !== undefined) body.top_p = s.topP;
  if (s.topK !== undefined) body.top_k = s.topK;
  if (s.stopSequences?.length) body.stop_sequences = [...s.stopSequences];
  if (request.responseSchema && !output) body.output_config = nativeOutputConfig(request.responseSchema.schema);
  if (request.onDelta) body.stream = true;
  return body;
}
