// ctx.requestInput for tools published over MCP. On 2026-07-28 a question becomes the
// revision's multi-round-trip result: tools/call answers { resultType: "input_required",
// inputRequests: { <key>: elicitation/create (form) }, requestState }, the client asks its
// user and calls again with inputResponses, and the handler runs again from the start, where
// requestInput now returns the answer filed under each question's key (InputRequest.key, else
// its position). Questions asked together (Promise.all) go out in one round. Nothing is
// stored on the server: requestState carries the answers of earlier rounds, sealed
// (request-state.ts) so an edited state is refused. A bridge takes inputResponses only under the
// keys its round lists (InputRound.asked), and never over an earlier round's answer. For the
// approval (approval.ts) those are the keys the sealed state of the round before asked, on a
// retry with the same arguments, so an approval sent unasked or moved to other arguments is
// asked again; the handler's own questions (server.ts) take every key sent but `approval`, so
// an answer sent ahead of its question counts (SEP-2322). On 2025-06-18 and 2025-11-25 a client
// that declared elicitation at initialize is asked with an elicitation/create request on the
// call's own event stream (`ask`). Without a way to ask (2025-03-26 and older, or a 2025-era client
// without the elicitation capability) the call ends in a tool error that says why; a 2026-07-28
// client without it gets -32021 (MissingRequiredClientCapability), as that revision requires.

import { isRecord } from "../../../src/base/index.js";
import { isSchemaInput, type JSONSchema, toJSONSchema } from "../../../src/schema/index.js";
import type { InputRequest } from "../../../src/tools/index.js";

export interface InputRound {
  /** params.inputResponses of the retried call (keyed like the inputRequests we sent). Only those under `asked` count. */
  responses: Record<string, unknown>;
  /** The answers of earlier rounds, from a requestState whose seal was verified (request-state.ts). */
  earlier: Record<string, unknown>;
  /**
   * The keys whose answers this bridge takes. server.ts: the keys the round before asked, from that
   * same sealed state (none on a first call, or when the state is not for these arguments); the
   * handler's own bridge lists every key sent but `approval`.
   */
  asked: readonly string[];
}

export type Asked =
  | { kind: "input_required"; inputRequests: Record<string, unknown>; answers: Record<string, unknown> }
  | { kind: "refused"; message: string }
  /** 2026-07-28, a client without the elicitation capability: the request fails with -32021 (SEP-2575). */
  | { kind: "missing_capability"; message: string };

export interface InputBridge {
  requestInput: (request: InputRequest, suspend: () => void) => Promise<unknown>;
  /** After a suspended invocation: what to answer (the answers so far go into the next requestState). */
  asked(): Asked;
}

/** The elicitation schema wraps a non-object answer in one property of this name. */
const WRAPPED = "answer";

/** Sends a request to the client on the call's stream and resolves with its result (2025-era elicitation). */
export type AskClient = (method: string, params: Record<string, unknown>) => Promise<unknown>;

export function createInputBridge(round: InputRound | undefined, canElicit: boolean, ask?: { send: AskClient; withMode: boolean }): InputBridge {
  const known: Record<string, unknown> = { ...round?.earlier };
  // An answer is taken only for a question its round asked: every other key dies here.
  if (round) for (const k of round.asked) if (Object.hasOwn(round.responses, k) && !Object.hasOwn(known, k)) known[k] = round.responses[k];
  // Only answers to questions this run of the handler asked are carried on.
  const used: Record<string, unknown> = {};
  // Every question asked before the handler was abandoned: questions asked together
  // (Promise.all) go out together in one round.
  const pending: { key: string; request: InputRequest; form: ReturnType<typeof elicitationSchema> }[] = [];
  let index = 0;
  return {
    requestInput(request, suspend) {
      const i = index++;
      const k = typeof request.key === "string" && request.key !== "" ? request.key : `q${i}`;
      const form = elicitationSchema(request.schema);
      if (Object.hasOwn(known, k)) {
        used[k] = known[k];
        return Promise.resolve().then(() => readAnswer(known[k], form, request.message));
      }
      if (ask) {
        const params: Record<string, unknown> = { message: request.message, requestedSchema: form.schema };
        if (ask.withMode) params.mode = "form";
        return ask.send("elicitation/create", params).then((result) => readAnswer(result, form, request.message));
      }
      pending.push({ key: k, request, form });
      suspend();
      return new Promise<never>(() => {});
    },
    asked() {
      if (pending.length === 0) return { kind: "refused", message: "the tool suspended without a question" };
      const first = pending[0]!.request;
      if (round && !canElicit) {
        return { kind: "missing_capability", message: `Missing required client capability: elicitation (the tool asks the user "${first.message}")` };
      }
      if (!round) {
        const why =
          "this connection cannot ask the user (the client declared no elicitation, or this server takes no 2025-era answers; 2026-07-28 clients can always be asked)";
        return { kind: "refused", message: `The tool needs input from the user ("${first.message}"), but ${why}.` };
      }
      const inputRequests: Record<string, unknown> = {};
      for (const { key: k, request, form } of pending) {
        inputRequests[k] = { method: "elicitation/create", params: { mode: "form", message: request.message, requestedSchema: form.schema } };
      }
      return { kind: "input_required", inputRequests, answers: used };
    },
  };
}

/** Elicitation takes a flat object schema; anything else is asked as one property and unwrapped. */
function elicitationSchema(schema: unknown): { schema: JSONSchema; wrapped: boolean } {
  const json: JSONSchema | undefined =
    schema === undefined ? undefined : isSchemaInput(schema) ? toJSONSchema(schema, "requestInput()") : isRecord(schema) ? schema : undefined;
  if (json && json.type === "object" && isRecord(json.properties)) {
    const { $schema: _drop, ...rest } = json;
    return { schema: rest, wrapped: false };
  }
  return { schema: { type: "object", properties: { [WRAPPED]: json ?? { type: "string" } }, required: [WRAPPED] }, wrapped: true };
}

/** An elicitation result as the value requestInput resolves with; decline and cancel reject. */
function readAnswer(response: unknown, form: { wrapped: boolean }, message: string): unknown {
  if (!isRecord(response) || typeof response.action !== "string") throw new Error(`the answer to "${message}" is not an elicitation result`);
  if (response.action !== "accept") throw new Error(`the user did not answer "${message}" (${response.action})`);
  const content = isRecord(response.content) ? response.content : {};
  return form.wrapped ? content[WRAPPED] : content;
}
