// toolloop/cloudflare: durable agent runs on Cloudflare's engine. Workers-only APIs live here
// and nowhere else in the package.
export { type AgentStatus, type DurableAgent, type DurableAgentOptions, durableAgent } from "./agent.js";
export { type EventLog, eventLog, type Following, type LoggedEvent } from "./event-log.js";
export { followResponse, resumePoint } from "./sse.js";
export { type DurableObjectStoreOptions, durableObjectStore } from "./store.js";
export type { DurableObjectStateLike, DurableObjectStorageLike, SqlRow, SqlStorageLike } from "./types.js";
export {
  type AgentWorkflowOptions,
  type AgentWorkflowOutput,
  type AgentWorkflowParams,
  type AgentWorkflowSuspension,
  runAgentWorkflow,
} from "./workflow.js";
export { INTERRUPTED as WORKFLOW_INTERRUPTED } from "./workflow-steps.js";
export type { WorkflowDuration, WorkflowEventLike, WorkflowStepConfig, WorkflowStepContextLike, WorkflowStepLike } from "./workflow-types.js";
export { MAX_STEP_BYTES, StepTooLargeError } from "./workflow-values.js";
