// Processes in Bun: Bun.spawn.
import { mergeEnv, notFound, type Spawner } from "./spawn.js";

// The minimal slice of the runtime's process API used here (no runtime typings needed).
export interface BunGlobal {
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

export function bunSpawner(bun: BunGlobal): Spawner {
  return async (command, args, { cwd, env }) => {
    let proc: ReturnType<BunGlobal["spawn"]>;
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
