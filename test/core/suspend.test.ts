// Suspension and resume over the scripted provider: approval, input requests and external
// tools are one mechanism (pending results in history), decisions are checked as a batch,
// and a pending result never reaches a provider.
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { createClient, externalTool, jsonTool, type Message, type StreamEvent, suspension, type Tool, tool } from "../../src/index.js";
import { type RecordedRequest, scriptedProvider } from "../../src/testing.js";
import { historyProblems } from "./helpers.js";

function pay(log: string[], needsApproval: Tool["needsApproval"] = true) {
  return tool({
    name: "pay",
    description: "Pays an amount.",
    input: v.object({ amount: v.number() }),
    needsApproval: needsApproval as never,
    run: async ({ amount }) => {
      log.push(`pay ${amount}`);
      return `paid ${amount}`;
    },
  });
}

function lookup(log: string[]) {
  return tool({
    name: "lookup",
    description: "Looks up.",
    input: v.object({ q: v.string() }),
    run: async ({ q }) => {
      log.push(`lookup ${q}`);
      return `found ${q}`;
    },
  });
}

/** Every tool result the provider was sent, by call id (none may be pending). */
function sentResults(requests: RecordedRequest[]) {
  return requests.flatMap((r) => r.messages.flatMap((m) => (m.role === "tool" ? m.results : [])));
}

describe("suspension", () => {
  it("a step runs the calls that need nothing once, then suspends for the approval; approving runs it and the loop goes on", async () => {
    const log: string[] = [];
    const provider = scriptedProvider([
      {
        toolCalls: [
          { name: "lookup", arguments: { q: "a" }, id: "c1" },
          { name: "pay", arguments: { amount: 40 }, id: "c2" },
        ],
      },
      "done",
    ]);
    const client = createClient({ suspension: suspension({ unsigned: true }), provider, tools: [lookup(log), pay(log)] });
    const r = await client.run("pay 40");
    expect(r.status).toBe("suspended");
    expect(r.pending).toEqual([{ callId: "c2", name: "pay", input: { amount: 40 }, arguments: '{"amount":40}', kind: "approval" }]);
    expect(log).toEqual(["lookup a"]);
    expect(client.pending).toEqual(r.pending);
    expect(provider.requests).toHaveLength(1);
    expect(historyProblems(client.history)).toEqual([]);

    const r2 = await client.resume([{ callId: "c2", approved: true }]);
    expect(r2.status).toBe("done");
    expect(r2.text).toBe("done");
    expect(log).toEqual(["lookup a", "pay 40"]);
    const sent = sentResults(provider.requests);
    expect(sent.map((x) => [x.callId, x.output])).toEqual([
      ["c1", "found a"],
      ["c2", "paid 40"],
    ]);
    expect(sent.every((x) => x.pending === undefined)).toBe(true);
    expect(client.pending).toEqual([]);
  });

  it("chat() and ask() reject with SuspendedError; stream() yields suspended then finish", async () => {
    const log: string[] = [];
    const turns = [{ toolCalls: [{ name: "pay", arguments: { amount: 1 }, id: "p1" }] }, "ok"];
    const c1 = createClient({ suspension: suspension({ unsigned: true }), provider: scriptedProvider(turns), tools: [pay(log)] });
    await expect(c1.chat("x")).rejects.toMatchObject({ code: "suspended", pending: [{ callId: "p1", kind: "approval" }] });
    expect(await c1.chat(undefined, { decisions: [{ callId: "p1", approved: false, reason: "too much" }] })).toBe("ok");
    expect(log).toEqual([]);
    const denied = c1.history.find((m) => m.role === "tool");
    expect(denied).toMatchObject({ results: [{ callId: "p1", output: '{"error":"denied: too much"}', isError: true }] });

    const c2 = createClient({ suspension: suspension({ unsigned: true }), provider: scriptedProvider(turns), tools: [pay(log)] });
    const events: StreamEvent[] = [];
    for await (const e of c2.stream("x")) events.push(e);
    const tail = events.slice(-2);
    expect(tail[0]).toMatchObject({ type: "suspended", pending: [{ callId: "p1" }] });
    expect(tail[1]).toMatchObject({ type: "finish", status: "suspended" });
    const resumed: StreamEvent[] = [];
    for await (const e of c2.stream(undefined, { decisions: [{ callId: "p1", approved: true }] })) resumed.push(e);
    expect(resumed.find((e) => e.type === "tool-result")).toMatchObject({ callId: "p1", output: "paid 1" });
    expect(resumed.at(-1)).toMatchObject({ type: "finish", status: "done", text: "ok" });

    const c3 = createClient({ suspension: suspension({ unsigned: true }), provider: scriptedProvider([turns[0]!, '{"n":1}']), tools: [pay(log)] });
    await expect(c3.ask("x", v.object({ n: v.number() }))).rejects.toMatchObject({ code: "suspended" });
    expect(await c3.ask(undefined, v.object({ n: v.number() }), { decisions: [{ callId: "p1", approved: true }] })).toEqual({ n: 1 });
  });

  it("approval with edited input runs the edited input; edited input that fails the schema is refused and changes nothing", async () => {
    const log: string[] = [];
    const provider = scriptedProvider([{ toolCalls: [{ name: "pay", arguments: { amount: 400 }, id: "p1" }] }, "ok"]);
    const client = createClient({ suspension: suspension({ unsigned: true }), provider, tools: [pay(log)] });
    await client.run("x");
    const before = client.history;
    await expect(client.resume([{ callId: "p1", approved: true, input: { amount: "lots" } }])).rejects.toMatchObject({
      code: "invalid_decision",
      callId: "p1",
    });
    expect(client.history).toEqual(before);
    expect(provider.requests).toHaveLength(1);
    expect(log).toEqual([]);
    const r = await client.resume([{ callId: "p1", approved: true, input: { amount: 40 } }]);
    expect(r.text).toBe("ok");
    expect(log).toEqual(["pay 40"]);
  });

  it("needsApproval as a function gets the validated input", async () => {
    const log: string[] = [];
    const seen: unknown[] = [];
    const rule = (input: { amount: number }) => {
      seen.push(input);
      return input.amount > 100;
    };
    const provider = scriptedProvider([
      {
        toolCalls: [
          { name: "pay", arguments: { amount: 5 }, id: "a" },
          { name: "pay", arguments: '```json\n{"amount": 500}\n```', id: "b" },
        ],
      },
      "ok",
    ]);
    const client = createClient({ suspension: suspension({ unsigned: true }), provider, tools: [pay(log, rule as never)] });
    const r = await client.run("x");
    expect(seen).toEqual([{ amount: 5 }, { amount: 500 }]);
    expect(r.pending.map((p) => p.callId)).toEqual(["b"]);
    expect(log).toEqual(["pay 5"]);
  });

  it("a hand-written Tool with needsApproval suspends too", async () => {
    const calls: string[] = [];
    const raw: Tool = {
      name: "rm",
      description: "Deletes.",
      parameters: { type: "object", properties: { path: { type: "string" } } },
      needsApproval: (input) => (input as { path: string }).path.startsWith("/"),
      call: async (input) => {
        calls.push(input);
        return "deleted";
      },
    };
    const client = createClient({
      suspension: suspension({ unsigned: true }),
      provider: scriptedProvider([{ toolCalls: [{ name: "rm", arguments: { path: "/etc" }, id: "r1" }] }, "ok"]),
      tools: [raw],
    });
    expect((await client.run("x")).pending[0]).toMatchObject({ callId: "r1", kind: "approval", input: { path: "/etc" } });
    expect(calls).toEqual([]);
    await client.resume([{ callId: "r1", approved: true }]);
    expect(calls).toEqual(['{"path":"/etc"}']);
  });

  it("a call that waits is logged as waiting, with its kind, not as cancelled", async () => {
    const lines: [string, string, unknown][] = [];
    const at = (level: string) => (msg: string, fields?: unknown) => void lines.push([level, msg, fields]);
    const logger = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
    const ask = tool({
      name: "ask",
      description: "Asks.",
      input: v.object({}),
      run: async (_i, ctx) => String(await ctx.requestInput!({ message: "sure?" })),
    });
    const provider = scriptedProvider([
      {
        toolCalls: [
          { name: "pay", arguments: { amount: 1 }, id: "c1" },
          { name: "ask", arguments: {}, id: "c2" },
        ],
      },
    ]);
    const client = createClient({ suspension: suspension({ unsigned: true }), provider, tools: [pay([]), ask], logger, parallelTools: true });
    expect((await client.run("go")).status).toBe("suspended");
    const waits = lines.filter(([, msg]) => msg === "tool waits for a decision").map(([level, , f]) => [level, f]);
    expect(waits).toEqual([
      ["info", { tool: "pay", kind: "approval" }],
      ["info", { tool: "ask", kind: "input" }],
    ]);
    expect(lines.some(([, msg]) => msg === "tool cancelled")).toBe(false);
  });

  it("requestInput suspends; on resume the handler runs again with the same input and gets the answers in call order", async () => {
    const runs: unknown[] = [];
    const transfer = tool({
      name: "transfer",
      description: "Moves money.",
      input: v.object({ amount: v.number() }),
      run: async ({ amount }, ctx) => {
        runs.push(amount);
        const account = await ctx.requestInput!({ message: "Which account?", schema: v.picklist(["checking", "savings"]) });
        const ok = await ctx.requestInput!({ message: `Move ${amount} from ${account}?`, schema: v.boolean() });
        return { amount, account, ok };
      },
    });
    const provider = scriptedProvider([{ toolCalls: [{ name: "transfer", arguments: { amount: 7 }, id: "t1" }] }, "moved"]);
    const client = createClient({ suspension: suspension({ unsigned: true }), provider, tools: [transfer] });
    const r = await client.run("move 7");
    expect(r.pending).toEqual([
      {
        callId: "t1",
        name: "transfer",
        input: { amount: 7 },
        arguments: '{"amount":7}',
        kind: "input",
        message: "Which account?",
        schema: { type: "string", enum: ["checking", "savings"] },
      },
    ]);
    // an answer that fails the schema the handler asks with is refused; nothing changes
    const before = JSON.stringify(client.history);
    await expect(client.resume([{ callId: "t1", answer: "offshore" }])).rejects.toMatchObject({ code: "invalid_decision" });
    expect(JSON.stringify(client.history)).toBe(before);
    const r2 = await client.resume([{ callId: "t1", answer: "savings" }]);
    expect(r2.pending).toMatchObject([{ callId: "t1", kind: "input", message: "Move 7 from savings?" }]);
    // the saved state travels as JSON to a new client
    const saved = JSON.parse(JSON.stringify(client.history)) as Message[];
    const client2 = createClient({ suspension: suspension({ unsigned: true }), provider, tools: [transfer], history: saved });
    expect(client2.pending).toEqual(r2.pending);
    const r3 = await client2.resume([{ callId: "t1", answer: true }]);
    expect(r3.text).toBe("moved");
    expect(runs).toEqual([7, 7, 7, 7]);
    expect(sentResults(provider.requests).map((x) => x.output)).toEqual(['{"amount":7,"account":"savings","ok":true}']);
  });

  it("with two answers in a batch, one bad refuses it before either handler goes past its requestInput; the good batch runs each once", async () => {
    const log: string[] = [];
    const move = tool({
      name: "move",
      description: "Moves money.",
      input: v.object({ n: v.number() }),
      run: async ({ n }, ctx) => {
        const from = await ctx.requestInput!({ message: "From?", schema: v.picklist(["savings", "checking"]) });
        log.push(`moved ${n} from ${String(from)}`);
        return "ok";
      },
    });
    for (const parallelTools of [false, true]) {
      log.length = 0;
      const provider = scriptedProvider([
        {
          toolCalls: [
            { name: "move", arguments: { n: 1 }, id: "a" },
            { name: "move", arguments: { n: 2 }, id: "b" },
          ],
        },
        "done",
      ]);
      const client = createClient({ suspension: suspension({ unsigned: true }), provider, tools: [move], parallelTools });
      expect((await client.run("go")).pending.map((p) => p.callId)).toEqual(["a", "b"]);
      const before = JSON.stringify(client.history);
      await expect(
        client.resume([
          { callId: "a", answer: "savings" },
          { callId: "b", answer: "bogus" },
        ]),
      ).rejects.toMatchObject({ code: "invalid_decision", callId: "b" });
      expect(log).toEqual([]);
      expect(JSON.stringify(client.history)).toBe(before);
      expect(
        (
          await client.resume([
            { callId: "a", answer: "savings" },
            { callId: "b", answer: "checking" },
          ])
        ).text,
      ).toBe("done");
      expect(log.sort()).toEqual(["moved 1 from savings", "moved 2 from checking"]);
    }
  });

  it("an external tool never runs; its output (string or content parts) comes as a decision", async () => {
    const screenshot = externalTool({ name: "screenshot", description: "Takes a screenshot in the browser.", input: v.object({ tab: v.number() }) });
    const clock = externalTool({ name: "clock", description: "Browser time.", input: { type: "object", properties: {} } });
    const provider = scriptedProvider([
      {
        toolCalls: [
          { name: "screenshot", arguments: { tab: 1 }, id: "s1" },
          { name: "clock", id: "k1" },
        ],
      },
      "seen",
    ]);
    const client = createClient({ suspension: suspension({ unsigned: true }), provider, tools: [screenshot, clock], parallelTools: true });
    const r = await client.run("look");
    expect(r.pending.map((p) => [p.callId, p.kind])).toEqual([
      ["s1", "external"],
      ["k1", "external"],
    ]);
    // wrong form for the kind
    await expect(client.resume([{ callId: "s1", approved: true }])).rejects.toMatchObject({ code: "invalid_decision" });
    // decisions in any order; results end in call order
    await client.resume([
      { callId: "k1", output: "12:00" },
      { callId: "s1", output: { content: [{ type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" }] } },
    ]);
    const sent = sentResults(provider.requests);
    expect(sent.map((x) => [x.callId, x.output])).toEqual([
      ["s1", "[image image/png]"],
      ["k1", "12:00"],
    ]);
    expect(sent[0]!.content).toEqual([{ type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" }]);
  });

  it("a batch is checked whole: unknown, repeated or already-answered callIds refuse it, nothing runs and history stays", async () => {
    const log: string[] = [];
    const provider = scriptedProvider([
      {
        toolCalls: [
          { name: "pay", arguments: { amount: 1 }, id: "a" },
          { name: "pay", arguments: { amount: 2 }, id: "b" },
        ],
      },
      "ok",
    ]);
    const client = createClient({ suspension: suspension({ unsigned: true }), provider, tools: [pay(log)] });
    await client.run("x");
    const before = client.history;
    for (const bad of [
      [
        { callId: "a", approved: true },
        { callId: "zzz", approved: true },
      ],
      [
        { callId: "a", approved: true },
        { callId: "a", approved: false },
      ],
      [{ callId: "a", answer: 1 }],
      [{ callId: "a", output: "x" }],
      [{ callId: "a" }],
      "not an array",
    ]) {
      await expect(client.resume(bad as never)).rejects.toMatchObject({ code: "invalid_decision" });
      expect(client.history).toEqual(before);
    }
    expect(log).toEqual([]);
    expect(provider.requests).toHaveLength(1);
    // a partial batch leaves the rest pending, with no request
    const r = await client.resume([{ callId: "b", approved: true }]);
    expect(r.status).toBe("suspended");
    expect(r.pending.map((p) => p.callId)).toEqual(["a"]);
    expect(log).toEqual(["pay 2"]);
    expect(provider.requests).toHaveLength(1);
    // b is answered now: deciding it again is refused
    await expect(client.resume([{ callId: "b", approved: true }])).rejects.toMatchObject({ code: "invalid_decision" });
    await client.resume([{ callId: "a", approved: true }]);
    expect(log).toEqual(["pay 2", "pay 1"]);
    expect(sentResults(provider.requests).map((x) => x.callId)).toEqual(["a", "b"]);
  });

  it("a new prompt instead of decisions answers every pending call 'cancelled: no decision'", async () => {
    const log: string[] = [];
    const provider = scriptedProvider([{ toolCalls: [{ name: "pay", arguments: { amount: 1 }, id: "a" }] }, "fine"]);
    const client = createClient({ suspension: suspension({ unsigned: true }), provider, tools: [pay(log)] });
    await client.run("x");
    // add() while suspended does not resume, and continuing without decisions makes no request
    client.add({ role: "user", content: "note" });
    expect((await client.run()).status).toBe("suspended");
    expect(provider.requests).toHaveLength(1);
    expect(await client.chat("never mind")).toBe("fine");
    expect(sentResults(provider.requests)).toMatchObject([{ callId: "a", output: '{"error":"cancelled: no decision"}', isError: true }]);
    expect(historyProblems(client.history)).toEqual([]);
    expect(log).toEqual([]);
  });

  it("parallel steps: the free calls run concurrently before the suspension, results stay in call order", async () => {
    const log: string[] = [];
    const provider = scriptedProvider([
      {
        toolCalls: [
          { name: "lookup", arguments: { q: "1" }, id: "l1" },
          { name: "pay", arguments: { amount: 3 }, id: "p" },
          { name: "lookup", arguments: { q: "2" }, id: "l2" },
        ],
      },
      "ok",
    ]);
    const client = createClient({ suspension: suspension({ unsigned: true }), provider, tools: [lookup(log), pay(log)], parallelTools: true });
    const r = await client.run("x");
    expect(r.pending.map((p) => p.callId)).toEqual(["p"]);
    expect(log.sort()).toEqual(["lookup 1", "lookup 2"]);
    await client.resume([{ callId: "p", approved: true }]);
    expect(sentResults(provider.requests).map((x) => x.callId)).toEqual(["l1", "p", "l2"]);
  });

  it("jsonTool takes needsApproval too", async () => {
    const t = jsonTool({
      name: "del",
      description: "d",
      parameters: { type: "object", properties: { id: { type: "integer" } }, required: ["id"] },
      needsApproval: true,
      run: () => "gone",
    });
    const client = createClient({
      suspension: suspension({ unsigned: true }),
      provider: scriptedProvider([{ toolCalls: [{ name: "del", arguments: { id: 1 }, id: "d" }] }, "ok"]),
      tools: [t],
    });
    expect((await client.run("x")).status).toBe("suspended");
    await expect(client.resume([{ callId: "d", approved: true, input: { id: "one" } }])).rejects.toMatchObject({ code: "invalid_decision" });
    expect((await client.resume([{ callId: "d", approved: true, input: { id: 2 } }])).text).toBe("ok");
  });
});

describe("signed pending calls", () => {
  const SECRET = "s3cret-s3cret-s3cret-s3cret-s3cret";
  const turns = [{ toolCalls: [{ name: "pay", arguments: { amount: 40 }, id: "p1" }] }, "ok"];

  async function suspended(secret: string | CryptoKey | undefined) {
    const log: string[] = [];
    const client = createClient({
      provider: scriptedProvider(turns),
      tools: [pay(log)],
      suspension: suspension(secret === undefined ? { unsigned: true } : { secret }),
    });
    await client.run("x");
    return { history: client.history, log };
  }

  async function resumeWith(history: Message[], secret: string | CryptoKey, log: string[] = []) {
    const client = createClient({ provider: scriptedProvider(turns.slice(1)), tools: [pay(log)], history, suspension: suspension({ secret }) });
    return client.resume([{ callId: "p1", approved: true }]);
  }

  it("a signed call resumes with the same secret, in a new client", async () => {
    const { history } = await suspended(SECRET);
    const toolMsg = history.find((m) => m.role === "tool")!;
    expect(toolMsg.role === "tool" && typeof toolMsg.results[0]!.pending!.signature).toBe("string");
    const log: string[] = [];
    expect((await resumeWith(JSON.parse(JSON.stringify(history)), SECRET, log)).text).toBe("ok");
    expect(log).toEqual(["pay 40"]);
  });

  it("a CryptoKey works as the secret", async () => {
    const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(SECRET), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    const { history } = await suspended(key);
    expect((await resumeWith(history, key)).text).toBe("ok");
  });

  const tamper: Record<string, (h: Message[]) => void> = {
    "changed arguments": (h) => {
      const a = h.find((m) => m.role === "assistant")!;
      if (a.role === "assistant") a.toolCalls![0]!.arguments = '{"amount":4000}';
    },
    "changed name": (h) => {
      const a = h.find((m) => m.role === "assistant")!;
      if (a.role === "assistant") a.toolCalls![0]!.name = "PAY2";
    },
    "changed kind": (h) => {
      const t = h.find((m) => m.role === "tool")!;
      if (t.role === "tool") t.results[0]!.pending!.kind = "external";
    },
    "removed signature": (h) => {
      const t = h.find((m) => m.role === "tool")!;
      if (t.role === "tool") delete t.results[0]!.pending!.signature;
    },
    "forged signature": (h) => {
      const t = h.find((m) => m.role === "tool")!;
      if (t.role === "tool") t.results[0]!.pending!.signature = "AAAA";
    },
  };
  for (const [name, change] of Object.entries(tamper)) {
    it(`a ${name} is refused at resume, and nothing runs`, async () => {
      const { history } = await suspended(SECRET);
      change(history);
      const log: string[] = [];
      await expect(resumeWith(history, SECRET, log)).rejects.toMatchObject({ code: "invalid_decision" });
      expect(log).toEqual([]);
    });
  }

  it("an unsigned call, or one signed with another secret, is refused", async () => {
    await expect(resumeWith((await suspended(undefined)).history, SECRET)).rejects.toMatchObject({ code: "invalid_decision" });
    await expect(resumeWith((await suspended("other-other-other-other-other-other")).history, SECRET)).rejects.toMatchObject({ code: "invalid_decision" });
  });

  it("a replayed decision is refused once the call is answered", async () => {
    const { history } = await suspended(SECRET);
    const client = createClient({ provider: scriptedProvider(turns.slice(1)), tools: [pay([])], history, suspension: suspension({ secret: SECRET }) });
    await client.resume([{ callId: "p1", approved: true }]);
    await expect(client.resume([{ callId: "p1", approved: true }])).rejects.toMatchObject({ code: "invalid_decision" });
  });

  it("answers given to requestInput are covered: changing an earlier answer is refused", async () => {
    const ask = tool({
      name: "ask2",
      description: "d",
      input: v.object({}),
      run: async (_i, ctx) => `${await ctx.requestInput!({ message: "a?" })} ${await ctx.requestInput!({ message: "b?" })}`,
    });
    const provider = scriptedProvider([{ toolCalls: [{ name: "ask2", id: "q" }] }, "ok"]);
    const client = createClient({ provider, tools: [ask], suspension: suspension({ secret: SECRET }) });
    await client.run("x");
    await client.resume([{ callId: "q", answer: "A" }]);
    const h = client.history;
    const t = h.find((m) => m.role === "tool")!;
    if (t.role === "tool") t.results[0]!.pending!.answers = ["EVIL"];
    const forged = createClient({ provider, tools: [ask], suspension: suspension({ secret: SECRET }), history: h });
    await expect(forged.resume([{ callId: "q", answer: "B" }])).rejects.toMatchObject({ code: "invalid_decision" });
    expect((await client.resume([{ callId: "q", answer: "B" }])).text).toBe("ok");
    expect(sentResults(provider.requests)[0]!.output).toBe("A B");
  });
});

describe("pending results and the history invariant", () => {
  it("healHistory keeps pending results as they are (it repairs only what is missing)", async () => {
    const { healHistory } = await import("../../src/conversation/history.js");
    const history: Message[] = [
      { role: "user", content: "x" },
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "a", name: "pay", arguments: "{}" },
          { id: "b", name: "pay", arguments: '{"amount":3}' },
          { id: "c", name: "pay", arguments: "{}" },
        ],
      },
      {
        role: "tool",
        results: [
          { callId: "b", name: "pay", output: "", isError: false, pending: { kind: "approval" } },
          { callId: "a", name: "pay", output: "ok", isError: false },
        ],
      },
    ];
    expect(healHistory(history)).toBe(1);
    const t = history[2]!;
    expect(t.role === "tool" && t.results.map((r) => [r.callId, r.pending?.kind ?? r.output])).toEqual([
      ["a", "ok"],
      ["b", "approval"],
      ["c", '{"error":"cancelled"}'],
    ]);
    // the repaired history still resumes: b waits, and deciding it completes the step
    const log: string[] = [];
    const provider = scriptedProvider(["done"]);
    const client = createClient({ suspension: suspension({ unsigned: true }), provider, tools: [pay(log)], history });
    expect(client.pending.map((p) => p.callId)).toEqual(["b"]);
    expect(await client.chat(undefined, { decisions: [{ callId: "b", approved: true }] })).toBe("done");
    expect(sentResults(provider.requests).map((r) => r.output)).toEqual(["ok", "paid 3", '{"error":"cancelled"}']);
  });

  it("a saved history with a malformed pending state is refused when loaded", () => {
    const bad = [
      { role: "user", content: "x" },
      { role: "assistant", content: "", toolCalls: [{ id: "a", name: "pay", arguments: "{}" }] },
      { role: "tool", results: [{ callId: "a", name: "pay", output: "", isError: false, pending: { kind: "maybe" } }] },
    ];
    expect(() => createClient({ suspension: suspension({ unsigned: true }), provider: scriptedProvider([]), history: bad as Message[] })).toThrow(/pending/);
  });

  it("each field of a saved pending state is checked as the resume reads it; fields it does not know are dropped", () => {
    const load = (pending: unknown) =>
      createClient({
        suspension: suspension({ unsigned: true }),
        provider: scriptedProvider([]),
        history: [
          { role: "user", content: "x" },
          { role: "assistant", content: "", toolCalls: [{ id: "a", name: "pay", arguments: "{}" }] },
          { role: "tool", results: [{ callId: "a", name: "pay", output: "", isError: false, pending }] },
        ] as Message[],
      });
    for (const [pending, field] of [
      [{ kind: "input", message: "q?", answers: 5 }, "answers"],
      [{ kind: "input", message: "q?", answers: "ab" }, "answers"],
      [{ kind: "input", message: { x: 1 } }, "message"],
      [{ kind: "approval", approved: "yes" }, "approved"],
      [{ kind: "approval", signature: 7 }, "signature"],
      [null, "kind"],
    ] as const) {
      expect(() => load(pending), JSON.stringify(pending)).toThrow(
        expect.objectContaining({ code: "invalid_history", message: expect.stringContaining(`pending.${field}`) }),
      );
    }
    const client = load({ kind: "input", message: "q?", answers: ["a"], extra: { big: true } });
    expect((client.history[2] as { results: { pending: unknown }[] }).results[0]!.pending).toEqual({ kind: "input", message: "q?", answers: ["a"] });
  });

  it("stream() reports the results a resume produced as tool-result events, in call order", async () => {
    const log: string[] = [];
    const provider = scriptedProvider([
      {
        toolCalls: [
          { name: "pay", arguments: { amount: 1 }, id: "a" },
          { name: "pay", arguments: { amount: 2 }, id: "b" },
        ],
      },
      "ok",
    ]);
    const client = createClient({ suspension: suspension({ unsigned: true }), provider, tools: [pay(log)] });
    await client.run("x");
    const events: StreamEvent[] = [];
    for await (const e of client.stream(undefined, {
      decisions: [
        { callId: "b", approved: false },
        { callId: "a", approved: true },
      ],
    }))
      events.push(e);
    expect(events.filter((e) => e.type === "tool-result").map((e) => e.type === "tool-result" && [e.callId, e.output, e.isError])).toEqual([
      ["a", "paid 1", false],
      ["b", '{"error":"denied"}', true],
    ]);
  });

  it("a resumed call's tool-result event has its real outcome (a handler's throw is error, a timeout timeout)", async () => {
    const flaky = tool({ name: "flaky", description: "Fails.", input: v.object({}), needsApproval: true, run: async () => Promise.reject(new Error("down")) });
    const slow = {
      name: "slow",
      description: "Hangs.",
      parameters: { type: "object" },
      timeout: 10,
      needsApproval: true,
      call: () => new Promise<string>(() => {}),
    };
    const provider = scriptedProvider([
      {
        toolCalls: [
          { name: "flaky", arguments: {}, id: "f" },
          { name: "slow", arguments: {}, id: "s" },
        ],
      },
      "ok",
    ]);
    const client = createClient({ suspension: suspension({ unsigned: true }), provider, tools: [flaky, slow] });
    await client.run("x");
    const events: StreamEvent[] = [];
    for await (const e of client.stream(undefined, {
      decisions: [
        { callId: "f", approved: true },
        { callId: "s", approved: true },
      ],
    }))
      events.push(e);
    expect(events.flatMap((e) => (e.type === "tool-result" ? [[e.callId, e.outcome]] : []))).toEqual([
      ["f", "error"],
      ["s", "timeout"],
    ]);
  });
});

describe("stop conditions across a resume", () => {
  it("a condition on the step that suspended holds once its decisions complete it: the resumed run's one call has tools off", async () => {
    const log: string[] = [];
    const provider = scriptedProvider([{ toolCalls: [{ name: "pay", arguments: { amount: 5 }, id: "p" }] }, "paid, here is the answer"]);
    const seen: unknown[] = [];
    const client = createClient({
      suspension: suspension({ unsigned: true }),
      provider,
      tools: [pay(log)],
      stopWhen: (s) => (
        seen.push({
          steps: s.steps,
          step: s.lastStep.step,
          calls: s.lastStep.toolCalls.map((c) => c.name),
          outputs: s.lastStep.toolResults.map((r) => r.output),
        }),
        s.lastStep.toolCalls.some((c) => c.name === "pay")
      ),
    });
    expect((await client.run("x")).status).toBe("suspended");
    expect(seen).toEqual([]); // a step whose calls wait is not judged until they are answered
    expect(await client.chat(undefined, { decisions: [{ callId: "p", approved: true }] })).toBe("paid, here is the answer");
    expect(log).toEqual(["pay 5"]);
    expect(seen).toEqual([{ steps: 0, step: 0, calls: ["pay"], outputs: ["paid 5"] }]);
    expect(provider.requests.at(-1)!.toolChoice).toBe("none");
  });

  it("a new prompt instead of decisions starts afresh: the cancelled step is not judged", async () => {
    const provider = scriptedProvider([{ toolCalls: [{ name: "pay", arguments: { amount: 5 }, id: "p" }] }, "fresh"]);
    let judged = 0;
    const client = createClient({ suspension: suspension({ unsigned: true }), provider, tools: [pay([])], stopWhen: () => (judged++, true) });
    await client.run("x");
    expect(await client.chat("something else")).toBe("fresh");
    expect(judged).toBe(0);
    expect(provider.requests.at(-1)!.toolChoice).toBe("auto");
  });
});

describe("a call that runs on resume runs with the client's tools", () => {
  it("approving (or answering) a call whose tool only prepareStep gave is refused, naming the tool; nothing changes, and it can still be denied", async () => {
    const log: string[] = [];
    const provider = scriptedProvider([{ toolCalls: [{ name: "pay", arguments: { amount: 5 }, id: "p" }] }, "denied, fine"]);
    const client = createClient({ suspension: suspension({ unsigned: true }), provider, prepareStep: () => ({ tools: [pay(log)] }) });
    expect((await client.run("x")).status).toBe("suspended");
    const saved = client.history;
    for (const decision of [
      { callId: "p", approved: true as const },
      { callId: "p", approved: true as const, input: { amount: 1 } },
    ]) {
      await expect(client.resume([decision])).rejects.toMatchObject({
        code: "invalid_decision",
        message: expect.stringContaining('tool "pay" is not among this client\'s tools'),
      });
    }
    expect(client.history).toEqual(saved);
    expect(log).toEqual([]);
    expect(provider.requests).toHaveLength(1);
    // a denial needs no tool
    expect((await client.resume([{ callId: "p", approved: false }])).text).toBe("denied, fine");
    expect(sentResults(provider.requests)).toEqual([expect.objectContaining({ callId: "p", output: '{"error":"denied"}', isError: true })]);
  });

  it("with the tool among the client's tools too, the approved call runs", async () => {
    const log: string[] = [];
    const provider = scriptedProvider([{ toolCalls: [{ name: "pay", arguments: { amount: 5 }, id: "p" }] }, "paid"]);
    const client = createClient({ suspension: suspension({ unsigned: true }), provider, tools: [pay(log)], prepareStep: () => ({ tools: [pay(log)] }) });
    await client.run("x");
    expect((await client.resume([{ callId: "p", approved: true }])).text).toBe("paid");
    expect(log).toEqual(["pay 5"]);
  });
});

describe("requestInput answers and their schema", () => {
  it("every rerun gets the schema's output for each earlier answer (transforms included), not the raw answer", async () => {
    const seen: unknown[] = [];
    const t = tool({
      name: "qty",
      description: "d",
      input: v.object({}),
      run: async (_i, ctx) => {
        const n = await ctx.requestInput!({ message: "How many?", schema: v.pipe(v.string(), v.transform(Number)) });
        seen.push(n);
        const ok = await ctx.requestInput!({ message: "Sure?", schema: v.boolean() });
        return { n, ok };
      },
    });
    const client = createClient({
      suspension: suspension({ unsigned: true }),
      provider: scriptedProvider([{ toolCalls: [{ name: "qty", id: "q" }] }, "ok"]),
      tools: [t],
    });
    await client.run("x");
    await client.resume([{ callId: "q", answer: "3" }]);
    await client.resume([{ callId: "q", answer: true }]);
    expect(seen).toEqual([3, 3]);
  });
});

describe("without suspension(), a client cannot wait and says so", () => {
  const saved: Message[] = [
    { role: "user", content: "pay" },
    { role: "assistant", content: "", toolCalls: [{ id: "c", name: "pay", arguments: '{"amount":1}' }] },
    { role: "tool", results: [{ callId: "c", name: "pay", output: "", isError: false, pending: { kind: "approval" } }] },
  ];

  it("a tool that needs approval, or an external tool, is refused when the tools are set", () => {
    const shot = externalTool({ name: "shot", description: "d", input: v.object({}) });
    for (const t of [pay([]), pay([], () => true), shot]) {
      expect(() => createClient({ provider: scriptedProvider([]), tools: [t] })).toThrow(
        expect.objectContaining({ code: "invalid_tool", message: expect.stringContaining("suspension()") }),
      );
      const client = createClient({ provider: scriptedProvider([]) });
      expect(() => client.setTools([t])).toThrow(expect.objectContaining({ code: "invalid_tool" }));
    }
    // needsApproval: false waits for nothing
    expect(() => createClient({ provider: scriptedProvider([]), tools: [pay([], false)] })).not.toThrow();
  });

  it("a saved history with pending calls is refused when loaded or added, and decisions when made, without sending anything", async () => {
    const provider = scriptedProvider(["never"]);
    expect(() => createClient({ provider, history: saved })).toThrow(
      expect.objectContaining({ code: "invalid_history", message: expect.stringMatching(/^history\[2\]: .*suspension\(\)/) }),
    );
    const client = createClient({ provider, history: saved.slice(0, 2) });
    expect(() => client.add(saved[2]!)).toThrow(expect.objectContaining({ code: "invalid_history", message: expect.stringContaining("suspension()") }));
    expect(client.history).toEqual(saved.slice(0, 2));
    expect(client.pending).toEqual([]);
    await expect(client.resume([{ callId: "c", approved: true }])).rejects.toMatchObject({
      code: "invalid_options",
      message: expect.stringContaining("suspension()"),
    });
    expect(provider.requests).toHaveLength(0);
    expect(client.history).toEqual(saved.slice(0, 2));
    // the same history resumes once the client has suspension()
    const resumed = createClient({ suspension: suspension({ unsigned: true }), provider: scriptedProvider(["paid"]), tools: [pay([])], history: saved });
    expect((await resumed.resume([{ callId: "c", approved: true }])).text).toBe("paid");
  });

  it("the 0.2 draft's createClient({ secret }), or options in place of suspension()'s value, give no suspension: refused, never a client that waits unsigned", () => {
    // Options in place of suspension()'s value: the waiting tool is refused, pointing at suspension().
    expect(() => createClient({ provider: scriptedProvider([]), tools: [pay([])], suspension: { secret: "s" } } as never)).toThrow(
      expect.objectContaining({ code: "invalid_tool", message: expect.stringContaining("suspension()") }),
    );
    // createClient({ secret }): refused either as an unknown option (createClient's own check) or, as above, by its waiting tool.
    expect(() => createClient({ provider: scriptedProvider([]), tools: [pay([])], secret: "s" } as never)).toThrow(
      expect.objectContaining({ code: expect.stringMatching(/^invalid_(options|tool)$/) }),
    );
  });

  it("a handler gets no ctx.requestInput, so it can tell it runs where nobody answers", async () => {
    let had: unknown = "unset";
    const t = tool({ name: "q", description: "d", input: v.object({}), run: async (_i, ctx) => ((had = ctx.requestInput), "ran") });
    const client = createClient({ provider: scriptedProvider([{ toolCalls: [{ name: "q", id: "q" }] }, "ok"]), tools: [t] });
    expect(await client.chat("x")).toBe("ok");
    expect(had).toBeUndefined();
  });
});
