import { fileURLToPath } from "node:url";
import ts from "typescript";
import * as v from "valibot";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createClient, tool } from "../../src/index.js";
import { scriptedProvider } from "../../src/testing.js";
import { recordingLogger } from "./helpers.js";

const tools = [
  tool({ name: "Good", description: "A test tool.", input: v.object({ q: v.string() }), run: () => "fine" }),
  tool({
    name: "bad",
    description: "A test tool.",
    input: v.object({}),
    run: () => {
      throw new Error("broken");
    },
  }),
  tool({
    name: "panicky",
    description: "A test tool.",
    input: v.object({}),
    run: () => {
      throw "not an error";
    },
  }),
];

const script = () =>
  scriptedProvider([
    {
      toolCalls: [
        { name: "GOOD", arguments: '{"q":"x"}', id: "1" },
        { name: "bad", id: "2" },
        { name: "panicky", id: "3" },
      ],
    },
    "done",
  ]);

afterEach(() => {
  vi.restoreAllMocks();
});

describe("logging", () => {
  it("logs each call: info tool call, debug parameters, info result with ms, warn on error, error on panic", async () => {
    const logger = recordingLogger();
    await createClient({ provider: script(), tools, logger }).chat("go");
    const e = logger.entries;
    expect(e.filter((x) => x.message === "tool call")).toEqual([
      { level: "info", message: "tool call", fields: { tool: "good" } },
      { level: "info", message: "tool call", fields: { tool: "bad" } },
      { level: "info", message: "tool call", fields: { tool: "panicky" } },
    ]);
    expect(e.filter((x) => x.message === "tool parameters")).toEqual([
      { level: "debug", message: "tool parameters", fields: { tool: "good", args: '{"q":"x"}' } },
      { level: "debug", message: "tool parameters", fields: { tool: "bad", args: "{}" } },
      { level: "debug", message: "tool parameters", fields: { tool: "panicky", args: "{}" } },
    ]);
    const ok = e.filter((x) => x.level === "info" && x.message === "tool result");
    expect(ok).toHaveLength(1);
    expect(ok[0]!.fields).toEqual({ tool: "good", ms: expect.any(Number) });
    expect(ok[0]!.fields!.ms as number).toBeGreaterThanOrEqual(0);
    expect(e.filter((x) => x.level === "warn")).toEqual([
      { level: "warn", message: "tool error", fields: { tool: "bad", ms: expect.any(Number), error: "broken" } },
    ]);
    expect(e.filter((x) => x.level === "error")).toEqual([
      { level: "error", message: "tool panic", fields: { tool: "panicky", ms: expect.any(Number), error: "tool handler panicked: not an error" } },
    ]);
  });

  it("the call is logged before its parameters, and both before the outcome", async () => {
    const logger = recordingLogger();
    await createClient({ provider: script(), tools: tools.slice(0, 1), logger }).chat("go");
    const forGood = logger.entries.filter((x) => x.fields?.tool === "good").map((x) => x.message);
    expect(forGood).toEqual(["tool call", "tool parameters", "tool result"]);
  });

  it("is silent by default", async () => {
    const spies = (["log", "debug", "info", "warn", "error", "trace"] as const).map((m) => vi.spyOn(console, m).mockImplementation(() => {}));
    // a history needing repair would log a warning too
    const client = createClient({
      provider: script(),
      tools,
      history: [
        { role: "user", content: "x" },
        { role: "assistant", content: "", toolCalls: [{ id: "old", name: "good", arguments: "{}" }] },
      ],
    });
    await client.chat("go");
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });

  it("accepts console as the logger at run time", async () => {
    const info = vi.spyOn(console, "info").mockImplementation(() => {});
    const debug = vi.spyOn(console, "debug").mockImplementation(() => {});
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    await createClient({ provider: script(), tools, logger: console }).chat("go");
    expect(info).toHaveBeenCalledWith("tool call", { tool: "good" });
    expect(debug).toHaveBeenCalledWith("tool parameters", { tool: "good", args: '{"q":"x"}' });
    expect(warn).toHaveBeenCalledWith("tool error", expect.objectContaining({ tool: "bad" }));
    expect(error).toHaveBeenCalledWith("tool panic", expect.objectContaining({ tool: "panicky" }));
  });

  it("accepts console as the logger at the type level (and rejects an object missing a method)", () => {
    const logPath = fileURLToPath(new URL("../../src/base/log.ts", import.meta.url));
    const source = [
      `import type { Logger } from ${JSON.stringify(logPath.replace(/\.ts$/, ".js"))};`,
      "export const fromConsole: Logger = console;",
      "export const partial: Logger = { debug() {}, info() {}, warn() {} };",
    ].join("\n");
    const file = fileURLToPath(new URL("./__logger-type-check.ts", import.meta.url));
    const options: ts.CompilerOptions = {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
      types: [],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
    };
    const host = ts.createCompilerHost(options);
    const read = host.readFile.bind(host);
    host.readFile = (f) => (f === file ? source : read(f));
    const exists = host.fileExists.bind(host);
    host.fileExists = (f) => f === file || exists(f);
    const getSource = host.getSourceFile.bind(host);
    host.getSourceFile = (f, lang, ...rest) => (f === file ? ts.createSourceFile(f, source, lang) : getSource(f, lang, ...rest));
    const program = ts.createProgram([file], options, host);
    const diagnostics = ts.getPreEmitDiagnostics(program).filter((d) => d.file?.fileName === file);
    const lines = diagnostics.map((d) => d.file!.getLineAndCharacterOfPosition(d.start!).line + 1);
    // line 2 (console) type-checks; line 3 (no error method) does not
    expect(lines).toEqual([3]);
    expect(ts.flattenDiagnosticMessageText(diagnostics[0]!.messageText, "\n")).toContain("error");
  });
});
