#!/usr/bin/env node
// The official MCP conformance suite (@modelcontextprotocol/conformance, run by Node 22 from
// tools/node-matrix) against toolloop on loopback: its server scenarios against mcpHandler
// (test/mcp/conformance/server.ts on node:http), its client scenarios against mcpTools
// (test/mcp/conformance/client.ts as the client command). Each scenario is one test. A
// scenario for a feature toolloop does not offer passes only when every failing check is a
// clean protocol refusal (REFUSED below says which, and why); every other scenario must pass
// outright. Prints one line per scenario; as a module, conformance() resolves { passed, failed }.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { root, run, tmp } from "./run.mjs";

const NODE22 = join(root, "tools/node-matrix/node_modules/node22/bin/node");
const CLI = join(root, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
/** Requirement sets asked for. 0.1.16 knows 2025-03-26, 2025-06-18, 2025-11-25, draft and extension. */
const SPEC_VERSIONS = ["2025-11-25", "2026-07-28"];

/** Scenarios of features toolloop does not offer, with what a clean refusal looks like. */
const REFUSED = {
  server: {
    "logging-set-level": ["logging (removed in 2026-07-28; toolloop has no server log stream)", /Method not found|-32601/],
    "completion-complete": ["completion", /Method not found|-32601|completions? capability/i],
    // It first calls logging/setLevel, which a tools-only server answers with -32601.
    "tools-call-with-logging": ["log notifications during a call", /Method not found: logging\/setLevel|-32601/],
    "tools-call-with-progress": ["progress notifications", /Unknown tool|-32602|No progress notifications/i],
    "tools-call-sampling": ["sampling (the server borrowing the client's model)", /Unknown tool|-32602/],
    "resources-list": ["resources", /Method not found|-32601/],
    "resources-read-text": ["resources", /Method not found|-32601/],
    "resources-read-binary": ["resources", /Method not found|-32601/],
    "resources-templates-read": ["resources", /Method not found|-32601/],
    "resources-subscribe": ["resources", /Method not found|-32601/],
    "resources-unsubscribe": ["resources", /Method not found|-32601/],
    "prompts-list": ["prompts", /Method not found|-32601/],
    "prompts-get-simple": ["prompts", /Method not found|-32601/],
    "prompts-get-with-args": ["prompts", /Method not found|-32601/],
    "prompts-get-embedded-resource": ["prompts", /Method not found|-32601/],
    "prompts-get-with-image": ["prompts", /Method not found|-32601/],
  },
  client: {},
};
// OAuth flows: mcpTools takes the caller's headers (a bearer token) and runs no OAuth dance; a 401 is a typed error.
const AUTH = ["OAuth authorization (mcpTools takes headers, runs no OAuth flow)", /401|unauthorized|Unauthorized|provider_error/];

async function bundle(entry, out) {
  await build({
    entryPoints: [join(root, entry)],
    outfile: out,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    logLevel: "error",
    // The bundled client runs under Node 22 from .tmp: keep runtime packages resolvable from the repo.
    packages: "bundle",
  });
}

function readChecks(dir) {
  const out = [];
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...readChecks(p));
    else if (entry.name === "checks.json") out.push(...JSON.parse(readFileSync(p, "utf8")));
  }
  return out;
}

/** One scenario's verdict from its checks (and, for a client, its stderr). */
function judge(mode, scenario, checks, extra = "") {
  const failing = checks.filter((c) => c.status === "FAILURE");
  const refusal = REFUSED[mode][scenario] ?? (scenario.startsWith("auth/") ? AUTH : undefined);
  if (checks.length === 0) return { ok: false, how: "no checks recorded" };
  if (failing.length === 0) return { ok: true, how: refusal ? "passed (even though listed as not offered)" : "passed" };
  const why = failing.map((c) => `${c.id}: ${c.errorMessage ?? c.details?.message ?? "failed"}`).join("; ");
  if (!refusal) return { ok: false, how: `FAILED ${why}` };
  const text = failing.map((c) => `${c.errorMessage ?? ""} ${JSON.stringify(c.details ?? {})}`).join(" ") + extra;
  return refusal[1].test(text) ? { ok: true, how: `refused cleanly (${refusal[0]})` } : { ok: false, how: `not a clean refusal (${refusal[0]}): ${why}` };
}

async function listScenarios(mode, version) {
  const { code, output } = await run(NODE22, [CLI, "list", `--${mode}`, "--spec-version", version], { quiet: true });
  if (code !== 0) return { error: output.trim().split("\n").join(" ") };
  return { scenarios: [...output.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]) };
}

export async function conformance() {
  if (!existsSync(NODE22)) {
    await run("npm", ["ci", "--prefix", "tools/node-matrix", "--no-audit", "--no-fund"]);
  }
  const work = join(tmp, "mcp-conformance");
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const serverModule = join(work, "server.mjs");
  const clientScript = join(work, "client.mjs");
  await bundle("test/mcp/conformance/server.ts", serverModule);
  await bundle("test/mcp/conformance/client.ts", clientScript);

  // mcpHandler on loopback, allowing the localhost origins the DNS-rebinding scenario sends.
  const { conformanceHandler } = await import(pathToFileURL(serverModule).href);
  const { serveFetch } = await import(pathToFileURL(join(root, "examples/mcp-node/node-http.mjs")).href);
  let handler;
  const { server, url: base } = await serveFetch((req) => handler(req));
  const port = new URL(base).port;
  handler = conformanceHandler([`http://localhost:${port}`, `http://127.0.0.1:${port}`, `http://[::1]:${port}`]);
  const url = `http://localhost:${port}/mcp`;

  const totals = { passed: 0, failed: 0, skipped: 0 };
  const lines = [];
  const seen = new Set();
  try {
    for (const version of SPEC_VERSIONS) {
      for (const mode of ["server", "client"]) {
        const listed = await listScenarios(mode, version);
        if (listed.error) {
          // Said, not counted: the installed suite has no such requirement set.
          lines.push(`${mode} ${version}: not in @modelcontextprotocol/conformance 0.1.16 (${listed.error})`);
          continue;
        }
        for (const scenario of listed.scenarios) {
          const key = `${mode}:${scenario}`;
          if (seen.has(key)) continue; // cumulative sets repeat scenarios
          seen.add(key);
          const out = join(work, mode, scenario.replace(/\//g, "_"));
          let extra = "";
          if (mode === "server") {
            await run(NODE22, [CLI, "server", "--url", url, "--scenario", scenario, "-o", out], { quiet: true });
          } else {
            const r = await run(NODE22, [CLI, "client", "--command", `${NODE22} ${clientScript}`, "--scenario", scenario, "--timeout", "20000", "-o", out], { quiet: true });
            extra = r.output;
          }
          const verdict = judge(mode, scenario, readChecks(out), extra);
          if (verdict.ok) totals.passed++;
          else totals.failed++;
          lines.push(`${verdict.ok ? "ok  " : "FAIL"} ${mode} ${version} ${scenario}: ${verdict.how}`);
          console.log(lines.at(-1));
        }
      }
    }
  } finally {
    server.closeAllConnections?.();
    await new Promise((r) => server.close(() => r()));
  }
  writeFileSync(join(work, "summary.txt"), lines.join("\n") + "\n");
  for (const l of lines.filter((l) => !/^(ok|FAIL) /.test(l))) console.log(l);
  console.log(`${totals.passed} passed, ${totals.failed} failed`);
  return totals;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const r = await conformance();
  process.exit(r.failed > 0 ? 1 : 0);
}
