// The host of the conformance scenario (e2e/scenario.ts). For each runtime it bundles the
// scenario, starts fresh mock servers, runs the scenario there, and asserts the same
// summary for every runtime and provider. A runtime that cannot start fails every one of
// its tests (never a skip). TOOLLOOP_E2E_RUNTIMES=deno,bun selects runtimes (default: all).

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startClaudeMock } from "../test/mock/claude.js";
import { startOpenAIChatMock } from "../test/mock/openai-chat.js";
import { bundle, launchChromium, type ProcessResult, root, runBun, runDeno, runNode, startWorker, tmpRoot } from "../test/support/runtimes.js";
import type { E2EConfig, E2EReport } from "./entry.js";
import type { ScenarioSummary } from "./scenario.js";
import { ANSWERS, turnFor } from "./script.js";

const ALL = ["node20", "node22", "node24", "deno", "bun", "workerd", "chromium"] as const;
type Runtime = (typeof ALL)[number];

const selected = (process.env.TOOLLOOP_E2E_RUNTIMES?.split(",")
  .map((s) => s.trim())
  .filter(Boolean) ?? [...ALL]) as Runtime[];
const unknown = selected.filter((r) => !ALL.includes(r));
if (unknown.length) throw new Error(`unknown runtime(s) in TOOLLOOP_E2E_RUNTIMES: ${unknown.join(", ")}`);

/** What the runtime must report about itself (proves the code ran where we meant). */
const runtimePattern: Record<Runtime, RegExp> = {
  node20: /^node 20\./,
  node22: /^node 22\./,
  node24: /^node 24\./,
  deno: /^deno 2\./,
  bun: /^bun 1\./,
  workerd: /^workerd$/,
  chromium: /^chromium \d+/,
};

const work = (() => {
  mkdirSync(join(tmpRoot, "e2e"), { recursive: true });
  return mkdtempSync(join(tmpRoot, "e2e", "run-"));
})();

const cleanups: (() => Promise<void> | void)[] = [() => rmSync(work, { recursive: true, force: true })];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

// ---------------------------------------------------------------------------------------
// Bundles (built once per kind)

/** Node runs the built package: refuse a dist/ older than the sources instead of testing old code. */
function assertDistFresh(): void {
  const newest = (dir: string): number =>
    readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith(".ts"))
      .reduce((m, e) => Math.max(m, statSync(join(e.parentPath, e.name)).mtimeMs), 0);
  const built = join(root, "dist", "index.js");
  if (!existsSync(built)) throw new Error("dist/ is missing: run `npx tsup` (npm test builds before this suite)");
  if (Math.max(newest("src"), newest("adapters")) > statSync(built).mtimeMs) {
    throw new Error("dist/ is older than src/ or adapters/: run `npx tsup` (npm test builds before this suite)");
  }
}

const bundles = new Map<string, Promise<string>>();
/** Writes the bundle of `entry` and resolves with its path. Node runs the built dist/, the rest the sources. */
function bundleFile(entry: string, platform: "browser" | "neutral", from: "source" | "dist"): Promise<string> {
  const key = `${entry}:${platform}:${from}`;
  let p = bundles.get(key);
  if (!p) {
    if (from === "dist") assertDistFresh();
    p = bundle(entry, { platform, from }).then((code) => {
      const file = join(work, `${entry.replace(/\W+/g, "_")}-${platform}-${from}.mjs`);
      writeFileSync(file, code);
      return file;
    });
    bundles.set(key, p);
  }
  return p;
}

// ---------------------------------------------------------------------------------------
// Runtimes

function fromOutput(name: string, r: ProcessResult): E2EReport {
  const line = r.stdout.split("\n").find((l) => l.startsWith("E2E_REPORT "));
  if (!line) throw new Error(`${name} printed no report (exit ${r.code})\nstdout: ${r.stdout.slice(-2000)}\nstderr: ${r.stderr.slice(-2000)}`);
  return JSON.parse(line.slice("E2E_REPORT ".length)) as E2EReport;
}

async function inWorkerd(config: E2EConfig): Promise<E2EReport> {
  const file = await bundleFile("e2e/run-worker.ts", "neutral", "source");
  const worker = await startWorker(readFileSync(file, "utf8"));
  cleanups.push(worker.dispose);
  const res = await fetch(worker.url, { method: "POST", body: JSON.stringify(config) });
  const text = await res.text();
  if (!res.ok) throw new Error(`workerd answered ${res.status}: ${text.slice(0, 2000)}`);
  return JSON.parse(text) as E2EReport;
}

/** Serves the page and its bundle from 127.0.0.1 (another origin than the mocks: CORS is exercised). */
async function servePage(script: string): Promise<string> {
  const server = createServer((req, res) => {
    if (req.url === "/page.js") {
      res.writeHead(200, { "content-type": "text/javascript" }).end(script);
    } else if (req.url === "/") {
      res
        .writeHead(200, { "content-type": "text/html" })
        .end('<!doctype html><meta charset="utf-8"><title>toolloop e2e</title><script type="module" src="/page.js"></script>');
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

async function inChromium(config: E2EConfig): Promise<E2EReport> {
  const file = await bundleFile("e2e/run-page.ts", "browser", "source");
  const url = await servePage(readFileSync(file, "utf8"));
  const browser = await launchChromium();
  cleanups.push(browser.close);
  const page = await browser.context.newPage();
  const pageErrors: string[] = [];
  page.on("pageerror", (err) => pageErrors.push(err.message));
  await page.goto(url);
  await page
    .waitForFunction(() => typeof (globalThis as { runE2E?: unknown }).runE2E === "function", undefined, { timeout: 30_000 })
    .catch(() => {
      throw new Error(`the page never defined runE2E; page errors: ${pageErrors.join(" | ") || "none"}`);
    });
  return page.evaluate((cfg) => (globalThis as unknown as { runE2E: (c: unknown) => Promise<E2EReport> }).runE2E(cfg), config);
}

async function runIn(runtime: Runtime, config: E2EConfig): Promise<E2EReport> {
  const arg = JSON.stringify(config);
  switch (runtime) {
    case "node20":
    case "node22":
    case "node24": {
      const file = await bundleFile("e2e/run-cli.ts", "neutral", "dist");
      const major = Number(runtime.slice(4)) as 20 | 22 | 24;
      return fromOutput(runtime, await runNode(major, file, [arg]));
    }
    case "deno":
      return fromOutput("deno", await runDeno(await bundleFile("e2e/run-cli.ts", "neutral", "source"), [arg]));
    case "bun":
      return fromOutput("bun", await runBun(await bundleFile("e2e/run-cli.ts", "neutral", "source"), [arg]));
    case "workerd":
      return inWorkerd(config);
    case "chromium":
      return inChromium(config);
  }
}

// ---------------------------------------------------------------------------------------
// Mock servers: fresh ones per runtime, answering from the shared script (e2e/script.ts).

const API_KEY = "e2e-test-key";
const answer = (body: unknown) => turnFor(JSON.stringify((body as { messages?: unknown }).messages ?? []));

interface Mock {
  url: string;
  requests: { body: unknown }[];
  close(): Promise<void>;
}
/** label → how to start its mock and which config field carries the URL. */
const MOCKS: Record<string, { start: () => Promise<Mock>; field: "claudeURL" | "openaiURL" }> = {
  claude: { start: () => startClaudeMock({ apiKey: API_KEY, cors: true, script: answer }), field: "claudeURL" },
  "openai-compatible": { start: () => startOpenAIChatMock({ apiKey: API_KEY, cors: true, script: answer }), field: "openaiURL" },
};
const PROVIDERS = Object.keys(MOCKS);

// ---------------------------------------------------------------------------------------
// The run per runtime, started by the first test that needs it.

interface RuntimeRun {
  report: E2EReport;
  requests: Record<string, { body: unknown }[]>;
}

const runs = new Map<Runtime, Promise<RuntimeRun>>();
function runOf(runtime: Runtime): Promise<RuntimeRun> {
  let p = runs.get(runtime);
  if (!p) {
    p = (async () => {
      const config: E2EConfig = { apiKey: API_KEY };
      const requests: RuntimeRun["requests"] = {};
      const started: Mock[] = [];
      try {
        for (const [label, m] of Object.entries(MOCKS)) {
          const mock = await m.start();
          started.push(mock);
          config[m.field] = mock.url;
          requests[label] = mock.requests;
        }
        return { report: await runIn(runtime, config), requests };
      } finally {
        for (const m of started) await m.close();
      }
    })();
    runs.set(runtime, p);
  }
  return p;
}
const reportOf = async (runtime: Runtime) => (await runOf(runtime)).report;

async function summaryOf(runtime: Runtime, label: string): Promise<ScenarioSummary> {
  const report = await reportOf(runtime);
  const s = report.summaries.find((x) => x.label === label);
  if (!s) throw new Error(`no summary for ${label} in ${runtime}: ${JSON.stringify(report).slice(0, 500)}`);
  return s;
}

for (const runtime of selected) {
  describe(runtime, () => {
    it("starts and reports the expected runtime", async () => {
      const report = await reportOf(runtime);
      expect(report.runtime).toMatch(runtimePattern[runtime]);
    });

    for (const label of PROVIDERS) {
      it(`${label}: tools-parallel (3 calls, at most 2 at once, results in call order)`, async () => {
        const s = await summaryOf(runtime, label);
        expect(s.parallel).toEqual({
          maxConcurrency: 2,
          outputs: ['{"sum":5}', "HI", '{"sum":9}'],
          text: ANSWERS.parallel,
          steps: 2,
          toolCalls: 3,
        });
      });

      it(`${label}: stream (event types, finish last)`, async () => {
        const s = await summaryOf(runtime, label);
        expect(s.stream).toEqual({
          // A step ends after its tool results: step-finish follows them.
          types: ["tool-call-delta", "tool-call", "tool-result", "step-finish", "text-delta", "finish"],
          last: "finish",
          text: ANSWERS.stream,
          deltasMatchText: true,
          toolArgs: { fromDeltas: { a: 1, b: 1 }, input: { a: 1, b: 1 } },
          steps: 2,
        });
      });

      it(`${label}: ask (valibot schema)`, async () => {
        const s = await summaryOf(runtime, label);
        expect(s.ask).toEqual({ value: { city: "Paris", celsius: 21 } });
      });

      it(`${label}: approve (suspend, save as JSON, resume signed in a new client; a tampered copy is refused)`, async () => {
        const s = await summaryOf(runtime, label);
        expect(s.approve).toEqual({
          status: "suspended",
          pending: [{ name: "pay", kind: "approval", input: { amount: 40 } }],
          ranBeforeDecision: false,
          tampered: "invalid_decision",
          text: ANSWERS.approve,
          paid: [40],
        });
      });

      it(`${label}: abort-then-chat (abort during a slow tool, then a valid history)`, async () => {
        const s = await summaryOf(runtime, label);
        expect(s.abortThenChat).toEqual({
          error: "AbortError",
          cancelledOutput: '{"error":"cancelled"}',
          roles: ["user", "assistant", "tool", "user", "assistant"],
          text: ANSWERS.afterAbort,
          historyResumes: true,
        });
      });

      it(`${label}: durable run (a journal: the process dies while a tool runs; another continues from the record)`, async () => {
        const s = await summaryOf(runtime, label);
        expect(s.durable).toEqual({
          interrupted: true,
          first: { type: "recovery", step: 1, recoveries: 1, restart: false },
          results: [
            { isError: false, output: '{"sum":5}' },
            { isError: true, output: "interrupted" },
          ],
          text: ANSWERS.durable,
          status: "done",
        });
      });

      it(`${label}: key guard (a key for the vendor's own host: refused in a browser unless allowed)`, async () => {
        const { keyGuard } = await reportOf(runtime);
        const browser = runtime === "chromium";
        expect(keyGuard[label]).toEqual({ plain: browser ? "refused" : "sent", allowed: "sent" });
      });

      it(`${label}: wire (what the mock server received)`, async () => {
        const { requests } = await runOf(runtime);
        const bodies = requests[label]!.map((r) => r.body as { stream?: boolean });
        // parallel 2 + stream 2 + ask 1 + approve 2 + abort 1 + after-abort 1 + durable 2 (its first reply is
        // not asked for again); the key-guard runs never reach it.
        expect(bodies.length).toBe(11);
        expect(bodies.filter((b) => b.stream === true).length).toBe(3);
        // The request after the abort answers the cancelled call (the mock rejects unpaired calls too).
        expect(JSON.stringify(bodies.at(-3))).toContain('{\\"error\\":\\"cancelled\\"}');
      });
    }
  });
}
