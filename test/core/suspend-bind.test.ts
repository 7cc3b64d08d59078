// A signature binds a waiting call to the conversation it was made in (every message before
// the assistant message that made it, and that message's text and call ids) and covers the
// question a person answers (pending.message and schema). Two conversations that share the
// secret cannot trade signed calls, and an earlier turn or the question cannot be changed
// under a call (issue 24, red-team 8). What may change after the call (messages added after
// it, a sibling's edited input, compaction before it) still resumes.
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { compaction, createClient, type Message, suspension, type ToolMessage, tool, toolOutput } from "../../src/index.js";
import { scriptedProvider } from "../../src/testing.js";
import { historyProblems } from "./helpers.js";

const SECRET = "bind-bind-bind-bind-bind-bind-bind-bind";
const waits = suspension({ secret: SECRET });

function payTool(paid: string[]) {
  return tool({
    name: "pay",
    description: "Pays an amount to someone.",
    input: v.object({ to: v.string(), amount: v.number() }),
    needsApproval: true,
    run: async ({ to, amount }) => (paid.push(`${to} ${amount}`), `paid ${to} ${amount}`),
  });
}

const askTool = tool({
  name: "choose",
  description: "Asks the user to choose an account.",
  input: v.object({}),
  run: async (_i, ctx) => `from ${String(await ctx.requestInput!({ message: "Which account?", schema: v.picklist(["checking", "savings"]) }))}`,
});

/** A conversation that suspends on a payment: `prompt`, then the model's call `pay(to, amount)` with id `id`. */
async function conversation(prompt: string, to: string, amount: number, id = "p1") {
  const client = createClient({
    provider: scriptedProvider([{ text: `Paying ${to}.`, toolCalls: [{ name: "pay", arguments: { to, amount }, id }] }]),
    tools: [payTool([])],
    suspension: waits,
  });
  await client.run(prompt);
  return client.history;
}

/** Approves every waiting call of `history` in a new client with the same secret; what ran, or the error code. */
async function approveAll(history: Message[], provider = scriptedProvider(["ok"])) {
  const paid: string[] = [];
  const client = createClient({ provider, tools: [payTool(paid), askTool], suspension: waits, history: JSON.parse(JSON.stringify(history)) as Message[] });
  const before = client.history;
  const outcome = await client.resume(client.pending.map((p) => ({ callId: p.callId, approved: true as const }))).then(
    (r) => r.status,
    (err: { code?: string }) => err.code,
  );
  if (outcome !== "done") expect(client.history).toEqual(before); // a refused batch changes nothing
  return { outcome, paid };
}

const toolMessage = (h: Message[]) => h.find((m): m is ToolMessage => m.role === "tool")!;

describe("a signed waiting call is bound to its conversation", () => {
  it("resumes in a new client of the same conversation (the baseline)", async () => {
    expect(await approveAll(await conversation("Pay Ada 40.", "ada", 40))).toEqual({ outcome: "done", paid: ["ada 40"] });
  });

  it("moved into another conversation that shares the secret, it is refused and nothing runs", async () => {
    const alice = await conversation("I am Alice. Pay Ada 40 from my account.", "ada", 40);
    const bob = await conversation("I am Bob. Pay Carl 3.", "carl", 3);
    // Bob's history keeps its own opening and takes Alice's signed call (assistant message and waiting result).
    const moved = [bob[0]!, alice[1]!, alice[2]!];
    expect(historyProblems(moved)).toEqual([]);
    expect(await approveAll(moved)).toEqual({ outcome: "invalid_decision", paid: [] });
    // ...also appended after Bob's own (answered) conversation.
    const bobDone = [...bob.slice(0, 2), { role: "tool", results: [{ callId: "p1", name: "pay", output: "denied", isError: true }] } as Message];
    expect(await approveAll([...bobDone, { role: "user", content: "and this" }, alice[1]!, alice[2]!])).toEqual({ outcome: "invalid_decision", paid: [] });
  });

  it("an earlier turn changed under the call (what the person was asked to approve for) is refused", async () => {
    const h = await conversation("Pay Ada 40.", "ada", 40);
    h[0] = { role: "user", content: "Pay Ada 40 for the invoice she sent." };
    expect(await approveAll(h)).toEqual({ outcome: "invalid_decision", paid: [] });
    const h2 = await conversation("Pay Ada 40.", "ada", 40);
    (h2[1] as { content: string }).content = "Paying Ada, as agreed.";
    expect(await approveAll(h2)).toEqual({ outcome: "invalid_decision", paid: [] });
  });

  it("a signature made before this version (0.2's, over the call alone) is refused", async () => {
    const h = await conversation("Pay Ada 40.", "ada", 40);
    const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(SECRET), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    const old = JSON.stringify(["p1", "pay", '{"to":"ada","amount":40}', "approval", [], false]);
    const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(old)));
    toolMessage(h).results[0]!.pending!.signature = btoa(String.fromCharCode(...mac));
    expect(await approveAll(h)).toEqual({ outcome: "invalid_decision", paid: [] });
  });

  it("messages added after the call do not break it (they are not part of what was signed)", async () => {
    const h = await conversation("Pay Ada 40.", "ada", 40);
    const provider = scriptedProvider(["ok"]);
    const client = createClient({ provider, tools: [payTool([])], suspension: waits, history: h });
    client.add({ role: "user", content: "Note: Ada's IBAN changed last week." });
    expect((await client.resume([{ callId: "p1", approved: true }])).status).toBe("done");
  });

  it("two calls of one step: approving one with edited input leaves the other's signature valid", async () => {
    const paid: string[] = [];
    const provider = scriptedProvider([
      {
        toolCalls: [
          { name: "pay", arguments: { to: "ada", amount: 40 }, id: "a" },
          { name: "pay", arguments: { to: "bo", amount: 5 }, id: "b" },
        ],
      },
      "ok",
    ]);
    const client = createClient({ provider, tools: [payTool(paid)], suspension: waits });
    await client.run("Pay Ada 40 and Bo 5.");
    expect((await client.resume([{ callId: "a", approved: true, input: { to: "ada", amount: 30 } }])).status).toBe("suspended");
    const again = createClient({ provider, tools: [payTool(paid)], suspension: waits, history: JSON.parse(JSON.stringify(client.history)) as Message[] });
    expect((await again.resume([{ callId: "b", approved: true }])).status).toBe("done");
    expect(paid).toEqual(["ada 30", "bo 5"]);
  });

  it("a call made after compaction summarised earlier turns resumes after a save and load", async () => {
    const provider = scriptedProvider([
      { text: "Noted.", usage: { inputTokens: 600 } },
      { text: "Ok.", usage: { inputTokens: 700 } },
      { text: "Summary: the user wants to pay Ada.", usage: { inputTokens: 10 } },
      { toolCalls: [{ name: "pay", arguments: { to: "ada", amount: 40 }, id: "p9" }], usage: { inputTokens: 20 } },
      "ok",
    ]);
    const opts = { provider, tools: [payTool([])], suspension: waits, compaction: compaction({ maxInputTokens: 500, keepRecent: 1 }) };
    const client = createClient(opts);
    await client.chat(`Context: ${"x".repeat(2000)}`);
    await client.chat("More context.");
    const events: string[] = [];
    for await (const e of client.stream("Now pay Ada 40.")) events.push(e.type);
    expect(events).toContain("compaction");
    expect(events).toContain("suspended");
    const again = createClient({ ...opts, history: JSON.parse(JSON.stringify(client.history)) as Message[] });
    expect((await again.resume([{ callId: "p9", approved: true }])).status).toBe("done");
  });

  it("media in earlier turns (a prompt's image, a tool's parts) read the same after a save and load", async () => {
    const shot = tool({
      name: "shot",
      description: "A screenshot.",
      input: v.object({}),
      run: async () =>
        toolOutput([
          { type: "text", text: "the page" },
          { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" },
        ]),
    });
    const provider = scriptedProvider([
      { toolCalls: [{ name: "shot", id: "s1" }] },
      { toolCalls: [{ name: "pay", arguments: { to: "ada", amount: 1 }, id: "p2" }] },
      "ok",
    ]);
    const opts = { provider, tools: [shot, payTool([])], suspension: waits };
    const client = createClient(opts);
    await client.run([
      { type: "text", text: "Pay what this says." },
      { type: "image", url: "https://example.com/a.png" },
    ]);
    expect(client.history[2]).toMatchObject({ role: "tool", results: [{ content: [{ type: "text" }, { type: "image" }] }] });
    const again = createClient({ ...opts, history: JSON.parse(JSON.stringify(client.history)) as Message[] });
    expect((await again.resume([{ callId: "p2", approved: true }])).status).toBe("done");
  });
});

describe("the question a person answers is signed", () => {
  async function asked() {
    const client = createClient({ provider: scriptedProvider([{ toolCalls: [{ name: "choose", id: "q1" }] }]), tools: [askTool], suspension: waits });
    await client.run("Move money.");
    return client.history;
  }

  it("an unchanged question resumes with its answer", async () => {
    const h = await asked();
    const client = createClient({ provider: scriptedProvider(["ok"]), tools: [askTool], suspension: waits, history: h });
    expect(client.pending[0]).toMatchObject({ message: "Which account?", schema: { enum: ["checking", "savings"] } });
    expect((await client.resume([{ callId: "q1", answer: "savings" }])).status).toBe("done");
  });

  it("a changed message is refused (the person would answer another question)", async () => {
    const h = await asked();
    toolMessage(h).results[0]!.pending!.message = "Which account may we close?";
    const client = createClient({ provider: scriptedProvider(["ok"]), tools: [askTool], suspension: waits, history: h });
    await expect(client.resume([{ callId: "q1", answer: "savings" }])).rejects.toMatchObject({ code: "invalid_decision" });
  });

  it("a changed schema is refused", async () => {
    const h = await asked();
    toolMessage(h).results[0]!.pending!.schema = { enum: ["checking", "savings", "close all"] };
    const client = createClient({ provider: scriptedProvider(["ok"]), tools: [askTool], suspension: waits, history: h });
    await expect(client.resume([{ callId: "q1", answer: "savings" }])).rejects.toMatchObject({ code: "invalid_decision" });
  });
});
