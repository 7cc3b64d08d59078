// Every ```ts block of the documentation compiles, as a user would write it, against the built
// package: README.md, every page of docs/ (docs/**/*.md) and each example's README
// (examples/*/README.md). Each block is its own module in a fresh directory under .tmp/ (inside
// the repo, so "toolloop" resolves to dist/ through package.json `exports`, as it does for a user),
// all compiled in one tsc program with test/types/strict/tsconfig.json's options (strict,
// exactOptionalPropertyTypes, noUncheckedIndexedAccess, NodeNext). A failure names the markdown
// file and line (docs/cost.md:12:5) and tsc's message.
//
// Markers: HTML comments (invisible on GitHub and npm) on the lines right above a ```ts fence.
//   <!-- ts-prelude: client, apiKey -->   the block uses values the reader has (a client, a key) or an
//                                          earlier block defined: each name is a `declare` in PRELUDES
//                                          below, put before the block. Packages are imported by the
//                                          block itself, never by a prelude.
//   <!-- ts-expect-error TS2345: why -->  the block must fail with exactly these codes (a package bug,
//                                          reported); the test fails once it compiles, so drop the marker.
//   <!-- ts-skip: why -->                 not compiled at all (a signature summary that is not TypeScript).
//                                          Rare, and always with a reason.
// A marker anywhere else, an unknown one, or a prelude name the block does not use fails the test.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, sep } from "node:path";
import { afterAll, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");

/** The markdown files whose ```ts blocks are compiled, as repo-relative POSIX paths. */
function documentationFiles(): string[] {
  const docs = readdirSync(join(root, "docs"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f.split(sep).join("/")}`);
  const examples = readdirSync(join(root, "examples"), { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(root, "examples", e.name, "README.md")))
    .map((e) => `examples/${e.name}/README.md`);
  return ["README.md", ...docs.sort(), ...examples.sort()];
}

/** What a `ts-prelude` name declares. Values a reader has at hand, or an earlier block made. */
const PRELUDES: Record<string, string> = {
  // keys, ids and secrets
  apiKey: "declare const apiKey: string;",
  openaiKey: "declare const openaiKey: string;",
  model: "declare const model: string;",
  token: "declare const token: string;",
  TAVILY_API_KEY: "declare const TAVILY_API_KEY: string;",
  conversationId: "declare const conversationId: string;",
  env: "declare const env: { SIGNING_SECRET: string };", // a Worker's bindings
  // what the quickstart (or the reader) built
  client: 'declare const client: import("toolloop").Client;',
  provider: 'declare const provider: import("toolloop").Provider;',
  tools: 'declare const tools: import("toolloop").Tool[];',
  answerTools: 'declare const answerTools: import("toolloop").Tool[];',
  getWeather: 'declare const getWeather: import("toolloop").Tool<{ city: string }, { city: string; celsius: number }>;',
  // the runtime a block is written for (only what the block uses; the tsconfig has Node's and the DOM's types)
  Deno: "declare const Deno: { readTextFile(path: string): Promise<string> };",
  Bun: "declare const Bun: { write(path: string, data: string): Promise<number> };",
  // the reader's own helpers and data
  screenshotBase64: "declare const screenshotBase64: string;",
  data: "declare const data: string; // base64",
  renderPng: "declare function renderPng(year: number): Promise<string>; // base64",
  save: "declare function save(json: string): void;",
  load: 'declare function load(): import("toolloop").Message[];',
  log: "declare function log(...values: unknown[]): void;",
  // toolloop/http: inside your adapter's generate(request)
  options: 'declare const options: import("toolloop/http").ProviderOptions;',
  request: 'declare const request: import("toolloop").ModelRequest;',
  url: "declare const url: string;",
  payload: "declare const payload: unknown;",
  // the types the tool contract's summary refers to
  JSONSchema: 'type JSONSchema = import("toolloop").JSONSchema;',
  ToolContext: 'type ToolContext = import("toolloop").ToolContext;',
};

interface Block {
  /** The markdown file, repo-relative (README.md, docs/tools.md). */
  file: string;
  /** Line (1-based) of the block's first code line in that file. */
  line: number;
  code: string;
  prelude: string[];
  expectErrors: string[];
  skip?: string;
}

const MARKER = /^<!--\s*(ts-[\w-]*)(.*?)-->\s*$/;

/** The ```ts blocks and their markers; `problems` gets every misplaced or malformed marker. */
function readBlocks(file: string, markdown: string, problems: string[]): Block[] {
  const lines = markdown.split("\n");
  const blocks: Block[] = [];
  const used = new Set<number>();
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[1]!;
    const close = new RegExp(`^${fence[0] === "`" ? "`" : "~"}{${fence.length},}\\s*$`);
    let end = i + 1;
    while (end < lines.length && !close.test(lines[end]!)) end++;
    if (open[2] === "ts" || open[2] === "typescript") {
      const block: Block = { file, line: i + 2, code: lines.slice(i + 1, end).join("\n"), prelude: [], expectErrors: [] };
      for (let m = i - 1; m >= 0; m--) {
        const marker = MARKER.exec(lines[m]!);
        if (!marker) break;
        used.add(m);
        const [, kind, rest = ""] = marker;
        const where = `${file}:${m + 1}`;
        if (kind === "ts-prelude" && /^:\s*\S/.test(rest)) {
          for (const name of rest
            .slice(rest.indexOf(":") + 1)
            .split(",")
            .map((n) => n.trim())
            .filter(Boolean)) {
            if (!(name in PRELUDES)) problems.push(`${where}: unknown prelude "${name}" (add it to PRELUDES in test/bundle/readme-snippets.test.ts)`);
            else if (!new RegExp(`(?<![\\w$.])${name.replace(/\$/g, "\\$")}(?![\\w$])`).test(block.code))
              problems.push(`${where}: prelude "${name}" is not used by the block below`);
            else block.prelude.push(name);
          }
        } else if (kind === "ts-expect-error" && /^\s+(TS\d+\s*)+:\s*\S/.test(rest)) {
          block.expectErrors.push(...(rest.slice(0, rest.indexOf(":")).match(/TS\d+/g) ?? []));
        } else if (kind === "ts-skip" && /^:\s*\S/.test(rest)) {
          block.skip = rest.slice(rest.indexOf(":") + 1).trim();
        } else problems.push(`${where}: malformed marker ${lines[m]!.trim()} (ts-prelude: names | ts-expect-error TS1234: why | ts-skip: why)`);
      }
      blocks.push(block);
    }
    i = end;
  }
  lines.forEach((text, n) => {
    if (/<!--\s*ts-/.test(text) && !used.has(n)) problems.push(`${file}:${n + 1}: marker is not on the lines right above a \`\`\`ts block: ${text.trim()}`);
  });
  return blocks;
}

let dir: string | undefined;
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it("every ```ts block of README.md, docs/ and the examples' READMEs compiles against the built package (strict, exactOptionalPropertyTypes)", () => {
  if (!existsSync(join(root, "dist", "index.d.ts"))) throw new Error("dist/ is missing: run `npm run build` first");
  const problems: string[] = [];
  const files = documentationFiles();
  expect(files).toContain("docs/README.md");
  const blocks = files.flatMap((file) => readBlocks(file, readFileSync(join(root, file), "utf8"), problems));
  // The README's quickstart, and the pages with code today: a glob that finds nothing fails here.
  for (const file of ["README.md", "docs/tools.md", "docs/providers.md", "docs/mcp.md"])
    expect(blocks.filter((b) => b.file === file).length, file).toBeGreaterThan(0);

  mkdirSync(join(root, ".tmp"), { recursive: true });
  dir = mkdtempSync(join(root, ".tmp", "readme-snippets-"));
  const compiled = new Map<string, Block>();
  for (const [index, block] of blocks.entries()) {
    if (block.skip) continue;
    const file = `snippet${index}-L${block.line}.ts`;
    // One prelude line per name, so file line n is markdown line block.line + n - 1 - prelude.length.
    writeFileSync(join(dir, file), [...block.prelude.map((name) => PRELUDES[name]), block.code, "export {};", ""].join("\n"));
    compiled.set(file, block);
  }
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({ extends: join(root, "test", "types", "strict", "tsconfig.json"), files: [...compiled.keys()] }, null, 2),
  );

  let output = "";
  try {
    output = execFileSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", ".", "--pretty", "false", "--listFiles"], {
      cwd: dir,
      encoding: "utf8",
      stdio: "pipe",
    });
  } catch (err) {
    output = String((err as { stdout?: unknown }).stdout ?? err);
  }

  // tsc's diagnostics (a message may go on over indented lines), then --listFiles' absolute paths.
  const errors = new Map<string, { code: string; text: string }[]>();
  const programFiles: string[] = [];
  let last: { code: string; text: string } | undefined;
  for (const text of output.split("\n")) {
    const diag = /^(snippet\d+-L\d+\.ts)\((\d+),(\d+)\): error (TS\d+): (.*)$/.exec(text);
    if (diag) {
      const [, file, fileLine, col, code, message] = diag;
      const block = compiled.get(file!)!;
      const n = Number(fileLine) - block.prelude.length;
      const where = n >= 1 ? `${block.file}:${block.line + n - 1}:${col}` : `${block.file}:${block.line} (prelude ${block.prelude.join(", ")})`;
      last = { code: code!, text: `${where} ${code}: ${message}` };
      errors.set(file!, [...(errors.get(file!) ?? []), last]);
    } else if (text.startsWith(sep) || /^[A-Za-z]:[\\/]/.test(text)) programFiles.push(text.trim());
    else if (/^\s/.test(text) && last) last.text += `\n    ${text.trim()}`;
    else if (text.trim()) problems.push(`tsc: ${text}`);
  }
  for (const [file, block] of compiled) {
    const found = errors.get(file) ?? [];
    if (block.expectErrors.length === 0) problems.push(...found.map((e) => e.text));
    else {
      const codes = new Set(found.map((e) => e.code));
      const expected = new Set(block.expectErrors);
      if (found.length === 0) problems.push(`${block.file}:${block.line}: compiles now: remove its ts-expect-error marker`);
      else if (![...codes].every((c) => expected.has(c)) || ![...expected].every((c) => codes.has(c)))
        problems.push(`${block.file}:${block.line}: expected ${block.expectErrors.join(", ")} only, got:`, ...found.map((e) => e.text));
    }
  }
  expect(problems.join("\n\n")).toBe("");

  // "toolloop" resolved to the built package, as a user gets it, not to the sources.
  const norm = programFiles.map((f) => f.replace(/\\/g, "/"));
  const rootPosix = root.replace(/\\/g, "/");
  expect(norm).toContain(`${rootPosix}/dist/index.d.ts`);
  expect(norm.filter((f) => f.startsWith(`${rootPosix}/src/`) || f.startsWith(`${rootPosix}/adapters/`))).toEqual([]);
}, 60_000);
