// A part a provider cannot take inside a TOOL RESULT, over real HTTP against the wire-faithful
// mocks (which refuse what each API refuses): it goes as text, its rendering and a note saying
// it was not sent and why, so the run completes, the model knows what the tool made, and the
// next chat works; the history keeps the part as it was (another provider may take it). The
// same part in a prompt still fails before sending with UnsupportedContentError, and the
// prompt is taken back.

import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { claude } from "../../adapters/claude/index.js";
import { gemini } from "../../adapters/gemini/index.js";
import { openai, openaiChat, openaiCompatible } from "../../adapters/openai/index.js";
import type { ContentPart } from "../../src/conversation/messages.js";
import { createClient, type Message, type Provider, type ToolResult, tool, toolOutput } from "../../src/index.js";
import { validateRequestBody } from "../gemini/spec.js";
import { startClaudeMock } from "../mock/claude.js";
import { MOCK_API_KEY, startGeminiMock } from "../mock/gemini.js";
import { startOpenAIChatMock } from "../mock/openai-chat.js";
import { startOpenAIResponsesMock } from "../mock/openai-responses.js";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const BMP: ContentPart = { type: "image", mediaType: "image/bmp", data: "Qk0=" };
const GIF: ContentPart = { type: "image", mediaType: "image/gif", data: "R0lGODlh" };
const PNG_PART: ContentPart = { type: "image", mediaType: "image/png", data: PNG };
const TEXT: ContentPart = { type: "text", text: "here it is" };

type Body = any; // the mocks' recorded bodies, poked into freely
type Mock = { url: string; requests: { body: Body }[]; close(): Promise<void> };

interface Row {
  name: string;
  start(script: Turn[]): Promise<Mock>;
  provider(url: string): Provider;
  /** What the tool returns that this provider cannot take inside a tool result. */
  toolPart: ContentPart;
  /** The same kind of part in a prompt (which this provider refuses there too). */
  promptPart?: ContentPart;
  note: string;
  /** How the tool result c1 looks on the wire, in a request body after the call. */
  sent(body: Body): unknown;
  expected: unknown;
}
type Turn = { text?: string; toolCalls?: { id?: string; name: string; input: unknown }[] };

const chatSent = (body: Body) => body.messages.slice(2, 4);
const chatExpected = (rendered: string, note: string) => [
  { role: "tool", tool_call_id: "c1", content: `here it is\n${rendered}` },
  {
    role: "user",
    content: [
      { type: "text", text: "Attachment from tool call c1 (shot):" },
      { type: "text", text: note },
    ],
  },
];
const geminiSent = (body: Body) => body.contents[2].parts[0].functionResponse;

const ROWS: Row[] = [
  {
    name: "claude()",
    start: (script) => startClaudeMock({ script }),
    provider: (url) => claude({ apiKey: "k", model: "claude-sonnet-4-5", baseURL: url, maxRetries: 0, cache: "off" }),
    toolPart: BMP,
    note: "[image image/bmp] (not sent to claude: images must be image/jpeg, image/png, image/gif, image/webp)",
    sent: (body) => body.messages[2].content[0],
    expected: {
      type: "tool_result",
      tool_use_id: "c1",
      content: [
        { type: "text", text: "here it is" },
        { type: "text", text: "[image image/bmp] (not sent to claude: images must be image/jpeg, image/png, image/gif, image/webp)" },
      ],
    },
  },
  {
    name: "openai() (Responses)",
    start: (script) => startOpenAIResponsesMock({ apiKey: "sk-k", script }),
    provider: (url) => openai({ apiKey: "sk-k", model: "gpt-5-mini", baseURL: url, maxRetries: 0 }),
    toolPart: BMP,
    note: "[image image/bmp] (not sent to openai: OpenAI takes PNG, JPEG, WEBP and GIF images)",
    sent: (body) => body.input.find((i: { type: string }) => i.type === "function_call_output"),
    expected: {
      type: "function_call_output",
      call_id: "c1",
      output: [
        { type: "input_text", text: "here it is" },
        { type: "input_text", text: "[image image/bmp] (not sent to openai: OpenAI takes PNG, JPEG, WEBP and GIF images)" },
      ],
    },
  },
  {
    name: "openaiChat()",
    start: (script) => startOpenAIChatMock({ apiKey: "sk-k", script }),
    provider: (url) => openaiChat({ apiKey: "sk-k", model: "gpt-4o", baseURL: url, maxRetries: 0 }),
    toolPart: BMP,
    note: "[image image/bmp] (not sent to openai: OpenAI takes PNG, JPEG, WEBP and GIF images)",
    sent: chatSent,
    expected: chatExpected("[image image/bmp]", "[image image/bmp] (not sent to openai: OpenAI takes PNG, JPEG, WEBP and GIF images)"),
  },
  {
    name: "openaiCompatible() with compat.vision",
    start: (script) => startOpenAIChatMock({ script }),
    provider: (url) => openaiCompatible({ baseURL: url, model: "llava", maxRetries: 0, compat: { vision: true } }),
    toolPart: BMP,
    note: "[image image/bmp] (not sent to openai-compatible: OpenAI takes PNG, JPEG, WEBP and GIF images)",
    sent: chatSent,
    expected: chatExpected("[image image/bmp]", "[image image/bmp] (not sent to openai-compatible: OpenAI takes PNG, JPEG, WEBP and GIF images)"),
  },
  {
    name: "openaiCompatible() without compat.vision (a PNG)",
    start: (script) => startOpenAIChatMock({ script }),
    provider: (url) => openaiCompatible({ baseURL: url, model: "local", maxRetries: 0 }),
    toolPart: PNG_PART,
    note: "[image image/png] (not sent to openai-compatible: this server is not known to take images)",
    sent: chatSent,
    expected: chatExpected("[image image/png]", "[image image/png] (not sent to openai-compatible: this server is not known to take images)"),
  },
  {
    name: "gemini() on Gemini 3 (a GIF)",
    start: (script) => startGeminiMock({ script }),
    provider: (url) => gemini({ apiKey: MOCK_API_KEY, model: "gemini-3-pro-preview", baseURL: url, maxRetries: 0 }),
    toolPart: GIF,
    note: "[image image/gif] (not sent to gemini: tool media must be PNG, JPEG, WebP, PDF or text/plain)",
    sent: geminiSent,
    expected: {
      id: expect.any(String),
      name: "shot",
      response: {
        output: "here it is\n[image image/gif]",
        note: "[image image/gif] (not sent to gemini: tool media must be PNG, JPEG, WebP, PDF or text/plain)",
      },
    },
  },
  {
    name: "gemini() on Gemini 2.5 (a PNG, which it takes in a prompt but not in a tool result)",
    start: (script) => startGeminiMock({ script }),
    provider: (url) => gemini({ apiKey: MOCK_API_KEY, model: "gemini-2.5-flash", baseURL: url, maxRetries: 0 }),
    toolPart: PNG_PART,
    promptPart: GIF,
    note: "[image image/png] (not sent to gemini: gemini-2.5-flash takes no media in tool results; Gemini 3 does)",
    sent: geminiSent,
    expected: {
      id: expect.any(String),
      name: "shot",
      response: {
        output: "here it is\n[image image/png]",
        note: "[image image/png] (not sent to gemini: gemini-2.5-flash takes no media in tool results; Gemini 3 does)",
      },
    },
  },
];

const mocks: Mock[] = [];
afterEach(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.close()));
});

function toolResults(history: readonly Message[]): ToolResult[] {
  return history.flatMap((m) => (m.role === "tool" ? m.results : []));
}

describe.each(ROWS)("$name: a tool result's part the provider cannot take", (row) => {
  it.each([false, true])("goes as text with a note (stream: %s); the run completes and the next chat works", async (stream) => {
    const mock = await row.start([{ toolCalls: [{ id: "c1", name: "shot", input: {} }] }, { text: "I see a note" }, { text: "hi again" }]);
    mocks.push(mock);
    const shot = tool({ name: "shot", description: "Takes a screenshot.", input: v.object({}), run: async () => toolOutput([TEXT, row.toolPart]) });
    const client = createClient({ provider: row.provider(mock.url), tools: [shot] });
    if (stream) {
      let text = "";
      for await (const e of client.stream("take a screenshot")) if (e.type === "finish") text = e.text;
      expect(text).toBe("I see a note");
    } else expect(await client.chat("take a screenshot")).toBe("I see a note");

    // the mock accepted the follow-up request, which carries the note in that tool result
    expect(mock.requests).toHaveLength(2);
    expect(row.sent(mock.requests[1]!.body)).toEqual(row.expected);
    expect(JSON.stringify(mock.requests[1]!.body)).toContain(JSON.stringify(row.note));
    // the history keeps the part as it is
    expect(toolResults(client.history)[0]).toMatchObject({ callId: "c1", isError: false, content: [TEXT, row.toolPart] });

    expect(await client.chat("just say hi")).toBe("hi again");
    expect(mock.requests).toHaveLength(3);
    expect(row.sent(mock.requests[2]!.body)).toEqual(row.expected);
    if (row.name.startsWith("gemini")) for (const r of mock.requests) expect(validateRequestBody(r.body)).toEqual([]);
  });

  it("the same part in a prompt still fails before sending, and the prompt is taken back", async () => {
    const mock = await row.start([{ text: "fine" }]);
    mocks.push(mock);
    const provider = row.provider(mock.url);
    const client = createClient({ provider });
    const err = await client.chat([{ type: "text", text: "look" }, row.promptPart ?? row.toolPart]).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "unsupported_content", provider: provider.name });
    expect(client.history).toEqual([]);
    expect(mock.requests).toHaveLength(0);
    expect(await client.chat("hello")).toBe("fine");
    expect(client.history.map((m) => m.role)).toEqual(["user", "assistant"]);
  });
});

describe("gemini() before Gemini 3 takes no tool media at all", () => {
  it("a PNG and a PDF go as notes, nothing in functionResponse.parts, and the mock accepts it", async () => {
    const mock = await startGeminiMock({ script: [{ toolCalls: [{ name: "shot", input: {} }] }, { text: "ok" }] });
    mocks.push(mock);
    const parts: ContentPart[] = [PNG_PART, { type: "file", mediaType: "application/pdf", data: "JVBERi0=", filename: "r.pdf" }];
    const shot = tool({ name: "shot", description: "Takes a screenshot.", input: v.object({}), run: async () => toolOutput(parts) });
    const client = createClient({ provider: gemini({ apiKey: MOCK_API_KEY, model: "gemini-2.0-flash", baseURL: mock.url, maxRetries: 0 }), tools: [shot] });
    expect(await client.chat("go")).toBe("ok");
    const fr = geminiSent(mock.requests[1]!.body);
    expect(fr.parts).toBeUndefined();
    expect(fr.response.note).toBe(
      "[image image/png] (not sent to gemini: gemini-2.0-flash takes no media in tool results; Gemini 3 does)\n" +
        "[file r.pdf application/pdf] (not sent to gemini: gemini-2.0-flash takes no media in tool results; Gemini 3 does)",
    );
  });
});
