// examples/weather/weather.mjs is `npm run demo` and the README's first example: it must run
// unchanged in Node, Deno and Bun, offline without a key and against Claude with one.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startClaudeMock } from "../mock/claude.js";
import { startGeminiMock } from "../mock/gemini.js";
import { startOpenAIResponsesMock } from "../mock/openai-responses.js";
import { outputOf, type Runtime, requireDist, runExample } from "./helpers.js";

const WEATHER = "examples/weather/weather.mjs";
const runtimes: Runtime[] = ["node", "deno", "bun"];

beforeAll(() => requireDist());

/**
 * The run's answer, which the demo prints once: streamed as the last "model: " line, or under
 * "answer: " when it did not stream. Fails when the answer's text is printed twice.
 */
function answerOf(lines: string[]): string {
  const stats = lines.length - 1 - [...lines].reverse().findIndex((l) => /^\(\d+ model calls/.test(l));
  const last = lines[stats - 1] ?? "";
  const text = last.replace(/^(model|answer): /, "");
  expect(
    lines.filter((l) => l.includes(text)),
    "the answer is printed once",
  ).toHaveLength(1);
  return text;
}

describe.each(runtimes)("weather example in %s", (runtime) => {
  it("runs offline without a key and says so on its first line", async () => {
    const lines = outputOf(await runExample(runtime, WEATHER));
    expect(lines[0]).toMatch(/^No provider key found \(ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY\): running offline/);
    // Both calls were made and answered by the real tool, then folded into the answer.
    expect(lines).toContain('tool call:   get_weather({"city":"Paris"})');
    expect(lines).toContain('tool call:   get_weather({"city":"Tokyo"})');
    expect(lines).toContain('tool result: get_weather -> {"city":"Paris","celsius":21,"sky":"sunny"}');
    const answer = answerOf(lines);
    expect(answer).toMatch(/Paris: 21°C, sunny/);
    expect(answer).toMatch(/Tokyo: 17°C, light rain/);
  });
});

describe.each(runtimes)("weather example offline in %s follows the question", (runtime) => {
  it("looks up the cities the question names, streams the text, and prints no made-up token counts", async () => {
    const lines = outputOf(await runExample(runtime, WEATHER, ["Is it warmer in Sydney or in London?"]));
    expect(lines[1]).toBe(
      "(Offline mode knows the weather in Paris, Tokyo, London, New York and Sydney only, and replays a fixed script for the cities your question asks about; no model is asked.)",
    );
    expect(lines).toContain("> Is it warmer in Sydney or in London?");
    expect(lines).toContain('tool call:   get_weather({"city":"Sydney"})');
    expect(lines).toContain('tool call:   get_weather({"city":"London"})');
    expect(lines.slice(2).join("\n")).not.toMatch(/Paris|Tokyo/);
    // The scripted model's text arrives as text-delta events and is printed as it streams.
    expect(lines).toContain("model: Let me look up Sydney and London.");
    expect(answerOf(lines)).toBe("Here is the weather right now. Sydney: 19°C, windy; London: 14°C, overcast. Sydney is the warmer.");
    expect(lines.at(-2)).toBe(`model: ${answerOf(lines)}`);
    expect(lines.at(-1)).toBe("(2 model calls, 2 tool calls, no token usage offline)");
  });

  it("looks up a city it does not know too, and answers for the cities asked rather than Paris and Tokyo", async () => {
    const lines = outputOf(await runExample(runtime, WEATHER, ["Is it warm in Berlin?"]));
    expect(lines).toContain('tool call:   get_weather({"city":"Berlin"})');
    expect(lines.join("\n")).not.toMatch(/Paris: |Tokyo: /);
    expect(answerOf(lines)).toBe("I have no weather for Berlin (offline I know Paris, Tokyo, London, New York and Sydney).");
  });

  it("says plainly what offline mode can do when the question names no city", async () => {
    const lines = outputOf(await runExample(runtime, WEATHER, ["Will", "it", "rain?"]));
    expect(lines.filter((l) => l.startsWith("tool call:"))).toEqual([]);
    expect(answerOf(lines)).toMatch(/^Offline I can only look up the weather in Paris, Tokyo, London, New York and Sydney, and your question names no city/);
    expect(lines.at(-1)).toBe("(1 model calls, 0 tool calls, no token usage offline)");
  });
});

describe("weather example in Deno without any permission", () => {
  it("reads the missing --allow-env as no key and runs offline", async () => {
    const lines = outputOf(await runExample("deno", WEATHER, [], { denoFlags: [] }));
    expect(lines[0]).toMatch(/^No provider key found .*running offline against the scripted provider\.$/);
    expect(answerOf(lines)).toMatch(/Paris: 21°C.*Tokyo: 17°C/);
  });
});

/** What the three mocks have in common, for a test that runs against each. */
interface ProviderMock {
  url: string;
  requests: { body: unknown }[];
  close(): Promise<void>;
}
type Turn = { text?: string; toolCalls?: { name: string; input: Record<string, unknown> }[] };

const KEY = "test-key-0123456789";
const providers: { name: string; keyVar: string; start: (script: Turn[]) => Promise<ProviderMock> }[] = [
  { name: "claude", keyVar: "ANTHROPIC_API_KEY", start: (script) => startClaudeMock({ apiKey: KEY, script }) },
  { name: "openai", keyVar: "OPENAI_API_KEY", start: (script) => startOpenAIResponsesMock({ apiKey: KEY, script }) },
  { name: "gemini", keyVar: "GEMINI_API_KEY", start: (script) => startGeminiMock({ apiKey: KEY, script }) },
];

describe.each(runtimes)("weather example with a provider key in %s", (runtime) => {
  let mock: ProviderMock | undefined;
  afterEach(async () => mock?.close());

  it.each(providers)("$keyVar: uses $name, runs the tool calls it asks for and prints its answer", async ({ name, keyVar, start }) => {
    requireDist(name);
    mock = await start([
      {
        text: "Checking.",
        toolCalls: [
          { name: "get_weather", input: { city: "London" } },
          { name: "get_weather", input: { city: "Atlantis" } },
        ],
      },
      { text: "London is overcast at 14°C; I have no data for Atlantis." },
    ]);
    const lines = outputOf(
      await runExample(runtime, WEATHER, ["Weather", "in", "London", "and", "Atlantis?"], {
        env: { [keyVar]: KEY, TOOLLOOP_BASE_URL: mock.url, TOOLLOOP_MODEL: "test-model" },
      }),
    );
    expect(lines[0]).toBe(`Using ${name} (test-model).`);
    expect(lines).toContain("> Weather in London and Atlantis?");
    expect(lines).toContain('tool call:   get_weather({"city":"Atlantis"})');
    expect(answerOf(lines)).toBe("London is overcast at 14°C; I have no data for Atlantis.");

    expect(mock.requests).toHaveLength(2);
    const [first, second] = mock.requests.map((r) => JSON.stringify(r));
    expect(first).toContain("test-model");
    expect(first).toContain("Weather in London and Atlantis?");
    // The second request carries both tool results: the table's row and the thrown error.
    expect(second).toMatch(/\\?"celsius\\?":14/);
    expect(second).toContain("no weather for");
  });

  it("a rejected key ends in one plain error line and exit code 1, without the key", async () => {
    mock = await startClaudeMock({ apiKey: "the-right-key", script: [] });
    const r = await runExample(runtime, WEATHER, [], { env: { ANTHROPIC_API_KEY: "sk-ant-wrong-key", TOOLLOOP_BASE_URL: mock.url } });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(/^The run failed: provider_error: .*invalid x-api-key/);
    expect(r.stdout + r.stderr).not.toContain("sk-ant-wrong-key");
  });
});
