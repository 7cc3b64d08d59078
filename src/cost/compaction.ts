// createClient({ compaction }): a long run keeps its input under a limit by replacing older
// turns with a summary the same provider writes. Toolloop does its own compaction rather
// than a provider's native one (Anthropic context editing, OpenAI's compaction endpoint):
// it works the same on every provider and through fallback(), and the history stays the
// neutral, portable one a later request (or another provider) can read.
import { abortReason, checkOptions, InvalidOptionsError } from "../base/index.js";
import type { Provider } from "../conversation/index.js";
import { addUsage, emptyUsage, type Message, type Usage } from "../conversation/index.js";
import type { LoopConfig, RunOptions } from "../loop/index.js";
import { wrap } from "./wrap.js";

export interface CompactionOptions {
  /** Compact before a request whose input would pass this many tokens. */
  maxInputTokens: number;
  /** The newest messages kept whole (the cut moves further back to keep a call with its results). Default 4. */
  keepRecent?: number | undefined;
}

const ASK =
  "Summarise the conversation so far for your own later use: the user's requests, what was found (with figures), decisions, and what is left to do. Reply with the summary only.";
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
  checkOptions("compaction()", options, "maxInputTokens keepRecent");
  // Checked here, where the options are written, not at the first long run.
  if (!(options?.maxInputTokens > 0) || !Number.isInteger(options.keepRecent ?? 4) || (options.keepRecent ?? 4) < 0) {
    throw new InvalidOptionsError("compaction: maxInputTokens must be > 0 and keepRecent a whole number >= 0");
  }
  return { options, attach: (inner) => compactor(options, inner) };
}

// Before any request has reported its input tokens (a client created with a saved history), the
// input is estimated from the request's size: a token per 4 characters of its JSON (the usual
// rule for English text; the JSON's quotes, keys and escapes add a margin), a token per character
// outside ASCII (CJK text is about one a character), and media by what providers bill for them,
// not by their base64: an image is billed by its pixels, at most about 1,600 tokens on Claude
// (width x height / 750 after downscaling to ~1.15 MP), 765-1,105 at high detail on GPT-4o, 258 a
// tile on Gemini, so it counts as 1,600 tokens; a file (a PDF: Claude bills 1,500-3,000 tokens a
// page) as its decoded size at the same rule, at least as much as an image.
const CHARS_PER_TOKEN = 4;
const MEDIA_CHARS = 1600 * CHARS_PER_TOKEN;

/** A value's size in characters as the estimate counts them (see above). */
function charsOf(value: unknown): number {
  let media = 0;
  const json =
    JSON.stringify(value, function (this: Record<string, unknown>, key, v: unknown) {
      if ((this.type !== "image" && this.type !== "file") || (key !== "data" && key !== "url") || typeof v !== "string") return v;
      if (key === "url" && typeof this.data === "string") return v; // counted with its data
      media += this.type === "file" && key === "data" ? Math.max(MEDIA_CHARS, (v.length * 3) / 4) : MEDIA_CHARS;
      return key === "data" ? "" : v;
    }) ?? "";
  return json.length + 3 * (json.length - json.replace(/[^\x00-\x7f]/g, "").length) + media;
}

/** A request as compact() measured it: its size in characters and its first message. */
interface Sent {
  size: number;
  head: Message | undefined;
}

/** A request that reported its input tokens. */
interface Seen extends Sent {
  input: number;
}

function compactor(options: CompactionOptions, inner: Provider): Compactor {
  const max = options.maxInputTokens;
  const keep = options.keepRecent ?? 4;
  // The next request's input is estimated from the last request that reported its tokens and,
  // for the rate of what was added since, the one before it. What compact() measured for the
  // request about to go counts only once that request answers: a failed request says nothing.
  let last: Seen | undefined;
  let before: Seen | undefined; // only while `last` carried its history and more
  let sending: Sent | undefined;
  const seen = (s: Sent, input: number) => {
    // A provider that reports no usage gives nothing to go on: the size rule stays in use.
    if (!(input > 0)) return;
    before = last && last.head === s.head && s.size > last.size ? last : undefined;
    last = { ...s, input };
  };
  // Each message's size, measured once: the estimate then costs an addition per message.
  const measured = new WeakMap<Message, number>();
  const measure = (m: Message) => {
    let n = measured.get(m);
    if (n === undefined) measured.set(m, (n = charsOf(m) + 1));
    return n;
  };
  // The system prompt and tool specs go with every request (and the summary call) too.
  let specs: unknown;
  let specsSize = 0;
  const overheadOf = (cfg: LoopConfig) => {
    if (specs !== cfg.registry.specs) specsSize = charsOf((specs = cfg.registry.specs));
    return specsSize + (cfg.system === undefined ? 0 : charsOf(cfg.system));
  };
  return {
    provider: wrap(inner, async (request) => {
      const s = sending;
      sending = undefined;
      const r = await inner.generate(request);
      if (s) seen(s, r.usage.inputTokens);
      return r;
    }),
    async compact(history, cfg, opts) {
      const overhead = overheadOf(cfg);
      const sizeOf = () => history.reduce((a, m) => a + measure(m), overhead);
      let size = sizeOf();
      let usage = emptyUsage();
      for (;;) {
        // Tokens per character: on average over the last request (or by the size rule before any),
        // or, while the history still extends the last request's, of what the last step added if
        // that was more (a tool result can cost more per character on the wire than the history
        // around it), applied to what was added since. A history that does not extend it (one
        // compacted since, or cut back) is estimated whole, at the average.
        const average = last ? last.input / last.size : 1 / CHARS_PER_TOKEN;
        const extending = last && last.head === history[0] && size >= last.size;
        const rate = extending && before ? Math.max(average, (last!.input - before.input) / (last!.size - before.size)) : average;
        if ((extending ? last!.input + rate * (size - last!.size) : average * size) <= max) break;
        // The kept part starts at an assistant message, so a call and its results stay together
        // and the summary (a user turn) is followed by the model's turn; the older part is cut
        // short enough that the summary request itself stays under the limit.
        const lengths = history.map(measure);
        let cut = history.length - keep;
        let older = lengths.slice(0, Math.max(cut, 0)).reduce((a, b) => a + b, 0);
        let first = 0; // the newest possible cut, used when no cut gets the summary request under the limit
        while (cut > 0 && (history[cut]?.role !== "assistant" || rate * (overhead + older + ASK.length) > max)) {
          if (!first && history[cut]?.role === "assistant") first = cut;
          older -= lengths[--cut]!;
        }
        if (cut < 2) older = lengths.slice(0, (cut = first)).reduce((a, b) => a + b, 0);
        if (cut < 2) break;
        const r = await inner
          .generate({
            // Same system and tools as the run (Claude refuses tool_use blocks without tools; the
            // cached prefix is reused), tools off.
            ...(cfg.system === undefined ? {} : { system: cfg.system }),
            messages: [...history.slice(0, cut), { role: "user", content: ASK }],
            tools: cfg.registry.specs,
            webSearch: cfg.registry.webSearch,
            toolChoice: "none",
            purpose: "summary",
            ...(opts.signal ? { signal: opts.signal } : {}),
          })
          .catch((err: unknown) => {
            // As for a step's call: an abort rejects with the signal's reason, whatever the adapter threw.
            throw opts.signal?.aborted ? abortReason(opts.signal) : err;
          });
        // The summary call is a request of known size too: what the next estimate goes on if the
        // step after it fails.
        seen({ size: overhead + older + ASK.length + 1, head: history[0] }, r.usage.inputTokens);
        history.splice(0, cut, { role: "user", content: SUMMARY_HEADER + r.text });
        size = sizeOf();
        usage = addUsage(usage, r.usage);
        opts.onEvent?.({ type: "compaction", removed: cut, summaryTokens: r.usage.outputTokens });
        // Again while still over: a saved history many times the limit is summarised a part at a
        // time (each pass leaves fewer messages, so this ends).
      }
      sending = { size, head: history[0] };
      return usage;
    },
  };
}
