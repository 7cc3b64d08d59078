// follow()'s options, checked when follow() is called (not at the first next()), so a misspelt
// option fails where it was written, before any request is made.
import { checkOptions, describeError, describeValue, InvalidOptionsError, numberOption } from "../base/index.js";

export interface FollowOptions {
  /**
   * The run's first answer, already fetched: the response of the POST that started or resumed
   * the run (`POST /chat/:id`, `POST /chat/:id/decisions`). It is read first; after a drop
   * follow() reconnects to `url`. Unlike a reconnection, a first answer that is not a 200 event
   * stream is never retried (the run may not have started): it ends with the error.
   */
  response?: Response | undefined;
  /** The id of the last event already seen (a page that saved it before a reload): only later events are yielded. */
  after?: number | undefined;
  /** Reconnections in a row that bring no new event before follow() gives up with the last failure; default 10. 0: never reconnect. */
  retries?: number | undefined;
  /** ms to wait before the first reconnection of a row (default 500); each further one waits twice as long, up to maxRetryDelay. */
  retryDelay?: number | undefined;
  /** The longest wait between reconnections, in ms; default 10 000. */
  maxRetryDelay?: number | undefined;
  /** The fetch to use (default: the global one), e.g. one that adds credentials. */
  fetch?: typeof fetch | undefined;
  /** Headers sent with every GET (an Authorization header, say). Accept and Last-Event-ID are follow()'s. */
  headers?: HeadersInit | undefined;
  /** Stops following: the iteration rejects with the signal's reason. The run itself goes on (the server's to stop). */
  signal?: AbortSignal | undefined;
}

/** The checked options, defaults filled in. */
export interface FollowSettings {
  url: string | URL;
  response: Response | undefined;
  after: number | undefined;
  retries: number;
  retryDelay: number;
  maxRetryDelay: number;
  fetch: typeof fetch;
  headers: Headers;
  signal: AbortSignal | undefined;
}

const WHAT = "follow()";

export function followSettings(url: unknown, options: FollowOptions | undefined): FollowSettings {
  if (typeof url !== "string" && !(url instanceof URL))
    throw new InvalidOptionsError(`${WHAT} takes the URL of a run's event stream first, got ${describeValue(url)}`);
  if (options !== undefined && (typeof options !== "object" || options === null)) {
    throw new InvalidOptionsError(`${WHAT}: the options must be an object, got ${describeValue(options)}`);
  }
  const o = options ?? {};
  checkOptions(WHAT, o, "response after retries retryDelay maxRetryDelay fetch headers signal");
  const { response, signal } = o;
  if (response !== undefined) {
    if (typeof response?.headers?.get !== "function" || typeof response.status !== "number") {
      throw new InvalidOptionsError(`${WHAT}: response must be the Response of the request that started the run, got ${describeValue(response)}`);
    }
    if (response.bodyUsed) throw new InvalidOptionsError(`${WHAT}: the response's body was already read; pass the Response before reading it`);
  }
  if (o.fetch !== undefined && typeof o.fetch !== "function") throw new InvalidOptionsError(`${WHAT}: fetch must be a function, got ${describeValue(o.fetch)}`);
  if (signal !== undefined && typeof signal?.addEventListener !== "function") {
    throw new InvalidOptionsError(`${WHAT}: signal must be an AbortSignal, got ${describeValue(signal)}`);
  }
  let headers: Headers;
  try {
    headers = new Headers(o.headers);
  } catch (err) {
    throw new InvalidOptionsError(`${WHAT}: headers must be a Headers, an object of strings or a list of [name, value] pairs (${describeError(err)})`);
  }
  headers.set("accept", "text/event-stream");
  const retryDelay = numberOption(`${WHAT}: retryDelay`, o.retryDelay, 0, true) ?? 500;
  const maxRetryDelay = numberOption(`${WHAT}: maxRetryDelay`, o.maxRetryDelay, 0, true) ?? Math.max(10_000, retryDelay);
  if (maxRetryDelay < retryDelay) throw new InvalidOptionsError(`${WHAT}: maxRetryDelay (${maxRetryDelay}) is shorter than retryDelay (${retryDelay})`);
  return {
    url,
    response,
    after: numberOption(`${WHAT}: after`, o.after, 0),
    retries: numberOption(`${WHAT}: retries`, o.retries, 0) ?? 10,
    retryDelay,
    maxRetryDelay,
    // Called as a plain function below: a browser's fetch refuses to run as a method of another object.
    fetch: o.fetch ?? fetch,
    headers,
    signal,
  };
}
