// The tool's signal is made only when the tool reads it (invoke.ts); reading it late must
// give the same signal an eager one would have been: aborted, with the first reason.
import { describe, expect, it } from "vitest";
import { ToolTimeoutError } from "../../src/base/errors.js";
import { invokeTool } from "../../src/loop/invoke.js";
import type { Tool, ToolContext } from "../../src/tools/tool.js";

const logger = { debug() {}, info() {}, warn() {}, error() {} };
const lateReader = (timeout?: number) => {
  let ctx: ToolContext | undefined;
  let release!: () => void;
  const tool: Tool = {
    name: "late",
    description: "",
    parameters: { type: "object" },
    ...(timeout !== undefined && { timeout }),
    call: (_input, c) => {
      ctx = c;
      return new Promise<string>((resolve) => (release = () => resolve("done")));
    },
  };
  return { tool, ctx: () => ctx!, release: () => release() };
};

describe("the tool's signal, made on first read", () => {
  it("read after the caller aborted: aborted with the caller's reason", async () => {
    const caller = new AbortController();
    const t = lateReader();
    const p = invokeTool(t.tool, { id: "c1", name: "t", arguments: "{}" }, { logger, signal: caller.signal });
    const reason = new Error("stop");
    caller.abort(reason);
    expect(await p).toEqual({ kind: "cancelled" });
    const signal = t.ctx().signal;
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(reason);
    expect(t.ctx().signal).toBe(signal); // one signal per call
  });

  it("read after the tool timed out: aborted with the ToolTimeoutError it failed with", async () => {
    const t = lateReader(10);
    const r = await invokeTool(t.tool, { id: "c2", name: "t", arguments: "{}" }, { logger });
    expect(r.kind).toBe("thrown");
    const signal = t.ctx().signal;
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBeInstanceOf(ToolTimeoutError);
    expect(signal.reason).toBe((r as { error: unknown }).error);
  });

  it("read before any abort: live, and aborted later like an eager one", async () => {
    const caller = new AbortController();
    const t = lateReader();
    const p = invokeTool(t.tool, { id: "c3", name: "t", arguments: "{}" }, { logger, signal: caller.signal });
    const signal = t.ctx().signal;
    expect(signal.aborted).toBe(false);
    let heard: unknown;
    signal.addEventListener("abort", () => (heard = signal.reason));
    caller.abort("why");
    await p;
    expect(heard).toBe("why");
  });

  it("never read: the call still finishes normally", async () => {
    const t = lateReader();
    const p = invokeTool(t.tool, { id: "c4", name: "t", arguments: "{}" }, { logger });
    t.release();
    expect(await p).toEqual({ kind: "ok", output: "done" });
  });
});
