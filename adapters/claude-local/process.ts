// Running a process the same way in every runtime that can: Deno.Command, Bun.spawn, or
// node:child_process (loaded lazily, so importing this never pulls a node: module into a
// browser or Worker bundle, where RuntimeNotSupportedError is thrown instead).
import { abortReason } from "../../src/errors.js";
import { isBrowser } from "../../src/http.js";
import { ClaudeCliError, RuntimeNotSupportedError, STDERR_TAIL } from "./errors.js";

/** After SIGTERM, how long a process gets before SIGKILL. */
const KILL_GRACE_MS = 2000;

interface Child {
  stdout: AsyncIterable<Uint8Array>;
  stderr: AsyncIterable<Uint8Array>;
  /** Writes `input` to stdin and closes it. Not awaited by the runner: a dead child shows in `exit`. */
  writeInput(input: string): Promise<void>;
  exit: Promise<{ code: number | null; signal: string | null }>;
  kill(signal: "SIGTERM" | "SIGKILL"): void;
}

interface SpawnOptions {
  cwd: string | undefined;
  env: Record<string, string | undefined> | undefined;
}

/** Starts a process; rejects with ClaudeCliError("not_found") when it cannot start. */
type Spawner = (command: string, args: string[], options: SpawnOptions) => Promise<Child>;

export interface ProcessResult {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs one CLI invocation to its end. On abort or timeout the process is killed (SIGTERM,
 * then SIGKILL) and the call rejects with signal.reason / a timeout ClaudeCliError.
 */
export async function runProcess(
  spawn: Spawner,
  command: string,
  args: string[],
  input: string,
  opts: SpawnOptions & { timeout: number | undefined; signal: AbortSignal | undefined; onStdout?: (text: string) => void },
): Promise<ProcessResult> {
  const child = await spawn(command, args, { cwd: opts.cwd, env: opts.env });
  const { signal, timeout } = opts;
  let stdout = "";
  let stderr = "";
  const collectStdout = async () => {
    const decoder = new TextDecoder();
    const take = opts.onStdout ?? ((text: string) => void (stdout += text));
    for await (const chunk of child.stdout) take(decoder.decode(chunk, { stream: true }));
    take(decoder.decode());
  };
  const collectStderr = async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) stderr = tail(stderr + decoder.decode(chunk, { stream: true }));
    stderr = tail(stderr + decoder.decode());
  };
  // Not awaited: a process that exits without reading its input is reported by its exit.
  child.writeInput(input).catch(() => {});
  const finished = Promise.all([collectStdout(), collectStderr(), child.exit]).then(
    ([, , exit]) => ({ kind: "exit" as const, exit }),
    (error: unknown) => ({ kind: "failed" as const, error }),
  );

  type Stop = { kind: "abort" } | { kind: "timeout" };
  let stop: (why: Stop) => void = () => {};
  const stopped = new Promise<Stop>((resolve) => (stop = resolve));
  const onAbort = () => stop({ kind: "abort" });
  signal?.addEventListener("abort", onAbort, { once: true });
  if (signal?.aborted) onAbort();
  const timer = timeout !== undefined ? setTimeout(() => stop({ kind: "timeout" }), timeout) : undefined;
  try {
    const outcome = await Promise.race([finished, stopped]);
    if (outcome.kind === "exit") return { ...outcome.exit, stdout, stderr };
    // Aborted, timed out, or reading failed (e.g. a throwing onDelta): end the process,
    // and let the readers drain so no stream is left open.
    await terminate(child);
    await within(finished, KILL_GRACE_MS);
    if (outcome.kind === "failed") throw outcome.error;
    if (outcome.kind === "abort") throw abortReason(signal!);
    throw new ClaudeCliError({
      reason: "timeout",
      command,
      message: `${command} did not finish within ${timeout} ms (timeout) and was killed`,
      stderr,
    });
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}

/** Waits for `p`, or `ms`, whichever comes first (and leaves no timer behind). */
async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([p.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** SIGTERM, then SIGKILL if the process is still there after a grace period. */
async function terminate(child: Child): Promise<void> {
  child.kill("SIGTERM");
  if (await within(child.exit, KILL_GRACE_MS)) return;
  child.kill("SIGKILL");
  await within(child.exit, KILL_GRACE_MS);
}

function tail(s: string): string {
  return s.length > STDERR_TAIL ? s.slice(s.length - STDERR_TAIL) : s;
}

function notFound(command: string, cwd: string | undefined, cause: unknown): ClaudeCliError {
  return new ClaudeCliError({
    reason: "not_found",
    command,
    message:
      `could not start "${command}": not found` +
      (cwd ? ` (or the cwd ${JSON.stringify(cwd)} does not exist)` : "") +
      ". Install Claude Code (https://docs.anthropic.com/en/docs/claude-code) or pass `command` with its path",
    cause,
  });
}

function mergeEnv(
  base: Record<string, string | undefined>,
  extra: Record<string, string | undefined> | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined) out[k] = v;
  for (const [k, v] of Object.entries(extra ?? {})) {
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out;
}

// The minimal slices of each runtime's process API used here (no runtime typings needed).

interface DenoGlobal {
  Command: new (
    command: string,
    options: {
      args: string[];
      cwd?: string;
      env?: Record<string, string>;
      clearEnv?: boolean;
      stdin: "piped";
      stdout: "piped";
      stderr: "piped";
    },
  ) => {
    spawn(): {
      stdin: WritableStream<Uint8Array>;
      stdout: ReadableStream<Uint8Array>;
      stderr: ReadableStream<Uint8Array>;
      status: Promise<{ code: number; signal: string | null }>;
      kill(signal?: string): void;
    };
  };
  env: { toObject(): Record<string, string> };
}

interface BunGlobal {
  spawn(
    cmd: string[],
    options: {
      cwd?: string;
      env?: Record<string, string>;
      stdin: "pipe";
      stdout: "pipe";
      stderr: "pipe";
    },
  ): {
    stdin: { write(data: string): unknown; end(): unknown };
    stdout: ReadableStream<Uint8Array>;
    stderr: ReadableStream<Uint8Array>;
    exited: Promise<number>;
    exitCode: number | null;
    signalCode: string | null;
    kill(signal?: string): void;
  };
  env: Record<string, string | undefined>;
}

interface NodeChildProcess {
  spawn(
    command: string,
    args: string[],
    options: { cwd?: string; env?: Record<string, string>; stdio: ["pipe", "pipe", "pipe"]; windowsHide: boolean },
  ): NodeChild;
}

interface NodeChild {
  stdin: { end(data: string, encoding: "utf8", cb: () => void): void; on(event: "error", cb: (err: unknown) => void): void };
  stdout: AsyncIterable<Uint8Array>;
  stderr: AsyncIterable<Uint8Array>;
  once(event: "spawn", cb: () => void): void;
  once(event: "error", cb: (err: unknown) => void): void;
  once(event: "exit", cb: (code: number | null, signal: string | null) => void): void;
  on(event: "error", cb: (err: unknown) => void): void;
  kill(signal: string): boolean;
  exitCode: number | null;
  signalCode: string | null;
}

type Globals = {
  Deno?: DenoGlobal;
  Bun?: BunGlobal;
  process?: { versions?: { node?: string }; env?: Record<string, string | undefined> };
  navigator?: { userAgent?: string };
};

// A variable, not a literal, so bundlers for browsers and Workers leave the import alone
// (it is never reached there) instead of failing to resolve a node: module.
const NODE_CHILD_PROCESS = "node:child_process";

/** The process API of the runtime this code runs in. */
export async function spawner(): Promise<Spawner> {
  const g = globalThis as Globals;
  if (typeof g.Deno?.Command === "function") return denoSpawner(g.Deno);
  if (typeof g.Bun?.spawn === "function") return bunSpawner(g.Bun);
  if (isBrowser()) throw new RuntimeNotSupportedError("a browser");
  if (g.navigator?.userAgent === "Cloudflare-Workers") throw new RuntimeNotSupportedError("a Cloudflare Worker");
  if (g.process?.versions?.node) {
    const cp = (await import(/* @vite-ignore */ NODE_CHILD_PROCESS)) as NodeChildProcess;
    return nodeSpawner(cp, g.process.env ?? {});
  }
  throw new RuntimeNotSupportedError("this runtime");
}

function denoSpawner(deno: DenoGlobal): Spawner {
  return async (command, args, { cwd, env }) => {
    // Deno merges `env` into its own environment; removing a variable needs the full set.
    const removes = env !== undefined && Object.values(env).some((v) => v === undefined);
    const childEnv = removes ? mergeEnv(deno.env.toObject(), env) : env ? mergeEnv({}, env) : undefined;
    let child;
    try {
      child = new deno.Command(command, {
        args,
        ...(cwd !== undefined ? { cwd } : {}),
        ...(childEnv ? { env: childEnv } : {}),
        ...(removes ? { clearEnv: true } : {}),
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
    } catch (err) {
      if ((err as { name?: unknown }).name === "NotFound") throw notFound(command, cwd, err);
      throw err;
    }
    const proc = child;
    return {
      stdout: proc.stdout as unknown as AsyncIterable<Uint8Array>,
      stderr: proc.stderr as unknown as AsyncIterable<Uint8Array>,
      async writeInput(input) {
        const writer = proc.stdin.getWriter();
        try {
          await writer.write(new TextEncoder().encode(input));
          await writer.close();
        } catch {
          // the process closed stdin early (exited); its exit status tells the story
        }
      },
      exit: proc.status.then((s) => ({ code: s.signal ? null : s.code, signal: s.signal })),
      kill(sig) {
        try {
          proc.kill(sig);
        } catch {
          // already exited
        }
      },
    };
  };
}

function bunSpawner(bun: BunGlobal): Spawner {
  return async (command, args, { cwd, env }) => {
    let proc;
    try {
      proc = bun.spawn([command, ...args], {
        ...(cwd !== undefined ? { cwd } : {}),
        // Bun replaces the environment with `env`, so start from its own.
        env: mergeEnv(bun.env, env),
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
      });
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (code === "ENOENT" || /ENOENT|not found|no such file/i.test(String((err as Error)?.message))) {
        throw notFound(command, cwd, err);
      }
      throw err;
    }
    const p = proc;
    return {
      stdout: p.stdout as unknown as AsyncIterable<Uint8Array>,
      stderr: p.stderr as unknown as AsyncIterable<Uint8Array>,
      async writeInput(input) {
        try {
          p.stdin.write(input);
          await p.stdin.end();
        } catch {
          // the process closed stdin early
        }
      },
      exit: p.exited.then(() => ({ code: p.signalCode ? null : p.exitCode, signal: p.signalCode })),
      kill(sig) {
        try {
          p.kill(sig);
        } catch {
          // already exited
        }
      },
    };
  };
}

function nodeSpawner(cp: NodeChildProcess, baseEnv: Record<string, string | undefined>): Spawner {
  return (command, args, { cwd, env }) =>
    new Promise<Child>((resolve, reject) => {
      const child = cp.spawn(command, args, {
        ...(cwd !== undefined ? { cwd } : {}),
        // Node replaces the environment with `env` (and looks the command up on its PATH).
        env: mergeEnv(baseEnv, env),
        stdio: ["pipe", "pipe", "pipe"],
        windowsHide: true,
      });
      const exit = new Promise<{ code: number | null; signal: string | null }>((res) =>
        child.once("exit", (code, signal) => res({ code, signal })),
      );
      child.stdin.on("error", () => {
        // EPIPE when the process exits before reading its input; the exit code reports it
      });
      child.once("error", (err) => {
        const code = (err as { code?: unknown }).code;
        reject(code === "ENOENT" ? notFound(command, cwd, err) : err);
      });
      child.once("spawn", () => {
        child.on("error", () => {
          // later errors (a failed kill) surface through exit or the streams
        });
        resolve({
          stdout: child.stdout,
          stderr: child.stderr,
          writeInput: (input) => new Promise<void>((res) => child.stdin.end(input, "utf8", () => res())),
          exit,
          kill(sig) {
            if (child.exitCode === null && child.signalCode === null) child.kill(sig);
          },
        });
      });
    });
}
