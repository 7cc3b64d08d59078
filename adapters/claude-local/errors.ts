// The errors of toolloop/claude-local: the runtime cannot start processes, or the CLI failed.
import { ToolloopError } from "../../src/base/index.js";

/** How much of the CLI's stderr an error keeps (its end, where the reason usually is). */
export const STDERR_TAIL = 2048;

/** Spawning processes is impossible here (browser, Worker). */
export class RuntimeNotSupportedError extends ToolloopError {
  readonly runtime: string;
  constructor(runtime: string) {
    super("runtime_not_supported", `claude-local runs the Claude Code CLI as a child process, which ${runtime} cannot do; use it from Node, Deno or Bun`);
    this.runtime = runtime;
  }
}

/** Why a CLI run failed. */
export type ClaudeCliFailure =
  | "not_found" // the command could not be started (ENOENT / NotFound)
  | "exit" // the process exited non-zero (or was killed) without a result
  | "bad_output" // stdout held no result JSON
  | "result_error" // the CLI reported an error result (is_error, or an error subtype)
  | "timeout"; // the `timeout` option passed; the process was killed

/** The Claude Code CLI failed. Carries the last ~2 KB of its stderr. */
export class ClaudeCliError extends ToolloopError {
  readonly reason: ClaudeCliFailure;
  readonly command: string;
  readonly exitCode: number | undefined;
  readonly signal: string | undefined;
  /** The end of what the CLI wrote to stderr (at most STDERR_TAIL characters). */
  readonly stderr: string;
  /** The result's subtype when the CLI reported one ("error_max_turns", ...). */
  readonly subtype: string | undefined;
  readonly sessionId: string | undefined;
  constructor(init: {
    reason: ClaudeCliFailure;
    command: string;
    message: string;
    exitCode?: number | null;
    signal?: string | null;
    stderr?: string;
    subtype?: string;
    sessionId?: string;
    cause?: unknown;
  }) {
    const stderr = init.stderr ?? "";
    const tail = stderr.trim() ? `\nstderr: ${stderr.trim()}` : "";
    super("cli_error", `claude-local: ${init.message}${tail}`, { cause: init.cause });
    this.name = "ClaudeCliError"; // the code's name would be CliError
    this.reason = init.reason;
    this.command = init.command;
    this.exitCode = init.exitCode ?? undefined;
    this.signal = init.signal ?? undefined;
    this.stderr = stderr;
    this.subtype = init.subtype;
    this.sessionId = init.sessionId;
  }
}
