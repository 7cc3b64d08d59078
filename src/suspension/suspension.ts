// suspension(): the code behind runs that wait for a decision — needsApproval, externalTool(),
// ctx.requestInput and resuming with decisions. A client gets it only through
// createClient({ suspension: suspension({ secret }) }), so an agent that never suspends ships none of it.
//
// The suspended state is the history itself: a tool message whose results wait (`pending`).
// Decisions are checked as one batch before anything is applied, so a bad batch changes
// nothing; then they become real results, in call order, and the loop goes on. A new prompt
// instead answers every waiting call "cancelled: no decision".
import { InvalidDecisionError, InvalidOptionsError, SuspendedError } from "../base/index.js";
import { cap, capParts, executeCalls, failed, runOne, type ExecuteOptions, type ExecutedCall, type Resumed, type ToolOutcome } from "../loop/index.js";
import { checkParts, type PendingCheck } from "../conversation/index.js";
import { jsonWithin, MAX_ARGUMENT_DEPTH, MAX_RESPONSE_DEPTH } from "../base/index.js";
import { formatIssues } from "../base/index.js";
import { checkOptions } from "../base/index.js";
import { askingWith, thrownText } from "../loop/index.js";
import { plainResult, toolResultEvent, tryParse, type LoopConfig, type PendingCall, type RunOptions, type RunResult, type StepGate, type StepResult } from "../loop/index.js";
import { CANCELLED_OUTPUT, emptyUsage, renderParts, type AssistantMessage, type ContentPart, type Message, type PendingState, type ToolCall, type ToolResult } from "../conversation/index.js";
import { compileValidator, isSchemaInput, toJSONSchema } from "../schema/index.js";
import { createSigner, secretError, secretProblem, type Signer } from "./sign.js";
import { checksInput, toolInput, type InputRequest, type Tool, type ToolContext } from "../tools/index.js";

/** One answer to a pending call (see client.pending for what waits, and of which kind). */
export type Decision =
  | { callId: string; approved: true; input?: unknown }
  | { callId: string; approved: false; reason?: string }
  | { callId: string; answer: unknown }
  | { callId: string; output: string | { content: ContentPart[] } };

/**
 * Signed (`{ secret }`) or, said out loud, unsigned (`{ unsigned: true }`). No default: a secret
 * read from an unset variable must not quietly mean "unsigned" (a payment edited on the way
 * would be approved as it reads then), so anything else is refused.
 */
export type SuspensionOptions =
  | {
      /**
       * Signs pending calls (HMAC-SHA-256, Web Crypto): a string of at least 32 random characters,
       * or an HMAC CryptoKey. A decision for a call that is unsigned, changed, signed with another
       * secret or moved from another conversation is refused.
       */
      secret: string | CryptoKey;
      unsigned?: false | undefined;
    }
  | {
      /**
       * Pending calls are not signed: a decision acts on whatever the history says waits. Only for
       * a history nobody else can change on its way back (it never leaves your server).
       */
      unsigned: true;
      secret?: undefined;
    };

/** What the client calls; everything a run needs to suspend and resume. */
export interface Suspender extends StepGate {
  /** The calls in history that wait for a decision, in call order (client.pending). */
  pending(history: readonly Message[]): PendingCall[];
  /**
   * Before a run: checks `decisions` as a batch and applies them (InvalidDecisionError, history
   * untouched, if any is refused); then, when a prompt comes, answers every call still waiting
   * as cancelled and returns the undo. Without a prompt, the step the decisions completed goes
   * to `opts.resumed`, for the stop conditions of the run that goes on from it.
   */
  before(history: Message[], decisions: readonly Decision[] | undefined, prompting: boolean, cfg: LoopConfig, opts: RunOptions): Promise<(() => void) | undefined>;
  /** Checks a saved history's pending state (add(), createClient({ history })). */
  check: PendingCheck;
  /** chat() and ask() take a run's text: a suspended run rejects them with SuspendedError. */
  done(r: RunResult): RunResult;
}

/** The value createClient({ suspension }) takes. */
export interface Suspension {
  readonly suspender: Suspender;
}

/** Lets a client suspend for approvals, questions and external tools, and resume with decisions. */
export function suspension(options: SuspensionOptions): Suspension {
  const sign = signer(options);
  const suspender: Suspender = {
    pending: pendingCalls,
    waiting(history, emit) {
      const pending = pendingCalls(history);
      if (!pending.length) return;
      emit({ type: "suspended", pending });
      return pending;
    },
    async run(call, opts) {
      const r = await gated(call, opts);
      if (r.pending) {
        opts.logger.info("tool waits for a decision", { tool: r.name, kind: r.pending.kind });
        // Signed where it is made, over the conversation it is made in: a decision for it is
        // checked against the signature. Not found there, it stays unsigned, so it is refused.
        const made = sign && opts.history ? madeAt(opts.history, call) : -1;
        if (made >= 0) r.pending.signature = await sign!(call, r.pending, opts.history!, made);
      }
      return r;
    },
    async before(history, decisions, prompting, cfg, opts) {
      const last = decisions && (await applyDecisions(history, decisions, cfg, opts, sign));
      if (prompting) return cancelPending(history);
      opts.resumed = last;
    },
    check(p, fail) {
      const { kind, message, schema, answers, approved, signature } = (p ?? {}) as PendingState;
      if (!["approval", "input", "external"].includes(kind)) fail('"pending.kind" must be "approval", "input" or "external"');
      // Each field as the resume reads it, so a hand-edited state fails here, as it comes in, not
      // as a TypeError (or a wrong answer) on resume. What the state does not know is dropped.
      if (message !== undefined && typeof message !== "string") fail('"pending.message" must be a string');
      if (answers !== undefined && !Array.isArray(answers)) fail('"pending.answers" must be an array');
      if (approved !== undefined && typeof approved !== "boolean") fail('"pending.approved" must be a boolean');
      if (signature !== undefined && typeof signature !== "string") fail('"pending.signature" must be a string');
      const known = Object.entries({ kind, message, schema, answers, approved, signature }).filter(([, v]) => v !== undefined);
      // A JSON copy, bounded: a schema or answers nested 10,000 deep would overflow the stack
      // later (client.history, the signer, the next save), so they are refused here.
      const text = jsonWithin(Object.fromEntries(known), MAX_RESPONSE_DEPTH) ?? fail(`"pending" must be JSON nested at most ${MAX_RESPONSE_DEPTH} levels deep`);
      return JSON.parse(text) as PendingState;
    },
    done(r) {
      if (r.status === "suspended") throw new SuspendedError(r.pending);
      return r;
    },
  };
  return { suspender };
}

/** The signer for `options`, or undefined for an explicit { unsigned: true }; any other options throw. */
function signer(options: SuspensionOptions | undefined): Signer | undefined {
  if (options !== undefined && (typeof options !== "object" || options === null)) {
    throw new InvalidOptionsError("suspension() takes { secret } or { unsigned: true }");
  }
  // A misspelt key (`secrte`) is named, rather than read as "no secret".
  checkOptions("suspension()", options, "secret unsigned");
  const { secret, unsigned } = (options ?? {}) as { secret?: unknown; unsigned?: unknown };
  if (unsigned === true) {
    if (secret !== undefined) throw new InvalidOptionsError("suspension() got both a secret and unsigned: true: keep the one you mean");
    return undefined;
  }
  if (unsigned !== undefined && unsigned !== false) throw new InvalidOptionsError(`suspension(): unsigned is true or left out, got a ${typeof unsigned}`);
  const problem = secret === undefined && !(options && "secret" in options) ? "no secret" : secretProblem(secret);
  if (problem) throw secretError(problem);
  return createSigner(secret as string | CryptoKey);
}

/** A call's result: waiting before its handler runs, waiting for the input its handler asked for, or run. */
async function gated(call: ToolCall, opts: ExecuteOptions): Promise<ExecutedCall> {
  const tool = opts.registry.tools.get(call.name.toLowerCase());
  const waiting = tool && (await hold(tool, call, opts));
  if (waiting) return waiting;
  const a = asker(call, opts);
  const r = await runOne(call, { ...opts, extend: askingWith(a.ask) });
  // Cancelled without an abort: the handler asked for input (suspended); aborted, it stays cancelled.
  return r.outcome === "cancelled" && !opts.signal?.aborted ? a.result() : r;
}

/** A call in history that waits for a decision: the call, its pending result, and where its tool message is. */
interface Waiting {
  call: ToolCall;
  result: ToolResult & { pending: PendingState };
  at: number;
}

function waitingCalls(history: readonly Message[]): Waiting[] {
  const out: Waiting[] = [];
  history.forEach((m, at) => {
    const prev = history[at - 1];
    if (m.role !== "tool" || prev?.role !== "assistant") return;
    for (const result of m.results) {
      const call = result.pending && prev.toolCalls?.find((c) => c.id === result.callId);
      if (call) out.push({ call, result: result as Waiting["result"], at });
    }
  });
  return out;
}

/**
 * Where the assistant message that made `call` is in `history`: the newest one that holds the
 * call itself (the loop's own step) or under which it waits (a resumed call, whose edited input
 * makes it another object); -1 if none.
 */
function madeAt(history: readonly Message[], call: ToolCall): number {
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i]!;
    const next = history[i + 1];
    if (m.role !== "assistant" || !m.toolCalls) continue;
    if (m.toolCalls.includes(call) || (next?.role === "tool" && next.results.some((r) => r.callId === call.id && r.pending))) return i;
  }
  return -1;
}

/** The calls in history that wait for a decision, in call order. */
function pendingCalls(history: readonly Message[]): PendingCall[] {
  return waitingCalls(history).map(({ call, result: { name, pending } }) => ({
    callId: call.id,
    name,
    input: tryParse(call.arguments),
    arguments: call.arguments,
    kind: pending.kind,
    ...(pending.message !== undefined && { message: pending.message }),
    ...(pending.schema !== undefined && { schema: pending.schema }),
  }));
}

// ---- before and while a call runs (execute.ts calls these through CallGate)

/** A call's result before its handler runs: waiting, or the error its approval rule threw. */
function held(call: ToolCall, r: Pick<ExecutedCall, "output" | "isError" | "outcome" | "pending" | "badAnswer">): ExecutedCall {
  return { callId: call.id, name: call.name.toLowerCase(), ...r };
}
const waits = (call: ToolCall, pending: PendingState) => held(call, { output: "", isError: false, outcome: "ok", pending });

/** Whether the call waits before its handler runs: an external tool, or one that needs approval. */
async function hold(tool: Tool, call: ToolCall, opts: ExecuteOptions): Promise<ExecutedCall | undefined> {
  if (opts.resumed?.get(call.id)?.approved) return;
  if (tool.external) return waits(call, { kind: "external" });
  if (!tool.needsApproval) return;
  try {
    const ctx = { signal: opts.signal ?? new AbortController().signal, callId: call.id, logger: opts.logger };
    if (await needsApproval(tool, call, ctx)) return waits(call, { kind: "approval" });
  } catch (err) {
    return held(call, { output: JSON.stringify({ error: thrownText(err).message }), isError: true, outcome: "error" });
  }
}

/** needsApproval: true, or its function of the parsed (and, for tool()s, validated) input. */
async function needsApproval(tool: Tool, call: ToolCall, ctx: ToolContext): Promise<boolean> {
  const rule = tool.needsApproval;
  if (typeof rule !== "function") return rule === true;
  let input: unknown;
  try {
    input = await toolInput(tool, call.arguments);
  } catch {
    // Invalid arguments: a tool() never runs with them (the model gets the issues), so there is
    // nothing to approve; a hand-written tool would run with them, so it waits for a person.
    return !checksInput(tool);
  }
  return !!(await rule(input, ctx));
}

/** ctx.requestInput for one invocation: the answers given so far, in order; the first unanswered question suspends. */
function asker(call: ToolCall, opts: ExecuteOptions) {
  const prior = opts.resumed?.get(call.id);
  const answers = prior?.answers ?? [];
  let asked: InputRequest | undefined;
  let bad: string | undefined;
  let n = 0;
  return {
    async ask(request: InputRequest, suspend: () => void): Promise<unknown> {
      const i = n++;
      if (i < answers.length) {
        // Checked each time (not only when new), so the handler always gets the schema's output.
        let value = answers[i];
        if (isSchemaInput(request.schema)) {
          const r = await compileValidator(request.schema)(value);
          if (r.ok) value = r.value;
          else bad = formatIssues(r.issues);
        }
        if (bad === undefined && !(prior?.check && i === answers.length - 1)) return value;
      } else asked = request;
      suspend();
      return new Promise(() => {});
    },
    result(): ExecutedCall {
      if (bad !== undefined) return held(call, { output: CANCELLED_OUTPUT, isError: true, outcome: "cancelled", badAnswer: bad });
      if (prior?.check) return held(call, { output: "", isError: false, outcome: "ok" }); // the newest answer fits
      const state: PendingState = { kind: "input", message: String(asked!.message) };
      const schema = answerSchema(asked!.schema);
      if (schema) state.schema = schema;
      if (answers.length) state.answers = answers;
      if (prior?.approved) state.approved = true;
      return waits(call, state);
    },
  };
};

/**
 * The JSON Schema form of a requestInput() schema, as stored in history (and shown by
 * client.pending): a JSON copy within the depth a loaded history may have (the pending state
 * is one level more), or none, so the history that holds it can be saved and loaded again.
 */
function answerSchema(schema: unknown): unknown {
  let json = schema ?? undefined;
  if (isSchemaInput(schema)) {
    try {
      json = toJSONSchema(schema);
    } catch {
      return undefined;
    }
  }
  const text = json === undefined ? undefined : jsonWithin(json, MAX_RESPONSE_DEPTH - 1);
  return text === undefined ? undefined : JSON.parse(text);
}

// ---- resuming

function cancelPending(history: Message[]): () => void {
  const saved = waitingCalls(history).map(({ result }) => [result, { ...result }] as const);
  for (const [result] of saved) {
    delete (result as ToolResult).pending;
    Object.assign(result, { output: '{"error":"cancelled: no decision"}', isError: true });
  }
  return () => {
    for (const [result, was] of saved) Object.assign(result, was);
  };
}

/**
 * Checks `decisions` as a batch, then applies them: approved and answered calls run (their
 * results and any new pending states go into history), denials and external outputs become
 * results. Throws InvalidDecisionError, with history untouched, if any decision is refused.
 */
async function applyDecisions(
  history: Message[],
  decisions: readonly Decision[],
  cfg: LoopConfig,
  opts: RunOptions,
  sign: Signer | undefined,
): Promise<StepResult | undefined> {
  if (!Array.isArray(decisions)) throw new InvalidDecisionError("decisions must be an array");
  const open = new Map(waitingCalls(history).map((w) => [w.call.id, w]));
  const done = new Map<string, ToolResult>();
  const resumed = new Map<string, Resumed>();
  const runs: ToolCall[] = [];

  // 1. Every decision is checked before any is applied.
  for (const d of decisions as Record<string, unknown>[]) {
    const id = d?.callId as string;
    const refuse = (why: string): never => {
      throw new InvalidDecisionError(`decision for ${JSON.stringify(id)}: ${why}`, id);
    };
    const w = open.get(id) ?? refuse("no call waits for it (unknown, or already answered)");
    if (done.has(id) || resumed.has(id)) refuse("decided twice in one batch");
    const { call, result } = w;
    const { kind, answers, approved } = result.pending;
    if (sign && !same(result.pending.signature, await sign(call, result.pending, history, w.at - 1))) {
      refuse("the call is unsigned, changed, or signed with another secret (or in another conversation)");
    }
    const answer = (r: Omit<ToolResult, "callId" | "name">) => done.set(id, { callId: id, name: result.name, ...r });
    // A call that runs on resume runs with the client's tools; one that only prepareStep gave
    // is not there, and the model would read "unknown tool" after the person approved.
    const runnable = () =>
      cfg.registry.tools.get(result.name) ??
      refuse(`tool "${result.name}" is not among this client's tools (one that only prepareStep gives cannot run on resume: give it to the client too)`);
    // What a person sends goes into history: it must be JSON, nested no deeper than the model's
    // arguments may be, or client.history could never be saved again (a raw RangeError).
    const json = (value: unknown, what: string) =>
      jsonWithin(value, MAX_ARGUMENT_DEPTH) ?? refuse(`${what} must be a JSON value nested at most ${MAX_ARGUMENT_DEPTH} levels deep`);
    // Results from decisions are capped by maxToolOutput like a tool's own (runOne).
    const max = cfg.maxToolOutput;
    if (kind === "external") {
      const out = d.output as { content?: unknown } | string;
      if (typeof out === "string") answer({ output: cap(out, max), isError: false });
      else {
        let content: ContentPart[] = [];
        try {
          content = capParts(checkParts(out?.content as unknown[], "output.content"), max);
        } catch (err) {
          refuse(`an external tool's output is a string or { content: ContentPart[] } (${(err as Error).message})`);
        }
        answer({ output: renderParts(content), isError: false, content });
      }
    } else if (kind === "input") {
      if (!("answer" in d)) refuse("a requested input takes { callId, answer }");
      runnable();
      resumed.set(id, { approved, answers: [...(answers ?? []), JSON.parse(json(d.answer, "the answer"))] });
      runs.push(call);
    } else if (d.approved === false) {
      if (d.reason !== undefined && typeof d.reason !== "string") refuse("a denial's reason is a string");
      // Capped inside the JSON, as a thrown error's message is, so the JSON stays valid.
      answer({ output: JSON.stringify({ error: cap(d.reason === undefined ? "denied" : `denied: ${d.reason}`, max) }), isError: true });
    } else {
      if (d.approved !== true) refuse("an approval takes { callId, approved: true, input? } or { callId, approved: false, reason? }");
      const tool = runnable();
      let args = call.arguments;
      if (d.input !== undefined) {
        args = json(d.input, "the edited input");
        // Edited input is checked like the model's: against the tool's schema.
        await toolInput(tool, args).catch((err: Error) => refuse(`the edited input ${err.message}`));
      }
      resumed.set(id, { approved: true });
      runs.push({ ...call, arguments: args });
    }
  }

  // 2. Answered handlers run again first: an answer that fails the schema its handler asks
  //    with refuses the batch before any other handler runs or anything is written. With two
  //    or more, each first runs only up to its newest answer, which is checked, not given, so
  //    no handler goes past an answer before all have passed (the code before a requestInput
  //    runs again on every resume anyway).
  const run = (answered: boolean, states: ReadonlyMap<string, Resumed> = resumed) =>
    executeCalls(
      runs.filter((c) => !!resumed.get(c.id)!.answers === answered),
      { ...cfg, signal: opts.signal, resumed: states, history },
    );
  const refuseBad = (ran: ExecutedCall[]) => {
    const bad = ran.find((r) => r.badAnswer !== undefined);
    if (bad) throw new InvalidDecisionError(`decision for "${bad.callId}": the answer does not match the schema (${bad.badAnswer})`, bad.callId);
    return ran;
  };
  if (runs.filter((c) => resumed.get(c.id)!.answers).length > 1) {
    refuseBad(await run(true, new Map([...resumed].map(([id, r]) => [id, { ...r, check: true }]))));
  }
  const ran = refuseBad(await run(true));
  const outcomes = new Map<string, ToolOutcome>();
  // This run counts the calls its decisions ran (denials and external outputs ran nothing).
  opts.ran = { toolCalls: runs.length, toolFailures: 0 };
  for (const r of [...ran, ...(await run(false))]) {
    done.set(r.callId, plainResult(r));
    outcomes.set(r.callId, r.outcome);
    if (failed(r.outcome)) opts.ran.toolFailures++;
  }

  // 3. Applied: results replace the pending ones in place (call order); edited input becomes the call.
  let last: StepResult | undefined;
  // In history order, so `last` is the latest step the decisions completed.
  for (const at of [...new Set([...done.keys()].map((id) => open.get(id)!.at))].sort((a, b) => a - b)) {
    const assistant = history[at - 1] as AssistantMessage;
    assistant.toolCalls = assistant.toolCalls!.map((c) => runs.find((r) => r.id === c.id) ?? c);
    const results = (history[at] as { results: ToolResult[] }).results.map((r) => done.get(r.callId) ?? r);
    history[at] = { role: "tool", results };
    for (const r of results) {
      if (done.has(r.callId) && !r.pending) {
        opts.onEvent?.(toolResultEvent(r, outcomes.get(r.callId) ?? (r.isError ? "error" : "ok")));
      }
    }
    // The step as stop conditions see it: made in an earlier call (step 0 of this one), its usage spent there.
    last = { type: "step-finish", step: 0, text: assistant.content, toolCalls: assistant.toolCalls, toolResults: results, finishReason: "tool-calls", usage: emptyUsage() };
  }
  return last;
}

/** Compares two signatures without stopping at the first difference. */
function same(a: string | undefined, b: string): boolean {
  let diff = a?.length === b.length ? 0 : 1;
  for (let i = 0; i < b.length; i++) diff |= (a?.charCodeAt(i) ?? 0) ^ b.charCodeAt(i);
  return diff === 0;
}
