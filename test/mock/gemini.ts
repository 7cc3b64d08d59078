// A local stand-in for the Generative Language API (v1beta) that speaks the real wire:
// generateContent answers pretty-printed JSON, streamGenerateContent?alt=sse answers
// `data: <json>\r\n\r\n` events (CRLF, no [DONE]) with Google's `": "` key spacing, and
// requests are validated the way the API validates them, with its error bodies:
// - the API key (x-goog-api-key header or ?key=): missing → 403 PERMISSION_DENIED,
//   wrong → 400 INVALID_ARGUMENT with an ErrorInfo reason API_KEY_INVALID;
// - unknown fields and wrongly typed values anywhere in the body, checked against the
//   GenerateContentRequest schema of Google's own OpenAPI export (proto JSON parsing
//   rejects them: "Invalid JSON payload received. Unknown name ...");
// - contents present and non-empty, roles "user" / "model" only, one data field per part;
// - every function-call turn answered by the next user turn with as many function
//   responses (ids matching when the calls had ids), and no function responses elsewhere;
// - a functionCall this mock issued with a thoughtSignature must come back with it
//   (Gemini 3), or with one of the documented skip values;
// - function declarations: valid names, `parameters` xor `parametersJsonSchema`, local
//   `$ref`s that resolve.
// Queued raw responses (enqueue) are served before anything else, then the script.
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface MockTurn {
  text?: string;
  toolCalls?: { id?: string; name: string; input: unknown }[];
  /** Answer finishReason MALFORMED_FUNCTION_CALL with no content. */
  malformed?: boolean;
  /** Signs the first function call (or, without calls, the text) like Gemini 3. */
  thoughtSignature?: string;
  /**
   * The model's thought summary: sent as `{text, thought: true}` parts before the answer,
   * only when the request asks for them (generationConfig.thinkingConfig.includeThoughts),
   * as the API does; the thinking is billed as thoughtsTokenCount either way.
   */
  thoughts?: string;
}

export type RawResponse =
  | { status: number; headers?: Record<string, string>; body?: string | object }
  | {
      /** Written as-is, one write per element (so a test picks the chunk boundaries, even inside a UTF-8 character). */
      sse: (string | Uint8Array)[];
      /** Destroy the connection after the last element instead of ending the response. */
      cutAfter?: boolean;
      /** ms to wait before each element. */
      delayMs?: number;
      /** Keep the response open after the last element until the client goes away. */
      holdOpen?: boolean;
      /** Called when this response's connection closes (the client went away, or the response ended). */
      onClose?: () => void;
      headers?: Record<string, string>;
    };

export interface RecordedRequest {
  method: string;
  headers: Record<string, string>;
  /** Path and query as received, e.g. /v1beta/models/m:streamGenerateContent?alt=sse */
  url: string;
  body: unknown;
}

export interface GeminiMockOptions {
  apiKey?: string;
  cors?: boolean;
  script?: MockTurn[] | ((body: unknown, index: number) => MockTurn);
  /** false: answer without `responseId`, as some API versions and proxies do. */
  responseIds?: boolean;
  /**
   * Implicit caching as the API does it (on by default for Gemini 2.5 and later): a request
   * whose contents start with an earlier request's (same model, same system instruction and
   * tools) reports that shared prefix as usageMetadata.cachedContentTokenCount — a part of
   * promptTokenCount — once it reaches `minTokens` (the API's minimum is 1,024 tokens for
   * Flash). Tokens are counted as 4 characters of the contents' JSON. Default 1024; 0 turns
   * caching off.
   */
  implicitCacheMinTokens?: number;
}

export interface GeminiMock {
  /** The baseURL to give gemini(), including /v1beta. */
  url: string;
  requests: RecordedRequest[];
  enqueue(raw: RawResponse): void;
  close(): Promise<void>;
}

export const MOCK_API_KEY = "mock-gemini-key-0123456789";
const SKIP_SIGNATURES = new Set(["skip_thought_signature_validator", "context_engineering_is_the_way_to_go"]);

type Issued = { id?: string; name: string; args: string; signature: string };
type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = Record<string, unknown>;

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: Json,
  ) {
    super(JSON.stringify(body));
  }
}

export async function startGeminiMock(options: GeminiMockOptions = {}): Promise<GeminiMock> {
  const apiKey = options.apiKey ?? MOCK_API_KEY;
  const requests: RecordedRequest[] = [];
  const queue: RawResponse[] = [];
  const issued: Issued[] = [];
  // Per cache key (model, system, tools), every request's contents so far, sorted.
  const cacheable = new Map<string, string[]>();
  const sockets = new Set<Socket>();
  let turns = 0;
  let responses = 0;

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, errorBody(500, String(err), "INTERNAL"), options.cors);
      else res.destroy();
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (options.cors) corsHeaders(req, res);
    if (req.method === "OPTIONS" && options.cors) {
      res.writeHead(204).end();
      return;
    }
    const raw = await readBody(req);
    let body: unknown = raw;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      // kept as the raw string in the record; answered below
    }
    requests.push({ method: req.method ?? "", headers: flatHeaders(req), url: req.url ?? "", body });

    const queued = queue.shift();
    if (queued) return serveRaw(req, res, queued);

    const url = new URL(req.url ?? "/", "http://mock");
    const m = /^\/v1beta\/(models\/[^/:]+):(generateContent|streamGenerateContent)$/.exec(url.pathname);
    try {
      if (req.method !== "POST" || !m) {
        throw new ApiError(
          404,
          errorBody(404, `${url.pathname.replace(/^\/v1beta\//, "")} is not found for API version v1beta, or is not supported for this method.`, "NOT_FOUND"),
        );
      }
      checkKey(req.headers["x-goog-api-key"], url.searchParams.get("key"), apiKey);
      if (typeof body !== "object" || body === null || Array.isArray(body)) {
        throw new ApiError(400, errorBody(400, `Invalid JSON payload received. ${raw ? "Unexpected token." : "Expected a value."}`, "INVALID_ARGUMENT"));
      }
      const model = m[1]!.slice("models/".length);
      validateRequest(body as Obj, issued, model);
      const turn = nextTurn(body);
      ++responses;
      const cached = implicitCache(body as Obj, model);
      const chunks = render(turn, body as Obj, model, options.responseIds === false ? undefined : `mock-resp-${responses}`, issued, cached);
      if (m[2] === "generateContent") {
        send(res, 200, merge(chunks), options.cors);
        return;
      }
      if (url.searchParams.get("alt") !== "sse") {
        // Without alt=sse the stream is one JSON array, written as the chunks come.
        res.writeHead(200, { "content-type": "application/json; charset=UTF-8", vary: "Origin, X-Origin, Referer" });
        res.end(`[${chunks.map((c) => JSON.stringify(c, null, 2)).join("\n,\r\n")}]`);
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream", "content-disposition": "attachment", vary: "Origin, X-Origin, Referer" });
      for (const c of chunks) res.write(`data: ${wireJSON(c)}\r\n\r\n`);
      res.end();
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      send(res, err.status, err.body, options.cors);
    }
  }

  /** Tokens of this request served from the implicit cache (see implicitCacheMinTokens). */
  function implicitCache(body: Obj, model: string): number {
    const min = options.implicitCacheMinTokens ?? 1024;
    const key = JSON.stringify([model, body.systemInstruction ?? null, body.tools ?? null]);
    const contents = JSON.stringify(body.contents ?? []);
    // The longest prefix shared with any earlier request is shared with one of this one's two
    // neighbours in sorted order, so each request compares with two, not with every one before.
    let seen = cacheable.get(key);
    if (!seen) cacheable.set(key, (seen = []));
    let lo = 0;
    for (let hi = seen.length; lo < hi; ) {
      const mid = (lo + hi) >> 1;
      if (seen[mid]! < contents) lo = mid + 1;
      else hi = mid;
    }
    const shared = Math.max(commonPrefix(seen[lo - 1], contents), commonPrefix(seen[lo], contents));
    seen.splice(lo, 0, contents);
    const tokens = Math.floor(shared / 4);
    return min > 0 && tokens >= min ? tokens : 0;
  }

  function commonPrefix(a: string | undefined, b: string): number {
    let n = 0;
    if (a === undefined) return n;
    const max = Math.min(a.length, b.length);
    while (n < max && a.charCodeAt(n) === b.charCodeAt(n)) n++;
    return n;
  }

  function nextTurn(body: unknown): MockTurn {
    const script = options.script;
    const index = turns++;
    if (typeof script === "function") return script(body, index);
    if (Array.isArray(script)) {
      const t = script[index];
      if (!t) throw new ApiError(400, errorBody(400, `mock script has no turn ${index + 1}`, "FAILED_PRECONDITION"));
      return t;
    }
    return { text: "OK" };
  }

  async function serveRaw(req: IncomingMessage, res: ServerResponse, raw: RawResponse): Promise<void> {
    if ("status" in raw) {
      const text = raw.body === undefined ? "" : typeof raw.body === "string" ? raw.body : JSON.stringify(raw.body, null, 2);
      res.writeHead(raw.status, { "content-type": "application/json; charset=UTF-8", ...raw.headers });
      res.end(text);
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "content-disposition": "attachment", ...raw.headers });
    res.flushHeaders();
    if (raw.onClose) res.on("close", raw.onClose);
    for (const piece of raw.sse) {
      if (raw.delayMs) await new Promise((r) => setTimeout(r, raw.delayMs));
      if (res.destroyed) return;
      res.write(piece);
    }
    if (raw.cutAfter) {
      // let the written bytes leave before the reset
      await new Promise((r) => setTimeout(r, 20));
      res.socket?.destroy();
      return;
    }
    if (raw.holdOpen) {
      await new Promise<void>((resolve) => req.socket.once("close", () => resolve()));
      return;
    }
    res.end();
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1beta`,
    requests,
    enqueue: (raw) => void queue.push(raw),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------
// responses

function render(turn: MockTurn, body: Obj, model: string, responseId: string | undefined, issued: Issued[], cachedTokens = 0): Obj[] {
  const promptTokens = Math.max(1, Math.ceil(JSON.stringify(body.contents ?? []).length / 4));
  const grounded = Array.isArray(body.tools) && body.tools.some((t) => isObj(t) && "googleSearch" in t);
  const base = (usage: Obj): Obj => ({ usageMetadata: usage, modelVersion: model, responseId });
  if (turn.malformed) {
    const tool = firstFunctionName(body) ?? "tool";
    return [
      {
        candidates: [{ finishReason: "MALFORMED_FUNCTION_CALL", index: 0, finishMessage: `Malformed function call: print(default_api.${tool}(city=Paris'))` }],
        ...base({ promptTokenCount: promptTokens, totalTokenCount: promptTokens, promptTokensDetails: [{ modality: "TEXT", tokenCount: promptTokens }] }),
      },
    ];
  }
  const text = turn.text ?? "";
  const calls = (turn.toolCalls ?? []).map((c, i) => {
    const fc: Obj = { name: c.name, args: c.input ?? {} };
    if (c.id) fc.id = c.id;
    const part: Obj = { functionCall: fc };
    if (i === 0 && turn.thoughtSignature) {
      part.thoughtSignature = turn.thoughtSignature;
      issued.push({ id: c.id, name: c.name, args: canonical(c.input ?? {}), signature: turn.thoughtSignature });
    }
    return part;
  });
  const outputTokens = Math.ceil(text.length / 4) + 8 * calls.length;
  const thoughts = turn.thoughtSignature || turn.thoughts ? 7 + Math.ceil((turn.thoughts ?? "").length / 4) : 0;
  const thinkingConfig = isObj(body.generationConfig) && isObj(body.generationConfig.thinkingConfig) ? body.generationConfig.thinkingConfig : {};
  const summary = turn.thoughts && thinkingConfig.includeThoughts === true ? splitText(turn.thoughts) : [];
  const toolUse = grounded ? 11 : 0;
  const usage: Obj = {
    promptTokenCount: promptTokens,
    candidatesTokenCount: outputTokens,
    totalTokenCount: promptTokens + outputTokens + thoughts + toolUse,
    promptTokensDetails: [{ modality: "TEXT", tokenCount: promptTokens }],
  };
  if (toolUse) usage.toolUsePromptTokenCount = toolUse;
  if (thoughts) usage.thoughtsTokenCount = thoughts;
  if (cachedTokens > 0) {
    usage.cachedContentTokenCount = Math.min(cachedTokens, promptTokens);
    usage.cacheTokensDetails = [{ modality: "TEXT", tokenCount: usage.cachedContentTokenCount }];
  }
  const grounding = grounded ? groundingFor(body, text) : undefined;

  // stream chunks: the text in up to three pieces, the calls whole, then the finish
  const pieces = splitText(text);
  const chunks: Obj[] = [];
  const candidate = (parts: Obj[], extra: Obj = {}): Obj => ({ content: { parts, role: "model" }, index: 0, ...extra });
  for (const t of summary) chunks.push({ candidates: [candidate([{ text: t, thought: true }])], ...base(usage) });
  pieces.forEach((p) => {
    const part: Obj = { text: p };
    chunks.push({ candidates: [candidate([part], grounded ? { groundingMetadata: {} } : {})], ...base(usage) });
  });
  if (calls.length) chunks.push({ candidates: [candidate(calls)], ...base(usage) });
  const last: Obj = { text: "" };
  if (!calls.length && turn.thoughtSignature) last.thoughtSignature = turn.thoughtSignature;
  const finish: Obj = { finishReason: "STOP" };
  if (grounding) finish.groundingMetadata = grounding;
  if (calls.length) finish.finishMessage = "Model generated function call(s).";
  chunks.push({ candidates: [candidate([last], finish)], ...base(usage) });
  return chunks;
}

/** The generateContent body for the same turn: one candidate with all the parts. */
function merge(chunks: Obj[]): Obj {
  const parts: Obj[] = [];
  let extra: Obj = {};
  for (const c of chunks) {
    const cand = (c.candidates as Obj[])[0]!;
    const { content, index: _i, ...rest } = cand;
    if (isObj(content)) {
      for (const p of content.parts as Obj[]) {
        const prev = parts[parts.length - 1];
        const sameKind = prev !== undefined && (prev.thought === true) === (p.thought === true);
        if (typeof p.text === "string" && prev && typeof prev.text === "string" && !prev.thoughtSignature && sameKind) {
          prev.text += p.text;
          if (p.thoughtSignature) prev.thoughtSignature = p.thoughtSignature;
        } else if (!(p.text === "" && !p.thoughtSignature)) parts.push({ ...p });
      }
    }
    extra = { ...extra, ...rest };
  }
  const last = chunks[chunks.length - 1]!;
  const candidate: Obj = parts.length ? { content: { parts, role: "model" }, ...extra, index: 0 } : { ...extra, index: 0 };
  return { candidates: [candidate], usageMetadata: last.usageMetadata, modelVersion: last.modelVersion, responseId: last.responseId };
}

function groundingFor(body: Obj, text: string): Obj {
  const query = lastUserText(body) ?? "query";
  return {
    searchEntryPoint: { renderedContent: `<div class="container">${query}</div>` },
    groundingChunks: [{ web: { uri: "https://vertexaisearch.cloud.google.com/grounding-api-redirect/mock-1", title: "example.com" } }],
    groundingSupports: text ? [{ segment: { startIndex: 0, endIndex: Buffer.byteLength(text), text }, groundingChunkIndices: [0] }] : [],
    webSearchQueries: [query],
  };
}

function splitText(text: string): string[] {
  if (!text) return [];
  const words = text.split(/(?<=\s)/);
  const size = Math.max(1, Math.ceil(words.length / 3));
  const out: string[] = [];
  for (let i = 0; i < words.length; i += size) out.push(words.slice(i, i + size).join(""));
  return out;
}

/** JSON the way Google's stream writes it: `": "` after keys, nothing after commas, <>& escaped. */
export function wireJSON(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(wireJSON).join(",")}]`;
  if (isObj(v))
    return `{${Object.entries(v)
      .filter(([, x]) => x !== undefined)
      .map(([k, x]) => `${str(k)}: ${wireJSON(x)}`)
      .join(",")}}`;
  return typeof v === "string" ? str(v) : JSON.stringify(v);
}

function str(s: string): string {
  return JSON.stringify(s).replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
}

// ---------------------------------------------------------------------------------------
// validation

function checkKey(header: string | string[] | undefined, query: string | null, apiKey: string): void {
  const given = (Array.isArray(header) ? header[0] : header) ?? query ?? undefined;
  if (!given) {
    throw new ApiError(
      403,
      errorBody(
        403,
        "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
        "PERMISSION_DENIED",
      ),
    );
  }
  if (given !== apiKey) {
    const message = "API key not valid. Please pass a valid API key.";
    throw new ApiError(
      400,
      errorBody(400, message, "INVALID_ARGUMENT", [
        {
          "@type": "type.googleapis.com/google.rpc.ErrorInfo",
          reason: "API_KEY_INVALID",
          domain: "googleapis.com",
          metadata: { service: "generativelanguage.googleapis.com" },
        },
        { "@type": "type.googleapis.com/google.rpc.LocalizedMessage", locale: "en-US", message },
      ]),
    );
  }
}

function validateRequest(body: Obj, issued: Issued[], model: string): void {
  const violations = checkAgainstSpec(body);
  if (violations.length) {
    throw new ApiError(
      400,
      errorBody(400, violations.map((v) => v.description).join("\n"), "INVALID_ARGUMENT", [
        { "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: violations as unknown as Json },
      ]),
    );
  }
  const bad = (message: string) => new ApiError(400, errorBody(400, message, "INVALID_ARGUMENT"));
  const contents = (body.contents ?? []) as Obj[];
  if (contents.length === 0) throw bad("* GenerateContentRequest.contents: contents is not specified\n");
  contents.forEach((c, i) => {
    const parts = (c.parts ?? []) as Obj[];
    if (parts.length === 0) throw bad(`* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.\n`);
    if (c.role !== undefined && c.role !== "user" && c.role !== "model") throw bad("Please use a valid role: user, model.");
    parts.forEach((p, j) => {
      const data = ["text", "inlineData", "functionCall", "functionResponse", "fileData", "executableCode", "codeExecutionResult"].filter((k) => k in p);
      if (data.length > 1) {
        throw bad(`Invalid JSON payload received. Oneof field 'data' is already set. Cannot set '${data[1]}' at 'contents[${i}].parts[${j}]'`);
      }
      checkMedia(p, `contents[${i}].parts[${j}]`, model, bad);
    });
  });
  contents.forEach((c, i) => {
    const parts = c.parts as Obj[];
    const calls = parts.filter((p) => isObj(p.functionCall)).map((p) => p.functionCall as Obj);
    const responses = parts.filter((p) => isObj(p.functionResponse)).map((p) => p.functionResponse as Obj);
    if (responses.length) {
      const prev = contents[i - 1];
      const prevCalls = prev ? (prev.parts as Obj[]).filter((p) => isObj(p.functionCall)).length : 0;
      if (prev?.role !== "model" || prevCalls === 0) throw bad("Please ensure that function response turn comes immediately after a function call turn.");
    }
    if (!calls.length) return;
    const next = contents[i + 1];
    if (!next) return; // a trailing model turn is a prefill, not a call turn
    const answers = next.role === "user" ? (next.parts as Obj[]).filter((p) => isObj(p.functionResponse)).map((p) => p.functionResponse as Obj) : [];
    const idsMatch = calls.every((fc) => typeof fc.id !== "string" || answers.some((r) => r.id === fc.id));
    if (answers.length !== calls.length || !idsMatch) {
      throw bad("Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.");
    }
  });
  contents.forEach((c, i) => {
    if (c.role !== "model") return;
    for (const p of c.parts as Obj[]) {
      if (!isObj(p.functionCall)) continue;
      const fc = p.functionCall;
      const args = canonical(fc.args ?? {});
      const records = issued.filter((r) => (typeof fc.id === "string" && r.id ? r.id === fc.id : r.name === fc.name && r.args === args));
      if (records.length === 0) continue;
      const sig = p.thoughtSignature;
      if (records.some((r) => r.signature === sig) || (typeof sig === "string" && SKIP_SIGNATURES.has(sig))) continue;
      throw bad(
        "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. " +
          `Additional data, function call \`default_api:${String(fc.name)}\` , position ${i + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
      );
    }
  });
  checkToolConfig(body, bad);
  ((body.tools ?? []) as Obj[]).forEach((tool, t) => {
    ((tool.functionDeclarations ?? []) as Obj[]).forEach((fd, f) => {
      const at = `tools[${t}].function_declarations[${f}]`;
      if (typeof fd.name !== "string" || !/^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/.test(fd.name)) {
        throw bad(
          `* GenerateContentRequest.${at}.name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.\n`,
        );
      }
      if (fd.parameters !== undefined && fd.parametersJsonSchema !== undefined) {
        throw bad(`* GenerateContentRequest.${at}: parameters and parameters_json_schema are mutually exclusive.\n`);
      }
      if (fd.parametersJsonSchema !== undefined) {
        const problem = unresolvedRef(fd.parametersJsonSchema);
        if (problem !== undefined) throw bad(`reference to undefined schema at ${problem}`);
      }
    });
  });
}

/**
 * toolConfig.functionCallingConfig: allowedFunctionNames only with ANY / VALIDATED, and each
 * must name a declared function.
 */
function checkToolConfig(body: Obj, bad: (m: string) => ApiError): void {
  const config = isObj(body.toolConfig) && isObj(body.toolConfig.functionCallingConfig) ? body.toolConfig.functionCallingConfig : undefined;
  if (!config || config.allowedFunctionNames === undefined) return;
  const at = "GenerateContentRequest.tool_config.function_calling_config.allowed_function_names";
  if (config.mode !== "ANY" && config.mode !== "VALIDATED") throw bad(`* ${at}: allowed_function_names can only be set when mode is ANY or VALIDATED.\n`);
  const declared = new Set(((body.tools ?? []) as Obj[]).flatMap((t) => ((t.functionDeclarations ?? []) as Obj[]).map((fd) => fd.name)));
  for (const name of config.allowedFunctionNames as unknown[]) {
    if (!declared.has(name)) throw bad(`* ${at}: function ${String(name)} is not declared in tools.\n`);
  }
}

// Media types the API takes (its "supported file formats" pages), and the shorter list of the
// multimodal function-response docs. Anything else: 400 "Unsupported MIME type".
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"]);
const DOCUMENT_TYPES = /^(application\/(pdf|json|rtf|x-javascript|x-python|x-typescript)|text\/[\w.+-]+|audio\/[\w.+-]+|video\/[\w.+-]+)$/;
const FUNCTION_RESPONSE_TYPES = new Set(["image/png", "image/jpeg", "image/webp", "application/pdf", "text/plain"]);

/**
 * inlineData needs a supported mimeType and non-empty bytes (their base64 form is checked
 * against the spec's `format: byte`); fileData a fileUri the API can fetch: a Files API uri
 * (whose type it knows), or an https:/gs:// URL with its mimeType. functionResponse.parts
 * (FunctionResponsePart: inlineData only, which the spec walk enforces) exist from Gemini 3
 * on; older models answer the 400 the real API gives.
 */
function checkMedia(p: Obj, at: string, model: string, bad: (m: string) => ApiError): void {
  const unsupported = (t: unknown) => bad(`Unsupported MIME type: ${String(t)}`);
  const supported = (t: string) => IMAGE_TYPES.has(t) || (!t.startsWith("image/") && DOCUMENT_TYPES.test(t));
  if (isObj(p.inlineData)) {
    const { mimeType, data } = p.inlineData;
    if (typeof mimeType !== "string" || mimeType === "") throw bad(`* GenerateContentRequest.${at}.inline_data.mime_type: mime_type must be specified.\n`);
    if (!supported(mimeType)) throw unsupported(mimeType);
    if (typeof data !== "string" || data === "") throw bad(`* GenerateContentRequest.${at}.inline_data.data: data must not be empty.\n`);
  }
  if (isObj(p.fileData)) {
    const { mimeType, fileUri } = p.fileData;
    if (typeof fileUri !== "string" || fileUri === "") throw bad(`* GenerateContentRequest.${at}.file_data.file_uri: file_uri must be specified.\n`);
    const filesApi = /^https:\/\/generativelanguage\.googleapis\.com\/v1(beta)?\/files\/[a-z0-9-]+$/.test(fileUri);
    if (!filesApi && !/^(https:\/\/|gs:\/\/)/.test(fileUri)) throw bad(`Invalid or unsupported file uri: ${fileUri}`);
    if (mimeType === undefined && !filesApi) throw bad(`* GenerateContentRequest.${at}.file_data.mime_type: mime_type must be specified for this file_uri.\n`);
    if (mimeType !== undefined && !supported(String(mimeType))) throw unsupported(mimeType);
  }
  if (isObj(p.functionResponse) && p.functionResponse.parts !== undefined) {
    if (/^gemini-(1|2)([.-]|$)/.test(model)) {
      throw bad(
        "Unable to submit request because `function_response.parts` is not supported for this model. Learn more: https://ai.google.dev/gemini-api/docs/function-calling",
      );
    }
    for (const [k, fp] of ((p.functionResponse.parts ?? []) as Obj[]).entries()) {
      if (!isObj(fp) || !isObj(fp.inlineData)) throw bad(`* GenerateContentRequest.${at}.function_response.parts[${k}]: inline_data must be set.\n`);
      const { mimeType, data } = fp.inlineData;
      if (typeof mimeType !== "string" || !FUNCTION_RESPONSE_TYPES.has(mimeType)) throw unsupported(mimeType);
      if (typeof data !== "string" || data === "")
        throw bad(`* GenerateContentRequest.${at}.function_response.parts[${k}].inline_data.data: data must not be empty.\n`);
    }
  }
}

/** The dotted path of the first `$ref` that does not resolve inside `root` (JSON pointer, $anchor or $id). */
function unresolvedRef(root: unknown): string | undefined {
  const names = new Set<string>();
  const collect = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(collect);
    if (!isObj(node)) return;
    if (typeof node.$id === "string") names.add(node.$id);
    if (typeof node.$anchor === "string") names.add(`#${node.$anchor}`);
    Object.values(node).forEach(collect);
  };
  collect(root);
  const visit = (node: unknown, path: string[]): string | undefined => {
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const r = visit(node[i], [...path, String(i)]);
        if (r !== undefined) return r;
      }
      return undefined;
    }
    if (!isObj(node)) return undefined;
    if (typeof node.$ref === "string") {
      const ref = node.$ref;
      let target: unknown = names.has(ref) ? {} : ref === "#" || ref.startsWith("#/") ? root : undefined;
      for (const seg of ref.startsWith("#/") ? ref.slice(2).split("/") : [])
        target = isObj(target) ? target[seg.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined;
      if (target === undefined) return path.join(".") || ".";
    }
    for (const [k, v] of Object.entries(node)) {
      if (k === "enum" || k === "const" || k === "default" || k === "examples") continue;
      const r = visit(v, [...path, k]);
      if (r !== undefined) return r;
    }
    return undefined;
  };
  return visit(root, []);
}

// --- schema-driven proto JSON checks (unknown names, wrong types) ----------------------

let specCache: { schemas: Record<string, Obj> } | undefined;
function spec(): { schemas: Record<string, Obj> } {
  if (!specCache) {
    const file = new URL("../fixtures/gemini/generativelanguage-v1beta.openapi.json", import.meta.url);
    const doc = JSON.parse(readFileSync(file, "utf8")) as { components: { schemas: Record<string, Obj> } };
    specCache = { schemas: doc.components.schemas };
  }
  return specCache;
}

interface Violation {
  field: string;
  description: string;
}

function checkAgainstSpec(body: Obj): Violation[] {
  const out: Violation[] = [];
  walkSpec(body, "GenerateContentRequest", spec().schemas.GenerateContentRequest!, "", out);
  return out;
}

function deref(schema: Obj): { name: string | undefined; schema: Obj } {
  let s = schema;
  let name: string | undefined;
  for (;;) {
    const ref =
      typeof s.$ref === "string" ? s.$ref : Array.isArray(s.allOf) && isObj(s.allOf[0]) && typeof s.allOf[0].$ref === "string" ? s.allOf[0].$ref : undefined;
    if (!ref) return { name, schema: s };
    name = ref.split("/").pop()!;
    s = spec().schemas[name]!;
  }
}

function walkSpec(value: unknown, typeName: string | undefined, schema: Obj, path: string, out: Violation[]): void {
  const invalid = (kind: string) => out.push({ field: path, description: `Invalid value at '${path}' (${kind}), ${JSON.stringify(value)}` });
  if (isObj(schema.properties)) {
    if (!isObj(value)) return void invalid(`type.googleapis.com/google.ai.generativelanguage.v1beta.${typeName ?? "Message"}`);
    const props = schema.properties as Record<string, Obj>;
    for (const [key, v] of Object.entries(value)) {
      const camel = key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
      const prop = props[camel];
      if (!prop) {
        out.push({
          field: path,
          description: path
            ? `Invalid JSON payload received. Unknown name "${key}" at '${path}': Cannot find field.`
            : `Invalid JSON payload received. Unknown name "${key}": Cannot find field.`,
        });
        continue;
      }
      const snake = camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
      const childPath = path ? `${path}.${snake}` : snake;
      const { name, schema: child } = deref(prop);
      if (child.type === "array" && isObj(child.items)) {
        if (!Array.isArray(v)) {
          out.push({ field: childPath, description: `Invalid value at '${childPath}' (repeated), ${JSON.stringify(v)}` });
          continue;
        }
        const item = deref(child.items as Obj);
        v.forEach((x, i) => walkSpec(x, item.name, item.schema, `${childPath}[${i}]`, out));
      } else walkSpec(v, name ?? `${typeName}.${camel}`, child, childPath, out);
    }
    return;
  }
  const type = schema.type;
  if (type === undefined) return; // google.protobuf.Value: any JSON
  if (type === "object") {
    if (!isObj(value)) invalid("type.googleapis.com/google.protobuf.Struct");
    return;
  }
  if (type === "string") {
    if (typeof value !== "string") return void invalid("TYPE_STRING");
    if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return void invalid(`type.googleapis.com/google.ai.generativelanguage.v1beta.${typeName}`);
    if (schema.format === "byte" && (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(value) || value.replace(/=+$/, "").length % 4 === 1)) {
      out.push({ field: path, description: `Invalid value at '${path}' (TYPE_BYTES), Base64 decoding failed for "${value}"` });
    }
    return;
  }
  if (type === "boolean" && typeof value !== "boolean") return void invalid("TYPE_BOOL");
  if (type === "integer" && !Number.isInteger(value)) return void invalid("TYPE_INT32");
  if (type === "number" && typeof value !== "number") return void invalid("TYPE_FLOAT");
  if (type === "array" && !Array.isArray(value)) return void invalid("repeated");
}

// ---------------------------------------------------------------------------------------
// small helpers

export function errorBody(code: number, message: string, status: string, details?: Json[]): Json {
  const error: Record<string, Json> = { code, message, status };
  if (details) error.details = details;
  return { error };
}

function send(res: ServerResponse, status: number, body: unknown, cors?: boolean): void {
  if (cors && !res.hasHeader("access-control-allow-origin")) res.setHeader("access-control-allow-origin", "*");
  res.writeHead(status, { "content-type": "application/json; charset=UTF-8", vary: "Origin, X-Origin, Referer" });
  res.end(JSON.stringify(body, null, 2));
}

function corsHeaders(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader("access-control-allow-origin", req.headers.origin ?? "*");
  res.setHeader("access-control-allow-methods", "POST, OPTIONS");
  res.setHeader("access-control-allow-headers", req.headers["access-control-request-headers"] ?? "content-type, x-goog-api-key");
  res.setHeader("access-control-max-age", "3600");
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
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

function firstFunctionName(body: Obj): string | undefined {
  for (const t of (body.tools ?? []) as Obj[]) for (const fd of (t.functionDeclarations ?? []) as Obj[]) if (typeof fd.name === "string") return fd.name;
  return undefined;
}

function lastUserText(body: Obj): string | undefined {
  const contents = (body.contents ?? []) as Obj[];
  for (let i = contents.length - 1; i >= 0; i--) {
    const c = contents[i]!;
    if (c.role === "model") continue;
    for (const p of (c.parts ?? []) as Obj[]) if (typeof p.text === "string" && p.text) return p.text;
  }
  return undefined;
}

/** JSON with sorted keys, so args compare by value. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (isObj(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(",")}}`;
  return JSON.stringify(v);
}

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
