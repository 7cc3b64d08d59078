// The pending state: in history a waiting call is a ToolResult with `pending` in the tool
// message after the assistant's calls. Read (client.pending, the `suspended` event), checked
// as it comes in (a saved history, add()), and cancelled when a new prompt comes instead.
import { jsonWithin, MAX_RESPONSE_DEPTH } from "../base/index.js";
import type { Message, PendingState, ToolCall, ToolResult } from "../conversation/index.js";
import { callInput, type PendingCall, type Plan } from "../loop/index.js";

/** A call in history that waits for a decision: the call, its pending result, and where its tool message is. */
export interface Waiting {
  call: ToolCall;
  result: ToolResult & { pending: PendingState };
  at: number;
}

export function waitingCalls(history: readonly Message[]): Waiting[] {
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

/** The calls in history that wait for a decision, in call order. */
export function pendingCalls(history: readonly Message[]): PendingCall[] {
  return waitingCalls(history).map(({ call, result: { name, pending } }) => ({
    callId: call.id,
    name,
    input: callInput(call.arguments),
    arguments: call.arguments,
    kind: pending.kind,
    ...(pending.message !== undefined && { message: pending.message }),
    ...(pending.schema !== undefined && { schema: pending.schema }),
  }));
}

/** A new prompt instead of decisions: every call still waiting (but those the plan decides) is cancelled; returns the undo. */
export function cancelPending(history: Message[], plan: Plan | undefined): () => void {
  const decided = (id: string) => !!plan && (plan.results.has(id) || plan.resumed.has(id));
  const saved = waitingCalls(history)
    .filter(({ call }) => !decided(call.id))
    .map(({ result }) => [result, { ...result }] as const);
  for (const [result] of saved) {
    delete (result as ToolResult).pending;
    Object.assign(result, { output: '{"error":"cancelled: no decision"}', isError: true });
  }
  return () => {
    for (const [result, was] of saved) Object.assign(result, was);
  };
}

/** A saved history's pending state, checked as it comes in (add(), createClient({ history })). */
export function checkPending(p: unknown, fail: (why: string) => never): PendingState {
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
}
