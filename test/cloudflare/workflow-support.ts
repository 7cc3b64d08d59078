// What the Workflows bridge's tests share: the fixture Worker served by workerd (Miniflare) with
// its Workflow binding and persistence, restartable the way a crash restarts it (dispose kills
// workerd; a new Miniflare on the same persist folder comes back with what was kept), and the
// side server that the fixture's tools send their side effects to.
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { join } from "node:path";
import type { Miniflare } from "miniflare";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { type ClaudeMock, type MockTurn, startClaudeMock } from "../mock/claude.js";
import { bundle, root, tmpRoot } from "../support/runtimes.js";

export interface SideRequest {
  path: string;
  key: string;
  body: any;
}

/** The tools' side effects: every request, payments deduplicated by Idempotency-Key, and requests held on demand. */
export interface SideServer {
  url: string;
  requests: SideRequest[];
  /** Payment ids by idempotency key: a key seen again gets the same payment, not a new one. */
  payments: Map<string, string>;
  /** Paths whose next request is held open (never answered) until release(). */
  hold: Set<string>;
  /** Runs when a request arrives, before it is answered or held. */
  onRequest?: (r: SideRequest) => void;
  /** Drops the held requests (their connections close, as a crash would close them). */
  release(): void;
  /** Resolves with the first request (from `from` on) that `match` takes. */
  next(match: (r: SideRequest) => boolean, from?: number): Promise<SideRequest>;
  close(): Promise<void>;
}

export async function startSide(): Promise<SideServer> {
  const held: ServerResponse[] = [];
  const sockets = new Set<Socket>();
  const waiters: (() => void)[] = [];
  const side: SideServer = {
    url: "",
    requests: [],
    payments: new Map(),
    hold: new Set(),
    release() {
      for (const res of held.splice(0)) res.socket?.destroy();
    },
    async next(match, from = 0) {
      for (;;) {
        const found = side.requests.slice(from).find(match);
        if (found) return found;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    let text = "";
    for await (const chunk of req) text += chunk;
    const path = new URL(req.url ?? "/", "http://side").pathname;
    const r: SideRequest = { path, key: String(req.headers["idempotency-key"] ?? ""), body: JSON.parse(text || "null") };
    side.requests.push(r);
    side.onRequest?.(r);
    // A payment is made when it arrives, even if its answer never gets back (a held request).
    if (path === "/pay" && !side.payments.has(r.key)) side.payments.set(r.key, `pay_${side.payments.size + 1}`);
    for (const w of waiters.splice(0)) w();
    if (side.hold.delete(path)) {
      held.push(res);
      return;
    }
    const answer = path === "/pay" ? { id: side.payments.get(r.key) } : { ok: true, n: side.requests.filter((x) => x.path === path).length };
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(answer));
  };
  const server = createServer((req, res) => void handle(req, res));
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  side.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return side;
}

export const DECISION_SECRET = "workflow-test-secret-of-32-characters!";

/** The fixture Worker in workerd with its Workflow; `restart()` kills workerd and starts it again on the same persisted state. */
export interface WorkflowWorker {
  url: string;
  create(id: string, params: Record<string, unknown>): Promise<void>;
  status(id: string): Promise<{ status: string; output?: any; error?: { name: string; message: string }; __LOCAL_DEV_STEP_OUTPUTS?: unknown[] }>;
  send(id: string, type: string, payload: unknown): Promise<void>;
  /** Polls status() until `done` holds for it. */
  until(id: string, done: (s: Awaited<ReturnType<WorkflowWorker["status"]>>) => boolean, ms?: number): Promise<Awaited<ReturnType<WorkflowWorker["status"]>>>;
  /**
   * Waits until the instance has kept `count` steps (step.do values and events; the local engine
   * lists them in status()), so a kill after it cannot catch a step that ran but was not kept yet.
   */
  kept(id: string, count: number): Promise<void>;
  /** Kills workerd (SIGKILL: requests in flight fail) and starts it again with the same persisted state. */
  restart(): Promise<void>;
  kill(): Promise<void>;
  start(): Promise<void>;
  /** Kills workerd and removes the persisted state. */
  close(): Promise<void>;
}

export async function startWorkflowWorker(env: Record<string, string>): Promise<WorkflowWorker> {
  const { Miniflare } = await import("miniflare");
  const script = await bundle("test/cloudflare/fixtures/workflow-worker.js", {
    platform: "neutral",
    external: ["cloudflare:workers"],
    alias: { "toolloop/cloudflare": join(root, "adapters/cloudflare/index.ts") },
  });
  const persist = mkdtempSync(join(tmpRoot, "workflow-persist-"));
  let mf: Miniflare | undefined;
  const w: WorkflowWorker = {
    url: "",
    async start() {
      mf = new Miniflare({
        modules: true,
        script,
        compatibilityDate: "2025-09-01",
        compatibilityFlags: [], // no nodejs_compat: the bridge must not need it
        bindings: env,
        workflows: { AGENT_RUN: { name: "agent-run", className: "AgentRun" } },
        workflowsPersist: join(persist, "workflows"),
        host: "127.0.0.1",
        port: 0,
      });
      w.url = (await mf.ready).toString();
    },
    async kill() {
      await mf?.dispose();
      mf = undefined;
    },
    async close() {
      await w.kill();
      rmSync(persist, { recursive: true, force: true });
    },
    async restart() {
      await w.kill();
      await w.start();
    },
    async create(id, params) {
      const res = await fetch(new URL("/create", w.url), { method: "POST", body: JSON.stringify({ id, params }) });
      if (!res.ok) throw new Error(`create: ${res.status} ${await res.text()}`);
    },
    async status(id) {
      const res = await fetch(new URL(`/status?id=${id}`, w.url));
      if (!res.ok) throw new Error(`status: ${res.status} ${await res.text()}`);
      return (await res.json()) as Awaited<ReturnType<WorkflowWorker["status"]>>;
    },
    async send(id, type, payload) {
      const res = await fetch(new URL(`/event?id=${id}`, w.url), { method: "POST", body: JSON.stringify({ type, payload }) });
      if (!res.ok) throw new Error(`event: ${res.status} ${await res.text()}`);
    },
    async kept(id, count) {
      await w.until(id, (s) => (s.__LOCAL_DEV_STEP_OUTPUTS?.length ?? 0) >= count);
    },
    async until(id, done, ms = 15_000) {
      const end = Date.now() + ms;
      for (;;) {
        const s = await w.status(id);
        if (done(s)) return s;
        if (Date.now() > end) throw new Error(`instance ${id} is still ${JSON.stringify(s).slice(0, 2000)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
  await w.start();
  return w;
}

/** The idempotency key the bridge gives the call `callId` asked for by model call `n` of an instance (tl_ + SHA-256). */
export function expectedKey(workflow: string, instance: string, n: number, callId: string): string {
  return `tl_${createHash("sha256").update(`${workflow}\n${instance}\n${n}\n${callId}`).digest("hex").slice(0, 40)}`;
}

/** The terminal states of an instance. */
export const settled = (s: { status: string }) => ["complete", "errored", "terminated"].includes(s.status);

/**
 * The servers a workflow test file runs against, started once for the file: the strict Claude
 * mock answering from `turns` (each test queues its own; an empty queue makes it answer 500), the
 * side server, and the worker. Registers the file's hooks; the fields are set once they ran.
 */
export function workflowSuite(turns: MockTurn[]): { mock: ClaudeMock; side: SideServer; worker: WorkflowWorker } {
  const suite = {} as { mock: ClaudeMock; side: SideServer; worker: WorkflowWorker };
  beforeAll(async () => {
    suite.mock = await startClaudeMock({ apiKey: "sk-ant-test", script: () => turns.shift() as MockTurn });
    suite.side = await startSide();
    suite.worker = await startWorkflowWorker({
      ANTHROPIC_API_KEY: "sk-ant-test",
      PROVIDER_BASE_URL: suite.mock.url,
      SIDE_URL: suite.side.url,
      DECISION_SECRET,
    });
  }, 60_000);
  beforeEach(() => {
    turns.length = 0;
    suite.side.hold.clear();
    suite.side.onRequest = undefined;
  });
  afterAll(async () => {
    await suite.worker?.close();
    await suite.side?.close();
    await suite.mock?.close();
  });
  return suite;
}
