// The client the official conformance suite's client scenarios run: mcpTools against the
// scenario's server (its URL is the last argument; MCP_CONFORMANCE_SCENARIO names the
// scenario), calling what each scenario expects. Questions a server asks are answered the
// way a toolloop app would, through ctx.requestInput (here: accept, leaving every field to
// its default). Exits non-zero when mcpTools throws, so a refusal shows in stderr.
import { mcpTools, oauth } from "../../../adapters/mcp/index.js";
import { silentLogger } from "../../../src/base/log.js";

const url = process.argv.at(-1)!;
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const ctx = { signal: AbortSignal.timeout(20_000), callId: "conformance", logger: silentLogger, requestInput: async () => ({}) };

const calls: Record<string, [string, Record<string, unknown>]> = {
  tools_call: ["add_numbers", { a: 5, b: 3 }],
  "elicitation-sep1034-client-defaults": ["test_client_elicitation_defaults", {}],
  "sse-retry": ["test_reconnection", {}],
};

// Scenarios that name their calls in MCP_CONFORMANCE_CONTEXT ({ toolCalls: [{ name, arguments }] }),
// or hand over a pre-registered OAuth client ({ client_id, client_secret }).
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as {
  toolCalls?: { name: string; arguments: Record<string, unknown> }[];
  client_id?: string;
  client_secret?: string;
};

// The auth/* scenarios: oauth() as an app would set it up. The redirect step is the user's
// browser: the suite's authorization server approves at once and redirects to our callback URL,
// which is read from its Location header (a test's stand-in for a page or a callback route).
const auth = scenario.startsWith("auth/")
  ? oauth({
      redirectUri: "http://localhost:3000/callback",
      // The suite's fixed client ID metadata document URL (used where the server takes one).
      clientMetadataUrl: "https://conformance-test.local/client-metadata.json",
      client: context.client_id ? { id: context.client_id, secret: context.client_secret } : undefined,
      redirect: async (authorizationUrl) => {
        const res = await fetch(authorizationUrl, { redirect: "manual" });
        await res.body?.cancel();
        const location = res.headers.get("location");
        if (!location) throw new Error(`the authorization endpoint answered ${res.status} without a redirect`);
        return new URL(location, authorizationUrl);
      },
    })
  : undefined;

const tools = await mcpTools({ url, auth });
const callTool = async (name: string, args: Record<string, unknown>) => {
  const t = tools.find((x) => x.name === name);
  if (!t) throw new Error(`the server lists no tool ${name} (it has ${tools.map((x) => x.name).join(", ")})`);
  return t.call(JSON.stringify(args), ctx);
};
try {
  const planned = calls[scenario];
  if (planned) console.log(JSON.stringify(await callTool(...planned)));
  for (const c of context.toolCalls ?? []) {
    // An argument the server sends as null stands for "not given" (the header it would mirror is omitted).
    const args = Object.fromEntries(Object.entries(c.arguments).filter(([, v]) => v !== null));
    console.log(JSON.stringify(await callTool(c.name, args)));
  }
  if (scenario === "sep-2322-client-request-state") {
    // An input_required flow with another call in flight beside it (isolation), then one without state, then a result without resultType.
    console.log(JSON.stringify(await Promise.all([callTool("test_mrtr_echo_state", {}), callTool("test_mrtr_unrelated", {})])));
    console.log(JSON.stringify(await callTool("test_mrtr_no_state", {})));
    console.log(JSON.stringify(await callTool("test_mrtr_no_result_type", {})));
  }
  if (scenario === "json-schema-2020-12-preservation") {
    // The focal tool's schema, as mcpTools kept it, echoed back through the other tool.
    const echo = tools.find((t) => JSON.stringify((t.parameters as { properties?: unknown }).properties ?? {}).includes('"schema"'));
    const focal = tools.find((t) => t !== echo);
    if (!echo || !focal) throw new Error(`expected a focal tool and an echo tool, got ${tools.map((t) => t.name).join(", ")}`);
    console.log(JSON.stringify(await echo.call(JSON.stringify({ schema: focal.parameters }), ctx)));
  }
  if (scenario.startsWith("auth/")) {
    // Authorized requests all the way: every listed tool is called (step-up scenarios need more scope for it).
    for (const t of tools) console.log(t.name, JSON.stringify(await t.call("{}", ctx)));
  }
  if (scenario === "http-invalid-tool-headers") {
    // Every tool mcpTools kept is called: the malformed ones must not be among them.
    for (const t of tools) console.log(t.name, JSON.stringify(await t.call(JSON.stringify({ region: "us-west1" }), ctx)));
  }
} finally {
  await tools.close();
}
