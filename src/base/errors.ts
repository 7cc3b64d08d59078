// Every error toolloop throws extends ToolloopError and carries a stable string `code`.
// Branch on `code` (or `isToolloopError(err, code)`), not `instanceof`: errors can cross
// realms (workers, iframes, duplicated bundles) where `instanceof` lies.

import { redact, redactCause } from "./secrets.js";

/** Every code; the one list is CLASS_OF, at the end of this file. */
export type ErrorCode = keyof typeof CLASS_OF;

export class ToolloopError extends Error {
  declare readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(redact(message), options && "cause" in options ? { cause: redactCause(options.cause) } : options);
    this.code = code;
    // From the code (max_steps → MaxStepsError), not new.target.name: a minifier renames classes.
    this.name = code.replace(/(?:^|_)(\w)/g, (_, c: string) => c.toUpperCase()).replace(/(Error)?$/, "Error");
  }
}

/** The error a code stands for (codes whose class lives in an adapter get the base class). */
export type ToolloopErrorOf<C extends ErrorCode> = (typeof CLASS_OF)[C] extends () => infer E ? E : ToolloopError & { readonly code: C };

/** True for a toolloop error (of `code`, when given), across realms; narrows to that code's class. */
export function isToolloopError<C extends ErrorCode>(err: unknown, code: C): err is ToolloopErrorOf<C>;
export function isToolloopError(err: unknown, code?: ErrorCode): err is ToolloopError;
export function isToolloopError(err: unknown, code?: ErrorCode): boolean {
  if (typeof err !== "object" || err === null) return false;
  const c = (err as { code?: unknown }).code;
  if (typeof c !== "string") return false;
  return code === undefined ? Object.hasOwn(CLASS_OF, c) : c === code;
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
   * The same request may succeed if sent again. HTTP error answers are retried by the HTTP
   * kit (maxRetries) before this reaches you; an error that arrived inside a stream is never
   * resent automatically (events may already have been delivered), so there it is
   * informational: for a caller, or fallback(), to act on (see src/http/retry.ts).
   */
  declare readonly retryable: boolean;
  constructor(init: {
    provider: string;
    message: string;
    status?: number;
    type?: string;
    requestId?: string;
    retryable?: boolean;
    cause?: unknown;
  }) {
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
 * A stream produced no content for too long (stallTimeout): none within `first` ms of the
 * request (phase "first"), or none for `between` ms after the last content delta (phase
 * "between"). Pings and keep-alives do not count as content. The request was aborted.
 * `afterContent` says whether the caller already saw part of this answer (onDelta): before any,
 * fallback() moves the request to its next provider; after, the error is the caller's.
 */
export class StallError extends ToolloopError {
  declare readonly provider: string;
  declare readonly phase: "first" | "between";
  declare readonly ms: number;
  declare readonly afterContent: boolean;
  constructor(provider: string, phase: "first" | "between", ms: number) {
    super("stall", `${provider}: no content for ${ms} ms after ${phase === "first" ? "the request" : "the last delta"} (stallTimeout.${phase})`);
    this.provider = provider;
    this.phase = phase;
    this.ms = ms;
    this.afterContent = phase === "between";
  }
}

/**
 * True when a run that failed with `err` may be continued by sending the same model request
 * again: the request failed in transit (no answer: ConnectionError; a stream that broke:
 * StreamError; one that went silent: IdleTimeoutError, StallError, before or after content).
 * Nothing of the failed reply is in the history (the loop adds a reply only once it is whole),
 * so the history is valid as it is; a journal or a caller may resend. Errors that say the
 * request or the setup is wrong (a 4xx ProviderError, bad options, a refused schema) are not.
 * Checked by code, so it holds across realms.
 */
export function isRecoverable(err: unknown): boolean {
  const code = isToolloopError(err) ? err.code : undefined;
  return code === "stall" || code === "stream_error" || code === "idle_timeout" || code === "connection_error";
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

// Every code and the class behind it, written once: ErrorCode is its keys, isToolloopError(err,
// "provider_error") narrows to its class, and the check with no code uses it as the list, so it
// needs no instanceof (false across realms) and does not take other libraries' coded errors
// (Node's "ECONNREFUSED") for ours.
// Each class is named in the type alone (`instance<C>` is this one function, never called): a
// value that held the classes would keep every one of them in a bundle that throws none.
function instance<E>(): E {
  return undefined as E;
}
const IN_ADAPTER = null; // a code whose class lives in an adapter (adapters/claude-local, adapters/mcp/oauth)
const IN_JOURNAL = null; // durable runs' codes: their classes live in src/journal/errors.ts
const CLASS_OF = {
  failed_unmarshal_input: instance<FailedUnmarshalInputError>,
  tool_name_collision: instance<ToolNameCollisionError>,
  invalid_tool_name: instance<InvalidToolNameError>,
  invalid_tool: instance<InvalidToolError>,
  unsupported_schema: instance<UnsupportedSchemaError>,
  tools_not_supported: instance<ToolsNotSupportedError>,
  max_steps: instance<MaxStepsError>,
  provider_error: instance<ProviderError>,
  connection_error: instance<ConnectionError>,
  stream_error: instance<StreamError>,
  idle_timeout: instance<IdleTimeoutError>,
  stall: instance<StallError>,
  tool_timeout: instance<ToolTimeoutError>,
  structured_output: instance<StructuredOutputError>,
  invalid_history: instance<InvalidHistoryError>,
  browser_key: instance<BrowserKeyError>,
  runtime_not_supported: IN_ADAPTER,
  cli_error: IN_ADAPTER,
  auth_error: IN_ADAPTER, // adapters/mcp/oauth (AuthError)
  unsupported_content: instance<UnsupportedContentError>,
  suspended: instance<SuspendedError>,
  invalid_decision: instance<InvalidDecisionError>,
  missing_api_key: instance<MissingApiKeyError>,
  invalid_options: instance<InvalidOptionsError>,
  journal: IN_JOURNAL,
  recovery_limit: IN_JOURNAL,
  run_interrupted: IN_JOURNAL,
};
