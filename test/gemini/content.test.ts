// Images and files (issue 13) through the whole stack over real HTTP: createClient → loop →
// gemini() → the mock, which validates media parts the way the API does. Each part type in a
// user turn and in a tool result, with generateContent and streamGenerateContent; JSON save and
// resume; a history moved from Claude; and what the API cannot take, refused before sending.

import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { encodeContents } from "../../adapters/gemini/encode.js";
import type { ContentPart } from "../../src/conversation/messages.js";
import { createClient, type Message, tool } from "../../src/index.js";
import { toolOutput } from "../../src/tools/tool.js";
import { type GeminiMock, MOCK_API_KEY } from "../mock/gemini.js";
import { providerFor, withMock } from "./helpers.js";
import { validateRequestBody } from "./spec.js";

// a 1×1 PNG, and a tiny PDF
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const PDF = btoa("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF");

type Body = { contents: { role: string; parts: Record<string, any>[] }[] };
const bodies = (mock: GeminiMock) => mock.requests.map((r) => r.body as Body);
const expectValid = (mock: GeminiMock) => {
  for (const r of mock.requests) expect(validateRequestBody(r.body)).toEqual([]);
};

/** Each part type, with the wire part it must become in a user turn. */
const USER_CASES: { name: string; part: ContentPart; wire: Record<string, unknown> }[] = [
  { name: "image, base64", part: { type: "image", mediaType: "image/png", data: PNG }, wire: { inlineData: { mimeType: "image/png", data: PNG } } },
  { name: "image, data: URL", part: { type: "image", url: `data:image/png;base64,${PNG}` }, wire: { inlineData: { mimeType: "image/png", data: PNG } } },
  {
    name: "image, https URL (type from the extension)",
    part: { type: "image", url: "https://example.com/cat.jpg" },
    wire: { fileData: { mimeType: "image/jpeg", fileUri: "https://example.com/cat.jpg" } },
  },
  {
    name: "image, Files API uri",
    part: { type: "image", url: "https://generativelanguage.googleapis.com/v1beta/files/abc-123" },
    wire: { fileData: { fileUri: "https://generativelanguage.googleapis.com/v1beta/files/abc-123" } },
  },
  {
    name: "file, base64 PDF",
    part: { type: "file", mediaType: "application/pdf", data: PDF, filename: "r.pdf" },
    wire: { inlineData: { mimeType: "application/pdf", data: PDF } },
  },
  {
    name: "file, https URL",
    part: { type: "file", mediaType: "application/pdf", url: "https://example.com/report.pdf" },
    wire: { fileData: { mimeType: "application/pdf", fileUri: "https://example.com/report.pdf" } },
  },
  {
    name: "file, gs:// uri",
    part: { type: "file", mediaType: "application/pdf", url: "gs://bucket/report.pdf" },
    wire: { fileData: { mimeType: "application/pdf", fileUri: "gs://bucket/report.pdf" } },
  },
  {
    name: "file, plain-text data: URL (percent-encoded, turned into base64)",
    part: { type: "file", mediaType: "text/plain", url: "data:text/plain,h%C3%A9llo" },
    wire: { inlineData: { mimeType: "text/plain", data: btoa("h\u00c3\u00a9llo") } },
  },
];

/** Each part type a tool can return, with the functionResponse.parts entry it must become. */
const TOOL_CASES: { name: string; part: ContentPart; wire: Record<string, unknown> }[] = [
  { name: "image, base64", part: { type: "image", mediaType: "image/png", data: PNG }, wire: { inlineData: { mimeType: "image/png", data: PNG } } },
  { name: "image, data: URL", part: { type: "image", url: `data:image/png;base64,${PNG}` }, wire: { inlineData: { mimeType: "image/png", data: PNG } } },
  {
    name: "file, base64 PDF",
    part: { type: "file", mediaType: "application/pdf", data: PDF, filename: "r.pdf" },
    wire: { inlineData: { mimeType: "application/pdf", data: PDF } },
  },
];

const modes = [
  { mode: "chat", stream: false },
  { mode: "stream", stream: true },
] as const;

async function run(client: ReturnType<typeof createClient>, prompt: string | ContentPart[], stream: boolean): Promise<string> {
  if (!stream) return client.chat(prompt);
  let text = "";
  for await (const e of client.stream(prompt)) if (e.type === "text-delta") text += e.text;
  return text;
}

describe("gemini: content parts in user turns", () => {
  for (const { mode, stream } of modes) {
    for (const c of USER_CASES) {
      it(`${mode}: ${c.name}`, async () => {
        await withMock({ script: [{ text: "seen" }] }, async (mock) => {
          const client = createClient({ provider: providerFor(mock) });
          expect(await run(client, [{ type: "text", text: "What is this?" }, c.part], stream)).toBe("seen");
          const body = bodies(mock)[0]!;
          expect(body.contents).toEqual([{ role: "user", parts: [{ text: "What is this?" }, c.wire] }]);
          expect(mock.requests[0]!.url).toContain(stream ? ":streamGenerateContent?alt=sse" : ":generateContent");
          expectValid(mock);
        });
      });
    }
  }
});

describe("gemini: content parts in tool results (functionResponse.parts)", () => {
  for (const { mode, stream } of modes) {
    for (const c of TOOL_CASES) {
      it(`${mode}: ${c.name}`, async () => {
        const shot = tool({
          name: "screenshot",
          description: "Takes a screenshot.",
          input: v.object({}),
          run: async () => toolOutput([{ type: "text", text: "the page" }, c.part]),
        });
        await withMock({ script: [{ toolCalls: [{ name: "screenshot", input: {} }] }, { text: "a page" }] }, async (mock) => {
          const client = createClient({ provider: providerFor(mock), tools: [shot] });
          expect(await run(client, "Look at the page", stream)).toBe("a page");
          const second = bodies(mock)[1]!;
          const fr = second.contents[2]!.parts[0]!.functionResponse;
          expect(fr.name).toBe("screenshot");
          expect(fr.parts).toEqual([c.wire]);
          // the text rendering (naming the media) is the response the model reads beside them
          expect(fr.response.output).toContain("the page");
          expectValid(mock);
        });
      });
    }
  }
});

describe("gemini: content in saved and moved histories", () => {
  it("a history with media in both directions survives JSON save and resume in a new client", async () => {
    const shot = tool({
      name: "screenshot",
      description: "Takes a screenshot.",
      input: v.object({}),
      run: async () => toolOutput([{ type: "image", mediaType: "image/png", data: PNG }]),
    });
    await withMock({ script: [{ toolCalls: [{ name: "screenshot", input: {} }] }, { text: "done" }, { text: "again" }] }, async (mock) => {
      const first = createClient({ provider: providerFor(mock), tools: [shot] });
      expect(
        await first.chat([
          { type: "text", text: "Compare" },
          { type: "file", mediaType: "application/pdf", data: PDF },
        ]),
      ).toBe("done");
      const saved = JSON.parse(JSON.stringify(first.history)) as Message[];
      const resumed = createClient({ provider: providerFor(mock), tools: [shot], history: saved });
      expect(await resumed.chat("And now?")).toBe("again");
      const [, second, third] = bodies(mock);
      // the resumed request replays what the first client sent, media included
      expect(third!.contents.slice(0, second!.contents.length)).toEqual(second!.contents);
      expect(third!.contents[0]!.parts[1]).toEqual({ inlineData: { mimeType: "application/pdf", data: PDF } });
      expect(third!.contents[2]!.parts[0]!.functionResponse.parts).toEqual([{ inlineData: { mimeType: "image/png", data: PNG } }]);
      expectValid(mock);
    });
  });

  it("a history moved from Claude with images (user turn and tool result) is sent as Gemini parts", async () => {
    const history: Message[] = [
      {
        role: "user",
        content: [
          { type: "text", text: "What is on the screen?" },
          { type: "image", mediaType: "image/png", data: PNG },
        ],
      },
      {
        role: "assistant",
        content: "Let me take a closer look.",
        toolCalls: [{ id: "toolu_01A", name: "screenshot", arguments: "{}" }],
        providerData: { provider: "claude", value: [{ type: "thinking", thinking: "hm", signature: "c2ln" }] },
      },
      {
        role: "tool",
        results: [
          {
            callId: "toolu_01A",
            name: "screenshot",
            output: "zoomed\n[image image/png]",
            isError: false,
            content: [
              { type: "text", text: "zoomed" },
              { type: "image", url: `data:image/png;base64,${PNG}` },
            ],
          },
        ],
      },
      { role: "assistant", content: "A cat." },
    ];
    await withMock({ script: [{ text: "Still a cat." }] }, async (mock) => {
      const shot = tool({ name: "screenshot", description: "Takes a screenshot.", input: v.object({}), run: async () => "" });
      const client = createClient({ provider: providerFor(mock), tools: [shot], history });
      expect(await client.chat("Sure?")).toBe("Still a cat.");
      const body = bodies(mock)[0]!;
      expect(body.contents.map((c) => c.role)).toEqual(["user", "model", "user", "model", "user"]);
      expect(body.contents[0]!.parts).toEqual([{ text: "What is on the screen?" }, { inlineData: { mimeType: "image/png", data: PNG } }]);
      // Claude's thinking block is not sent; the call goes the neutral way, with the skip signature
      expect(body.contents[1]!.parts).toEqual([
        { text: "Let me take a closer look." },
        { functionCall: { id: "toolu_01A", name: "screenshot", args: {} }, thoughtSignature: "skip_thought_signature_validator" },
      ]);
      expect(body.contents[2]!.parts).toEqual([
        {
          functionResponse: {
            id: "toolu_01A",
            name: "screenshot",
            response: { output: "zoomed\n[image image/png]" },
            parts: [{ inlineData: { mimeType: "image/png", data: PNG } }],
          },
        },
      ]);
      expectValid(mock);
    });
  });
});

describe("gemini: what the API cannot take fails before anything is sent", () => {
  const refused: { name: string; messages: Message[]; model?: string; part: RegExp }[] = [
    {
      name: "an http: (not https) URL",
      messages: [{ role: "user", content: [{ type: "image", url: "http://example.com/a.png" }] }],
      part: /image part \(http:\/\/example.com\/a.png\)/,
    },
    {
      name: "a URL of unknown type without mediaType",
      messages: [{ role: "user", content: [{ type: "image", url: "https://example.com/picture" }] }],
      part: /image part/,
    },
    {
      name: "a GIF (not a listed image type)",
      messages: [{ role: "user", content: [{ type: "image", mediaType: "image/gif", data: "R0lGODlh" }] }],
      part: /image part \(base64 image\/gif\)/,
    },
    { name: "a zip file", messages: [{ role: "user", content: [{ type: "file", mediaType: "application/zip", data: "UEsDBA==" }] }], part: /file part/ },
  ];
  for (const c of refused) {
    it(`${c.name} → UnsupportedContentError, nothing sent`, async () => {
      await withMock({ script: [{ text: "never" }] }, async (mock) => {
        const shot = tool({ name: "screenshot", description: "Takes a screenshot.", input: v.object({}), run: async () => "" });
        const history = c.messages.slice(0, -1);
        const last = c.messages[c.messages.length - 1]!;
        const client = createClient({ provider: providerFor(mock, c.model ? { model: c.model } : {}), tools: [shot], history });
        const prompt = last.role === "user" ? last.content : "go on";
        if (last.role !== "user") client.add(last);
        const err = await client.chat(prompt).catch((e: unknown) => e);
        expect(err).toMatchObject({ code: "unsupported_content", provider: "gemini" });
        expect((err as { part: string }).part).toMatch(c.part);
        expect(mock.requests).toHaveLength(0);
      });
    });
  }

  it("an empty text part is left out (the API refuses an empty text parameter)", () => {
    const contents = encodeContents(
      [
        {
          role: "user",
          content: [
            { type: "text", text: "" },
            { type: "image", mediaType: "image/png", data: PNG },
          ],
        },
      ],
      "gemini-3-pro-preview",
    );
    expect(contents).toEqual([{ role: "user", parts: [{ inlineData: { mimeType: "image/png", data: PNG } }] }]);
  });

  it("the same tool media go through on Gemini 3 (the model gate is the only difference); before it they go as a note", () => {
    const messages = withToolContent([{ type: "image", mediaType: "image/png", data: PNG }]);
    const old = encodeContents(messages, "gemini-2.5-flash")[2]!.parts[0]!.functionResponse!;
    expect(old.parts).toBeUndefined();
    expect(old.response).toEqual({
      output: "[media]",
      note: "[image image/png] (not sent to gemini: gemini-2.5-flash takes no media in tool results; Gemini 3 does)",
    });
    const parts = encodeContents(messages, "gemini-3-pro-preview")[2]!.parts;
    expect(parts[0]!.functionResponse!.parts).toEqual([{ inlineData: { mimeType: "image/png", data: PNG } }]);
  });

  // A tool result's part is not refused (the client would be stuck on it): it is left out of
  // functionResponse.parts, and the response says what it was and why (the history keeps it).
  it.each([
    [
      "a URL (FunctionResponsePart has no fileData on the Gemini API)",
      { type: "image", url: "https://example.com/a.png" },
      "[image url] (not sent to gemini: tool media must be bytes (base64 or a data: URL), not a URL)",
    ],
    [
      "audio (not in the function-response list)",
      { type: "file", mediaType: "audio/wav", data: "UklGRg==" },
      "[file audio/wav] (not sent to gemini: tool media must be PNG, JPEG, WebP, PDF or text/plain)",
    ],
    [
      "a data: URL that cannot be decoded",
      { type: "file", mediaType: "text/plain", url: "data:text/plain,%E0%A4%A" },
      "[file text/plain] (not sent to gemini: the data: URL cannot be decoded)",
    ],
    [
      "tool media for a model before Gemini 3",
      { type: "image", mediaType: "image/png", data: PNG },
      "[image image/png] (not sent to gemini: gemini-2.5-flash takes no media in tool results; Gemini 3 does)",
      "gemini-2.5-flash",
    ],
  ] as [string, ContentPart, string, string?][])("a tool result's %s goes as a note; the mock takes the request", async (_name, part, note, model) => {
    await withMock({ script: [{ text: "noted" }] }, async (mock) => {
      const shot = tool({ name: "screenshot", description: "Takes a screenshot.", input: v.object({}), run: async () => "" });
      const client = createClient({ provider: providerFor(mock, model ? { model } : {}), tools: [shot], history: withToolContent([part]) });
      expect(await client.chat("go on")).toBe("noted");
      const fr = bodies(mock)[0]!.contents[2]!.parts[0]!.functionResponse;
      expect(fr.parts).toBeUndefined();
      expect(fr.response).toEqual({ output: "[media]", note });
      expectValid(mock);
    });
  });
});

describe("the mock refuses media the way the API does", () => {
  const post = (mock: GeminiMock, model: string, contents: unknown) =>
    fetch(`${mock.url}/models/${model}:generateContent`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-goog-api-key": MOCK_API_KEY },
      body: JSON.stringify({ contents }),
    });
  const callThenResponse = (fr: Record<string, unknown>) => [
    { role: "user", parts: [{ text: "go" }] },
    { role: "model", parts: [{ functionCall: { name: "f", args: {} } }] },
    { role: "user", parts: [{ functionResponse: { name: "f", response: {}, ...fr } }] },
  ];
  it.each([
    [
      "an unsupported MIME type",
      "gemini-3-pro-preview",
      [{ role: "user", parts: [{ inlineData: { mimeType: "image/gif", data: "R0lGODlh" } }] }],
      /Unsupported MIME type/,
    ],
    ["inlineData without mimeType", "gemini-3-pro-preview", [{ role: "user", parts: [{ inlineData: { data: PNG } }] }], /mime_type/],
    [
      "bytes that are not base64",
      "gemini-3-pro-preview",
      [{ role: "user", parts: [{ inlineData: { mimeType: "image/png", data: "not base64!" } }] }],
      /Base64 decoding failed/,
    ],
    [
      "an http: fileUri",
      "gemini-3-pro-preview",
      [{ role: "user", parts: [{ fileData: { mimeType: "image/png", fileUri: "http://example.com/a.png" } }] }],
      /unsupported file uri/,
    ],
    [
      "an external fileUri without mimeType",
      "gemini-3-pro-preview",
      [{ role: "user", parts: [{ fileData: { fileUri: "https://example.com/a" } }] }],
      /mime_type/,
    ],
    [
      "fileData in functionResponse.parts",
      "gemini-3-pro-preview",
      callThenResponse({ parts: [{ fileData: { fileUri: "gs://b/a.png", mimeType: "image/png" } }] }),
      /Unknown name "fileData"/,
    ],
    [
      "functionResponse.parts on Gemini 2.5",
      "gemini-2.5-flash",
      callThenResponse({ parts: [{ inlineData: { mimeType: "image/png", data: PNG } }] }),
      /function_response.parts` is not supported/,
    ],
  ])("%s → 400", async (_name, model, contents, message) => {
    await withMock({}, async (mock) => {
      const res = await post(mock, model, contents);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(message);
    });
  });

  it("accepts what the adapter sends", async () => {
    await withMock({}, async (mock) => {
      const res = await post(mock, "gemini-3-pro-preview", callThenResponse({ parts: [{ inlineData: { mimeType: "image/png", data: PNG } }] }));
      expect(res.status).toBe(200);
    });
  });
});

/** A history whose last tool result carries `content`. */
function withToolContent(content: ContentPart[]): Message[] {
  return [
    { role: "user", content: "shoot" },
    { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "screenshot", arguments: "{}" }] },
    { role: "tool", results: [{ callId: "c1", name: "screenshot", output: "[media]", isError: false, content }] },
  ];
}
