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

import { createClient, tool } from "toolloop";
import * as v from "valibot";

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

/** Writes without a newline (streamed text), in Deno, Node and Bun. */
function write(text) {
  if (globalThis.Deno) globalThis.Deno.stdout.writeSync(new TextEncoder().encode(text));
  else globalThis.process.stdout.write(text);
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

const KNOWN = "Paris, Tokyo, London, New York and Sydney";

/**
 * The cities a question asks about: the known ones it names, and any other capitalised name
 * after "in", "for", "and" or "or" ("Berlin" in "Is it warm in Berlin?"), in question order.
 * The offline script looks all of them up, so an unknown city gets the tool's own "no weather"
 * error back instead of an answer about other cities.
 */
function citiesIn(question) {
  const lower = question.toLowerCase();
  const found = Object.keys(WEATHER)
    .map((city) => ({ city, at: lower.search(new RegExp(`\\b${city}\\b`)) }))
    .filter((c) => c.at >= 0);
  for (const m of question.matchAll(/\b(?:in|for|and|or|of)\s+([A-Z][\p{L}-]*(?:\s[A-Z][\p{L}-]*)?)/gu)) {
    const at = m.index + m[0].length - m[1].length;
    if (!found.some((c) => at >= c.at && at < c.at + c.city.length)) found.push({ city: m[1].toLowerCase(), at });
  }
  return found.sort((a, b) => a.at - b.at).map((c) => c.city.replace(/(^|\s)\p{L}/gu, (ch) => ch.toUpperCase()));
}

/**
 * Offline stand-in for a model: a fixed two-step script (look the cities up, then answer from
 * the tool results), filled with the cities the question asks about. A question that names no
 * city gets a plain one-step answer saying what offline mode can do. It streams its answer like
 * a real model; its usage is the scripted provider's placeholder, so no count is printed.
 */
async function offlineProvider(question) {
  const { scriptedProvider } = await import("toolloop/testing");
  const cities = citiesIn(question);
  if (!cities.length) {
    return scriptedProvider([
      `Offline I can only look up the weather in ${KNOWN}, and your question names no city. ` +
        "Ask about one of them, or set a provider key to ask a real model.",
    ]);
  }
  return scriptedProvider([
    {
      text: `Let me look up ${cities.join(" and ")}.`,
      toolCalls: cities.map((city) => ({ name: "get_weather", arguments: { city } })),
    },
    (request) => {
      const results = request.messages.at(-1)?.results ?? [];
      const found = results.filter((r) => !r.isError).map((r) => JSON.parse(r.output));
      const missing = cities.filter((c) => !found.some((w) => w.city === c));
      const lines = found.map((w) => `${w.city}: ${w.celsius}°C, ${w.sky}`);
      let verdict = "";
      if (found.length > 1 && /warm|cold|hot|cool/.test(question.toLowerCase())) {
        const warmest = found.reduce((a, b) => (b.celsius > a.celsius ? b : a));
        verdict = ` ${warmest.city} is the ${found.length === 2 ? "warmer" : "warmest"}.`;
      }
      const unknown = missing.length ? ` I have no weather for ${missing.join(" or ")} (offline I know ${KNOWN}).` : "";
      const known = lines.length ? `Here is the weather right now. ${lines.join("; ")}.${verdict}` : "";
      return `${known}${unknown}`.trim();
    },
  ]);
}

const question = args().join(" ") || "What is the weather in Paris and in Tokyo?";
let provider = await chooseProvider();
const offline = !provider;
if (provider) {
  console.log(`Using ${provider.name} (${provider.model}).`);
} else {
  console.log("No provider key found (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY): running offline against the scripted provider.");
  console.log(`(Offline mode knows the weather in ${KNOWN} only, and replays a fixed script for the cities your question asks about; no model is asked.)`);
  provider = await offlineProvider(question);
}

const client = createClient({
  provider,
  systemPrompt: "You answer weather questions. Use get_weather for every city you are asked about.",
  tools: [getWeather],
  parallelTools: true,
});

console.log(`> ${question}`);
try {
  // Text is printed as it streams ("model: ..."). The last step's text is the answer: printed
  // once, as it streamed, or under "answer: " when the provider did not stream it.
  let open = false; // a "model: " line is being written
  let streamed = ""; // the text of the step that streamed last
  for await (const event of client.stream(question)) {
    if (event.type === "text-delta") {
      if (!open) write("model: ");
      if (!open) streamed = "";
      open = true;
      streamed += event.text;
      write(event.text);
      continue;
    }
    if (open) write("\n");
    open = false;
    if (event.type === "tool-call") {
      streamed = ""; // text before a tool call is not the answer
      console.log(`tool call:   ${event.name}(${event.arguments})`);
    } else if (event.type === "tool-result") console.log(`tool result: ${event.name} -> ${event.output}`);
    else if (event.type === "finish") {
      if (streamed !== event.text) console.log(`answer: ${event.text}`);
      const { inputTokens, outputTokens } = event.usage;
      // The scripted provider reports no usage: say so rather than print 0+0 as if it were real.
      const tokens = offline ? "no token usage offline" : `${inputTokens}+${outputTokens} tokens`;
      console.log(`(${event.steps} model calls, ${event.toolCalls} tool calls, ${tokens})`);
    }
  }
} catch (err) {
  // toolloop errors carry a stable code (provider_error, max_steps, ...) and never the key.
  console.error(`The run failed: ${err.code ?? err.name}: ${err.message}`);
  if (globalThis.Deno) globalThis.Deno.exitCode = 1;
  else globalThis.process.exitCode = 1;
}
