import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import {
  BrowserKeyError,
  ConnectionError,
  type ErrorCode,
  FailedUnmarshalInputError,
  IdleTimeoutError,
  InvalidHistoryError,
  InvalidToolError,
  InvalidToolNameError,
  isToolloopError,
  MaxStepsError,
  ProviderError,
  StreamError,
  StructuredOutputError,
  ToolloopError,
  ToolNameCollisionError,
  ToolsNotSupportedError,
  ToolTimeoutError,
  UnsupportedSchemaError,
} from "../../src/index.js";

const cases: [string, () => ToolloopError, ErrorCode][] = [
  ["FailedUnmarshalInputError", () => new FailedUnmarshalInputError("bad"), "failed_unmarshal_input"],
  ["ToolNameCollisionError", () => new ToolNameCollisionError("a", "A"), "tool_name_collision"],
  ["InvalidToolNameError", () => new InvalidToolNameError("a b"), "invalid_tool_name"],
  ["InvalidToolError", () => new InvalidToolError("bad"), "invalid_tool"],
  ["UnsupportedSchemaError", () => new UnsupportedSchemaError("gemini", "t", "/properties/x", "no"), "unsupported_schema"],
  ["ToolsNotSupportedError", () => new ToolsNotSupportedError("claude-local"), "tools_not_supported"],
  ["MaxStepsError", () => new MaxStepsError(20), "max_steps"],
  ["ProviderError", () => new ProviderError({ provider: "claude", message: "x", status: 500 }), "provider_error"],
  ["ConnectionError", () => new ConnectionError("openai", "refused"), "connection_error"],
  ["StreamError", () => new StreamError("gemini", "cut"), "stream_error"],
  ["IdleTimeoutError", () => new IdleTimeoutError("claude", 100), "idle_timeout"],
  ["ToolTimeoutError", () => new ToolTimeoutError("t", 5), "tool_timeout"],
  ["StructuredOutputError", () => new StructuredOutputError("bad", "text"), "structured_output"],
  ["InvalidHistoryError", () => new InvalidHistoryError("bad"), "invalid_history"],
  ["BrowserKeyError", () => new BrowserKeyError("openai"), "browser_key"],
];

describe("errors", () => {
  it.each(cases)("%s has the stable string code, its class name, and is an Error", (name, make, code) => {
    const err = make();
    expect(err.code).toBe(code);
    expect(typeof err.code).toBe("string");
    expect(err.name).toBe(name);
    expect(err).toBeInstanceOf(Error);
    expect(err).toBeInstanceOf(ToolloopError);
    expect(isToolloopError(err)).toBe(true);
    expect(isToolloopError(err, code)).toBe(true);
    expect(isToolloopError(err, code === "max_steps" ? "provider_error" : "max_steps")).toBe(false);
    expect(err.message.length).toBeGreaterThan(0);
  });

  it("keeps the context a caller acts on", () => {
    expect(new MaxStepsError(7)).toMatchObject({ steps: 7 });
    expect(
      new ProviderError({ provider: "claude", message: "slow down", status: 429, type: "rate_limit_error", requestId: "req_1", retryable: true }),
    ).toMatchObject({
      provider: "claude",
      status: 429,
      type: "rate_limit_error",
      requestId: "req_1",
      retryable: true,
    });
    expect(new UnsupportedSchemaError("gemini", "t", "/properties/x", "no")).toMatchObject({ provider: "gemini", toolName: "t", path: "/properties/x" });
    expect(new ToolNameCollisionError("a", "A")).toMatchObject({ names: ["a", "A"] });
    expect(new FailedUnmarshalInputError("bad", [{ path: "/x", message: "m" }])).toMatchObject({ issues: [{ path: "/x", message: "m" }] });
  });

  it("isToolloopError works by code across realms, where instanceof fails", () => {
    const foreign = runInNewContext(`(() => { const e = new Error("from a worker"); e.name = "MaxStepsError"; e.code = "max_steps"; return e; })()`) as unknown;
    expect(foreign instanceof Error).toBe(false); // the reason instanceof cannot be used
    expect(isToolloopError(foreign, "max_steps")).toBe(true);
    expect(isToolloopError(foreign)).toBe(true);
    // a structured-clone copy (postMessage) keeps message and name but not the class
    const copy = { name: "ProviderError", message: "x", code: "provider_error" };
    expect(isToolloopError(copy, "provider_error")).toBe(true);
  });

  it("isToolloopError is false for other errors, including ones with a foreign code", () => {
    expect(isToolloopError(new Error("plain"))).toBe(false);
    expect(isToolloopError(undefined)).toBe(false);
    expect(isToolloopError("max_steps")).toBe(false);
    expect(isToolloopError({ code: 42 })).toBe(false);
    const nodeError = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    expect(isToolloopError(nodeError)).toBe(false);
    expect(isToolloopError(nodeError, "max_steps")).toBe(false);
    const domAbort = new DOMException("aborted", "AbortError"); // has a numeric code
    expect(isToolloopError(domAbort)).toBe(false);
  });
});

describe("request ids are redacted like messages", () => {
  it("a StreamError's and a ProviderError's requestId never hold a registered key or a URL's query", async () => {
    const { registerSecret } = await import("../../src/base/secrets.js");
    const owner = {};
    const key = "sk-test-requestid-secret-0123456789";
    registerSecret(key, owner);
    const echoed = `req_1 ${key} https://proxy.example/v1?token=qtok-98765`;
    const stream = new StreamError("claude", "cut", { requestId: echoed });
    const provider = new ProviderError({ provider: "claude", status: 500, message: "boom", requestId: echoed } as never);
    for (const err of [stream, provider]) {
      expect(err.requestId).toContain("req_1");
      expect(err.requestId).not.toContain(key);
      expect(err.requestId).not.toContain("qtok-98765");
    }
  });
});
