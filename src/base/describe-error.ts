/** An error as one line: its message, and its cause's (fetch hides the real reason there). */
export function describeError(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    return cause instanceof Error ? `${err.message} (${cause.message})` : err.message;
  }
  return String(err);
}

/**
 * A value as an option's error names it, so a wrong type is seen for what it is: "5" read
 * as `got 5` hid that it was a string. `the string "5"`, `null`, `2.5`, `NaN`, `an object`.
 */
export function describeValue(value: unknown): string {
  // Cut short: a history saved as JSON text and passed unparsed can be megabytes.
  if (typeof value === "string") return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  // Objects (arrays and functions too) by kind: String() would print a function's source.
  return Object(value) === value ? "an object" : String(value);
}
