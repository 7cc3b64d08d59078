// toolloop/claude-local under Bun: the provider spawns the fake Claude Code CLI through
// Bun.spawn. Run: npx bun test test/bun/claude-local.test.ts
import { expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { ClaudeCliError, claudeLocal } from "../../adapters/claude-local/index.ts";
import { createClient, isToolloopError } from "../../src/index.ts";

const FAKE_CLAUDE = new URL("../fixtures/fake-claude/claude", import.meta.url).pathname;
const FAKE_DIR = new URL("../fixtures/fake-claude/", import.meta.url).pathname;
const TMP = new URL("../../.tmp/local-tavily/", import.meta.url).pathname;

function assert(cond: unknown, _what: string): void {
  expect(Boolean(cond)).toBe(true);
}
function assertEquals(actual: unknown, expected: unknown): void {
  expect(actual).toEqual(expected);
}

interface Invocation {
  argv: string[];
  stdin: string;
  pid: number;
}

async function fakeSession(replies: unknown[]) {
  mkdirSync(TMP, { recursive: true });
  const dir = mkdtempSync(`${TMP}bun-claude-`);
  const script = `${dir}/script.json`;
  const record = `${dir}/record.jsonl`;
  writeFileSync(script, JSON.stringify(replies));
  return {
    env: { FAKE_CLAUDE_SCRIPT: script, FAKE_CLAUDE_RECORD: record },
    async invocations(): Promise<Invocation[]> {
      try {
        return readFileSync(record, "utf8")
          .split("\n")
          .slice(0, -1)
          .map((l) => JSON.parse(l) as Invocation);
      } catch {
        return [];
      }
    },
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error("expected a rejection");
}

test("claude-local in Bun: chat answers, and the second turn sees the first", async () => {
  const fake = await fakeSession(["Nice to meet you, Ada.", "Your name is Ada."]);
  const client = createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env, model: "sonnet" }) });
  assertEquals(await client.chat("My name is Ada."), "Nice to meet you, Ada.");
  assertEquals(await client.chat("What is my name?"), "Your name is Ada.");
  const [first, second] = await fake.invocations();
  assertEquals(first!.stdin, "My name is Ada.");
  assert(first!.argv.includes("--model=sonnet"), "the model flag is passed");
  assert(second!.stdin.includes("<assistant>\nNice to meet you, Ada.\n</assistant>"), "the history reaches the CLI");
  assert(second!.stdin.endsWith("What is my name?"), "the new prompt comes last");
});

test("claude-local in Bun: finds claude on the PATH given in env", async () => {
  const fake = await fakeSession(["via PATH"]);
  const env = { ...fake.env, PATH: `${FAKE_DIR}:${process.env.PATH ?? ""}` };
  assertEquals(await createClient({ provider: claudeLocal({ env }) }).chat("hi"), "via PATH");
});

test("claude-local in Bun: streams text deltas", async () => {
  const text = "Streamed in Bun 🥟, piece by piece.";
  const fake = await fakeSession([{ text, chunkSize: 3 }]);
  const client = createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }) });
  const deltas: string[] = [];
  for await (const e of client.stream("go")) if (e.type === "text-delta") deltas.push(e.text);
  assert(deltas.length > 1, "more than one delta");
  assertEquals(deltas.join(""), text);
});

test("claude-local in Bun: a missing command is a not_found ClaudeCliError", async () => {
  const err = await rejection(createClient({ provider: claudeLocal({ command: `${FAKE_DIR}no-such-claude` }) }).chat("hi"));
  assert(err instanceof ClaudeCliError, "a ClaudeCliError");
  assertEquals((err as ClaudeCliError).reason, "not_found");
  assert(isToolloopError(err, "cli_error"), "code cli_error");
});

test("claude-local in Bun: a failing CLI carries its exit code and stderr tail", async () => {
  const fake = await fakeSession([{ mode: "exit", exitCode: 4, stderr: "boom in bun\n" }]);
  const err = (await rejection(createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }) }).chat("hi"))) as ClaudeCliError;
  assertEquals([err.reason, err.exitCode, err.stderr], ["exit", 4, "boom in bun\n"]);
});

test("claude-local in Bun: an is_error result is a result_error", async () => {
  const fake = await fakeSession([{ mode: "is-error", text: "Invalid API key" }]);
  const err = (await rejection(createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }) }).chat("hi"))) as ClaudeCliError;
  assertEquals(err.reason, "result_error");
  assert(err.message.includes("Invalid API key"), "the CLI's message is kept");
});

test("claude-local in Bun: a hung CLI is killed at the timeout", async () => {
  const fake = await fakeSession([{ mode: "hang" }]);
  const err = (await rejection(createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env, timeout: 1500 }) }).chat("hi"))) as ClaudeCliError;
  assertEquals(err.reason, "timeout");
  assert(err.stderr.includes("hanging"), "stderr tail kept");
  assert(!alive((await fake.invocations())[0]!.pid), "the process is gone");
});

test("claude-local in Bun: abort kills the process and rejects with signal.reason", async () => {
  const fake = await fakeSession([{ mode: "hang" }]);
  const client = createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }) });
  const controller = new AbortController();
  const reason = new Error("stop in bun");
  const pending = client.chat("hi", { signal: controller.signal });
  while ((await fake.invocations()).length === 0) await new Promise((r) => setTimeout(r, 10));
  controller.abort(reason);
  assert((await rejection(pending)) === reason, "rejects with the reason");
  assert(!alive((await fake.invocations())[0]!.pid), "the process is gone");
});
