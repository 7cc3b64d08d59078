// workerd through Miniflare with Durable Objects on disk, for tests that kill the runtime and
// start it again (TOOLCHAIN.md, "Durable runs in workerd"): dispose() SIGKILLs workerd, and a new
// Miniflare with the same name, class names and persist folder finds what was written before.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Miniflare } from "miniflare";
import { bundle, tmpRoot } from "../support/runtimes.js";

// Miniflare and workerd leave their scratch folders in os.tmpdir(): keep them in the repo.
process.env.TMPDIR = tmpRoot;

/** Bundles a worker source file as wrangler would, with toolloop resolved to the working tree. */
export function bundleWorker(file: string): Promise<string> {
  return bundle(file, { platform: "neutral", external: ["cloudflare:workers"] });
}

export interface DurableRuntimeOptions {
  script: string;
  /** Binding name → SQLite-backed Durable Object class exported by the script. */
  durableObjects: Record<string, string>;
  bindings?: Record<string, string>;
  compatibilityDate?: string;
  compatibilityFlags?: string[];
}

/** One workerd at a time over a persist folder that outlives it: start, kill, start again. */
export interface DurableRuntime {
  /** The current instance's base URL (a new port after each start). */
  readonly url: string;
  /** How many times workerd was started. */
  readonly starts: number;
  start(): Promise<string>;
  /** SIGKILLs workerd (a crash: requests in flight fail). */
  kill(): Promise<void>;
  /** Kills workerd if it runs and removes the persist folder. */
  dispose(): Promise<void>;
}

export function durableRuntime(options: DurableRuntimeOptions): DurableRuntime {
  mkdirSync(join(tmpRoot, "cloudflare"), { recursive: true });
  const persist = mkdtempSync(join(tmpRoot, "cloudflare", "do-"));
  let mf: Miniflare | undefined;
  let url = "";
  let starts = 0;
  const kill = async () => {
    const current = mf;
    mf = undefined;
    await current?.dispose();
  };
  return {
    get url() {
      return url;
    },
    get starts() {
      return starts;
    },
    async start() {
      if (mf) throw new Error("durableRuntime: already running");
      const { Miniflare } = await import("miniflare");
      mf = new Miniflare({
        name: "toolloop-durable-test",
        modules: true,
        script: options.script,
        compatibilityDate: options.compatibilityDate ?? "2025-09-01",
        compatibilityFlags: options.compatibilityFlags ?? [],
        bindings: options.bindings,
        durableObjects: Object.fromEntries(Object.entries(options.durableObjects).map(([binding, className]) => [binding, { className, useSQLite: true }])),
        durableObjectsPersist: persist,
        host: "127.0.0.1",
        port: 0,
      });
      url = (await mf.ready).toString();
      starts++;
      return url;
    },
    kill,
    async dispose() {
      await kill();
      rmSync(persist, { recursive: true, force: true });
    },
  };
}
