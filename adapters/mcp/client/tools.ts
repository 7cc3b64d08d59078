// mcpTools(): a remote MCP server's tools as toolloop Tools. Each call validates its
// input locally (so the loop can ask the model to fix bad arguments without a round
// trip), sends tools/call under the remote tool's exact name (MCP names are case-sensitive;
// only the local registry key is lower-cased), and turns the result into the string (or,
// with media, the { content } parts) a Tool returns; a remote isError result rejects with
// its text. A remote tool that asks for input (2026-07-28 "input_required", or a 2025-era
// elicitation/create on the call's stream) asks through ctx.requestInput, so inside a
// toolloop client it becomes a pending call of the run's suspension.
import {
  checkOptions,
  FailedUnmarshalInputError,
  isRecord,
  type Logger,
  MAX_ARGUMENT_DEPTH,
  nestsDeeperThan,
  ProviderError,
  redact,
  silentLogger,
  ToolTimeoutError,
  type ValidationIssue,
} from "../../../src/base/index.js";
import type { FetchFn } from "../../../src/http/index.js";
import type { JSONSchema, ValidateFn } from "../../../src/schema/index.js";
import { jsonSchemaValidator } from "../../../src/schema/index.js";
import { parseAndValidate, type Tool, type ToolCallResult, type ToolContext } from "../../../src/tools/index.js";
import { readToolResult } from "../wire/content.js";
import { headersFor, paramHeaders } from "../wire/param-headers.js";
import { authFetch, type McpAuth } from "./auth.js";
import { answerInputRequest, elicit } from "./elicit.js";
import { mapToolNames } from "./names.js";
import { attachPins, type McpPins } from "./pins.js";
import { McpRpcError } from "./rpc-error.js";
import { createSession, type ServerRequestHandler, type Session } from "./session.js";

export interface McpToolsOptions {
  /** The server's MCP endpoint, e.g. https://example.com/mcp. */
  url: string | URL;
  /** Sent with every request, e.g. { authorization: `Bearer ${token}` }. */
  headers?: Record<string, string> | undefined;
  /** A fetch to use instead of the global one (proxies, tests, instrumentation). */
  fetch?: FetchFn | undefined;
  /** How this client introduces itself. Default { name: "toolloop", version: "0.2.0" }. */
  clientInfo?: { name: string; version: string } | undefined;
  /** Aborts connecting and listing (not later calls: those take the run's signal). */
  signal?: AbortSignal | undefined;
  /** Per-call limit in ms for each tools/call (including input rounds); ends it with ToolTimeoutError. */
  timeout?: number | undefined;
  /** Told (warn) about each remote tool left out, and why. Default: silent. */
  logger?: Logger | undefined;
  /** Authorization for servers that ask for it: oauth({ ... }) from toolloop/mcp (the MCP authorization spec). */
  auth?: McpAuth | undefined;
  /** Pinned tool definitions: mcpPins({ secret, saved }) from toolloop/mcp; only tools whose definitions were approved are offered. */
  pins?: McpPins | undefined;
}

/** A remote tool mcpTools did not offer, and why. */
export interface McpSkippedTool {
  name: string;
  reason: string;
}

/**
 * The remote tools, plus close() (ends the 2025-era session with DELETE; a no-op for
 * 2026-07-28) and skipped: the listed tools left out (task-only, malformed x-mcp-header
 * markings, an input schema nested too deeply), each also logged at warn.
 */
export type McpToolSet = Tool[] & { close(): Promise<void>; readonly skipped: readonly McpSkippedTool[] };

/** Pages of tools/list followed before giving up on a server that never stops paging. */
const MAX_PAGES = 1000;
/** input_required rounds one call may take before it is given up (a server that never stops asking). */
const MAX_INPUT_ROUNDS = 16;
/**
 * The deepest input schema taken. Schema walkers (validators, the providers' encoders) recurse,
 * so a 10,000-level schema would end a later request in a RangeError; arguments nest no deeper
 * than MAX_ARGUMENT_DEPTH anyway, so a schema nested past it describes nothing a model could send.
 */
const MAX_SCHEMA_DEPTH = MAX_ARGUMENT_DEPTH;

/** Connects to an MCP server over Streamable HTTP and resolves with its tools. */
export async function mcpTools(options: McpToolsOptions): Promise<McpToolSet> {
  checkOptions("mcpTools()", options, "url headers fetch clientInfo signal timeout logger auth pins");
  const url = String(options.url);
  const baseFetch: FetchFn = options.fetch ?? ((input, init) => fetch(input, init));
  const pinned = options.pins === undefined ? undefined : await attachPins(options.pins, url);
  const session = createSession({
    url,
    headers: options.headers ?? {},
    fetch: options.auth ? authFetch(options.auth, url, baseFetch, options.headers) : baseFetch,
    clientInfo: options.clientInfo ?? { name: "toolloop", version: "0.2.0" },
    onNotification: pinned?.notified,
  });
  await session.connect(options.signal);
  if (pinned) session.watch(); // tools/list_changed, between calls too
  const skipped: McpSkippedTool[] = [];
  const remote = await listTools(session, options.signal, skipped);
  const logger = options.logger ?? silentLogger;
  for (const s of skipped) logger.warn("mcp tool left out", { tool: s.name, reason: s.reason });
  const names = mapToolNames(remote.map((t) => t.name));
  const tools = remote.map((t, i) => remoteTool(session, t, names[i]!, options.timeout));
  const offered = pinned ? await pinned.offer(tools, remote, (signal) => listTools(session, signal, []), logger) : tools;
  return Object.assign(offered, { close: () => session.close(), skipped });
}

interface RemoteTool {
  name: string;
  description: string;
  parameters: JSONSchema;
  /** SEP-2243: argument → Mcp-Param-* header name. */
  headers: Map<string, string>;
  /** The entry as listed (what pins fingerprint). */
  definition: Record<string, unknown>;
}

async function listTools(session: Session, signal: AbortSignal | undefined, skipped: McpSkippedTool[]): Promise<RemoteTool[]> {
  const out: RemoteTool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await session.request("tools/list", cursor === undefined ? {} : { cursor }, signal);
    if (!Array.isArray(result.tools)) {
      throw new ProviderError({ provider: "mcp", type: "invalid_response", message: "tools/list returned no tools array" });
    }
    for (const t of result.tools) {
      // A malformed entry is the server's problem; the well-formed tools stay usable.
      if (!isRecord(t) || typeof t.name !== "string") continue;
      const described = describeTool(t);
      if (typeof described === "string") skipped.push({ name: t.name, reason: described });
      else out.push(described);
    }
    const next = result.nextCursor;
    if (typeof next !== "string" || next === "") return out;
    if (seen.has(next)) {
      throw new ProviderError({ provider: "mcp", type: "invalid_response", message: `tools/list repeated the cursor ${JSON.stringify(next)}` });
    }
    seen.add(next);
    cursor = next;
  }
  throw new ProviderError({ provider: "mcp", type: "invalid_response", message: `tools/list did not end after ${MAX_PAGES} pages` });
}

/** The tool as we offer it, or why it is left out. */
function describeTool(t: Record<string, unknown>): RemoteTool | string {
  // A tool that can only run as a task (execution.taskSupport "required") cannot be called
  // without the tasks extension, which we do not speak.
  if (isRecord(t.execution) && t.execution.taskSupport === "required") return "it runs only as a task, which toolloop does not speak";
  // The schema as served ($schema, $defs, type and all): whatever a provider cannot take is
  // that provider's encoder's to strip when it builds its request. Its depth is checked on the
  // text: the response was parsed with depth cut at MAX_RESPONSE_DEPTH, so this cannot overflow.
  const parameters: JSONSchema = isRecord(t.inputSchema) ? t.inputSchema : { type: "object" };
  if (nestsDeeperThan(JSON.stringify(parameters), MAX_SCHEMA_DEPTH)) return `its inputSchema nests deeper than ${MAX_SCHEMA_DEPTH} levels`;
  // SEP-2243: a tool whose x-mcp-header markings are malformed must not be called.
  const headers = paramHeaders(parameters);
  if (!headers.ok) return headers.reason;
  return { name: t.name as string, description: descriptionOf(t), parameters, headers: headers.map, definition: t };
}

/**
 * What the model reads about the tool: its description, else its title (annotations.title in
 * 2025-03-26), else its name, so no tool reaches a provider without one.
 */
function descriptionOf(t: Record<string, unknown>): string {
  const annotations = isRecord(t.annotations) ? t.annotations : {};
  for (const text of [t.description, t.title, annotations.title]) if (typeof text === "string" && text.trim() !== "") return text;
  return t.name as string;
}

function remoteTool(session: Session, remote: RemoteTool, localName: string, timeout: number | undefined): Tool {
  let compiled: ValidateFn | undefined;
  // A schema our validator cannot read (an unresolvable $ref, say) is the server's to check:
  // then we only make sure the arguments are an object.
  const shapeOnly: ValidateFn = (value) => (isRecord(value) ? { ok: true, value } : { ok: false, issues: [{ path: "/", message: "must be an object" }] });
  const validator: ValidateFn = async (value) => {
    try {
      compiled ??= jsonSchemaValidator(remote.parameters);
      return await compiled(value);
    } catch {
      compiled = shapeOnly;
      return shapeOnly(value);
    }
  };
  return {
    name: localName,
    description: remote.description,
    parameters: remote.parameters,
    async call(input, ctx) {
      const args = await parseAndValidate(input, validator);
      if (timeout === undefined || !(timeout > 0)) return callRemote(session, remote, args, ctx, ctx.signal);
      // Our own limit, on top of the run's signal: aborting the request also cancels it server-side.
      const controller = new AbortController();
      const onAbort = () => controller.abort(ctx.signal.reason);
      ctx.signal.addEventListener("abort", onAbort, { once: true });
      if (ctx.signal.aborted) onAbort();
      // Built only when the limit passes (an Error captures a stack).
      let timedOut: ToolTimeoutError | undefined;
      const timer = setTimeout(() => controller.abort((timedOut = new ToolTimeoutError(localName, timeout))), timeout);
      try {
        return await callRemote(session, remote, args, ctx, controller.signal);
      } catch (err) {
        throw timedOut !== undefined && controller.signal.reason === timedOut ? timedOut : err;
      } finally {
        clearTimeout(timer);
        ctx.signal.removeEventListener("abort", onAbort);
      }
    },
  };
}

async function callRemote(session: Session, remote: RemoteTool, args: unknown, ctx: ToolContext, signal: AbortSignal): Promise<ToolCallResult> {
  const name = remote.name;
  const params: Record<string, unknown> = { name, arguments: args };
  const extra = headersFor(remote.headers, args);
  // 2025-era servers ask over the call's own stream (elicitation/create).
  const onServerRequest: ServerRequestHandler = async (_method, p) => elicit(ctx, name, p);
  for (let round = 0; ; round++) {
    let result: Record<string, unknown>;
    try {
      // Every round is a new request (a new JSON-RPC id) carrying only this call's own state.
      result = await session.request("tools/call", params, signal, onServerRequest, extra);
    } catch (err) {
      // Servers on revisions before 2025-11-25 report schema-invalid arguments as -32602:
      // let the loop ask the model to fix them, as it does for local validation. -32602
      // also means "unknown tool", which no fix of the arguments can cure: that stays an error.
      if (err instanceof McpRpcError && err.type === "invalid_params" && !/unknown tool|not found/i.test(err.message)) {
        throw new FailedUnmarshalInputError(`rejected by the MCP server (${err.message})`, issuesOf(err.data), { cause: err });
      }
      throw err;
    }
    if (result.resultType === "input_required") {
      if (round >= MAX_INPUT_ROUNDS) throw new Error(`the MCP tool ${name} kept asking for input (${MAX_INPUT_ROUNDS} rounds)`);
      const requests = isRecord(result.inputRequests) ? result.inputRequests : {};
      const responses: Record<string, unknown> = {};
      // In key order, so a handler run again on resume asks in the same order.
      for (const [key, req] of Object.entries(requests)) responses[key] = await answerInputRequest(ctx, name, req);
      params.inputResponses = responses;
      if (typeof result.requestState === "string") params.requestState = result.requestState;
      else delete params.requestState;
      continue;
    }
    const { text, content, isError } = readToolResult(result);
    // Redacted as a ToolloopError's message is: the server may echo our credentials into it.
    if (isError) throw new Error(redact(text) || `the MCP tool ${name} reported an error`);
    return content ? { content } : text;
  }
}

function issuesOf(data: unknown): ValidationIssue[] {
  const list = isRecord(data) && Array.isArray(data.issues) ? data.issues : [];
  return list.filter((i): i is ValidationIssue => isRecord(i) && typeof i.path === "string" && typeof i.message === "string");
}
