// Images and files on both OpenAI APIs over real HTTP (issue 13): each part type in a user
// turn and in a tool result, with chat() and stream(), every body checked against the
// OpenAPI document and against mocks that refuse what the API refuses; parts an API cannot
// take fail before anything is sent; a history with media survives JSON and moves in from
// another provider.

import * as v from "valibot";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openai, openaiChat, openaiCompatible } from "../../adapters/openai/index.js";
import type { ContentPart } from "../../src/conversation/messages.js";
import { createClient, type Message, tool } from "../../src/index.js";
import { toolOutput } from "../../src/tools/tool.js";
import { type OpenAIMock, startOpenAIChatMock } from "../mock/openai-chat.js";
import { startOpenAIResponsesMock } from "../mock/openai-responses.js";
import { specValidator } from "./support/openapi.js";

const KEY = "sk-test-content-31415926";
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const PDF = "JVBERi0xLjQKJcOkw7zDtsOfCjEgMCBvYmoKPDwvVHlwZS9DYXRhbG9nPj4KZW5kb2JqCnRyYWlsZXIKPDwvUm9vdCAxIDAgUj4+CiUlRU9G";

const PARTS: Record<string, ContentPart> = {
  "image (base64)": { type: "image", mediaType: "image/png", data: PNG },
  "image (url)": { type: "image", url: "https://example.com/cat.png" },
  "file (base64)": { type: "file", mediaType: "application/pdf", data: PDF, filename: "report.pdf" },
  "file (url)": { type: "file", url: "https://example.com/report.pdf", mediaType: "application/pdf", filename: "report.pdf" },
};

let validateResponses: ReturnType<typeof specValidator>;
let validateChat: ReturnType<typeof specValidator>;
beforeAll(() => {
  validateResponses = specValidator("CreateResponse");
  validateChat = specValidator("CreateChatCompletionRequest");
}, 60_000);

const mocks: OpenAIMock[] = [];
afterEach(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.close()));
});
afterAll(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.close()));
});

type Item = Record<string, unknown>;
type ResponsesBody = { input: Item[] };
type ChatBody = { messages: { role: string; content: unknown; tool_call_id?: string }[] };

function expectValid(issues: { path: string; message: string }[], what: string): void {
  expect(issues, `${what}: ${JSON.stringify(issues.slice(0, 5))}`).toEqual([]);
}

/** What the Responses API should receive for a part. */
function responsesShape(p: ContentPart): Item {
  if (p.type === "text") return { type: "input_text", text: p.text };
  if (p.type === "image") return { type: "input_image", image_url: p.url ?? `data:${p.mediaType};base64,${p.data}`, detail: "auto" };
  if (p.url !== undefined) return { type: "input_file", file_url: p.url };
  return { type: "input_file", filename: p.filename, file_data: `data:${p.mediaType};base64,${p.data}` };
}

/** What Chat Completions should receive for a part. */
function chatShape(p: ContentPart): Item {
  if (p.type === "text") return { type: "text", text: p.text };
  if (p.type === "image") return { type: "image_url", image_url: { url: p.url ?? `data:${p.mediaType};base64,${p.data}` } };
  return { type: "file", file: { filename: p.filename, file_data: `data:${p.mediaType};base64,${p.data}` } };
}

function snapshotTool(part: ContentPart) {
  return tool({
    name: "snapshot",
    description: "Takes a snapshot.",
    input: v.object({}),
    run: async () => toolOutput([{ type: "text", text: "here it is" }, part]),
  });
}

async function drive(client: ReturnType<typeof createClient>, prompt: string | ContentPart[], stream: boolean): Promise<string> {
  if (!stream) return client.chat(prompt);
  let text = "";
  for await (const e of client.stream(prompt)) if (e.type === "finish") text = e.text;
  return text;
}

describe.each([false, true])("Responses API content parts (stream: %s)", (stream) => {
  for (const [label, part] of Object.entries(PARTS)) {
    it(`${label} in a user turn goes as ${part.type === "image" ? "input_image" : "input_file"}`, async () => {
      const m = await startOpenAIResponsesMock({ apiKey: KEY, script: [{ text: "seen" }] });
      mocks.push(m);
      const client = createClient({ provider: openai({ apiKey: KEY, baseURL: m.url, model: "gpt-5-mini", maxRetries: 0 }) });
      expect(await drive(client, [{ type: "text", text: "What is this?" }, part], stream)).toBe("seen");
      const b = m.requests[0]!.body as ResponsesBody;
      expectValid(validateResponses(b), label);
      expect(b.input[0]).toEqual({ role: "user", content: [{ type: "input_text", text: "What is this?" }, responsesShape(part)] });
    });

    it(`${label} out of a tool goes in the function_call_output array`, async () => {
      const m = await startOpenAIResponsesMock({ apiKey: KEY, script: [{ toolCalls: [{ id: "call_snap", name: "snapshot", input: {} }] }, { text: "nice" }] });
      mocks.push(m);
      const client = createClient({ provider: openai({ apiKey: KEY, baseURL: m.url, model: "gpt-5-mini", maxRetries: 0 }), tools: [snapshotTool(part)] });
      expect(await drive(client, "Snap it.", stream)).toBe("nice");
      const b = m.requests[1]!.body as ResponsesBody;
      expectValid(validateResponses(b), label);
      const out = b.input.find((i) => i.type === "function_call_output")!;
      expect(out).toEqual({ type: "function_call_output", call_id: "call_snap", output: [{ type: "input_text", text: "here it is" }, responsesShape(part)] });
      // the history keeps the parts and the text rendering beside them
      const result = (client.history[2] as Extract<Message, { role: "tool" }>).results[0]!;
      expect(result.content).toEqual([{ type: "text", text: "here it is" }, part]);
      expect(result.output).toContain("here it is");
    });
  }
});

const CHAT_PARTS = Object.entries(PARTS).filter(([label]) => label !== "file (url)");

describe.each([false, true])("Chat Completions content parts (stream: %s)", (stream) => {
  for (const [label, part] of CHAT_PARTS) {
    it(`${label} in a user turn goes as ${part.type === "image" ? "image_url" : "file"}`, async () => {
      const m = await startOpenAIChatMock({ apiKey: KEY, script: [{ text: "seen" }] });
      mocks.push(m);
      const client = createClient({ provider: openaiChat({ apiKey: KEY, baseURL: m.url, model: "gpt-4o", maxRetries: 0 }) });
      expect(await drive(client, [{ type: "text", text: "What is this?" }, part], stream)).toBe("seen");
      const b = m.requests[0]!.body as ChatBody;
      expectValid(validateChat(b), label);
      expect(b.messages[0]).toEqual({ role: "user", content: [{ type: "text", text: "What is this?" }, chatShape(part)] });
    });

    it(`${label} out of a tool: text in the tool message, the media in one user message after the step's tool messages`, async () => {
      const m = await startOpenAIChatMock({
        apiKey: KEY,
        script: [
          {
            toolCalls: [
              { id: "call_a", name: "snapshot", input: {} },
              { id: "call_b", name: "plain", input: {} },
              { id: "call_c", name: "snapshot", input: {} },
            ],
          },
          { text: "nice" },
        ],
      });
      mocks.push(m);
      const plain = tool({ name: "plain", description: "Text only.", input: v.object({}), run: async () => "just text" });
      const client = createClient({
        provider: openaiChat({ apiKey: KEY, baseURL: m.url, model: "gpt-4o", maxRetries: 0 }),
        tools: [snapshotTool(part), plain],
      });
      expect(await drive(client, "Snap it.", stream)).toBe("nice");
      const b = m.requests[1]!.body as ChatBody;
      expectValid(validateChat(b), label);
      expect(b.messages.map((x) => x.role)).toEqual(["user", "assistant", "tool", "tool", "tool", "user"]);
      expect(b.messages.filter((x) => x.role === "tool").every((x) => typeof x.content === "string")).toBe(true);
      expect(b.messages[2]!.content).toContain("here it is");
      expect(b.messages[5]!.content).toEqual([
        { type: "text", text: "Attachment from tool call call_a (snapshot):" },
        chatShape(part),
        { type: "text", text: "Attachment from tool call call_c (snapshot):" },
        chatShape(part),
      ]);
    });
  }
});

describe("what an API cannot take fails before sending", () => {
  const cases: { what: string; api: "chat" | "responses" | "compatible"; part: ContentPart; message: RegExp }[] = [
    { what: "Chat Completions: a file by URL (the API has no file URL field)", api: "chat", part: PARTS["file (url)"]!, message: /base64 data only/ },
    {
      what: "Chat Completions: a non-PDF file",
      api: "chat",
      part: { type: "file", mediaType: "text/csv", data: "YSxiCg==", filename: "t.csv" },
      message: /PDF files only/,
    },
    {
      what: "an image type OpenAI does not list",
      api: "responses",
      part: { type: "image", mediaType: "image/tiff", data: "AAAA" },
      message: /PNG, JPEG, WEBP and GIF/,
    },
    { what: "an image sent as a file", api: "responses", part: { type: "file", mediaType: "image/png", data: PNG }, message: /image parts/ },
    { what: "audio as a file", api: "responses", part: { type: "file", mediaType: "audio/mpeg", data: "AAAA" }, message: /not audio or video/ },
    { what: "a compatible server not declared to see images", api: "compatible", part: PARTS["image (base64)"]!, message: /compat: \{ vision: true \}/ },
    { what: "a compatible server not declared to take files", api: "compatible", part: PARTS["file (base64)"]!, message: /not known to take files/ },
  ];
  for (const c of cases) {
    it(c.what, async () => {
      const m = c.api === "responses" ? await startOpenAIResponsesMock({ apiKey: KEY }) : await startOpenAIChatMock({ apiKey: KEY });
      mocks.push(m);
      const provider =
        c.api === "compatible"
          ? openaiCompatible({ baseURL: m.url, model: "local", apiKey: KEY, maxRetries: 0 })
          : (c.api === "chat" ? openaiChat : openai)({ apiKey: KEY, baseURL: m.url, model: "gpt-4o", maxRetries: 0 });
      const client = createClient({ provider });
      const err = await client.chat([{ type: "text", text: "look" }, c.part]).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "unsupported_content", provider: provider.name });
      expect((err as Error).message).toMatch(c.message);
      expect(m.requests).toHaveLength(0);
    });
  }

  it("a compatible server that declares vision and files takes them", async () => {
    const m = await startOpenAIChatMock({ script: [{ text: "a cat" }] });
    mocks.push(m);
    const client = createClient({ provider: openaiCompatible({ baseURL: m.url, model: "llava", compat: { vision: true, files: true } }) });
    expect(await client.chat([{ type: "text", text: "What is it?" }, PARTS["image (url)"]!, PARTS["file (base64)"]!])).toBe("a cat");
    const b = m.requests[0]!.body as ChatBody;
    expect(b.messages[0]!.content).toEqual([{ type: "text", text: "What is it?" }, chatShape(PARTS["image (url)"]!), chatShape(PARTS["file (base64)"]!)]);
  });

  it("a tool image on a compatible server without vision goes as a text note in the follow-up request", async () => {
    const m = await startOpenAIChatMock({ script: [{ toolCalls: [{ id: "c1", name: "snapshot", input: {} }] }, { text: "told" }] });
    mocks.push(m);
    const client = createClient({ provider: openaiCompatible({ baseURL: m.url, model: "local" }), tools: [snapshotTool(PARTS["image (base64)"]!)] });
    expect(await client.chat("snap")).toBe("told");
    expect(m.requests).toHaveLength(2);
    expect((m.requests[1]!.body as ChatBody).messages.slice(2)).toEqual([
      { role: "tool", tool_call_id: "c1", content: "here it is\n[image image/png]" },
      {
        role: "user",
        content: [
          { type: "text", text: "Attachment from tool call c1 (snapshot):" },
          { type: "text", text: "[image image/png] (not sent to openai-compatible: this server is not known to take images)" },
        ],
      },
    ]);
    // the history keeps the image (another provider may take it)
    expect((client.history[2] as Extract<Message, { role: "tool" }>).results[0]!.content).toEqual([
      { type: "text", text: "here it is" },
      PARTS["image (base64)"],
    ]);
  });
});

describe("the mocks refuse what the API refuses", () => {
  it("Chat Completions: an image part inside a tool message", async () => {
    const m = await startOpenAIChatMock({ apiKey: KEY });
    mocks.push(m);
    const res = await fetch(`${m.url}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "gpt-4o",
        messages: [
          { role: "user", content: "snap" },
          { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "snap", arguments: "{}" } }] },
          { role: "tool", tool_call_id: "c1", content: [{ type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } }] },
        ],
      }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { param: string } }).error.param).toBe("messages[2].content[0].type");
    // and the spec says the same
    expect(
      validateChat({
        model: "gpt-4o",
        messages: [{ role: "tool", tool_call_id: "c1", content: [{ type: "image_url", image_url: { url: "https://x/y.png" } }] }],
      }),
    ).not.toEqual([]);
  });

  it("Responses: an unknown part type in a function_call_output array", async () => {
    const m = await startOpenAIResponsesMock({ apiKey: KEY });
    mocks.push(m);
    const res = await fetch(`${m.url}/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "gpt-5",
        store: false,
        input: [
          { type: "function_call", call_id: "c1", name: "snap", arguments: "{}" },
          { type: "function_call_output", call_id: "c1", output: [{ type: "image", data: PNG }] },
        ],
      }),
    });
    expect(res.status).toBe(400);
  });
});

describe("histories with media", () => {
  it("survive JSON: save, a new client resumes with createClient({ history }) and sends the same parts", async () => {
    const m = await startOpenAIResponsesMock({
      apiKey: KEY,
      script: [{ toolCalls: [{ id: "call_1", name: "snapshot", input: {} }] }, { text: "got it" }, { text: "still there" }],
    });
    mocks.push(m);
    const provider = openai({ apiKey: KEY, baseURL: m.url, model: "gpt-5-mini", maxRetries: 0 });
    const first = createClient({ provider, tools: [snapshotTool(PARTS["image (base64)"]!)] });
    await first.chat([{ type: "text", text: "Look:" }, PARTS["file (url)"]!]);
    const saved = JSON.parse(JSON.stringify(first.history)) as Message[];
    const second = createClient({ provider, history: saved });
    expect(await second.chat("Still there?")).toBe("still there");
    const before = (m.requests[1]!.body as ResponsesBody).input;
    const after = (m.requests[2]!.body as ResponsesBody).input;
    expect(after.slice(0, before.length)).toEqual(before);
    expectValid(validateResponses(m.requests[2]!.body), "resumed");
  });

  it("a history moved from Claude with images (tool media included) goes to both OpenAI APIs", async () => {
    const history: Message[] = [
      { role: "user", content: [{ type: "text", text: "What is in the photo?" }, PARTS["image (base64)"]!] },
      {
        role: "assistant",
        content: "Let me zoom in.",
        toolCalls: [{ id: "toolu_01A", name: "zoom", arguments: '{"factor":2}' }],
        providerData: { provider: "claude", value: [{ type: "thinking", thinking: "hm", signature: "sig" }] },
      },
      {
        role: "tool",
        results: [
          {
            callId: "toolu_01A",
            name: "zoom",
            output: "zoomed\n[image image/png]",
            isError: false,
            content: [{ type: "text", text: "zoomed" }, PARTS["image (base64)"]!],
          },
        ],
      },
      { role: "assistant", content: "A cat." },
    ];
    const chat = await startOpenAIChatMock({ apiKey: KEY, script: [{ text: "still a cat" }] });
    const resp = await startOpenAIResponsesMock({ apiKey: KEY, script: [{ text: "still a cat" }] });
    mocks.push(chat, resp);
    const zoom = tool({ name: "zoom", description: "Zoom.", input: v.object({ factor: v.number() }), run: async () => "" });
    expect(
      await createClient({ provider: openaiChat({ apiKey: KEY, baseURL: chat.url, model: "gpt-4o", maxRetries: 0 }), tools: [zoom], history }).chat("Sure?"),
    ).toBe("still a cat");
    expect(
      await createClient({ provider: openai({ apiKey: KEY, baseURL: resp.url, model: "gpt-4o", maxRetries: 0 }), tools: [zoom], history }).chat("Sure?"),
    ).toBe("still a cat");
    const cb = chat.requests[0]!.body as ChatBody;
    expectValid(validateChat(cb), "chat");
    expect(cb.messages.map((x) => x.role)).toEqual(["user", "assistant", "tool", "user", "assistant", "user"]);
    const rb = resp.requests[0]!.body as ResponsesBody;
    expectValid(validateResponses(rb), "responses");
    // Claude's thinking is not sent to OpenAI; the image is, in the user turn and the tool output
    expect(JSON.stringify(rb.input)).not.toContain("thinking");
    expect(rb.input.filter((i) => i.type === "function_call_output")[0]!.output).toEqual([
      { type: "input_text", text: "zoomed" },
      responsesShape(PARTS["image (base64)"]!),
    ]);
  });
});
