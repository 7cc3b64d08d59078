// Small readers for values of unknown shape (parsed JSON from the network, options from
// JavaScript callers), one copy each, named for what they accept. Each returns undefined
// for anything else, so a caller writes `nonEmptyText(x) ?? fallback`.

/** A non-null object that is not an array: something with fields to read. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A string, possibly empty. */
export function optionalString(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/** A string, possibly empty, or `fallback`. */
export function stringOr(v: unknown, fallback: string): string {
  return typeof v === "string" ? v : fallback;
}

/** A string with at least one character. */
export function nonEmptyString(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

/** A finite number (NaN and ±Infinity are not counts). */
export function finiteNumber(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/** A label from an error body: a non-empty string, or a number written as one (Google's `code: 429`). */
export function labelText(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : typeof v === "number" ? String(v) : undefined;
}

/** The host of a URL, or undefined when it does not parse. */
export function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}

/**
 * `{ ...o, ...extra }`: the same own properties, in the same order. Node 20's V8 builds a spread
 * copy that gains a property through a slow path (~1 µs, against ~60 ns for this), which hot
 * paths that copy a block to mark it pay per request. Object.assign onto a fresh object is the
 * fast equivalent except for an own "__proto__" key (JSON.parse makes those), which it would
 * turn into the copy's prototype: such objects are still copied by the spread.
 */
export function copyWith<T extends object, E extends object>(o: T, extra: E): T & E {
  return Object.hasOwn(o, "__proto__") || Object.hasOwn(extra, "__proto__") ? { ...o, ...extra } : Object.assign({}, o, extra);
}
