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
/** The frozen requirement sets (requirements/<revision>.yaml in the suite, `--requirements`) toolloop must meet. */
const SPEC_VERSIONS = ["2025-11-25", "2026-07-28"];

/**
 * Scenarios a set runs without scoring (pending: the suite's own reference fixture cannot pass
 * them yet; added after the set was frozen) that toolloop implements, so they are held to
 * passing here too.
 */
const BEYOND = {
  "2025-11-25": { client: ["json-schema-2020-12-preservation"] },
  "2026-07-28": { server: ["http-custom-header-server-validation"], client: ["json-schema-2020-12-preservation"] },
};

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
    // 2026-07-28 (SEP-2575): every check passes except that its diagnostic tool must need
    // *sampling*; ours needs elicitation (the one client capability toolloop uses) and gets the
    // -32021 with HTTP 400 and requiredCapabilities { elicitation: {} } the check otherwise wants.
    "server-stateless": ["sampling (the -32021 probe expects a tool needing it)", /requiredCapabilities is not a ClientCapabilities object naming 'sampling'/],
    // 2026-07-28 (SEP-2549): list caching hints, checked on the lists toolloop does not serve (tools/list carries them).
    caching: ["prompts and resources (their list caching hints)", /(prompts|resources|resources\/templates)\/list returned JSON-RPC error -32601/],
    // 2026-07-28 multi round trip (SEP-2322): requestInput asks the user (elicitation), never the
    // client's model (sampling) or its file roots, so tools built on those do not exist here.
    "input-required-result-basic-sampling": ["sampling (the server borrowing the client's model)", /Unknown tool: test_input_required_result_sampling/],
    "input-required-result-basic-list-roots": ["roots (the client's file roots)", /Unknown tool: test_input_required_result_list_roots/],
    "input-required-result-multiple-input-requests": [
      "sampling and roots next to elicitation in one round",
      /Unknown tool: test_input_required_result_multiple_inputs/,
    ],
    "input-required-result-capability-check": [
      "sampling (the scenario's client can only be asked for sampling)",
      /Unknown tool: test_input_required_result_capabilities/,
    ],
    "input-required-result-non-tool-request": ["prompts (input_required from prompts/get)", /Method not found: prompts\/get/],
  },
  client: {},
};
/**
 * The client auth/* scenarios (mcpTools with oauth()) are held to the suite's own verdict as
 * well: its exit code is 0 only with no failed and no warning check (a SHOULD the client missed),
 * no timeout, and no client error unless the scenario expects one (a refused mismatch).
 */
const SUITE_VERDICT = (mode, scenario) => mode === "client" && scenario.startsWith("auth/");

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

/** One scenario's verdict from its checks (and, for a client, its stderr and the suite's exit code). */
function judge(mode, scenario, checks, extra = "", code = 0) {
  const failing = checks.filter((c) => c.status === "FAILURE");
  const refusal = REFUSED[mode][scenario];
  if (checks.length === 0) return { ok: false, how: "no checks recorded" };
  if (SUITE_VERDICT(mode, scenario) && code !== 0 && failing.length === 0) {
    const warned = checks.filter((c) => c.status === "WARNING").map((c) => `${c.id}: ${c.description ?? "warning"}`);
    return { ok: false, how: `FAILED by the suite (exit ${code})${warned.length ? `: warnings ${warned.join("; ")}` : ": a timeout or a client error"}` };
  }
  if (failing.length === 0) return { ok: true, how: refusal ? "passed (even though listed as not offered)" : "passed" };
  const why = failing.map((c) => `${c.id}: ${c.errorMessage ?? c.details?.message ?? "failed"}`).join("; ");
  if (!refusal) return { ok: false, how: `FAILED ${why}` };
  // Every failing check must itself be the refusal: one real failure among refusals still fails.
  const clean = failing.every((c) => refusal[1].test(`${c.errorMessage ?? ""} ${JSON.stringify(c.details ?? {})} ${extra}`));
  return clean ? { ok: true, how: `refused cleanly (${refusal[0]})` } : { ok: false, how: `not a clean refusal (${refusal[0]}): ${why}` };
}

/**
 * A frozen requirement set (`list --requirements`): the scenarios it scores per side, and
 * what it runs without scoring (extensions, pending, added after release) with the reason.
 */
async function listRequirements(version) {
  const { code, output } = await run(NODE22, [CLI, "list", "--requirements", version], { quiet: true });
  if (code !== 0) return { error: output.trim().split("\n").join(" ") };
  const required = { server: [], client: [] };
  const notScored = [];
  let section;
  let reason = "";
  for (const line of output.split("\n")) {
    if (/^Server scenarios/.test(line)) section = "server";
    else if (/^Client scenarios/.test(line)) section = "client";
    else if (/^Run and reported, but never scored/.test(line)) section = "not-scored";
    else if (section === "not-scored" && /^ {2}(\S+) \(\d+\):/.test(line)) reason = /^ {2}(\S+)/.exec(line)[1];
    else if (section === "not-scored" && /^ {4}- /.test(line)) notScored.push(`${line.trim().slice(2)} (${reason})`);
    else if ((section === "server" || section === "client") && /^ {2}- \S+/.test(line)) required[section].push(line.trim().slice(2));
  }
  return { required, notScored };
}

/** Runs `jobs` (async thunks) `width` at a time, in order of start. */
async function pool(jobs, width) {
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) await jobs[next++]();
  };
  await Promise.all(Array.from({ length: width }, worker));
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
  const nodeModule = join(work, "node.mjs");
  await bundle("hosts/node/index.ts", nodeModule);

  // mcpHandler on loopback (toolloop/node's serve()), allowing the localhost origins the DNS-rebinding scenario sends.
  const { conformanceHandler } = await import(pathToFileURL(serverModule).href);
  const { serve } = await import(pathToFileURL(nodeModule).href);
  let handler;
  const served = await serve((req) => handler(req));
  const base = served.url;
  const port = new URL(base).port;
  handler = conformanceHandler([`http://localhost:${port}`, `http://127.0.0.1:${port}`, `http://[::1]:${port}`]);
  const url = `http://localhost:${port}/mcp`;

  const totals = { passed: 0, failed: 0, skipped: 0 };
  const lines = [];
  try {
    for (const version of SPEC_VERSIONS) {
      const listed = await listRequirements(version);
      if (listed.error) {
        // Said and counted: a requirement set the installed suite does not have is a failure to prove conformance.
        totals.failed++;
        lines.push(`FAIL ${version}: no such requirement set in the installed @modelcontextprotocol/conformance (${listed.error})`);
        console.log(lines.at(-1));
        continue;
      }
      // Each revision's set runs at its own wire (2025-11-25: initialize handshake; 2026-07-28:
      // stateless), so a scenario in both sets runs twice. Scenarios are independent (fresh
      // connections, their own mock servers on ephemeral ports), so a few run at once.
      const results = [];
      const jobs = [];
      for (const mode of ["server", "client"]) {
        for (const scenario of [...listed.required[mode], ...(BEYOND[version]?.[mode] ?? [])]) {
          const slot = results.push(undefined) - 1;
          jobs.push(async () => {
            const out = join(work, version, mode, scenario.replace(/\//g, "_"));
            const common = ["--scenario", scenario, "--spec-version", version, "-o", out];
            let extra = "";
            let code = 0;
            if (mode === "server") {
              await run(NODE22, [CLI, "server", "--url", url, ...common], { quiet: true });
            } else {
              const r = await run(NODE22, [CLI, "client", "--command", `${NODE22} ${clientScript}`, ...common, "--timeout", "20000"], { quiet: true });
              extra = r.output;
              code = r.code;
            }
            const verdict = judge(mode, scenario, readChecks(out), extra, code);
            results[slot] = `${verdict.ok ? "ok  " : "FAIL"} ${mode} ${version} ${scenario}: ${verdict.how}`;
            if (verdict.ok) totals.passed++;
            else totals.failed++;
          });
        }
      }
      await pool(jobs, 4);
      for (const l of results) {
        lines.push(l);
        console.log(l);
      }
      const extra = new Set(Object.values(BEYOND[version] ?? {}).flat());
      lines.push(`${version}: not scored by the requirement set, not run: ${listed.notScored.filter((n) => !extra.has(n.split(" ")[0])).join(", ")}`);
    }
  } finally {
    await served.close({ timeout: 0 });
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
