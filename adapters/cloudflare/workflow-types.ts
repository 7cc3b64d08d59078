// The parts of Cloudflare Workflows the bridge uses, written as structural types so the package
// needs neither @cloudflare/workers-types nor `cloudflare:workers`: the `event` and `step` a
// WorkflowEntrypoint's run() gets fit them, and so does a stand-in in a test.

/** A duration as Workflows takes it: "30 seconds", "7 days", or milliseconds. */
export type WorkflowDuration = `${number} ${"second" | "minute" | "hour" | "day" | "week" | "month" | "year"}${"s" | ""}` | number;

/** A step's retries and timeout (step.do's config). */
export interface WorkflowStepConfig {
  retries?: { limit: number; delay: WorkflowDuration; backoff?: "constant" | "linear" | "exponential" };
  timeout?: WorkflowDuration;
}

/** What step.do's callback gets: `attempt` is 1 the first time, more when the step runs again. */
export interface WorkflowStepContextLike {
  attempt?: number;
}

/** The `step` of a WorkflowEntrypoint's run(). */
export interface WorkflowStepLike {
  do(name: string, config: WorkflowStepConfig, callback: (ctx: WorkflowStepContextLike) => Promise<unknown>): Promise<unknown>;
  waitForEvent(name: string, options: { type: string; timeout?: WorkflowDuration }): Promise<{ payload: unknown }>;
}

/** The `event` of a WorkflowEntrypoint's run(). */
export interface WorkflowEventLike<Params = unknown> {
  readonly payload: Params;
  readonly instanceId: string;
  /** The Workflow's name (wrangler's `workflows.name`), part of every idempotency key when present. */
  readonly workflowName?: string | undefined;
}
