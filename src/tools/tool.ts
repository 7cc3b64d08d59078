// The tool contract. A Tool is a name, a description, a JSON Schema and a string-to-string
// call; tool() and jsonTool() build one from a typed `run`, with `call` as the thin JSON
// adapter: cleanJSON -> JSON.parse -> validate -> run -> string.

import type * as v from "valibot";
import type { Logger } from "../base/index.js";
import { checkOptions, FailedUnmarshalInputError, formatIssues, InvalidToolError } from "../base/index.js";
import type { ContentPart } from "../conversation/index.js";
import {
  compileValidator,
  isSchemaInput,
  type JSONSchema,
  jsonSchema,
  type SchemaInput,
  schemaProblem,
  toJSONSchema,
  type ValidateFn,
  type ValidateResult,
} from "../schema/index.js";
import { parseJSONArguments } from "./clean-json.js";
import { checkDescription } from "./describe.js";

/** What a handler asks the person (or app) for; the run suspends until it is answered. */
export interface InputRequest {
  message: string;
  /** JSON Schema, valibot or Standard Schema the answer must match. */
  schema?: unknown;
  /**
   * A stable name for this question, unique within the call (MCP publishes it as the key of
   * the 2026-07-28 `inputRequests` entry). Default: its position among the call's questions.
   */
  key?: string;
}

export interface ToolContext {
  /** Aborted when the run is aborted (or the tool's timeout passes). */
  signal: AbortSignal;
  /** The provider's id for this call. */
  callId: string;
  logger: Logger;
  /**
   * Resolves to the answer once one was given; until then it suspends the run (the handler
   * is abandoned and runs again, with the same input, on resume). Present when the loop
   * runs the tool; callers outside a client (e.g. MCP) may leave it out.
   */
  requestInput?: (request: InputRequest) => Promise<unknown>;
  /**
   * A durable run's key for this call (a journal's client, or the Workflows bridge): the same for
   * every attempt of the call, different between calls. Send it as the `Idempotency-Key` of a
   * request with side effects, so a call retried after an interruption (`replay: "safe"`) is done once.
   */
  idempotencyKey?: string;
}

/** Media out of a tool: `toolOutput(parts)` from `run`, or a hand-written `call` resolving to it. */
export interface ToolOutputContent {
  content: ContentPart[];
}

export type ToolCallResult = string | ToolOutputContent;

/**
 * A tool. `Input` (the validated value `run` gets) and `Output` (what `run` resolves to) are
 * type-only: tool() fills them in, so `ToolInput<typeof t>` / `ToolOutput<typeof t>` name them;
 * plain `Tool` (both unknown) means any tool, and every `Tool<I, O>` is one.
 */
export interface Tool<Input = unknown, Output = unknown> {
  /** Type-only (never present at run time): carries Input and Output through tool(). */
  readonly "~types"?: { readonly input: Input; readonly output: Output } | undefined;
  name: string;
  description: string;
  parameters: JSONSchema;
  call(input: string, ctx: ToolContext): Promise<ToolCallResult>;
  /** ms before the call is abandoned and answered with a timeout error. Default: none. */
  timeout?: number;
  /** Ask for approval before running (a function gets the parsed arguments). */
  needsApproval?: boolean | ((input: unknown, ctx: ToolContext) => boolean | Promise<boolean>);
  /** The loop never runs this tool: its output comes as a decision (externalTool()). */
  external?: boolean;
  /**
   * In a durable run, a call interrupted while it ran (a crash, an eviction) is run again with the
   * same ctx.idempotencyKey when "safe"; otherwise (the default) it is not run again and the model
   * is told that its outcome is unknown.
   */
  replay?: "safe";
}

/** The type a schema validates to (valibot, or Standard Schema with output types). */
export type Infer<S> = S extends v.GenericSchema | v.GenericSchemaAsync
  ? v.InferOutput<S>
  : S extends { "~standard": { types?: { output: infer O } | undefined } }
    ? O
    : unknown;

/** The validated input type of a tool built by tool() (unknown for a hand-written one). */
export type ToolInput<T> = T extends Tool<infer I, unknown> ? I : unknown;
/** What a tool's `run` resolves to (unknown for a hand-written one). */
export type ToolOutput<T> = T extends Tool<unknown, infer O> ? O : unknown;

export interface ToolOptions<S extends SchemaInput, O = unknown> {
  name: string;
  description: string;
  input: S;
  run: (input: Infer<S>, ctx: ToolContext) => O;
  timeout?: number | undefined;
  /** Suspend the run for approval before running (a function gets the validated input). */
  needsApproval?: boolean | ((input: Infer<S>, ctx: ToolContext) => boolean | Promise<boolean>) | undefined;
  /** Durable runs: "safe" runs an interrupted call again with the same ctx.idempotencyKey (Tool.replay). */
  replay?: "safe" | undefined;
}

/** A tool with a typed `run`; `call` parses, validates and stringifies around it. */
export function tool<S extends SchemaInput, O = unknown>(options: ToolOptions<S, O>): Tool<Infer<S>, Awaited<O>> {
  if (typeof options !== "object" || options === null) throw new InvalidToolError("tool() takes { name, description, input, run }");
  checkOptions("tool()", options, "name description input run timeout needsApproval replay");
  if (!isSchemaInput(options.input)) {
    throw new InvalidToolError(
      `tool "${String(options.name)}" needs \`input\`: a valibot schema (v.object({...})) or a Standard Schema; for a raw JSON Schema use jsonTool({ parameters })`,
    );
  }
  const parameters = toJSONSchema(options.input, String(options.name));
  // The types are only carried (the "~types" marker is never set): build() is untyped inside.
  return build(options as BuildOptions, parameters, options.input) as Tool<Infer<S>, Awaited<O>>;
}

export interface JsonToolOptions {
  name: string;
  description: string;
  parameters: JSONSchema;
  run: (input: any, ctx: ToolContext) => unknown;
  timeout?: number | undefined;
  /** Suspend the run for approval before running (a function gets the validated input). */
  needsApproval?: boolean | ((input: any, ctx: ToolContext) => boolean | Promise<boolean>) | undefined;
  /** Durable runs: "safe" runs an interrupted call again with the same ctx.idempotencyKey (Tool.replay). */
  replay?: "safe" | undefined;
}

/** A tool from a raw JSON Schema (draft-07 / 2020-12); input is validated against it. */
export function jsonTool(options: JsonToolOptions): Tool {
  if (typeof options !== "object" || options === null) throw new InvalidToolError("jsonTool() takes { name, description, parameters, run }");
  checkOptions("jsonTool()", options, "name description parameters run timeout needsApproval replay");
  const { parameters } = options;
  if (typeof parameters !== "object" || parameters === null || Array.isArray(parameters)) {
    throw new InvalidToolError(`tool "${String(options.name)}" needs \`parameters\`: a JSON Schema object such as { type: "object", properties: {...} }`);
  }
  // A raw schema reaches the provider as written: a misspelt type would fail there, or loosen it.
  const problem = schemaProblem(parameters);
  if (problem) throw new InvalidToolError(`tool "${String(options.name)}": \`parameters\` is not a valid JSON Schema: ${problem}`);
  const input = jsonSchema(parameters);
  return build(options, toJSONSchema(input, String(options.name)), input);
}

/** What tool() and jsonTool() options share, as build() reads them (untyped inside). */
interface BuildOptions {
  name: string;
  description: string;
  run: (input: unknown, ctx: ToolContext) => unknown;
  timeout?: number | undefined;
  needsApproval?: Tool["needsApproval"];
  replay?: Tool["replay"];
}

/** The Tool for `parameters` (sent to the model), validated by `typed`. */
function build({ name, description, run, timeout, needsApproval, replay }: BuildOptions, parameters: JSONSchema, typed: SchemaInput): Tool {
  if (typeof name !== "string" || name === "") throw new InvalidToolError("a tool needs a name");
  checkDescription(name, description);
  if (typeof run !== "function") throw new InvalidToolError(`tool "${name}" needs a run function`);
  if (parameters.type !== "object") {
    throw new InvalidToolError(`tool "${name}": the input schema must describe an object (got type ${JSON.stringify(parameters.type)})`);
  }
  const validate = compileValidator(typed);
  const t: Tool = {
    name,
    description,
    parameters,
    async call(input, ctx) {
      // checkArguments is synchronous for a synchronous validator (valibot's, zod's): one async
      // frame per call instead of two (it was an async function of its own).
      const value = await checkArguments(input, validate);
      return toOutput(await run(value, ctx));
    },
  };
  if (timeout !== undefined) t.timeout = timeout;
  if (needsApproval !== undefined) t.needsApproval = needsApproval;
  // Any value but "safe" is the default, which never runs a call twice: a typo cannot make a tool less safe.
  if (replay !== undefined) t.replay = replay;
  validators.set(t, validate);
  return t;
}

/** True for tools built by tool() / jsonTool(): their handler never sees invalid arguments. */
export function checksInput(tool: Tool): boolean {
  return validators.has(tool);
}

/** The validators of tools built here, so input can be checked before a call runs (approvals). */
const validators = new WeakMap<Tool, ValidateFn>();

/** `t` with another call (tracing's wrapper), checked as `t` is: approvals still validate its input. */
export function withCall(t: Tool, call: Tool["call"]): Tool {
  const w = { ...t, call };
  const v = validators.get(t);
  if (v) validators.set(w, v);
  return w;
}

/**
 * A call's arguments as its handler would get them: validated for tool()s and jsonTool()s
 * (FailedUnmarshalInputError when they do not fit), parsed for hand-written tools.
 */
export function toolInput(tool: Tool, args: string): Promise<unknown> {
  return parseAndValidate(args, validators.get(tool) ?? ((value) => ({ ok: true, value })));
}

/** Parses raw model arguments and validates them; FailedUnmarshalInputError on any problem. */
export async function parseAndValidate(input: string, validate: ValidateFn): Promise<unknown> {
  return checkArguments(input, validate);
}

/**
 * parseAndValidate's work: the value (or, for an async validator, a promise of it); throws
 * FailedUnmarshalInputError (or rejects with it) on any problem.
 */
function checkArguments(input: string, validate: ValidateFn): unknown {
  let parsed: unknown;
  try {
    parsed = parseJSONArguments(input);
  } catch (err) {
    throw new FailedUnmarshalInputError(`not valid JSON (${(err as Error).message})`, [], { cause: err });
  }
  // Tool input is an object by contract (the schema's root is type "object"); checked here
  // because some validators take an array for an object (valibot's object() does).
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    const got = parsed === null ? "null" : Array.isArray(parsed) ? "an array" : `a ${typeof parsed}`;
    throw new FailedUnmarshalInputError(`the arguments must be a JSON object, got ${got}`, [{ path: "/", message: `expected an object, got ${got}` }]);
  }
  const r = validate(parsed);
  return typeof (r as Partial<PromiseLike<ValidateResult>>).then === "function" ? Promise.resolve(r).then(validated) : validated(r as ValidateResult);
}

function validated(r: ValidateResult): unknown {
  if (!r.ok) throw new FailedUnmarshalInputError(`does not match the schema (${formatIssues(r.issues)})`, r.issues);
  return r.value;
}

const OUTPUT = Symbol.for("toolloop.toolOutput");

/** Wraps content parts as a tool's result: `run` returns `toolOutput([...])` to send media. */
export function toolOutput(content: ContentPart[]): ToolOutputContent {
  const out = { content };
  Object.defineProperty(out, OUTPUT, { value: true });
  return out;
}

/** A string result goes to the model verbatim; toolOutput() as parts; anything else as JSON that cannot throw. */
export function toOutput(value: unknown): ToolCallResult {
  if (typeof value === "string") return value;
  if (typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[OUTPUT] === true) return value as ToolOutputContent;
  try {
    // undefined (and a function) stringify to undefined: sent as null.
    return JSON.stringify(value, bigints) ?? "null";
  } catch {
    return safeStringify(value);
  }
}

function bigints(_key: string, v: unknown): unknown {
  return typeof v === "bigint" ? v.toString() : v;
}

/** JSON.stringify that marks cycles instead of throwing (only reached when the fast path threw). */
function safeStringify(value: unknown): string {
  const stack: unknown[] = [];
  const replacer = function (this: unknown, key: string, v: unknown): unknown {
    v = bigints(key, v);
    if (typeof v !== "object" || v === null) return v;
    // `this` is the holder; trim the stack back to it to track the current path only.
    while (stack.length > 0 && stack[stack.length - 1] !== this) stack.pop();
    if (stack.includes(v)) return "[Circular]";
    stack.push(v);
    return v;
  };
  try {
    return JSON.stringify(value, replacer) ?? "null";
  } catch (err) {
    // e.g. a toJSON that throws: the call failed, and the model is told so as a tool error.
    throw new Error(`the tool result could not be serialised: ${(err as Error).message}`, { cause: err });
  }
}
