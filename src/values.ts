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
