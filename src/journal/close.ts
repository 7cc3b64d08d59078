// Closing a run that will not continue (abandon(), or past maxRecoveries): the history as the
// record has it, with the interrupted batch of calls answered, so nothing that ran is lost from
// the conversation and every call has a result.
import { silentLogger } from "../base/index.js";
import { type AssistantMessage, healHistory, type Message, renderParts, type ToolResult } from "../conversation/index.js";
import { uniqueCallIds } from "../loop/index.js";
import type { CallRecord, JournalRecord } from "./record.js";

/** What the model reads for a call interrupted while it ran that is not run again. */
export const INTERRUPTED =
  "interrupted: the run stopped while this call ran (a crash, an eviction or a deploy); whether it took effect is unknown, and it was not run again";

export function closeRun(rec: JournalRecord): Message[] {
  const history = structuredClone(rec.history);
  const run = rec.run;
  if (run?.reply) {
    const calls = uniqueCallIds(run.reply.toolCalls, silentLogger);
    const message: AssistantMessage = { role: "assistant", content: run.reply.text };
    if (calls.length) message.toolCalls = calls;
    if (run.reply.providerData) message.providerData = run.reply.providerData;
    history.push(message);
    if (calls.length) history.push({ role: "tool", results: calls.map((c) => resultOf(c.id, c.name.toLowerCase(), run.calls[c.id])) });
  } else if (run?.call?.prompt !== undefined) {
    // Ended before the model's first reply: the prompt stays (as a failed run keeps it), and what
    // waited is cancelled, as that prompt had cancelled it.
    for (const m of history) if (m.role === "tool") m.results = m.results.map((r) => (r.pending ? cancelledResult(r) : r));
    history.push({ role: "user", content: run.call.prompt });
  } else if (run) {
    // Decisions were being carried out: the calls they ran replace the results that waited.
    for (const m of history) {
      if (m.role !== "tool") continue;
      m.results = m.results.map((r) => (r.pending && run.calls[r.callId] ? resultOf(r.callId, r.name, run.calls[r.callId]) : r));
    }
  }
  healHistory(history);
  return history;
}

function cancelledResult(r: ToolResult): ToolResult {
  return { callId: r.callId, name: r.name, output: '{"error":"cancelled: no decision"}', isError: true };
}

/** A call's result from its record: its output, its error, or (not settled) the interruption. */
function resultOf(callId: string, name: string, c: CallRecord | undefined): ToolResult {
  const r = c?.result;
  if (r && "output" in r) {
    const { output } = r;
    return typeof output === "string"
      ? { callId, name, output, isError: false }
      : { callId, name, output: renderParts(output.content), isError: false, content: output.content };
  }
  // Never started: it did nothing, and says so.
  const error = r ? r.thrown : c ? INTERRUPTED : "not run: the run ended after an interruption";
  return { callId, name, output: JSON.stringify({ error }), isError: true };
}
