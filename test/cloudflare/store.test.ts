// durableObjectStore() in real workerd (Miniflare, SQLite-backed object on disk): values of any
// size round-trip, a long one is cut into chunks under the engine's 2 MB limit and written in one
// atomic put, stale chunks go, and what was written survives a crash of the runtime.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { durableObjectStore } from "../../adapters/cloudflare/store.js";
import { root } from "../support/runtimes.js";
import { bundleWorker, type DurableRuntime, durableRuntime } from "./workerd.js";

const CHUNK = 512 * 1024;
let runtime: DurableRuntime;

beforeAll(async () => {
  runtime = durableRuntime({ script: await bundleWorker(join(root, "test/cloudflare/fixtures/store-worker.ts")), durableObjects: { BOX: "Box" } });
  await runtime.start();
}, 60_000);

afterAll(async () => {
  await runtime?.dispose();
});

const at = (path: string) => new URL(path, runtime.url);
async function put(key: string, value: unknown) {
  const res = await fetch(at(`/kv/${encodeURIComponent(key)}`), { method: "PUT", body: JSON.stringify(value) });
  expect(res.status, await res.clone().text()).toBe(200);
}
async function get(key: string): Promise<unknown> {
  const res = await fetch(at(`/kv/${encodeURIComponent(key)}`));
  expect(res.status).toBe(200);
  return ((await res.json()) as { value: unknown }).value;
}
async function raw(): Promise<{ key: string; type: string; length: number }[]> {
  return ((await (await fetch(at("/raw"))).json()) as { keys: { key: string; type: string; length: number }[] }).keys;
}

/**
 * A value whose JSON is about `mb` million characters of mixed scripts: Latin-1, CJK (two bytes a
 * character once serialized) and emoji (surrogate pairs), with one emoji across the first chunk boundary.
 */
function bigValue(mb: number, seed: string) {
  const head = "x".repeat(CHUNK - '{"edge":"'.length - 1); // the emoji's high half is the chunk's last character
  const rows = Array.from({ length: Math.ceil((mb * 1_000_000) / 100) }, (_, i) => ({ i, text: `${seed} café 日本語 🙂 ${i} `.padEnd(80, "·") }));
  return { edge: `${head}🙂tail`, rows };
}

/** The stored chunks are exactly 0..n-1, none over CHUNK characters, adding up to the text: none stale, none missing. */
function expectChunksOf(key: string, text: string, chunks: { key: string; length: number }[]) {
  expect(chunks.length).toBeGreaterThanOrEqual(Math.ceil(text.length / CHUNK));
  expect(chunks.map((c) => c.key).sort()).toEqual(Array.from({ length: chunks.length }, (_, n) => `t:c:${key}:${n}`).sort());
  for (const c of chunks) expect(c.length).toBeLessThanOrEqual(CHUNK);
  expect(chunks.reduce((n, c) => n + c.length, 0)).toBe(text.length);
}

describe("durableObjectStore in workerd", () => {
  it("a small value is one key holding its JSON text, and comes back as JSON gives it", async () => {
    const value = { a: 1, nested: { list: [1, "two", null] }, text: "café 🙂" };
    await put("small", value);
    expect(await get("small")).toEqual(value);
    expect((await raw()).filter((k) => k.key.includes("small"))).toEqual([{ key: "t:v:small", type: "string", length: JSON.stringify(value).length }]);
    expect(await get("never-written")).toBeNull();
  });

  it("the engine itself refuses one value over 2 MB (the limit the chunks exist for)", async () => {
    const res = await fetch(at("/raw/too-big"), { method: "PUT", body: "日".repeat(1_100_000) });
    expect(res.status).toBe(500);
    expect(((await res.json()) as { error: string }).error).toMatch(/too big|too large/i);
  });

  it("a multi-MB value is written in chunks of at most 512 Ki characters and read back whole", async () => {
    const value = bigValue(3.5, "first");
    const text = JSON.stringify(value);
    expect(text.length).toBeGreaterThan(3_500_000);
    expect(text.charCodeAt(CHUNK - 1)).toBeGreaterThanOrEqual(0xd800); // a surrogate pair straddles the boundary
    await put("big", value);
    expect(await get("big")).toEqual(value);
    const keys = (await raw()).filter((k) => k.key.includes("big"));
    const chunks = keys.filter((k) => k.key.startsWith("t:c:big:"));
    expect(keys.find((k) => k.key === "t:v:big")).toMatchObject({ type: "object" });
    expectChunksOf("big", text, chunks);
    // The first chunk ends before the emoji, not between its halves.
    expect(chunks.find((c) => c.key === "t:c:big:0")!.length).toBe(CHUNK - 1);
  }, 60_000);

  it("a shorter value removes the chunks it no longer needs; a small one and delete() remove them all", async () => {
    const smaller = bigValue(1.2, "second");
    await put("big", smaller);
    expect(await get("big")).toEqual(smaller);
    expectChunksOf(
      "big",
      JSON.stringify(smaller),
      (await raw()).filter((k) => k.key.startsWith("t:c:big:")),
    );

    await put("big", { now: "small" });
    expect(await get("big")).toEqual({ now: "small" });
    expect((await raw()).filter((k) => k.key.includes("big")).map((k) => k.key)).toEqual(["t:v:big"]);

    await put("big", bigValue(1.2, "third"));
    await fetch(at("/kv/big"), { method: "DELETE" });
    expect(await get("big")).toBeNull();
    expect((await raw()).filter((k) => k.key.includes("big"))).toEqual([]);
  }, 60_000);

  it("concurrent puts to one key leave exactly the chunks of the value that won", async () => {
    const values = [bigValue(2.5, "a"), bigValue(0.6, "b"), bigValue(1.5, "c")];
    await Promise.all(values.map((v) => put("race", v)));
    const final = (await get("race")) as { rows: { text: string }[] };
    const winner = values.find((v) => v.rows[0]!.text === final.rows[0]!.text)!;
    expect(final).toEqual(winner);
    expectChunksOf(
      "race",
      JSON.stringify(winner),
      (await raw()).filter((k) => k.key.startsWith("t:c:race:")),
    );
  }, 60_000);

  it("what was written survives a crash of the runtime", async () => {
    const value = bigValue(2.2, "durable");
    await put("kept", value);
    await runtime.kill();
    await runtime.start();
    expect(runtime.starts).toBe(2);
    expect(await get("kept")).toEqual(value);
  }, 60_000);
});

describe("durableObjectStore options", () => {
  const storage = { get: async () => undefined, put: async () => {}, delete: async () => 0 } as never;
  it("refuses a misspelt or non-string option with what to write", () => {
    expect(() => durableObjectStore(storage, { prefx: "a:" } as never)).toThrow(/unknown option `prefx`; did you mean `prefix`/);
    expect(() => durableObjectStore(storage, { prefix: 3 } as never)).toThrow(/`prefix` must be a string/);
  });
  it("refuses a value that is not JSON at put", async () => {
    await expect(durableObjectStore(storage).put("k", undefined)).rejects.toThrow(/not JSON/);
  });
});
