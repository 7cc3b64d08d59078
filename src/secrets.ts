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
  if (!finalizer) return keepNewest(secret);
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

/** True when any key is registered (errors skip the cause-chain scan otherwise). */
export function hasSecrets(): boolean {
  return keys.size > 0;
}

/** How many keys are registered (tests check that forgotten keys go). */
export function secretCount(): number {
  return keys.size;
}

/** `text` with every registered secret replaced by "[redacted]". */
export function redact(text: string): string {
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
