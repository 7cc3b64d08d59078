// Suspension, resume and step options over real HTTP against the wire-faithful mocks of all
// four formats (Claude Messages, OpenAI Responses, Chat Completions, Gemini). The mocks reject
// what the real APIs reject, so a pending result that leaked into a request, a result out of
// call order or a malformed tool_choice fails here with the API's own error.
import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { claude } from "../../adapters/claude/index.js";
import { gemini } from "../../adapters/gemini/index.js";
import { openai, openaiChat } from "../../adapters/openai/index.js";
import {
  createClient,
  type Decision,
  externalTool,
  type Message,
  type Provider,
  type RunResult,
  type StreamEvent,
  stepCountIs,
  suspension,
  tool,
} from "../../src/index.js";
import { startClaudeMock } from "../mock/claude.js";
import { MOCK_API_KEY, startGeminiMock } from "../mock/gemini.js";
import { startOpenAIChatMock } from "../mock/openai-chat.js";
import { startOpenAIResponsesMock } from "../mock/openai-responses.js";
import { historyProblems } from "./helpers.js";

// A 1x1 PNG (the mocks check media bytes like the APIs do).
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

type Turn = { text?: string; toolCalls?: { id?: string; name: string; input: unknown }[] };
type Body = Record<string, any>;

interface Wire {
  provider: Provider;
  bodies: () => Body[];
  close: () => Promise<void>;
  /** The tool choice as this API spells it: "auto" | "none" | "required" | { name }. */
  choice: (b: Body) => unknown;
  system: (b: Body) => string | undefined;
  toolNames: (b: Body) => string[];
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

const FORMATS: Record<string, (script: Turn[]) => Promise<Wire>> = {
  claude: async (script) => {
    const mock = await startClaudeMock({ apiKey: "sk-ant-k", script });
    return {
      provider: claude({ apiKey: "sk-ant-k", model: "claude-sonnet-4-5", baseURL: mock.url }),
      bodies: () => mock.requests.map((r) => r.body),
      close: () => mock.close(),
      choice: (b) => {
        const c = b.tool_choice;
        if (!c || c.type === "auto") return "auto";
        if (c.type === "any") return "required";
        if (c.type === "tool") return { name: c.name };
        return c.type;
      },
      system: (b) => (typeof b.system === "string" ? b.system : b.system?.map((x: Body) => x.text).join("")),
      toolNames: (b) => (b.tools ?? []).map((t: Body) => t.name),
    };
  },
  "openai-responses": async (script) => {
    const mock = await startOpenAIResponsesMock({ apiKey: "sk-k", script });
    return {
      provider: openai({ apiKey: "sk-k", model: "gpt-5", baseURL: mock.url }),
      bodies: () => mock.requests.map((r) => r.body as Body),
      close: () => mock.close(),
      choice: (b) => (b.tool_choice === undefined ? "auto" : typeof b.tool_choice === "string" ? b.tool_choice : { name: b.tool_choice.name }),
      system: (b) => b.instructions,
      toolNames: (b) => (b.tools ?? []).map((t: Body) => t.name),
    };
  },
  "openai-chat": async (script) => {
    const mock = await startOpenAIChatMock({ apiKey: "sk-k", script });
    return {
      provider: openaiChat({ apiKey: "sk-k", model: "gpt-4.1", baseURL: mock.url }),
      bodies: () => mock.requests.map((r) => r.body as Body),
      close: () => mock.close(),
      choice: (b) => (b.tool_choice === undefined ? "auto" : typeof b.tool_choice === "string" ? b.tool_choice : { name: b.tool_choice.function.name }),
      system: (b) => b.messages.find((m: Body) => m.role === "system" || m.role === "developer")?.content,
      toolNames: (b) => (b.tools ?? []).map((t: Body) => t.function.name),
    };
  },
  gemini: async (script) => {
    const mock = await startGeminiMock({ script });
    return {
      // Gemini 3: tool media go in functionResponse.parts (earlier models take none)
      provider: gemini({ apiKey: MOCK_API_KEY, model: "gemini-3-pro-preview", baseURL: mock.url }),
      bodies: () => mock.requests.map((r) => r.body as Body),
      close: () => mock.close(),
      choice: (b) => {
        const c = b.toolConfig?.functionCallingConfig;
        if (!c || c.mode === "AUTO") return "auto";
        if (c.mode === "NONE") return "none";
        if (c.allowedFunctionNames?.length === 1) return { name: c.allowedFunctionNames[0] };
        return "required";
      },
      system: (b) => b.systemInstruction?.parts?.map((p: Body) => p.text).join(""),
      toolNames: (b) => (b.tools ?? []).flatMap((t: Body) => (t.functionDeclarations ?? []).map((f: Body) => f.name)),
    };
  },
};

async function wire(format: string, script: Turn[]): Promise<Wire> {
  const w = await FORMATS[format]!(script);
  closers.push(w.close);
  return w;
}

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
    externalTool({ name: "browser_time", description: "The time in the user's browser.", input: v.object({ tz: v.string() }) }),
    tool({
      name: "transfer",
      description: "Moves money between accounts.",
      input: v.object({ amount: v.number() }),
      run: async ({ amount }, ctx) => {
        log.push(`transfer ${amount}`);
        const account = await ctx.requestInput!({ message: "From which account?", schema: v.picklist(["checking", "savings"]) });
        return `moved ${amount} from ${account}`;
      },
    }),
  ];
}

const STEP: Turn = {
  text: "Working on it.",
  toolCalls: [
    { id: "call_look", name: "lookup", input: { q: "rates" } },
    { id: "call_pay1", name: "pay", input: { amount: 40 } },
    { id: "call_pay2", name: "pay", input: { amount: 9000 } },
    { id: "call_time", name: "browser_time", input: { tz: "Europe/Paris" } },
    { id: "call_move", name: "transfer", input: { amount: 5 } },
  ],
};

async function drive(client: ReturnType<typeof createClient>, streamed: boolean, prompt: string | undefined, decisions?: Decision[]): Promise<RunResult> {
  if (!streamed) return client.run(prompt, decisions ? { decisions } : {});
  const events: StreamEvent[] = [];
  for await (const e of client.stream(prompt, decisions ? { decisions } : {})) events.push(e);
  const fin = events.at(-1)!;
  expect(fin.type).toBe("finish");
  if (fin.type !== "finish") throw new Error("no finish");
  if (fin.status === "suspended") expect(events.at(-2)).toMatchObject({ type: "suspended", pending: fin.pending });
  return fin;
}

for (const format of Object.keys(FORMATS)) {
  describe(`${format}: suspend and resume on the wire`, () => {
    for (const streamed of [false, true]) {
      for (const parallel of [false, true]) {
        it(`every decision form (${streamed ? "stream" : "chat"}, ${parallel ? "parallel" : "sequential"}), saved as JSON and resumed by a new client`, async () => {
          const w = await wire(format, [STEP, { text: "All done." }]);
          const log: string[] = [];
          const opts = {
            provider: w.provider,
            tools: tools(log),
            parallelTools: parallel,
            suspension: suspension({ secret: "k3y-k3y-k3y-k3y-k3y-k3y-k3y-k3y-k3y" }),
          };
          const first = createClient(opts);
          const r1 = await drive(first, streamed, "Pay and move.");
          expect(r1.status).toBe("suspended");
          expect(r1.pending.map((p) => [p.callId, p.kind])).toEqual([
            ["call_pay1", "approval"],
            ["call_pay2", "approval"],
            ["call_time", "external"],
            ["call_move", "input"],
          ]);
          expect(log.sort()).toEqual(["lookup rates", "transfer 5"]);
          expect(w.bodies()).toHaveLength(1);

          const saved = JSON.parse(JSON.stringify(first.history)) as Message[];
          const second = createClient({ ...opts, history: saved });
          expect(second.pending).toEqual(r1.pending);
          // a tampered decision batch changes nothing and sends nothing
          await expect(second.resume([{ callId: "call_pay1", approved: true, input: { amount: "x" } }])).rejects.toMatchObject({ code: "invalid_decision" });
          expect(w.bodies()).toHaveLength(1);

          const r2 = await drive(second, streamed, undefined, [
            { callId: "call_move", answer: "savings" },
            { callId: "call_time", output: "14:05" },
            { callId: "call_pay2", approved: false, reason: "over the limit" },
            { callId: "call_pay1", approved: true, input: { amount: 41 } },
          ]);
          expect(r2.status).toBe("done");
          expect(r2.text).toBe("All done.");
          expect(log.filter((l) => l.startsWith("pay"))).toEqual(["pay 41"]);
          expect(w.bodies()).toHaveLength(2);
          const sent = JSON.stringify(w.bodies()[1]);
          for (const out of ["found rates", "paid 41", "denied: over the limit", "14:05", "moved 5 from savings"]) expect(sent).toContain(out);
          expect(historyProblems(second.history)).toEqual([]);
          const results = second.history.flatMap((m) => (m.role === "tool" ? m.results : []));
          expect(results.map((r) => r.callId)).toEqual(STEP.toolCalls!.map((c) => c.id));
          expect(results.every((r) => r.pending === undefined)).toBe(true);
        });
      }
    }

    it("an external tool's output as content parts (an image from the browser) is sent natively", async () => {
      const w = await wire(format, [{ toolCalls: [{ id: "call_shot", name: "screenshot", input: {} }] }, { text: "I see a pixel." }]);
      const shot = externalTool({ name: "screenshot", description: "Screenshot of the user's tab.", input: v.object({}) });
      const client = createClient({ suspension: suspension({ unsigned: true }), provider: w.provider, tools: [shot] });
      expect((await client.run("look")).pending).toMatchObject([{ callId: "call_shot", kind: "external" }]);
      const r = await client.resume([
        {
          callId: "call_shot",
          output: {
            content: [
              { type: "text", text: "the tab" },
              { type: "image", mediaType: "image/png", data: PNG },
            ],
          },
        },
      ]);
      expect(r.text).toBe("I see a pixel.");
      const sent = JSON.stringify(w.bodies()[1]);
      expect(sent).toContain(PNG);
      expect(sent).toContain("the tab");
    });

    it("a new prompt instead of decisions cancels what waits, and the request is valid", async () => {
      const w = await wire(format, [STEP, { text: "Fine." }]);
      const client = createClient({ suspension: suspension({ unsigned: true }), provider: w.provider, tools: tools([]) });
      await client.run("go");
      expect(await client.chat("Forget it.")).toBe("Fine.");
      expect(JSON.stringify(w.bodies()[1])).toContain("cancelled: no decision");
    });

    it("step options reach the wire: toolChoice (client, per call, per step), system per call, tools via prepareStep", async () => {
      const call = (name: string, input: unknown): Turn => ({ toolCalls: [{ name, input }] });
      const w = await wire(format, [call("lookup", { q: "1" }), call("lookup", { q: "2" }), { text: "end" }, { text: "second" }]);
      const log: string[] = [];
      const all = tools(log);
      const client = createClient({
        suspension: suspension({ unsigned: true }),
        provider: w.provider,
        tools: all,
        systemPrompt: "Client system.",
        toolChoice: "required",
        prepareStep: ({ step }) =>
          step === 2 ? { toolChoice: { name: "LOOKUP" }, tools: [all[0]!], system: "Step two." } : step === 3 ? { toolChoice: "none" } : undefined,
      });
      expect(await client.chat("a")).toBe("end");
      const [b1, b2, b3] = w.bodies();
      expect(w.choice(b1!)).toBe("required");
      expect(w.system(b1!)).toBe("Client system.");
      expect(w.toolNames(b1!)).toEqual(["lookup", "pay", "browser_time", "transfer"]);
      expect(w.choice(b2!)).toEqual({ name: "lookup" });
      expect(w.system(b2!)).toBe("Step two.");
      expect(w.toolNames(b2!)).toEqual(["lookup"]);
      expect(w.choice(b3!)).toBe("none");
      expect(await client.chat("b", { system: "Per call.", toolChoice: "auto" })).toBe("second");
      const b4 = w.bodies()[3]!;
      expect(w.system(b4)).toBe("Per call.");
      expect(w.choice(b4)).toBe("auto");
    });

    it("stopWhen: stepCountIs(2) is two tool steps, then one tools-off call for the answer", async () => {
      const call = (q: string): Turn => ({ toolCalls: [{ name: "lookup", input: { q } }] });
      const w = await wire(format, [call("1"), call("2"), { text: "answer" }]);
      const steps: number[] = [];
      const client = createClient({
        suspension: suspension({ unsigned: true }),
        provider: w.provider,
        tools: tools([]),
        stopWhen: stepCountIs(2),
        onStepFinish: (s) => void steps.push(s.step),
      });
      expect(await client.chat("go")).toBe("answer");
      expect(w.bodies().map((b) => w.choice(b))).toEqual(["auto", "auto", "none"]);
      expect(steps).toEqual([1, 2, 3]);
    });
  });
}
