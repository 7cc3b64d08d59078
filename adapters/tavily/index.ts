// toolloop/tavily: web search as an ordinary tool. Tavily's /search endpoint returns
// snippets already extracted for LLMs; this tool trims them to what a model needs to
// answer and cite (title, url, a snippet, optionally Tavily's own short answer).
//
// It is also the reference for writing a tool that calls an HTTP API: a valibot input
// schema the model fills, fetch through the core's postJSON (bounded retries honouring
// Retry-After, abort via ctx.signal, the key scrubbed from every message), and failures
// thrown as plain Errors with a message the model can act on — the loop turns them into
// a tool result, so a bad key or an outage never crashes the run.
import * as v from "valibot";
import { checkOptions, isRecord, isToolloopError, labelText, type ProviderError } from "../../src/base/index.js";
import { type ErrorDetails, type FetchFn, httpSettings, postJSON, readCommonError, requireApiKey, trimSlash } from "../../src/http/index.js";
import { type Tool, tool } from "../../src/tools/index.js";

export type TavilySearchDepth = "basic" | "advanced" | "fast" | "ultra-fast";
export type TavilyTopic = "general" | "news" | "finance";

export interface TavilySearchOptions {
  apiKey: string;
  /** Default https://api.tavily.com (requests go to {baseURL}/search). */
  baseURL?: string | undefined;
  /** Results per search (1-20). Default 5; the model may ask for fewer or more. */
  maxResults?: number | undefined;
  /** Default "basic" (1 credit); "advanced" costs 2. */
  searchDepth?: TavilySearchDepth | undefined;
  /** Default "general". */
  topic?: TavilyTopic | undefined;
  /** Ask Tavily for its own short LLM answer next to the results. Default true. */
  includeAnswer?: boolean | "basic" | "advanced" | undefined;
  /** Characters kept of each result's snippet. Default 800. */
  maxSnippetLength?: number | undefined;
  /** Retries on 429, 5xx and network errors (Retry-After honoured). Default 2. */
  maxRetries?: number | undefined;
  fetch?: FetchFn | undefined;
  /** Extra headers sent with every request. */
  headers?: Record<string, string> | undefined;
  /** Allow sending the key from a browser straight to api.tavily.com. */
  dangerouslyAllowBrowser?: boolean | undefined;
}

/** What the model gets back (JSON). */
export interface TavilySearchOutput {
  query: string;
  answer?: string;
  results: { title: string; url: string; content: string; score?: number; published_date?: string }[];
}

const DEFAULT_BASE_URL = "https://api.tavily.com";

const input = v.object({
  query: v.pipe(
    v.string(),
    // Tavily takes any non-empty query; a one-letter one ("C", "R") is a real search.
    v.minLength(1),
    v.maxLength(400),
    v.description("What to search the web for: a focused search-engine query, not a whole question with context."),
  ),
  max_results: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(20), v.description("How many results to return (1-20)."))),
  search_depth: v.optional(v.pipe(v.picklist(["basic", "advanced"]), v.description('"advanced" finds more relevant snippets but is slower and costs more.'))),
  topic: v.optional(v.pipe(v.picklist(["general", "news", "finance"]), v.description('"news" for current events, "finance" for markets; default "general".'))),
  time_range: v.optional(v.pipe(v.picklist(["day", "week", "month", "year"]), v.description("Only results published within this period back from today."))),
  include_domains: v.optional(v.pipe(v.array(v.string()), v.maxLength(20), v.description('Only search these domains, e.g. ["docs.python.org"].'))),
});

/** The `tavily_search` tool: searches the web through Tavily's REST API. */
export function tavilySearch(options: TavilySearchOptions): Tool {
  checkOptions(
    "tavilySearch()",
    options,
    "apiKey baseURL maxResults searchDepth topic includeAnswer maxSnippetLength maxRetries fetch headers dangerouslyAllowBrowser",
  );
  const { apiKey } = options;
  // Always needed: the key travels as the Bearer token this tool sets itself.
  requireApiKey({ apiKey }, { factory: "tavilySearch", defaultBaseURL: DEFAULT_BASE_URL, env: ["TAVILY_API_KEY"] });
  const url = `${trimSlash(options.baseURL ?? DEFAULT_BASE_URL)}/search`;
  const snippetLength = options.maxSnippetLength ?? 800;
  // Built once: throws BrowserKeyError now (not at the model's first search) when a key
  // would be sent from a browser page to Tavily itself.
  const http = httpSettings(
    "tavily",
    {
      apiKey,
      model: "search",
      baseURL: options.baseURL,
      fetch: options.fetch,
      maxRetries: options.maxRetries,
      dangerouslyAllowBrowser: options.dangerouslyAllowBrowser,
    },
    DEFAULT_BASE_URL,
    { readError: readTavilyError },
  );

  return tool({
    name: "tavily_search",
    description:
      "Search the web for current information. Returns the most relevant pages (title, url, snippet) " +
      "and often a short answer. Cite the urls of the results you rely on.",
    input,
    async run(args, ctx): Promise<TavilySearchOutput> {
      const body: Record<string, unknown> = {
        query: args.query,
        max_results: args.max_results ?? options.maxResults ?? 5,
        search_depth: args.search_depth ?? options.searchDepth ?? "basic",
        topic: args.topic ?? options.topic ?? "general",
        include_answer: options.includeAnswer ?? true,
      };
      if (args.time_range) body.time_range = args.time_range;
      if (args.include_domains?.length) body.include_domains = args.include_domains;
      let response: unknown;
      try {
        ({ body: response } = await postJSON(http, {
          url,
          headers: { authorization: `Bearer ${apiKey}`, ...options.headers },
          body,
          signal: ctx.signal,
        }));
      } catch (err) {
        throw toToolError(err);
      }
      return compact(response, args.query, snippetLength);
    },
  });
}

/** Tavily's error bodies (FastAPI's): {"detail": "..."} or {"detail": {"error": "..."}}. */
function readTavilyError(body: unknown): ErrorDetails {
  const details = readCommonError(body);
  const detail = isRecord(body) ? body.detail : undefined;
  details.message ??= labelText(detail) ?? (isRecord(detail) ? labelText(detail.error) : undefined);
  return details;
}

/** Tavily's JSON → the compact output. Tolerates missing fields; never passes raw_content on. */
function compact(raw: unknown, query: string, snippetLength: number): TavilySearchOutput {
  const r = (typeof raw === "object" && raw !== null ? raw : {}) as { query?: unknown; answer?: unknown; results?: unknown };
  const out: TavilySearchOutput = { query: typeof r.query === "string" ? r.query : query, results: [] };
  if (typeof r.answer === "string" && r.answer.trim()) out.answer = r.answer.trim();
  for (const item of Array.isArray(r.results) ? r.results : []) {
    const it = (item ?? {}) as Record<string, unknown>;
    if (typeof it.url !== "string" || !it.url) continue;
    const result: TavilySearchOutput["results"][number] = {
      title: typeof it.title === "string" ? it.title.trim() : "",
      url: it.url,
      content: snippet(typeof it.content === "string" ? it.content : "", snippetLength),
    };
    if (typeof it.score === "number" && Number.isFinite(it.score)) result.score = Math.round(it.score * 100) / 100;
    if (typeof it.published_date === "string" && it.published_date) result.published_date = it.published_date;
    out.results.push(result);
  }
  return out;
}

/** Whitespace collapsed, cut at a word boundary near `max` characters. */
function snippet(text: string, max: number): string {
  const s = text.replace(/\s+/g, " ").trim();
  if (s.length <= max) return s;
  const cut = s.slice(0, max);
  const space = cut.lastIndexOf(" ");
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * An HTTP failure as an Error whose message tells the model (and the developer reading the
 * history) what happened. The messages come from http.ts, which already scrubbed the key.
 */
function toToolError(err: unknown): unknown {
  if (isToolloopError(err, "connection_error")) {
    return new Error(`could not reach Tavily: ${err.message.replace(/^tavily: /, "")}`, { cause: err });
  }
  if (!isToolloopError(err, "provider_error")) return err; // abort reasons and the rest pass through
  const e = err as ProviderError;
  const detail = tavilyDetail(e);
  const status = e.status ?? 0;
  let message: string;
  if (status === 401 || status === 403) message = `Tavily rejected the API key (${status}): ${detail}. The search cannot run until the key is fixed.`;
  else if (status === 429) message = `Tavily rate limit (429), still limited after retrying: ${detail}. Try again later.`;
  else if (status === 432 || status === 433) message = `Tavily usage limit reached (${status}): ${detail}.`;
  else if (status >= 500) message = `Tavily server error (${status}), still failing after retrying: ${detail}.`;
  else if (status === 400 || status === 422) message = `Tavily rejected the search (${status}): ${detail}. Fix the arguments and try again.`;
  else message = `Tavily search failed (${status || "no status"}): ${detail}.`;
  return new Error(message, { cause: err });
}

/** The error text without the "tavily <status>: " prefix (readTavilyError reads Tavily's {"detail": ...} bodies). */
function tavilyDetail(e: ProviderError): string {
  const text = e.message.replace(/^tavily(?: \d+)?(?: [^:]+)?: /, "");
  // The messages above end the sentence themselves.
  return text.trim().replace(/\.+$/, "") || "no details";
}
