// claude-local and content parts: the CLI takes a text prompt only, so text parts are
// joined into it and an image or file in the prompt fails before a process starts; a tool's
// media in the history goes as its text rendering.
import { describe, expect, it } from "vitest";
import { claudeLocal } from "../../adapters/claude-local/index.js";
import type { UnsupportedContentError } from "../../src/base/errors.js";
import { createClient, isToolloopError, type Message } from "../../src/index.js";
import { FAKE_CLAUDE, fakeSession } from "./fake.js";

describe("claudeLocal: content parts", () => {
  it("text parts become the prompt text", async () => {
    const fake = fakeSession(["ok"]);
    const client = createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }) });
    expect(
      await client.chat([
        { type: "text", text: "first" },
        { type: "text", text: "second" },
      ]),
    ).toBe("ok");
    expect(fake.invocations()[0]!.stdin).toBe("first\nsecond");
  });

  for (const [what, part] of [
    ["an image", { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" }],
    ["an image URL", { type: "image", url: "https://example.com/a.png" }],
    ["a file", { type: "file", mediaType: "application/pdf", data: "JVBERi0=", filename: "a.pdf" }],
  ] as const) {
    it(`${what} in the prompt is UnsupportedContentError, and no CLI is started`, async () => {
      const fake = fakeSession(["never"]);
      const client = createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }) });
      const err = (await client.chat([{ type: "text", text: "look" }, part]).catch((e: unknown) => e)) as UnsupportedContentError;
      expect(isToolloopError(err, "unsupported_content")).toBe(true);
      expect(err.provider).toBe("claude-local");
      expect(err.part).toContain(part.type);
      expect(fake.invocations()).toHaveLength(0);
    });
  }

  it("media in an earlier tool result (a history from another provider) goes as its text rendering with a note, so the client is not stuck on it", async () => {
    const fake = fakeSession(["Still a screenshot."]);
    const history: Message[] = [
      { role: "user", content: "shot?" },
      { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "shot", arguments: "{}" }] },
      {
        role: "tool",
        results: [
          {
            callId: "c1",
            name: "shot",
            output: "[image image/png]",
            isError: false,
            content: [{ type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" }],
          },
        ],
      },
      { role: "assistant", content: "A screenshot." },
    ];
    const client = createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }), history });
    expect(await client.chat("and now?")).toBe("Still a screenshot.");
    expect(fake.invocations()[0]!.stdin).toContain(
      '<tool_result name="shot">[image image/png] (media not sent: the Claude Code CLI takes text only)</tool_result>',
    );
  });
});
