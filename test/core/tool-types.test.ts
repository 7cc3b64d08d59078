// Type tests: `tsc -p tsconfig.test.json` (the "typecheck tests" suite) fails when one of these
// types regresses; vitest runs the file too, where expectTypeOf is a no-op.
import * as v from "valibot";
import { describe, expectTypeOf, it } from "vitest";
import {
  createClient,
  isToolloopError,
  jsonTool,
  type MaxStepsError,
  type ProviderError,
  type Tool,
  type ToolInput,
  type ToolloopError,
  type ToolOutput,
  tool,
} from "../../src/index.js";
import { scriptedProvider } from "../../src/testing.js";

const getWeather = tool({
  name: "get_weather",
  description: "d",
  input: v.object({ city: v.string(), days: v.optional(v.number()) }),
  run: async ({ city }) => ({ city, celsius: 21 }),
});

describe("isToolloopError narrows by code", () => {
  it("provider_error → ProviderError with status, type and requestId typed", () => {
    const err: unknown = new Error("x");
    if (isToolloopError(err, "provider_error")) {
      expectTypeOf(err).toEqualTypeOf<ProviderError>();
      expectTypeOf(err.status).toEqualTypeOf<number | undefined>();
      expectTypeOf(err.type).toEqualTypeOf<string | undefined>();
      expectTypeOf(err.requestId).toEqualTypeOf<string | undefined>();
    }
    if (isToolloopError(err, "max_steps")) expectTypeOf(err.steps).toEqualTypeOf<number>();
    if (isToolloopError(err)) expectTypeOf(err).toEqualTypeOf<ToolloopError>();
    // A code whose class lives in an adapter still narrows to a ToolloopError with that code.
    if (isToolloopError(err, "cli_error")) expectTypeOf(err.code).toEqualTypeOf<"cli_error">();
    const code = Math.random() > 2 ? ("max_steps" as const) : undefined;
    if (isToolloopError(err, code)) expectTypeOf(err).toMatchTypeOf<ToolloopError>();
    // @ts-expect-error not a toolloop code
    isToolloopError(err, "ECONNREFUSED");
    expectTypeOf<MaxStepsError>().toMatchTypeOf<ToolloopError>();
  });
});

describe("tool() keeps its input and output types", () => {
  it("ToolInput / ToolOutput name what run gets and returns", () => {
    expectTypeOf<ToolInput<typeof getWeather>>().toEqualTypeOf<{ city: string; days?: number | undefined }>();
    expectTypeOf<ToolOutput<typeof getWeather>>().toEqualTypeOf<{ city: string; celsius: number }>();
    expectTypeOf(getWeather).toMatchTypeOf<Tool<{ city: string; days?: number | undefined }, { city: string; celsius: number }>>();
  });

  it("a typed tool is still a Tool: plain Tool means any tool, and existing code keeps compiling", () => {
    const plain: Tool = getWeather;
    const list: Tool[] = [getWeather, plain];
    const raw = jsonTool({ name: "raw", description: "d", parameters: { type: "object" }, run: () => "x" });
    expectTypeOf<ToolInput<typeof raw>>().toEqualTypeOf<unknown>();
    const handWritten: Tool = { name: "h", description: "d", parameters: { type: "object" }, call: async () => "x" };
    expectTypeOf<ToolInput<typeof handWritten>>().toEqualTypeOf<unknown>();
    createClient({ provider: scriptedProvider([]), tools: [getWeather, raw, handWritten] }).setTools(list.slice(1));
  });

  it("run's input is the schema's output (transforms applied)", () => {
    const t = tool({
      name: "when",
      description: "d",
      input: v.object({
        at: v.pipe(
          v.string(),
          v.transform((s) => new Date(s)),
        ),
      }),
      run: ({ at }) => {
        expectTypeOf(at).toEqualTypeOf<Date>();
        return at.getTime();
      },
    });
    expectTypeOf<ToolInput<typeof t>>().toEqualTypeOf<{ at: Date }>();
    expectTypeOf<ToolOutput<typeof t>>().toEqualTypeOf<number>();
  });
});
