// A history saved in the middle of a run (an assistant message whose calls have no results
// yet) resumed with a new prompt: the repair of the unanswered calls goes right after them,
// and the answer after the new prompt, never between the repair and the prompt it answers.
// Over real HTTP against every adapter's mock, and through the scripted provider.
import { afterEach, describe, expect, it } from "vitest";
import { createClient, type Message } from "../../src/index.js";
import { scriptedProvider } from "../../src/testing.js";
import { type Mock, ROWS } from "./rows.js";
import { drive, expectValidHistory, MODES } from "./support.js";

const mocks: Mock[] = [];
afterEach(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.close()));
});

/** What a crash leaves: the question and the assistant's calls, no results. */
const savedMidRun = (): Message[] => [
  { role: "user", content: "check both" },
  {
    role: "assistant",
    content: "Let me check both.",
    toolCalls: [
      { id: "call_h1", name: "check", arguments: '{"n":1}' },
      { id: "call_h2", name: "check", arguments: '{"n":2}' },
    ],
  },
];

/** The history as role:text lines, the tool message as its call ids. */
function shape(history: readonly Message[]): string[] {
  return history.map((m) =>
    m.role === "tool" ? `tool:${m.results.map((r) => r.callId).join(",")}` : `${m.role}:${typeof m.content === "string" ? m.content : "[parts]"}`,
  );
}

const EXPECTED = ["user:check both", "assistant:Let me check both.", "tool:call_h1,call_h2", "user:please continue", "assistant:resumed ok"];

describe.each(ROWS)("$label: a new prompt on a history saved mid-run", (row) => {
  it.each(MODES)("%s: question, repair, new prompt, answer — in that order", async (mode) => {
    const m = await row.start({ script: [{ text: "resumed ok" }, { text: "after that" }] });
    mocks.push(m);
    const client = createClient({ provider: row.provider(m), history: savedMidRun() });
    await expect(drive(client, "please continue", mode)).resolves.toBe("resumed ok");
    expect(shape(client.history)).toEqual(EXPECTED);
    expectValidHistory(client);
    // The next request carries the conversation in the same order.
    await expect(drive(client, "one more", mode)).resolves.toBe("after that");
    expect(row.lastUserText(m.bodies().at(-1))).toBe("one more");
    expect(shape(client.history)).toEqual([...EXPECTED, "user:one more", "assistant:after that"]);
  });
});

describe("scripted provider: a new prompt on a history saved mid-run", () => {
  it("stores question, repair, new prompt, answer in order, and sends them so", async () => {
    const provider = scriptedProvider(["resumed ok"]);
    const client = createClient({ provider, history: savedMidRun() });
    await expect(client.chat("please continue")).resolves.toBe("resumed ok");
    expect(shape(client.history)).toEqual(EXPECTED);
    expect(shape(provider.requests[0]!.messages)).toEqual(EXPECTED.slice(0, 4));
  });

  it("a tool message left with no calls before it is dropped, and the answer still follows the prompt", async () => {
    const history: Message[] = [
      { role: "user", content: "hi" },
      { role: "tool", results: [{ callId: "call_orphan", name: "check", output: "stray", isError: false }] },
      { role: "assistant", content: "hello" },
    ];
    const client = createClient({ provider: scriptedProvider(["fine"]), history });
    await expect(client.chat("how are you")).resolves.toBe("fine");
    expect(shape(client.history)).toEqual(["user:hi", "assistant:hello", "user:how are you", "assistant:fine"]);
  });

  it("stream: the events and the history agree on the order", async () => {
    const client = createClient({ provider: scriptedProvider(["resumed ok"]), history: savedMidRun() });
    let text = "";
    for await (const ev of client.stream("please continue")) if (ev.type === "finish") text = ev.text;
    expect(text).toBe("resumed ok");
    expect(shape(client.history)).toEqual(EXPECTED);
  });
});
