// The README quickstart, verbatim, then every public options type given values that may be
// undefined (environment variables), as strict presets (exactOptionalPropertyTypes) see them.

import { type ClientOptions, createClient, jsonTool, tool } from "toolloop";
import { claude } from "toolloop/claude";
import { claudeLocal } from "toolloop/claude-local";
import { gemini } from "toolloop/gemini";
import { mcpHandler, mcpTools, protectedResource } from "toolloop/mcp";
import { nodeListener, serve } from "toolloop/node";
import { openai, openaiChat, openaiCompatible } from "toolloop/openai";
import { tavilySearch } from "toolloop/tavily";
import { scriptedProvider } from "toolloop/testing";
import * as v from "valibot";

const getWeather = tool({
  name: "get_weather",
  description: "Current temperature for a city.",
  input: v.object({ city: v.pipe(v.string(), v.title("City"), v.description("City name.")) }),
  run: async ({ city }, ctx) => ({ city, celsius: 21 }), // ctx: { signal, callId, logger }
});

const client = createClient({
  provider: claude({ apiKey: process.env.ANTHROPIC_API_KEY, model: "claude-sonnet-4-5" }),
  systemPrompt: "Use the provided tools.",
  parallelTools: true,
});
client.setTools([getWeather]);
console.log(await client.chat("Weather in Paris and Rome?"));

// Every option a program may fill from something that can be unset.
const env = process.env;
const maybeNumber: number | undefined = env.N ? Number(env.N) : undefined;
const maybeBool: boolean | undefined = env.B ? true : undefined;
const common = {
  apiKey: env.KEY,
  baseURL: env.BASE_URL,
  maxRetries: maybeNumber,
  idleTimeout: maybeNumber,
  dangerouslyAllowBrowser: maybeBool,
  headers: undefined,
  fetch: undefined,
};
openai({ ...common, model: "gpt-5-mini" });
openaiChat({ ...common, model: "gpt-4.1-mini", promptCacheKey: env.CACHE_KEY, organization: env.ORG });
// @ts-expect-error Chat Completions is openaiChat(): openai() takes no api: "chat" (it throws at run time too)
openai({ ...common, model: "gpt-4.1-mini", api: "chat" });
openaiCompatible({ ...common, baseURL: "http://localhost:11434/v1", model: "qwen3", name: env.NAME });
gemini({ ...common, model: "gemini-2.5-flash" });
claude({ ...common, model: "claude-sonnet-4-5", maxTokens: maybeNumber });
claudeLocal({ model: env.MODEL, command: env.CLAUDE });
tavilySearch({ apiKey: env.TAVILY_API_KEY ?? "", baseURL: env.TAVILY_URL, maxResults: maybeNumber, maxRetries: maybeNumber });
jsonTool({ name: "j", description: "d", parameters: { type: "object" }, run: () => "x", timeout: maybeNumber });
tool({ name: "t", description: "d", input: v.object({}), run: () => "x", timeout: maybeNumber });
const options: ClientOptions = {
  provider: scriptedProvider([]),
  systemPrompt: env.SYSTEM,
  maxSteps: maybeNumber,
  parallelTools: maybeBool,
  maxParallelTools: maybeNumber,
  logger: undefined,
  tools: undefined,
  history: undefined,
  maxRetries: maybeNumber,
  idleTimeout: maybeNumber,
  maxToolOutput: maybeNumber,
  finalAnswerOnMaxSteps: maybeBool,
};
const c = createClient(options);
await c.chat("hi", { signal: undefined });
mcpHandler({ name: "weather", version: "1.0.0", tools: [getWeather], instructions: env.INSTRUCTIONS, allowedOrigins: undefined, authorize: undefined });
await mcpTools({ url: "https://example.com/mcp", headers: undefined, fetch: undefined, signal: undefined });
const resource = protectedResource({
  resource: "https://example.com/mcp",
  authorizationServers: ["https://auth.example.com"],
  scopesSupported: undefined,
  scope: undefined,
  resourceName: env.NAME,
  resourceDocumentation: env.DOCS,
});
const served = mcpHandler({
  name: "w",
  version: "1",
  tools: [getWeather],
  authorize: () => ({ error: "insufficient_scope", scope: ["a"] }),
  protectedResource: resource,
});
const node = await serve(served, { port: maybeNumber, hostname: env.HOST, trustForwardedProto: maybeBool, onError: undefined, signal: undefined });
await node.close({ timeout: maybeNumber });
nodeListener(served, { trustForwardedProto: maybeBool, onError: undefined });
