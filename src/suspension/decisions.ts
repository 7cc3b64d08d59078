// Decisions: a batch is checked whole before anything happens (an unknown or twice-decided
// call, the wrong form for the call's kind, a changed or unsigned call, edited input that
// fails the tool's schema: InvalidDecisionError, history untouched) and turned into a Plan
// that the loop carries out (loop/plan.ts): which calls run, with what input, and which are
// answered without running. History is only read here.
import { InvalidDecisionError, jsonWithin, MAX_ARGUMENT_DEPTH, sameSignature } from "../base/index.js";
import { type ContentPart, checkParts, type Message, renderParts, type ToolCall, type ToolResult } from "../conversation/index.js";
import { cap, capParts, type Plan, type Resumed } from "../loop/index.js";
import { type Registry, toolInput } from "../tools/index.js";
import { waitingCalls } from "./pending.js";
import type { Signer } from "./sign.js";

/** One answer to a pending call (see client.pending for what waits, and of which kind). */
export type Decision =
  | { callId: string; approved: true; input?: unknown }
  | { callId: string; approved: false; reason?: string }
  | { callId: string; answer: unknown }
  | { callId: string; output: string | { content: ContentPart[] } };

/** Checks `decisions` as a batch and plans them; throws InvalidDecisionError if any is refused. */
export async function planDecisions(history: readonly Message[], decisions: unknown, registry: Registry, max: number, sign: Signer | undefined): Promise<Plan> {
  if (!Array.isArray(decisions)) throw new InvalidDecisionError("decisions must be an array");
  const open = new Map(waitingCalls(history).map((w) => [w.call.id, w]));
  const results = new Map<string, ToolResult>();
  const resumed = new Map<string, Resumed>();
  const answered: ToolCall[] = [];
  const approved: ToolCall[] = [];

  for (const d of decisions as Record<string, unknown>[]) {
    const id = d?.callId as string;
    const refuse = (why: string): never => {
      throw new InvalidDecisionError(`decision for ${JSON.stringify(id)}: ${why}`, id);
    };
    const w = open.get(id) ?? refuse("no call waits for it (unknown, or already answered)");
    if (results.has(id) || resumed.has(id)) refuse("decided twice in one batch");
    const { call, result } = w;
    const { kind, answers } = result.pending;
    if (sign && !sameSignature(result.pending.signature, await sign(call, result.pending, history, w.at - 1))) {
      refuse("the call is unsigned, changed, or signed with another secret (or in another conversation)");
    }
    const answer = (r: Omit<ToolResult, "callId" | "name">) => results.set(id, { callId: id, name: result.name, ...r });
    // A call that runs on resume runs with the client's tools; one that only prepareStep gave
    // is not there, and the model would read "unknown tool" after the person approved.
    const runnable = () =>
      registry.tools.get(result.name) ??
      refuse(`tool "${result.name}" is not among this client's tools (one that only prepareStep gives cannot run on resume: give it to the client too)`);
    // What a person sends goes into history: it must be JSON, nested no deeper than the model's
    // arguments may be, or client.history could never be saved again (a raw RangeError).
    const json = (value: unknown, what: string) =>
      jsonWithin(value, MAX_ARGUMENT_DEPTH) ?? refuse(`${what} must be a JSON value nested at most ${MAX_ARGUMENT_DEPTH} levels deep`);
    // Results from decisions are capped by maxToolOutput like a tool's own (runOne).
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
      resumed.set(id, { approved: result.pending.approved, answers: [...(answers ?? []), JSON.parse(json(d.answer, "the answer"))] });
      answered.push(call);
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
      approved.push({ ...call, arguments: args });
    }
  }
  return { answered, approved, resumed, results };
}
