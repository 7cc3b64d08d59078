// What the bridge's steps return. Workflows keeps a step's value (at most 1 MiB) and gives it back
// on every replay, so a step returns a plain JSON copy of what it made, checked for size where it
// is made: a value the engine could not keep (a class instance, a function) or one over the limit
// would otherwise end the instance with the engine's own error, or fail to persist. Errors cross
// as values too (their code, message and own fields), so a replay throws the same error again.
import { isToolloopError, ToolloopError } from "../../src/base/index.js";

/**
 * The most a step's value may take, in bytes. Workflows' limit is 1 MiB (2^20 bytes) per step;
 * the rest is headroom for the engine's own framing of the value.
 */
export const MAX_STEP_BYTES = 1_000_000;

/** A step's value (a model reply, a tool's output, the run's output) is over MAX_STEP_BYTES; Workflows could not keep it. */
export class StepTooLargeError extends ToolloopError {
  declare readonly step: string;
  declare readonly bytes: number;
  declare readonly limit: number;
  constructor(step: string, bytes: number, limit: number) {
    super(
      "step_too_large",
      `${step} is ${bytes} bytes, over the ${limit} a Workflows step may keep (1 MiB); the run stopped. ` +
        "Make the tool return less (a summary, or a key to the data in R2 or KV), or lower the model's max tokens",
    );
    this.step = step;
    this.bytes = bytes;
    this.limit = limit;
  }
}

/** A value as a step may return it: a JSON copy, or `{ tooLarge }` with its size. */
export function stepValue<T>(value: T): T | { tooLarge: number } {
  const json = JSON.stringify(value) ?? "null";
  const bytes = storedBytes(json);
  return bytes > MAX_STEP_BYTES ? { tooLarge: bytes } : (JSON.parse(json) as T);
}

/**
 * The bytes a string takes where the engine stores it (V8's serialisation): one per character
 * when every character fits in Latin-1, two otherwise (UTF-16). Counted over the whole JSON, so
 * one emoji anywhere doubles the estimate: safe, never under.
 */
export function storedBytes(json: string): number {
  return /[^\x00-\xff]/.test(json) ? json.length * 2 : json.length;
}

/** An error as a step's value. */
export interface ErrorValue {
  name: string;
  message: string;
  /** The toolloop error code, when it is one. */
  code?: string;
  /** Its own JSON fields (status, provider, requestId...), for a caller that reads them. */
  fields?: Record<string, unknown>;
}

/** An Error (or error-like value) as a value a step can keep. */
export function errorValue(err: unknown): ErrorValue {
  const e = (typeof err === "object" && err !== null ? err : { message: String(err) }) as { name?: unknown; message?: unknown; code?: unknown };
  const out: ErrorValue = { name: typeof e.name === "string" ? e.name : "Error", message: typeof e.message === "string" ? e.message : String(err) };
  if (isToolloopError(err)) {
    out.code = err.code;
    const fields: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(err)) {
      // Only what JSON keeps as it is; a cause or a Response stays behind.
      if (k !== "code" && k !== "name" && k !== "message" && (v === null || ["string", "number", "boolean"].includes(typeof v))) fields[k] = v;
    }
    if (Object.keys(fields).length) out.fields = fields;
  }
  return out;
}

/** The error a step's value stands for: a toolloop error with its code and fields again, or an Error with its name. */
export function rebuildError(v: ErrorValue): Error {
  if (v.code !== undefined) {
    const err = new ToolloopError(v.code as ToolloopError["code"], v.message);
    // The class's own message is kept as it was (the constructor would not add a prefix twice,
    // but a subclass's message is already whole); the name follows the code as it did.
    Object.defineProperty(err, "message", { value: v.message, writable: true, configurable: true });
    return Object.assign(err, v.fields);
  }
  const err = new Error(v.message);
  err.name = v.name;
  return err;
}
