// runAgentWorkflow's options and its step values, in Node: what it refuses before it takes a
// step (with a message that says what to write), and the size and error values its steps keep.
import { describe, expect, it } from "vitest";
import { runAgentWorkflow, StepTooLargeError } from "../../adapters/cloudflare/index.js";
import type { WorkflowEventLike, WorkflowStepLike } from "../../adapters/cloudflare/workflow-types.js";
import { errorValue, MAX_STEP_BYTES, rebuildError, stepValue, storedBytes } from "../../adapters/cloudflare/workflow-values.js";
import { isToolloopError, ProviderError } from "../../src/index.js";
import { scriptedProvider } from "../../src/testing.js";

const event: WorkflowEventLike = { payload: { message: "Hi" }, instanceId: "i-1" };
/** A step that records what it is asked to do and answers each step.do by running it (no memo). */
function stepStandIn(): WorkflowStepLike & { names: string[] } {
  const names: string[] = [];
  return {
    names,
    do: async (name, _config, callback) => {
      names.push(name);
      return callback({ attempt: 1 });
    },
    waitForEvent: async () => {
      throw new Error("no event in this test");
    },
  };
}
const agent = () => ({ provider: scriptedProvider([{ text: "Hello." }]) });

describe("runAgentWorkflow's options", () => {
  it("runs with the defaults: the prompt is event.payload.message, the model call is the step 'model 1'", async () => {
    const step = stepStandIn();
    const out = await runAgentWorkflow(event, step, { agent: agent() });
    expect(out).toMatchObject({ status: "done", text: "Hello.", steps: 1, toolCalls: 0, pending: [] });
    expect(out.history.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(step.names).toEqual(["model 1"]);
  });

  it.each([
    [{ agent: agent(), timout: "1 day" }, /unknown option `timout`; did you mean `timeout`\?/],
    [{}, /`agent` is createClient\(\)'s options/],
    [{ agent: { ...agent(), history: [] } }, /params\.history, not agent\.history/],
    [{ agent: agent(), eventType: "approval decisions" }, /eventType must be 1-100 letters/],
    [{ agent: agent(), timeout: "7 dayz" }, /timeout is a duration such as "7 days"/],
    [{ agent: agent(), timeout: 0 }, /timeout is a duration/],
    [{ agent: agent(), params: {} }, /the run needs a prompt: params\.message/],
    [{ agent: agent(), params: { message: "x", decisions: [] } }, /do not go together/],
    [{ agent: agent(), params: { message: "x", histroy: [] } }, /unknown option `histroy`; did you mean `history`\?/],
    [{ agent: agent(), modelStep: { retires: { limit: 1 } } }, /modelStep: unknown option `retires`; did you mean `retries`\?/],
    [{ agent: agent(), toolStep: { retries: { limit: -1, delay: 1 } } }, /toolStep\.retries\.limit must be a whole number/],
    [{ agent: agent(), onSuspend: "notify" }, /onSuspend must be a function/],
  ])("refuses %j", async (options, message) => {
    const step = stepStandIn();
    await expect(runAgentWorkflow(event, step, options as never)).rejects.toMatchObject({ code: "invalid_options", message: expect.stringMatching(message) });
    expect(step.names).toEqual([]);
  });

  it("refuses an event or a step that is not run()'s", async () => {
    await expect(runAgentWorkflow({ payload: {} } as never, stepStandIn(), { agent: agent() })).rejects.toThrow(/`event` is the first argument/);
    await expect(runAgentWorkflow(event, {} as never, { agent: agent() })).rejects.toThrow(/`step` is the second argument/);
  });
});

describe("the values the bridge's steps keep", () => {
  it("counts a value's stored size: one byte a character in Latin-1, two once any character is not", () => {
    expect(storedBytes('{"text":"café"}')).toBe(15);
    expect(storedBytes('{"text":"日本"}')).toBe(26);
    expect(stepValue({ text: "x".repeat(100) })).toEqual({ text: "x".repeat(100) });
    expect(stepValue({ text: "x".repeat(MAX_STEP_BYTES) })).toEqual({ tooLarge: MAX_STEP_BYTES + 11 });
    expect(stepValue({ text: "é".repeat(MAX_STEP_BYTES / 2) })).toEqual({ text: "é".repeat(MAX_STEP_BYTES / 2) });
    expect(stepValue({ text: "日".repeat(MAX_STEP_BYTES / 2) })).toEqual({ tooLarge: 2 * (MAX_STEP_BYTES / 2 + 11) });
  });

  it("keeps a toolloop error's code, message and fields, so a replay throws the same error", () => {
    const original = new ProviderError({ provider: "claude", status: 429, message: "slow down", type: "rate_limit_error", retryable: true });
    const kept = JSON.parse(JSON.stringify(errorValue(original)));
    const again = rebuildError(kept);
    expect(isToolloopError(again, "provider_error")).toBe(true);
    expect(again).toMatchObject({ name: original.name, message: original.message, status: 429, provider: "claude", retryable: true, type: "rate_limit_error" });
    const plain = rebuildError(errorValue(new TypeError("bad")));
    expect(plain).toMatchObject({ name: "TypeError", message: "bad" });
    expect(isToolloopError(plain)).toBe(false);
  });

  it("StepTooLargeError is a toolloop error with its own code", () => {
    const err = new StepTooLargeError("the output of tool 1 x", 2_000_000, MAX_STEP_BYTES);
    expect(isToolloopError(err, "step_too_large")).toBe(true);
    expect(err).toMatchObject({ name: "StepTooLargeError", bytes: 2_000_000, limit: MAX_STEP_BYTES });
  });
});
