// Node-side helpers for tests that run toolloop code in another runtime: bundle it with
// esbuild, run it in Deno or Bun, serve it from workerd (Miniflare), load it in Chromium,
// or run it with another Node version. Each runtime comes from npm (see TOOLCHAIN.md);
// nothing here is installed globally.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";

/** The repository root. */
export const root = resolve(fileURLToPath(new URL("../..", import.meta.url)));
/** Repo-local scratch space (TMPDIR of every child process). */
export const tmpRoot = join(root, ".tmp");
mkdirSync(tmpRoot, { recursive: true });

/** A quiet environment for child runtimes: no colours, no telemetry, temp dirs in the repo. */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NO_COLOR: "1",
    TMPDIR: tmpRoot,
    DENO_NO_UPDATE_CHECK: "1",
    DENO_DIR: join(tmpRoot, "deno"),
    DO_NOT_TRACK: "1",
    ...extra,
  };
  // Deno reads FORCE_COLOR=0 as "on"; vitest sets it in workers.
  delete env.FORCE_COLOR;
  return env;
}

// ---------------------------------------------------------------------------------------
// bundle()

/** Public subpath → source file, so bundles test the working tree, not a stale dist/. */
export const entrySources: Record<string, string> = {
  toolloop: "src/index.ts",
  "toolloop/testing": "src/testing.ts",
  "toolloop/claude": "adapters/claude/index.ts",
  "toolloop/openai": "adapters/openai/index.ts",
  "toolloop/gemini": "adapters/gemini/index.ts",
  "toolloop/tavily": "adapters/tavily/index.ts",
  "toolloop/mcp": "adapters/mcp/index.ts",
  "toolloop/claude-local": "adapters/claude-local/index.ts",
  "toolloop/cloudflare": "adapters/cloudflare/index.ts",
};

export interface BundleOptions {
  /** "browser" for pages, "neutral" for workerd / Deno / Bun / Node ESM. */
  platform: "browser" | "neutral";
  /** Extra import-path rewrites (exact specifier → absolute file). */
  alias?: Record<string, string>;
  /** Resolve "toolloop" / "toolloop/*" to the sources (default) or to the built dist/. */
  from?: "source" | "dist";
  /** Package-export conditions; default for neutral: workerd, worker, browser. */
  conditions?: string[];
  /** Specifiers left as imports (e.g. "node:*" for a Node/Deno runner). */
  external?: string[];
}

/** Resolves toolloop specifiers (and `alias` entries) before esbuild's own resolution. */
function toolloopResolver(from: "source" | "dist", alias: Record<string, string>): Plugin {
  return {
    name: "toolloop-resolver",
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (alias[args.path]) return { path: alias[args.path] };
        const src = entrySources[args.path];
        if (!src) return undefined;
        if (from === "source") return { path: join(root, src) };
        const name = args.path === "toolloop" ? "index" : args.path.slice("toolloop/".length);
        return { path: join(root, "dist", `${name}.js`) };
      });
    },
  };
}

/** Bundles `entry` (a file path) into one ESM module; resolves with its code. */
export async function bundle(entry: string, options: BundleOptions): Promise<string> {
  const neutral = options.platform === "neutral";
  const result = await build({
    entryPoints: [resolve(root, entry)],
    bundle: true,
    write: false,
    format: "esm",
    target: "es2022",
    platform: options.platform,
    // neutral has no default mainFields / conditions: give it the browser-ish set workerd uses.
    mainFields: neutral ? ["module", "main"] : undefined,
    conditions: options.conditions ?? (neutral ? ["workerd", "worker", "browser"] : undefined),
    external: options.external,
    plugins: [toolloopResolver(options.from ?? "source", options.alias ?? {})],
    logLevel: "silent",
    legalComments: "none",
  });
  return result.outputFiles[0]!.text;
}

// ---------------------------------------------------------------------------------------
// Child processes

export interface ProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion (killed after `timeoutMs`), capturing its output. */
export function runProcess(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<ProcessResult> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { cwd: options.cwd ?? root, env: options.env ?? childEnv(), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    // A hung runtime must fail the test, not the whole suite.
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 120_000);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolveRun({ code: code ?? (signal ? 128 : 1), stdout, stderr });
    });
  });
}

const bin = (name: string) => join(root, "node_modules", ".bin", name);

/** Deno permissions every runner here needs: the local mocks, files in the repo, env. */
export const denoPermissions = ["--allow-net=127.0.0.1,localhost", "--allow-read", "--allow-env"];

/**
 * `deno run` (default) or `deno test` a file with network access to 127.0.0.1 only.
 * `args` go to the script (after `--` for deno test).
 */
export function runDeno(file: string, args: readonly string[] = [], options: { test?: boolean; timeoutMs?: number } = {}): Promise<ProcessResult> {
  const cmd = options.test ? ["test", ...denoPermissions, "--no-check", file] : ["run", ...denoPermissions, "--no-check", file];
  return runProcess(bin("deno"), [...cmd, ...(args.length ? (options.test ? ["--", ...args] : args) : [])], { timeoutMs: options.timeoutMs });
}

/** `bun run` (default) or `bun test` a file. bunfig.toml keeps `bun test` inside test/bun. */
export function runBun(file: string, args: readonly string[] = [], options: { test?: boolean; timeoutMs?: number } = {}): Promise<ProcessResult> {
  const cmd = options.test ? ["test", file] : ["run", file];
  return runProcess(bin("bun"), [...cmd, ...args], { timeoutMs: options.timeoutMs });
}

/** Path of the Node 22 / 24 binary installed by tools/node-matrix (npm ci --prefix tools/node-matrix). */
export function nodeBinary(major: 22 | 24): string {
  const path = join(root, "tools", "node-matrix", "node_modules", `node${major}`, "bin", "node");
  if (!existsSync(path)) throw new Error(`Node ${major} is not installed: run npm ci --prefix tools/node-matrix (missing ${path})`);
  return path;
}

/** Runs `file` with Node `major` (22 or 24), or with the current Node for 20. */
export function runNode(major: 20 | 22 | 24, file: string, args: readonly string[] = [], options: { timeoutMs?: number } = {}): Promise<ProcessResult> {
  return runProcess(major === 20 ? process.execPath : nodeBinary(major), [file, ...args], { timeoutMs: options.timeoutMs });
}

// ---------------------------------------------------------------------------------------
// workerd

export interface WorkerOptions {
  /** Plain-text / JSON bindings on `env`. */
  bindings?: Record<string, unknown>;
  /** Durable Object bindings: binding name → exported class name. */
  durableObjects?: Record<string, string>;
  compatibilityDate?: string;
  /** Off by default: the library must not need Node compatibility. */
  compatibilityFlags?: string[];
}

/** Serves an ES module worker (source text) from workerd; resolves once it listens. */
export async function startWorker(script: string, options: WorkerOptions = {}): Promise<{ url: string; dispose: () => Promise<void> }> {
  const { Miniflare } = await import("miniflare");
  const mf = new Miniflare({
    modules: true,
    script,
    compatibilityDate: options.compatibilityDate ?? "2025-09-01",
    compatibilityFlags: options.compatibilityFlags ?? [],
    bindings: options.bindings as Record<string, never> | undefined,
    durableObjects: options.durableObjects,
    host: "127.0.0.1",
    port: 0,
  });
  const url = (await mf.ready).toString();
  return { url, dispose: () => mf.dispose() };
}

// ---------------------------------------------------------------------------------------
// Chromium

/** Flags that keep Chromium quiet on a closed network (TOOLCHAIN.md). */
const quietFlags = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Where Chromium comes from: Debian's if present, else the one inside @sparticuz/chromium. */
async function chromiumExecutable(): Promise<{ executablePath: string; args: string[] }> {
  if (existsSync("/usr/bin/chromium")) return { executablePath: "/usr/bin/chromium", args: [] };
  const { default: chromium } = await import("@sparticuz/chromium");
  // The package unpacks the binary and its libraries into os.tmpdir(). Unpack into a
  // private folder and rename it into place, so parallel test files never launch a
  // half-written binary and .tmp itself stays tidy.
  const home = join(tmpRoot, "sparticuz");
  if (!existsSync(join(home, "chromium"))) {
    const staging = mkdtempSync(join(tmpRoot, "sparticuz-"));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = staging;
    try {
      await chromium.executablePath();
    } finally {
      process.env.TMPDIR = saved;
    }
    try {
      renameSync(staging, home);
    } catch {
      rmSync(staging, { recursive: true, force: true }); // another process won the race
    }
  }
  return { executablePath: join(home, "chromium"), args: chromium.args };
}

/**
 * A headless Chromium with a throwaway profile under .tmp. `close` removes the profile.
 * `webSecurity`: enforce the same-origin policy and CORS, which @sparticuz/chromium's flags turn off.
 */
export async function launchChromium(
  options: { webSecurity?: boolean } = {},
): Promise<{ context: import("playwright-core").BrowserContext; close: () => Promise<void> }> {
  const { chromium } = await import("playwright-core");
  const { executablePath, args } = await chromiumExecutable();
  // (not .tmp/chromium: that is the binary @sparticuz/chromium unpacks)
  mkdirSync(join(tmpRoot, "chromium-profiles"), { recursive: true });
  const profile = mkdtempSync(join(tmpRoot, "chromium-profiles", "profile-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: [...new Set([...args, ...quietFlags])].filter((flag) => !(options.webSecurity && flag === "--disable-web-security")),
  });
  return {
    context,
    close: async () => {
      await context.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
