// The server the official conformance suite's server scenarios run against: mcpHandler with
// the tools those scenarios call by name, written as ordinary toolloop tools. Scenarios for
// features toolloop does not offer (resources, prompts, completion, logging, progress,
// sampling, server-initiated SSE streams) find no tool or method here and get a protocol
// refusal; scripts/mcp-conformance.mjs lists them.
import * as v from "valibot";
import { mcpHandler } from "../../../adapters/mcp/index.js";
import { jsonTool, type Tool, type ToolContext, tool } from "../../../src/index.js";
import { toolOutput } from "../../../src/tools/tool.js";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
// 44-byte WAV header of an empty PCM clip
const WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=";
const b64 = (text: string) => btoa(text);

const media = (name: string, description: string, parts: Parameters<typeof toolOutput>[0]): Tool => ({
  name,
  description,
  parameters: { type: "object", properties: {} },
  call: async () => toolOutput(parts),
});

/** A tool that asks its user through ctx.requestInput and reports the answer. */
const asking = (name: string, description: string, schema: Record<string, unknown>, message?: string) =>
  jsonTool({
    name,
    description,
    parameters: { type: "object", properties: { message: { type: "string" } } },
    run: async (args: { message?: string }, ctx) => {
      const answer = await ctx.requestInput!({ message: args.message ?? message ?? "Please answer", schema });
      return `User response: action: accept, content: ${JSON.stringify(answer)}`;
    },
  });

/** One named question with a single string/boolean field: the shape the input-required-result scenarios ask for. */
const field = (key: string, message: string, prop: string, type: "string" | "boolean") => ({
  key,
  message,
  schema: { type: "object", properties: { [prop]: { type } }, required: [prop] },
});

// The 2026-07-28 multi-round-trip scenarios (SEP-2322), as ordinary tools asking through
// ctx.requestInput: mcpHandler turns each question into an inputRequests entry (keyed by
// InputRequest.key) and seals the answers so far into requestState. The sampling and roots
// variants have no tool here: toolloop's requestInput asks the user, never the client's model
// or file roots, so those calls end in "Unknown tool" (listed as refusals by the runner).
const answerOf = async (ctx: ToolContext, q: ReturnType<typeof field>) => (await ctx.requestInput!(q)) as Record<string, unknown>;

function inputRequiredTools(): Tool[] {
  const name = field("user_name", "What is your name?", "name", "string");
  const confirm = field("confirm", "Please confirm", "ok", "boolean");
  const plain = (toolName: string, call: (ctx: ToolContext) => Promise<string>): Tool => ({
    name: toolName,
    description: "Asks the user through ctx.requestInput (2026-07-28: an input_required result).",
    parameters: { type: "object", properties: {} },
    call: (_input, ctx) => call(ctx),
  });
  return [
    // server-stateless (SEP-2575) diagnostics. Asking a client that declared no elicitation is
    // -32021 with HTTP 400; one that did gets an input_required result, never a request of its
    // own on the stream; a tool's log lines stay on the server (no notifications/message).
    plain("test_missing_capability", async (ctx) => `Hello, ${String((await answerOf(ctx, name)).name)}!`),
    plain("test_streaming_elicitation", async (ctx) => `Hello, ${String((await answerOf(ctx, name)).name)}!`),
    // SEP-2243: an argument mirrored into a header, which mcpHandler checks against the body.
    {
      name: "test_custom_header",
      description: "Echoes its region, which clients also send as the Mcp-Param-Region header.",
      parameters: { type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } }, required: ["region"] },
      call: async (input) => `region: ${String((JSON.parse(input) as { region: unknown }).region)}`,
    },
    plain("test_logging_tool", async (ctx) => {
      ctx.logger.info("test_logging_tool ran");
      return "logged on the server only";
    }),
    plain("test_input_required_result_elicitation", async (ctx) => `Hello, ${String((await answerOf(ctx, name)).name)}!`),
    // mcpHandler refuses a requestState that fails its seal before the tool runs again, so reaching here means it verified.
    plain("test_input_required_result_request_state", async (ctx) => `state-ok (confirmed: ${String((await answerOf(ctx, confirm)).ok)})`),
    plain("test_input_required_result_tampered_state", async (ctx) => `state-ok (confirmed: ${String((await answerOf(ctx, confirm)).ok)})`),
    plain("test_input_required_result_multi_round", async (ctx) => {
      const who = await answerOf(ctx, field("step1", "Step 1: What is your name?", "name", "string"));
      const color = await answerOf(ctx, field("step2", "Step 2: What is your favorite color?", "color", "string"));
      return `${String(who.name)} likes ${String(color.color)}`;
    }),
  ];
}

function conformanceTools(): Tool[] {
  return [
    ...inputRequiredTools(),
    tool({ name: "test_simple_text", description: "Returns simple text.", input: v.object({}), run: () => "This is a simple text response for testing." }),
    media("test_image_content", "Returns a 1x1 PNG.", [{ type: "image", mediaType: "image/png", data: PNG }]),
    media("test_audio_content", "Returns a short WAV clip.", [{ type: "file", mediaType: "audio/wav", data: WAV }]),
    media("test_embedded_resource", "Returns an embedded text resource.", [
      { type: "file", mediaType: "text/plain", data: b64("This is an embedded resource content."), filename: "embedded-resource" },
    ]),
    media("test_multiple_content_types", "Returns text, an image and a resource.", [
      { type: "text", text: "Multiple content types test:" },
      { type: "image", mediaType: "image/png", data: PNG },
      { type: "file", mediaType: "application/json", data: b64('{"test":"data","value":123}'), filename: "mixed-content-resource" },
    ]),
    tool({
      name: "test_error_handling",
      description: "Always fails.",
      input: v.object({}),
      run: () => {
        throw new Error("This tool intentionally returns an error for testing");
      },
    }),
    // Hand-written: jsonTool() drops $schema (providers refuse it); mcpHandler publishes a Tool's schema as it is.
    {
      name: "json_schema_2020_12_tool",
      description: "Tool with JSON Schema 2020-12 features",
      parameters: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        $defs: { address: { type: "object", properties: { street: { type: "string" }, city: { type: "string" } } } },
        properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" } },
        additionalProperties: false,
      },
      call: async () => "ok",
    },
    asking("test_elicitation", "Asks the user for a username and an email.", {
      type: "object",
      properties: { username: { type: "string", description: "User's response" }, email: { type: "string", description: "User's email address" } },
      required: ["username", "email"],
    }),
    asking(
      "test_elicitation_sep1034_defaults",
      "Asks with defaults for every field.",
      {
        type: "object",
        properties: {
          name: { type: "string", default: "John Doe" },
          age: { type: "integer", default: 30 },
          score: { type: "number", default: 95.5 },
          status: { type: "string", enum: ["active", "inactive", "pending"], default: "active" },
          verified: { type: "boolean", default: true },
        },
      },
      "Please review and update the form fields with defaults",
    ),
    asking(
      "test_elicitation_sep1330_enums",
      "Asks with every enum form.",
      {
        type: "object",
        properties: {
          untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
          titledSingle: {
            type: "string",
            oneOf: [
              { const: "value1", title: "First Option" },
              { const: "value2", title: "Second Option" },
              { const: "value3", title: "Third Option" },
            ],
          },
          legacyEnum: { type: "string", enum: ["opt1", "opt2", "opt3"], enumNames: ["Option One", "Option Two", "Option Three"] },
          untitledMulti: { type: "array", items: { type: "string", enum: ["option1", "option2", "option3"] } },
          titledMulti: {
            type: "array",
            items: {
              anyOf: [
                { const: "value1", title: "First Choice" },
                { const: "value2", title: "Second Choice" },
                { const: "value3", title: "Third Choice" },
              ],
            },
          },
        },
      },
      "Please select options from the enum fields",
    ),
  ];
}

/** The handler, for a server listening on `origins` (the DNS-rebinding scenario sends a localhost Origin). */
export function conformanceHandler(origins: string[]): (request: Request) => Promise<Response> {
  return mcpHandler({ name: "toolloop-conformance", version: "0.2.0", tools: conformanceTools(), allowedOrigins: origins, legacyElicitation: true });
}
