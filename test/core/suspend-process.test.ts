// Save -> resume in a fresh process: a run suspended here is resumed by another Node process
// that only gets the saved JSON (and the same tools and secret), against the Claude mock over
// real HTTP. Nothing but the history crosses the process boundary.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import * as v from "valibot";
import { afterAll, describe, expect, it } from "vitest";
import { claude } from "../../adapters/claude/index.js";
import { createClient, suspension, tool } from "../../src/index.js";
import { type ClaudeMock, startClaudeMock } from "../mock/claude.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const KEY = "sk-ant-process";

// The other process's program: the same tool definition, built from the repo sources.
const RESUMER = `
import * as v from "valibot";
import { readFileSync } from "node:fs";
import { createClient, suspension, tool } from "./src/index.ts";
import { claude } from "./adapters/claude/index.ts";
const paid = [];
const pay = tool({ name: "pay", description: "Pays.", input: v.object({ amount: v.number() }), needsApproval: true, run: ({ amount }) => (paid.push(amount), "paid " + amount) });
const history = JSON.parse(readFileSync(process.env.HISTORY_FILE, "utf8"));
const client = createClient({ provider: claude({ apiKey: "${KEY}", model: "claude-sonnet-4-5", baseURL: process.env.BASE_URL }), tools: [pay], suspension: suspension({ secret: process.env.SECRET }), history });
const decisions = client.pending.map((p) => ({ callId: p.callId, approved: true }));
client.resume(decisions).then(
  (r) => console.log(JSON.stringify({ status: r.status, text: r.text, paid })),
  (e) => console.log(JSON.stringify({ error: e.code ?? String(e) })),
);
`;

let mock: ClaudeMock | undefined;
let dir: string | undefined;
afterAll(async () => {
  await mock?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function runNode(file: string, env: Record<string, string>): Promise<unknown> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [file], { env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${err.message}\n${stderr}`));
      else resolve(JSON.parse(stdout.trim().split("\n").at(-1)!));
    });
  });
}

describe("resume in a fresh process", () => {
  it("a signed suspended history saved as JSON resumes in another Node process; a tampered one is refused there", async () => {
    mock = await startClaudeMock({
      apiKey: KEY,
      script: [{ text: "Paying.", toolCalls: [{ id: "toolu_pay", name: "pay", input: { amount: 40 } }] }, { text: "Paid." }, { text: "unused" }],
    });
    const ran: number[] = [];
    const pay = tool({
      name: "pay",
      description: "Pays.",
      input: v.object({ amount: v.number() }),
      needsApproval: true,
      run: ({ amount }) => (ran.push(amount), `paid ${amount}`),
    });
    const client = createClient({
      provider: claude({ apiKey: KEY, model: "claude-sonnet-4-5", baseURL: mock.url }),
      tools: [pay],
      suspension: suspension({ secret: "proc-secret-proc-secret-proc-secret" }),
    });
    expect((await client.run("Pay 40.")).status).toBe("suspended");
    expect(ran).toEqual([]);

    const tmp = join(root, ".tmp");
    mkdirSync(tmp, { recursive: true });
    dir = mkdtempSync(join(tmp, "resume-process-"));
    const program = join(dir, "resume.mjs");
    await build({
      stdin: { contents: RESUMER, resolveDir: root, loader: "ts" },
      bundle: true,
      platform: "node",
      format: "esm",
      outfile: program,
      logLevel: "silent",
    });
    const saved = JSON.stringify(client.history);
    const good = join(dir, "history.json");
    writeFileSync(good, saved);
    const forged = join(dir, "forged.json");
    writeFileSync(forged, saved.replace('{\\"amount\\":40}', '{\\"amount\\":4000}'));

    const env = { BASE_URL: mock.url, SECRET: "proc-secret-proc-secret-proc-secret" };
    expect(await runNode(program, { ...env, HISTORY_FILE: forged })).toEqual({ error: "invalid_decision" });
    expect(await runNode(program, { ...env, HISTORY_FILE: good, SECRET: "another-secret-another-secret-another" })).toEqual({ error: "invalid_decision" });
    expect(mock.requests).toHaveLength(1);
    expect(await runNode(program, { ...env, HISTORY_FILE: good })).toEqual({ status: "done", text: "Paid.", paid: [40] });
    expect(mock.requests).toHaveLength(2);
    expect(JSON.stringify(mock.requests[1]!.body)).toContain("paid 40");
  });
});
