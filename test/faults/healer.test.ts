// The history healer, for every adapter over real HTTP: a conversation saved in the middle
// of a run (JSON of client.history cut right after an assistant message with tool calls,
// as a crash or a serverless timeout leaves it) is resumed with createClient({ history }).
// The mocks reject unanswered tool calls the way the real APIs do, so a resumed chat that
// succeeds proves the repair reached the wire. Histories also move between providers.

import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, type Message, tool } from "../../src/index.js";
import { recordingLogger } from "../core/helpers.js";
import { type Mock, ROWS, type Row } from "./rows.js";
import { drive, expectValidHistory, MODES, type Mode, outcome } from "./support.js";

const mocks: Mock[] = [];
afterEach(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.close()));
});

/** Runs a chat that calls two tools and saves client.history from inside the first handler. */
async function savedMidRun(row: Row, mode: Mode): Promise<{ saved: string; mock: Mock }> {
  const m = await row.start({
    script: [
      {
        text: "Let me check both.",
        toolCalls: [
          { id: "call_h1", name: "check", input: { n: 1 } },
          { id: "call_h2", name: "check", input: { n: 2 } },
        ],
      },
      { text: "resumed ok" },
      { text: "after that" },
    ],
  });
  mocks.push(m);
  let saved: string | undefined;
  const controller = new AbortController();
  const client = createClient({
    provider: row.provider(m),
    tools: [
      tool({
        name: "check",
        description: "A test tool.",
        input: v.object({ n: v.number() }),
        run: () => {
          saved ??= JSON.stringify(client.history);
          controller.abort(); // the process "dies" here
          return "checked";
        },
      }),
    ],
  });
  await outcome(drive(client, "check both", mode, controller.signal));
  if (!saved) throw new Error("the tool never ran");
  return { saved, mock: m };
}

describe.each(ROWS)("$label: resuming a history saved mid-run", (row) => {
  it.each(MODES)("%s: the unanswered calls are answered 'cancelled' on the wire and the chat goes on", async (mode) => {
    const { saved, mock } = await savedMidRun(row, mode);
    const history = JSON.parse(saved) as Message[];
    expect(history.map((x) => x.role)).toEqual(["user", "assistant"]);
    expect(history[1]!.role === "assistant" && history[1]!.toolCalls!.map((c) => c.id)).toEqual(["call_h1", "call_h2"]);

    const logger = recordingLogger();
    const resumed = createClient({ provider: row.provider(mock), history, logger });
    await expect(drive(resumed, "please continue", mode)).resolves.toBe("resumed ok");
    const body = mock.bodies()[mock.bodies().length - 1];
    expect(row.toolResults(body)).toEqual([
      { id: "call_h1", output: '{"error":"cancelled"}' },
      { id: "call_h2", output: '{"error":"cancelled"}' },
    ]);
    expect(row.lastUserText(body)).toBe("please continue");
    expect(logger.entries.some((e) => e.level === "warn" && e.message === "history repaired")).toBe(true);
    expectValidHistory(resumed);
    // and the repaired history keeps working
    await expect(drive(resumed, "one more", mode)).resolves.toBe("after that");
  });

  it("stray and duplicated results in a saved history are dropped, missing ones added", async () => {
    const m = await row.start({ script: [{ text: "cleaned ok" }] });
    mocks.push(m);
    const history: Message[] = [
      { role: "tool", results: [{ callId: "call_orphan", name: "check", output: "nobody asked", isError: false }] },
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "call_a", name: "check", arguments: '{"n":1}' },
          { id: "call_b", name: "check", arguments: '{"n":2}' },
        ],
      },
      {
        role: "tool",
        results: [
          { callId: "call_b", name: "check", output: "b", isError: false },
          { callId: "call_x", name: "check", output: "stray", isError: false },
          { callId: "call_b", name: "check", output: "b again", isError: false },
        ],
      },
    ];
    const client = createClient({ provider: row.provider(m), history });
    await expect(client.chat("go on")).resolves.toBe("cleaned ok");
    expect(row.toolResults(m.bodies()[0])).toEqual([
      { id: "call_a", output: '{"error":"cancelled"}' },
      { id: "call_b", output: "b" },
    ]);
    expectValidHistory(client);
  });
});

describe("a history moves between providers", () => {
  const pairs = ROWS.flatMap((from) => ROWS.map((to) => ({ from, to, name: `${from.label} → ${to.label}` })));
  it.each(pairs)("$name: a finished tool conversation saved from one resumes on the other", async ({ from, to }) => {
    const a = await from.start({
      script: [{ text: "", toolCalls: [{ id: "call_x1", name: "check", input: { n: 1 } }] }, { text: "first done" }],
    });
    mocks.push(a);
    const check = tool({ name: "check", description: "A test tool.", input: v.object({ n: v.number() }), run: ({ n }) => `checked ${n}` });
    const first = createClient({ provider: from.provider(a), tools: [check] });
    await expect(first.chat("check")).resolves.toBe("first done");
    const saved = JSON.stringify(first.history);

    const b = await to.start({ script: [{ text: "second done" }] });
    mocks.push(b);
    const second = createClient({ provider: to.provider(b), tools: [check], history: JSON.parse(saved) as Message[] });
    await expect(second.chat("and again")).resolves.toBe("second done");
    expect(to.toolResults(b.bodies()[0])).toEqual([{ id: "call_x1", output: "checked 1" }]);
  });
});
