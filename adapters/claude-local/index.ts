// toolloop/claude-local: the Claude Code CLI on this machine as a Provider. Each request
// runs `claude -p` once, hands it the conversation on stdin and reads the result JSON
// from stdout, so a logged-in Claude Code (subscription or its own key) answers chat(),
// ask() and stream() without an API key in the program.
//
// Why a transcript and not `--resume` or stream-json input: the client's history is the
// source of truth (it can be edited, stored, resumed with createClient({ history }), or
// come from another provider). `--resume <session>` would answer from the CLI's own copy
// of the conversation instead, and `--input-format stream-json` only takes user turns
// (each one is answered in turn, so earlier assistant replies cannot be replayed).
// Rendering the history as a transcript in one prompt is the form every CLI version
// takes and keeps each request a pure function of `request.messages`.
//
// This is the one adapter that starts processes, so it is the one place that knows the
// runtime: Deno.Command in Deno, Bun.spawn in Bun, node:child_process in Node (loaded
// lazily, so importing this module never pulls a node: module into a bundle). Browsers
// and Workers get RuntimeNotSupportedError.
import { abortReason, checkOptions, numberOption } from "../../src/base/index.js";
import type { Provider } from "../../src/conversation/index.js";
import type { ClaudeLocalOptions } from "./options.js";
import { type CliRun, createCliStreamDecoder, parseJSONOutput, splitLines, toResponse } from "./output.js";
import { runProcess, spawner } from "./process.js";
import { cliArgs, transcript } from "./prompt.js";

export { ClaudeCliError, type ClaudeCliFailure, RuntimeNotSupportedError } from "./errors.js";
export type { ClaudeLocalOptions } from "./options.js";

export interface ClaudeLocalProvider extends Provider {
  readonly name: "claude-local";
  readonly supportsTools: false;
  toJSON(): { name: string; model: string | undefined };
}

/** A Provider that runs the local Claude Code CLI in print mode. It has no tools. */
export function claudeLocal(options: ClaudeLocalOptions = {}): ClaudeLocalProvider {
  checkOptions("claudeLocal()", options, "command model cwd timeout env extraArgs");
  const command = options.command ?? "claude";
  numberOption("claudeLocal: timeout", options.timeout, 0, true);
  return {
    name: "claude-local",
    model: options.model,
    supportsTools: false,
    toJSON: () => ({ name: "claude-local", model: options.model }),
    async generate(request) {
      if (request.signal?.aborted) throw abortReason(request.signal);
      // The prompt first: a part the CLI cannot take fails before any process starts.
      const prompt = transcript(request.messages);
      const spawn = await spawner();
      const streaming = request.onDelta !== undefined;
      const args = cliArgs(options, request, streaming);
      let ended: CliRun | undefined;
      const decoder = streaming ? createCliStreamDecoder(request.onDelta, () => ended!) : undefined;
      const lines = decoder ? splitLines((line) => decoder.push(line)) : undefined;
      const run = await runProcess(spawn, command, args, prompt, {
        cwd: options.cwd,
        env: options.env,
        timeout: options.timeout,
        signal: request.signal,
        onStdout: lines ? (text) => lines.push(text) : undefined,
      });
      ended = { run, command };
      if (!decoder) return toResponse(parseJSONOutput(run.stdout), run, command);
      lines!.end();
      return decoder.finish();
    },
  };
}
