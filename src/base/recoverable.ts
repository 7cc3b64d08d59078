// Which failures a run may be continued after (a journal, fallback(), a caller's own retry).

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
  const code = typeof err === "object" && err !== null ? (err as { code?: unknown }).code : undefined;
  return code === "stall" || code === "stream_error" || code === "idle_timeout" || code === "connection_error";
}
