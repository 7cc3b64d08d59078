// The options every provider factory takes, and how one request's HTTP settings are made
// from them: the request's overrides applied, the key registered for redaction, and the
// guard that keeps a real key from leaving a browser page for the vendor's own host.
import { BrowserKeyError, hostOf, isBrowser, numberOption, registerHeaderSecrets, registerSecret } from "../base/index.js";
import type { ErrorBodyReader, FetchFn, HttpSettings } from "./http.js";

/**
 * Options every provider factory takes. Each field also accepts `undefined` (callers under
 * exactOptionalPropertyTypes pass an environment variable's value, a `string | undefined`).
 */
export interface ProviderOptions {
  apiKey?: string | undefined;
  model: string;
  /** Includes the API version, e.g. https://api.anthropic.com/v1. */
  baseURL?: string | undefined;
  /** A fetch to use instead of the global one (proxies, tests, instrumentation). */
  fetch?: FetchFn | undefined;
  /** Extra headers sent with every request. */
  headers?: Record<string, string> | undefined;
  /** Retries on 408/409/429/5xx/529 and network errors. Default 2. */
  maxRetries?: number | undefined;
  /** ms without a byte on a stream before it fails. Default: no limit. */
  idleTimeout?: number | undefined;
  /** Allow sending a real API key from a browser to the vendor's own URL. */
  dangerouslyAllowBrowser?: boolean | undefined;
}

/** The keys of ProviderOptions, for each factory's checkOptions list (src/base/options.ts). */
export const PROVIDER_OPTIONS = "apiKey model baseURL fetch headers maxRetries idleTimeout dangerouslyAllowBrowser";

/** What one request may change, and what the adapter adds (its vendor's error-body reader). */
export interface RequestOverrides {
  maxRetries?: number | undefined;
  idleTimeout?: number | undefined;
  readError?: ErrorBodyReader | undefined;
}

/**
 * Resolves the HTTP settings for one request: the provider's options with the request's
 * overrides. Refuses to send a key from a browser to the vendor's own host unless allowed.
 */
export function httpSettings(provider: string, options: ProviderOptions, defaultBaseURL: string, overrides: RequestOverrides): HttpSettings {
  if (options.apiKey && !options.dangerouslyAllowBrowser && isBrowser() && sameHost(options.baseURL ?? defaultBaseURL, defaultBaseURL)) {
    throw new BrowserKeyError(provider);
  }
  const settings: HttpSettings = {
    provider,
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    maxRetries: numberOption(`${provider}: maxRetries`, overrides.maxRetries ?? options.maxRetries, 0) ?? 2,
    idleTimeout: numberOption(`${provider}: idleTimeout`, overrides.idleTimeout ?? options.idleTimeout, 0, true),
  };
  if (overrides.readError) settings.readError = overrides.readError;
  // The key stays registered while the options (the provider holding them) or these settings
  // (a request in flight) are alive; keyOwners keeps the options alive as long as the settings
  // are, for callers that pass a fresh options object per request. A key may come in a header
  // instead (a gateway's auth header): a header named for a credential is a secret too, by the
  // same rule mcpTools uses (secrets.ts: the whole value and its last word, the token after "Bearer").
  if (options.apiKey) registerSecret(options.apiKey, options);
  if (options.headers) registerHeaderSecrets(options.headers, options);
  keyOwners.set(settings, options);
  return settings;
}

const keyOwners = new WeakMap<HttpSettings, ProviderOptions>();

function sameHost(a: string, b: string): boolean {
  const h = hostOf(a);
  return h !== undefined && h === hostOf(b);
}

/** baseURL without a trailing slash. */
export function trimSlash(url: string): string {
  return url.endsWith("/") ? url.slice(0, -1) : url;
}
