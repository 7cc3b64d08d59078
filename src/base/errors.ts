// Every error toolloop throws extends ToolloopError and carries a stable string `code`.
// Branch on `code` (or `isToolloopError(err, code)`), not `instanceof`: errors can cross
// realms (workers, iframes, duplicated bundles) where `instanceof` lies.

import { redact, redactCause } from "./secrets.js";

/** Every code; the one list is ClassOf, at the end of this file. */
export type ErrorCode = keyof ClassOf;

/**
 * Marks an error made by a toolloop class. `Symbol.for` is one registry for every realm and every
 * copy of the package, so the mark holds where `instanceof` lies (an iframe, a second bundle).
 */
const MARK = Symbol.for("toolloop.error");

export class ToolloopError extends Error {
  declare readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(redact(message), options && "cause" in options ? { cause: redactCause(options.cause) } : options);
    this.code = code;
    Object.defineProperty(this, MARK, { value: true });
    // From the code (max_steps → MaxStepsError), not new.target.name: a minifier renames classes.
    this.name = code.replace(/(?:^|_)(\w)/g, (_, c: string) => c.toUpperCase()).replace(/(Error)?$/, "Error");
  }
}

/** The error a code stands for (codes whose class lives in an adapter get the base class). */
export type ToolloopErrorOf<C extends ErrorCode> = ClassOf[C] extends ToolloopError ? ClassOf[C] : ToolloopError & { readonly code: C };

/** True for a toolloop error (of `code`, when given), across realms; narrows to that code's class. */
export function isToolloopError<C extends ErrorCode>(err: unknown, code: C): err is ToolloopErrorOf<C>;
export function isToolloopError(err: unknown, code?: ErrorCode): err is ToolloopError;
export function isToolloopError(err: unknown, code?: ErrorCode): boolean {
  if (typeof err !== "object" || err === null) return false;
  const c = (err as { code?: unknown }).code;
  if (typeof c !== "string") return false;
  // Made by one of our classes, or (a copy that lost the mark, e.g. sent through postMessage) one
  // of the core's codes: another library's coded error (Node's "ECONNREFUSED") is not one of ours.
  return code === undefined ? (err as { [MARK]?: true })[MARK] === true || (CODES as CheckedCodes).includes(` ${c} `) : c === code;
}

/** One validation problem: where in the input, and what is wrong. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/** Tool input that is not JSON or does not match the tool's schema. The loop asks the model to fix it. */
export class FailedUnmarshalInputError extends ToolloopError {
  declare readonly issues: ValidationIssue[];
  constructor(message: string, issues: ValidationIssue[] = [], options?: { cause?: unknown }) {
    super("failed_unmarshal_input", `failed to unmarshal input: ${message}`, options);
    this.issues = issues;
  }
}

export class ToolNameCollisionError extends ToolloopError {
  declare readonly names: [string, string];
  constructor(a: string, b: string) {
    super("tool_name_collision", a === b ? `two tools are named "${a}"` : `tool names "${a}" and "${b}" differ only in case; names are registered lower-cased`);
    this.names = [a, b];
  }
}

export class InvalidToolNameError extends ToolloopError {
  declare readonly toolName: string;
  constructor(name: string) {
    super("invalid_tool_name", `invalid tool name ${JSON.stringify(name)}: use 1-64 letters, digits, "_" or "-" (^[a-zA-Z0-9_-]{1,64}$)`);
    this.toolName = name;
  }
}

export class InvalidToolError extends ToolloopError {
  constructor(message: string) {
    super("invalid_tool", message);
  }
}

/** A tool's schema uses something a provider cannot accept; `path` points at it (JSON Pointer). */
export class UnsupportedSchemaError extends ToolloopError {
  declare readonly provider: string;
  declare readonly toolName: string;
  declare readonly path: string;
  constructor(provider: string, toolName: string, path: string, reason: string) {
    super("unsupported_schema", `${provider} cannot take the schema of tool "${toolName}" at ${path || "/"}: ${reason}`);
    this.provider = provider;
    this.toolName = toolName;
    this.path = path;
  }
}

export class ToolsNotSupportedError extends ToolloopError {
  constructor(provider: string) {
    super("tools_not_supported", `the ${provider} provider does not support tools`);
  }
}

export class MaxStepsError extends ToolloopError {
  declare readonly steps: number;
  constructor(steps: number) {
    super("max_steps", `the model was still calling tools after ${steps} steps (maxSteps)`);
    this.steps = steps;
  }
}

/** The provider answered with an error status. Never carries the API key. */
export class ProviderError extends ToolloopError {
  declare readonly provider: string;
  declare readonly status: number | undefined;
  /** The provider's own error type, e.g. "rate_limit_error", "invalid_request_error", "RESOURCE_EXHAUSTED". */
  declare readonly type: string | undefined;
  declare readonly requestId: string | undefined;
  /**
   * The same request may succeed if sent again. HTTP error answers are retried (maxRetries) before this reaches you; one that
   * arrived inside a stream is never resent (events may already have been delivered): for a caller, or fallback(), to act on.
   */
  declare readonly retryable: boolean;
  constructor(init: { provider: string; message: string; status?: number; type?: string; requestId?: string; retryable?: boolean; cause?: unknown }) {
    const where = init.status ? `${init.provider} ${init.status}` : init.provider;
    super("provider_error", `${where}${init.type ? ` ${init.type}` : ""}: ${init.message}`, { cause: init.cause });
    this.provider = init.provider;
    this.status = init.status;
    this.type = init.type && redact(init.type);
    this.requestId = init.requestId && redact(init.requestId);
    this.retryable = init.retryable ?? false;
  }
}

/** The request never got an HTTP answer (refused, reset, DNS). */
export class ConnectionError extends ToolloopError {
  declare readonly provider: string;
  constructor(provider: string, message: string, options?: { cause?: unknown }) {
    super("connection_error", `${provider}: ${message}`, options);
    this.provider = provider;
  }
}

/** A response stream broke: cut short, malformed, or an error event in the middle. */
export class StreamError extends ToolloopError {
  declare readonly provider: string;
  declare readonly requestId: string | undefined;
  constructor(provider: string, message: string, options?: { cause?: unknown; requestId?: string }) {
    super("stream_error", `${provider}: ${message}`, options);
    this.provider = provider;
    // A header the server chose, like ProviderError's: redacted the same way.
    this.requestId = options?.requestId && redact(options.requestId);
  }
}

export class IdleTimeoutError extends ToolloopError {
  declare readonly ms: number;
  constructor(provider: string, ms: number) {
    super("idle_timeout", `${provider}: no data for ${ms} ms (idleTimeout)`);
    this.ms = ms;
  }
}

/**
 * A stream produced no content for too long (stallTimeout): none within `first` ms of the request, or none for `between` ms
 * after the last content delta; pings do not count. The request was aborted. `afterContent`: the caller already saw part of
 * this answer (onDelta); before any, fallback() moves the request to its next provider.
 */
export class StallError extends ToolloopError {
  declare readonly provider: string;
  declare readonly phase: "first" | "between";
  declare readonly ms: number;
  declare readonly afterContent: boolean;
  constructor(provider: string, phase: "first" | "between", ms: number) {
    super("stall", `${provider}: no content for ${ms} ms (stallTimeout.${phase})`);
    this.provider = provider;
    this.phase = phase;
    this.ms = ms;
    this.afterContent = phase === "between";
  }
}

export class ToolTimeoutError extends ToolloopError {
  declare readonly ms: number;
  constructor(tool: string, ms: number) {
    super("tool_timeout", `tool "${tool}" timed out after ${ms} ms`);
    this.ms = ms;
  }
}

export class StructuredOutputError extends ToolloopError {
  declare readonly text: string;
  declare readonly issues: ValidationIssue[];
  constructor(message: string, text: string, issues: ValidationIssue[] = []) {
    super("structured_output", message);
    this.text = text;
    this.issues = issues;
  }
}

export class InvalidHistoryError extends ToolloopError {
  constructor(message: string) {
    super("invalid_history", message);
  }
}

/** A real API key would be sent from a browser without the caller saying so. */
export class BrowserKeyError extends ToolloopError {
  constructor(provider: string) {
    super(
      "browser_key",
      `refusing to send a ${provider} API key from a browser: anyone who opens the page can read it. ` +
        "Use a proxy baseURL that adds the key server-side, or pass dangerouslyAllowBrowser: true.",
    );
  }
}

/** A content part the provider cannot take; thrown before anything is sent. */
export class UnsupportedContentError extends ToolloopError {
  declare readonly provider: string;
  declare readonly part: string;
  /** Why the provider cannot take it (the message's last clause; a tool result's note says it). */
  declare readonly why: string;
  constructor(provider: string, part: string, why: string) {
    super("unsupported_content", `${provider} cannot take ${part}: ${why}`);
    this.provider = provider;
    this.part = part;
    this.why = why;
  }
}

/** chat()/ask() reached calls that wait for a decision; `pending` lists them (client.pending too). */
export class SuspendedError extends ToolloopError {
  declare readonly pending: readonly { callId: string; name: string; kind: string }[];
  constructor(pending: readonly { callId: string; name: string; kind: string }[]) {
    super("suspended", `the run is suspended: ${pending.length} call(s) wait for a decision (${pending.map((p) => `${p.name}: ${p.kind}`).join(", ")})`);
    this.pending = pending;
  }
}

/** A batch of decisions was refused as a whole; nothing ran and the history is unchanged. */
export class InvalidDecisionError extends ToolloopError {
  declare readonly callId: string | undefined;
  constructor(message: string, callId?: string) {
    super("invalid_decision", message);
    this.callId = callId;
  }
}

/** No API key was given (or found); nothing was sent. */
export class MissingApiKeyError extends ToolloopError {
  declare readonly provider: string;
  constructor(provider: string, message: string) {
    super("missing_api_key", message);
    this.provider = provider;
  }
}

/** A factory or createClient() got options it cannot work with. */
export class InvalidOptionsError extends ToolloopError {
  constructor(message: string) {
    super("invalid_options", message);
  }
}

// Every code and its class (a type: no class is kept in a bundle that throws none); `null`: the class lives in an adapter or a
// layer above base. CODES: the core's codes as text (fewest bytes), for copies that lost their mark; the compiler holds it to ClassOf.
const CODES =
  " failed_unmarshal_input tool_name_collision invalid_tool_name invalid_tool unsupported_schema tools_not_supported max_steps provider_error connection_error stream_error idle_timeout stall tool_timeout structured_output invalid_history browser_key unsupported_content suspended invalid_decision missing_api_key invalid_options ";
type Words<S extends string> = S extends ` ${infer W} ${infer Rest}` ? W | Words<` ${Rest}`> : never;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Check<T extends true> = T;
type CoreCode = { [C in keyof ClassOf]: ClassOf[C] extends null ? never : C }[keyof ClassOf];
type CheckedCodes = Check<Same<Words<typeof CODES>, CoreCode>> extends true ? string : never;
interface ClassOf {
  failed_unmarshal_input: FailedUnmarshalInputError;
  tool_name_collision: ToolNameCollisionError;
  invalid_tool_name: InvalidToolNameError;
  invalid_tool: InvalidToolError;
  unsupported_schema: UnsupportedSchemaError;
  tools_not_supported: ToolsNotSupportedError;
  max_steps: MaxStepsError;
  provider_error: ProviderError;
  connection_error: ConnectionError;
  stream_error: StreamError;
  idle_timeout: IdleTimeoutError;
  stall: StallError;
  tool_timeout: ToolTimeoutError;
  structured_output: StructuredOutputError;
  invalid_history: InvalidHistoryError;
  browser_key: BrowserKeyError;
  runtime_not_supported: null; // its class lives in an adapter
  cli_error: null; // its class lives in an adapter
  auth_error: null; // adapters/mcp/oauth (AuthError)
  step_too_large: null; // adapters/cloudflare (StepTooLargeError)
  invalid_pins: null; // adapters/mcp/pins (InvalidPinsError)
  tool_changed: null; // adapters/mcp/pins (ToolChangedError)
  unsupported_content: UnsupportedContentError;
  suspended: SuspendedError;
  invalid_decision: InvalidDecisionError;
  missing_api_key: MissingApiKeyError;
  invalid_options: InvalidOptionsError;
  journal: null; // src/journal/errors.ts
  recovery_limit: null; // src/journal/errors.ts
  run_interrupted: null; // src/journal/errors.ts
}
