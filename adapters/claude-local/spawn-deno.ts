// Processes in Deno: Deno.Command.
import { mergeEnv, notFound, type Spawner } from "./spawn.js";

// The minimal slice of the runtime's process API used here (no runtime typings needed).
export interface DenoGlobal {
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

export function denoSpawner(deno: DenoGlobal): Spawner {
  return async (command, args, { cwd, env }) => {
    // Deno merges `env` into its own environment; removing a variable needs the full set.
    const removes = env !== undefined && Object.values(env).some((v) => v === undefined);
    const childEnv = removes ? mergeEnv(deno.env.toObject(), env) : env ? mergeEnv({}, env) : undefined;
    let child: ReturnType<InstanceType<DenoGlobal["Command"]>["spawn"]>;
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
