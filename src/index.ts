// Public API of the core. Adapters live in their own entry points (toolloop/claude, ...).

export {
  BrowserKeyError,
  ConnectionError,
  type ErrorCode,
  FailedUnmarshalInputError,
  IdleTimeoutError,
  InvalidDecisionError,
  InvalidHistoryError,
  InvalidOptionsError,
  InvalidToolError,
  InvalidToolNameError,
  isRecoverable,
  isToolloopError,
  type Logger,
  MaxStepsError,
  MissingApiKeyError,
  memoryStore,
  ProviderError,
  StallError,
  type Store,
  StreamError,
  StructuredOutputError,
  SuspendedError,
  silentLogger,
  ToolloopError,
  type ToolloopErrorOf,
  ToolNameCollisionError,
  ToolsNotSupportedError,
  ToolTimeoutError,
  UnsupportedContentError,
  UnsupportedSchemaError,
  type ValidationIssue,
} from "./base/index.js";
export { type CallOptions, type Client, type ClientOptions, createClient } from "./client/index.js";
export type {
  AssistantMessage,
  Delta,
  FinishReason,
  Message,
  ModelRequest,
  ModelResponse,
  PendingKind,
  PendingState,
  Provider,
  ProviderData,
  ToolCall,
  ToolChoice,
  ToolMessage,
  ToolResult,
  ToolSpec,
  Usage,
  UserMessage,
} from "./conversation/index.js";
export type { Pricing } from "./cost/index.js";
export {
  type Compaction,
  type CompactionOptions,
  compaction,
  fallback,
  stallTimeout,
  type TraceContext,
  type Tracer,
  type TraceSpan,
  type TracingLayer,
  tracing,
} from "./cost/index.js";
export { type FollowedEvent, type FollowOptions, follow } from "./follow/index.js";
export type { StallTimeout } from "./http/index.js";
export {
  type DurableClient,
  type Journal,
  JournalError,
  type JournalOptions,
  openJournal,
  RecoveryLimitError,
  RunInterruptedError,
  type RunStatus,
} from "./journal/index.js";
export type { PendingCall, PrepareStep, RunResult, StepResult, StepSettings, StreamEvent, ToolOutcome } from "./loop/index.js";
export { costExceeds, hasToolCall, type StopCondition, type StopState, stepCountIs, tokensExceed } from "./loop/index.js";
export { type JSONSchema, jsonSchema, type SchemaInput, type StandardJSONSchemaLike, toJSONSchema } from "./schema/index.js";
export { type Decision, type Suspension, type SuspensionOptions, suspension } from "./suspension/index.js";
export type { InputRequest } from "./tools/index.js";
export {
  cleanJSON,
  type ExternalToolOptions,
  externalTool,
  type JsonToolOptions,
  jsonTool,
  type Tool,
  type ToolContext,
  type ToolInput,
  type ToolOptions,
  type ToolOutput,
  tool,
  toolOutput,
  WEB_SEARCH,
  webSearch,
} from "./tools/index.js";
