// toolloop/claude-local under Deno: the provider spawns the fake Claude Code CLI through
// Deno.Command. Run: npx deno test --allow-all test/deno/claude-local.test.ts
import { ClaudeCliError, claudeLocal } from "../../adapters/claude-local/index.ts";
import { createClient, isToolloopError } from "../../src/index.ts";

const FAKE_CLAUDE = new URL("../fixtures/fake-claude/claude", import.meta.url).pathname;
const FAKE_DIR = new URL("../fixtures/fake-claude/", import.meta.url).pathname;
const TMP = new URL("../../.tmp/local-tavily/", import.meta.url).pathname;

function assert(cond: unknown, message: string): asserts cond {
  if (!cond) throw new Error(`assertion failed: ${message}`);
}
function assertEquals(actual: unknown, expected: unknown, message = ""): void {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`assertion failed: ${message}\n  actual:   ${a}\n  expected: ${e}`);
}

interface Invocation {
  argv: string[];
  stdin: string;
  pid: number;
}

async function fakeSession(replies: unknown[]) {
  await Deno.mkdir(TMP, { recursive: true });
  const dir = await Deno.makeTempDir({ dir: TMP, prefix: "deno-claude-" });
  const script = `${dir}/script.json`;
  const record = `${dir}/record.jsonl`;
  await Deno.writeTextFile(script, JSON.stringify(replies));
  return {
    env: { FAKE_CLAUDE_SCRIPT: script, FAKE_CLAUDE_RECORD: record },
    async invocations(): Promise<Invocation[]> {
      try {
        return (await Deno.readTextFile(record))
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
    Deno.kill(pid, "SIGCONT");
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

Deno.test("claude-local in Deno: chat answers, and the second turn sees the first", async () => {
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

Deno.test("claude-local in Deno: finds claude on the PATH given in env", async () => {
  const fake = await fakeSession(["via PATH"]);
  const env = { ...fake.env, PATH: `${FAKE_DIR}:${Deno.env.get("PATH") ?? ""}` };
  assertEquals(await createClient({ provider: claudeLocal({ env }) }).chat("hi"), "via PATH");
});

Deno.test("claude-local in Deno: streams text deltas", async () => {
  const text = "Streamed in Deno 🦕, piece by piece.";
  const fake = await fakeSession([{ text, chunkSize: 3 }]);
  const client = createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }) });
  const deltas: string[] = [];
  for await (const e of client.stream("go")) if (e.type === "text-delta") deltas.push(e.text);
  assert(deltas.length > 1, "more than one delta");
  assertEquals(deltas.join(""), text);
});

Deno.test("claude-local in Deno: a missing command is a not_found ClaudeCliError", async () => {
  const err = await rejection(createClient({ provider: claudeLocal({ command: `${FAKE_DIR}no-such-claude` }) }).chat("hi"));
  assert(err instanceof ClaudeCliError, "a ClaudeCliError");
  assertEquals((err as ClaudeCliError).reason, "not_found");
  assert(isToolloopError(err, "cli_error"), "code cli_error");
});

Deno.test("claude-local in Deno: a failing CLI carries its exit code and stderr tail", async () => {
  const fake = await fakeSession([{ mode: "exit", exitCode: 4, stderr: "boom in deno\n" }]);
  const err = (await rejection(createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }) }).chat("hi"))) as ClaudeCliError;
  assertEquals([err.reason, err.exitCode, err.stderr], ["exit", 4, "boom in deno\n"]);
});

Deno.test("claude-local in Deno: an is_error result is a result_error", async () => {
  const fake = await fakeSession([{ mode: "is-error", text: "Invalid API key" }]);
  const err = (await rejection(createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }) }).chat("hi"))) as ClaudeCliError;
  assertEquals(err.reason, "result_error");
  assert(err.message.includes("Invalid API key"), "the CLI's message is kept");
});

Deno.test("claude-local in Deno: a hung CLI is killed at the timeout", async () => {
  const fake = await fakeSession([{ mode: "hang" }]);
  const err = (await rejection(createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env, timeout: 1500 }) }).chat("hi"))) as ClaudeCliError;
  assertEquals(err.reason, "timeout");
  assert(err.stderr.includes("hanging"), "stderr tail kept");
  assert(!alive((await fake.invocations())[0]!.pid), "the process is gone");
});

Deno.test("claude-local in Deno: abort kills the process and rejects with signal.reason", async () => {
  const fake = await fakeSession([{ mode: "hang" }]);
  const client = createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }) });
  const controller = new AbortController();
  const reason = new Error("stop in deno");
  const pending = client.chat("hi", { signal: controller.signal });
  while ((await fake.invocations()).length === 0) await new Promise((r) => setTimeout(r, 10));
  controller.abort(reason);
  assert((await rejection(pending)) === reason, "rejects with the reason");
  assert(!alive((await fake.invocations())[0]!.pid), "the process is gone");
});
