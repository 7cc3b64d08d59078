// toolChoice on Claude: each neutral choice as its tool_choice on the wire (over HTTP, the
// mock checking a named tool exists), with tool-mode ask() consistent with it, and forced
// tool use with thinking refused by the API (the mock answers the 400 Anthropic does).

import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { type ClaudeOptions, claude } from "../../adapters/claude/index.js";
import type { ToolChoice } from "../../src/conversation/provider.js";
import { createClient, isToolloopError, tool } from "../../src/index.js";
import { type ClaudeMock, type MockTurn, startClaudeMock } from "../mock/claude.js";

const mocks: ClaudeMock[] = [];
afterEach(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.close()));
});

async function setup(script: MockTurn[], options: Partial<ClaudeOptions> = {}) {
  const mock = await startClaudeMock({ script });
  mocks.push(mock);
  return { mock, provider: claude({ apiKey: "k", model: "claude-test", baseURL: mock.url, maxRetries: 0, ...options }) };
}

const lookup = tool({ name: "Lookup", description: "Looks up.", input: v.object({ q: v.string() }), run: ({ q }) => `found ${q}` });
const other = tool({ name: "other", description: "Other.", input: v.object({}), run: () => "x" });

describe("toolChoice → tool_choice", () => {
  // "auto" is the API's default: left out of the body (undefined)
  const cases: [ToolChoice, Record<string, unknown> | undefined][] = [
    ["auto", undefined],
    ["none", { type: "none" }],
    ["required", { type: "any" }],
    [{ name: "Lookup" }, { type: "tool", name: "lookup" }],
  ];
  for (const [choice, wire] of cases) {
    it(`${JSON.stringify(choice)} is sent as ${JSON.stringify(wire)}`, async () => {
      const { mock, provider } = await setup([{ text: "ok" }]);
      const client = createClient({ provider, tools: [lookup, other] });
      expect(await client.chat("go", { toolChoice: choice })).toBe("ok");
      expect(mock.requests[0]!.body.tool_choice).toEqual(wire);
    });
  }

  it("a client-wide choice applies to every step unless a call overrides it", async () => {
    const { mock, provider } = await setup([{ toolCalls: [{ name: "lookup", input: { q: "a" } }] }, { text: "done" }, { text: "again" }]);
    const client = createClient({ provider, tools: [lookup, other], toolChoice: "required" });
    await client.chat("go");
    await client.chat("more", { toolChoice: "auto" });
    expect(mock.requests.map((r) => r.body.tool_choice)).toEqual([{ type: "any" }, { type: "any" }, undefined]);
  });

  it("forced tool use with extended thinking gets the API's own 400 (a ProviderError that says why), and the history stays valid", async () => {
    const { mock, provider } = await setup([{ text: "fine" }], { thinking: { budgetTokens: 1024 } });
    const client = createClient({ provider, tools: [lookup] });
    for (const toolChoice of ["required", { name: "lookup" }] as ToolChoice[]) {
      const err = await client.chat("go", { toolChoice }).catch((e: unknown) => e);
      expect(isToolloopError(err, "provider_error")).toBe(true);
      expect(err).toMatchObject({ status: 400, message: expect.stringContaining("Thinking may not be enabled when tool_choice forces tool use") });
    }
    expect(mock.requests.map((r) => r.body.tool_choice)).toEqual([{ type: "any" }, { type: "tool", name: "lookup" }]);
    expect(await client.chat("go")).toBe("fine");
  });
});

describe('tool-mode ask() (structuredOutput: "tool") and toolChoice', () => {
  const Answer = v.object({ answer: v.string() });
  const answer = { toolCalls: [{ name: "structured_output", input: { answer: "42" } }] };

  it('"none" and no other tools force the output tool; "auto" and "required" allow any tool', async () => {
    const { mock, provider } = await setup([answer, answer, answer], { structuredOutput: "tool" });
    const client = createClient({ provider, tools: [lookup] });
    expect(await client.ask("q", Answer, { toolChoice: "none" })).toEqual({ answer: "42" });
    expect(await client.ask("q", Answer, { toolChoice: "auto" })).toEqual({ answer: "42" });
    expect(await client.ask("q", Answer, { toolChoice: "required" })).toEqual({ answer: "42" });
    expect(mock.requests.map((r) => r.body.tool_choice)).toEqual([{ type: "tool", name: "structured_output" }, { type: "any" }, { type: "any" }]);
  });

  it("a named tool stays forced; the answer comes after its result", async () => {
    const { mock, provider } = await setup([{ toolCalls: [{ name: "lookup", input: { q: "x" } }] }, answer], { structuredOutput: "tool" });
    const client = createClient({
      provider,
      tools: [lookup],
      prepareStep: ({ step }) => (step === 1 ? { toolChoice: { name: "lookup" } } : { toolChoice: "auto" }),
    });
    expect(await client.ask("q", Answer)).toEqual({ answer: "42" });
    expect(mock.requests.map((r) => r.body.tool_choice)).toEqual([{ type: "tool", name: "lookup" }, { type: "any" }]);
  });
});
