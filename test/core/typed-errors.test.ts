// Errors a user can cause that must be ToolloopErrors with the right code (the README says
// every error is one): a history that is not an array, a scripted provider out of turns, a
// malformed prompt part (a bad argument of the call, not a bad history), and option values
// of the wrong type, which are named for what they are.
import { describe, expect, it } from "vitest";
import { claude } from "../../adapters/claude/index.js";
import { describeValue } from "../../src/base/describe-error.js";
import { fallback } from "../../src/cost/fallback.js";
import { createClient, isToolloopError, type Message } from "../../src/index.js";
import { scriptedProvider } from "../../src/testing.js";
import { historyProblems } from "./helpers.js";

function thrown(fn: () => unknown): any {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error("expected a throw");
}

async function rejected(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected a rejection");
}

describe("createClient({ history }) that is not an array", () => {
  it.each([
    ["a string", "abc", 'the string "abc"'],
    ["a saved history left as JSON text", JSON.stringify([{ role: "user", content: "x".repeat(200) }]), "the string"],
    ["an object", { role: "user", content: "hi" }, "an object"],
    ["a number", 5, "5"],
    ["null", null, "null"],
    ["a boolean", true, "true"],
  ])("%s → InvalidHistoryError naming what it got", (_, history, got) => {
    const err = thrown(() => createClient({ provider: scriptedProvider([]), history: history as never }));
    expect(isToolloopError(err, "invalid_history")).toBe(true);
    expect(err.name).toBe("InvalidHistoryError");
    expect(err.message).toMatch(/^history must be an array of messages/);
    expect(err.message).toContain(`got ${got}`);
    // A long string is cut short in the message.
    expect(err.message.length).toBeLessThan(200);
  });

  it("undefined and an empty array are no history", () => {
    expect(createClient({ provider: scriptedProvider([]), history: undefined }).history).toEqual([]);
    expect(createClient({ provider: scriptedProvider([]), history: [] }).history).toEqual([]);
  });
});

describe("the scripted provider out of turns", () => {
  it("throws a ProviderError (code provider_error, type no_turn_left), and the history stays valid", async () => {
    const provider = scriptedProvider([{ toolCalls: [{ name: "nothing", arguments: {} }] }]);
    const client = createClient({ provider });
    const err = await rejected(client.chat("go"));
    expect(isToolloopError(err, "provider_error")).toBe(true);
    expect(err.name).toBe("ProviderError");
    expect(err.provider).toBe("scripted");
    expect(err.type).toBe("no_turn_left");
    expect(err.retryable).toBe(false);
    expect(err.message).toContain("no turn left for request 2 (the script has 1");
    expect(historyProblems(client.history)).toEqual([]);
  });

  it("an empty script fails its first request the same way; repeat-last still repeats", async () => {
    const err = await rejected(createClient({ provider: scriptedProvider([], { name: "mine" }) }).chat("go"));
    expect(isToolloopError(err, "provider_error") && err.provider).toBe("mine");
    const client = createClient({ provider: scriptedProvider(["same"], { onExhausted: "repeat-last" }) });
    expect(await client.chat("a")).toBe("same");
    expect(await client.chat("b")).toBe("same");
  });

  it("fallback() does not move an exhausted script on (not retryable)", async () => {
    const second = scriptedProvider(["from the second"]);
    const err = await rejected(createClient({ provider: fallback([scriptedProvider([]), second]) }).chat("go"));
    expect(isToolloopError(err, "provider_error")).toBe(true);
    expect(second.requests).toHaveLength(0);
  });
});

describe("a malformed part in a prompt", () => {
  const badParts = [
    ["a data: URL given as base64 data", { type: "image", mediaType: "image/png", data: "data:image/png;base64,iVBORw0KGgo=" }],
    ["an image without data or url", { type: "image", mediaType: "image/png" }],
    ["a file without a mediaType", { type: "file", data: "JVBERi0=" }],
    ["an unknown part type", { type: "audio", data: "AAAA" }],
  ] as const;

  it.each(badParts)("%s → InvalidOptionsError (a bad argument of the call), nothing sent, history unchanged", async (_, part) => {
    const provider = scriptedProvider(["never"]);
    const client = createClient({
      provider,
      history: [
        { role: "user", content: "before" },
        { role: "assistant", content: "ok" },
      ],
    });
    const err = await rejected(client.chat([part as never]));
    expect(isToolloopError(err, "invalid_options")).toBe(true);
    expect(err.name).toBe("InvalidOptionsError");
    expect(err.message).toMatch(/^prompt\.content\[0\]: /);
    expect(provider.requests).toHaveLength(0);
    expect(client.history).toHaveLength(2);
  });

  it("a prompt that is not a string or parts is refused the same way", async () => {
    const err = await rejected(createClient({ provider: scriptedProvider(["never"]) }).chat(5 as never));
    expect(isToolloopError(err, "invalid_options")).toBe(true);
  });

  it("the same part in a saved history is still invalid_history", () => {
    const history: Message[] = [{ role: "user", content: [badParts[0][1] as never] }];
    const err = thrown(() => createClient({ provider: scriptedProvider([]), history }));
    expect(isToolloopError(err, "invalid_history")).toBe(true);
    expect(err.message).toMatch(/^history\[0\]\.content\[0\]: /);
  });
});

describe("numeric options name the value they got", () => {
  it.each([
    ["5", 'the string "5"'],
    [2.5, "2.5"],
    [0, "0"],
    [null, "null"],
    [Number.NaN, "NaN"],
    [{}, "an object"],
  ])("maxSteps: %o → got %s", (value, got) => {
    const err = thrown(() => createClient({ provider: scriptedProvider([]), maxSteps: value as never }));
    expect(isToolloopError(err, "invalid_options")).toBe(true);
    expect(err.message).toBe(`maxSteps must be a positive integer, got ${got}`);
  });

  it("maxParallelTools, a call's maxSteps and claude's maxTokens say it too", async () => {
    expect(thrown(() => createClient({ provider: scriptedProvider([]), maxParallelTools: "3" as never })).message).toContain('got the string "3"');
    const err = await rejected(createClient({ provider: scriptedProvider(["x"]) }).chat("go", { maxSteps: "5" as never }));
    expect(isToolloopError(err, "invalid_options") && err.message).toContain('got the string "5"');
    const tokens = thrown(() => claude({ apiKey: "k", model: "m", maxTokens: "100" as never }));
    expect(isToolloopError(tokens, "invalid_options") && tokens.message).toContain('maxTokens must be a positive integer, got the string "100"');
  });

  it("describeValue", () => {
    expect(describeValue("5")).toBe('the string "5"');
    expect(describeValue("")).toBe('the string ""');
    expect(describeValue("x".repeat(100))).toBe(`the string "${"x".repeat(40)}…"`);
    expect(describeValue(5)).toBe("5");
    expect(describeValue(undefined)).toBe("undefined");
    expect(describeValue([1])).toBe("an object");
    expect(describeValue(() => 1)).toBe("an object");
    expect(describeValue(Infinity)).toBe("Infinity");
  });
});

describe("number options that would quietly mean less (no retries, no stall guard, no output cap)", () => {
  const { createClient: make } = { createClient };
  it.each([
    ["maxRetries", "3", 'the string "3"'],
    ["maxRetries", -1, "-1"],
    ["maxRetries", 1.5, "1.5"],
    ["idleTimeout", 0, "0"],
    ["idleTimeout", Number.NaN, "NaN"],
    ["idleTimeout", "30000", 'the string "30000"'],
    ["maxToolOutput", 0, "0"],
    ["maxToolOutput", "100", 'the string "100"'],
  ])("createClient({ %s: %s }) is InvalidOptionsError at once", (name, value, got) => {
    const err = thrown(() => make({ provider: scriptedProvider([]), [name]: value } as never));
    expect(isToolloopError(err, "invalid_options")).toBe(true);
    expect(err.message).toContain(`${name} must be`);
    expect(err.message).toContain(`got ${got}`);
  });

  it.each([
    ["maxRetries", "2"],
    ["maxRetries", -1],
    ["idleTimeout", 0],
    ["idleTimeout", -5],
  ])("claude({ %s: %s }) is refused before any request is sent", async (name, value) => {
    let sent = 0;
    const provider = claude({
      apiKey: "k",
      model: "m",
      baseURL: "http://127.0.0.1:1/v1",
      fetch: async () => (sent++, new Response("{}")),
      [name]: value,
    } as never);
    const err = await rejected(createClient({ provider }).chat("hi"));
    expect(isToolloopError(err, "invalid_options")).toBe(true);
    expect(err.message).toMatch(new RegExp(`^claude: ${name} must be`));
    expect(sent).toBe(0);
  });

  it("0 retries and a whole-number output cap are fine", async () => {
    const client = createClient({ provider: scriptedProvider(["ok"]), maxRetries: 0, maxToolOutput: 10, idleTimeout: 1500 });
    expect(await client.chat("hi")).toBe("ok");
  });
});

describe("scriptedProvider() options", () => {
  it.each([
    ["a misspelt option", () => scriptedProvider(["hi"], { onExhaust: "repeat-last" } as never), /unknown option `onExhaust`; did you mean `onExhausted`\?/],
    [
      "an unknown onExhausted value",
      () => scriptedProvider(["hi"], { onExhausted: "repeat" as never }),
      /onExhausted must be "throw" or "repeat-last", got "repeat"/,
    ],
    ["turns that are not an array", () => scriptedProvider("hi" as never), /takes an array of turns/],
  ])("%s is InvalidOptionsError", (_, make, message) => {
    const err = thrown(make);
    expect(isToolloopError(err, "invalid_options")).toBe(true);
    expect(err.message).toMatch(message);
  });
});
