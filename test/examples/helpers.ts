// Shared bits of the example tests: how each runtime runs an example script, with no
// provider key leaking in from the developer's or CI's environment.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { childEnv, denoPermissions, type ProcessResult, root, runProcess } from "../support/runtimes.js";

const PROVIDER_VARS = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "TOOLLOOP_MODEL", "TOOLLOOP_BASE_URL"];

/** childEnv() without any provider key, plus `extra`. */
export function exampleEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = childEnv();
  for (const name of PROVIDER_VARS) delete env[name];
  return { ...env, ...extra };
}

export type Runtime = "node" | "deno" | "bun";

/**
 * Runs an example script as a user would: `node file`, `deno run <permissions> file`,
 * `bun run file`. The examples import "toolloop" by name, which resolves through the
 * package's self-reference to the built dist/ (the test suite builds before vitest).
 */
export function runExample(
  runtime: Runtime,
  file: string,
  args: readonly string[] = [],
  options: { env?: Record<string, string>; denoFlags?: readonly string[] } = {},
): Promise<ProcessResult> {
  const env = exampleEnv(options.env);
  const bin = (name: string) => join(root, "node_modules", ".bin", name);
  if (runtime === "node") return runProcess(process.execPath, [file, ...args], { env });
  if (runtime === "bun") return runProcess(bin("bun"), ["run", file, ...args], { env });
  return runProcess(bin("deno"), ["run", ...(options.denoFlags ?? denoPermissions), file, ...args], { env });
}

/** Fails early, with the fix, when dist/ has not been built. */
export function requireDist(...entries: string[]): void {
  for (const entry of ["index", "testing", ...entries]) {
    const file = join(root, "dist", `${entry}.js`);
    if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` (tsup) before these tests`);
  }
}

/** Lines of a process's stdout, with its stderr attached to any failure message. */
export function outputOf(r: ProcessResult): string[] {
  if (r.code !== 0) throw new Error(`exit code ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`);
  return r.stdout.trimEnd().split("\n");
}

/** Parses a complete text/event-stream body into {event, data} pairs (data JSON-decoded). */
export function parseSSE(text: string): { event: string; data: any }[] {
  return text
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim() !== "")
    .map((block) => {
      let event = "message";
      const data: string[] = [];
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      return { event, data: JSON.parse(data.join("\n")) };
    });
}

/**
 * Starts a long-running example server (`node file`) and resolves once it prints its
 * http://127.0.0.1:PORT/ address. `stop` kills exactly that child.
 */
export function startExampleServer(file: string, env: Record<string, string>): Promise<{ url: string; output: () => string; stop: () => Promise<void> }> {
  return new Promise((resolveStart, reject) => {
    const child = spawn(process.execPath, [file], { cwd: root, env: exampleEnv(env), stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const stop = () =>
      new Promise<void>((r) => {
        if (child.exitCode !== null || child.signalCode !== null) return r();
        child.once("exit", () => r());
        child.kill();
      });
    const onData = (d: Buffer) => {
      output += d;
      const m = /http:\/\/127\.0\.0\.1:\d+\//.exec(output);
      if (m) resolveStart({ url: m[0], output: () => output, stop });
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", (d) => (output += d));
    child.on("error", reject);
    child.on("exit", (code) => reject(new Error(`${file} exited (${code}) before listening:\n${output}`)));
  });
}
