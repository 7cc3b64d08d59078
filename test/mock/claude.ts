// A local stand-in for the Anthropic Messages API (POST /v1/messages) that speaks the real
// wire format: JSON or SSE responses with real shapes (msg_/toolu_ ids, usage, stop_reason),
// real error bodies and statuses, and the request validation the real API does that an
// adapter can get wrong (tool_use/tool_result pairing, empty text, tool names, thinking
// signatures). Tests drive it with a script of turns, or enqueue raw responses to inject
// faults (429/529 with retry-after, error events mid-stream, cut streams).
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface MockToolCall {
  id?: string;
  name: string;
  input: unknown;
}

/** One scripted model turn. */
export interface MockTurn {
  text?: string;
  toolCalls?: MockToolCall[];
  thinking?: string;
  /** Overrides the stop_reason (default: tool_use with calls, else end_turn). */
  stopReason?: string;
  /** Raw content blocks appended after the ones above (server tool blocks, citations...). */
  blocks?: Record<string, unknown>[];
}

export type RawResponse =
  | { status: number; headers?: Record<string, string>; body?: string }
  | {
      /** Raw chunks written one by one (bytes may split a UTF-8 character). */
      sse: (string | Uint8Array)[];
      /** Destroy the connection after the chunks instead of ending the response. */
      cutAfter?: boolean;
      /** Keep the response open after the chunks (until the client goes away or close()). */
      hold?: boolean;
      /** ms to wait before each chunk (a stream that trickles: pings, slow deltas). */
      delayMs?: number;
      /** Called when this response's connection closes (the client went away, or the response ended). */
      onClose?: () => void;
      headers?: Record<string, string>;
    };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  // `any` on purpose: tests poke into request bodies freely.
  body: any;
}

export interface ClaudeMock {
  /** Base URL including /v1, as claude({ baseURL }) takes it. */
  url: string;
  requests: RecordedRequest[];
  enqueue(raw: RawResponse): void;
  /** The mock's prompt cache: what it holds, and the token totals over every scripted request. */
  cache: PromptCache;
  close(): Promise<void>;
}

export interface ClaudeMockOptions {
  /** When set, x-api-key must equal it (else 401 authentication_error). */
  apiKey?: string;
  /** Answer CORS preflights and add Access-Control-Allow-* headers. */
  cors?: boolean;
  script?: MockTurn[] | ((body: unknown, index: number) => MockTurn);
  /**
   * The smallest prefix (in the mock's estimated tokens) a breakpoint caches, as the real API
   * has one per model (1,024 for Sonnet, more for others); shorter prefixes are not cached,
   * silently. Default 1024.
   */
  cacheMinTokens?: number;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const SIGNATURE_PREFIX = "mocksig_";

export async function startClaudeMock(options: ClaudeMockOptions = {}): Promise<ClaudeMock> {
  const requests: RecordedRequest[] = [];
  const queue: RawResponse[] = [];
  const sockets = new Set<Socket>();
  let scriptIndex = 0;
  const cache = createPromptCache({ minTokens: options.cacheMinTokens ?? 1024 });

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendError(res, 500, "api_error", `mock failure: ${String(err)}`);
      else res.destroy();
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", "http://mock").pathname;
    if (options.cors) {
      res.setHeader("access-control-allow-origin", req.headers.origin ?? "*");
      res.setHeader("access-control-expose-headers", "request-id, retry-after, retry-after-ms, x-should-retry");
      res.setHeader("vary", "Origin");
    }
    if (req.method === "OPTIONS" && options.cors) {
      res.writeHead(204, {
        "access-control-allow-methods": "POST, OPTIONS",
        "access-control-allow-headers":
          req.headers["access-control-request-headers"] ??
          "x-api-key, anthropic-version, anthropic-beta, anthropic-dangerous-direct-browser-access, content-type",
        "access-control-max-age": "600",
      });
      res.end();
      return;
    }
    const text = await readBody(req);
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // recorded as the raw text; answered below
    }
    requests.push({ method: req.method ?? "", path, headers: flatHeaders(req), body: parsed });

    const raw = queue.shift();
    if (raw) return sendRaw(res, raw);

    if (path !== "/v1/messages") return sendError(res, 404, "not_found_error", "Not Found");
    if (req.method !== "POST") return sendError(res, 405, "invalid_request_error", `Method ${req.method} not allowed`);
    if (options.apiKey !== undefined) {
      const key = req.headers["x-api-key"];
      if (key === undefined) return sendError(res, 401, "authentication_error", "x-api-key header is required");
      if (key !== options.apiKey) return sendError(res, 401, "authentication_error", "invalid x-api-key");
    }
    if (!req.headers["anthropic-version"]) return sendError(res, 400, "invalid_request_error", "anthropic-version: header is required");
    if (typeof parsed !== "object" || parsed === null) {
      return sendError(res, 400, "invalid_request_error", "There was an issue with your request body: it is not valid JSON");
    }
    const problem = validateRequest(parsed as Record<string, unknown>);
    if (problem) return sendError(res, 400, "invalid_request_error", problem);

    const body = parsed as Record<string, unknown>;
    const index = scriptIndex++;
    const script = options.script;
    const turn = typeof script === "function" ? script(body, index) : script?.[index];
    if (!turn) {
      // 500 with x-should-retry: false, so a test that ran out of script fails at once.
      return sendError(res, 500, "api_error", `mock: no scripted turn for request ${index + 1}`, { "x-should-retry": "false" });
    }
    const message = buildMessage(turn, body, cache.usage(body));
    if (body.stream === true) {
      res.writeHead(200, sseHeaders());
      for (const event of messageEvents(message)) {
        res.write(event);
        await tick();
      }
      res.end();
      return;
    }
    res.writeHead(200, { "content-type": "application/json", "request-id": requestId() });
    res.end(JSON.stringify(message));
  }

  async function sendRaw(res: ServerResponse, raw: RawResponse): Promise<void> {
    if ("status" in raw) {
      const body = raw.body ?? "";
      const type = body.trimStart().startsWith("{") ? "application/json" : "text/plain";
      // No request-id unless the test gives one: fault tests choose what the client sees.
      res.writeHead(raw.status, { "content-type": type, ...raw.headers });
      res.end(body);
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", ...raw.headers });
    res.flushHeaders();
    if (raw.onClose) res.on("close", raw.onClose);
    for (const chunk of raw.sse) {
      if (raw.delayMs) await new Promise((r) => setTimeout(r, raw.delayMs));
      if (res.destroyed) return;
      res.write(chunk);
      await tick();
    }
    if (raw.cutAfter) {
      await tick();
      res.socket?.destroy();
    } else if (!raw.hold) res.end();
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (raw) => void queue.push(raw),
    cache,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------
// Responses

/** The signature the mock gives a thinking block; a replay must carry it unchanged. */
export function mockSignature(thinking: string): string {
  return SIGNATURE_PREFIX + createHash("sha256").update(thinking).digest("base64url");
}

function buildMessage(turn: MockTurn, body: Record<string, unknown>, prompt: CacheUsage): Record<string, unknown> {
  const content: Record<string, unknown>[] = [];
  if (turn.thinking !== undefined) content.push({ type: "thinking", thinking: turn.thinking, signature: mockSignature(turn.thinking) });
  if (turn.text !== undefined && turn.text !== "") content.push({ type: "text", text: turn.text });
  for (const c of turn.toolCalls ?? []) content.push({ type: "tool_use", id: c.id ?? newId("toolu_"), name: c.name, input: c.input });
  for (const b of turn.blocks ?? []) content.push(structuredClone(b));
  const stop = turn.stopReason ?? (turn.toolCalls?.length ? "tool_use" : "end_turn");
  const searches = content.filter((b) => b.type === "server_tool_use" && b.name === "web_search").length;
  return {
    id: newId("msg_"),
    type: "message",
    role: "assistant",
    model: body.model,
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: {
      ...prompt,
      output_tokens: Math.max(1, Math.ceil(JSON.stringify(content).length / 4)),
      ...(searches ? { server_tool_use: { web_search_requests: searches } } : {}),
      service_tier: "standard",
    },
  };
}

/** The message as the SSE events the API sends for it, each a complete `event:/data:` frame. */
export function messageEvents(message: Record<string, unknown>): string[] {
  const frame = (data: Record<string, unknown>) => `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;
  const usage = message.usage as Record<string, unknown>;
  const content = message.content as Record<string, unknown>[];
  const events: string[] = [
    frame({
      type: "message_start",
      message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
    }),
    `event: ping\ndata: {"type": "ping"}\n\n`,
  ];
  content.forEach((block, index) => {
    const delta = (d: Record<string, unknown>) => events.push(frame({ type: "content_block_delta", index, delta: d }));
    switch (block.type) {
      case "text": {
        // Cited text opens with an empty citations list that citations_delta events fill.
        const citations = Array.isArray(block.citations) ? (block.citations as unknown[]) : undefined;
        const start = citations ? { citations: [], type: "text", text: "" } : { type: "text", text: "" };
        events.push(frame({ type: "content_block_start", index, content_block: start }));
        for (const citation of citations ?? []) delta({ type: "citations_delta", citation });
        for (const part of pieces(String(block.text), 7)) delta({ type: "text_delta", text: part });
        break;
      }
      case "thinking":
        events.push(frame({ type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } }));
        for (const part of pieces(String(block.thinking), 9)) delta({ type: "thinking_delta", thinking: part });
        delta({ type: "signature_delta", signature: block.signature });
        break;
      case "tool_use":
      case "server_tool_use":
        events.push(frame({ type: "content_block_start", index, content_block: { ...block, input: {} } }));
        delta({ type: "input_json_delta", partial_json: "" });
        for (const part of pieces(JSON.stringify(block.input), 10)) delta({ type: "input_json_delta", partial_json: part });
        break;
      default:
        events.push(frame({ type: "content_block_start", index, content_block: block }));
    }
    events.push(frame({ type: "content_block_stop", index }));
  });
  events.push(
    frame({
      type: "message_delta",
      delta: { stop_reason: message.stop_reason, stop_sequence: null },
      usage: {
        input_tokens: usage.input_tokens,
        cache_creation_input_tokens: usage.cache_creation_input_tokens,
        cache_read_input_tokens: usage.cache_read_input_tokens,
        output_tokens: usage.output_tokens,
        ...(usage.server_tool_use ? { server_tool_use: usage.server_tool_use } : {}),
      },
    }),
    frame({ type: "message_stop" }),
  );
  return events;
}

function pieces(s: string, size: number): string[] {
  const out: string[] = [];
  const chars = Array.from(s); // never split a surrogate pair
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out;
}

/** The API's error body. */
export function errorBody(type: string, message: string, request_id = requestId()): string {
  return JSON.stringify({ type: "error", error: { type, message }, request_id });
}

function sendError(res: ServerResponse, status: number, type: string, message: string, headers: Record<string, string> = {}): void {
  const id = requestId();
  res.writeHead(status, { "content-type": "application/json", "request-id": id, ...headers });
  res.end(errorBody(type, message, id));
}

function sseHeaders(): Record<string, string> {
  return { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "request-id": requestId() };
}

function requestId(): string {
  return newId("req_");
}

function newId(prefix: string): string {
  return prefix + "01" + randomBytes(16).toString("base64url").replace(/[-_]/g, "x").slice(0, 22);
}

function tick(): Promise<void> {
  return new Promise((r) => setImmediate(r));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

// ---------------------------------------------------------------------------------------
// Prompt caching, as the API does it: the prompt is the sequence tools → system → message
// blocks; a block with cache_control is a breakpoint, and the prefix up to it is written to
// the cache (when it is long enough). A later request reads the longest cached prefix it
// finds at a breakpoint or up to 20 blocks before one; what follows is written up to the
// last breakpoint, and the rest is plain input. cache_control itself is not part of the
// prefix (a rolling breakpoint moves without breaking the cache). Tokens are estimated as
// JSON characters / 4. No expiry: tests and benchmarks have no clock.

export interface CacheUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

export interface PromptCache {
  /** Reads and writes the cache for one request body, as the API would bill it. */
  usage(body: Record<string, unknown>): CacheUsage;
  /** Sums over every request so far: the share served from cache is cacheRead / (input + cacheWrite + cacheRead). */
  readonly totals: { input: number; cacheWrite: number; cacheRead: number; requests: number };
  /** How many prefixes are cached. */
  readonly size: number;
}

const LOOKBACK = 20;

export function createPromptCache(options: { minTokens?: number } = {}): PromptCache {
  const minTokens = options.minTokens ?? 1024;
  const entries = new Set<string>();
  const totals = { input: 0, cacheWrite: 0, cacheRead: 0, requests: 0 };
  return {
    totals,
    get size() {
      return entries.size;
    },
    usage(body) {
      const units = promptUnits(body);
      // cumulative tokens and prefix hashes
      const upTo: number[] = [];
      const hashes: string[] = [];
      let tokens = 0;
      let hash = createHash("sha256").update(String(body.model)).digest("base64url");
      for (const u of units) {
        tokens += u.tokens;
        hash = createHash("sha256").update(hash).update(u.text).digest("base64url");
        upTo.push(tokens);
        hashes.push(hash);
      }
      const breakpoints = units.flatMap((u, i) => (u.ttl ? [i] : []));
      let readEnd = -1;
      for (const b of breakpoints) {
        for (let j = b; j >= 0 && j > b - LOOKBACK; j--) {
          if (entries.has(hashes[j]!)) {
            readEnd = Math.max(readEnd, j);
            break;
          }
        }
      }
      const read = readEnd >= 0 ? upTo[readEnd]! : 0;
      let covered = read;
      const created = { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 };
      for (const b of breakpoints) {
        if (upTo[b]! < minTokens || b <= readEnd) continue;
        entries.add(hashes[b]!);
        const part = upTo[b]! - covered;
        covered = upTo[b]!;
        if (units[b]!.ttl === "1h") created.ephemeral_1h_input_tokens += part;
        else created.ephemeral_5m_input_tokens += part;
      }
      const write = covered - read;
      const input = Math.max(1, tokens - covered);
      totals.input += input;
      totals.cacheWrite += write;
      totals.cacheRead += read;
      totals.requests++;
      return { input_tokens: input, cache_creation_input_tokens: write, cache_read_input_tokens: read, cache_creation: created };
    },
  };
}

/** The prompt as cacheable units in the API's order, each with its breakpoint TTL if marked. */
function promptUnits(body: Record<string, unknown>): { text: string; tokens: number; ttl: string | undefined }[] {
  const units: { text: string; tokens: number; ttl: string | undefined }[] = [];
  const add = (where: string, block: unknown) => {
    let ttl: string | undefined;
    let value = block;
    if (isObj(block) && isObj(block.cache_control)) {
      const { cache_control, ...rest } = block;
      ttl = cache_control.ttl === "1h" ? "1h" : "5m";
      value = rest;
    }
    const text = `${where}:${JSON.stringify(value)}`;
    units.push({ text, tokens: Math.max(1, Math.ceil(text.length / 4)), ttl });
  };
  for (const t of Array.isArray(body.tools) ? body.tools : []) add("tool", t);
  if (typeof body.system === "string") add("system", { type: "text", text: body.system });
  else if (Array.isArray(body.system)) for (const b of body.system) add("system", b);
  for (const m of Array.isArray(body.messages) ? body.messages : []) {
    if (!isObj(m)) continue;
    const role = String(m.role);
    if (typeof m.content === "string") add(role, { type: "text", text: m.content });
    else if (Array.isArray(m.content)) for (const b of m.content) add(role, b);
  }
  return units;
}

// ---------------------------------------------------------------------------------------
// Request validation (the checks the real API makes that adapters can get wrong)

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** The first problem the real API would report (its message text), or undefined. */
export function validateRequest(body: Obj): string | undefined {
  if (typeof body.model !== "string" || body.model === "") return "model: Field required";
  if (body.max_tokens === undefined) return "max_tokens: Field required";
  if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1) return "max_tokens: Input should be greater than or equal to 1";
  if (body.messages === undefined) return "messages: Field required";
  if (!Array.isArray(body.messages)) return "messages: Input should be a valid list";
  if (body.messages.length === 0) return "messages: List should have at least 1 item after validation, not 0";

  const tools = Array.isArray(body.tools) ? (body.tools as unknown[]) : [];
  const toolProblem = validateTools(body.tools);
  if (toolProblem) return toolProblem;
  if (body.system !== undefined && typeof body.system !== "string") {
    if (!Array.isArray(body.system)) return "system: Input should be a valid string or list";
    for (let i = 0; i < body.system.length; i++) {
      const b = body.system[i] as unknown;
      if (!isObj(b) || b.type !== "text" || typeof b.text !== "string") return `system.${i}: Input should be a valid text block`;
      if (b.text.trim() === "") return "system: text content blocks must be non-empty";
    }
  }
  const cacheProblem = validateCacheControl(body);
  if (cacheProblem) return cacheProblem;

  // Message shapes, then the API's own merge of consecutive same-role turns.
  const merged: { role: string; first: number; blocks: { block: Obj; at: string }[] }[] = [];
  for (let i = 0; i < body.messages.length; i++) {
    const m = body.messages[i] as unknown;
    if (!isObj(m)) return `messages.${i}: Input should be a valid dictionary`;
    if (m.role !== "user" && m.role !== "assistant") return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    const last = i === body.messages.length - 1;
    let blocks: Obj[];
    if (typeof m.content === "string") blocks = m.content === "" ? [] : [{ type: "text", text: m.content }];
    else if (Array.isArray(m.content)) blocks = m.content as Obj[];
    else return `messages.${i}.content: Field required`;
    if (blocks.length === 0 && !(last && m.role === "assistant")) {
      return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
    }
    for (let j = 0; j < blocks.length; j++) {
      const b = blocks[j];
      if (!isObj(b) || typeof b.type !== "string") return `messages.${i}.content.${j}: Input should be a valid dictionary`;
      const problem = validateBlock(b, `messages.${i}.content.${j}`, m.role);
      if (problem) return problem;
    }
    const prev = merged[merged.length - 1];
    const entries = blocks.map((block, j) => ({ block, at: `messages.${i}.content.${j}` }));
    if (prev && prev.role === m.role) prev.blocks.push(...entries);
    else merged.push({ role: m.role, first: i, blocks: entries });
  }
  if (merged[0]!.role !== "user") return 'messages: first message must use the "user" role';

  // tool_use ids are unique over the whole request, not only within a turn.
  const seen = new Set<string>();
  for (const turn of merged) {
    for (const e of turn.blocks) {
      if (e.block.type !== "tool_use" && e.block.type !== "server_tool_use") continue;
      const id = String(e.block.id);
      if (seen.has(id)) return `${e.at}: \`tool_use\` ids must be unique`;
      seen.add(id);
    }
  }

  for (let k = 0; k < merged.length; k++) {
    const turn = merged[k]!;
    if (turn.role === "user") {
      const prev = merged[k - 1];
      const offered = new Set(prev ? prev.blocks.filter((e) => e.block.type === "tool_use").map((e) => String(e.block.id)) : []);
      const resulted = new Set<string>();
      for (const e of turn.blocks) {
        if (e.block.type !== "tool_result") continue;
        const id = String(e.block.tool_use_id);
        if (!offered.has(id)) {
          return (
            `${e.at}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. ` +
            "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
          );
        }
        // The API's own wording for two results pointing at one tool_use.
        if (resulted.has(id)) return `${e.at}: each tool_use must have a single result. Found multiple \`tool_result\` blocks with id: ${id}`;
        resulted.add(id);
      }
      continue;
    }
    const ids = turn.blocks.filter((e) => e.block.type === "tool_use").map((e) => String(e.block.id));
    const next = merged[k + 1];
    if (ids.length === 0 || !next) continue; // a final assistant turn is a prefill
    // Results must open the next user turn: only the leading tool_result blocks count.
    const answered = new Set<string>();
    for (const e of next.blocks) {
      if (e.block.type !== "tool_result") break;
      answered.add(String(e.block.tool_use_id));
    }
    const missing = ids.filter((id) => !answered.has(id));
    if (missing.length) {
      return (
        `messages.${turn.first}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. ` +
        "Each `tool_use` block must have a corresponding `tool_result` block in the next message."
      );
    }
  }

  const thinking = body.thinking;
  if (isObj(thinking) && thinking.type === "enabled") {
    const budget = thinking.budget_tokens;
    if (!Number.isInteger(budget) || (budget as number) < 1024) return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024";
    if ((budget as number) >= (body.max_tokens as number)) return "`max_tokens` must be greater than `thinking.budget_tokens`";
    const choice = body.tool_choice;
    if (isObj(choice) && (choice.type === "any" || choice.type === "tool")) return "Thinking may not be enabled when tool_choice forces tool use.";
    // The turn in progress (the last assistant turn with tool_use) must open with thinking.
    const lastAssistant = [...merged].reverse().find((t) => t.role === "assistant");
    if (lastAssistant?.blocks.some((e) => e.block.type === "tool_use")) {
      const first = lastAssistant.blocks[0]!;
      if (first.block.type !== "thinking" && first.block.type !== "redacted_thinking") {
        return (
          `${first.at}.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first.block.type)}\`. ` +
          "When `thinking` is enabled, a final `assistant` message must start with a thinking block " +
          "(preceeding the lastmost set of `tool_use` and `tool_result` blocks). " +
          "We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`."
        );
      }
    }
  }

  const choice = body.tool_choice;
  if (choice !== undefined) {
    if (!isObj(choice) || !["auto", "any", "tool", "none"].includes(String(choice.type))) {
      return "tool_choice: Input tag found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'";
    }
    if (choice.type === "tool" && !tools.some((t) => isObj(t) && t.name === choice.name)) {
      return `tool_choice.tool.name: Tool '${String(choice.name)}' not found in provided tools`;
    }
  }

  const output = body.output_config;
  if (output !== undefined) {
    if (!isObj(output)) return "output_config: Input should be a valid dictionary";
    const format = output.format;
    if (format !== undefined) {
      if (!isObj(format) || format.type !== "json_schema" || !isObj(format.schema)) {
        return "output_config.format: Input should be a valid dictionary with type 'json_schema' and a schema";
      }
      const p = openObject(format.schema, "output_config.format.schema");
      if (p) return p;
    }
  }
  return undefined;
}

/** At most 4 breakpoints, each a valid cache_control, 1-hour ones before 5-minute ones. */
function validateCacheControl(body: Obj): string | undefined {
  const marks: { at: string; control: unknown; type: unknown }[] = [];
  const scan = (at: string, b: unknown) => {
    if (isObj(b) && b.cache_control !== undefined && b.cache_control !== null) marks.push({ at, control: b.cache_control, type: b.type });
  };
  (Array.isArray(body.tools) ? body.tools : []).forEach((t, i) => scan(`tools.${i}`, t));
  if (Array.isArray(body.system)) body.system.forEach((b, i) => scan(`system.${i}`, b));
  (Array.isArray(body.messages) ? body.messages : []).forEach((m, i) => {
    if (!isObj(m) || !Array.isArray(m.content)) return;
    m.content.forEach((b, j) => {
      scan(`messages.${i}.content.${j}`, b);
      if (isObj(b) && Array.isArray(b.content)) b.content.forEach((inner, k) => scan(`messages.${i}.content.${j}.content.${k}`, inner));
    });
  });
  if (marks.length > 4) return `A maximum of 4 blocks with cache_control may be provided. Found ${marks.length}.`;
  let seen5m = false;
  for (const { at, control, type } of marks) {
    if (!isObj(control) || control.type !== "ephemeral")
      return `${at}.cache_control: Input tag found using 'type' does not match any of the expected tags: 'ephemeral'`;
    if (control.ttl !== undefined && control.ttl !== "5m" && control.ttl !== "1h") return `${at}.cache_control.ttl: Input should be '5m' or '1h'`;
    if (type === "thinking" || type === "redacted_thinking") return `${at}: cache_control cannot be set for thinking blocks`;
    if (control.ttl === "1h" && seen5m) {
      return "a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. Note that blocks are processed in the following order: `tools`, `system`, `messages`.";
    }
    if (control.ttl !== "1h") seen5m = true;
  }
  return undefined;
}

function validateTools(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) return "tools: Input should be a valid list";
  const names = new Set<string>();
  for (let i = 0; i < value.length; i++) {
    const t = value[i] as unknown;
    if (!isObj(t)) return `tools.${i}: Input should be a valid dictionary`;
    const type = t.type ?? "custom";
    if (type === "custom") {
      if (typeof t.name !== "string" || !TOOL_NAME.test(t.name)) return `tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`;
      if (!isObj(t.input_schema)) return `tools.${i}.custom.input_schema: Field required`;
      if (t.input_schema.type !== "object") return `tools.${i}.custom.input_schema.type: Input should be 'object'`;
    } else if (type === "web_search_20250305") {
      if (t.name !== "web_search") return `tools.${i}.web_search_20250305.name: Input should be 'web_search'`;
    } else {
      return `tools.${i}: Input tag '${String(type)}' found using 'type' does not match any of the expected tags`;
    }
    if (names.has(String(t.name))) return "tools: Tool names must be unique.";
    names.add(String(t.name));
  }
  return undefined;
}

function validateBlock(b: Obj, at: string, role: string): string | undefined {
  switch (b.type) {
    case "text":
      if (typeof b.text !== "string") return `${at}.text.text: Field required`;
      if (b.text === "") return "messages: text content blocks must be non-empty";
      if (b.text.trim() === "") return "messages: text content blocks must contain non-whitespace text";
      return undefined;
    case "tool_use":
      if (role !== "assistant") return `${at}: tool_use blocks can only be in assistant messages`;
      if (typeof b.id !== "string" || !/^[a-zA-Z0-9_-]+$/.test(b.id)) return `${at}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`;
      if (!isObj(b.input)) return `${at}.tool_use.input: Input should be a valid dictionary`;
      return undefined;
    case "tool_result": {
      if (role !== "user") return `${at}: tool_result blocks can only be in user messages`;
      if (typeof b.tool_use_id !== "string" || !/^[a-zA-Z0-9_-]+$/.test(b.tool_use_id)) {
        return `${at}.tool_result.tool_use_id: String should match pattern '^[a-zA-Z0-9_-]+$'`;
      }
      const empty = b.content === undefined || b.content === "" || (Array.isArray(b.content) && b.content.length === 0);
      if (b.is_error === true && empty) return `${at}.tool_result: content cannot be empty if \`is_error\` is true`;
      if (Array.isArray(b.content)) {
        for (let k = 0; k < b.content.length; k++) {
          const inner = b.content[k] as unknown;
          const where = `${at}.tool_result.content.${k}`;
          if (!isObj(inner) || !["text", "image", "document", "search_result"].includes(String(inner.type))) {
            return `${where}: Input tag '${String(isObj(inner) ? inner.type : inner)}' found using 'type' does not match any of the expected tags: 'text', 'image', 'search_result', 'document'`;
          }
          const problem = validateBlock(inner, where, "tool_result");
          if (problem) return problem;
        }
      } else if (b.content !== undefined && typeof b.content !== "string") return `${at}.tool_result.content: Input should be a valid string or list`;
      return undefined;
    }
    case "image":
      if (role === "assistant") return `${at}: image content blocks are not supported in assistant messages`;
      return validateImageSource(b.source, `${at}.image.source`);
    case "document":
      if (role === "assistant") return `${at}: document content blocks are not supported in assistant messages`;
      if (b.title !== undefined && b.title !== null && (typeof b.title !== "string" || b.title.length < 1 || b.title.length > 500)) {
        return `${at}.document.title: String should have between 1 and 500 characters`;
      }
      return validateDocumentSource(b.source, `${at}.document.source`);
    case "thinking":
      if (typeof b.signature !== "string") return `${at}.thinking.signature: Field required`;
      // The mock can check its own signatures: a replay must be verbatim.
      if (b.signature.startsWith(SIGNATURE_PREFIX) && b.signature !== mockSignature(String(b.thinking))) {
        return `${at}: Invalid \`signature\` in \`thinking\` block`;
      }
      return undefined;
    default:
      return undefined;
  }
}

const IMAGE_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp"];
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The magic bytes of each image type: the API checks the data against the stated type. */
function sniffImage(bytes: Buffer): string | undefined {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "image/png";
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  if (bytes.subarray(0, 4).toString("latin1") === "GIF8") return "image/gif";
  if (bytes.subarray(0, 4).toString("latin1") === "RIFF" && bytes.subarray(8, 12).toString("latin1") === "WEBP") return "image/webp";
  return undefined;
}

function validateImageSource(source: unknown, at: string): string | undefined {
  if (!isObj(source)) return `${at}: Field required`;
  if (source.type === "url")
    return typeof source.url === "string" && /^https?:\/\//.test(source.url) ? undefined : `${at}.url.url: Input should be a valid URL`;
  if (source.type !== "base64") return `${at}: Input tag '${String(source.type)}' found using 'type' does not match any of the expected tags: 'base64', 'url'`;
  if (!IMAGE_TYPES.includes(String(source.media_type))) {
    return `${at}.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`;
  }
  if (typeof source.data !== "string" || source.data === "" || !BASE64.test(source.data)) return `${at}.base64.data: Invalid base64 data`;
  const actual = sniffImage(Buffer.from(source.data, "base64"));
  if (actual === undefined) return `${at}.base64: Could not process image`;
  if (actual !== source.media_type) {
    return `${at}.base64.data: The image was specified using the ${String(source.media_type)} media type, but the image appears to be a ${actual} image`;
  }
  return undefined;
}

function validateDocumentSource(source: unknown, at: string): string | undefined {
  if (!isObj(source)) return `${at}: Field required`;
  switch (source.type) {
    case "url":
      return typeof source.url === "string" && /^https?:\/\//.test(source.url) ? undefined : `${at}.url.url: Input should be a valid URL`;
    case "base64": {
      if (source.media_type !== "application/pdf") return `${at}.base64.media_type: Input should be 'application/pdf'`;
      if (typeof source.data !== "string" || source.data === "" || !BASE64.test(source.data)) return `${at}.base64.data: Invalid base64 data`;
      if (Buffer.from(source.data, "base64").subarray(0, 5).toString("latin1") !== "%PDF-") return `${at}: The PDF specified was not valid.`;
      return undefined;
    }
    case "text":
      if (source.media_type !== "text/plain") return `${at}.text.media_type: Input should be 'text/plain'`;
      return typeof source.data === "string" ? undefined : `${at}.text.data: Field required`;
    case "content":
      return Array.isArray(source.content) || typeof source.content === "string" ? undefined : `${at}.content.content: Field required`;
    default:
      return `${at}: Input tag '${String(source.type)}' found using 'type' does not match any of the expected tags: 'base64', 'text', 'content', 'url'`;
  }
}

/** Structured outputs require additionalProperties: false on every object schema. */
function openObject(schema: unknown, at: string): string | undefined {
  if (!isObj(schema)) return undefined;
  const isObject = schema.type === "object" || isObj(schema.properties);
  if (isObject && schema.additionalProperties !== false) {
    return `${at}: For 'object' type, 'additionalProperties' must be explicitly set to false`;
  }
  for (const key of ["minimum", "maximum", "minLength", "maxLength", "multipleOf", "exclusiveMinimum", "exclusiveMaximum"]) {
    if (key in schema) return `${at}: For '${String(schema.type)}' type, property '${key}' is not supported`;
  }
  const subs: [unknown, string][] = [];
  if (isObj(schema.properties)) for (const [k, v] of Object.entries(schema.properties)) subs.push([v, `${at}.properties.${k}`]);
  if (isObj(schema.items)) subs.push([schema.items, `${at}.items`]);
  for (const key of ["anyOf", "allOf", "oneOf"]) {
    const list = schema[key];
    if (Array.isArray(list)) list.forEach((s, i) => subs.push([s, `${at}.${key}.${i}`]));
  }
  for (const key of ["$defs", "definitions"]) {
    const defs = schema[key];
    if (isObj(defs)) for (const [k, v] of Object.entries(defs)) subs.push([v, `${at}.${key}.${k}`]);
  }
  for (const [s, where] of subs) {
    const p = openObject(s, where);
    if (p) return p;
  }
  return undefined;
}
