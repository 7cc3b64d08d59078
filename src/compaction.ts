// createClient({ compaction }): a long run keeps its input under a limit by replacing older
// turns with a summary the same provider writes. Toolloop does its own compaction rather
// than a provider's native one (Anthropic context editing, OpenAI's compaction endpoint):
// it works the same on every provider and through fallback(), and the history stays the
// neutral, portable one a later request (or another provider) can read.
import { abortReason, InvalidOptionsError } from "./errors.js";
import { emptyUsage, type Message, type Usage } from "./messages.js";
import type { LoopConfig, RunOptions } from "./loop.js";
import type { Provider } from "./provider.js";
import { wrap } from "./wrap.js";

export interface CompactionOptions {
  /** Compact before a request whose input would pass this many tokens. */
  maxInputTokens: number;
  /** The newest messages kept whole (the cut moves further back to keep a call with its results). Default 4. */
  keepRecent?: number | undefined;
}

const ASK = "Summarise the conversation so far for your own later use: the user's requests, what was found (with figures), decisions, and what is left to do. Reply with the summary only.";
export const SUMMARY_HEADER = "Summary of the earlier conversation:\n";

export interface Compactor {
  /** The provider the loop calls: `inner`, noting each request's input tokens. */
  provider: Provider;
  /** Before each request: compacts `history` in place when needed; resolves the summary call's usage. */
  compact(history: Message[], cfg: LoopConfig, opts: RunOptions): Promise<Usage>;
}

/**
 * The `compaction` option's value: `createClient({ compaction: compaction({ maxInputTokens }) })`.
 * Built by this helper (not plain data) so that a client which never compacts ships none of it.
 */
export interface Compaction {
  readonly options: CompactionOptions;
  /** Called once by createClient with the provider it wraps. */
  attach(inner: Provider): Compactor;
}

export function compaction(options: CompactionOptions): Compaction {
  // Checked here, where the options are written, not at the first long run.
  if (!(options?.maxInputTokens > 0) || !Number.isInteger(options.keepRecent ?? 4) || (options.keepRecent ?? 4) < 0) {
    throw new InvalidOptionsError("compaction: maxInputTokens must be > 0 and keepRecent a whole number >= 0");
  }
  return { options, attach: (inner) => compactor(options, inner) };
}

function compactor(options: CompactionOptions, inner: Provider): Compactor {
  const max = options.maxInputTokens;
  const keep = options.keepRecent ?? 4;
  // Tokens of the last two requests and the sizes of the histories they carried: the next
  // request's input is estimated from them, so compaction happens before a request passes the limit.
  let lastInput = 0;
  let sentSize = 0;
  let prevInput = 0;
  let prevSize = 0;
  // Each message's JSON length, measured once: the estimate then costs an addition per message.
  const measured = new WeakMap<Message, number>();
  const measure = (m: Message) => {
    let n = measured.get(m);
    if (n === undefined) measured.set(m, (n = JSON.stringify(m).length + 1));
    return n;
  };
  const sizeOf = (h: Message[]) => h.reduce((a, m) => a + measure(m), 0);
  return {
    provider: wrap(inner, async (request) => {
      const r = await inner.generate(request);
      lastInput = r.usage.inputTokens;
      return r;
    }),
    async compact(history, cfg, opts) {
      let size = sizeOf(history);
      // Tokens per character of history: on average, or of what the last step added if that was
      // more (a tool result can cost more per character on the wire than the history around it).
      const rate = Math.max(sentSize ? lastInput / sentSize : 0, sentSize > prevSize ? (lastInput - prevInput) / (sentSize - prevSize) : 0);
      let usage = emptyUsage();
      if (lastInput + rate * (size - sentSize) > max) {
        // The kept part starts at an assistant message, so a call and its results stay together
        // and the summary (a user turn) is followed by the model's turn; the older part is cut
        // short enough that the summary request itself stays under the limit.
        const lengths = history.map(measure);
        let cut = history.length - keep;
        let older = lengths.slice(0, Math.max(cut, 0)).reduce((a, b) => a + b, 0);
        let first = 0; // the newest possible cut, used when no cut gets the summary request under the limit
        while (cut > 0 && (history[cut]?.role !== "assistant" || rate * (older + ASK.length) > max)) {
          if (!first && history[cut]?.role === "assistant") first = cut;
          older -= lengths[--cut]!;
        }
        if (cut < 2) cut = first;
        if (cut > 1) {
          const r = await inner.generate({
            // Same system and tools as the run (Claude refuses tool_use blocks without tools; the
            // cached prefix is reused), tools off.
            ...(cfg.system === undefined ? {} : { system: cfg.system }),
            messages: [...history.slice(0, cut), { role: "user", content: ASK }],
            tools: cfg.registry.specs,
            webSearch: cfg.registry.webSearch,
            toolChoice: "none",
            ...(opts.signal ? { signal: opts.signal } : {}),
          }).catch((err: unknown) => {
            // As for a step's call: an abort rejects with the signal's reason, whatever the adapter threw.
            throw opts.signal?.aborted ? abortReason(opts.signal) : err;
          });
          history.splice(0, cut, { role: "user", content: SUMMARY_HEADER + r.text });
          size = sizeOf(history);
          usage = r.usage;
          opts.onEvent?.({ type: "compaction", removed: cut, summaryTokens: r.usage.outputTokens });
        }
      }
      prevInput = lastInput;
      prevSize = sentSize;
      sentSize = size;
      return usage;
    },
  };
}
