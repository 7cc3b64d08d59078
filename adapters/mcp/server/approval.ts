// needsApproval for tools published over MCP. An MCP server cannot hold a call for a later
// decision, so it asks the client's user before the tool runs: one more question, under the
// fixed key `approval`, through the same input path as ctx.requestInput (input.ts): an
// input_required round on 2026-07-28, elicitation/create on the 2025 revisions that have it,
// otherwise the answer that says it cannot be asked. On 2026-07-28 the approval answer counts
// only on the retry of the round that asked it (its sealed requestState asked `approval`, for
// the same arguments: server.ts and input.ts drop every other answer), and then travels in
// requestState with the arguments it approved, so a retry with other arguments asks again.

import type { Logger } from "../../../src/base/index.js";
import { isRecord } from "../../../src/base/index.js";
import { thrownText } from "../../../src/loop/index.js";
import { checksInput, type InputRequest, type Tool, type ToolContext, toolInput } from "../../../src/tools/index.js";
import { type AskClient, type Asked, createInputBridge, type InputRound } from "./input.js";

/** The inputRequests key of the approval question; a handler's own questions are q0, q1, ... unless they name one. */
export const APPROVAL_KEY = "approval";
const NOT_APPROVED = "the user did not approve this call";
/** A flat schema, as elicitation takes. */
const APPROVAL_SCHEMA = {
  type: "object",
  properties: { approve: { type: "boolean", description: "true runs the call with these arguments; false refuses it" } },
  required: ["approve"],
};

export interface ApprovalContext {
  /** The call's arguments as the tool gets them (JSON text). */
  args: string;
  /** The same arguments as canonical JSON (sorted keys): what an approval is bound to. */
  bound: string;
  round: InputRound | undefined;
  canElicit: boolean;
  legacyAsk: { send: AskClient; withMode: boolean } | undefined;
  signal: AbortSignal;
  callId: string;
  logger: Logger;
}

export type Approval =
  /** The tool needs no approval for this input. */
  | { kind: "none" }
  /** Approved: `carry` goes into the requestState of the rounds that follow. */
  | { kind: "approved"; carry: Record<string, unknown> }
  /** Not approved (or the rule failed): a tool error with this text; the tool does not run. */
  | { kind: "refused"; message: string }
  /** The question went out, or cannot be asked. */
  | { kind: "asking"; asked: Asked }
  /** Reading the input threw (a tool() refusing its arguments): answered as the tool's own throw would be. */
  | { kind: "thrown"; error: unknown };

export async function approve(tool: Tool, name: string, c: ApprovalContext): Promise<Approval> {
  const rule = tool.needsApproval;
  let needed = rule === true;
  if (typeof rule === "function" || (needed && checksInput(tool))) {
    // Arguments a tool() would refuse never reach a question: there is nothing to approve.
    let input: unknown;
    try {
      input = await toolInput(tool, c.args);
    } catch (error) {
      return { kind: "thrown", error };
    }
    if (typeof rule === "function") {
      try {
        needed = !!(await rule(input, { signal: c.signal, callId: c.callId, logger: c.logger } satisfies ToolContext));
      } catch (err) {
        const message = thrownText(err).message;
        c.logger.warn("mcp tool needsApproval threw", { tool: name, error: message });
        return { kind: "refused", message: `the call was not run: deciding whether it needs approval failed: ${message}` };
      }
    }
  }
  if (!needed) return { kind: "none" };

  // Only an approval of these very arguments is taken from an earlier round.
  const prior = c.round?.earlier[APPROVAL_KEY];
  const round = c.round && { ...c.round, earlier: isRecord(prior) && prior.arguments === c.bound ? { [APPROVAL_KEY]: prior } : {} };
  const asking = createInputBridge(round, c.canElicit, c.legacyAsk);
  const question: InputRequest = { key: APPROVAL_KEY, message: `Allow ${name} with ${c.args}?`, schema: APPROVAL_SCHEMA };
  let suspended!: () => void;
  const waits = new Promise<{ suspended: true }>((resolve) => (suspended = () => resolve({ suspended: true })));
  const answer = asking.requestInput(question, suspended).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  const got = await Promise.race([answer, waits]);
  if ("suspended" in got) return { kind: "asking", asked: asking.asked() };
  if (c.signal.aborted) return { kind: "refused", message: "cancelled" };
  const approved = "value" in got && isRecord(got.value) && got.value.approve === true;
  c.logger.info("mcp tool approval", { tool: name, approved, ...("error" in got ? { error: thrownText(got.error).message } : {}) });
  if (!approved) return { kind: "refused", message: NOT_APPROVED };
  return { kind: "approved", carry: { [APPROVAL_KEY]: { action: "accept", content: { approve: true }, arguments: c.bound } } };
}
