// The client the official conformance suite's client scenarios run: mcpTools against the
// scenario's server (its URL is the last argument; MCP_CONFORMANCE_SCENARIO names the
// scenario), calling what each scenario expects. Questions a server asks are answered the
// way a toolloop app would, through ctx.requestInput (here: accept, leaving every field to
// its default). Exits non-zero when mcpTools throws, so a refusal shows in stderr.
import { mcpTools } from "../../../adapters/mcp.js";
import { silentLogger } from "../../../src/log.js";

const url = process.argv.at(-1)!;
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const ctx = { signal: AbortSignal.timeout(20_000), callId: "conformance", logger: silentLogger, requestInput: async () => ({}) };

const calls: Record<string, [string, Record<string, unknown>]> = {
  tools_call: ["add_numbers", { a: 5, b: 3 }],
  "elicitation-sep1034-client-defaults": ["test_client_elicitation_defaults", {}],
  "sse-retry": ["test_reconnection", {}],
};

const tools = await mcpTools({ url });
try {
  const planned = calls[scenario];
  if (planned) {
    const [name, args] = planned;
    const t = tools.find((x) => x.name === name);
    if (!t) throw new Error(`the server lists no tool ${name} (it has ${tools.map((x) => x.name).join(", ")})`);
    console.log(JSON.stringify(await t.call(JSON.stringify(args), ctx)));
  }
} finally {
  await tools.close();
}
