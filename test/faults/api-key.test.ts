// A provider built without an API key fails at once with MissingApiKeyError (nothing is
// ever sent unauthenticated), naming the option and whether the vendor's usual environment
// variable is set. A proxy baseURL, an auth header, a custom fetch (it may route to a proxy
// or sign requests), or openaiCompatible (local servers need no key) are not refused.
import { afterEach, describe, expect, it } from "vitest";
import { claude } from "../../adapters/claude/index.js";
import { gemini } from "../../adapters/gemini/index.js";
import { openai, openaiChat, openaiCompatible } from "../../adapters/openai/index.js";
import { tavilySearch } from "../../adapters/tavily/index.js";
import { createClient } from "../../src/index.js";
import { startOpenAIChatMock } from "../mock/openai-chat.js";
import { rejection } from "./support.js";

const FACTORIES = [
  { name: "claude", env: ["ANTHROPIC_API_KEY"], make: (o: object) => claude({ model: "m", ...o }), vendor: "https://api.anthropic.com/v1" },
  { name: "openai", env: ["OPENAI_API_KEY"], make: (o: object) => openai({ model: "m", ...o }), vendor: "https://api.openai.com/v1" },
  { name: "openaiChat", env: ["OPENAI_API_KEY"], make: (o: object) => openaiChat({ model: "m", ...o }), vendor: "https://api.openai.com/v1" },
  {
    name: "gemini",
    env: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
    make: (o: object) => gemini({ model: "m", ...o }),
    vendor: "https://generativelanguage.googleapis.com/v1beta",
  },
  { name: "tavilySearch", env: ["TAVILY_API_KEY"], make: (o: object) => tavilySearch({ apiKey: "", ...o }), vendor: undefined },
];

const ALL_VARS = [...new Set(FACTORIES.flatMap((f) => f.env))];
const saved = Object.fromEntries(ALL_VARS.map((v) => [v, process.env[v]]));
afterEach(() => {
  for (const v of ALL_VARS) {
    if (saved[v] === undefined) delete process.env[v];
    else process.env[v] = saved[v];
  }
});

/** What the factory threw (fails the test when it did not). */
function thrown(make: () => unknown): any {
  try {
    make();
  } catch (err) {
    return err;
  }
  throw new Error("expected the factory to throw");
}

describe.each(FACTORIES)("$name() without a key", ({ name, env, make, vendor }) => {
  it("throws MissingApiKeyError naming the option when built (so before anything is sent), and says the env variable is not set", () => {
    for (const v of env) delete process.env[v];
    const err = thrown(() => make({}));
    expect(err.code).toBe("missing_api_key");
    expect(err.name).toBe("MissingApiKeyError");
    expect(err.provider).toBe(name);
    expect(err.message).toContain(`${name}({ apiKey`);
    expect(err.message).toContain(`${env.join(" / ")} ${env.length > 1 ? "are" : "is"} not set`);
  });

  it("says so when the usual environment variable holds a key that was not passed, without quoting it", () => {
    for (const v of env) delete process.env[v];
    const last = env[env.length - 1]!;
    process.env[last] = "env-secret-value-123456";
    const err = thrown(() => make({}));
    expect(err.code).toBe("missing_api_key");
    expect(err.message).toContain(`${last} is set in the environment`);
    expect(err.message).toContain(`${last} is set in the environment but is not read automatically: pass its value as apiKey`);
    expect(err.message).not.toContain("env-secret-value-123456");
  });

  if (vendor) {
    it("accepts no key with a proxy baseURL, an auth header or a custom fetch, and refuses it for the vendor's own URL", () => {
      expect(() => make({ baseURL: "http://127.0.0.1:9/v1" })).not.toThrow();
      expect(() => make({ fetch: async () => new Response("{}") })).not.toThrow();
      expect(() => make({ headers: { Authorization: "Bearer from-a-header" } })).not.toThrow();
      expect(thrown(() => make({ baseURL: `${vendor}/` })).code).toBe("missing_api_key");
    });
  }
});

describe("openaiCompatible()", () => {
  it("needs no key: a local server is called without auth, over real HTTP", async () => {
    const mock = await startOpenAIChatMock({ script: [{ text: "no key needed" }] });
    try {
      const client = createClient({ provider: openaiCompatible({ model: "m", baseURL: mock.url }) });
      await expect(client.chat("hi")).resolves.toBe("no key needed");
      expect(mock.requests[0]!.headers.authorization).toBeUndefined();
    } finally {
      await mock.close();
    }
  });
});

describe("a key given as undefined (exactOptionalPropertyTypes callers)", () => {
  it("is the same as no key", async () => {
    const err = await rejection(Promise.resolve().then(() => claude({ apiKey: undefined, model: "m" })));
    expect(err.code).toBe("missing_api_key");
  });
});
