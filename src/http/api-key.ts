// A provider built without an API key would send its requests unauthenticated and fail
// with the vendor's 401 at the first model call. The factories call requireApiKey() so the
// mistake surfaces at once, as a MissingApiKeyError naming the option and (in Node, Deno
// and Bun) whether the usual environment variable is set, the usual cause being a key that
// is in the environment but was never passed. The key itself is never read from the
// environment: where a key comes from stays the caller's decision.
import { hostOf, MissingApiKeyError } from "../base/index.js";

export interface KeySpec {
  /** How the factory is called in messages, e.g. "claude". */
  factory: string;
  /** The vendor's own base URL: a different host is a proxy, which may add the key itself. */
  defaultBaseURL: string;
  /** The environment variables the vendor's own SDKs read, in their order of preference. */
  env: readonly string[];
}

/** Request headers that carry a key already (a caller may authenticate through `headers`). */
const AUTH_HEADERS = new Set(["authorization", "x-api-key", "x-goog-api-key", "api-key"]);

/**
 * Throws MissingApiKeyError when a request to the vendor's own host would carry no key: no
 * `apiKey`, no auth header, no `baseURL` on another host (a proxy that adds the key) and no
 * custom `fetch` (which may route to such a proxy or sign the request itself).
 */
export function requireApiKey(
  options: { apiKey?: string | undefined; baseURL?: string | undefined; headers?: Record<string, string> | undefined; fetch?: unknown },
  spec: KeySpec,
): void {
  if (options.apiKey || options.fetch) return;
  if (options.headers && Object.keys(options.headers).some((h) => AUTH_HEADERS.has(h.toLowerCase()))) return;
  if (options.baseURL !== undefined && hostOf(options.baseURL) !== hostOf(spec.defaultBaseURL)) return;
  const states = spec.env.map(envIsSet);
  const set = spec.env.filter((_, i) => states[i] === true);
  const known = !states.includes(undefined);
  let hint = "";
  if (set.length > 0) hint = ` ${set[0]} is set in the environment but is not read automatically: pass its value as apiKey.`;
  else if (known) hint = ` ${spec.env.join(" / ")} ${spec.env.length > 1 ? "are" : "is"} not set in the environment either.`;
  throw new MissingApiKeyError(
    spec.factory,
    `${spec.factory}() needs an API key: pass ${spec.factory}({ apiKey, ... }), or a baseURL whose proxy adds the key.${hint}`,
  );
}

/**
 * Whether environment variable `name` is set: true / false in Node, Bun and Deno (when
 * env access is granted; no permission prompt is ever raised), undefined where there is
 * no environment (browsers, Workers). Reached through globalThis, so bundles for those
 * runtimes neither polyfill nor reference `process`.
 */
function envIsSet(name: string): boolean | undefined {
  const g: Record<string, unknown> = globalThis;
  const deno = g.Deno as
    | { env?: { get(n: string): string | undefined }; permissions?: { querySync?(d: { name: "env"; variable: string }): { state: string } } }
    | undefined;
  try {
    if (deno?.env) {
      if (deno.permissions?.querySync?.({ name: "env", variable: name }).state !== "granted") return undefined;
      return Boolean(deno.env.get(name));
    }
    const env = (g["process"] as { env?: Record<string, string | undefined> } | undefined)?.env;
    return env ? Boolean(env[name]) : undefined;
  } catch {
    return undefined;
  }
}
