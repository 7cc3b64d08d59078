// The MCP methods a tools-only server answers, per protocol era. Legacy (2025-11-25 and
// earlier): initialize, ping, tools/list, tools/call. Modern (2026-07-28, stateless):
// server/discover, tools/list, tools/call; results carry resultType, lists carry ttlMs and
// cacheScope, and a tool that asks for input answers "input_required" (multi round trip).
// One JSON-RPC request in, one JSON-RPC response out; no HTTP here (handler.ts does that),
// so the protocol can be tested on its own. A tool can never break the server: whatever
// it throws becomes an isError result. A tool with needsApproval asks the client's user
// first (one more question, through the same input path as ctx.requestInput), and runs only
// once the user approved this call with these arguments.
import {
  InvalidToolError,
  isRecord,
  isToolloopError,
  MAX_ARGUMENT_DEPTH,
  nestsDeeperThan,
  silentLogger,
  type ValidationIssue,
} from "../../../src/base/index.js";
import { askingWith, invokeTool, thrownText } from "../../../src/loop/index.js";
import type { ValidateFn } from "../../../src/schema/index.js";
import { jsonSchemaValidator } from "../../../src/schema/index.js";
import type { Tool } from "../../../src/tools/index.js";
import { createRegistry } from "../../../src/tools/index.js";
import { toMcpContent } from "../wire/content.js";
import {
  canonicalJson,
  failure,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  type JsonRpcRequest,
  type JsonRpcResponse,
  METHOD_NOT_FOUND,
  MISSING_CLIENT_CAPABILITY,
  success,
} from "../wire/jsonrpc.js";
import { inputErrorsAreToolResults, isModern, META, MODERN_PROTOCOL_VERSION, negotiateVersion } from "../wire/versions.js";
import { APPROVAL_KEY, approve } from "./approval.js";
import { type Asked, createInputBridge, type InputRound } from "./input.js";
import { createStateSeal } from "./request-state.js";
import type { CallContext, Dispatch, McpServedTool, ServerOptions } from "./types.js";

export type { CallContext, Dispatch, McpServedTool, McpToolAnnotations, ServerOptions } from "./types.js";

const DEFAULT_TTL_MS = 300_000;

/**
 * Builds the method table for a tool set. Validates the set now (names, collisions,
 * object schemas) so a bad set fails where the server is defined, not on the first call.
 */
export function createDispatcher(options: ServerOptions): Dispatch {
  const registry = createRegistry(options.tools);
  for (const t of registry.tools.values()) {
    if (!isRecord(t.parameters) || t.parameters.type !== "object") {
      throw new InvalidToolError(`tool "${t.name}": MCP needs an input schema of type "object"`);
    }
    if (t.external) {
      throw new InvalidToolError(
        `tool "${t.name}" is an externalTool(): its output comes from a decision in a client with suspension(), which an MCP server cannot take; serve a tool that runs`,
      );
    }
  }
  const logger = options.logger ?? silentLogger;
  const ttlMs = Math.max(0, Math.floor(options.cache?.ttlMs ?? DEFAULT_TTL_MS));
  const cacheScope = options.cache?.scope ?? "public";
  const serverInfo = { name: options.name, version: options.version };
  const seal = createStateSeal(options.requestStateSecret ?? `toolloop-mcp-request-state:${options.name}`);
  // Compiled on first use: building a validator for every tool up front costs startup time.
  const validators = new Map<string, ValidateFn>();
  const validatorFor = (name: string, tool: Tool): ValidateFn => {
    let v = validators.get(name);
    if (!v) validators.set(name, (v = jsonSchemaValidator(tool.parameters)));
    return v;
  };

  // Published under the tool's own spelling: MCP names are case-sensitive, and only the
  // lookup below (the registry's lower-cased key) forgives a client's different case.
  const listing = (): Record<string, unknown>[] =>
    [...registry.tools.values()].map((tool) => {
      const entry: Record<string, unknown> = { name: tool.name, description: tool.description ?? "", inputSchema: tool.parameters };
      const { title, annotations } = tool as McpServedTool;
      if (typeof title === "string") entry.title = title;
      if (isRecord(annotations)) entry.annotations = annotations;
      return entry;
    });

  async function callTool(req: JsonRpcRequest, ctx: CallContext): Promise<JsonRpcResponse> {
    const modern = isModern(ctx.version);
    const done = (result: Record<string, unknown>) => success(req.id, modern ? { resultType: "complete", ...result } : result);
    const params = req.params;
    if (!isRecord(params) || typeof params.name !== "string") {
      return failure(req.id, INVALID_PARAMS, "tools/call needs params.name (a string)");
    }
    const args = params.arguments ?? {};
    if (!isRecord(args)) return failure(req.id, INVALID_PARAMS, "tools/call params.arguments must be an object");
    const tool = registry.tools.get(params.name.toLowerCase());
    if (!tool) return failure(req.id, INVALID_PARAMS, `Unknown tool: ${params.name}`);
    const name = tool.name;

    const invalid = (issues: ValidationIssue[], fallback: string): JsonRpcResponse => {
      const lines = issues.length ? issues.map((i) => `${i.path}: ${i.message}`) : [fallback];
      logger.info("mcp tool input invalid", { tool: name, error: lines.join("; ") });
      if (!inputErrorsAreToolResults(ctx.version)) {
        return failure(req.id, INVALID_PARAMS, `Invalid arguments for tool ${name}: ${lines.join("; ")}`, { issues });
      }
      const text = [`Invalid arguments for tool ${name}:`, ...lines.map((l) => `- ${l}`), "Call the tool again with arguments matching its inputSchema."];
      return done(textResult(text.join("\n"), true));
    };

    // Arguments nested past what the loop's own tools take (handler.ts parsed them cut at a
    // depth recursion survives) are refused before a validator or a canonical form walks them.
    const argsText = JSON.stringify(args);
    if (nestsDeeperThan(argsText, MAX_ARGUMENT_DEPTH)) return invalid([], `arguments nested deeper than ${MAX_ARGUMENT_DEPTH} levels`);

    let checked: Awaited<ReturnType<ValidateFn>>;
    try {
      checked = await validatorFor(name, tool)(args);
    } catch (err) {
      // The tool's own schema is broken (an unresolvable $ref): the server's fault, not the caller's.
      logger.error("mcp tool schema unusable", { tool: name, error: thrownText(err).message });
      return failure(req.id, INTERNAL_ERROR, `Internal error: the input schema of tool ${name} cannot be used`);
    }
    if (!checked.ok) return invalid(checked.issues, "");

    // What a thrown value from the tool (or from reading its input) answers.
    const thrown = (err: unknown): JsonRpcResponse => {
      // A tool() may check more than its JSON Schema says (valibot refinements).
      if (isToolloopError(err, "failed_unmarshal_input")) {
        return invalid((err as { issues?: ValidationIssue[] }).issues ?? [], err.message);
      }
      const message = thrownText(err).message;
      logger.warn("mcp tool error", { tool: name, error: message });
      return done(textResult(message, true));
    };
    // What a requestState and an approval are bound to: equal arguments in any key order.
    const bound = canonicalJson(args);
    const callId = String(req.id);

    // Input a handler asks for (ctx.requestInput): answered through the multi-round-trip
    // fields of this request (2026-07-28), else refused with a tool error. Malformed
    // answers and a state we did not seal for this tool are the client's protocol errors.
    let round: InputRound | undefined;
    if (modern) {
      const responses = params.inputResponses === undefined ? {} : params.inputResponses;
      if (!isRecord(responses)) return failure(req.id, INVALID_PARAMS, "tools/call params.inputResponses must be an object");
      const bad = Object.entries(responses).find(([, r]) => !isRecord(r));
      if (bad)
        return failure(req.id, INVALID_PARAMS, `tools/call params.inputResponses.${bad[0]} must be a result object (for elicitation: { action, content })`);
      // Answers count only as the retry of the round that asked them: its state names the
      // questions, for this tool (the seal) and these arguments. Without a state nothing was
      // asked; a state from other arguments is not used (the call starts over, asking again).
      round = { responses, earlier: {}, asked: [] };
      if (params.requestState !== undefined) {
        const opened = typeof params.requestState === "string" ? await seal.open(name, params.requestState) : undefined;
        if (!opened)
          return failure(req.id, INVALID_PARAMS, `tools/call params.requestState failed its integrity check (not a state this server issued for tool ${name})`);
        if (opened.args === bound) round = { responses, earlier: opened.answers, asked: opened.asked };
        else logger.info("mcp requestState is for other arguments: asking again", { tool: name });
      }
    }
    const legacyAsk = !modern && ctx.ask && ctx.version >= "2025-06-18" ? { send: ctx.ask, withMode: ctx.version >= "2025-11-25" } : undefined;
    const canElicit = modern && isRecord(ctx.clientCapabilities?.elicitation);

    // The questions went out (2026-07-28: an input_required round carrying `carry` on in its
    // state), or they cannot be asked: the answer that says so.
    const askClient = async (asked: Asked, carry: Record<string, unknown>): Promise<JsonRpcResponse> => {
      if (asked.kind === "input_required") {
        const state = await seal.seal(name, { answers: { ...asked.answers, ...carry }, asked: Object.keys(asked.inputRequests), args: bound });
        return success(req.id, { resultType: "input_required", inputRequests: asked.inputRequests, requestState: state });
      }
      if (asked.kind === "missing_capability") {
        return failure(req.id, MISSING_CLIENT_CAPABILITY, asked.message, { requiredCapabilities: { elicitation: {} } });
      }
      logger.warn("mcp tool needs input the client cannot give", { tool: name });
      return done(textResult(asked.message, true));
    };

    // needsApproval: asked of the user before the tool runs (approval.ts).
    const approval = await approve(tool, name, { args: argsText, bound, round, canElicit, legacyAsk, signal: ctx.signal, callId, logger });
    switch (approval.kind) {
      case "thrown":
        return thrown(approval.error);
      case "asking":
        return askClient(approval.asked, {});
      case "refused":
        return done(textResult(approval.message, true));
    }
    const needed = approval.kind === "approved";
    const carry = needed ? approval.carry : {};

    // The handler's own questions take an answer the client sent before it was asked, as the
    // conformance suite expects (SEP-2322: "complete normally"); the client could give the same
    // answer when asked. Only the approval (approve() above) must have been asked, for these arguments.
    const bridge = createInputBridge(round && { ...round, asked: Object.keys(round.responses).filter((k) => k !== APPROVAL_KEY) }, canElicit, legacyAsk);
    // The approval's key is taken: a handler question under it would read the approval's answer.
    const requestInput: typeof bridge.requestInput = needed
      ? (request, suspend) =>
          request.key === APPROVAL_KEY
            ? Promise.reject(new Error(`the question key "${APPROVAL_KEY}" is taken by the approval of this call; give the question another key`))
            : bridge.requestInput(request, suspend)
      : bridge.requestInput;

    logger.info("mcp tool call", { tool: name });
    const outcome = await invokeTool(tool, { id: callId, name, arguments: argsText }, { logger, signal: ctx.signal, extend: askingWith(requestInput) });
    switch (outcome.kind) {
      case "ok":
        return done({ content: outcome.content ? toMcpContent(outcome.content) : [{ type: "text", text: outcome.output }], isError: false });
      case "cancelled":
        return done(textResult("cancelled", true));
      case "suspended":
        return askClient(bridge.asked(), carry);
      case "thrown":
        return thrown(outcome.error);
    }
  }

  const cacheable = () => ({ ttlMs, cacheScope });

  return async (req, ctx) => {
    const modern = isModern(ctx.version);
    switch (modern ? `modern:${req.method}` : req.method) {
      case "initialize": {
        const params = isRecord(req.params) ? req.params : {};
        if (typeof params.protocolVersion !== "string") {
          return failure(req.id, INVALID_PARAMS, "initialize needs params.protocolVersion (a string)");
        }
        const result: Record<string, unknown> = {
          protocolVersion: negotiateVersion(params.protocolVersion),
          capabilities: { tools: { listChanged: false } },
          serverInfo,
        };
        if (options.instructions !== undefined) result.instructions = options.instructions;
        return success(req.id, result);
      }
      case "modern:server/discover": {
        const result: Record<string, unknown> = {
          resultType: "complete",
          supportedVersions: [MODERN_PROTOCOL_VERSION],
          capabilities: { tools: {} },
          ...cacheable(),
          _meta: { [META.serverInfo]: serverInfo },
        };
        if (options.instructions !== undefined) result.instructions = options.instructions;
        return success(req.id, result);
      }
      case "ping":
        return success(req.id, {});
      case "tools/list":
      case "modern:tools/list": {
        // Everything fits on one page, so we never hand out a cursor; any cursor is not ours.
        if (isRecord(req.params) && req.params.cursor !== undefined) {
          return failure(req.id, INVALID_PARAMS, "invalid cursor");
        }
        return success(req.id, modern ? { resultType: "complete", tools: listing(), ...cacheable() } : { tools: listing() });
      }
      case "tools/call":
      case "modern:tools/call":
        return callTool(req, ctx);
      default:
        // Resources, prompts, completion, logging, tasks (an extension we do not offer), and
        // on 2026-07-28 also initialize and ping, which that revision removed.
        return failure(req.id, METHOD_NOT_FOUND, `Method not found: ${req.method}`);
    }
  };
}

function textResult(text: string, isError: boolean): Record<string, unknown> {
  return { content: [{ type: "text", text }], isError };
}
