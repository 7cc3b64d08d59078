// Public API of the core. Adapters live in their own entry points (toolloop/claude, ...).
export { createClient, type Client, type ClientOptions, type CallOptions } from "./client.js";
export { fallback } from "./fallback.js";
export type { Pricing } from "./pricing.js";
export { compaction, type Compaction, type CompactionOptions } from "./compaction.js";
export { tracing, type TracingLayer, type Tracer, type TraceSpan, type TraceContext } from "./trace.js";
export { tool, jsonTool, toolOutput, type Tool, type ToolContext, type ToolOptions, type JsonToolOptions, type ToolInput, type ToolOutput } from "./tool.js";
export { webSearch, WEB_SEARCH } from "./registry.js";
export { cleanJSON } from "./clean-json.js";
export { toJSONSchema, type JSONSchema, type SchemaInput, type StandardJSONSchemaLike } from "./schema.js";
export { jsonSchema } from "./json-schema.js";
export { silentLogger, type Logger } from "./log.js";
export type { StreamEvent, RunResult, PendingCall, StepResult, StepSettings, PrepareStep } from "./loop.js";
export { externalTool, type ExternalToolOptions } from "./external-tool.js";
export { stepCountIs, hasToolCall, tokensExceed, costExceeds, type StopCondition, type StopState } from "./stop.js";
export { suspension, type Decision, type Suspension, type SuspensionOptions } from "./suspension.js";
export type { InputRequest } from "./tool.js";
export type { ToolOutcome } from "./execute.js";
export type {
  Message,
  UserMessage,
  AssistantMessage,
  ToolMessage,
  ToolCall,
  ToolResult,
  ProviderData,
  PendingState,
  PendingKind,
  Usage,
} from "./messages.js";
export type { Provider, ModelRequest, ModelResponse, ToolSpec, FinishReason, Delta, ToolChoice } from "./provider.js";
export {
  ToolloopError,
  isToolloopError,
  FailedUnmarshalInputError,
  ToolNameCollisionError,
  InvalidToolNameError,
  InvalidToolError,
  UnsupportedSchemaError,
  ToolsNotSupportedError,
  MaxStepsError,
  ProviderError,
  ConnectionError,
  StreamError,
  IdleTimeoutError,
  ToolTimeoutError,
  StructuredOutputError,
  InvalidHistoryError,
  BrowserKeyError,
  SuspendedError,
  InvalidDecisionError,
  UnsupportedContentError,
  MissingApiKeyError,
  InvalidOptionsError,
  type ErrorCode,
  type ToolloopErrorOf,
  type ValidationIssue,
} from "./errors.js";
