// Resuming a suspended run. The suspended state is the history itself: a tool message whose
// results wait (`pending`). Decisions are checked as one batch before anything is applied, so
// a bad batch changes nothing; then they become real results, in call order, and the loop
// goes on. A new prompt instead answers every waiting call "cancelled: no decision".
import { InvalidDecisionError, isToolloopError } from "./errors.js";
import { executeCalls, type ExecutedCall, type Resumed } from "./execute.js";
import { checkParts } from "./history.js";
import { plainResult, signPending, type LoopConfig, type RunOptions } from "./loop.js";
import { renderParts, type AssistantMessage, type ContentPart, type Message, type ToolCall, type ToolResult } from "./messages.js";
import { toolInput } from "./tool.js";

/** One answer to a pending call (see client.pending for what waits, and of which kind). */
export type Decision =
  | { callId: string; approved: true; input?: unknown }
  | { callId: string; approved: false; reason?: string }
  | { callId: string; answer: unknown }
  | { callId: string; output: string | { content: ContentPart[] } };

const CANCELLED = '{"error":"cancelled: no decision"}';

/** Answers every waiting call as cancelled (a new prompt came instead of decisions). */
export function cancelPending(history: Message[]): void {
  for (const m of history) {
    if (m.role === "tool" && m.results.some((r) => r.pending)) {
      m.results = m.results.map((r) => (r.pending ? { callId: r.callId, name: r.name, output: CANCELLED, isError: true } : r));
    }
  }
}

interface Open {
  call: ToolCall;
  result: ToolResult;
  /** Index of the tool message in history. */
  at: number;
}

/**
 * Checks `decisions` as a batch, then applies them: approved and answered calls run (their
 * results and any new pending states go into history), denials and external outputs become
 * results. Throws InvalidDecisionError, with history untouched, if any decision is refused.
 */
export async function applyDecisions(history: Message[], decisions: readonly Decision[], cfg: LoopConfig, opts: RunOptions): Promise<void> {
  if (!Array.isArray(decisions)) throw new InvalidDecisionError("decisions must be an array of { callId, ... }");
  const open = new Map<string, Open>();
  history.forEach((m, at) => {
    const prev = history[at - 1];
    if (m.role !== "tool" || prev?.role !== "assistant") return;
    for (const result of m.results) {
      const call = result.pending && prev.toolCalls?.find((c) => c.id === result.callId);
      if (call) open.set(call.id, { call, result, at });
    }
  });

  // 1. Every decision is checked before any is applied.
  const done = new Map<string, ToolResult>();
  const toRun: ToolCall[] = [];
  const resumed = new Map<string, Resumed>();
  const edited = new Map<string, string>();
  for (const raw of decisions) {
    const d = raw as Record<string, unknown> | null;
    const id = d?.callId;
    const refuse = (why: string): never => {
      throw new InvalidDecisionError(`decision for ${JSON.stringify(id)}: ${why}`, typeof id === "string" ? id : undefined);
    };
    const o = typeof id === "string" ? open.get(id) : undefined;
    if (!o) refuse("no call waits for it (unknown, or already answered)");
    if (done.has(o!.call.id) || resumed.has(o!.call.id)) refuse("the batch decides this call twice");
    const { call, result } = o!;
    const state = result.pending!;
    if (cfg.sign && !same(state.signature, await cfg.sign(call, state))) refuse("the pending call is unsigned, was changed, or was signed with another secret");
    const name = result.name;
    switch (state.kind) {
      case "approval":
        if (typeof d!.approved !== "boolean") refuse('an approval takes { callId, approved: true, input? } or { callId, approved: false, reason? }');
        if (d!.approved === false) {
          const reason = d!.reason === undefined ? "" : `: ${String(d!.reason)}`;
          done.set(call.id, { callId: call.id, name, output: JSON.stringify({ error: `denied${reason}` }), isError: true });
          break;
        }
        if (d!.input !== undefined) {
          const args = JSON.stringify(d!.input);
          const tool = cfg.registry.tools.get(name);
          try {
            if (tool) await toolInput(tool, args);
            else if (typeof d!.input !== "object" || d!.input === null || Array.isArray(d!.input)) throw new Error("the input must be a JSON object");
          } catch (err) {
            refuse(`the edited input ${isToolloopError(err, "failed_unmarshal_input") ? "" : "is invalid: "}${(err as Error).message}`);
          }
          edited.set(call.id, args);
        }
        resumed.set(call.id, { approved: true });
        toRun.push(edited.has(call.id) ? { ...call, arguments: edited.get(call.id)! } : call);
        break;
      case "input":
        if (!("answer" in d!)) refuse("a requested input takes { callId, answer }");
        resumed.set(call.id, { approved: state.approved, answers: [...(state.answers ?? []), d!.answer] });
        toRun.push(call);
        break;
      case "external": {
        const out = d!.output;
        let r: ToolResult;
        if (typeof out === "string") r = { callId: call.id, name, output: out, isError: false };
        else {
          const content = (out as { content?: unknown } | null)?.content;
          if (!Array.isArray(content)) refuse("an external tool's output is a string or { content: ContentPart[] }");
          let parts: ContentPart[] = [];
          try {
            parts = checkParts(content as unknown[], "output.content");
          } catch (err) {
            refuse((err as Error).message);
          }
          r = { callId: call.id, name, output: renderParts(parts), isError: false, content: parts };
        }
        done.set(call.id, r);
        break;
      }
    }
  }

  // 2. Answered handlers run again first: an answer that fails the schema its handler asks
  //    with refuses the batch before any other handler runs or anything is written.
  const execute = (calls: ToolCall[]) =>
    executeCalls(calls, {
      registry: cfg.registry,
      parallel: cfg.parallel,
      maxParallel: cfg.maxParallel,
      maxToolOutput: cfg.maxToolOutput,
      logger: cfg.logger,
      signal: opts.signal,
      resumed,
    });
  const answered = toRun.filter((c) => resumed.get(c.id)!.answers);
  const ran: ExecutedCall[] = await execute(answered);
  const bad = ran.find((r) => r.badAnswer !== undefined);
  if (bad) throw new InvalidDecisionError(`decision for "${bad.callId}": the answer does not match the schema (${bad.badAnswer})`, bad.callId);
  ran.push(...(await execute(toRun.filter((c) => !resumed.get(c.id)!.answers))));
  for (const r of ran) done.set(r.callId, plainResult(r));

  // 3. Applied: results replace the pending ones in place (call order), edited input becomes the call.
  const touched = new Set<number>();
  for (const id of done.keys()) touched.add(open.get(id)!.at);
  for (const at of touched) {
    const assistant = history[at - 1] as AssistantMessage;
    if (edited.size) assistant.toolCalls = assistant.toolCalls!.map((c) => (edited.has(c.id) ? { ...c, arguments: edited.get(c.id)! } : c));
    const results = (history[at] as { results: ToolResult[] }).results.map((r) => done.get(r.callId) ?? r);
    await signPending(assistant.toolCalls!, results, cfg.sign);
    history[at] = { role: "tool", results };
    if (opts.onEvent) {
      for (const r of results) {
        if (done.has(r.callId) && !r.pending) {
          opts.onEvent({ type: "tool-result", callId: r.callId, name: r.name, output: r.output, isError: r.isError, outcome: r.isError ? "error" : "ok", ...(r.content ? { content: r.content } : {}) });
        }
      }
    }
  }
}

/** Compares two signatures without stopping at the first difference. */
function same(a: string | undefined, b: string): boolean {
  if (typeof a !== "string" || a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
