// Running one CLI invocation to its end, whatever the runtime (the Spawner hides it), and
// picking the runtime's spawner: Deno.Command, Bun.spawn, or node:child_process (loaded
// lazily, so importing this never pulls a node: module into a browser or Worker bundle,
// where RuntimeNotSupportedError is thrown instead).
import { abortReason, isBrowser } from "../../src/base/index.js";
import { ClaudeCliError, RuntimeNotSupportedError, STDERR_TAIL } from "./errors.js";
import type { Child, Spawner, SpawnOptions } from "./spawn.js";
import { type BunGlobal, bunSpawner } from "./spawn-bun.js";
import { type DenoGlobal, denoSpawner } from "./spawn-deno.js";
import { type NodeChildProcess, nodeSpawner } from "./spawn-node.js";

/** After SIGTERM, how long a process gets before SIGKILL. */
const KILL_GRACE_MS = 2000;

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
