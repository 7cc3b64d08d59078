// Small helpers for the test suites: run a command, stream its output, capture it.
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

export const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
export const tmp = join(root, ".tmp");
mkdirSync(tmp, { recursive: true });

/** Quiet, repo-local environment for every child (no colours, temp dirs inside the repo). */
export const env = {
  ...process.env,
  NO_COLOR: "1",
  TMPDIR: tmp,
  DENO_NO_UPDATE_CHECK: "1",
  DENO_DIR: join(root, ".tmp", "deno"),
  DO_NOT_TRACK: "1",
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
};
delete env.FORCE_COLOR;

/** Runs a command, echoing its output; resolves with { code, output }. */
export function run(cmd, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: root, env, ...options, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const take = (stream, sink) =>
      stream.on("data", (d) => {
        output += d;
        if (!options.quiet) sink.write(d);
      });
    take(child.stdout, process.stdout);
    take(child.stderr, process.stderr);
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

/** A check that is one test: passed when the command exits 0. */
export async function check(cmd, args, options) {
  const { code } = await run(cmd, args, options);
  return { passed: code === 0 ? 1 : 0, failed: code === 0 ? 0 : 1, skipped: 0 };
}
