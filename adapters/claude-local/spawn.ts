// The process API toolloop/claude-local needs, the same in every runtime that has one,
// and the helpers the per-runtime spawners (spawn-deno.ts, spawn-bun.ts, spawn-node.ts)
// share. Nothing here touches a runtime API.
import { ClaudeCliError } from "./errors.js";

export interface Child {
  stdout: AsyncIterable<Uint8Array>;
  stderr: AsyncIterable<Uint8Array>;
  /** Writes `input` to stdin and closes it. Not awaited by the runner: a dead child shows in `exit`. */
  writeInput(input: string): Promise<void>;
  exit: Promise<{ code: number | null; signal: string | null }>;
  kill(signal: "SIGTERM" | "SIGKILL"): void;
}

export interface SpawnOptions {
  cwd: string | undefined;
  env: Record<string, string | undefined> | undefined;
}

/** Starts a process; rejects with ClaudeCliError("not_found") when it cannot start. */
export type Spawner = (command: string, args: string[], options: SpawnOptions) => Promise<Child>;

export function notFound(command: string, cwd: string | undefined, cause: unknown): ClaudeCliError {
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

/** `base` with `extra` on top; an `undefined` value in `extra` removes the variable. */
export function mergeEnv(base: Record<string, string | undefined>, extra: Record<string, string | undefined> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined) out[k] = v;
  for (const [k, v] of Object.entries(extra ?? {})) {
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out;
}
