// createClient({ pricing }): what a model call costs in USD. Cache reads and writes are
// parts of inputTokens and reasoning is part of outputTokens on every provider, so the
// bill is the uncached input, the cache reads and writes, and the output at their rates.
import { checkOptions, InvalidOptionsError } from "../base/index.js";
import type { Provider, Usage } from "../conversation/index.js";
import { wrap } from "./wrap.js";

/** USD per million tokens. Cache rates default to the input rate. */
export interface Pricing {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

export function usageCost(u: Usage, p: Pricing): number {
  const read = u.cacheReadTokens ?? 0;
  const write = u.cacheWriteTokens ?? 0;
  return ((u.inputTokens - read - write) * p.input + read * (p.cacheRead ?? p.input) + write * (p.cacheWrite ?? p.input) + u.outputTokens * p.output) / 1e6;
}

/** The provider with `usage.cost` on every response (the loop sums it per run like the token counts). */
export function priced(provider: Provider, p: Pricing): Provider {
  // A misspelt rate (cacheReads) would quietly bill cache reads at the input rate.
  checkOptions("pricing", p, "input output cacheRead cacheWrite");
  if (![p.input, p.output, p.cacheRead ?? 0, p.cacheWrite ?? 0].every((v) => typeof v === "number" && v >= 0 && v < Infinity)) {
    throw new InvalidOptionsError("pricing: input, output (and cacheRead, cacheWrite) must be non-negative USD per million tokens");
  }
  return wrap(provider, async (request) => {
    const r = await provider.generate(request);
    return { ...r, usage: { ...r.usage, cost: usageCost(r.usage, p) } };
  });
}
