// Public API of the core. Adapters live in their own entry points (toolloop/claude, ...).
export { createClient, type Client, type ClientOptions, type CallOptions } from "./client/index.js";
export { fallback } from "./cost/index.js";
export type { Pricing } from "./cost/index.js";
export { compaction, type Compaction, type CompactionOptions } from "./cost/index.js";
export { tracing, type TracingLayer, type Tracer, type TraceSpan, type TraceContext } from "./cost/index.js";
export { tool, jsonTool, toolOutput, type Tool, type ToolContext, type ToolOptions, type JsonToolOptions, type ToolInput, type ToolOutput } from "./tools/index.js";
export { webSearch, WEB_SEARCH } from "./tools/index.js";
export { cleanJSON } from "./tools/index.js";
export { toJSONSchema, type JSONSchema, type SchemaInput, type StandardJSONSchemaLike } from "./schema/index.js";
export { jsonSchema } from "./schema/index.js";
export { silentLogger, type Logger } from "./base/index.js";
export type { StreamEvent, RunResult, PendingCall, StepResult, StepSettings, PrepareStep } from "./loop/index.js";
export { externalTool, type ExternalToolOptions } from "./tools/index.js";
export { stepCountIs, hasToolCall, tokensExceed, costExceeds, type StopCondition, type StopState } from "./loop/index.js";
export { suspension, type Decision, type Suspension, type SuspensionOptions } from "./suspension/index.js";
export type { InputRequest } from "./tools/index.js";
export type { ToolOutcome } from "./loop/index.js";
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
} from "./conversation/index.js";
export type { Provider, ModelRequest, ModelResponse, ToolSpec, FinishReason, Delta, ToolChoice } from "./conversation/index.js";
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
} from "./base/index.js";
