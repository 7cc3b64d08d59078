// An approval with edited input, over real HTTP against the wire-faithful mocks: the edited
// arguments replace the call's arguments in history "so the model sees what ran" (DESIGN.md,
// Suspension), and that must hold on the wire too. Claude, Responses and Gemini replay the
// model's own turn from providerData (thinking blocks and signatures, reasoning items, thought
// signatures); the request after the resume must carry the edited arguments in the replayed
// call and leave every other byte of the turn as the model sent it, an unedited call in the same
// step included, and the mock must accept it. A plain approval replays the turn unchanged.
import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { claude } from "../../adapters/claude/index.js";
import { gemini } from "../../adapters/gemini/index.js";
import { openai, openaiChat } from "../../adapters/openai/index.js";
import {
  type AssistantMessage,
  createClient,
  type Decision,
  type Message,
  type Provider,
  type RunResult,
  type StreamEvent,
  suspension,
  tool,
} from "../../src/index.js";
import { startClaudeMock } from "../mock/claude.js";
import { MOCK_API_KEY, startGeminiMock } from "../mock/gemini.js";
import { startOpenAIChatMock } from "../mock/openai-chat.js";
import { startOpenAIResponsesMock } from "../mock/openai-responses.js";
import { historyProblems } from "./helpers.js";

type Body = Record<string, any>;
type Item = Record<string, any>;
type Call = { id?: string; name: string; input: unknown; arguments?: string };
type Turn = { text?: string; toolCalls?: Call[]; thinking?: string; reasoning?: string; thoughtSignature?: string };

const SKIP = "skip_thought_signature_validator";
const SIGNATURE = "R2VtaW5pIHRob3VnaHQgc2lnbmF0dXJl";

interface Row {
  provider: Provider;
  bodies: () => Body[];
  close: () => Promise<void>;
}

/**
 * One wire format: how to start it, where the first assistant turn sits in a request body,
 * which of its items are calls (and their arguments), and what a plain replay of the model's
 * turn is (from the providerData the decoder kept: what the adapter replayed before any edit).
 */
interface Format {
  /** What the script's first turn adds for this format (thinking, reasoning, a signature). */
  extra: Partial<Turn>;
  start: (script: Turn[]) => Promise<Row>;
  turn: (body: Body) => Item[];
  /** The call ids of a turn's items (undefined for an item that is not a call), in order. */
  callIds: (items: Item[], message: AssistantMessage) => (string | undefined)[];
  args: (item: Item) => unknown;
  /** `item` (a call) with `args` in place of its own, every other field as it is. */
  withArgs: (item: Item, args: Record<string, unknown>) => Item;
  plainReplay: (message: AssistantMessage) => Item[];
}

const claudeFormat = (thinking: boolean): Format => ({
  extra: thinking ? { thinking: "The user wants both payments; look the rates up too." } : {},
  start: async (script) => {
    const mock = await startClaudeMock({ apiKey: "sk-ant-k", script: script as never });
    const provider = claude({
      apiKey: "sk-ant-k",
      model: "claude-sonnet-4-5",
      baseURL: mock.url,
      ...(thinking ? { thinking: { budgetTokens: 1024 }, maxTokens: 2048 } : {}),
    });
    return { provider, bodies: () => mock.requests.map((r) => r.body), close: () => mock.close() };
  },
  turn: (b) => b.messages[1].content,
  callIds: (items) => items.map((i) => (i.type === "tool_use" ? i.id : undefined)),
  args: (i) => i.input,
  withArgs: (i, args) => ({ ...i, input: args }),
  plainReplay: (m) => (m.providerData!.value as Item[]).filter((b) => !(b.type === "text" && !b.text.trim())),
});

const geminiFormat = (ids: boolean): Format => ({
  extra: { thoughtSignature: SIGNATURE },
  start: async (script) => {
    // without ids, as the Gemini API mostly answers: the decoder derives them
    const turns = ids ? script : script.map((t) => ({ ...t, toolCalls: t.toolCalls?.map(({ id: _id, ...c }) => c) }));
    const mock = await startGeminiMock({ script: turns as never });
    return {
      provider: gemini({ apiKey: MOCK_API_KEY, model: "gemini-3-pro-preview", baseURL: mock.url }),
      bodies: () => mock.requests.map((r) => r.body as Body),
      close: () => mock.close(),
    };
  },
  turn: (b) => b.contents[1].parts,
  callIds: (items, m) => {
    // functionCall ids when the API gave them, else the ids the decoder derived, in order
    let k = 0;
    const derived = (m.providerData!.value as { callIds: string[] }).callIds;
    return items.map((p) => (p.functionCall ? (p.functionCall.id ?? derived[k++]) : undefined));
  },
  args: (p) => p.functionCall.args,
  withArgs: (p, args) => ({ ...p, functionCall: { ...p.functionCall, args } }),
  plainReplay: (m) => (m.providerData!.value as { parts: Item[] }).parts,
});

const FORMATS: Record<string, Format> = {
  claude: claudeFormat(false),
  "claude (thinking)": claudeFormat(true),
  "openai-responses (reasoning)": {
    extra: { reasoning: "Two payments and a lookup." },
    start: async (script) => {
      const mock = await startOpenAIResponsesMock({ apiKey: "sk-k", script: script as never });
      // gpt-5 reasons: the adapter asks for encrypted reasoning, which the mock checks on replay
      return {
        provider: openai({ apiKey: "sk-k", model: "gpt-5", baseURL: mock.url }),
        bodies: () => mock.requests.map((r) => r.body as Body),
        close: () => mock.close(),
      };
    },
    turn: (b) => {
      const input = b.input as Item[];
      return input.slice(
        1,
        input.findIndex((i) => i.type === "function_call_output"),
      );
    },
    callIds: (items) => items.map((i) => (i.type === "function_call" ? i.call_id : undefined)),
    args: (i) => JSON.parse(i.arguments),
    withArgs: (i, args) => ({ ...i, arguments: JSON.stringify(args) }),
    // replayItems: verbatim, function calls without their output-only status (their item ids kept,
    // last: a reasoning item goes back with them)
    plainReplay: (m) =>
      (m.providerData!.value as Item[]).map((i) => (i.type === "function_call" ? (({ status: _s, id, ...rest }) => ({ ...rest, id }))(i) : i)),
  },
  "openai-chat": {
    extra: {},
    start: async (script) => {
      const mock = await startOpenAIChatMock({ apiKey: "sk-k", script: script as never });
      return {
        provider: openaiChat({ apiKey: "sk-k", model: "gpt-4.1", baseURL: mock.url }),
        bodies: () => mock.requests.map((r) => r.body as Body),
        close: () => mock.close(),
      };
    },
    turn: (b) => (b.messages as Item[]).find((m) => m.role === "assistant")!.tool_calls,
    callIds: (items) => items.map((i) => i.id),
    args: (i) => JSON.parse(i.function.arguments),
    withArgs: (i, args) => ({ ...i, function: { ...i.function, arguments: JSON.stringify(args) } }),
    // Chat Completions has no turn to replay: its calls are built from the neutral history
    plainReplay: (m) => m.toolCalls!.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } })),
  },
  "gemini (thought signature)": geminiFormat(true),
  "gemini (thought signature, no call ids)": geminiFormat(false),
};

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

function tools(log: string[]) {
  return [
    tool({
      name: "lookup",
      description: "Looks a thing up.",
      input: v.object({ q: v.string() }),
      run: async ({ q }) => (log.push(`lookup ${q}`), `found ${q}`),
    }),
    tool({
      name: "pay",
      description: "Pays an amount.",
      input: v.object({ amount: v.number() }),
      needsApproval: true,
      run: async ({ amount }) => (log.push(`pay ${amount}`), `paid ${amount}`),
    }),
  ];
}

async function drive(client: ReturnType<typeof createClient>, streamed: boolean, prompt: string | undefined, decisions?: Decision[]): Promise<RunResult> {
  if (!streamed) return client.run(prompt, decisions ? { decisions } : {});
  const events: StreamEvent[] = [];
  for await (const e of client.stream(prompt, decisions ? { decisions } : {})) events.push(e);
  const fin = events.at(-1)!;
  if (fin.type !== "finish") throw new Error("no finish");
  return fin;
}

const PAY1: Call = { id: "call_pay1", name: "pay", input: { amount: 40 } };
// Written with a space, as models and the OpenAI mocks may send arguments text.
const PAY2: Call = { id: "call_pay2", name: "pay", input: { amount: 7 }, arguments: '{"amount": 7}' };
const LOOK: Call = { id: "call_look", name: "lookup", input: { q: "rates" } };

for (const [name, format] of Object.entries(FORMATS)) {
  describe(`${name}: an approval with edited input reaches the wire`, () => {
    for (const streamed of [false, true]) {
      for (const [order, calls] of [
        ["the edited call first", [PAY1, LOOK, PAY2]],
        ["the edited call after an unedited one", [LOOK, PAY1, PAY2]],
      ] as const) {
        for (const edit of [true, false]) {
          const what = edit
            ? "edited input replaces the replayed call's arguments, nothing else changes"
            : "a plain approval replays the model's turn unchanged";
          it(`${what} (${order}, ${streamed ? "stream" : "run"})`, async () => {
            const script: Turn[] = [{ text: "Paying.", toolCalls: [...calls], ...format.extra }, { text: "All done." }, { text: "You are welcome." }];
            const w = await format.start(script);
            closers.push(w.close);
            const log: string[] = [];
            const opts = { provider: w.provider, tools: tools(log), suspension: suspension({ unsigned: true }) };
            const first = createClient(opts);
            const r1 = await drive(first, streamed, "Pay both and look the rates up.");
            expect(r1.status).toBe("suspended");
            const [pay1, pay2] = r1.pending.map((p) => p.callId);
            expect(r1.pending.map((p) => p.input)).toEqual([{ amount: 40 }, { amount: 7 }]);

            // resumed by a new client from the history as JSON (no cache of the first one helps)
            const second = createClient({ ...opts, history: JSON.parse(JSON.stringify(first.history)) as Message[] });
            const r2 = await drive(second, streamed, undefined, [
              edit ? { callId: pay1!, approved: true, input: { amount: 5 } } : { callId: pay1!, approved: true },
              { callId: pay2!, approved: true },
            ]);
            // the mock accepted the request after the resume (signatures, pairing, reasoning)
            expect(r2.status).toBe("done");
            expect(r2.text).toBe("All done.");
            expect(log.sort()).toEqual(["lookup rates", edit ? "pay 5" : "pay 40", "pay 7"]);
            expect(historyProblems(second.history)).toEqual([]);
            const bodies = w.bodies();
            expect(bodies).toHaveLength(2);
            expect(JSON.stringify(bodies[1])).toContain(edit ? "paid 5" : "paid 40");

            const message = second.history[1] as AssistantMessage;
            expect(message.toolCalls!.find((c) => c.id === pay1)!.arguments).toBe(edit ? '{"amount":5}' : JSON.stringify({ amount: 40 }));
            const sent = format.turn(bodies[1]!);
            const ids = format.callIds(sent, message);
            expect(ids.filter((id) => id !== undefined)).toHaveLength(calls.length);
            expect(ids).toEqual(expect.arrayContaining([pay1, pay2]));
            // what the adapter replays for a plain approval: the model's own turn
            const expected = format.plainReplay(message).map((item, i) => {
              if (!edit || format.callIds([item], message)[0] === undefined || ids[i] !== pay1) return item;
              const patched = format.withArgs(item, { amount: 5 });
              // Gemini: a signed call whose args changed carries the documented placeholder instead
              return patched.thoughtSignature ? { ...patched, thoughtSignature: SKIP } : patched;
            });
            // the same bytes, item by item: key order, signatures and the unedited calls included
            expect(sent.map((i) => JSON.stringify(i))).toEqual(expected.map((i) => JSON.stringify(i)));
            expect(format.args(sent[ids.indexOf(pay1)]!)).toEqual(edit ? { amount: 5 } : { amount: 40 });
            expect(format.args(sent[ids.indexOf(pay2)]!)).toEqual({ amount: 7 });
            if (name.startsWith("gemini")) {
              // only the first call of a step is signed; it keeps the model's signature unless it was edited
              const signed = sent.find((p) => p.functionCall)!;
              expect(signed.thoughtSignature).toBe(edit && ids[sent.indexOf(signed)] === pay1 ? SKIP : SIGNATURE);
            }
            if (name === "claude (thinking)") {
              expect(sent[0]).toEqual({ type: "thinking", thinking: format.extra.thinking, signature: expect.stringMatching(/^mocksig_/) });
            }
            if (name.startsWith("openai-responses")) {
              expect(sent[0]).toMatchObject({ type: "reasoning", encrypted_content: expect.any(String) });
              // PAY2's text as the model wrote it (with its space), not re-serialised
              expect(sent[ids.indexOf(pay2)]!.arguments).toBe('{"amount": 7}');
            }

            // every later request sends the turn byte for byte as the first one after the resume did
            expect(await second.chat("Thanks.")).toBe("You are welcome.");
            expect(JSON.stringify(format.turn(w.bodies()[2]!))).toBe(JSON.stringify(sent));
          });
        }
      }
    }
  });
}

describe("unedited calls whose neutral arguments are not the model's text replay the model's own", () => {
  it("Claude, streamed arguments written with spaces: the replayed input is the value the block holds", async () => {
    const mock = await startClaudeMock({ apiKey: "sk-ant-k", script: [{ text: "All done." }] });
    closers.push(() => mock.close());
    const frame = (data: Record<string, unknown>) => `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;
    const use = (index: number, id: string, json: string[]) => [
      frame({ type: "content_block_start", index, content_block: { type: "tool_use", id, name: "pay", input: {} } }),
      ...json.map((partial_json) => frame({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } })),
      frame({ type: "content_block_stop", index }),
    ];
    mock.enqueue({
      sse: [
        frame({
          type: "message_start",
          message: {
            id: "msg_1",
            type: "message",
            role: "assistant",
            model: "claude-sonnet-4-5",
            content: [],
            stop_reason: null,
            usage: { input_tokens: 9, output_tokens: 1 },
          },
        }),
        ...use(0, "toolu_a", ['{"amount"', ": 40}"]),
        ...use(1, "toolu_b", ['{ "amount": ', "7.0 }"]),
        frame({ type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 20 } }),
        frame({ type: "message_stop" }),
      ],
    });
    const log: string[] = [];
    const client = createClient({
      provider: claude({ apiKey: "sk-ant-k", model: "claude-sonnet-4-5", baseURL: mock.url }),
      tools: tools(log),
      suspension: suspension({ unsigned: true }),
    });
    const r1 = await drive(client, true, "pay");
    expect(r1.pending.map((p) => p.arguments)).toEqual(['{"amount": 40}', '{ "amount": 7.0 }']);
    await client.resume([
      { callId: "toolu_a", approved: true, input: { amount: 5 } },
      { callId: "toolu_b", approved: true },
    ]);
    expect(log).toEqual(["pay 5", "pay 7"]);
    const sent = mock.requests[1]!.body.messages[1].content;
    expect(sent).toEqual([
      { type: "tool_use", id: "toolu_a", name: "pay", input: { amount: 5 } },
      { type: "tool_use", id: "toolu_b", name: "pay", input: { amount: 7 } },
    ]);
  });

  it("Responses, strict mode: a call whose nulls were restored away keeps the model's text", async () => {
    const find = tool({
      name: "find",
      description: "Finds.",
      input: v.object({ q: v.string(), near: v.optional(v.string()) }),
      run: async ({ q, near }) => `found ${q} ${near ?? "anywhere"}`,
    });
    const raw = '{"q":"cafe","near":null}';
    const script = [{ toolCalls: [{ id: "call_find", name: "find", input: {}, arguments: raw }, PAY1] }, { text: "All done." }];
    const mock = await startOpenAIResponsesMock({ apiKey: "sk-k", script: script as never });
    closers.push(() => mock.close());
    const client = createClient({
      provider: openai({ apiKey: "sk-k", model: "gpt-4.1", baseURL: mock.url }),
      tools: [find, ...tools([])],
      suspension: suspension({ unsigned: true }),
    });
    await client.run("find and pay");
    // the loop sees the call the way the tool's schema describes it
    expect((client.history[1] as AssistantMessage).toolCalls![0]!.arguments).toBe('{"q":"cafe"}');
    expect((await client.resume([{ callId: "call_pay1", approved: true, input: { amount: 5 } }])).text).toBe("All done.");
    const calls = (mock.requests[1]!.body as Body).input.filter((i: Item) => i.type === "function_call");
    expect(calls.map((c: Item) => [c.call_id, c.arguments])).toEqual([
      ["call_find", raw],
      ["call_pay1", '{"amount":5}'],
    ]);
  });
});
