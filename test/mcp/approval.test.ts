// needsApproval over MCP: mcpHandler asks the client's user before such a tool runs, through
// the same input path as ctx.requestInput (2026-07-28 input_required rounds, 2025-era
// elicitation/create with legacyElicitation, the "cannot ask" outcomes otherwise), and refuses
// externalTool()s where the handler is built. Raw Requests check the rounds on the wire; the
// official v2 SDK Client over real HTTP checks that a real client gets through them.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import * as v from "valibot";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { mcpHandler } from "../../adapters/mcp/index.js";
import { encodeHeaderValue } from "../../adapters/mcp/wire/envelope.js";
import { externalTool, InvalidToolError, type Tool, tool } from "../../src/index.js";
import { rpcRequest, serveHandler } from "./helpers.js";
import { v2Client } from "./v2-suites.js";

const V = "2026-07-28";
const eliciting = { elicitation: { form: {} } };

/** How often each handler started (`started`) and ran to its end (`ran`), and what the rules saw. */
let started: Record<string, number>;
let ran: Record<string, number>;
let ruleSaw: unknown[];
beforeEach(() => {
  started = {};
  ran = {};
  ruleSaw = [];
});
const start = (name: string) => void (started[name] = (started[name] ?? 0) + 1);
const finish = (name: string) => void (ran[name] = (ran[name] ?? 0) + 1);

const pay = tool({
  name: "pay",
  description: "Pays an amount.",
  input: v.object({ amount: v.number() }),
  needsApproval: true,
  run: ({ amount }) => (finish("pay"), `paid ${amount}`),
});

/** Needs approval only above 100 (a function of the validated input). */
const transfer = tool({
  name: "transfer",
  description: "Transfers an amount.",
  input: v.object({ amount: v.number() }),
  needsApproval: (input) => (ruleSaw.push(input), input.amount > 100),
  run: ({ amount }) => (finish("transfer"), `transferred ${amount}`),
});

const note = tool({
  name: "note",
  description: "Notes text.",
  input: v.object({ text: v.string() }),
  needsApproval: false,
  run: ({ text }) => (finish("note"), `noted ${text}`),
});
const plain = tool({ name: "plain", description: "Echoes text.", input: v.object({ text: v.string() }), run: ({ text }) => (finish("plain"), `echo ${text}`) });

/** Needs approval, then asks its own question: two rounds. */
const refund = tool({
  name: "refund",
  description: "Refunds an amount after asking why.",
  input: v.object({ amount: v.number() }),
  needsApproval: true,
  run: async ({ amount }, ctx) => {
    start("refund");
    const why = await ctx.requestInput!({ message: "Why?", schema: v.string() });
    finish("refund");
    return `refunded ${amount}: ${String(why)}`;
  },
});

const broken = tool({
  name: "broken_rule",
  description: "Its needsApproval throws.",
  input: v.object({}),
  needsApproval: () => {
    throw new Error("the rule broke");
  },
  run: () => (finish("broken_rule"), "ran"),
});

/** A refinement JSON Schema cannot say: only the tool's own validation catches odd numbers. */
const even = tool({
  name: "even_pay",
  description: "Pays an even amount.",
  input: v.object({
    amount: v.pipe(
      v.number(),
      v.check((n) => n % 2 === 0, "amount must be even"),
    ),
  }),
  needsApproval: (input) => (ruleSaw.push(input), true),
  run: ({ amount }) => (finish("even_pay"), `paid ${amount}`),
});

/** A hand-written Tool: its needsApproval function gets the parsed arguments. */
const rawDelete: Tool = {
  name: "raw_delete",
  description: "Deletes a path (hand-written).",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  needsApproval: (input) => (ruleSaw.push(input), (input as { path: string }).path.startsWith("/etc")),
  call: async (input) => (finish("raw_delete"), `deleted ${(JSON.parse(input) as { path: string }).path}`),
};

/** A handler question under the approval's key, on a tool that needs approval. */
const clash = tool({
  name: "clash",
  description: "Asks under the key approval.",
  input: v.object({}),
  needsApproval: true,
  run: async (_input, ctx) => (await ctx.requestInput!({ message: "Mine?", key: "approval" }), finish("clash"), "ran"),
});

const tools = [pay, transfer, note, plain, refund, broken, even, rawDelete, clash];
const handler = mcpHandler({ name: "approval-server", version: "1.0.0", tools });

const meta = (caps: Record<string, unknown>) => ({
  "io.modelcontextprotocol/protocolVersion": V,
  "io.modelcontextprotocol/clientCapabilities": caps,
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
});

/** A 2026-07-28 tools/call, as a well-formed raw request to the handler. */
async function call(name: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}, caps: Record<string, unknown> = eliciting) {
  const body = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args, ...extra, _meta: meta(caps) } };
  const res = await handler(rpcRequest(body, { "mcp-protocol-version": V, "mcp-method": "tools/call", "mcp-name": encodeHeaderValue(name) }));
  return { status: res.status, json: (await res.json()) as { result?: any; error?: any } };
}

const approve = (yes: boolean) => ({ approval: { action: "accept", content: { approve: yes } } });
const approvalQuestion = (message: string) => ({
  approval: {
    method: "elicitation/create",
    params: {
      mode: "form",
      message,
      requestedSchema: { type: "object", properties: { approve: { type: "boolean", description: expect.any(String) } }, required: ["approve"] },
    },
  },
});

describe("needsApproval on 2026-07-28: the approval is an input_required round", () => {
  it("asks first under the key approval, naming the tool and its arguments; approved, the tool runs once with its result", async () => {
    const first = (await call("pay", { amount: 50 })).json.result;
    expect(first).toEqual({ resultType: "input_required", inputRequests: approvalQuestion('Allow pay with {"amount":50}?'), requestState: expect.any(String) });
    expect(ran.pay).toBeUndefined();

    const done = (await call("pay", { amount: 50 }, { inputResponses: approve(true), requestState: first.requestState })).json.result;
    expect(done).toEqual({ resultType: "complete", content: [{ type: "text", text: "paid 50" }], isError: false });
    expect(ran.pay).toBe(1);
  });

  it("declined (approve false, or the elicitation action decline / cancel): a tool error, and the tool never runs", async () => {
    const first = (await call("pay", { amount: 50 })).json.result;
    const answers = [approve(false), { approval: { action: "decline" } }, { approval: { action: "cancel" } }, { approval: { action: "accept", content: {} } }];
    for (const inputResponses of answers) {
      const r = (await call("pay", { amount: 50 }, { inputResponses, requestState: first.requestState })).json.result;
      expect(r, JSON.stringify(inputResponses)).toEqual({
        resultType: "complete",
        content: [{ type: "text", text: "the user did not approve this call" }],
        isError: true,
      });
    }
    expect(ran.pay).toBeUndefined();
  });

  it("needsApproval as a function of the validated input: asks when it holds, runs at once when it does not", async () => {
    const big = (await call("transfer", { amount: 500 })).json.result;
    expect(big).toMatchObject({ resultType: "input_required", inputRequests: approvalQuestion('Allow transfer with {"amount":500}?') });
    expect(ran.transfer).toBeUndefined();

    const small = (await call("transfer", { amount: 5 })).json.result;
    expect(small).toEqual({ resultType: "complete", content: [{ type: "text", text: "transferred 5" }], isError: false });
    expect(ran.transfer).toBe(1);
    expect(ruleSaw).toEqual([{ amount: 500 }, { amount: 5 }]);
  });

  it("a hand-written Tool's needsApproval function gets the parsed arguments", async () => {
    expect((await call("raw_delete", { path: "/etc/passwd" })).json.result.resultType).toBe("input_required");
    expect((await call("raw_delete", { path: "/tmp/x" })).json.result).toMatchObject({
      resultType: "complete",
      content: [{ type: "text", text: "deleted /tmp/x" }],
    });
    expect(ruleSaw).toEqual([{ path: "/etc/passwd" }, { path: "/tmp/x" }]);
    expect(ran.raw_delete).toBe(1);
  });

  it("needsApproval false or absent: no question, the tool runs", async () => {
    expect((await call("note", { text: "a" })).json.result).toEqual({ resultType: "complete", content: [{ type: "text", text: "noted a" }], isError: false });
    expect((await call("plain", { text: "b" })).json.result).toEqual({ resultType: "complete", content: [{ type: "text", text: "echo b" }], isError: false });
    expect(ran).toEqual({ note: 1, plain: 1 });
  });

  it("approval, then the tool's own question (q0): two rounds, both answered, and the tool finishes once", async () => {
    const first = (await call("refund", { amount: 5 })).json.result;
    expect(first.inputRequests).toEqual(approvalQuestion('Allow refund with {"amount":5}?'));
    expect(started.refund).toBeUndefined();

    const second = (await call("refund", { amount: 5 }, { inputResponses: approve(true), requestState: first.requestState })).json.result;
    expect(second).toMatchObject({ resultType: "input_required", inputRequests: { q0: { method: "elicitation/create", params: { message: "Why?" } } } });
    expect(Object.keys(second.inputRequests)).toEqual(["q0"]);
    expect(started.refund).toBe(1);

    // The approval travels in requestState: only the tool's question is answered now.
    const done = (
      await call("refund", { amount: 5 }, { inputResponses: { q0: { action: "accept", content: { answer: "broken" } } }, requestState: second.requestState })
    ).json.result;
    expect(done).toEqual({ resultType: "complete", content: [{ type: "text", text: "refunded 5: broken" }], isError: false });
    expect(started.refund).toBe(2);
    expect(ran.refund).toBe(1);
  });

  it("an approval carried in requestState holds only for the arguments it approved: other arguments are asked again", async () => {
    const first = (await call("refund", { amount: 5 })).json.result;
    const second = (await call("refund", { amount: 5 }, { inputResponses: approve(true), requestState: first.requestState })).json.result;
    const other = (
      await call("refund", { amount: 5000 }, { inputResponses: { q0: { action: "accept", content: { answer: "x" } } }, requestState: second.requestState })
    ).json.result;
    expect(other).toMatchObject({ resultType: "input_required", inputRequests: approvalQuestion('Allow refund with {"amount":5000}?') });
    expect(started.refund).toBe(1);
    expect(ran.refund).toBeUndefined();
  });

  it("a needsApproval function that throws: a tool error naming the failure, and the tool does not run", async () => {
    const r = (await call("broken_rule", {})).json.result;
    expect(r).toMatchObject({ resultType: "complete", isError: true });
    expect(r.content[0].text).toMatch(/not run.*the rule broke/);
    expect(ran.broken_rule).toBeUndefined();
  });

  it("invalid arguments take the invalid-arguments path, without a question (nothing to approve)", async () => {
    const schema = (await call("pay", { amount: "fifty" })).json.result;
    expect(schema).toMatchObject({ resultType: "complete", isError: true });
    expect(schema.content[0].text).toMatch(/^Invalid arguments for tool pay:/);
    // A refinement only the tool() checks (no JSON Schema form): its rule is never asked either.
    const refined = (await call("even_pay", { amount: 7 })).json.result;
    expect(refined).toMatchObject({ resultType: "complete", isError: true });
    expect(refined.content[0].text).toMatch(/^Invalid arguments for tool even_pay:[\s\S]*amount must be even/);
    expect(ruleSaw).toEqual([]);
    expect((await call("even_pay", { amount: 8 })).json.result.resultType).toBe("input_required");
    expect(ran).toEqual({});
  });

  it("a client without the elicitation capability gets 400 with -32021 naming the approval question; the tool does not run", async () => {
    const { status, json } = await call("pay", { amount: 50 }, {}, {});
    expect(status).toBe(400);
    expect(json.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
    expect(json.error.message).toContain('Allow pay with {"amount":50}?');
    expect(ran.pay).toBeUndefined();
  });

  it("a tool that needs approval cannot ask its own question under the key approval (it would read the approval)", async () => {
    const first = (await call("clash", {})).json.result;
    const r = (await call("clash", {}, { inputResponses: approve(true), requestState: first.requestState })).json.result;
    expect(r).toMatchObject({ resultType: "complete", isError: true });
    expect(r.content[0].text).toMatch(/key "approval" is taken/);
    expect(ran.clash).toBeUndefined();
  });

  it("on 2025-11-25 without legacyElicitation the approval cannot be asked: a tool error, and the tool does not run", async () => {
    const body = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "pay", arguments: { amount: 50 } } };
    const r = ((await (await handler(rpcRequest(body, { "mcp-protocol-version": "2025-11-25" }))).json()) as { result: any }).result;
    expect(r.isError).toBe(true);
    expect(r.content[0].text).toMatch(/needs input from the user \("Allow pay with \{"amount":50\}\?"\)/);
    expect(ran.pay).toBeUndefined();
  });
});

type Served = Awaited<ReturnType<typeof serveHandler>>;
const text = (r: { content?: unknown }) => (r.content as { text: string }[])[0]!.text;

describe("needsApproval ↔ the official v2 SDK Client over HTTP (2026-07-28)", () => {
  let served: Served;
  beforeAll(async () => {
    served = await serveHandler(handler);
  });
  afterAll(() => served?.close());

  it("the client's elicitation handler approves; the tool runs once and the client gets its result", async () => {
    const asked: string[] = [];
    const client = await v2Client(served.url, "auto", (message) => (asked.push(message), { approve: true }));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(V);
      const r = await client.callTool({ name: "pay", arguments: { amount: 50 } });
      expect(r.isError).toBeFalsy();
      expect(r.content).toEqual([{ type: "text", text: "paid 50" }]);
      expect(asked).toEqual(['Allow pay with {"amount":50}?']);
      expect(ran.pay).toBe(1);
    } finally {
      await client.close();
    }
  });

  it("declined (approve false, or the handler's decline): an error result, and the tool never ran", async () => {
    for (const answer of [() => ({ approve: false }), undefined]) {
      const client = await v2Client(served.url, "auto", answer);
      try {
        const r = await client.callTool({ name: "pay", arguments: { amount: 50 } });
        expect(r.isError).toBe(true);
        expect(text(r)).toBe("the user did not approve this call");
      } finally {
        await client.close();
      }
    }
    expect(ran.pay).toBeUndefined();
  });

  it("approval and the tool's own question: both asked in order, both answered", async () => {
    const asked: string[] = [];
    const client = await v2Client(served.url, "auto", (message) => (asked.push(message), message === "Why?" ? { answer: "damaged" } : { approve: true }));
    try {
      const r = await client.callTool({ name: "refund", arguments: { amount: 9 } });
      expect(r.content).toEqual([{ type: "text", text: "refunded 9: damaged" }]);
      expect(asked).toEqual(['Allow refund with {"amount":9}?', "Why?"]);
      expect(ran.refund).toBe(1);
    } finally {
      await client.close();
    }
  });

  it("needsApproval false: the client is never asked", async () => {
    const asked: string[] = [];
    const client = await v2Client(served.url, "auto", (message) => (asked.push(message), { approve: true }));
    try {
      expect((await client.callTool({ name: "transfer", arguments: { amount: 5 } })).content).toEqual([{ type: "text", text: "transferred 5" }]);
      expect(asked).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it("a client that declared no elicitation gets the call refused (-32021), and the tool did not run", async () => {
    const client = new Client({ name: "no-elicitation", version: "1" }, { versionNegotiation: { mode: "auto" } });
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url), { requestInit: { headers: { "accept-encoding": "identity" } } }));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(V);
      await expect(client.callTool({ name: "pay", arguments: { amount: 50 } })).rejects.toThrow(/elicitation/);
      expect(ran.pay).toBeUndefined();
    } finally {
      await client.close();
    }
  });
});

describe("needsApproval with legacyElicitation ↔ the v2 SDK Client on 2025-11-25", () => {
  let served: Served;
  beforeAll(async () => {
    served = await serveHandler(mcpHandler({ name: "approval-server", version: "1.0.0", tools, legacyElicitation: true }));
  });
  afterAll(() => served?.close());

  it("asks the approval with elicitation/create on the call's stream, then the tool's own question; both answered", async () => {
    const asked: string[] = [];
    const client = await v2Client(served.url, "legacy", (message) => (asked.push(message), message === "Why?" ? { answer: "late" } : { approve: true }));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe("2025-11-25");
      expect((await client.callTool({ name: "pay", arguments: { amount: 3 } })).content).toEqual([{ type: "text", text: "paid 3" }]);
      expect((await client.callTool({ name: "refund", arguments: { amount: 4 } })).content).toEqual([{ type: "text", text: "refunded 4: late" }]);
      expect(asked).toEqual(['Allow pay with {"amount":3}?', 'Allow refund with {"amount":4}?', "Why?"]);
      expect(ran).toEqual({ pay: 1, refund: 1 });
      expect(started.refund).toBe(1); // one stream, one run: no rounds on this revision
    } finally {
      await client.close();
    }
  });

  it("declined: an error result and the tool never ran; a client without elicitation gets one without being asked", async () => {
    const declining = await v2Client(served.url, "legacy");
    try {
      const r = await declining.callTool({ name: "pay", arguments: { amount: 3 } });
      expect(r.isError).toBe(true);
      expect(text(r)).toBe("the user did not approve this call");
    } finally {
      await declining.close();
    }
    const unable = new Client({ name: "no-elicitation", version: "1" }, { versionNegotiation: { mode: "legacy" } });
    await unable.connect(new StreamableHTTPClientTransport(new URL(served.url)));
    try {
      const r = await unable.callTool({ name: "pay", arguments: { amount: 3 } });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/needs input from the user \("Allow pay with/);
    } finally {
      await unable.close();
    }
    expect(ran.pay).toBeUndefined();
  });
});

describe("externalTool() over MCP", () => {
  it("is refused when the handler is built, with InvalidToolError naming the tool and why", () => {
    const ship = externalTool({ name: "ship_order", description: "Ships in the warehouse app.", input: v.object({ id: v.string() }) });
    expect(() => mcpHandler({ name: "s", version: "1", tools: [plain, ship] })).toThrow(InvalidToolError);
    expect(() => mcpHandler({ name: "s", version: "1", tools: [ship] })).toThrow(
      /tool "ship_order".*external.*decision in a client with suspension\(\).*MCP server cannot take/,
    );
  });
});
