// Small helpers the fault tests share: drive a client in JSON or SSE mode, check the
// history invariant after a failure, find a port nothing listens on.
import { createServer } from "node:net";
import { expect } from "vitest";
import type { Client } from "../../src/index.js";
import { historyProblems } from "../core/helpers.js";

export type Mode = "json" | "sse";
export const MODES: Mode[] = ["json", "sse"];

/** chat() (a plain JSON request) or stream() (SSE), resolving to the final text. */
export async function drive(client: Client, prompt: string | undefined, mode: Mode, signal?: AbortSignal): Promise<string> {
  if (mode === "json") return client.chat(prompt, signal ? { signal } : undefined);
  let text: string | undefined;
  for await (const ev of client.stream(prompt, signal ? { signal } : undefined)) if (ev.type === "finish") text = ev.text;
  if (text === undefined) throw new Error("the stream ended without a finish event");
  return text;
}

/** Settles a promise into a value a test can look at. */
export async function outcome<T>(p: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: any }> {
  try {
    return { ok: true, value: await p };
  } catch (error) {
    return { ok: false, error };
  }
}

/** Awaits a rejection and returns the error (fails the test when the promise resolves). */
export async function rejection(p: Promise<unknown>): Promise<any> {
  const r = await outcome(p);
  if (r.ok) throw new Error(`expected a rejection, got ${JSON.stringify(r.value)}`);
  return r.error;
}

/** Every tool call in history has its result, in order, and the history is plain JSON. */
export function expectValidHistory(client: Client): void {
  expect(historyProblems(client.history)).toEqual([]);
}

/** No assistant message holds tool calls without the results right after it, and none is half a message. */
export function expectNoPartialAssistant(client: Client, before: number): void {
  const added = client.history.slice(before);
  for (const m of added) expect(m.role).not.toBe("assistant");
}

/** A TCP port on 127.0.0.1 that nothing listens on (bound, then closed). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Resolves once `check()` holds, polling on macrotasks; fails after `limit` polls. */
export async function until(check: () => boolean, limit = 2000): Promise<void> {
  for (let i = 0; i < limit; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error("condition never became true");
}
