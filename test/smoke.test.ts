import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { createClient, tool } from "../src/index.js";
import { scriptedProvider } from "../src/testing.js";

describe("smoke", () => {
  it("runs a tool and answers", async () => {
    const provider = scriptedProvider([{ toolCalls: [{ name: "get_weather", arguments: '```json\n{"city":"Paris"}\n```' }] }, "It is 21°C in Paris."]);
    const getWeather = tool({
      name: "Get_Weather",
      description: "Current temperature for a city.",
      input: v.object({ city: v.pipe(v.string(), v.title("City"), v.description("City name.")) }),
      run: async ({ city }) => ({ city, celsius: 21 }),
    });
    const client = createClient({ provider, tools: [getWeather] });
    expect(await client.chat("Weather in Paris?")).toBe("It is 21°C in Paris.");
    const h = client.history;
    expect(h[2]).toEqual({ role: "tool", results: [{ callId: "call_1", name: "get_weather", output: '{"city":"Paris","celsius":21}', isError: false }] });
    expect(provider.requests[0]!.tools[0]!.parameters).toEqual({
      type: "object",
      properties: { city: { type: "string", title: "City", description: "City name." } },
      required: ["city"],
    });
  });
});
