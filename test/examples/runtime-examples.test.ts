// examples/deno/main.ts (Deno-native file tools) and examples/bun/main.ts (Bun-native note
// tools), each run offline in its own runtime against a folder this test prepares.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startClaudeMock } from "../mock/claude.js";
import { childEnv, root, runProcess, tmpRoot } from "../support/runtimes.js";
import { outputOf, requireDist, runExample } from "./helpers.js";

let dir: string | undefined;
beforeAll(() => requireDist());
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function scratch(): string {
  mkdirSync(join(tmpRoot, "examples"), { recursive: true });
  dir = mkdtempSync(join(tmpRoot, "examples", "run-"));
  return dir;
}

describe("examples/deno/main.ts in Deno", () => {
  it("lists and reads the folder with Deno's file APIs, allowed to read only that folder", async () => {
    const folder = scratch();
    writeFileSync(join(folder, "a-readme.txt"), "Project Kestrel\nsecond line\n");
    writeFileSync(join(folder, "b-data.csv"), "x,y\n");
    mkdirSync(join(folder, "subfolder"));
    const lines = outputOf(await runExample("deno", "examples/deno/main.ts", [folder], { denoFlags: [`--allow-read=${folder}`, "--allow-env"] }));
    expect(lines[0]).toMatch(/^No provider key found .*running offline against the scripted provider\.$/);
    expect(lines).toContain('tool call: list_files({"path":"."})');
    expect(lines).toContain('tool call: read_file({"path":"a-readme.txt"})');
    expect(lines.at(-1)).toBe('answer: The folder holds 2 file(s): a-readme.txt, b-data.csv. a-readme.txt begins with: "Project Kestrel"');
  });

  it("with ANTHROPIC_API_KEY, Claude drives the same tools (net allowed to 127.0.0.1 only)", async () => {
    const folder = scratch();
    writeFileSync(join(folder, "notes.txt"), "Meeting moved to Friday.");
    const mock = await startClaudeMock({
      apiKey: "sk-ant-test",
      script: [
        { toolCalls: [{ name: "list_files", input: {} }] },
        {
          toolCalls: [
            { name: "read_file", input: { path: "notes.txt" } },
            { name: "read_file", input: { path: "../secret" } },
          ],
        },
        { text: "The meeting moved to Friday." },
      ],
    });
    try {
      const lines = outputOf(
        await runExample("deno", "examples/deno/main.ts", [folder, "When", "is", "the", "meeting?"], {
          denoFlags: [`--allow-read=${folder}`, "--allow-env", "--allow-net=127.0.0.1"],
          env: { ANTHROPIC_API_KEY: "sk-ant-test", TOOLLOOP_BASE_URL: mock.url },
        }),
      );
      expect(lines[0]).toBe("Using claude (claude-sonnet-4-5).");
      expect(lines.at(-1)).toBe("answer: The meeting moved to Friday.");
      const results = mock.requests[2]!.body.messages.at(-1).content;
      expect(results[0]).toMatchObject({ type: "tool_result", content: "Meeting moved to Friday." });
      // A path outside the folder comes back as an error result, never as a read.
      expect(results[1].is_error).toBe(true);
      // (Claude's prompt caching may add a cache_control breakpoint to the newest message.)
      expect(mock.requests[0]!.body.messages[0].content).toMatchObject([{ type: "text", text: "When is the meeting?" }]);
    } finally {
      await mock.close();
    }
  });

  it("type-checks under deno check against the package as a user installs it", async () => {
    // A node_modules install (not the repo's self-reference: Deno does not map the
    // types-only chunks' .js specifiers to .d.ts for local files, only for packages).
    // A fixed path, so Deno's type-check cache (in DENO_DIR) is reused between runs.
    const project = join(tmpRoot, "examples", "deno-check");
    rmSync(project, { recursive: true, force: true });
    const pkg = join(project, "node_modules", "toolloop");
    mkdirSync(pkg, { recursive: true });
    cpSync(join(root, "dist"), join(pkg, "dist"), { recursive: true });
    cpSync(join(root, "package.json"), join(pkg, "package.json"));
    symlinkSync(join(root, "node_modules", "valibot"), join(project, "node_modules", "valibot"));
    writeFileSync(join(project, "package.json"), JSON.stringify({ type: "module", dependencies: { toolloop: "*", valibot: "*" } }));
    cpSync(join(root, "examples/deno/main.ts"), join(project, "main.ts"));
    const r = await runProcess(join(root, "node_modules/.bin/deno"), ["check", "main.ts"], { cwd: project, env: childEnv() });
    rmSync(project, { recursive: true, force: true });
    expect(r.code, r.stderr + r.stdout).toBe(0);
  }, 90_000); // a cold type check takes seconds
});

describe("examples/bun/main.ts in Bun", () => {
  it("saves a note with Bun.write, lists the folder with Bun.Glob and reads it back with Bun.file", async () => {
    const folder = scratch();
    writeFileSync(join(folder, "todo.md"), "renew passport");
    const lines = outputOf(await runExample("bun", "examples/bun/main.ts", [folder]));
    expect(lines[0]).toMatch(/^No provider key found .*running offline against the scripted provider\.$/);
    expect(lines).toContain('tool call: save_note({"name":"groceries","text":"eggs, flour, milk"})');
    expect(readFileSync(join(folder, "groceries.md"), "utf8")).toBe("eggs, flour, milk");
    expect(lines.at(-1)).toBe('answer: Saved. Your notes: groceries, todo. "groceries" says: eggs, flour, milk');
    expect(existsSync(join(folder, "todo.md"))).toBe(true);
  });

  it("with ANTHROPIC_API_KEY, Claude drives the same tools; a bad note name never reaches the disk", async () => {
    const folder = scratch();
    const mock = await startClaudeMock({
      apiKey: "sk-ant-test",
      script: [
        {
          toolCalls: [
            { name: "save_note", input: { name: "../escape", text: "x" } },
            { name: "save_note", input: { name: "ideas", text: "a bike shed" } },
          ],
        },
        { text: "Saved your idea." },
      ],
    });
    try {
      const lines = outputOf(
        await runExample("bun", "examples/bun/main.ts", [folder, "Note", "my", "idea"], {
          env: { ANTHROPIC_API_KEY: "sk-ant-test", TOOLLOOP_BASE_URL: mock.url, TOOLLOOP_MODEL: "claude-test-model" },
        }),
      );
      expect(lines[0]).toBe("Using claude (claude-test-model).");
      expect(lines.at(-1)).toBe("answer: Saved your idea.");
      expect(readFileSync(join(folder, "ideas.md"), "utf8")).toBe("a bike shed");
      expect(existsSync(join(folder, "..", "escape.md"))).toBe(false);
      // The invalid name was answered with a request to fix the arguments, not run.
      const results = mock.requests[1]!.body.messages.at(-1).content;
      expect(results[0].is_error).toBe(true);
      expect(JSON.stringify(results[0])).toContain("/name");
      expect(results[1].is_error ?? false).toBe(false);
    } finally {
      await mock.close();
    }
  });
});
