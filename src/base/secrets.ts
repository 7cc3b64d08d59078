// The API keys in use, so that no error can carry one. The HTTP kit registers a provider's
// key when it sends it (httpSettings); every ToolloopError is scrubbed of the registered
// keys when it is built (message, stack, cause chain), so a server or proxy that echoes a
// key back (an error body, a stream event, a debug page, a custom fetch's error) cannot
// make an error or a log line carry it.
//
// A key is held only while something that uses it is alive: each registration names an
// owner (the provider's options), and the key is forgotten once every owner is garbage-
// collected (FinalizationRegistry). A server with a provider per tenant thus keeps the keys
// of the tenants it is serving, not of every tenant it ever served. Where the runtime has
// no FinalizationRegistry the newest MAX_UNTRACKED keys are kept instead.
//
// URLs need no registration: any URL in an error's text loses its credentials (user:pass@),
// query and fragment (stripURLs), since a runtime's own message names the URL it failed to
// reach (Node's fetch refuses one with credentials, quoting it whole) and a query often
// carries a token (an MCP server's ?token=).

/** Shorter strings are not keys (and would over-match ordinary words). */
const MIN_LENGTH = 8;
/** Without FinalizationRegistry: how many of the newest keys are kept. */
const MAX_UNTRACKED = 1024;
/** Up to this many keys a text is searched for each key; beyond it, by key prefix. */
const SCAN_EACH = 16;

/** key → how many live owners registered it. */
const keys = new Map<string, number>();
/** The first MIN_LENGTH characters of each key → the keys that start so (for many keys). */
const byPrefix = new Map<string, Set<string>>();
/** owner → the keys it registered (a second registration of the same pair is a no-op). */
const owners = new WeakMap<object, Set<string>>();

const finalizer = typeof FinalizationRegistry === "function" ? new FinalizationRegistry<string>(release) : undefined;

/**
 * Marks `secret` as text no error may contain, for as long as `owner` is alive. Registering
 * the same secret for the same owner again costs a WeakMap lookup.
 */
export function registerSecret(secret: string, owner: object): void {
  if (secret.length < MIN_LENGTH) return;
  if (!finalizer) {
    keepNewest(secret);
    return;
  }
  let mine = owners.get(owner);
  if (mine?.has(secret)) return;
  if (!mine) owners.set(owner, (mine = new Set()));
  mine.add(secret);
  finalizer.register(owner, secret);
  const n = keys.get(secret);
  keys.set(secret, (n ?? 0) + 1);
  if (n === undefined) index(secret);
}

/** Without FinalizationRegistry: `secret` becomes the newest key; the oldest past the cap goes. */
function keepNewest(secret: string): void {
  if (keys.delete(secret)) {
    keys.set(secret, 1);
    return;
  }
  if (keys.size >= MAX_UNTRACKED) release(keys.keys().next().value!);
  keys.set(secret, 1);
  index(secret);
}

function index(secret: string): void {
  const prefix = secret.slice(0, MIN_LENGTH);
  let set = byPrefix.get(prefix);
  if (!set) byPrefix.set(prefix, (set = new Set()));
  set.add(secret);
}

/** One owner of `secret` is gone. */
function release(secret: string): void {
  const n = keys.get(secret);
  if (n === undefined) return;
  if (n > 1) {
    keys.set(secret, n - 1);
    return;
  }
  keys.delete(secret);
  const prefix = secret.slice(0, MIN_LENGTH);
  const set = byPrefix.get(prefix);
  set?.delete(secret);
  if (set?.size === 0) byPrefix.delete(prefix);
}

/**
 * True when an error's cause chain must be scanned. Always, now that URLs are stripped from
 * any text whether or not a key is registered (errors.ts still asks, and keeps a cause that
 * held nothing to scrub as it was).
 */
export function hasSecrets(): boolean {
  return true;
}

/** How many keys are registered (tests check that forgotten keys go). */
export function secretCount(): number {
  return keys.size;
}

/** `text` with its URLs stripped (stripURLs) and every registered secret replaced by "[redacted]". */
export function redact(text: string): string {
  text = stripURLs(text);
  if (keys.size === 0 || text.length < MIN_LENGTH) return text;
  let found: string[];
  if (keys.size > SCAN_EACH) found = keysIn(text);
  else {
    found = [];
    for (const k of keys.keys()) if (text.includes(k)) found.push(k);
  }
  if (found.length === 0) return text;
  // Longest first: a key that contains another is replaced whole.
  found.sort((a, b) => b.length - a.length);
  let out = text;
  for (const k of found) out = out.split(k).join("[redacted]");
  return out;
}

/** The registered keys that occur in `text`, found by one pass over it (not one per key). */
function keysIn(text: string): string[] {
  const found = new Set<string>();
  for (let i = 0; i + MIN_LENGTH <= text.length; i++) {
    const set = byPrefix.get(text.slice(i, i + MIN_LENGTH));
    if (!set) continue;
    for (const k of set) if (text.startsWith(k, i)) found.add(k);
  }
  return [...found];
}

/**
 * A URL in free text: a scheme, "://", then anything up to whitespace, a quote, an angle
 * bracket or a backslash (so a URL inside JSON text never swallows an escaped quote).
 */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'`<>\\]+/gi;

/**
 * `text` with each URL in it cut to scheme, host and path: credentials (user:pass@), query
 * and fragment go. Whatever follows a "?" up to the URL's end goes with it, punctuation
 * included: a token may contain any of it, and a lost ")" costs less than a leaked token.
 */
export function stripURLs(text: string): string {
  if (!text.includes("://")) return text;
  return text.replace(URL_IN_TEXT, (url) => {
    const start = url.indexOf("://") + 3;
    let rest = url.slice(start);
    // The authority ends at the first "/"; a password may hold "?" or "#" (badly encoded),
    // so everything up to its last "@" goes, not just up to the first "?".
    const slash = rest.indexOf("/");
    const at = (slash === -1 ? rest : rest.slice(0, slash)).lastIndexOf("@");
    if (at !== -1) rest = rest.slice(at + 1);
    const query = rest.search(/[?#]/);
    if (query !== -1) rest = rest.slice(0, query);
    return url.slice(0, start) + rest;
  });
}

/** Header names that carry a credential (an Authorization, an API key, a token, a cookie). */
const CREDENTIAL_HEADER = /auth|key|token|secret|cookie|session/i;

/**
 * Registers the values of the headers named for a credential, for as long as `owner` lives:
 * the whole value and its last word (the token after "Bearer"), so an echo of either is scrubbed.
 */
export function registerHeaderSecrets(headers: Record<string, string>, owner: object): void {
  for (const [name, value] of Object.entries(headers)) {
    if (!CREDENTIAL_HEADER.test(name)) continue;
    const text = String(value).trim();
    registerSecret(text, owner);
    registerSecret(text.split(/\s+/).pop()!, owner);
  }
}

/**
 * Registers the secret parts of `url` (its password, username, query values and fragment)
 * for as long as `owner` lives, so a server that echoes one bare (not as part of the URL,
 * which stripURLs handles) cannot put it into an error either.
 */
export function registerURLSecrets(url: string, owner: object): void {
  if (!/[@?#]/.test(url)) return;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return;
  }
  const parts = [parsed.username, parsed.password, parsed.search.slice(1), parsed.hash.slice(1)];
  for (const value of parsed.searchParams.values()) parts.push(value);
  for (const part of parts) {
    registerSecret(part, owner);
    try {
      registerSecret(decodeURIComponent(part), owner);
    } catch {
      // not percent-encoded text: the raw form is registered
    }
  }
}

// Messages and causes are scrubbed of every registered API key when an error is built
// (secrets.ts keeps the keys in use), so no error or log line carries one.

/** The cause as given, or (when any text in its chain holds a secret) a scrubbed copy of the chain. */
export function redactCause(cause: unknown, depth = 0): unknown {
  if (!hasSecrets() || depth > 8) return cause;
  if (typeof cause === "string") return redact(cause);
  if (typeof cause !== "object" || cause === null) return cause;
  const e = cause as { name?: unknown; message?: unknown; stack?: unknown; cause?: unknown };
  const inner = e.cause === undefined ? undefined : { cause: redactCause(e.cause, depth + 1) };
  // Kept as is when neither its own text nor its causes' held a secret.
  const text = `${causeText(cause)}\n${String(e.message ?? "")}\n${String(e.stack ?? "")}`;
  if (inner?.cause === e.cause && redact(text) === text) return cause;
  const copy = new Error(redact(typeof e.message === "string" ? e.message : causeText(cause)), inner);
  if (typeof e.name === "string") copy.name = e.name;
  copy.stack = typeof e.stack === "string" ? redact(e.stack) : copy.stack;
  return copy;
}

function causeText(value: unknown): string {
  try {
    return `${String(value)} ${JSON.stringify(value) ?? ""}`;
  } catch {
    return Object.prototype.toString.call(value);
  }
}
