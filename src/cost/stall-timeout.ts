// createClient's stallTimeout, as a thin layer: every request of the client carries the limits,
// and each provider's own watch (src/http/stall.ts) times its stream with them. Carried on the
// request rather than timed here, so under fallback() each provider is timed on its own and a
// stall before content still moves to the next one.
import type { Provider } from "../conversation/index.js";
import { stallTimeoutOption } from "../http/index.js";
import { wrap } from "./wrap.js";

/** `provider` with `value` (checked here) on each request; the provider itself when unset. */
export function withStallTimeout(provider: Provider, value: unknown): Provider {
  const stallTimeout = stallTimeoutOption("stallTimeout", value);
  return stallTimeout ? wrap(provider, (request) => provider.generate({ ...request, stallTimeout })) : provider;
}
