// Runs one step's tool calls and turns every outcome into a result the model can read.
// A handler can never crash or abort the run: errors, panics, unknown tools, timeouts and
// cancellation all become results, so the history always has an answer for every call.
import { isToolloopError } from "../base/index.js";
import { CANCELLED_OUTPUT, type ContentPart, renderParts, type ToolCall } from "../conversation/index.js";
import { invokeTool, thrownText } from "./invoke.js";
import type { ExecutedCall, ExecuteOptions, ToolOutcome } from "./types.js";

export { CANCELLED_OUTPUT };

/**
 * Runs the calls and resolves with one result per call, in call order. Never rejects:
 * if the signal aborts, calls still running or not started are answered "cancelled" and
 * the caller decides what to do with the abort.
 */
export async function executeCalls(calls: readonly ToolCall[], opts: ExecuteOptions): Promise<ExecutedCall[]> {
  // `width` workers each take the next call in order until none is left: one worker is a
  // sequential step, maxParallel of them bound a parallel one. Once the signal aborts, the
  // calls not yet taken are answered "cancelled" without running.
  const width = opts.parallel ? Math.min(opts.maxParallel, calls.length) : 1;
  const results: ExecutedCall[] = [];
  let next = 0;
  const worker = async () => {
    while (next < calls.length) {
      const i = next++;
      results[i] = settle(opts.signal?.aborted ? cancelled(calls[i]!) : await (opts.gate?.run ?? runOne)(calls[i]!, opts), opts);
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return results;
}

function cancelled(call: ToolCall): ExecutedCall {
  return { callId: call.id, name: call.name.toLowerCase(), output: CANCELLED_OUTPUT, isError: true, outcome: "cancelled" };
}

function settle(r: ExecutedCall, opts: ExecuteOptions): ExecutedCall {
  if (!r.pending) opts.onResult?.(r);
  return r;
}

/** Runs one call and turns its outcome into the call's result. */
export async function runOne(call: ToolCall, opts: ExecuteOptions): Promise<ExecutedCall> {
  const { logger } = opts;
  const name = call.name.toLowerCase();
  const tool = opts.registry.tools.get(name);
  logger.info("tool call", { tool: name });
  logger.debug("tool parameters", { tool: name, args: call.arguments });
  if (!tool) {
    const known = [...opts.registry.tools.keys()].join(", ") || "none";
    const message = `unknown tool "${call.name}"; available tools: ${known}`;
    logger.warn("tool error", { tool: name, error: message });
    return result(call, name, errorJSON(message), "unknown_tool", opts);
  }
  const started = Date.now();
  // The executor's options are what an invocation reads (logger, signal, the gate's extend).
  const outcome = await invokeTool(tool, call, opts);
  const ms = Date.now() - started;
  let r: ExecutedCall;
  switch (outcome.kind) {
    case "ok":
      logger.info("tool result", { tool: name, ms });
      r = result(call, name, outcome.output, "ok", opts);
      if (outcome.content) {
        r.content = capParts(outcome.content, opts.maxToolOutput);
        r.output = renderParts(r.content);
      }
      break;
    case "cancelled":
      logger.info("tool cancelled", { tool: name, ms });
      r = cancelled(call);
      break;
    case "suspended": // the handler asked for input: suspension() answers the call as waiting (and logs it)
      r = cancelled(call);
      break;
    case "thrown": {
      const err = outcome.error;
      if (isToolloopError(err, "failed_unmarshal_input")) {
        // Not a failure of the tool: the model gets the issues and the schema to fix its call.
        logger.info("tool input invalid", { tool: name, ms, error: err.message });
        const answer = {
          error: err.message,
          fix: "Call the tool again with arguments that are a JSON object matching this schema.",
          schema: tool.parameters,
        };
        r = result(call, name, JSON.stringify(answer), "invalid_input", opts);
      } else {
        const { message, panic } = thrownText(err);
        // The model reads the message capped like any output (inside the JSON, which stays valid).
        const output = errorJSON(cap(message, opts.maxToolOutput));
        if (panic) {
          logger.error("tool panic", { tool: name, ms, error: message });
          r = result(call, name, output, "panic", opts);
        } else {
          logger.warn("tool error", { tool: name, ms, error: message });
          r = result(call, name, output, isToolloopError(err, "tool_timeout") ? "timeout" : "error", opts);
        }
      }
    }
  }
  return r;
}

/** An outcome RunResult.toolFailures counts: the tool failed (invalid input is the model's to fix; a cancel is no failure). */
export function failed(outcome: ToolOutcome): boolean {
  return outcome !== "ok" && outcome !== "invalid_input" && outcome !== "cancelled";
}

/** maxToolOutput caps the text of a media result; images and files pass whole. */
export function capParts(parts: ContentPart[], max: number): ContentPart[] {
  let left = max;
  return parts.map((p) => {
    if (p.type !== "text") return p;
    const text = cap(p.text, Math.max(left, 0));
    left -= p.text.length;
    return text === p.text ? p : { type: "text", text };
  });
}

function result(call: ToolCall, name: string, output: string, outcome: ToolOutcome, opts: ExecuteOptions): ExecutedCall {
  const capped = outcome === "ok" ? cap(output, opts.maxToolOutput) : output;
  return { callId: call.id, name, output: capped, isError: outcome !== "ok", outcome };
}

export function cap(output: string, max: number): string {
  if (output.length <= max) return output;
  return `${output.slice(0, max)}\n[truncated: ${output.length - max} more characters]`;
}

function errorJSON(message: string): string {
  return JSON.stringify({ error: message });
}
