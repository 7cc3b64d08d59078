// 2026-07-28: an approval counts only for the question the server asked, in the round that
// asked it: its inputResponses entry is taken only when the sealed requestState of that round
// asked `approval`, on a retry with the same tool and the same arguments (compared as
// canonical JSON). So an approval can never be moved to other arguments, pre-sent without a
// question, or replayed into another round. A tool's own questions take answers sent ahead
// (SEP-2322's conformance scenario), but never replace an earlier round's, and a state from
// other arguments is not used. Raw requests over
// real HTTP play the attacker; the official v2 SDK Client checks the honest flows still work.
import { createHmac } from "node:crypto";
import * as v from "valibot";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { mcpHandler } from "../../adapters/mcp/index.js";
import { encodeHeaderValue } from "../../adapters/mcp/wire/envelope.js";
import { tool } from "../../src/index.js";
import { serveHandler } from "./helpers.js";
import { v2Client } from "./v2-suites.js";

const V = "2026-07-28";

/** What each tool ran with (only runs that reached their end). */
let ran: Record<string, unknown[]>;
beforeEach(() => {
  ran = {};
});
const record = (name: string, what: unknown) => void (ran[name] ??= []).push(what);

const pay = tool({
  name: "pay",
  description: "Pays an amount.",
  input: v.object({ amount: v.number(), to: v.optional(v.string()) }),
  needsApproval: true,
  run: ({ amount, to }) => (record("pay", amount), `paid ${amount}${to ? ` to ${to}` : ""}`),
});

/** Needs approval, then asks its own question. */
const refund = tool({
  name: "refund",
  description: "Refunds an amount after asking why.",
  input: v.object({ amount: v.number() }),
  needsApproval: true,
  run: async ({ amount }, ctx) => {
    const why = await ctx.requestInput!({ message: "Why?", schema: v.string() });
    record("refund", amount);
    return `refunded ${amount}: ${String(why)}`;
  },
});

/** Two questions in two rounds (q0, then q1), no approval. */
const book = tool({
  name: "book",
  description: "Books nights in a city.",
  input: v.object({ nights: v.number() }),
  run: async ({ nights }, ctx) => {
    const city = String(await ctx.requestInput!({ message: "Which city?", schema: v.string() }));
    const ok = (await ctx.requestInput!({ message: `Book ${nights} nights in ${city}?`, schema: v.object({ confirm: v.boolean() }) })) as { confirm: boolean };
    if (!ok.confirm) return "not booked";
    record("book", { nights, city });
    return `booked ${nights} nights in ${city}`;
  },
});

const handler = mcpHandler({ name: "binding-server", version: "1.0.0", tools: [pay, refund, book], requestStateSecret: "test-secret" });
let served: Awaited<ReturnType<typeof serveHandler>>;
beforeAll(async () => {
  served = await serveHandler(handler);
});
afterAll(() => served?.close());

let nextId = 1;
/** A well-formed 2026-07-28 tools/call over HTTP, with whatever inputResponses / requestState the caller chooses. */
async function call(name: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<any> {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": V,
    "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
    "io.modelcontextprotocol/clientInfo": { name: "attacker", version: "0" },
  };
  const res = await fetch(served.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": V,
      "mcp-method": "tools/call",
      "mcp-name": encodeHeaderValue(name),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method: "tools/call", params: { name, arguments: args, ...extra, _meta: meta } }),
  });
  expect(res.status).toBe(200);
  const json = (await res.json()) as { result?: unknown; error?: unknown };
  expect(json.error).toBeUndefined();
  return json.result;
}

const approve = { approval: { action: "accept", content: { approve: true } } };
const answer = (value: unknown) => ({ action: "accept", content: value });
/** An input_required result asking exactly these questions (key → message). */
const asking = (questions: Record<string, string>) => ({
  resultType: "input_required",
  inputRequests: Object.fromEntries(
    Object.entries(questions).map(([k, message]) => [k, { method: "elicitation/create", params: expect.objectContaining({ mode: "form", message }) }]),
  ),
  requestState: expect.any(String),
});

describe("an approval holds only for the round that asked it, with the arguments it showed", () => {
  it("P1: round 1's approval of {amount:50} sent on a retry with {amount:5000} is asked again; the tool does not run", async () => {
    const first = await call("pay", { amount: 50 });
    expect(first).toEqual(asking({ approval: 'Allow pay with {"amount":50}?' }));
    const swapped = await call("pay", { amount: 5000 }, { inputResponses: approve, requestState: first.requestState });
    expect(swapped).toEqual(asking({ approval: 'Allow pay with {"amount":5000}?' }));
    // Extra arguments are other arguments too.
    const widened = await call("pay", { amount: 50, to: "mallory" }, { inputResponses: approve, requestState: first.requestState });
    expect(widened).toEqual(asking({ approval: 'Allow pay with {"amount":50,"to":"mallory"}?' }));
    expect(ran.pay).toBeUndefined();
  });

  it("P1b: an approval sent on a first call (no requestState) was never asked: asked now, the tool does not run", async () => {
    expect(await call("pay", { amount: 7 }, { inputResponses: approve })).toEqual(asking({ approval: 'Allow pay with {"amount":7}?' }));
    expect(ran.pay).toBeUndefined();
  });

  it("approved with unchanged arguments (keys in another order count as the same): runs once", async () => {
    const first = await call("pay", { amount: 50, to: "bob" });
    const done = await call("pay", { to: "bob", amount: 50 }, { inputResponses: approve, requestState: first.requestState });
    expect(done).toEqual({ resultType: "complete", content: [{ type: "text", text: "paid 50 to bob" }], isError: false });
    expect(ran.pay).toEqual([50]);
  });

  it("a state whose round asked another question does not take an approval answer (the approval it carries is its own)", async () => {
    // Round 2's state asked only q0: an approval answer on round 3 is not read, the carried one is.
    const first = await call("refund", { amount: 5 });
    const second = await call("refund", { amount: 5 }, { inputResponses: approve, requestState: first.requestState });
    expect(second).toEqual(asking({ q0: "Why?" }));
    const declineIgnored = await call(
      "refund",
      { amount: 5 },
      { inputResponses: { approval: { action: "decline" }, q0: answer({ answer: "late" }) }, requestState: second.requestState },
    );
    expect(declineIgnored).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "refunded 5: late" }], isError: false });
    // And round 2's state does not carry that approval to other arguments.
    const moved = await call(
      "refund",
      { amount: 900 },
      { inputResponses: { approval: approve.approval, q0: answer({ answer: "x" }) }, requestState: second.requestState },
    );
    expect(moved).toEqual(asking({ approval: 'Allow refund with {"amount":900}?' }));
    expect(ran.refund).toEqual([5]);
  });
});

describe("a state sealed before answers were bound (layout v2: answers only)", () => {
  /** A v2 state as the earlier server sealed it, with this handler's secret: authentic, but it names no question or arguments. */
  const v2State = (tool: string, answers: Record<string, unknown>) => {
    const body = Buffer.from(JSON.stringify({ v: 2, answers })).toString("base64url");
    return `${body}.${createHmac("sha256", "test-secret").update(`${tool}\n${body}`).digest("base64url")}`;
  };

  it("opens (no -32602), but binds nothing: the approval it carries and the answer sent with it are asked again", async () => {
    const carried = { approval: { action: "accept", content: { approve: true }, arguments: '{"amount":50}' } };
    expect(await call("pay", { amount: 50 }, { inputResponses: approve, requestState: v2State("pay", {}) })).toEqual(
      asking({ approval: 'Allow pay with {"amount":50}?' }),
    );
    expect(await call("refund", { amount: 50 }, { inputResponses: { q0: answer({ answer: "x" }) }, requestState: v2State("refund", carried) })).toEqual(
      asking({ approval: 'Allow refund with {"amount":50}?' }),
    );
    expect(ran).toEqual({});
  });
});

describe("a tool's own questions: answers sent ahead are taken (SEP-2322), earlier rounds' answers stay, other arguments start over", () => {
  it("an answer sent before its question (no state) is taken, as the conformance suite expects; only the next question is asked", async () => {
    expect(await call("book", { nights: 2 }, { inputResponses: { q0: answer({ answer: "Oslo" }), extra: answer({ x: 1 }) } })).toEqual(
      asking({ q1: "Book 2 nights in Oslo?" }),
    );
    expect(ran.book).toBeUndefined();
  });

  it("answers to this round's and the next round's question, sent together, complete the call", async () => {
    const first = await call("book", { nights: 2 });
    const second = await call(
      "book",
      { nights: 2 },
      { inputResponses: { q0: answer({ answer: "Oslo" }), q1: answer({ confirm: true }) }, requestState: first.requestState },
    );
    expect(second).toEqual({ resultType: "complete", content: [{ type: "text", text: "booked 2 nights in Oslo" }], isError: false });
    expect(ran.book).toEqual([{ nights: 2, city: "Oslo" }]);
  });

  it("an approval is never taken ahead: sent with the tool's own answer on a first call, the approval is asked and nothing runs", async () => {
    expect(await call("refund", { amount: 3 }, { inputResponses: { ...approve, q0: answer({ answer: "broken" }) } })).toEqual(
      asking({ approval: 'Allow refund with {"amount":3}?' }),
    );
    expect(ran).toEqual({});
  });

  it("an earlier round's answer cannot be replaced by sending it again", async () => {
    const first = await call("book", { nights: 2 });
    const second = await call("book", { nights: 2 }, { inputResponses: { q0: answer({ answer: "Oslo" }) }, requestState: first.requestState });
    const done = await call(
      "book",
      { nights: 2 },
      { inputResponses: { q0: answer({ answer: "Pyongyang" }), q1: answer({ confirm: true }) }, requestState: second.requestState },
    );
    expect(done).toEqual({ resultType: "complete", content: [{ type: "text", text: "booked 2 nights in Oslo" }], isError: false });
    expect(ran.book).toEqual([{ nights: 2, city: "Oslo" }]);
  });

  it("a state from other arguments is not used: the call starts over with its first question", async () => {
    const first = await call("book", { nights: 2 });
    const second = await call("book", { nights: 2 }, { inputResponses: { q0: answer({ answer: "Oslo" }) }, requestState: first.requestState });
    const other = await call("book", { nights: 9 }, { inputResponses: { q1: answer({ confirm: true }) }, requestState: second.requestState });
    expect(other).toEqual(asking({ q0: "Which city?" }));
    expect(ran.book).toBeUndefined();
  });
});

describe("the honest flows, with the official v2 SDK Client over HTTP", () => {
  it("approval, then the tool's own question: each asked once, the tool runs once", async () => {
    const asked: string[] = [];
    const answers: Record<string, Record<string, unknown>> = {
      "Why?": { answer: "damaged" },
      "Which city?": { answer: "Oslo" },
      "Book 3 nights in Oslo?": { confirm: true },
    };
    const client = await v2Client(served.url, "auto", (message) => (asked.push(message), answers[message] ?? { approve: true }));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(V);
      expect((await client.callTool({ name: "pay", arguments: { amount: 50 } })).content).toEqual([{ type: "text", text: "paid 50" }]);
      expect((await client.callTool({ name: "refund", arguments: { amount: 9 } })).content).toEqual([{ type: "text", text: "refunded 9: damaged" }]);
      expect((await client.callTool({ name: "book", arguments: { nights: 3 } })).content).toEqual([{ type: "text", text: "booked 3 nights in Oslo" }]);
      expect(asked).toEqual(['Allow pay with {"amount":50}?', 'Allow refund with {"amount":9}?', "Why?", "Which city?", "Book 3 nights in Oslo?"]);
      expect(ran).toEqual({ pay: [50], refund: [9], book: [{ nights: 3, city: "Oslo" }] });
    } finally {
      await client.close();
    }
  });
});
