// The suites `npm test` runs, in order. Each resolves to { passed, failed, skipped }.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { checkPacked } from "../test/bundle/packed.mjs";
import { check, env, root, run, tmp } from "./run.mjs";

/** vitest in Node, counted from its JSON report. */
async function vitest(name, args = [], extraEnv = {}) {
  const out = join(tmp, `vitest-${name}.json`);
  rmSync(out, { force: true });
  await run("npx", ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${out}`, ...args], {
    env: { ...env, ...extraEnv },
  });
  // No report at all (vitest crashed before writing it) throws: counted as one failure by test.mjs.
  const report = JSON.parse(readFileSync(out, "utf8"));
  // Files that failed to load have no assertions: count each as a failure.
  const broken = report.testResults.filter((f) => f.status === "failed" && f.assertionResults.length === 0).length;
  return {
    passed: report.numPassedTests,
    failed: report.numFailedTests + broken,
    skipped: report.numPendingTests + report.numTodoTests,
  };
}

/** The conformance scenario (e2e/scenario.ts) in one runtime, hosted by e2e/host.test.ts. */
const e2e = (runtime) => vitest(`e2e-${runtime}`, ["--config", "e2e/vitest.config.ts"], { TOOLLOOP_E2E_RUNTIMES: runtime });

/** Counts a JUnit XML report (Deno and Bun write one). A non-zero exit with no failure counted is one failure. */
function junitCounts(file, code) {
  const xml = existsSync(file) ? readFileSync(file, "utf8") : "";
  const cases = xml.match(/<testcase\b[^>]*?(\/>|>[\s\S]*?<\/testcase>)/g) ?? [];
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (const c of cases) {
    if (/<(failure|error)\b/.test(c)) failed++;
    else if (/<skipped\b/.test(c)) skipped++;
    else passed++;
  }
  if (code !== 0 && failed === 0) failed = 1;
  return { passed, failed, skipped };
}

const testFiles = (dir) => (existsSync(join(root, dir)) ? readdirSync(join(root, dir)).filter((f) => /\.test\.(ts|js|mjs)$/.test(f)) : []);

/** test/deno/*.test.ts under `deno test` (local network, repo files, env, child processes for claude-local). */
async function denoTests() {
  if (testFiles("test/deno").length === 0) return { passed: 0, failed: 0, skipped: 0 };
  const out = join(tmp, "deno-junit.xml");
  rmSync(out, { force: true });
  const { code } = await run("node_modules/.bin/deno", [
    "test",
    "--allow-net=127.0.0.1,localhost",
    "--allow-read",
    "--allow-env",
    "--allow-run",
    `--allow-write=${tmp}`,
    `--junit-path=${out}`,
    "test/deno",
  ]);
  return junitCounts(out, code);
}

/** test/bun/*.test.ts under `bun test` (bunfig.toml keeps its root there, away from the vitest files). */
async function bunTests() {
  if (testFiles("test/bun").length === 0) return { passed: 0, failed: 0, skipped: 0 };
  const out = join(tmp, "bun-junit.xml");
  rmSync(out, { force: true });
  const { code } = await run("node_modules/.bin/bun", ["test", "--reporter=junit", `--reporter-outfile=${out}`]);
  return junitCounts(out, code);
}

const sum = (...rs) =>
  rs.reduce((a, r) => ({ passed: a.passed + r.passed, failed: a.failed + r.failed, skipped: a.skipped + (r.skipped ?? 0) }), {
    passed: 0,
    failed: 0,
    skipped: 0,
  });

/**
 * Each example checked in its own runtime's types, with "toolloop" resolving to the built dist/ through the
 * package's exports: deno check (Deno's types); tsc on each Worker's own tsconfig (@cloudflare/workers-types),
 * and on examples/bun/tsconfig.json (@types/bun), where "toolloop" is the root package referring to itself.
 */
async function typecheckExamples() {
  if (!existsSync(join(root, "dist", "index.d.ts"))) throw new Error("dist/ is missing: run `npm run build` first (the build suite runs before this one)");
  // The Worker examples have their own package.json (toolloop: file:../..), so "toolloop" is not a self-reference
  // there: link it as `npm install` in that folder does (a file: directory is a link into node_modules).
  for (const example of ["cloudflare-worker", "mcp-worker"]) {
    const link = join(root, "examples", example, "node_modules/toolloop");
    if (!existsSync(join(link, "package.json"))) {
      rmSync(link, { force: true }); // a dangling link is replaced
      mkdirSync(dirname(link), { recursive: true });
      symlinkSync("../../..", link, "junction");
    }
  }
  return sum(
    await check("node_modules/.bin/deno", ["check", "examples/deno/main.ts"]),
    await check("npx", ["tsc", "-p", "examples/cloudflare-worker"]),
    await check("npx", ["tsc", "-p", "examples/mcp-worker"]),
    await check("npx", ["tsc", "-p", "examples/bun"]),
  );
}

/** Node 22/24 come from tools/node-matrix (its own lock file); installed on first use. */
async function nodeMatrix(runtime) {
  if (!existsSync(join(root, "tools/node-matrix/node_modules/node22/bin/node")) || !existsSync(join(root, "tools/node-matrix/node_modules/node24/bin/node"))) {
    console.log("installing Node 22 and 24 (npm ci --prefix tools/node-matrix)");
    await run("npm", ["ci", "--prefix", "tools/node-matrix", "--no-audit", "--no-fund"]);
  }
  return e2e(runtime);
}

export const suites = [
  { name: "typecheck", run: () => check("npx", ["tsc", "-p", "."]) },
  // Built first: the tests and e2e typecheck against dist/ (the package resolving itself), and nothing builds on install.
  { name: "build", run: () => check("npx", ["tsup"]) },
  // The tests are code too: a wrong type there hides a wrong assertion.
  { name: "typecheck tests", run: () => check("npx", ["tsc", "-p", "tsconfig.test.json"]) },
  // One format and one set of lint rules everywhere (biome.json): `npx biome check --write` fixes most.
  { name: "format and lint", run: () => check("npx", ["biome", "ci", "--max-diagnostics=30"]) },
  // Unused exports and files in src/ and adapters/ (knip.json): internals nobody imports are not exported.
  { name: "unused exports", run: () => check("npx", ["knip", "--no-progress"]) },
  // The examples type-check in their own runtime's types, against the built package: one test each.
  { name: "typecheck examples", run: typecheckExamples },
  { name: "node (vitest)", run: () => vitest("node") },
  {
    name: "package",
    run: async () => {
      // What users install: the packed tarball, checked by publint and attw.
      const packed = await run("npm", ["pack", "--pack-destination", tmp, "--json"], { quiet: true });
      const file = join(tmp, JSON.parse(packed.output.slice(packed.output.indexOf("[")))[0].filename);
      const a = await check("npx", ["publint", "--strict", file]);
      const b = await check("npx", ["attw", file, "--profile", "node16", "--format", "table-flipped"]);
      // The packaging promises (no install script, LICENSE, maps, self-contained types, examples on file:../..), then a real install.
      const c = await checkPacked(file, { tmp, env });
      return sum(a, b, c);
    },
  },
  // The runtime matrix: its harness typechecked, then the same scenario in seven runtimes (Node ones run the built dist/,
  // so they come after "build"), plus each runtime's own test files.
  { name: "typecheck e2e", run: () => check("npx", ["tsc", "-p", "e2e"]) },
  { name: "node 20", run: () => e2e("node20") },
  { name: "node 22", run: () => nodeMatrix("node22") },
  { name: "node 24", run: () => nodeMatrix("node24") },
  { name: "deno", run: async () => sum(await e2e("deno"), await denoTests()) },
  { name: "bun", run: async () => sum(await e2e("bun"), await bunTests()) },
  { name: "workerd", run: () => e2e("workerd") },
  { name: "chromium", run: () => e2e("chromium") },
  // The official MCP conformance suite (Node 22) against mcpHandler and mcpTools on loopback: one test per scenario.
  { name: "mcp conformance", run: async () => (await import("./mcp-conformance.mjs")).conformance() },
];
export { root };
