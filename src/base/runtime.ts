// Which kind of runtime the code is in, where behaviour must differ (a key must not leave a
// browser page unasked; the Claude CLI cannot be spawned there). Feature checks on
// globalThis only: nothing here names a runtime-specific API.

/** True in a browser page or browser worker (not in Node, Deno, Bun or workerd). */
export function isBrowser(): boolean {
  const g = globalThis as { window?: unknown; document?: unknown; importScripts?: unknown };
  return (typeof g.window === "object" && typeof g.document === "object") || typeof g.importScripts === "function";
}
