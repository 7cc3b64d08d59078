// The slice of the Generative Language API v1beta wire format this adapter reads and
// writes (GenerateContentRequest / GenerateContentResponse). Field names are the JSON
// (lowerCamelCase) names of the proto messages. Everything that comes back from the
// network is `unknown` until the decoder has checked it; these types describe what we
// build and what we keep.

/** One part of a Content. Only one data field is set; `thought*` ride along. */
export interface Part {
  text?: string;
  /** True on thought-summary text (thinkingConfig.includeThoughts). */
  thought?: boolean;
  /** Opaque, base64. Must go back on the exact part it came on (Gemini 3 rejects a missing one). */
  thoughtSignature?: string;
  functionCall?: FunctionCall;
  functionResponse?: FunctionResponse;
  inlineData?: Blob;
  fileData?: FileData;
  [field: string]: unknown;
}

export interface FunctionCall {
  id?: string;
  name?: string;
  args?: Record<string, unknown>;
  /** Vertex AI streamed arguments (streamFunctionCallArguments); never sent back. */
  partialArgs?: PartialArg[];
  willContinue?: boolean;
}

export interface PartialArg {
  jsonPath?: string;
  stringValue?: string;
  numberValue?: number;
  boolValue?: boolean;
  nullValue?: unknown;
  willContinue?: boolean;
}

export interface FunctionResponse {
  id?: string;
  name: string;
  response: Record<string, unknown>;
  /** Media the function returned (Gemini 3): FunctionResponsePart, inlineData only. */
  parts?: Part[];
}

export interface Blob {
  mimeType: string;
  /** base64 */
  data: string;
}

export interface FileData {
  mimeType?: string;
  fileUri: string;
}

export interface Content {
  role: "user" | "model";
  parts: Part[];
}

export interface FunctionDeclaration {
  name: string;
  description: string;
  parametersJsonSchema: unknown;
}

export type Tool = { functionDeclarations: FunctionDeclaration[] } | { googleSearch: Record<string, never> };

export interface FunctionCallingConfig {
  mode: "AUTO" | "ANY" | "NONE" | "VALIDATED";
  /** With ANY / VALIDATED: the functions the model may call. */
  allowedFunctionNames?: string[];
}

export interface ThinkingConfig {
  thinkingBudget?: number;
  includeThoughts?: boolean;
  thinkingLevel?: "MINIMAL" | "LOW" | "MEDIUM" | "HIGH";
}

export interface GenerationConfig {
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stopSequences?: string[];
  responseMimeType?: string;
  responseJsonSchema?: unknown;
  thinkingConfig?: ThinkingConfig;
}

export interface GenerateContentRequest {
  contents: Content[];
  systemInstruction?: { parts: Part[] };
  tools?: Tool[];
  toolConfig?: { functionCallingConfig: FunctionCallingConfig };
  generationConfig?: GenerationConfig;
}

export interface UsageMetadata {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  thoughtsTokenCount?: number;
  toolUsePromptTokenCount?: number;
  cachedContentTokenCount?: number;
  totalTokenCount?: number;
}

/**
 * What an assistant message keeps in providerData.value: the model's parts as received
 * (for a stream: the chunks' parts joined, see decode.ts), the ids the adapter gave calls
 * that came without one (one per functionCall part, in order), and the candidate's
 * grounding / citation metadata. Only `parts` is ever sent back.
 */
export interface GeminiProviderValue {
  parts: Part[];
  callIds: string[];
  groundingMetadata?: unknown;
  citationMetadata?: unknown;
}
