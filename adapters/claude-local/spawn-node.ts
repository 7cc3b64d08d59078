// Processes in Node: node:child_process, which the caller imports lazily and hands in.
import { type Child, mergeEnv, notFound, type Spawner } from "./spawn.js";

// The minimal slice of the runtime's process API used here (no runtime typings needed).
export interface NodeChildProcess {
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

export function nodeSpawner(cp: NodeChildProcess, baseEnv: Record<string, string | undefined>): Spawner {
  return (command, args, { cwd, env }) =>
    new Promise<Child>((resolve, reject) => {
      const child = cp.spawn(command, args, {
        ...(cwd !== undefined ? { cwd } : {}),
        // Node replaces the environment with `env` (and looks the command up on its PATH).
        env: mergeEnv(baseEnv, env),
        stdio: ["pipe", "pipe", "pipe"],
        windowsHide: true,
      });
      const exit = new Promise<{ code: number | null; signal: string | null }>((res) => child.once("exit", (code, signal) => res({ code, signal })));
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
