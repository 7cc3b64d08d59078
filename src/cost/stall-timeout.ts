// stallTimeout(provider, { first, between }): the provider with its streamed requests timed by
// src/http/stall.ts's watch. A wrapper, like fallback(), so an agent that sets no limit ships
// none of it (a provider option would put the watch in every agent: options never select
// code). Per provider: inside fallback([stallTimeout(a, ...), b]) a stall of `a` before any
// content moves to `b`; wrapped around the fallback, a stall would end the whole request.
import { InvalidOptionsError } from "../base/index.js";
import type { ModelRequest, Provider } from "../conversation/index.js";
import { type StallTimeout, stallTimeoutOption, watchStalls } from "../http/index.js";

/**
 * `provider` under stall limits (checked here). Everything else is the provider's own: the
 * wrapper inherits from it (name, model, supportsTools, supportsWebSearch, checkTools, toJSON)
 * and has only its own generate.
 */
export function stallTimeout<P extends Provider>(provider: P, limits: StallTimeout): P {
  if (typeof provider?.generate !== "function") {
    throw new InvalidOptionsError("stallTimeout() takes a provider, then the limits: stallTimeout(claude({ ... }), { first: 10_000, between: 5_000 })");
  }
  const generate = watchStalls(provider.name, stallTimeoutOption("stallTimeout", limits), (request: ModelRequest) => provider.generate(request));
  const p: P = Object.create(provider);
  // Defined, not assigned: an inherited generate may be read-only (a journaled provider's).
  Object.defineProperty(p, "generate", { value: generate });
  return p;
}
