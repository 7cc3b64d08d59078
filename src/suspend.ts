// Resuming a suspended run. The suspended state is the history itself: a tool message whose
// results wait (`pending`). Decisions are checked as one batch before anything is applied, so
// a bad batch changes nothing; then they become real results, in call order, and the loop
// goes on. A new prompt instead answers every waiting call "cancelled: no decision".
import { InvalidDecisionError } from "./errors.js";
import { executeCalls, type Resumed } from "./execute.js";
import { checkParts } from "./history.js";
import { plainResult, signPending, toolResultEvent, waitingCalls, type LoopConfig, type RunOptions } from "./loop.js";
import { renderParts, type AssistantMessage, type ContentPart, type Message, type ToolCall, type ToolResult } from "./messages.js";
import { toolInput } from "./tool.js";

/** One answer to a pending call (see client.pending for what waits, and of which kind). */
export type Decision =
  | { callId: string; approved: true; input?: unknown }
  | { callId: string; approved: false; reason?: string }
  | { callId: string; answer: unknown }
  | { callId: string; output: string | { content: ContentPart[] } };

/**
 * Answers every waiting call as cancelled (a new prompt came instead of decisions). Returns
 * the undo, for a prompt that is then taken back.
 */
export function cancelPending(history: Message[]): () => void {
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
export async function applyDecisions(history: Message[], decisions: readonly Decision[], cfg: LoopConfig, opts: RunOptions): Promise<void> {
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
    if (cfg.sign && !same(result.pending.signature, await cfg.sign(call, result.pending))) refuse("the call is unsigned, changed, or signed with another secret");
    const answer = (r: Omit<ToolResult, "callId" | "name">) => done.set(id, { callId: id, name: result.name, ...r });
    if (kind === "external") {
      const out = d.output as { content?: unknown } | string;
      if (typeof out === "string") answer({ output: out, isError: false });
      else {
        let content: ContentPart[] = [];
        try {
          content = checkParts(out?.content as unknown[], "output.content");
        } catch (err) {
          refuse(`an external tool's output is a string or { content: ContentPart[] } (${(err as Error).message})`);
        }
        answer({ output: renderParts(content), isError: false, content });
      }
    } else if (kind === "input") {
      if (!("answer" in d)) refuse("a requested input takes { callId, answer }");
      resumed.set(id, { approved, answers: [...(answers ?? []), d.answer] });
      runs.push(call);
    } else if (d.approved === false) {
      answer({ output: JSON.stringify({ error: d.reason === undefined ? "denied" : `denied: ${d.reason}` }), isError: true });
    } else {
      if (d.approved !== true) refuse("an approval takes { callId, approved: true, input? } or { callId, approved: false, reason? }");
      let args = call.arguments;
      if (d.input !== undefined) {
        args = JSON.stringify(d.input);
        const tool = cfg.registry.tools.get(result.name);
        // Edited input is checked like the model's: against the tool's schema.
        if (tool) await toolInput(tool, args).catch((err: Error) => refuse(`the edited input ${err.message}`));
      }
      resumed.set(id, { approved: true });
      runs.push({ ...call, arguments: args });
    }
  }

  // 2. Answered handlers run again first: an answer that fails the schema its handler asks
  //    with refuses the batch before any other handler runs or anything is written.
  const run = (answered: boolean) =>
    executeCalls(
      runs.filter((c) => !!resumed.get(c.id)!.answers === answered),
      { ...cfg, signal: opts.signal, resumed },
    );
  const ran = await run(true);
  const bad = ran.find((r) => r.badAnswer !== undefined);
  if (bad) throw new InvalidDecisionError(`decision for "${bad.callId}": the answer does not match the schema (${bad.badAnswer})`, bad.callId);
  for (const r of [...ran, ...(await run(false))]) done.set(r.callId, plainResult(r));

  // 3. Applied: results replace the pending ones in place (call order); edited input becomes the call.
  for (const at of new Set([...done.keys()].map((id) => open.get(id)!.at))) {
    const assistant = history[at - 1] as AssistantMessage;
    assistant.toolCalls = assistant.toolCalls!.map((c) => runs.find((r) => r.id === c.id) ?? c);
    const results = (history[at] as { results: ToolResult[] }).results.map((r) => done.get(r.callId) ?? r);
    await signPending(assistant.toolCalls, results, cfg.sign);
    history[at] = { role: "tool", results };
    for (const r of results) {
      if (done.has(r.callId) && !r.pending) {
        opts.onEvent?.(toolResultEvent(r, r.isError ? "error" : "ok"));
      }
    }
  }
}

/** Compares two signatures without stopping at the first difference. */
function same(a: string | undefined, b: string): boolean {
  let diff = a?.length === b.length ? 0 : 1;
  for (let i = 0; i < b.length; i++) diff |= (a?.charCodeAt(i) ?? 0) ^ b.charCodeAt(i);
  return diff === 0;
}
