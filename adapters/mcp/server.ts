// The MCP methods a tools-only server answers: initialize, ping, tools/list, tools/call.
// One JSON-RPC request in, one JSON-RPC response out; no HTTP here (handler.ts does that),
// so the protocol can be tested on its own. A tool can never break the server: whatever
// it throws becomes an isError result.
import type { ToolCallResult, ToolOutputContent } from "../../src/tool.js";
import { renderParts } from "../../src/messages.js";
import { abortReason, InvalidToolError, isToolloopError, ToolTimeoutError, type ValidationIssue } from "../../src/errors.js";
import { silentLogger, type Logger } from "../../src/log.js";
import { createRegistry } from "../../src/registry.js";
import { jsonSchemaValidator } from "../../src/json-schema.js";
import type { ValidateFn } from "../../src/schema.js";
import type { Tool } from "../../src/tool.js";
import { failure, INTERNAL_ERROR, INVALID_PARAMS, isObject, METHOD_NOT_FOUND, success, type JsonRpcRequest, type JsonRpcResponse } from "./jsonrpc.js";
import { inputErrorsAreToolResults, negotiateVersion, type ProtocolVersion } from "./versions.js";

/** Hints about a tool's behaviour that MCP clients may show or use (untrusted by spec). */
export interface McpToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** A Tool, optionally with the display metadata MCP can carry. */
export type McpServedTool = Tool & { title?: string; annotations?: McpToolAnnotations };

export interface ServerOptions {
  name: string;
  version: string;
  tools: readonly McpServedTool[];
  /** Sent in the initialize result: how to use this server's tools. */
  instructions?: string;
  logger?: Logger;
}

export interface CallContext {
  /** The revision in effect for this request (header, or the spec's assumption). */
  version: ProtocolVersion;
  /** Aborted when the HTTP request goes away. */
  signal: AbortSignal;
}

export type Dispatch = (request: JsonRpcRequest, ctx: CallContext) => Promise<JsonRpcResponse>;

/**
 * Builds the method table for a tool set. Validates the set now (names, collisions,
 * object schemas) so a bad set fails where the server is defined, not on the first call.
 */
export function createDispatcher(options: ServerOptions): Dispatch {
  const registry = createRegistry(options.tools);
  for (const t of registry.tools.values()) {
    if (!isObject(t.parameters) || t.parameters.type !== "object") {
      throw new InvalidToolError(`tool "${t.name}": MCP needs an input schema of type "object"`);
    }
  }
  const logger = options.logger ?? silentLogger;
  // Compiled on first use: building a validator for every tool up front costs startup time.
  const validators = new Map<string, ValidateFn>();
  const validatorFor = (name: string, tool: Tool): ValidateFn => {
    let v = validators.get(name);
    if (!v) validators.set(name, (v = jsonSchemaValidator(tool.parameters)));
    return v;
  };

  const listing = (): Record<string, unknown>[] =>
    [...registry.tools].map(([name, tool]) => {
      const entry: Record<string, unknown> = { name, description: tool.description ?? "", inputSchema: tool.parameters };
      const { title, annotations } = tool as McpServedTool;
      if (typeof title === "string") entry.title = title;
      if (isObject(annotations)) entry.annotations = annotations;
      return entry;
    });

  async function callTool(req: JsonRpcRequest, ctx: CallContext): Promise<JsonRpcResponse> {
    const params = req.params;
    if (!isObject(params) || typeof params.name !== "string") {
      return failure(req.id, INVALID_PARAMS, 'tools/call needs params.name (a string)');
    }
    const args = params.arguments ?? {};
    if (!isObject(args)) return failure(req.id, INVALID_PARAMS, "tools/call params.arguments must be an object");
    const name = params.name.toLowerCase();
    const tool = registry.tools.get(name);
    if (!tool) return failure(req.id, INVALID_PARAMS, `Unknown tool: ${params.name}`);

    const invalid = (issues: ValidationIssue[], fallback: string): JsonRpcResponse => {
      const lines = issues.length ? issues.map((i) => `${i.path}: ${i.message}`) : [fallback];
      logger.info("mcp tool input invalid", { tool: name, error: lines.join("; ") });
      if (!inputErrorsAreToolResults(ctx.version)) {
        return failure(req.id, INVALID_PARAMS, `Invalid arguments for tool ${name}: ${lines.join("; ")}`, { issues });
      }
      const text = [`Invalid arguments for tool ${name}:`, ...lines.map((l) => `- ${l}`), "Call the tool again with arguments matching its inputSchema."];
      return success(req.id, textResult(text.join("\n"), true));
    };

    let checked: Awaited<ReturnType<ValidateFn>>;
    try {
      checked = await validatorFor(name, tool)(args);
    } catch (err) {
      // The tool's own schema is broken (an unresolvable $ref): the server's fault, not the caller's.
      logger.error("mcp tool schema unusable", { tool: name, error: errorMessage(err) });
      return failure(req.id, INTERNAL_ERROR, `Internal error: the input schema of tool ${name} cannot be used`);
    }
    if (!checked.ok) return invalid(checked.issues, "");

    logger.info("mcp tool call", { tool: name });
    const outcome = await invoke(tool, JSON.stringify(args), String(req.id), ctx.signal, logger);
    if (outcome.ok) return success(req.id, textResult(outcome.output, false));
    const err = outcome.error;
    // A tool() may check more than its JSON Schema says (valibot refinements).
    if (isToolloopError(err, "failed_unmarshal_input")) {
      return invalid((err as { issues?: ValidationIssue[] }).issues ?? [], err.message);
    }
    const message = errorMessage(err);
    logger.warn("mcp tool error", { tool: name, error: message });
    return success(req.id, textResult(message, true));
  }

  return async (req, ctx) => {
    switch (req.method) {
      case "initialize": {
        const params = isObject(req.params) ? req.params : {};
        if (typeof params.protocolVersion !== "string") {
          return failure(req.id, INVALID_PARAMS, "initialize needs params.protocolVersion (a string)");
        }
        const result: Record<string, unknown> = {
          protocolVersion: negotiateVersion(params.protocolVersion),
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name: options.name, version: options.version },
        };
        if (options.instructions !== undefined) result.instructions = options.instructions;
        return success(req.id, result);
      }
      case "ping":
        return success(req.id, {});
      case "tools/list": {
        // Everything fits on one page, so we never hand out a cursor; any cursor is not ours.
        if (isObject(req.params) && req.params.cursor !== undefined) {
          return failure(req.id, INVALID_PARAMS, "invalid cursor");
        }
        return success(req.id, { tools: listing() });
      }
      case "tools/call":
        return callTool(req, ctx);
      default:
        return failure(req.id, METHOD_NOT_FOUND, `Method not found: ${req.method}`);
    }
  };
}

function textResult(text: string, isError: boolean): Record<string, unknown> {
  return { content: [{ type: "text", text }], isError };
}

type Invocation = { ok: true; output: string } | { ok: false; error: unknown };

/** Runs tool.call with the tool's timeout and the request's signal; never rejects. */
function invoke(tool: Tool, input: string, callId: string, signal: AbortSignal, logger: Logger): Promise<Invocation> {
  if (signal.aborted) return Promise.resolve({ ok: false, error: abortReason(signal) });
  const controller = new AbortController();
  return new Promise<Invocation>((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => {
      controller.abort(abortReason(signal));
      finish({ ok: false, error: new Error("cancelled") });
    };
    const finish = (v: Invocation) => {
      if (timer !== undefined) clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      resolve(v);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    if (tool.timeout !== undefined && tool.timeout > 0) {
      const ms = tool.timeout;
      timer = setTimeout(() => {
        const err = new ToolTimeoutError(tool.name, ms);
        controller.abort(err);
        finish({ ok: false, error: err });
      }, ms);
    }
    let p: Promise<ToolCallResult>;
    try {
      p = tool.call(input, { signal: controller.signal, callId, logger });
    } catch (error) {
      finish({ ok: false, error }); // a synchronous throw from a hand-written call
      return;
    }
    Promise.resolve(p).then(
      (output) => finish({ ok: true, output: typeof output === "string" ? output : renderParts((output as ToolOutputContent).content ?? []) }),
      (error) => finish({ ok: false, error }),
    );
  });
}

/** The text an isError result carries: the Error's message, or the thrown value described. */
function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (isObject(err) && typeof err.message === "string") return err.message;
  let shown: string;
  try {
    shown = typeof err === "string" ? err : (JSON.stringify(err) ?? String(err));
  } catch {
    shown = Object.prototype.toString.call(err);
  }
  return `tool handler panicked: ${shown}`;
}
