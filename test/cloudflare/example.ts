// examples/cloudflare-worker as its tests run it: bundled as wrangler would, served by workerd
// (Miniflare) with its SQLite-backed Durable Object on disk, talking to the strict Claude mock
// through a gate that can hold or cut the model's answers, and to a payments mock that dedups
// by Idempotency-Key.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { type ClaudeMock, type MockTurn, startClaudeMock, validateRequest } from "../mock/claude.js";
import { root } from "../support/runtimes.js";
import { type ModelGate, startModelGate } from "./model-gate.js";
import { type PaymentsMock, startPaymentsMock } from "./payments-mock.js";
import { type Reader, read } from "./sse-client.js";
import { bundleWorker, type DurableRuntime, durableRuntime } from "./workerd.js";

export const API_KEY = "sk-ant-test";

/** The parts of wrangler.toml the tests must agree with (a few lines of TOML, read by pattern). */
export function wranglerConfig() {
  const toml = readFileSync(join(root, "examples/cloudflare-worker/wrangler.toml"), "utf8");
  const value = (key: string, text = toml) => new RegExp(`^${key}\\s*=\\s*"([^"]+)"`, "m").exec(text)?.[1];
  const flags = /^compatibility_flags\s*=\s*\[([^\]]*)\]/m.exec(toml)?.[1] ?? "";
  return {
    main: value("main"),
    compatibilityDate: value("compatibility_date"),
    compatibilityFlags: [...flags.matchAll(/"([^"]+)"/g)].map((m) => m[1]!),
    binding: value("name", toml.slice(toml.indexOf("[[durable_objects.bindings]]"))),
    className: value("class_name"),
    migratedClasses: /^new_sqlite_classes\s*=\s*\[\s*"([^"]+)"\s*\]/m.exec(toml)?.[1],
  };
}

export interface Example {
  runtime: DurableRuntime;
  mock: ClaudeMock;
  gate: ModelGate;
  payments: PaymentsMock;
  /** The model's next turns; an empty queue makes the mock answer 500 (no retry). */
  turns: MockTurn[];
  url(path: string): URL;
  chat(id: string, message: string): Promise<Reader & { error?: any }>;
  decide(id: string, decisions: unknown[]): Promise<Reader & { error?: any }>;
  follow(id: string, after?: number, how?: "header" | "query"): Promise<Reader & { error?: any }>;
  state(id: string): Promise<{ status: string; pending: any[]; payments: any[]; history: any[] }>;
  stop(id: string): Promise<Response>;
  /** Every request the mock received was one the real API accepts. */
  expectValidRequests(): void;
  dispose(): Promise<void>;
}

/** The example, configured as its wrangler.toml says; `model` answers each model request from its body (default: the `turns` queue). */
export function startExample(options: { heartbeatMs?: number; model?: ModelScript } = {}): Promise<Example> {
  const config = wranglerConfig();
  expect(config).toMatchObject({ main: "src/worker.ts", binding: "CONVERSATIONS", className: "Conversation", migratedClasses: "Conversation" });
  expect(config.compatibilityFlags).not.toContain("nodejs_compat");
  return startWorkerWithMocks({
    file: join(root, "examples/cloudflare-worker", config.main!),
    durableObjects: { [config.binding!]: config.className! },
    bindings: { HEARTBEAT_MS: String(options.heartbeatMs ?? 400) },
    compatibilityDate: config.compatibilityDate,
    compatibilityFlags: config.compatibilityFlags,
    ...(options.model && { model: options.model }),
  });
}

/** A model that answers from the request it gets (the Anthropic body, already validated by the mock); undefined makes the mock answer 500. */
export type ModelScript = (body: any) => MockTurn | undefined;

/** A worker with the example's routes and env (plus `bindings`), served with the mocks. */
export async function startWorkerWithMocks(options: {
  file: string;
  durableObjects: Record<string, string>;
  bindings?: Record<string, string>;
  compatibilityDate?: string | undefined;
  compatibilityFlags?: string[];
  model?: ModelScript;
}): Promise<Example> {
  const turns: MockTurn[] = [];
  const model = options.model ?? (() => turns.shift());
  const mock = await startClaudeMock({ apiKey: API_KEY, script: (body) => model(body) as MockTurn });
  const gate = await startModelGate(mock.url);
  const payments = await startPaymentsMock();
  const bindings: Record<string, string> = {
    ANTHROPIC_API_KEY: API_KEY,
    PROVIDER_BASE_URL: gate.url,
    MODEL: "claude-test-model",
    DECISION_SECRET: "test-decision-secret-of-32-characters",
    PAYMENTS_URL: payments.url,
    ...options.bindings,
  };
  const runtime = durableRuntime({
    script: await bundleWorker(options.file),
    durableObjects: options.durableObjects,
    bindings,
    ...(options.compatibilityDate && { compatibilityDate: options.compatibilityDate }),
    ...(options.compatibilityFlags && { compatibilityFlags: options.compatibilityFlags }),
  });
  await runtime.start();
  const url = (path: string) => new URL(path, runtime.url);
  const post = (path: string, body: unknown) =>
    read(url(path), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return {
    runtime,
    mock,
    gate,
    payments,
    turns,
    url,
    chat: (id, message) => post(`/chat/${id}`, { message }),
    decide: (id, decisions) => post(`/chat/${id}/decisions`, { decisions }),
    follow(id, after, how = "header") {
      if (after === undefined) return read(url(`/chat/${id}/events`));
      return how === "header"
        ? read(url(`/chat/${id}/events`), { headers: { "last-event-id": String(after) } })
        : read(url(`/chat/${id}/events?after=${after}`));
    },
    async state(id) {
      const res = await fetch(url(`/chat/${id}`));
      expect(res.status).toBe(200);
      return (await res.json()) as never;
    },
    stop: (id) => fetch(url(`/chat/${id}/stop`), { method: "POST" }),
    expectValidRequests() {
      for (const [i, r] of mock.requests.entries()) {
        expect({ i, method: r.method, path: r.path, key: r.headers["x-api-key"], version: !!r.headers["anthropic-version"] }).toEqual({
          i,
          method: "POST",
          path: "/v1/messages",
          key: API_KEY,
          version: true,
        });
        expect(validateRequest(r.body), `request ${i}: ${JSON.stringify(r.body).slice(0, 2000)}`).toBeUndefined();
      }
    },
    async dispose() {
      await runtime.dispose();
      await gate.close();
      await payments.close();
      await mock.close();
    },
  };
}

/** Waits (polling, with no request to the worker) until `check` holds. */
export async function eventually(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Ids strictly increasing, each event once. */
export function expectOrdered(events: { id: number }[]): void {
  for (let i = 1; i < events.length; i++) expect(events[i]!.id, `event ${i} after id ${events[i - 1]!.id}`).toBeGreaterThan(events[i - 1]!.id);
}

export const text = (events: { event: string; data: any }[]) =>
  events
    .filter((e) => e.event === "text-delta")
    .map((e) => e.data.text)
    .join("");
