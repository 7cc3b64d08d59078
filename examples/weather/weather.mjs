// The get_weather agent. One script, run unchanged by Node, Deno and Bun:
//
//   node examples/weather/weather.mjs            (also: npm run demo)
//   deno run --allow-env --allow-net --allow-read examples/weather/weather.mjs
//   bun examples/weather/weather.mjs
//
// With ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY (or GOOGLE_API_KEY) set it asks
// that provider (model: TOOLLOOP_MODEL, or a default; endpoint: TOOLLOOP_BASE_URL, or the
// vendor's). With none it runs offline against toolloop/testing's scripted provider and says
// so on its first line. Any arguments replace the default question.
import * as v from "valibot";
import { createClient, tool } from "toolloop";

// A fake weather service: the point is the tool call, not the forecast.
const WEATHER = {
  paris: { celsius: 21, sky: "sunny" },
  tokyo: { celsius: 17, sky: "light rain" },
  london: { celsius: 14, sky: "overcast" },
  "new york": { celsius: 24, sky: "clear" },
  sydney: { celsius: 19, sky: "windy" },
};

const getWeather = tool({
  name: "get_weather",
  description: "Current temperature (Celsius) and sky for a city.",
  input: v.object({ city: v.pipe(v.string(), v.minLength(1), v.description("City name, e.g. Paris.")) }),
  run: ({ city }) => {
    const found = WEATHER[city.trim().toLowerCase()];
    // Thrown errors become {"error": "..."} tool results: the model reads them and carries on.
    if (!found) throw new Error(`no weather for "${city}"; known cities: ${Object.keys(WEATHER).join(", ")}`);
    return { city, ...found };
  },
});

/** Reads an environment variable in Node, Bun and Deno (where a missing --allow-env reads as unset). */
function env(name) {
  const deno = globalThis.Deno;
  if (deno) {
    try {
      return deno.env.get(name) || undefined;
    } catch {
      return undefined;
    }
  }
  return globalThis.process?.env?.[name] || undefined;
}

function args() {
  return globalThis.Deno ? [...globalThis.Deno.args] : (globalThis.process?.argv.slice(2) ?? []);
}

/** The first provider with a key; adapters are imported only when used. */
async function chooseProvider() {
  const model = env("TOOLLOOP_MODEL");
  const baseURL = env("TOOLLOOP_BASE_URL");
  const common = (apiKey, fallbackModel) => ({ apiKey, model: model ?? fallbackModel, ...(baseURL ? { baseURL } : {}) });
  const anthropic = env("ANTHROPIC_API_KEY");
  if (anthropic) {
    const { claude } = await import("toolloop/claude");
    return claude(common(anthropic, "claude-sonnet-4-5"));
  }
  const openaiKey = env("OPENAI_API_KEY");
  if (openaiKey) {
    const { openai } = await import("toolloop/openai");
    return openai(common(openaiKey, "gpt-5-mini"));
  }
  const google = env("GEMINI_API_KEY") ?? env("GOOGLE_API_KEY");
  if (google) {
    const { gemini } = await import("toolloop/gemini");
    return gemini(common(google, "gemini-2.5-flash"));
  }
  return undefined;
}

/** Offline stand-in for a model: asks for two cities at once, then answers from the tool results. */
async function offlineProvider() {
  const { scriptedProvider } = await import("toolloop/testing");
  return scriptedProvider([
    {
      text: "Let me look up both cities.",
      toolCalls: [
        { name: "get_weather", arguments: { city: "Paris" } },
        { name: "get_weather", arguments: { city: "Tokyo" } },
      ],
    },
    (request) => {
      const results = request.messages.at(-1)?.results ?? [];
      const lines = results.map((r) => {
        const w = JSON.parse(r.output);
        return `${w.city}: ${w.celsius}°C, ${w.sky}`;
      });
      return `Here is the weather right now. ${lines.join("; ")}.`;
    },
  ]);
}

let provider = await chooseProvider();
if (provider) {
  console.log(`Using ${provider.name} (${provider.model}).`);
} else {
  console.log(
    "No provider key found (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY): running offline against the scripted provider.",
  );
  provider = await offlineProvider();
}

const client = createClient({
  provider,
  systemPrompt: "You answer weather questions. Use get_weather for every city you are asked about.",
  tools: [getWeather],
  parallelTools: true,
});

const question = args().join(" ") || "What is the weather in Paris and in Tokyo?";
console.log(`> ${question}`);
try {
  for await (const event of client.stream(question)) {
    if (event.type === "tool-call") console.log(`tool call:   ${event.name}(${event.arguments})`);
    else if (event.type === "tool-result") console.log(`tool result: ${event.name} -> ${event.output}`);
    else if (event.type === "finish") {
      console.log(`answer: ${event.text}`);
      console.log(`(${event.steps} model calls, ${event.toolCalls} tool calls, ${event.usage.inputTokens}+${event.usage.outputTokens} tokens)`);
    }
  }
} catch (err) {
  // toolloop errors carry a stable code (provider_error, max_steps, ...) and never the key.
  console.error(`The run failed: ${err.code ?? err.name}: ${err.message}`);
  if (globalThis.Deno) globalThis.Deno.exitCode = 1;
  else globalThis.process.exitCode = 1;
}
