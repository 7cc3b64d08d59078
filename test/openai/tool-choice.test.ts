// toolChoice on the wire of both OpenAI APIs (issue 14): auto stays unsaid (the API's
// default), none / required as strings, { name } as each API's named-function form; every
// body valid against the OpenAPI document and accepted by the mocks, which refuse a named
// tool that is not in the request as the API does.

import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openai, openaiChat } from "../../adapters/openai/index.js";
import type { ToolChoice } from "../../src/conversation/provider.js";
import { createClient, tool } from "../../src/index.js";
import { type OpenAIMock, startOpenAIChatMock } from "../mock/openai-chat.js";
import { startOpenAIResponsesMock } from "../mock/openai-responses.js";
import { specValidator } from "./support/openapi.js";

const KEY = "sk-test-toolchoice-2718281";
let chat: OpenAIMock;
let responses: OpenAIMock;
let validateResponses: ReturnType<typeof specValidator>;
let validateChat: ReturnType<typeof specValidator>;
beforeAll(async () => {
  validateResponses = specValidator("CreateResponse");
  validateChat = specValidator("CreateChatCompletionRequest");
  chat = await startOpenAIChatMock({ apiKey: KEY, script: () => ({ text: "ok" }) });
  responses = await startOpenAIResponsesMock({ apiKey: KEY, script: () => ({ text: "ok" }) });
}, 60_000);
afterAll(async () => {
  await chat.close();
  await responses.close();
});

const spec = { name: "get_weather", description: "Weather.", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } };

const CASES: { choice: ToolChoice | undefined; responses: unknown; chat: unknown }[] = [
  { choice: undefined, responses: undefined, chat: undefined },
  { choice: "auto", responses: undefined, chat: undefined },
  { choice: "none", responses: "none", chat: "none" },
  { choice: "required", responses: "required", chat: "required" },
  { choice: { name: "get_weather" }, responses: { type: "function", name: "get_weather" }, chat: { type: "function", function: { name: "get_weather" } } },
];

describe("toolChoice maps to each API's native form", () => {
  for (const c of CASES) {
    it(`${JSON.stringify(c.choice)}`, async () => {
      for (const api of ["responses", "chat"] as const) {
        const m = api === "chat" ? chat : responses;
        const p = (api === "chat" ? openaiChat : openai)({ apiKey: KEY, baseURL: m.url, model: "gpt-4o", maxRetries: 0 });
        const res = await p.generate({
          messages: [{ role: "user", content: "hi" }],
          tools: [spec],
          webSearch: false,
          ...(c.choice ? { toolChoice: c.choice } : {}),
        });
        expect(res.text).toBe("ok");
        const body = m.requests.at(-1)!.body as Record<string, unknown>;
        expect(body.tool_choice, api).toEqual(c[api]);
        expect((api === "chat" ? validateChat : validateResponses)(body), api).toEqual([]);
      }
    });
  }

  it("no tool_choice without tools (Chat refuses it there)", async () => {
    const p = openaiChat({ apiKey: KEY, baseURL: chat.url, model: "gpt-4o", maxRetries: 0 });
    await p.generate({ messages: [{ role: "user", content: "hi" }], tools: [], webSearch: false, toolChoice: "required" });
    expect((chat.requests.at(-1)!.body as Record<string, unknown>).tool_choice).toBeUndefined();
  });

  it("the mocks refuse a named tool the request does not carry, like the API", async () => {
    for (const api of ["responses", "chat"] as const) {
      const m = api === "chat" ? chat : responses;
      const p = (api === "chat" ? openaiChat : openai)({ apiKey: KEY, baseURL: m.url, model: "gpt-4o", maxRetries: 0 });
      await expect(
        p.generate({ messages: [{ role: "user", content: "hi" }], tools: [spec], webSearch: false, toolChoice: { name: "nope" } }),
      ).rejects.toMatchObject({
        code: "provider_error",
        status: 400,
      });
    }
  });

  it("a client's toolChoice reaches the wire", async () => {
    const getWeather = tool({ name: "get_weather", description: "Weather.", input: v.object({ city: v.string() }), run: async () => "21" });
    const client = createClient({
      provider: openai({ apiKey: KEY, baseURL: responses.url, model: "gpt-5-mini", maxRetries: 0 }),
      tools: [getWeather],
      toolChoice: { name: "get_weather" },
    });
    await client.chat("hi");
    expect((responses.requests.at(-1)!.body as Record<string, unknown>).tool_choice).toEqual({ type: "function", name: "get_weather" });
  });
});
