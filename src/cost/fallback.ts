// fallback([primary, ...others]): a Provider that hands the same request to the next provider
// when one is overloaded or unreachable. Only failures that happened before anything reached
// the caller move on: once a stream delivered a delta the caller has seen part of an answer,
// so the error is the caller's. A failed request produced no tool calls, so no tool runs twice.
import { InvalidOptionsError, isToolloopError } from "../base/index.js";
import type { Message, ModelRequest, Provider, ToolSpec } from "../conversation/index.js";

/**
 * Whether another provider should take a request that failed this way (after the failing
 * provider's own retries, and before anything reached the caller): a refused or reset
 * connection, a stream that broke or went silent (idleTimeout, or a StallError with no content
 * yet: stallTimeout.first) before its first delta, or a
 * ProviderError that is retryable, has a status that says "this provider cannot take it now"
 * (408, 429 — rate limit or quota, any 5xx: Anthropic's 529, Cloudflare's 52x, 501 too) or an
 * overload type ("overloaded_error", "UNAVAILABLE", "RESOURCE_EXHAUSTED"). Other 4xx say the
 * request or the key is wrong; they are the caller's to fix, and are not moved.
 */
export function shouldFallBack(err: unknown): boolean {
  if (isToolloopError(err, "connection_error") || isToolloopError(err, "stream_error") || isToolloopError(err, "idle_timeout")) return true;
  // After content the caller has seen part of this answer: never a silent switch mid-answer.
  if (isToolloopError(err, "stall")) return !err.afterContent;
  if (!isToolloopError(err, "provider_error")) return false;
  const { status = 0, type, retryable } = err as { status?: number; type?: string; retryable?: boolean };
  return retryable === true || status === 408 || status === 429 || status >= 500 || /overload|unavailable|exhausted/i.test(type ?? "");
}

/**
 * `name` lists the providers ("fallback(claude,openai)"), `model` is the primary's; tools (and
 * native web search) are supported only if every provider supports them, and checkTools asks
 * every provider, since any of them may be the one that gets the request. The answering provider is named in
 * `ModelResponse.provider` (and so in the step-finish event).
 */
export function fallback(providers: readonly Provider[]): Provider {
  if (!Array.isArray(providers) || providers.length === 0 || providers.some((p) => typeof p?.generate !== "function")) {
    throw new InvalidOptionsError("fallback() takes a non-empty array of providers");
  }
  const list = [...providers];
  const p: Provider = {
    name: `fallback(${list.map((x) => x.name).join(",")})`,
    supportsTools: list.every((x) => x.supportsTools !== false),
    supportsWebSearch: list.every((x) => x.supportsWebSearch !== false),
    checkTools(tools: readonly ToolSpec[]) {
      for (const x of list) x.checkTools?.(tools);
    },
    async generate(request) {
      for (let i = 0; ; i++) {
        const provider = list[i]!;
        let delivered = false;
        const attempt: ModelRequest = { ...request, messages: forProvider(request.messages, provider.name) };
        const onDelta = request.onDelta;
        if (onDelta) {
          attempt.onDelta = (d) => {
            delivered = true;
            onDelta(d);
          };
        }
        try {
          const r = await provider.generate(attempt);
          return r.provider ? r : { ...r, provider: provider.name };
        } catch (err) {
          if (delivered || request.signal?.aborted || i === list.length - 1 || !shouldFallBack(err)) throw err;
        }
      }
    },
  };
  if (list[0]!.model !== undefined) (p as { model?: string }).model = list[0]!.model;
  return p;
}

/** The history without other providers' providerData (thinking signatures, reasoning items). */
function forProvider(messages: readonly Message[], name: string): readonly Message[] {
  if (!messages.some((m) => m.role === "assistant" && m.providerData && m.providerData.provider !== name)) return messages;
  return messages.map((m) => {
    if (m.role !== "assistant" || !m.providerData || m.providerData.provider === name) return m;
    const { providerData: _, ...rest } = m;
    return rest;
  });
}
