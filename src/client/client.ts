// createClient(): the conversation a user holds. It owns the history and the tool set;
// each chat / ask / stream call runs the loop over them. Calls on one client run one at
// a time, in the order they were made, so the history is never written by two runs.
import {
  abortReason,
  checkOptions,
  formatIssues,
  InvalidOptionsError,
  InvalidToolError,
  isToolloopError,
  type Logger,
  numberOption,
  StructuredOutputError,
  silentLogger,
  ToolsNotSupportedError,
  type ValidationIssue,
} from "../base/index.js";
import type { ContentPart, Message, Provider, ToolChoice } from "../conversation/index.js";
import { checkMessage, checkPrompt, loadHistory, NEEDS_SUSPENSION } from "../conversation/index.js";
import type { Compaction, TracingLayer } from "../cost/index.js";
import { type Pricing, priced } from "../cost/index.js";
import { type LoopConfig, type PendingCall, type RunOptions, type RunResult, runLoop, type StepOptions, type StreamEvent } from "../loop/index.js";
import { compileValidator, isSchemaInput, type SchemaInput, toJSONSchema } from "../schema/index.js";
import type { Decision, Suspension } from "../suspension/index.js";
import type { Infer, Tool } from "../tools/index.js";
import { createRegistry, parseJSONArguments, type Registry } from "../tools/index.js";
import { abortWhileQueued, positiveInt } from "./checks.js";
import { streamRun } from "./stream.js";

export interface ClientOptions extends StepOptions {
  provider: Provider;
  systemPrompt?: string | undefined;
  /** Model calls per chat/ask/stream before MaxStepsError. Default 20. */
  maxSteps?: number | undefined;
  /** Run a step's tool calls concurrently. Default false. */
  parallelTools?: boolean | undefined;
  /** Bound on concurrent tool calls when parallelTools is on. Default 5. */
  maxParallelTools?: number | undefined;
  /** Default: silent. `console` works. */
  logger?: Logger | undefined;
  tools?: readonly Tool[] | undefined;
  /** A saved `client.history` to resume from. */
  history?: readonly Message[] | undefined;
  /** Overrides the provider's retry count for this client's requests. Default: the provider's (2). */
  maxRetries?: number | undefined;
  /** ms with no data on a response stream before it fails. Default: the provider's (none). */
  idleTimeout?: number | undefined;
  /** Characters of one tool result kept before truncation. Default 100,000. */
  maxToolOutput?: number | undefined;
  /** On reaching maxSteps, make one last call with tools disabled instead of throwing. Default false. */
  finalAnswerOnMaxSteps?: boolean | undefined;
  /** USD per million tokens: every usage (per step and in total) gets `cost`. */
  pricing?: Pricing | undefined;
  /** Summarise older turns with the same provider when a request's input would pass `maxInputTokens`. */
  compaction?: Compaction | undefined;
  /** OpenTelemetry GenAI spans: `tracing(tracer)` around any tracer with OpenTelemetry's startSpan shape. */
  tracer?: TracingLayer | undefined;
  /**
   * `suspension({ secret })` (or `{ unsigned: true }`): lets runs wait for approvals (needsApproval), answers
   * (ctx.requestInput) and external tools, and resume with decisions. Without it a client ships
   * none of that code, and tools that would wait are refused.
   */
  suspension?: Suspension | undefined;
  /** What the model may do with tools on each request. Default "auto". */
  toolChoice?: ToolChoice | undefined;
}

export interface CallOptions {
  signal?: AbortSignal | undefined;
  /** This call's step limit (default: the client's). */
  maxSteps?: number | undefined;
  /** This call's tool choice (default: the client's, "auto"). */
  toolChoice?: ToolChoice | undefined;
  /** This call's system prompt instead of the client's. */
  system?: string | undefined;
  /** Answers to the pending calls (client.pending); the run resumes with them. */
  decisions?: readonly Decision[] | undefined;
}

export interface Client {
  /** Replaces the whole tool set (never merges). Throws synchronously on a bad set. */
  setTools(tools: readonly Tool[]): void;
  /** Appends a message to the history without calling the model. */
  add(message: Message): void;
  /** Sends `prompt` (or, without one, continues the history) and resolves to the final text. Rejects with SuspendedError when calls wait for decisions. */
  chat(prompt?: string | ContentPart[], options?: CallOptions): Promise<string>;
  /** Like chat, but the answer must be JSON matching `schema`; resolves to the validated value. */
  ask<S extends SchemaInput>(prompt: string | ContentPart[] | undefined, schema: S, options?: CallOptions): Promise<Infer<S>>;
  /** Like chat, as an async iterable of events ending with `finish` (after `suspended` when calls wait). Breaking out aborts the run. */
  stream(prompt?: string | ContentPart[], options?: CallOptions): AsyncIterable<StreamEvent>;
  /** Like chat, resolving the whole RunResult: status "done", or "suspended" with `pending`. */
  run(prompt?: string | ContentPart[], options?: CallOptions): Promise<RunResult>;
  /** run(undefined, { ...options, decisions }). */
  resume(decisions: readonly Decision[], options?: CallOptions): Promise<RunResult>;
  /** The calls waiting for a decision (empty unless the last run suspended). */
  readonly pending: PendingCall[];
  /** A JSON-serializable copy of the conversation. */
  readonly history: Message[];
  /** The result of the last completed run (steps, usage, tool counts). */
  readonly lastRun: RunResult | undefined;
}

const DEFAULT_MAX_TOOL_OUTPUT = 100_000;

export function createClient(options: ClientOptions): Client {
  if (typeof options !== "object" || options === null) {
    throw new InvalidOptionsError("createClient() takes an options object with a provider, e.g. createClient({ provider: claude({ apiKey, model }) })");
  }
  checkOptions(
    "createClient()",
    options,
    "provider systemPrompt maxSteps parallelTools maxParallelTools logger tools history maxRetries idleTimeout maxToolOutput finalAnswerOnMaxSteps pricing compaction tracer suspension toolChoice prepareStep onStepFinish stopWhen",
  );
  const { provider } = options;
  if (!provider || typeof provider.generate !== "function") {
    throw new InvalidOptionsError(
      "createClient() needs `provider`: claude(), openai(), openaiChat(), openaiCompatible(), gemini(), claudeLocal() or scriptedProvider()",
    );
  }
  // Cost features are layers around the provider; pricing innermost, so spans and totals see `cost`.
  let model = options.pricing ? priced(provider, options.pricing) : provider;
  // Both come as values built by their helpers (tracing(), compaction()), so a client without
  // them ships none of their code; a plain object here is the 0.2 draft's form, refused clearly.
  // (A `suspension` that is not suspension()'s value gives none, and the tools that would
  // wait are then refused by name, pointing at suspension().)
  if ((options.tracer && typeof options.tracer.attach !== "function") || (options.compaction && typeof options.compaction.attach !== "function")) {
    throw new InvalidOptionsError("pass tracer: tracing(yourTracer) and compaction: compaction({ maxInputTokens })");
  }
  const gate = options.suspension?.gate;
  const history = loadHistory(options.history, gate?.check);
  const traces = options.tracer?.attach(model);
  if (traces) model = traces.provider;
  const compaction = options.compaction?.attach(model);
  if (compaction) model = compaction.provider;
  let registry: Registry = createRegistry([]);
  let lastRun: RunResult | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  const maxSteps = positiveInt(options.maxSteps, 20, "maxSteps");
  const maxToolOutput = positiveInt(options.maxToolOutput, DEFAULT_MAX_TOOL_OUTPUT, "maxToolOutput");
  // Checked here as well as per request, so a typo fails at once rather than at the first call.
  const maxRetries = numberOption("maxRetries", options.maxRetries, 0);
  const idleTimeout = numberOption("idleTimeout", options.idleTimeout, 0, true);
  const maxParallel = positiveInt(options.maxParallelTools, 5, "maxParallelTools");
  const config = (call: CallOptions = {}): LoopConfig => ({
    toolChoice: call.toolChoice ?? options.toolChoice,
    steps: options,
    gate,
    toolSet,
    ...(compaction && { compact: compaction.compact }),
    provider: model,
    registry,
    system: call.system ?? options.systemPrompt,
    maxSteps: positiveInt(call.maxSteps, maxSteps, "maxSteps"),
    parallel: options.parallelTools ?? false,
    maxParallel,
    maxToolOutput,
    logger: options.logger ?? silentLogger,
    finalAnswerOnMaxSteps: options.finalAnswerOnMaxSteps,
    maxRetries,
    idleTimeout,
  });

  /** Runs `fn` after every earlier call on this client has settled. */
  const serial = <T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> => {
    let started = false;
    const go = () => {
      started = true;
      return fn();
    };
    const p = queue.then(go, go);
    queue = p.catch(() => {});
    return signal ? abortWhileQueued(p, signal, () => started) : p;
  };

  /** One run of the loop; the caller holds the client (see serial). */
  const runOnce = async (prompt: string | ContentPart[] | undefined, opts: RunOptions, call?: CallOptions): Promise<RunResult> => {
    if (opts.signal?.aborted) throw abortReason(opts.signal);
    if (call) checkOptions("per-call options", call, "signal maxSteps toolChoice system decisions");
    const cfg = config(call);
    // A malformed prompt, or a refused batch of decisions, changes nothing.
    const message = prompt === undefined ? undefined : checkPrompt(prompt);
    if (call?.decisions && !gate) throw new InvalidOptionsError(`decisions: resuming ${NEEDS_SUSPENSION}`);
    // Decisions are checked as a batch and planned (history only read); the loop runs the plan.
    const plan = call?.decisions ? await gate!.plan(history, call.decisions, cfg.registry, maxToolOutput) : undefined;
    const uncancel = message && gate?.cancel(history, plan);
    if (message) history.push(message);
    let r: RunResult;
    try {
      r = await runLoop(history, cfg, plan ? { ...opts, plan } : opts);
    } catch (err) {
      // A prompt the provider refuses before sending anything (a part it cannot take), or one
      // whose decisions' answers failed their schemas, is taken back, with what it cancelled:
      // otherwise every later call would fail on the same part (or the batch changed history).
      // (Checked by identity, not length: repairing a history saved mid-run adds results before it.)
      const refused = isToolloopError(err, "unsupported_content") || isToolloopError(err, "invalid_decision");
      if (message && refused && history[history.length - 1] === message) {
        history.pop();
        uncancel?.();
      }
      throw err;
    }
    lastRun = r;
    return r;
  };
  // With a tracer, the whole call is one invoke_agent span: the tools that decisions run too.
  const runNow = (prompt: string | ContentPart[] | undefined, opts: RunOptions, call?: CallOptions): Promise<RunResult> =>
    traces ? traces.run(() => runOnce(prompt, opts, call)) : runOnce(prompt, opts, call);
  const run = (prompt: string | ContentPart[] | undefined, opts: RunOptions, call?: CallOptions): Promise<RunResult> =>
    serial(() => runNow(prompt, opts, call), opts.signal);
  const done = gate?.done ?? ((r: RunResult) => r);

  /** A tool set as this client can use it: setTools(), and the tools prepareStep gives a step. */
  const toolSet = (tools: readonly Tool[]): Registry => {
    if (!Array.isArray(tools)) throw new InvalidToolError("setTools expects an array of tools");
    if (provider.supportsTools === false && tools.length > 0) throw new ToolsNotSupportedError(provider.name);
    const next = createRegistry(traces ? traces.tools(tools) : tools);
    // Otherwise the marker would be dropped without a word and the model would never search.
    if (next.webSearch && provider.supportsWebSearch === false) {
      throw new InvalidToolError(
        `webSearch(): the ${provider.name} provider has no native web search (it works with claude(), openai() and gemini()); use a search tool such as tavilySearch() instead`,
      );
    }
    // Without suspension() such a tool could never be answered (nor be held for approval).
    const waits = !gate && tools.find((t) => t.external || t.needsApproval);
    if (waits) throw new InvalidToolError(`tool "${waits.name}" ${NEEDS_SUSPENSION}`);
    provider.checkTools?.(next.specs);
    return next;
  };
  const setTools = (tools: readonly Tool[]): void => {
    registry = toolSet(tools);
  };
  if (options.tools) setTools(options.tools);

  return {
    setTools,
    add(message) {
      history.push(checkMessage(message, "add()", gate?.check));
    },
    async chat(prompt, callOptions) {
      return done(await run(prompt, { signal: callOptions?.signal }, callOptions)).text;
    },
    run(prompt, callOptions) {
      return run(prompt, { signal: callOptions?.signal }, callOptions);
    },
    resume(decisions, callOptions) {
      return run(undefined, { signal: callOptions?.signal }, { ...callOptions, decisions });
    },
    get pending() {
      return gate?.pending(history) ?? [];
    },
    async ask(prompt, schema, callOptions) {
      if (!isSchemaInput(schema)) {
        throw new InvalidOptionsError("ask() takes a valibot schema or a Standard Schema; wrap a raw JSON Schema with jsonSchema()");
      }
      const json = toJSONSchema(schema);
      const validate = compileValidator(schema);
      const responseSchema = { name: "response", schema: json };
      const check = async (text: string): Promise<{ ok: true; value: unknown } | { ok: false; issues: ValidationIssue[] }> => {
        // Unlike tool arguments, an empty answer is not "{}": the model said nothing.
        if (text.trim() === "") return { ok: false, issues: [{ path: "/", message: "the answer is empty" }] };
        let parsed: unknown;
        try {
          parsed = parseJSONArguments(text);
        } catch (err) {
          return { ok: false, issues: [{ path: "/", message: `not valid JSON (${(err as Error).message})` }] };
        }
        return validate(parsed);
      };
      // The question and its re-ask hold the client together, so no other call slips in between.
      // Its signal rejects it while it waits its turn, as it does chat's.
      return serial(async () => {
        let r = done(await runNow(prompt, { signal: callOptions?.signal, responseSchema }, callOptions));
        let c = await check(r.text);
        if (c.ok) return c.value as never;
        // One re-ask with the issues, then give up with what the model said.
        const issues = formatIssues(c.issues);
        const reask =
          `Your answer did not match the required JSON schema (${issues}). ` + `Reply with only a JSON value that matches this schema: ${JSON.stringify(json)}`;
        r = done(await runNow(reask, { signal: callOptions?.signal, responseSchema }, { ...callOptions, decisions: undefined }));
        c = await check(r.text);
        if (c.ok) return c.value as never;
        throw new StructuredOutputError(`the answer did not match the schema after one re-ask: ${formatIssues(c.issues)}`, r.text, c.issues);
      }, callOptions?.signal);
    },
    stream(prompt, callOptions) {
      return streamRun((onEvent, signal) => run(prompt, { signal, stream: true, onEvent }, callOptions), callOptions?.signal);
    },
    get history() {
      return structuredClone(history);
    },
    get lastRun() {
      return lastRun;
    },
  };
}
