// toolChoice (issue 14) → toolConfig.functionCallingConfig on the wire, over real HTTP.

import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { encodeRequest } from "../../adapters/gemini/encode.js";
import type { ToolChoice } from "../../src/conversation/provider.js";
import { createClient, tool } from "../../src/index.js";
import { MOCK_API_KEY } from "../mock/gemini.js";
import { providerFor, withMock } from "./helpers.js";
import { validateRequestBody } from "./spec.js";

const weather = tool({ name: "Get_Weather", description: "Weather.", input: v.object({ city: v.string() }), run: async () => "21" });
const time = tool({ name: "get_time", description: "Time.", input: v.object({}), run: async () => "noon" });

const CASES: { choice: ToolChoice; config: unknown }[] = [
  { choice: "auto", config: undefined }, // the API's default: not sent
  { choice: "none", config: { functionCallingConfig: { mode: "NONE" } } },
  { choice: "required", config: { functionCallingConfig: { mode: "ANY" } } },
  // the registry's lower-cased name, as declared
  { choice: { name: "Get_Weather" }, config: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_weather"] } } },
];

describe("gemini toolChoice → functionCallingConfig", () => {
  for (const stream of [false, true]) {
    for (const c of CASES) {
      it(`${stream ? "stream" : "chat"}: ${JSON.stringify(c.choice)}`, async () => {
        await withMock({ script: [{ text: "ok" }] }, async (mock) => {
          const client = createClient({ provider: providerFor(mock), tools: [weather, time] });
          if (stream) for await (const _ of client.stream("hi", { toolChoice: c.choice, maxSteps: 1 })) void _;
          else expect(await client.chat("hi", { toolChoice: c.choice, maxSteps: 1 })).toBe("ok");
          const body = mock.requests[0]!.body as Record<string, unknown>;
          expect(body.toolConfig).toEqual(c.config);
          expect(validateRequestBody(body)).toEqual([]);
        });
      });
    }
  }

  it("a forced tool call is made and answered, then the next step is free again", async () => {
    await withMock({ script: [{ toolCalls: [{ name: "get_weather", input: { city: "Oslo" } }] }, { text: "21 in Oslo" }] }, async (mock) => {
      const client = createClient({
        provider: providerFor(mock),
        tools: [weather, time],
        prepareStep: ({ step }) => (step === 1 ? { toolChoice: { name: "get_weather" } } : { toolChoice: "auto" }),
      });
      expect(await client.chat("weather?")).toBe("21 in Oslo");
      const [first, second] = mock.requests.map((r) => r.body as Record<string, unknown>);
      expect(first!.toolConfig).toEqual({ functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_weather"] } });
      expect(second!.toolConfig).toBeUndefined();
    });
  });

  it("no functionCallingConfig without function declarations (only web search): ANY would have nothing to call", () => {
    const body = encodeRequest(
      { messages: [{ role: "user", content: "x" }], tools: [], webSearch: true, toolChoice: "required" },
      { model: "gemini-3-pro-preview", generationConfig: {} },
    );
    expect(body.toolConfig).toBeUndefined();
    expect(body.tools).toEqual([{ googleSearch: {} }]);
  });

  it("the mock refuses what the API refuses: allowedFunctionNames with AUTO, or naming an undeclared function", async () => {
    await withMock({}, async (mock) => {
      const post = (toolConfig: unknown) =>
        fetch(`${mock.url}/models/gemini-3-pro-preview:generateContent`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-goog-api-key": MOCK_API_KEY },
          body: JSON.stringify({
            contents: [{ role: "user", parts: [{ text: "x" }] }],
            tools: [{ functionDeclarations: [{ name: "f", description: "f", parametersJsonSchema: { type: "object" } }] }],
            toolConfig,
          }),
        });
      expect((await post({ functionCallingConfig: { mode: "AUTO", allowedFunctionNames: ["f"] } })).status).toBe(400);
      expect((await post({ functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["g"] } })).status).toBe(400);
      expect((await post({ functionCallingConfig: { mode: "MAYBE" } })).status).toBe(400);
      expect((await post({ functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["f"] } })).status).toBe(200);
    });
  });
});
