// One tool invocation, shared by the loop (execute.ts) and the MCP server: the tool's
// timeout, the caller's abort, a synchronous throw from a hand-written call, and the text
// a thrown value turns into. It never rejects, so no handler can crash its caller.

import type { Logger } from "../base/index.js";
import { abortReason, ToolTimeoutError } from "../base/index.js";
import type { ContentPart } from "../conversation/index.js";
import { checkParts } from "../conversation/index.js";
import { type InputRequest, type Tool, type ToolContext, toOutput } from "../tools/index.js";

export type Invocation =
  | { kind: "ok"; output: string; content?: ContentPart[] }
  | { kind: "thrown"; error: unknown }
  | { kind: "cancelled" }
  /** The handler asked for input nobody has given yet; it was abandoned (its signal aborted). */
  | { kind: "suspended" };

/** The call being made: its id, the name errors use (the model's spelling), its JSON arguments. */
export interface Invocable {
  id: string;
  name: string;
  arguments: string;
}

export interface InvokeOptions {
  logger: Logger;
  signal?: AbortSignal | undefined;
  /** Adds to the handler's context (ctx.requestInput: see askingWith). */
  extend?: Extend | undefined;
}

/**
 * Adds to a handler's context before it runs. It may abandon the handler: `abort` aborts
 * the handler's signal, `finish` settles the invocation (as "suspended").
 */
export type Extend = (ctx: ToolContext, abort: (reason: unknown) => void, finish: (outcome: Invocation) => void) => void;

/**
 * The Extend behind ctx.requestInput: `ask` resolves with a known answer, or calls
 * `suspend()` and never settles (the handler runs again from the start once it is answered).
 * Only suspension() and the MCP server use it, so an agent without them ships none of it.
 */
export const askingWith =
  (ask: (request: InputRequest, suspend: () => void) => Promise<unknown>): Extend =>
  (ctx, abort, finish) => {
    ctx.requestInput = (request) =>
      ask(request, () => {
        abort(new DOMException("the run suspended for input", "AbortError"));
        finish({ kind: "suspended" });
      });
  };

/**
 * A handler's context. `signal` is an own enumerable getter, so `{ ...ctx }` copies it (the
 * tracer and MCP wrap contexts so), and its AbortController is made when the tool first reads
 * it: most tools never do, and an AbortController per call was a measurable share of a tool
 * loop. An abort before that is remembered, so a late reader still gets an aborted signal
 * with the same reason. The getter is one shared function defined on each context: an object
 * literal's own getter is a new function per literal, which gives every context a hidden class
 * of its own (~1 µs per call in V8, against ~0.1 µs).
 */
class Context {
  #controller: AbortController | undefined;
  #aborted: [unknown] | undefined;
  declare signal: AbortSignal;
  declare callId: string;
  declare logger: Logger;
  constructor(callId: string, logger: Logger) {
    // Defined in the order the context always had its keys: signal, callId, logger.
    Object.defineProperty(this, "signal", SIGNAL);
    this.callId = callId;
    this.logger = logger;
  }
  /** The signal, made on first read (SIGNAL's getter). */
  static signal(ctx: Context): AbortSignal {
    if (!ctx.#controller) {
      ctx.#controller = new AbortController();
      if (ctx.#aborted) ctx.#controller.abort(ctx.#aborted[0]);
    }
    return ctx.#controller.signal;
  }
  /** Aborts the handler's signal (now, or when it is first read); the first reason stays. */
  static abort(ctx: Context, reason: unknown): void {
    ctx.#aborted ??= [reason];
    ctx.#controller?.abort(reason);
  }
}
const SIGNAL: PropertyDescriptor = {
  get(this: Context) {
    return Context.signal(this);
  },
  enumerable: true,
  configurable: true,
};

/** Calls the tool, settling early on abort or the tool's timeout even if the handler ignores its signal. */
export function invokeTool(tool: Tool, call: Invocable, opts: InvokeOptions): Promise<Invocation> {
  const { signal } = opts;
  if (signal?.aborted) return Promise.resolve({ kind: "cancelled" });
  const ctx = new Context(call.id, opts.logger);
  const abort = (reason: unknown) => Context.abort(ctx, reason);
  return new Promise<Invocation>((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let settled = false;
    const onAbort = () => {
      abort(abortReason(signal!));
      finish({ kind: "cancelled" });
    };
    const finish = (v: Invocation) => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(v);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    if (tool.timeout !== undefined && tool.timeout > 0) {
      timer = setTimeout(() => {
        const err = new ToolTimeoutError(call.name, tool.timeout!);
        abort(err);
        finish({ kind: "thrown", error: err });
      }, tool.timeout);
    }
    opts.extend?.(ctx, abort, finish);
    let p: Promise<unknown>;
    try {
      p = tool.call(call.arguments, ctx);
    } catch (error) {
      // a synchronous throw from a hand-written Tool.call
      finish({ kind: "thrown", error });
      return;
    }
    Promise.resolve(p).then(
      (output) => finish(okOutput(output, call.name)),
      (error) => finish({ kind: "thrown", error }),
    );
  });
}

/**
 * A string is the output; `{ content }` is media, checked as a saved history's parts are (a
 * hand-written tool may resolve to anything): a malformed part makes the call a tool error the
 * model reads, so no run writes a history that createClient({ history }) would refuse.
 */
function okOutput(output: unknown, name: string): Invocation {
  if (typeof output === "string") return { kind: "ok", output };
  const content = (output as { content?: unknown } | null)?.content;
  // Anything else is encoded as tool()'s values are: JSON, not "[object Object]".
  if (!Array.isArray(content)) return { kind: "ok", output: toOutput(output) as string };
  try {
    return { kind: "ok", output: "", content: checkParts(content, `tool "${name}" returned content`) };
  } catch (error) {
    return { kind: "thrown", error };
  }
}

/**
 * The text a thrown value becomes. An Error (or an error-like object from another realm) gives
 * its message; anything else is the JS analogue of a panic and is described.
 */
export function thrownText(err: unknown): { message: string; panic: boolean } {
  if (err instanceof Error || isErrorLike(err)) return { message: (err as Error).message, panic: false };
  return { message: `tool handler panicked: ${describe(err)}`, panic: true };
}

function isErrorLike(v: unknown): boolean {
  return typeof v === "object" && v !== null && typeof (v as { message?: unknown }).message === "string" && "stack" in v;
}

function describe(v: unknown): string {
  if (typeof v === "string") return v;
  if (typeof v === "bigint") return `${v}n`;
  if (typeof v === "symbol" || typeof v === "function" || v === undefined || v === null) return String(v);
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return Object.prototype.toString.call(v);
  }
}
