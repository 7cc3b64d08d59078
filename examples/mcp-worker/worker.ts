// An MCP server on Cloudflare Workers: two toolloop tools served over MCP's Streamable
// HTTP transport at /mcp, for any MCP client (Claude, ChatGPT connectors, the MCP
// Inspector, toolloop's own mcpTools()). Stateless, so every request can land on any
// isolate anywhere. No nodejs_compat: toolloop/mcp needs only Request and Response.
//
//   wrangler secret put MCP_TOKEN        (optional: then clients need Authorization: Bearer <token>)
//   ALLOWED_ORIGINS = "https://app.example.com"   (optional [vars]: browser pages allowed to call)

import { tool } from "toolloop";
import { mcpHandler } from "toolloop/mcp";
import * as v from "valibot";

export interface Env {
  MCP_TOKEN?: string;
  ALLOWED_ORIGINS?: string;
}

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

const currentTime = tool({
  name: "current_time",
  description: "The current date and time in an IANA time zone.",
  input: v.object({ timeZone: v.pipe(v.string(), v.description("IANA zone, e.g. Europe/Paris.")) }),
  run: ({ timeZone }) => {
    // toLocaleString throws a RangeError for an unknown zone; the client sees it as an isError result.
    return new Date().toLocaleString("en-GB", { timeZone, dateStyle: "full", timeStyle: "long" });
  },
});

export const tools = [convertTemperature, currentTime];

// Built on the first request, because the options depend on env; building it does no I/O.
let handler: ((request: Request) => Promise<Response>) | undefined;

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    if (new URL(request.url).pathname !== "/mcp") return new Response("Not found", { status: 404 });
    handler ??= mcpHandler({
      name: "toolloop-example",
      version: "1.0.0",
      tools,
      instructions: "Unit conversion and the current time. Call current_time with an IANA zone.",
      allowedOrigins: env.ALLOWED_ORIGINS?.split(",")
        .map((o) => o.trim())
        .filter(Boolean),
      authorize: env.MCP_TOKEN ? (req) => sameText(req.headers.get("authorization") ?? "", `Bearer ${env.MCP_TOKEN}`) : undefined,
    });
    return handler(request);
  },
};

/** Compares without an early exit, so response timing does not reveal how much of a token matched. */
function sameText(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) diff |= (a.charCodeAt(i) || 0) ^ b.charCodeAt(i);
  return diff === 0;
}
