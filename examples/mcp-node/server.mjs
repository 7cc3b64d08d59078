// An MCP server on plain Node, like examples/mcp-worker's but with one tool (convert_temperature): the same
// mcpHandler, served on node:http by toolloop/node. Run it, then point any MCP client at the printed URL.
//
//   node examples/mcp-node/server.mjs            (PORT=3000 by default, MCP_TOKEN optional)

import { tool } from "toolloop";
import { mcpHandler } from "toolloop/mcp";
import { serve } from "toolloop/node";
import * as v from "valibot";

const convertTemperature = tool({
  name: "convert_temperature",
  description: "Converts a temperature between Celsius and Fahrenheit.",
  input: v.object({
    value: v.pipe(v.number(), v.description("The temperature to convert.")),
    to: v.pipe(v.picklist(["celsius", "fahrenheit"]), v.description("The unit to convert to.")),
  }),
  run: ({ value, to }) => {
    const converted = to === "fahrenheit" ? (value * 9) / 5 + 32 : ((value - 32) * 5) / 9;
    return { value: Math.round(converted * 100) / 100, unit: to };
  },
});

const token = process.env.MCP_TOKEN;
const mcp = mcpHandler({
  name: "toolloop-example",
  version: "1.0.0",
  tools: [convertTemperature],
  authorize: token ? (request) => request.headers.get("authorization") === `Bearer ${token}` : undefined,
});

const server = await serve((request) => (new URL(request.url).pathname === "/mcp" ? mcp(request) : new Response("Not found", { status: 404 })), {
  port: Number(process.env.PORT ?? 3000),
});
console.log(`MCP server listening on ${server.url}/mcp`);
// Ctrl-C: requests in flight finish (up to 10 s), then the process exits.
process.once("SIGINT", () => server.close().then(() => process.exit(0)));
