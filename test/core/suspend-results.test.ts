// Results made from decisions are treated like a tool's own: maxToolOutput caps an external
// tool's output and a denial's reason (issue 24, red-team 5), and the calls decisions run are
// counted in the resumed run's RunResult and `finish` event (newcomer 3).
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { type Client, createClient, externalTool, type RunResult, type StreamEvent, suspension, tool } from "../../src/index.js";
import { type RecordedRequest, scriptedProvider } from "../../src/testing.js";

const waits = suspension({ unsigned: true });
const MAX = 50;
const LONG = "y".repeat(1000);

/** The tool results the provider was sent last. */
function lastSent(requests: RecordedRequest[]) {
  return requests.at(-1)!.messages.flatMap((m) => (m.role === "tool" ? m.results : []));
}

describe("maxToolOutput caps results built from decisions", () => {
  const screenshot = externalTool({ name: "screenshot", description: "Runs in the page.", input: v.object({}) });
  const pay = tool({ name: "pay", description: "Pays.", input: v.object({}), needsApproval: true, run: async () => "paid" });

  async function waiting(name: string) {
    const provider = scriptedProvider([{ toolCalls: [{ name, id: "c" }] }, "ok"]);
    const client = createClient({ provider, tools: [screenshot, pay], suspension: waits, maxToolOutput: MAX });
    await client.run("x");
    return { client, provider };
  }

  it("an external tool's string output, as a tool's string result is", async () => {
    const { client, provider } = await waiting("screenshot");
    await client.resume([{ callId: "c", output: LONG }]);
    const [r] = lastSent(provider.requests);
    expect(r!.output).toBe(`${"y".repeat(MAX)}\n[truncated: ${1000 - MAX} more characters]`);
  });

  it("an external tool's { content } output: its text parts, as a tool's media result's are (images pass whole)", async () => {
    const { client, provider } = await waiting("screenshot");
    const image = { type: "image" as const, mediaType: "image/png", data: "iVBORw0KGgo=" };
    await client.resume([{ callId: "c", output: { content: [{ type: "text", text: LONG }, image] } }]);
    const [r] = lastSent(provider.requests);
    expect(r!.content).toEqual([{ type: "text", text: `${"y".repeat(MAX)}\n[truncated: ${1000 - MAX} more characters]` }, image]);
    expect(r!.output.length).toBeLessThan(200);
  });

  it("a denial's reason, inside its JSON (which stays valid), as a thrown error's message is", async () => {
    const { client, provider } = await waiting("pay");
    await client.resume([{ callId: "c", approved: false, reason: LONG }]);
    const [r] = lastSent(provider.requests);
    expect(r!.isError).toBe(true);
    const error = (JSON.parse(r!.output) as { error: string }).error;
    expect(error).toBe(`denied: ${LONG}`.slice(0, MAX) + `\n[truncated: ${`denied: ${LONG}`.length - MAX} more characters]`);
  });

  it("a denial's reason that is not a string is refused (InvalidDecisionError), the call still waiting", async () => {
    const { client } = await waiting("pay");
    await expect(client.resume([{ callId: "c", approved: false, reason: { why: "no" } as never }])).rejects.toMatchObject({ code: "invalid_decision" });
    expect(client.pending.map((p) => p.callId)).toEqual(["c"]);
  });
});

describe("a resumed run counts the calls its decisions ran", () => {
  const ran: string[] = [];
  const pay = tool({ name: "pay", description: "Pays.", input: v.object({}), needsApproval: true, run: async () => (ran.push("pay"), "paid") });
  const fail = tool({
    name: "fail",
    description: "Fails.",
    input: v.object({}),
    needsApproval: true,
    run: async () => Promise.reject(new Error("card declined")),
  });
  const choose = tool({
    name: "choose",
    description: "Asks.",
    input: v.object({}),
    run: async (_i, ctx) => String(await ctx.requestInput!({ message: "Which?" })),
  });
  const screenshot = externalTool({ name: "screenshot", description: "Runs in the page.", input: v.object({}) });

  function waitingOn(...names: string[]): Client {
    return createClient({
      provider: scriptedProvider([{ toolCalls: names.map((name, i) => ({ name, id: `c${i}` })) }, "ok"]),
      tools: [pay, fail, choose, screenshot],
      suspension: waits,
    });
  }

  /** RunResult and the `finish` event's counts, for a resume of `names` with `decide`. */
  async function counts(names: string[], decisions: Parameters<Client["resume"]>[0]) {
    const a = waitingOn(...names);
    await a.run("x");
    const r: RunResult = await a.resume(decisions);
    const b = waitingOn(...names);
    await b.run("x");
    const events: StreamEvent[] = [];
    for await (const e of b.stream(undefined, { decisions })) events.push(e);
    const finish = events.at(-1) as StreamEvent & { type: "finish" };
    expect(finish.type).toBe("finish");
    expect([finish.toolCalls, finish.toolFailures]).toEqual([r.toolCalls, r.toolFailures]);
    return { toolCalls: r.toolCalls, toolFailures: r.toolFailures };
  }

  it("an approved call that ran: toolCalls 1", async () => {
    expect(await counts(["pay"], [{ callId: "c0", approved: true }])).toEqual({ toolCalls: 1, toolFailures: 0 });
  });

  it("an approved call that failed: toolCalls 1, toolFailures 1", async () => {
    expect(await counts(["fail"], [{ callId: "c0", approved: true }])).toEqual({ toolCalls: 1, toolFailures: 1 });
  });

  it("an answered requestInput: the handler ran again, toolCalls 1", async () => {
    expect(await counts(["choose"], [{ callId: "c0", answer: "a" }])).toEqual({ toolCalls: 1, toolFailures: 0 });
  });

  it("a denial and an external output ran nothing: toolCalls 0", async () => {
    expect(
      await counts(
        ["pay", "screenshot"],
        [
          { callId: "c0", approved: false },
          { callId: "c1", output: "done" },
        ],
      ),
    ).toEqual({ toolCalls: 0, toolFailures: 0 });
  });

  it("decisions with a new prompt: the new run counts the calls the decisions ran, and its own", async () => {
    const provider = scriptedProvider([{ toolCalls: [{ name: "pay", id: "c0" }] }, { toolCalls: [{ name: "choose", id: "c1" }] }]);
    const client = createClient({ provider, tools: [pay, choose], suspension: waits });
    await client.run("x");
    const r = await client.run("and then?", { decisions: [{ callId: "c0", approved: true }] });
    expect(r.status).toBe("suspended");
    expect(r.toolCalls).toBe(2);
  });
});
