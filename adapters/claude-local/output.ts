// Reading what the CLI printed: the result JSON, or stream-json events as they arrive.

import { isRecord, optionalString } from "../../src/base/index.js";
import type { FinishReason, ModelRequest, ModelResponse, StreamDecoder } from "../../src/conversation/index.js";
import { finishReason as anthropicFinish, toUsage } from "../claude/usage.js";
import { ClaudeCliError } from "./errors.js";
import type { ProcessResult } from "./process.js";

/** The fields of the CLI's result object that toolloop reads. */
interface CliResult {
  type: "result";
  subtype?: unknown;
  is_error?: unknown;
  result?: unknown;
  errors?: unknown;
  session_id?: unknown;
  stop_reason?: unknown;
  usage?: unknown;
}

function isResult(v: unknown): v is CliResult {
  return isRecord(v) && v.type === "result";
}

/** `--output-format json` prints one result object (with --verbose, an array of messages). */
export function parseJSONOutput(stdout: string): CliResult | undefined {
  const pick = (v: unknown): CliResult | undefined => (isResult(v) ? v : Array.isArray(v) ? [...v].reverse().find(isResult) : undefined);
  const text = stdout.trim();
  if (!text) return undefined;
  try {
    return pick(JSON.parse(text));
  } catch {
    // Something else shared stdout (a warning line): take the last line that is a result.
    for (const line of text.split("\n").reverse()) {
      try {
        const r = pick(JSON.parse(line));
        if (r) return r;
      } catch {
        // not JSON
      }
    }
    return undefined;
  }
}

/** What the CLI's run ended with: the exit status and stderr its errors report. */
export interface CliRun {
  run: ProcessResult;
  command: string;
}

/**
 * Decodes `--output-format stream-json` (NDJSON), wearing the one decoder contract
 * (src/provider.ts): push() takes one line; text deltas from partial messages go to
 * onDelta as they arrive; finish() maps the result line once the process has ended
 * (`ended` gives its exit status for the errors). Lines come from splitLines().
 */
export function createCliStreamDecoder(onDelta: ModelRequest["onDelta"], ended: () => CliRun): StreamDecoder<string> {
  let result: CliResult | undefined;
  let streamedText = false;
  return {
    push(raw) {
      const line = raw.trim();
      if (!line) return;
      let msg: unknown;
      try {
        msg = JSON.parse(line);
      } catch {
        return; // not an event; a missing result line is reported at the end
      }
      if (isResult(msg)) {
        result = msg;
        return;
      }
      const m = msg as {
        type?: unknown;
        parent_tool_use_id?: unknown;
        event?: { type?: unknown; delta?: { type?: unknown; text?: unknown } };
      };
      if (m.type !== "stream_event" || m.event?.type !== "content_block_delta") return;
      // A subagent's text (Claude Code's Task tool) is not part of the answer.
      if (typeof m.parent_tool_use_id === "string") return;
      const d = m.event.delta;
      if (d?.type === "text_delta" && typeof d.text === "string" && d.text !== "") {
        streamedText = true;
        onDelta?.({ type: "text-delta", text: d.text });
      }
    },
    finish() {
      const { run, command } = ended();
      const response = toResponse(result, run, command);
      // No partial messages came (an older CLI, or settings that turn them off): the
      // caller still gets the text, as one delta.
      if (!streamedText && response.text) onDelta?.({ type: "text-delta", text: response.text });
      return response;
    },
  };
}

/** Splits text chunks into lines for a line decoder; `end()` flushes a last line without "\n". */
export function splitLines(onLine: (line: string) => void): { push(chunk: string): void; end(): void } {
  let buffer = "";
  return {
    push(chunk) {
      buffer += chunk;
      // One slice per chunk, not one per line (a chunk can hold many NDJSON events).
      let start = 0;
      let nl: number;
      while ((nl = buffer.indexOf("\n", start)) >= 0) {
        const line = buffer.slice(start, nl);
        start = nl + 1;
        onLine(line);
      }
      buffer = buffer.slice(start);
    },
    end() {
      const rest = buffer;
      buffer = "";
      onLine(rest);
    },
  };
}

export function toResponse(result: CliResult | undefined, run: ProcessResult, command: string): ModelResponse {
  const base = { command, exitCode: run.code, signal: run.signal, stderr: run.stderr };
  if (!result) {
    if (run.code !== 0) {
      const how = run.signal ? `was killed by ${run.signal}` : `exited with code ${run.code}`;
      throw new ClaudeCliError({ ...base, reason: "exit", message: `${command} ${how}` });
    }
    const seen = run.stdout.trim().slice(0, 200);
    throw new ClaudeCliError({
      ...base,
      reason: "bad_output",
      message: `${command} printed no result JSON${seen ? `: ${JSON.stringify(seen)}` : " (stdout was empty)"}`,
    });
  }
  const subtype = optionalString(result.subtype);
  const sessionId = optionalString(result.session_id);
  if (result.is_error === true || (subtype !== undefined && subtype !== "success")) {
    const errors = Array.isArray(result.errors) ? result.errors.filter((e): e is string => typeof e === "string") : [];
    const said = typeof result.result === "string" && result.result ? result.result : errors.join("; ");
    throw new ClaudeCliError({
      ...base,
      reason: "result_error",
      subtype,
      sessionId,
      message: `the CLI reported an error${subtype && subtype !== "success" ? ` (${subtype})` : ""}: ${said || "no details"}`,
    });
  }
  return {
    text: typeof result.result === "string" ? result.result : "",
    toolCalls: [],
    finishReason: finishReason(result.stop_reason),
    usage: toUsage(result.usage),
  };
}

function finishReason(stop: unknown): FinishReason {
  // A result is a final answer: older CLIs send no stop_reason, and its tool turns are its own.
  const reason = anthropicFinish(stop);
  return reason === "other" || reason === "tool-calls" ? "stop" : reason;
}
