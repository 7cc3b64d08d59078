// What the "model" answers in the conformance scenario, shared by the host's mock servers
// and the in-process scripted provider. Each prompt starts with a phase marker; the answer
// depends only on the last marker in the conversation and on whether a tool result has
// come back since, so one rule serves every provider's wire format.

/** One model turn: tool calls (with JSON input) or a final text. */
export interface Turn {
  text?: string;
  toolCalls?: { name: string; input: Record<string, unknown> }[];
}

export type Phase = "parallel" | "stream" | "ask" | "abort" | "after-abort" | "approve" | "durable";

export const prompt = (phase: Phase, text: string): string => `[${phase}] ${text}`;

export const ANSWERS = {
  parallel: "parallel done",
  stream: "streamed answer: the sum is 2",
  ask: '{"city":"Paris","celsius":21}',
  afterAbort: "recovered after the abort",
  approve: "paid after approval",
  durable: "continued after the crash",
} as const;

/**
 * `conversation` is the request's messages, serialised as JSON (any provider's shape): the
 * phase comes from the last marker in it, and a tool result is recognised by the two
 * structural spellings used on the wire ("type":"tool_result" for Anthropic, "role":"tool"
 * for Chat Completions and the neutral model).
 */
export function turnFor(conversation: string): Turn {
  const markers = [...conversation.matchAll(/\[(parallel|stream|ask|abort|after-abort|approve|durable)\]/g)];
  const phase = markers.at(-1)?.[1] as Phase | undefined;
  const answered = /"type":\s*"tool_result"|"role":\s*"tool"/.test(conversation);
  switch (phase) {
    case "parallel":
      return answered
        ? { text: ANSWERS.parallel }
        : {
            toolCalls: [
              { name: "add", input: { a: 2, b: 3 } },
              { name: "shout", input: { text: "hi" } },
              { name: "add", input: { a: 4, b: 5 } },
            ],
          };
    case "stream":
      return answered ? { text: ANSWERS.stream } : { toolCalls: [{ name: "add", input: { a: 1, b: 1 } }] };
    case "ask":
      return { text: ANSWERS.ask };
    case "abort":
      // `hold` makes the tool wait until the run is aborted.
      return { toolCalls: [{ name: "shout", input: { text: "never", hold: true } }] };
    case "after-abort":
      return { text: ANSWERS.afterAbort };
    case "approve":
      // `pay` needs approval: the run suspends, and the answer comes after the resume.
      return answered ? { text: ANSWERS.approve } : { toolCalls: [{ name: "pay", input: { amount: 40 } }] };
    case "durable":
      // add settles; shout holds until the "process" running it is gone, and the run is continued in another.
      return answered
        ? { text: ANSWERS.durable }
        : {
            toolCalls: [
              { name: "add", input: { a: 2, b: 3 } },
              { name: "shout", input: { text: "cut off", hold: true } },
            ],
          };
    default:
      return { text: "no phase marker found" };
  }
}
