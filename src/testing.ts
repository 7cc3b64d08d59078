// toolloop/testing: a scripted provider for tests. It answers from a list of turns and
// records every request it received, so a test can assert what the loop sent.

import { abortReason, checkOptions, InvalidOptionsError, ProviderError } from "./base/index.js";
import type { ModelRequest, ModelResponse, Provider, ToolCall, Usage } from "./conversation/index.js";
import { sleep } from "./http/index.js";

/** A scripted tool call; `arguments` is the raw string the "model" sends (objects are JSON-encoded). */
export interface ScriptedCall {
  name: string;
  arguments?: string | Record<string, unknown>;
  id?: string;
}

/** One model turn: final text, tool calls (optionally with text), an error to throw, or a function of the request. */
export type ScriptedTurn =
  | string
  | { text?: string; toolCalls?: ScriptedCall[]; usage?: Partial<Usage>; delayMs?: number }
  | { error: unknown }
  | ((request: RecordedRequest, index: number) => ScriptedTurn | Promise<ScriptedTurn>);

/** A deep copy of what the loop sent (the signal and callback dropped). */
export type RecordedRequest = Omit<ModelRequest, "signal" | "onDelta"> & { streamed: boolean };

export interface ScriptedProvider extends Provider {
  readonly requests: RecordedRequest[];
  /** Turns not used yet. */
  readonly remaining: number;
}

export interface ScriptedOptions {
  name?: string | undefined;
  /** What to do when the script runs out: throw (default) or repeat the last turn. */
  onExhausted?: "throw" | "repeat-last" | undefined;
}

export function scriptedProvider(turns: readonly ScriptedTurn[], options: ScriptedOptions = {}): ScriptedProvider {
  if (!Array.isArray(turns as unknown)) throw new InvalidOptionsError('scriptedProvider() takes an array of turns, e.g. scriptedProvider(["Hello!"])');
  checkOptions("scriptedProvider()", options, "name onExhausted");
  if (options.onExhausted !== undefined && options.onExhausted !== "throw" && options.onExhausted !== "repeat-last") {
    throw new InvalidOptionsError(`scriptedProvider(): onExhausted must be "throw" or "repeat-last", got ${JSON.stringify(options.onExhausted)}`);
  }
  const requests: RecordedRequest[] = [];
  let next = 0;
  let idSeq = 0;
  const provider: ScriptedProvider = {
    name: options.name ?? "scripted",
    model: "scripted",
    get requests() {
      return requests;
    },
    get remaining() {
      return Math.max(0, turns.length - next);
    },
    async generate(request) {
      const { signal, onDelta, ...rest } = request;
      const recorded: RecordedRequest = { ...structuredClone(rest), streamed: !!onDelta };
      requests.push(recorded);
      if (signal?.aborted) throw abortReason(signal);
      let index = next;
      if (index >= turns.length) {
        if (options.onExhausted !== "repeat-last" || turns.length === 0) {
          // A ProviderError, as any provider that cannot answer throws: a typed error a test can
          // match by code; not retryable, and its type names no overload, so fallback() does not
          // move it on (a script too short is the test's mistake, not an outage).
          throw new ProviderError({
            provider: provider.name,
            type: "no_turn_left",
            message: `no turn left for request ${index + 1} (the script has ${turns.length}; onExhausted: "repeat-last" repeats the last)`,
          });
        }
        index = turns.length - 1;
      } else next++;
      let turn = turns[index]!;
      while (typeof turn === "function") turn = await turn(recorded, index);
      if (typeof turn === "object" && "error" in turn) throw turn.error;
      const t = typeof turn === "string" ? { text: turn } : turn;
      if (t.delayMs) await sleep(t.delayMs, signal);
      const toolCalls: ToolCall[] = (t.toolCalls ?? []).map((c) => ({
        id: c.id ?? `call_${++idSeq}`,
        name: c.name,
        arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments ?? {}),
      }));
      const text = t.text ?? "";
      if (onDelta) {
        // Stream in small pieces so consumers see real deltas.
        for (let i = 0; i < text.length; i += 8) {
          if (signal?.aborted) throw abortReason(signal);
          onDelta({ type: "text-delta", text: text.slice(i, i + 8) });
          await Promise.resolve();
        }
        for (const c of toolCalls) {
          for (let i = 0; i < c.arguments.length; i += 8) {
            onDelta({ type: "tool-call-delta", callId: c.id, name: c.name, argsDelta: c.arguments.slice(i, i + 8) });
          }
        }
      }
      if (signal?.aborted) throw abortReason(signal);
      const response: ModelResponse = {
        text,
        toolCalls,
        finishReason: toolCalls.length ? "tool-calls" : "stop",
        // The scripted usage as given (cache, reasoning, web searches too), over the default counts.
        usage: { inputTokens: 10, outputTokens: 5, ...t.usage },
      };
      return response;
    },
  };
  return provider;
}
