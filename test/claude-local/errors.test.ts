import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ClaudeCliError, claudeLocal, RuntimeNotSupportedError } from "../../adapters/claude-local/index.js";
import { createClient, isToolloopError } from "../../src/index.js";
import { alive, FAKE_CLAUDE, fakeSession, until } from "./fake.js";

async function failure(promise: Promise<unknown>): Promise<ClaudeCliError> {
  const err = await promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e: unknown) => e,
  );
  expect(isToolloopError(err, "cli_error")).toBe(true);
  expect(err).toBeInstanceOf(ClaudeCliError);
  return err as ClaudeCliError;
}

describe("claudeLocal: failures are typed errors with the CLI's stderr", () => {
  it("a command that does not exist → not_found", async () => {
    const client = createClient({ provider: claudeLocal({ command: join(FAKE_CLAUDE, "..", "no-such-claude") }) });
    const err = await failure(client.chat("hi"));
    expect(err.reason).toBe("not_found");
    expect(err.message).toMatch(/could not start .*no-such-claude.*not found/);
  });

  it("a command missing from PATH → not_found", async () => {
    const client = createClient({ provider: claudeLocal({ command: "claude-not-installed-xyz", env: { PATH: "/nonexistent-dir" } }) });
    expect((await failure(client.chat("hi"))).reason).toBe("not_found");
  });

  it("a non-zero exit without a result → exit, with the exit code and the stderr tail", async () => {
    const fake = fakeSession([{ mode: "exit", exitCode: 2, stderr: "Error: something broke\n" }]);
    const err = await failure(createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }) }).chat("hi"));
    expect(err.reason).toBe("exit");
    expect(err.exitCode).toBe(2);
    expect(err.stderr).toBe("Error: something broke\n");
    expect(err.message).toContain("exited with code 2");
    expect(err.message).toContain("stderr: Error: something broke");
  });

  it("keeps only the last ~2 KB of a long stderr", async () => {
    const long = "START-MARKER\n" + "x".repeat(5000) + "\nEND-MARKER\n";
    const fake = fakeSession([{ mode: "exit", exitCode: 1, stderr: long }]);
    const err = await failure(createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }) }).chat("hi"));
    expect(err.stderr.length).toBe(2048);
    expect(err.stderr.endsWith("END-MARKER\n")).toBe(true);
    expect(err.stderr).not.toContain("START-MARKER");
  });

  it("an unknown flag in extraArgs surfaces the CLI's own complaint", async () => {
    const fake = fakeSession(["never"]);
    const provider = claudeLocal({ command: FAKE_CLAUDE, env: fake.env, extraArgs: ["--no-such-flag"] });
    const err = await failure(createClient({ provider }).chat("hi"));
    expect(err.reason).toBe("exit");
    expect(err.stderr).toContain("unknown option '--no-such-flag'");
  });

  it("stdout that is not JSON → bad_output", async () => {
    const fake = fakeSession([{ mode: "bad-json", text: "Welcome to Claude Code! {oops", stderr: "warn: odd\n" }]);
    const err = await failure(createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }) }).chat("hi"));
    expect(err.reason).toBe("bad_output");
    expect(err.exitCode).toBe(0);
    expect(err.message).toContain("Welcome to Claude Code! {oops");
    expect(err.stderr).toBe("warn: odd\n");
  });

  it("an is_error result → result_error carrying the CLI's message", async () => {
    const fake = fakeSession([{ mode: "is-error", text: "Invalid API key · Please run /login", stderr: "auth failed\n" }]);
    const err = await failure(createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }) }).chat("hi"));
    expect(err.reason).toBe("result_error");
    expect(err.exitCode).toBe(1);
    expect(err.message).toContain("Invalid API key · Please run /login");
    expect(err.stderr).toBe("auth failed\n");
    expect(err.sessionId).toBe("5f0c7b1e-0000-4000-8000-00000000fa6e");
  });

  it("an error subtype (max turns) → result_error with the subtype", async () => {
    const fake = fakeSession([{ mode: "error-subtype", subtype: "error_max_turns", errors: ["Reached maximum number of turns (1)"] }]);
    const err = await failure(createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }) }).chat("hi"));
    expect(err.reason).toBe("result_error");
    expect(err.subtype).toBe("error_max_turns");
    expect(err.message).toContain("Reached maximum number of turns (1)");
  });

  it("an is_error result while streaming is the same typed error", async () => {
    const fake = fakeSession([{ mode: "is-error", text: "Credit balance is too low" }]);
    const client = createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }) });
    const err = await failure(
      (async () => {
        for await (const _ of client.stream("hi"));
      })(),
    );
    expect(err.reason).toBe("result_error");
    expect(err.message).toContain("Credit balance is too low");
  });

  it("a hung CLI is killed at the timeout → timeout, with what it wrote to stderr", async () => {
    const fake = fakeSession([{ mode: "hang" }]);
    // Generous, so even a slow machine has started the fake (and it has written stderr) by then.
    const client = createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env, timeout: 1500 }) });
    const err = await failure(client.chat("hi"));
    expect(err.reason).toBe("timeout");
    expect(err.message).toContain("1500 ms");
    expect(err.stderr).toContain("fake claude: hanging");
    const [call] = fake.invocations();
    expect(alive(call!.pid)).toBe(false);
    // The history is still valid: the prompt is there, unanswered.
    expect(client.history).toEqual([{ role: "user", content: "hi" }]);
  });

  it("abort kills the process and rejects with signal.reason", async () => {
    const fake = fakeSession([{ mode: "hang" }]);
    const client = createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }) });
    const controller = new AbortController();
    const reason = new Error("user pressed stop");
    const pending = client.chat("hi", { signal: controller.signal });
    await until(() => fake.invocations().length === 1);
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(alive(fake.invocations()[0]!.pid)).toBe(false);
  });

  it("abort while streaming kills the process too", async () => {
    const fake = fakeSession([{ mode: "hang" }]);
    const client = createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }) });
    const controller = new AbortController();
    const run = (async () => {
      for await (const _ of client.stream("hi", { signal: controller.signal }));
    })();
    await until(() => fake.invocations().length === 1);
    controller.abort();
    const err = await run.catch((e: unknown) => e);
    expect((err as Error).name).toBe("AbortError");
    expect(alive(fake.invocations()[0]!.pid)).toBe(false);
  });

  it("an already aborted signal starts no process", async () => {
    const fake = fakeSession(["never"]);
    const client = createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }) });
    const reason = new Error("too late");
    await expect(client.chat("hi", { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(existsSync(fake.env.FAKE_CLAUDE_RECORD!)).toBe(false);
  });
});

describe("claudeLocal: runtimes without processes", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("a browser gets RuntimeNotSupportedError (code runtime_not_supported)", async () => {
    vi.stubGlobal("window", {});
    vi.stubGlobal("document", {});
    const provider = claudeLocal({ command: FAKE_CLAUDE });
    const err = await provider.generate({ messages: [{ role: "user", content: "hi" }], tools: [], webSearch: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RuntimeNotSupportedError);
    expect(isToolloopError(err, "runtime_not_supported")).toBe(true);
    expect((err as RuntimeNotSupportedError).runtime).toBe("a browser");
  });

  it("a Cloudflare Worker gets RuntimeNotSupportedError", async () => {
    vi.stubGlobal("navigator", { userAgent: "Cloudflare-Workers" });
    const provider = claudeLocal({ command: FAKE_CLAUDE });
    const err = await provider.generate({ messages: [{ role: "user", content: "hi" }], tools: [], webSearch: false }).catch((e: unknown) => e);
    expect(isToolloopError(err, "runtime_not_supported")).toBe(true);
  });
});
