// Images and files on Claude, over real HTTP against the mock (which checks blocks as the
// API does): each part type in a user turn and inside a tool result, in chat and stream,
// then the history saved as JSON and resumed by a new client; what the API does not list
// fails before anything is sent.

import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { claude } from "../../adapters/claude/index.js";
import type { UnsupportedContentError } from "../../src/base/errors.js";
import type { ContentPart } from "../../src/conversation/messages.js";
import { createClient, isToolloopError, type Message, suspension, tool } from "../../src/index.js";
import { toolOutput } from "../../src/tools/tool.js";
import { type ClaudeMock, type MockTurn, startClaudeMock, validateRequest } from "../mock/claude.js";
import { specValidator } from "./helpers.js";

const mocks: ClaudeMock[] = [];
afterEach(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.close()));
});

const b64 = (bytes: number[] | string) => Buffer.from(typeof bytes === "string" ? bytes : Uint8Array.from(bytes)).toString("base64");
const PNG = b64([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
const JPEG = b64([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46]);
const PDF = b64("%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n");
const NOTES = "Notes: the meeting moved to Tuesday. Ünïcode stays.";

/** Each part type and the block the API should receive for it. */
const CASES: { name: string; part: ContentPart; block: Record<string, unknown> }[] = [
  {
    name: "image (base64 png)",
    part: { type: "image", mediaType: "image/png", data: PNG },
    block: { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
  },
  {
    name: "image (https url)",
    part: { type: "image", url: "https://example.com/cat.webp" },
    block: { type: "image", source: { type: "url", url: "https://example.com/cat.webp" } },
  },
  {
    name: "image (data: url)",
    part: { type: "image", url: `data:image/jpeg;base64,${JPEG}` },
    block: { type: "image", source: { type: "base64", media_type: "image/jpeg", data: JPEG } },
  },
  {
    name: "file (base64 pdf)",
    part: { type: "file", mediaType: "application/pdf", data: PDF, filename: "report.pdf" },
    block: { type: "document", source: { type: "base64", media_type: "application/pdf", data: PDF }, title: "report.pdf" },
  },
  {
    name: "file (pdf url)",
    part: { type: "file", url: "https://example.com/paper.pdf", mediaType: "application/pdf" },
    block: { type: "document", source: { type: "url", url: "https://example.com/paper.pdf" } },
  },
  {
    name: "file (text/plain base64 → text source)",
    part: { type: "file", mediaType: "text/plain", data: b64(NOTES), filename: "notes.txt" },
    block: { type: "document", source: { type: "text", media_type: "text/plain", data: NOTES }, title: "notes.txt" },
  },
];

type Body = { messages: { role: string; content: Record<string, unknown>[] }[] };

async function setup(script: MockTurn[]) {
  const mock = await startClaudeMock({ script });
  mocks.push(mock);
  return { mock, provider: claude({ apiKey: "k", model: "claude-test", baseURL: mock.url, maxRetries: 0, cache: "off" }) };
}

async function drain(events: AsyncIterable<{ type: string }>): Promise<string[]> {
  const types: string[] = [];
  for await (const e of events) types.push(e.type);
  return types;
}

describe("content parts in a user turn", () => {
  for (const c of CASES) {
    for (const mode of ["chat", "stream"] as const) {
      it(`${c.name}, ${mode}: sent as a native block; the saved history resumes in a new client`, async () => {
        const { mock, provider } = await setup([{ text: "I see it." }, { text: "Still there." }]);
        const client = createClient({ provider });
        const prompt: ContentPart[] = [{ type: "text", text: "What is this?" }, c.part];
        if (mode === "chat") expect(await client.chat(prompt)).toBe("I see it.");
        else expect((await drain(client.stream(prompt))).at(-1)).toBe("finish");
        const first = mock.requests[0]!.body as Body;
        expect(first.messages[0]!.content).toEqual([{ type: "text", text: "What is this?" }, c.block]);

        const saved = JSON.parse(JSON.stringify(client.history)) as Message[];
        expect(saved[0]).toEqual({ role: "user", content: prompt });
        const resumed = createClient({ provider, history: saved });
        expect(await resumed.chat("And now?")).toBe("Still there.");
        const second = mock.requests[1]!.body as Body;
        expect(second.messages[0]!.content).toEqual([{ type: "text", text: "What is this?" }, c.block]);
        expect(second.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
      });
    }
  }
});

describe("content parts inside a tool result", () => {
  for (const c of CASES) {
    for (const mode of ["chat", "stream"] as const) {
      it(`${c.name}, ${mode}: tool_result.content holds text + the block; resumes from saved JSON`, async () => {
        const { mock, provider } = await setup([
          { toolCalls: [{ id: "toolu_shot", name: "fetch_media", input: { which: "it" } }] },
          { text: "Got it." },
          { text: "Again." },
        ]);
        const fetchMedia = tool({
          name: "fetch_media",
          description: "Returns media.",
          input: v.object({ which: v.string() }),
          run: () => toolOutput([{ type: "text", text: "here it is" }, c.part]),
        });
        const client = createClient({ provider, tools: [fetchMedia] });
        const events: { type: string; content?: unknown }[] = [];
        if (mode === "chat") expect(await client.chat("fetch it")).toBe("Got it.");
        else for await (const e of client.stream("fetch it")) events.push(e);
        const second = mock.requests[1]!.body as Body;
        const result = second.messages[2]!.content[0]!;
        expect(result).toEqual({ type: "tool_result", tool_use_id: "toolu_shot", content: [{ type: "text", text: "here it is" }, c.block] });
        if (mode === "stream") expect(events.find((e) => e.type === "tool-result")?.content).toEqual([{ type: "text", text: "here it is" }, c.part]);

        const saved = JSON.parse(JSON.stringify(client.history)) as Message[];
        const resumed = createClient({ provider, tools: [fetchMedia], history: saved });
        expect(await resumed.chat("once more")).toBe("Again.");
        expect((mock.requests[2]!.body as Body).messages[2]!.content[0]).toEqual(result);
      });
    }
  }
});

describe("the blocks match the official spec", () => {
  const createParams = specValidator("CreateMessageParams");
  it("every case, in a user turn and inside a tool_result, validates against CreateMessageParams", () => {
    for (const c of CASES) {
      const body = {
        model: "m",
        max_tokens: 1,
        messages: [
          { role: "user", content: [{ type: "text", text: "look" }, c.block] },
          { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "x", input: {} }] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: "r" }, c.block] }] },
        ],
      };
      expect(createParams(body), c.name).toEqual([]);
    }
  });
});

describe("what Claude cannot take fails before sending", () => {
  const refused: { name: string; part: ContentPart }[] = [
    { name: "an image type the API does not list (image/bmp)", part: { type: "image", mediaType: "image/bmp", data: "Qk0=" } },
    { name: "an image URL with an unlisted stated type (image/tiff)", part: { type: "image", url: "https://example.com/a.tif", mediaType: "image/tiff" } },
    { name: "a data: URL that is not base64", part: { type: "image", url: "data:image/png,rawbytes" } },
    { name: "a Word document", part: { type: "file", mediaType: "application/msword", data: "0M8R4A==", filename: "a.doc" } },
    { name: "a text file by URL (URL documents are PDFs only)", part: { type: "file", url: "https://example.com/a.txt", mediaType: "text/plain" } },
  ];
  for (const r of refused) {
    it(`${r.name}: UnsupportedContentError naming provider and part, no request`, async () => {
      const { mock, provider } = await setup([{ text: "never" }]);
      const err = (await provider
        .generate({ messages: [{ role: "user", content: [{ type: "text", text: "look" }, r.part] }], tools: [], webSearch: false })
        .catch((e: unknown) => e)) as UnsupportedContentError;
      expect(isToolloopError(err, "unsupported_content")).toBe(true);
      expect(err.provider).toBe("claude");
      expect(err.part).toContain(r.part.type);
      expect(mock.requests).toHaveLength(0);
    });
  }

  it("inside a tool result such a part goes as text (what it was, why it was not sent): the run goes on", async () => {
    const { mock, provider } = await setup([{ toolCalls: [{ id: "toolu_bad", name: "bad", input: {} }] }, { text: "an icon I cannot see" }]);
    const bad = tool({
      name: "bad",
      description: "x",
      input: v.object({}),
      run: () => toolOutput([{ type: "image", mediaType: "image/x-icon", data: "AAA=" }]),
    });
    const client = createClient({ provider, tools: [bad] });
    expect(await client.chat("go")).toBe("an icon I cannot see");
    expect(mock.requests).toHaveLength(2);
    expect((mock.requests[1]!.body as Body).messages[2]!.content[0]).toEqual({
      type: "tool_result",
      tool_use_id: "toolu_bad",
      content: [{ type: "text", text: "[image image/x-icon] (not sent to claude: images must be image/jpeg, image/png, image/gif, image/webp)" }],
    });
  });
});

describe("a refused prompt loses nothing", () => {
  it("the prompt with a part Claude cannot take is taken back: the next call works and history is as before", async () => {
    const { mock, provider } = await setup([{ text: "fine" }]);
    const client = createClient({ provider });
    const before = client.history;
    const err = await client
      .chat([
        { type: "text", text: "look" },
        { type: "image", mediaType: "image/bmp", data: "Qk0=" },
      ])
      .catch((e: unknown) => e);
    expect(isToolloopError(err, "unsupported_content")).toBe(true);
    expect(client.history).toEqual(before);
    expect(mock.requests).toHaveLength(0);
    expect(await client.chat("hello")).toBe("fine");
    expect(client.history.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("a history saved mid-run (calls without results) and a refused prompt: the prompt is taken back all the same", async () => {
    const { mock, provider } = await setup([{ text: "fine" }]);
    const saved: Message[] = [
      { role: "user", content: "weather?" },
      { role: "assistant", content: "", toolCalls: [{ id: "toolu_w", name: "get_weather", arguments: "{}" }] },
    ];
    const client = createClient({ provider, history: saved });
    const err = await client
      .chat([
        { type: "text", text: "look" },
        { type: "image", mediaType: "image/bmp", data: "Qk0=" },
      ])
      .catch((e: unknown) => e);
    expect(isToolloopError(err, "unsupported_content")).toBe(true);
    // The repair (a cancelled result for the cut call) may stay; the refused prompt may not.
    expect(JSON.stringify(client.history)).not.toContain("image/bmp");
    expect(client.history.at(-1)?.role).not.toBe("user");
    expect(mock.requests).toHaveLength(0);
    expect(await client.chat("hello")).toBe("fine");
    expect(client.history.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user", "assistant"]);
  });

  it("a refused or malformed prompt leaves the calls that wait for a decision waiting", async () => {
    const { mock, provider } = await setup([{ toolCalls: [{ name: "pay", input: { eur: 40 } }] }, { text: "paid" }]);
    const pay = tool({ name: "pay", description: "Pays.", input: v.object({ eur: v.number() }), needsApproval: true, run: () => "ok" });
    const client = createClient({ provider, tools: [pay], suspension: suspension({ unsigned: true }) });
    expect((await client.run("pay 40")).status).toBe("suspended");
    const saved = client.history;
    const refused = await client.chat([{ type: "image", mediaType: "image/bmp", data: "Qk0=" }]).catch((e: unknown) => e);
    expect(isToolloopError(refused, "unsupported_content")).toBe(true);
    const malformed = await client.chat([{ type: "image" } as never]).catch((e: unknown) => e);
    expect(isToolloopError(malformed, "invalid_options")).toBe(true);
    expect(client.history).toEqual(saved);
    expect(client.pending.map((p) => p.name)).toEqual(["pay"]);
    const callId = client.pending[0]!.callId;
    expect(await client.chat(undefined, { decisions: [{ callId, approved: true }] })).toBe("paid");
    expect(mock.requests).toHaveLength(2);
  });
});

describe("the mock checks blocks as the API does (so the tests above can fail)", () => {
  const request = (content: unknown[], role = "user") => ({
    model: "m",
    max_tokens: 1,
    messages:
      role === "user"
        ? [{ role, content }]
        : [
            { role: "user", content: "hi" },
            { role, content },
          ],
  });
  it("an unlisted media type, bad base64, data that is not the stated type, a PDF that is not one", () => {
    expect(validateRequest(request([{ type: "image", source: { type: "base64", media_type: "image/bmp", data: PNG } }]))).toMatch(
      /media_type: Input should be 'image\/jpeg'/,
    );
    expect(validateRequest(request([{ type: "image", source: { type: "base64", media_type: "image/png", data: "not base64!" } }]))).toMatch(/Invalid base64/);
    expect(validateRequest(request([{ type: "image", source: { type: "base64", media_type: "image/png", data: JPEG } }]))).toMatch(
      /appears to be a image\/jpeg image/,
    );
    expect(validateRequest(request([{ type: "document", source: { type: "base64", media_type: "application/pdf", data: PNG } }]))).toMatch(
      /PDF specified was not valid/,
    );
    expect(validateRequest(request([{ type: "document", source: { type: "base64", media_type: "text/plain", data: PDF } }]))).toMatch(
      /Input should be 'application\/pdf'/,
    );
  });
  it("an image or document block in an assistant turn, or an unknown block in a tool result", () => {
    expect(validateRequest(request([{ type: "image", source: { type: "base64", media_type: "image/png", data: PNG } }], "assistant"))).toMatch(
      /not supported in assistant messages/,
    );
    expect(validateRequest(request([{ type: "document", source: { type: "url", url: "https://x/a.pdf" } }], "assistant"))).toMatch(
      /not supported in assistant messages/,
    );
    const messages = [
      { role: "user", content: "go" },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "x", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "audio", data: "x" }] }] },
    ];
    expect(validateRequest({ model: "m", max_tokens: 1, messages })).toMatch(/does not match any of the expected tags/);
  });
  it("over HTTP the refusal is a 400 invalid_request_error", async () => {
    const { mock } = await setup([{ text: "x" }]);
    const res = await fetch(`${mock.url}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify(request([{ type: "image", source: { type: "base64", media_type: "image/png", data: "%%%" } }])),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe("invalid_request_error");
  });
});
