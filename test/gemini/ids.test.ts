// Call ids over a whole conversation (issue 11): ids the adapter derives for calls that came
// without one never repeat an id the history holds, and a history that repeats ids (moved from
// another provider, or a local server's `call_0` every step) goes out with one id per call.

import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { createClient, type Message, tool } from "../../src/index.js";
import type { MockTurn } from "../mock/gemini.js";
import { providerFor, withMock } from "./helpers.js";
import { validateRequestBody } from "./spec.js";

const lookup = tool({
  name: "lookup",
  description: "Looks a word up.",
  input: v.object({ word: v.string() }),
  run: async ({ word }) => `${word}: a word`,
});

type Body = { contents: { role: string; parts: Record<string, any>[] }[] };

const allCallIds = (history: readonly Message[]) => history.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []).map((c) => c.id) : []));

describe("gemini call ids are unique over the conversation", () => {
  for (const stream of [false, true]) {
    it(`${stream ? "stream" : "chat"}: responses without responseId making the same call twice get distinct ids`, async () => {
      const same: MockTurn = { toolCalls: [{ name: "lookup", input: { word: "x" } }] };
      await withMock({ script: [same, same, { text: "done" }], responseIds: false }, async (mock) => {
        const client = createClient({ provider: providerFor(mock), tools: [lookup] });
        if (stream) for await (const _ of client.stream("look x up twice")) void _;
        else expect(await client.chat("look x up twice")).toBe("done");
        const ids = allCallIds(client.history);
        expect(ids).toHaveLength(2);
        expect(new Set(ids).size).toBe(2);
        // every result answers its own call
        const results = client.history.flatMap((m) => (m.role === "tool" ? m.results.map((r) => r.callId) : []));
        expect(results).toEqual(ids);
        for (const r of mock.requests) expect(validateRequestBody(r.body)).toEqual([]);
      });
    });
  }

  it("a history moved from another provider that repeats ids is sent with one id per call", async () => {
    const history: Message[] = [
      { role: "user", content: "look up a and b" },
      { role: "assistant", content: "", toolCalls: [{ id: "call_0", name: "lookup", arguments: '{"word":"a"}' }] },
      { role: "tool", results: [{ callId: "call_0", name: "lookup", output: "a: a word", isError: false }] },
      { role: "assistant", content: "", toolCalls: [{ id: "call_0", name: "lookup", arguments: '{"word":"b"}' }] },
      { role: "tool", results: [{ callId: "call_0", name: "lookup", output: "b: a word", isError: false }] },
      { role: "assistant", content: "", toolCalls: [{ id: "call_0_2", name: "lookup", arguments: '{"word":"c"}' }] },
      { role: "tool", results: [{ callId: "call_0_2", name: "lookup", output: "c: a word", isError: false }] },
    ];
    await withMock({ script: [{ text: "ok" }] }, async (mock) => {
      const client = createClient({ provider: providerFor(mock), tools: [lookup], history });
      expect(await client.chat("and?")).toBe("ok");
      const body = mock.requests[0]!.body as Body;
      const callIds = body.contents.flatMap((c) => c.parts.filter((p) => p.functionCall).map((p) => p.functionCall.id as string));
      const responseIds = body.contents.flatMap((c) => c.parts.filter((p) => p.functionResponse).map((p) => p.functionResponse.id as string));
      expect(callIds).toEqual(["call_0", "call_0_2", "call_0_2_2"]);
      expect(responseIds).toEqual(callIds);
      // the stored history is not rewritten: only the wire ids are
      expect(allCallIds(client.history).slice(0, 3)).toEqual(["call_0", "call_0", "call_0_2"]);
    });
  });
});
