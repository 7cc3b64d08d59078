// Plain JavaScript passes any key: `claude({ baseUrl })` would quietly send to the vendor
// instead of the proxy, `maxStep` would quietly mean the default. Every factory names the
// keys it takes and refuses any other, with the known key it most likely meant.
import { describeValue } from "./describe-error.js";
import { InvalidOptionsError } from "./errors.js";

/** The words of a space-separated list, as a union type. */
type Words<S extends string> = S extends `${infer H} ${infer T}` ? H | Words<T> : S;

/**
 * `known` must list exactly the keys of `T` (checked by the compiler, so a new option cannot
 * be forgotten here): the error names what is missing or extra.
 */
type Exactly<K extends string, T> = [Exclude<keyof T & string, Words<K>>] extends [never]
  ? [Exclude<Words<K>, keyof T>] extends [never]
    ? K
    : { notAnOption: Exclude<Words<K>, keyof T> }
  : { missing: Exclude<keyof T & string, Words<K>> };

/**
 * Throws InvalidOptionsError for a key of `options` that `known` (space-separated) does not
 * list, whatever its value: a misspelt key set to an unset variable would fail later, when
 * the variable is set. Known keys may be `undefined`, as every option may. Options that are
 * not an object pass (the factory's own checks refuse them with their own message).
 */
export function checkOptions<T, K extends string>(what: string, options: T, known: K & Exactly<K, NonNullable<T>>): void {
  const keys = known.split(" ");
  for (const key of Object.keys(Object(options))) {
    if (keys.includes(key)) continue;
    // The known key spelt alike ignoring case (distance 0), else the nearest within 2 edits.
    let near: string | undefined;
    let min = 3;
    for (const k of keys) {
      const d = distance(key.toLowerCase(), k.toLowerCase());
      if (d < min) [near, min] = [k, d];
    }
    throw new InvalidOptionsError(`${what}: unknown option \`${key}\`${near ? `; did you mean \`${near}\`?` : ` (it takes ${keys.join(", ")})`}`);
  }
}

/** Levenshtein distance, one row at a time. */
function distance(a: string, b: string): number {
  let prev = [...Array(b.length + 1).keys()];
  for (let i = 0; i < a.length; i++) {
    const row = [i + 1];
    for (let j = 0; j < b.length; j++) row.push(Math.min(prev[j + 1]! + 1, row[j]! + 1, prev[j]! + +(a[i] !== b[j])));
    prev = row;
  }
  return prev[b.length]!;
}

/**
 * A number option, or undefined when unset: a whole number from `min` up, or (`ms`) any
 * positive number of milliseconds. Anything else is refused: `maxRetries: "3"` or `-1`
 * would otherwise quietly mean no retries, `idleTimeout: 0` no protection from a stall.
 */
export function numberOption(what: string, value: unknown, min: number, ms?: boolean): number | undefined {
  if (value === undefined || (typeof value === "number" && (ms ? value > 0 && value < Infinity : Number.isInteger(value) && value >= min))) return value;
  throw new InvalidOptionsError(`${what} must be ${ms ? "a positive number of ms" : `a whole number, ${min} or more`}, got ${describeValue(value)}`);
}
