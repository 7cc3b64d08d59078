// ctx.requestInput for tools published over MCP. On 2026-07-28 a question becomes the
// revision's multi-round-trip result: tools/call answers { resultType: "input_required",
// inputRequests: { q<n>: elicitation/create (form) } , requestState }, the client asks its
// user and calls again with inputResponses, and the handler runs again from the start,
// where requestInput now returns the answers in call order. Nothing is stored on the
// server: requestState carries the answers of earlier rounds (the client's own words, so
// a client that edits it learns nothing it could not have said directly). On 2025-06-18 and
// 2025-11-25 a client that declared elicitation at initialize is asked with an
// elicitation/create request on the call's own event stream (`ask`). Without a way to ask
// (2025-03-26 and older, or a client without the elicitation capability) the call ends in a
// tool error that says why.
import { isSchemaInput, toJSONSchema, type JSONSchema } from "../../src/schema.js";
import type { InputRequest } from "../../src/tool.js";
import { isObject } from "./jsonrpc.js";

export interface InputRound {
  /** params.inputResponses of the retried call (keyed like the inputRequests we sent). */
  responses: Record<string, unknown>;
  /** params.requestState of the retried call, as we sent it. */
  state: string | undefined;
}

export type Asked =
  | { kind: "input_required"; result: { inputRequests: Record<string, unknown>; requestState: string } }
  | { kind: "refused"; message: string };

export interface InputBridge {
  requestInput: (request: InputRequest, suspend: () => void) => Promise<unknown>;
  /** After a suspended invocation: what to answer. */
  asked(): Asked;
}

/** The elicitation schema wraps a non-object answer in one property of this name. */
const WRAPPED = "answer";

/** Sends a request to the client on the call's stream and resolves with its result (2025-era elicitation). */
export type AskClient = (method: string, params: Record<string, unknown>) => Promise<unknown>;

export function createInputBridge(round: InputRound | undefined, canElicit: boolean, ask?: { send: AskClient; withMode: boolean }): InputBridge {
  const answers = round ? readState(round.state) : [];
  // The newest round's answer arrives under the key of the question we asked last.
  if (round) {
    const latest = round.responses[key(answers.length)];
    if (latest !== undefined) answers.push(latest);
  }
  let index = 0;
  let pending: { request: InputRequest; index: number } | undefined;
  return {
    requestInput(request, suspend) {
      const i = index++;
      const form = elicitationSchema(request.schema);
      if (i < answers.length) return Promise.resolve().then(() => readAnswer(answers[i], form, request.message));
      if (ask) {
        const params: Record<string, unknown> = { message: request.message, requestedSchema: form.schema };
        if (ask.withMode) params.mode = "form";
        return ask.send("elicitation/create", params).then((result) => readAnswer(result, form, request.message));
      }
      pending = { request, index: i };
      suspend();
      return new Promise<never>(() => {});
    },
    asked() {
      if (!pending) return { kind: "refused", message: "the tool suspended without a question" };
      const { request, index: i } = pending;
      if (!round || !canElicit) {
        const why = round
          ? "this client does not declare the elicitation capability"
          : "this connection cannot ask the user (the client declared no elicitation, or this server takes no 2025-era answers; 2026-07-28 clients can always be asked)";
        return { kind: "refused", message: `The tool needs input from the user ("${request.message}"), but ${why}.` };
      }
      const form = elicitationSchema(request.schema);
      return {
        kind: "input_required",
        result: {
          inputRequests: { [key(i)]: { method: "elicitation/create", params: { mode: "form", message: request.message, requestedSchema: form.schema } } },
          requestState: writeState(answers.slice(0, i)),
        },
      };
    },
  };
}

const key = (i: number) => `q${i}`;

/** Elicitation takes a flat object schema; anything else is asked as one property and unwrapped. */
function elicitationSchema(schema: unknown): { schema: JSONSchema; wrapped: boolean } {
  const json: JSONSchema | undefined = schema === undefined ? undefined : isSchemaInput(schema) ? toJSONSchema(schema, "requestInput()") : isObject(schema) ? schema : undefined;
  if (json && json.type === "object" && isObject(json.properties)) {
    const { $schema: _drop, ...rest } = json;
    return { schema: rest, wrapped: false };
  }
  return { schema: { type: "object", properties: { [WRAPPED]: json ?? { type: "string" } }, required: [WRAPPED] }, wrapped: true };
}

/** An elicitation result as the value requestInput resolves with; decline and cancel reject. */
function readAnswer(response: unknown, form: { wrapped: boolean }, message: string): unknown {
  if (!isObject(response) || typeof response.action !== "string") throw new Error(`the answer to "${message}" is not an elicitation result`);
  if (response.action !== "accept") throw new Error(`the user did not answer "${message}" (${response.action})`);
  const content = isObject(response.content) ? response.content : {};
  return form.wrapped ? content[WRAPPED] : content;
}

function writeState(answers: unknown[]): string {
  return btoa(encodeURIComponent(JSON.stringify({ v: 1, answers })));
}

function readState(state: string | undefined): unknown[] {
  if (!state) return [];
  try {
    const value = JSON.parse(decodeURIComponent(atob(state))) as unknown;
    return isObject(value) && Array.isArray(value.answers) ? value.answers : [];
  } catch {
    return []; // not ours: start over, the client is asked again
  }
}
