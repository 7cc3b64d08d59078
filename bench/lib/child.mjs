// Starts bench/worker.mjs in a fresh Node process for one job and collects what it prints.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { benchDir } from "./bundle.mjs";

const worker = join(benchDir, "worker.mjs");

/**
 * Resolves { ok, result, progress, stderr, timedOut, elapsedMs }. Never rejects: a failed
 * or stopped run is data for the report. `timeoutMs` stops the process (SIGKILL).
 */
export function runWorker(job, { timeoutMs = 120_000, env } = {}) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, ["--expose-gc", worker, JSON.stringify(job)], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...env },
    });
    let out = "";
    let err = "";
    let timedOut = false;
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      const lines = out.split("\n").filter(Boolean);
      const progress = lines.filter((l) => l.startsWith("@")).map((l) => JSON.parse(l.slice(1)));
      let result;
      const last = lines.filter((l) => l.startsWith("{")).pop();
      if (code === 0 && last) result = JSON.parse(last);
      resolve({ ok: code === 0 && result !== undefined, result, progress, stderr: err.trim(), timedOut, elapsedMs: Date.now() - started });
    });
  });
}
