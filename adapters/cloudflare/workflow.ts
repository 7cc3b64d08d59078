// runAgentWorkflow(): an agent run as a Cloudflare Workflow. Each model call and each tool call
// is a step, so a workflow that restarts (a crash, a deploy, a wake-up after days) replays the
// kept replies and results and never runs a settled call again; a run that suspends for a
// decision waits in step.waitForEvent, which costs nothing while it waits, and goes on with the
// decisions a sendEvent brings. Everything outside the steps (this function, the loop, the
// agent's hooks) runs again on every replay and must come out the same each time.
import { checkOptions, InvalidDecisionError, InvalidOptionsError, isRecord, isToolloopError } from "../../src/base/index.js";
import { type ClientOptions, createClient } from "../../src/client/index.js";
import { addUsage, type ContentPart, emptyUsage, type Message } from "../../src/conversation/index.js";
import type { PendingCall, RunResult } from "../../src/loop/index.js";
import type { Decision } from "../../src/suspension/index.js";
import { bridge } from "./workflow-steps.js";
import type { WorkflowDuration, WorkflowEventLike, WorkflowStepConfig, WorkflowStepLike } from "./workflow-types.js";
import { MAX_STEP_BYTES, StepTooLargeError, storedBytes } from "./workflow-values.js";

/** What a run starts from; by default the workflow's own params (`event.payload`). */
export interface AgentWorkflowParams {
  /** The prompt. */
  message?: string | ContentPart[] | undefined;
  /** An earlier conversation (a saved `client.history`, or a workflow's output `history`). */
  history?: readonly Message[] | undefined;
  /** Start by resuming the calls that wait in `history` with these decisions, instead of a prompt (refused: the workflow fails, InvalidDecisionError). */
  decisions?: readonly Decision[] | undefined;
}

/** What `onSuspend` is told each time the run waits for decisions. */
export interface AgentWorkflowSuspension {
  instanceId: string;
  /** 1 for the run's first suspension, 2 for the next... */
  round: number;
  /** The calls that wait: `callId` is what a decision names. */
  pending: PendingCall[];
  /** The event type the decisions must come with: `instance.sendEvent({ type, payload: { decisions } })`. */
  eventType: string;
  /** Set when the last event's decisions were refused (nothing ran): why. */
  refused?: { message: string; callId?: string | undefined };
}

export interface AgentWorkflowOptions {
  /** The agent: createClient()'s options. The history comes from `params`. */
  agent: Omit<ClientOptions, "history">;
  /** Default: `event.payload`, read as `{ message, history, decisions }`. */
  params?: AgentWorkflowParams | undefined;
  /** The type of the event that brings decisions. Default "decisions". */
  eventType?: string | undefined;
  /** How long one wait for decisions lasts. Default "7 days"; then the workflow ends, status "suspended". */
  timeout?: WorkflowDuration | undefined;
  /** Runs once each time the run waits (in a step of its own): tell a person what waits. */
  onSuspend?: ((suspension: AgentWorkflowSuspension) => unknown) | undefined;
  /** Each model call's step. Default: 3 retries from 10 seconds, exponential; 10 minutes. */
  modelStep?: WorkflowStepConfig | undefined;
  /** Each tool call's step. Default: 1 retry after 1 second (a cut-off call: see Tool.replay); 10 minutes. */
  toolStep?: WorkflowStepConfig | undefined;
}

/**
 * The workflow's output: the run's totals over every round (steps, usage, and `toolCalls`: the
 * calls that got a result in this workflow), what still waits, and the conversation.
 */
export interface AgentWorkflowOutput extends RunResult {
  /** "suspended": a wait for decisions timed out; `pending` says what waited, `history` can be resumed. */
  status: "done" | "suspended";
  history: Message[];
}

const MODEL_STEP: WorkflowStepConfig = { retries: { limit: 3, delay: "10 seconds", backoff: "exponential" }, timeout: "10 minutes" };
const TOOL_STEP: WorkflowStepConfig = { retries: { limit: 1, delay: "1 second", backoff: "constant" }, timeout: "10 minutes" };
const DURATION = /^\d+(\.\d+)? (second|minute|hour|day|week|month|year)s?$/;

/** Runs the agent as this workflow instance; returns the workflow's output. Call it from a WorkflowEntrypoint's run(). */
export async function runAgentWorkflow(event: WorkflowEventLike, step: WorkflowStepLike, options: AgentWorkflowOptions): Promise<AgentWorkflowOutput> {
  const o = checked(event, step, options);
  const { agent, params } = o;
  const run = new AbortController();
  const b = bridge({
    step,
    scope: `${event.workflowName ?? ""}\n${event.instanceId}`,
    modelStep: o.modelStep,
    toolStep: o.toolStep,
    fail: (err) => run.abort(err),
  });
  const prepare = agent.prepareStep;
  const client = createClient({
    ...agent,
    provider: b.provider(agent.provider),
    tools: Array.isArray(agent.tools) ? b.tools(agent.tools) : agent.tools,
    prepareStep:
      prepare &&
      (async (s) => {
        const p = await prepare(s);
        return p?.tools ? { ...p, tools: b.tools(p.tools) } : p;
      }),
    history: params.history,
  });
  // A value too large to keep stops the run from inside a tool call, where an error would only be the model's to read.
  const ends = async (r: Promise<RunResult>): Promise<RunResult> => {
    try {
      return await r;
    } catch (err) {
      throw run.signal.aborted ? run.signal.reason : err;
    }
  };
  const signal = run.signal;
  const rounds: RunResult[] = [await ends(params.decisions ? client.resume(params.decisions, { signal }) : client.run(params.message, { signal }))];
  for (let round = 1; rounds.at(-1)!.status === "suspended"; round++) {
    let refused: AgentWorkflowSuspension["refused"];
    for (let attempt = 1; ; attempt++) {
      const at = `${round}.${attempt}`;
      const pending = rounds.at(-1)!.pending;
      if (o.onSuspend) {
        const info: AgentWorkflowSuspension = { instanceId: event.instanceId, round, pending, eventType: o.eventType, ...(refused && { refused }) };
        await step.do(`suspended ${at}`, {}, async () => {
          await o.onSuspend!(info);
          return null;
        });
      }
      const payload = await waited(step, `decisions ${at}`, o.eventType, o.timeout);
      if (payload === TIMED_OUT) return output(rounds, params.history ?? [], client.history, "suspended");
      try {
        rounds.push(await ends(client.resume(decisionsIn(payload), { signal })));
        break;
      } catch (err) {
        // Refused as a batch: nothing ran and the history is as it was, so the run waits again.
        if (!isToolloopError(err, "invalid_decision")) throw err;
        refused = { message: err.message, callId: err.callId };
      }
    }
  }
  return output(rounds, params.history ?? [], client.history, "done");
}

const TIMED_OUT = Symbol("timed out");

/** The payload of the next event of `type`, or TIMED_OUT when none came in time. */
async function waited(step: WorkflowStepLike, name: string, type: string, timeout: WorkflowDuration): Promise<unknown> {
  try {
    const event = await step.waitForEvent(name, { type, timeout });
    const { payload } = event;
    // The event comes over RPC: disposing it lets the engine's side go (it is plain data to us).
    const dispose = (Symbol as { dispose?: symbol }).dispose;
    if (dispose) (event as unknown as Record<symbol, (() => void) | undefined>)[dispose]?.();
    return payload;
  } catch (err) {
    // The engine's WorkflowTimeoutError; it reaches the workflow's code as a plain Error whose
    // name, or message, says so. Anything else (a pause, the engine's own failure) is not ours.
    const { name: n, message } = (err ?? {}) as { name?: unknown; message?: unknown };
    if (/Timeout/.test(String(n)) || /WorkflowTimeoutError|timed out/i.test(String(message))) return TIMED_OUT;
    throw err;
  }
}

/** The decisions an event brings: its payload is `{ decisions: [...] }`. */
function decisionsIn(payload: unknown): Decision[] {
  const decisions = isRecord(payload) ? payload.decisions : undefined;
  if (!Array.isArray(decisions)) {
    throw new InvalidDecisionError(
      `the event's payload must be { decisions: [...] } (got ${isRecord(payload) ? `keys ${Object.keys(payload).join(", ") || "none"}` : typeof payload})`,
    );
  }
  return decisions as Decision[];
}

/** Calls with a result in `history` (a waiting call has none yet). */
function settledCalls(history: readonly Message[]): number {
  return history.reduce((n, m) => n + (m.role === "tool" ? m.results.filter((r) => !r.pending).length : 0), 0);
}

function output(rounds: readonly RunResult[], before: readonly Message[], history: Message[], status: AgentWorkflowOutput["status"]): AgentWorkflowOutput {
  const last = rounds.at(-1)!;
  const out: AgentWorkflowOutput = {
    status,
    pending: last.pending,
    text: last.text,
    steps: rounds.reduce((n, r) => n + r.steps, 0),
    usage: rounds.reduce((u, r) => addUsage(u, r.usage), emptyUsage()),
    toolCalls: settledCalls(history) - settledCalls(before),
    toolFailures: rounds.reduce((n, r) => n + r.toolFailures, 0),
    history,
  };
  // The engine keeps the output as it keeps a step's value.
  const bytes = storedBytes(JSON.stringify(out));
  if (bytes > MAX_STEP_BYTES) throw new StepTooLargeError("the workflow's output (with its history)", bytes, MAX_STEP_BYTES);
  return out;
}

interface Checked {
  agent: Omit<ClientOptions, "history">;
  params: AgentWorkflowParams;
  eventType: string;
  timeout: WorkflowDuration;
  onSuspend: AgentWorkflowOptions["onSuspend"];
  modelStep: WorkflowStepConfig;
  toolStep: WorkflowStepConfig;
}

/** The options with their defaults, or InvalidOptionsError saying what to write. */
function checked(event: WorkflowEventLike, step: WorkflowStepLike, options: AgentWorkflowOptions): Checked {
  const where = "runAgentWorkflow(event, step, options)";
  if (!isRecord(event) || typeof event.instanceId !== "string" || event.instanceId === "") {
    throw new InvalidOptionsError(`${where}: \`event\` is the first argument of your WorkflowEntrypoint's run(event, step)`);
  }
  // The real `step` is an RPC stub (a function-like proxy), not a plain object: its methods are what count.
  if (step === null || (typeof step !== "object" && typeof step !== "function") || typeof step.do !== "function" || typeof step.waitForEvent !== "function") {
    throw new InvalidOptionsError(`${where}: \`step\` is the second argument of your WorkflowEntrypoint's run(event, step)`);
  }
  if (typeof options !== "object" || options === null) throw new InvalidOptionsError(`${where} takes options: { agent: { provider, tools, ... } }`);
  checkOptions(where, options, "agent params eventType timeout onSuspend modelStep toolStep");
  const { agent } = options;
  if (!isRecord(agent)) throw new InvalidOptionsError(`${where}: \`agent\` is createClient()'s options: { provider, tools, suspension, ... }`);
  if ("history" in agent) throw new InvalidOptionsError(`${where}: pass an earlier conversation as params.history, not agent.history`);
  if ("journal" in agent) throw new InvalidOptionsError(`${where}: a workflow keeps its own record (its steps); leave out agent.journal`);
  const raw = options.params ?? event.payload;
  if (!isRecord(raw)) throw new InvalidOptionsError(`${where}: the run's params (options.params, or event.payload) must be an object: { message }`);
  if (options.params) checkOptions(`${where} params`, options.params, "message history decisions");
  const params: AgentWorkflowParams = { message: raw.message as AgentWorkflowParams["message"] };
  if (raw.history !== undefined) params.history = raw.history as Message[];
  if (raw.decisions !== undefined) params.decisions = raw.decisions as Decision[];
  if (params.decisions === undefined && params.message === undefined) {
    throw new InvalidOptionsError(
      `${where}: the run needs a prompt: params.message (by default event.payload.message), or params.decisions to resume params.history`,
    );
  }
  if (params.decisions !== undefined && params.message !== undefined) {
    throw new InvalidOptionsError(`${where}: params.message and params.decisions do not go together: a run starts from a prompt or resumes with decisions`);
  }
  const eventType = options.eventType ?? "decisions";
  if (typeof eventType !== "string" || !/^[\w-]{1,100}$/.test(eventType)) {
    throw new InvalidOptionsError(`${where}: eventType must be 1-100 letters, digits, "_" or "-" (got ${JSON.stringify(eventType)})`);
  }
  const timeout = options.timeout ?? "7 days";
  if (!(typeof timeout === "number" ? timeout > 0 && Number.isFinite(timeout) : typeof timeout === "string" && DURATION.test(timeout))) {
    throw new InvalidOptionsError(`${where}: timeout is a duration such as "7 days" or "12 hours", or milliseconds (got ${JSON.stringify(timeout)})`);
  }
  if (options.onSuspend !== undefined && typeof options.onSuspend !== "function") throw new InvalidOptionsError(`${where}: onSuspend must be a function`);
  return {
    agent,
    params,
    eventType,
    timeout,
    onSuspend: options.onSuspend,
    modelStep: stepConfig(`${where}: modelStep`, options.modelStep, MODEL_STEP),
    toolStep: stepConfig(`${where}: toolStep`, options.toolStep, TOOL_STEP),
  };
}

/** A step config over its default (retries merged key by key). */
function stepConfig(what: string, given: WorkflowStepConfig | undefined, base: WorkflowStepConfig): WorkflowStepConfig {
  if (given === undefined) return base;
  if (typeof given !== "object" || given === null) throw new InvalidOptionsError(`${what} is a step config: { retries: { limit, delay, backoff }, timeout }`);
  checkOptions(what, given, "retries timeout");
  const { retries } = given;
  if (retries !== undefined) {
    if (typeof retries !== "object" || retries === null) throw new InvalidOptionsError(`${what}.retries is { limit, delay, backoff }`);
    checkOptions(`${what}.retries`, retries, "limit delay backoff");
    if (retries.limit !== undefined && !(Number.isInteger(retries.limit) && retries.limit >= 0)) {
      throw new InvalidOptionsError(`${what}.retries.limit must be a whole number, 0 or more`);
    }
  }
  return { ...base, ...given, retries: { ...base.retries!, ...given.retries } };
}
