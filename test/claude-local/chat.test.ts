import { delimiter } from "node:path";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { claudeLocal } from "../../adapters/claude-local/index.js";
import { InvalidOptionsError } from "../../src/base/errors.js";
import { createClient, isToolloopError, tool, webSearch } from "../../src/index.js";
import type { StreamEvent } from "../../src/loop/index.js";
import { FAKE_CLAUDE, FAKE_DIR, fakeSession } from "./fake.js";

/** The value of `--name=value` (or `--name value`) in argv. */
function flag(argv: string[], name: string): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i]!.startsWith(`${name}=`)) return argv[i]!.slice(name.length + 1);
    if (argv[i] === name) return argv[i + 1];
  }
  return undefined;
}

describe("claudeLocal: chat", () => {
  it("sends the prompt on stdin in print mode with JSON output and resolves to the result text", async () => {
    const fake = fakeSession(["Paris is the capital of France."]);
    const client = createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }) });
    expect(await client.chat("What is the capital of France?")).toBe("Paris is the capital of France.");
    const [call] = fake.invocations();
    expect(call!.stdin).toBe("What is the capital of France?");
    expect(call!.argv).toContain("-p");
    expect(flag(call!.argv, "--output-format")).toBe("json");
    expect(flag(call!.argv, "--model")).toBeUndefined();
    // The prompt travels on stdin only, never as an argument (ps would show it; ARG_MAX).
    expect(call!.argv.join(" ")).not.toContain("capital");
    expect(client.history).toEqual([
      { role: "user", content: "What is the capital of France?" },
      { role: "assistant", content: "Paris is the capital of France." },
    ]);
  });

  it("finds `claude` on the PATH it is given", async () => {
    const fake = fakeSession(["found on PATH"]);
    const provider = claudeLocal({ env: { ...fake.env, PATH: `${FAKE_DIR}${delimiter}${process.env.PATH}` } });
    const client = createClient({ provider });
    expect(await client.chat("hi")).toBe("found on PATH");
    expect(fake.invocations()).toHaveLength(1);
  });

  it("passes model, system prompt, cwd, env and extra args to the CLI", async () => {
    const fake = fakeSession(["done"]);
    const provider = claudeLocal({
      command: FAKE_CLAUDE,
      model: "sonnet",
      cwd: fake.dir,
      env: { ...fake.env, FAKE_CLAUDE_MARK: "from-options" },
      extraArgs: ["--max-turns", "1", "--tools", ""],
    });
    const client = createClient({ provider, systemPrompt: "- Answer in one word." });
    await client.chat("Say done.");
    const [call] = fake.invocations();
    expect(flag(call!.argv, "--model")).toBe("sonnet");
    // A system prompt that starts with "-" still arrives as the flag's value.
    expect(flag(call!.argv, "--system-prompt")).toBe("- Answer in one word.");
    expect(flag(call!.argv, "--append-system-prompt")).toBeUndefined();
    expect(call!.argv.slice(-4)).toEqual(["--max-turns", "1", "--tools", ""]);
    expect(call!.cwd).toBe(fake.dir);
    expect(call!.env.FAKE_CLAUDE_MARK).toBe("from-options");
  });

  it("an env entry set to undefined removes that variable for the CLI", async () => {
    const fake = fakeSession(["ok", "ok"]);
    process.env.FAKE_CLAUDE_INHERITED = "yes";
    try {
      await createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }) }).chat("a");
      await createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: { ...fake.env, FAKE_CLAUDE_INHERITED: undefined } }) }).chat("b");
    } finally {
      delete process.env.FAKE_CLAUDE_INHERITED;
    }
    const [first, second] = fake.invocations();
    expect(first!.env.FAKE_CLAUDE_INHERITED).toBe("yes");
    expect(second!.env.FAKE_CLAUDE_INHERITED).toBeUndefined();
  });

  it("maps the result's usage as toolloop/claude does (the whole prompt as input, cache reads and writes also apart)", async () => {
    const fake = fakeSession([
      {
        text: "x",
        usage: {
          input_tokens: 3,
          cache_creation_input_tokens: 10,
          cache_read_input_tokens: 100,
          output_tokens: 4,
          server_tool_use: { web_search_requests: 2 },
        },
      },
    ]);
    const client = createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }) });
    await client.chat("usage please");
    expect(client.lastRun!.usage).toEqual({ inputTokens: 113, outputTokens: 4, cacheReadTokens: 100, cacheWriteTokens: 10, webSearches: 2 });
  });

  it("reports stop_reason max_tokens as finishReason length", async () => {
    const fake = fakeSession([{ text: "cut sh", stopReason: "max_tokens" }]);
    const events: StreamEvent[] = [];
    const client = createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }) });
    for await (const e of client.stream("long answer")) events.push(e);
    expect(events.find((e) => e.type === "step-finish")).toMatchObject({ finishReason: "length" });
  });

  it("each turn sees the earlier ones: the history reaches the CLI as a transcript", async () => {
    const fake = fakeSession(["Nice to meet you, Ada.", "Your name is Ada."]);
    const client = createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }) });
    await client.chat("My name is Ada.");
    expect(await client.chat("What is my name?")).toBe("Your name is Ada.");
    const second = fake.invocations()[1]!.stdin;
    expect(second).toContain(
      "<conversation_history>\n<user>\nMy name is Ada.\n</user>\n<assistant>\nNice to meet you, Ada.\n</assistant>\n</conversation_history>",
    );
    // The new question comes last, outside the history block, as the request itself.
    expect(second.endsWith("\n\nWhat is my name?")).toBe(true);
    expect(second.indexOf("My name is Ada.")).toBeLessThan(second.indexOf("Nice to meet you"));
  });

  it("a prompt after a failed request is merged with the unanswered one", async () => {
    const fake = fakeSession([{ mode: "exit", exitCode: 2, stderr: "overloaded\n" }, "Both answered."]);
    const client = createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }) });
    await expect(client.chat("First question?")).rejects.toMatchObject({ code: "cli_error" });
    expect(await client.chat("Second question?")).toBe("Both answered.");
    expect(fake.invocations()[1]!.stdin).toBe("First question?\n\nSecond question?");
  });

  it("a resumed history from a tool-using provider is rendered with its calls and results", async () => {
    const fake = fakeSession(["It was 21 degrees."]);
    const client = createClient({
      provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }),
      history: [
        { role: "user", content: "Weather in Paris?" },
        { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "get_weather", arguments: '{"city":"Paris"}' }] },
        { role: "tool", results: [{ callId: "c1", name: "get_weather", output: '{"celsius":21}', isError: false }] },
        { role: "assistant", content: "21°C in Paris." },
      ],
    });
    await client.chat("What was the temperature again?");
    const stdin = fake.invocations()[0]!.stdin;
    expect(stdin).toContain('<tool_call name="get_weather">{"city":"Paris"}</tool_call>');
    expect(stdin).toContain('<tool_result name="get_weather">{"celsius":21}</tool_result>');
    expect(stdin).toContain("<assistant>\n21°C in Paris.\n</assistant>");
    expect(stdin.endsWith("What was the temperature again?")).toBe(true);
  });

  it("setTools with any tool throws ToolsNotSupportedError; an empty set is fine", () => {
    const client = createClient({ provider: claudeLocal({ command: FAKE_CLAUDE }) });
    const t = tool({ name: "noop", description: "Does nothing.", input: v.object({}), run: () => "ok" });
    let err: unknown;
    try {
      client.setTools([t]);
    } catch (e) {
      err = e;
    }
    expect(isToolloopError(err, "tools_not_supported")).toBe(true);
    expect((err as Error).name).toBe("ToolsNotSupportedError");
    expect(() => client.setTools([webSearch()])).toThrow(/does not support tools/);
    expect(() => client.setTools([])).not.toThrow();
    expect(() => createClient({ provider: claudeLocal(), tools: [t] })).toThrow(/claude-local/);
  });

  it("shows only name and model when serialised", () => {
    const provider = claudeLocal({ command: FAKE_CLAUDE, model: "opus", env: { SECRET_TOKEN: "s3cr3t" } });
    expect(JSON.parse(JSON.stringify(provider))).toEqual({ name: "claude-local", model: "opus" });
    expect(provider.supportsTools).toBe(false);
    expect(provider.name).toBe("claude-local");
  });

  it("rejects a non-positive timeout when the provider is made", () => {
    expect(() => claudeLocal({ timeout: 0 })).toThrow(InvalidOptionsError);
  });
});

describe("claudeLocal: stream", () => {
  it("streams text deltas from stream-json partial messages, split across arbitrary chunks", async () => {
    const text = "Héllo wörld 🌍 — streamed\nin pieces ✓";
    for (const chunkSize of [1, 2, 5, 64]) {
      const fake = fakeSession([{ text, chunkSize }]);
      const client = createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }) });
      const deltas: string[] = [];
      let finish: StreamEvent | undefined;
      for await (const e of client.stream("stream please")) {
        if (e.type === "text-delta") deltas.push(e.text);
        if (e.type === "finish") finish = e;
      }
      expect(deltas.length).toBeGreaterThan(1);
      expect(deltas.join("")).toBe(text);
      expect(finish).toMatchObject({ type: "finish", text });
      const argv = fake.invocations()[0]!.argv;
      expect(flag(argv, "--output-format")).toBe("stream-json");
      expect(argv).toContain("--verbose");
      expect(argv).toContain("--include-partial-messages");
    }
  });

  it("a subagent's streamed text is not part of the answer", async () => {
    const fake = fakeSession([{ text: "Main answer.", subagentText: "subagent notes" }]);
    const client = createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }) });
    const deltas: string[] = [];
    for await (const e of client.stream("go")) if (e.type === "text-delta") deltas.push(e.text);
    expect(deltas.join("")).toBe("Main answer.");
  });

  it("without partial messages the final text arrives as one delta", async () => {
    const fake = fakeSession([{ text: "all at once", partial: false }]);
    const client = createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }) });
    const deltas: string[] = [];
    for await (const e of client.stream("go")) if (e.type === "text-delta") deltas.push(e.text);
    expect(deltas).toEqual(["all at once"]);
  });

  it("a stream that ends without its result line is an error, not a half answer", async () => {
    const fake = fakeSession([{ text: "partial", mode: "no-result" }]);
    const client = createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }) });
    const run = async () => {
      for await (const _ of client.stream("go"));
    };
    await expect(run()).rejects.toMatchObject({ code: "cli_error", reason: "bad_output" });
    expect(client.history).toEqual([{ role: "user", content: "go" }]);
  });
});
