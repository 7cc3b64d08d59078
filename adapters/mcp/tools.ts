// mcpTools(): a remote MCP server's tools as toolloop Tools. Each call validates its
// input locally (so the loop can ask the model to fix bad arguments without a round
// trip), sends tools/call under the remote tool's original name, and turns the result
// into the string a Tool returns; a remote isError result rejects with its text.
import { FailedUnmarshalInputError, ProviderError, type ValidationIssue } from "../../src/errors.js";
import { jsonSchemaValidator } from "../../src/json-schema.js";
import type { JSONSchema, ValidateFn } from "../../src/schema.js";
import { parseAndValidate, type Tool } from "../../src/tool.js";
import type { FetchFn } from "../../src/http.js";
import { readToolResult } from "./content.js";
import { isObject } from "./jsonrpc.js";
import { mapToolNames } from "./names.js";
import { createSession, McpRpcError, type Session } from "./session.js";

export interface McpToolsOptions {
  /** The server's MCP endpoint, e.g. https://example.com/mcp. */
  url: string | URL;
  /** Sent with every request, e.g. { authorization: `Bearer ${token}` }. */
  headers?: Record<string, string>;
  /** A fetch to use instead of the global one (proxies, tests, instrumentation). */
  fetch?: FetchFn;
  /** How this client introduces itself in initialize. Default { name: "toolloop", version: "0.1.0" }. */
  clientInfo?: { name: string; version: string };
  /** Aborts connecting and listing (not later calls: those take the run's signal). */
  signal?: AbortSignal;
}

/** Pages of tools/list followed before giving up on a server that never stops paging. */
const MAX_PAGES = 1000;

/** Connects to an MCP server over Streamable HTTP and resolves with its tools. */
export async function mcpTools(options: McpToolsOptions): Promise<Tool[]> {
  const session = createSession({
    url: String(options.url),
    headers: options.headers ?? {},
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    clientInfo: options.clientInfo ?? { name: "toolloop", version: "0.1.0" },
  });
  await session.connect(options.signal);
  const remote = await listTools(session, options.signal);
  const names = mapToolNames(remote.map((t) => t.name));
  return remote.map((t, i) => remoteTool(session, t, names[i]!));
}

interface RemoteTool {
  name: string;
  description: string;
  parameters: JSONSchema;
}

async function listTools(session: Session, signal: AbortSignal | undefined): Promise<RemoteTool[]> {
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
      if (isObject(t) && typeof t.name === "string") out.push(describeTool(t));
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

function describeTool(t: Record<string, unknown>): RemoteTool {
  const schema = isObject(t.inputSchema) ? t.inputSchema : {};
  // Providers want a plain object schema: no $schema, and "type": "object" spelled out.
  const { $schema: _drop, ...rest } = schema;
  const parameters: JSONSchema = { ...rest, type: "object" };
  const description = typeof t.description === "string" ? t.description : typeof t.title === "string" ? t.title : "";
  return { name: t.name as string, description, parameters };
}

function remoteTool(session: Session, remote: RemoteTool, localName: string): Tool {
  let compiled: ValidateFn | undefined;
  // A schema our validator cannot read (an unresolvable $ref, say) is the server's to check:
  // then we only make sure the arguments are an object.
  const shapeOnly: ValidateFn = (value) =>
    isObject(value) ? { ok: true, value } : { ok: false, issues: [{ path: "/", message: "must be an object" }] };
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
      let result: Record<string, unknown>;
      try {
        result = await session.request("tools/call", { name: remote.name, arguments: args }, ctx.signal);
      } catch (err) {
        // Servers on revisions before 2025-11-25 report schema-invalid arguments as -32602:
        // let the loop ask the model to fix them, as it does for local validation. -32602
        // also means "unknown tool", which no fix of the arguments can cure: that stays an error.
        if (err instanceof McpRpcError && err.type === "invalid_params" && !/unknown tool|not found/i.test(err.message)) {
          throw new FailedUnmarshalInputError(`rejected by the MCP server (${err.message})`, issuesOf(err.data), { cause: err });
        }
        throw err;
      }
      const { text, isError } = readToolResult(result);
      if (isError) throw new Error(text || `the MCP tool ${remote.name} reported an error`);
      return text;
    },
  };
}

function issuesOf(data: unknown): ValidationIssue[] {
  const list = isObject(data) && Array.isArray(data.issues) ? data.issues : [];
  return list.filter(
    (i): i is ValidationIssue => isObject(i) && typeof i.path === "string" && typeof i.message === "string",
  );
}
