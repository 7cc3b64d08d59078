import { describe, expect, it } from "vitest";
import { Semaphore, type Release } from "../../src/semaphore.js";
import { settle, ticks } from "./helpers.js";

describe("Semaphore", () => {
  it("rejects a limit that is not a positive integer", () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => new Semaphore(bad)).toThrow(RangeError);
  });

  it("grants waiters in FIFO order", async () => {
    const sem = new Semaphore(1);
    const first = await sem.acquire();
    const order: number[] = [];
    const waiters = [1, 2, 3, 4].map((n) =>
      sem.acquire().then((release) => {
        order.push(n);
        return release;
      }),
    );
    first();
    for (const w of waiters) (await w)();
    expect(order).toEqual([1, 2, 3, 4]);
  });

  it("never lets a newcomer barge ahead of queued waiters when a slot frees", async () => {
    const sem = new Semaphore(1);
    const first = await sem.acquire();
    const order: string[] = [];
    const queued = sem.acquire().then((r) => (order.push("queued"), r));
    first();
    const late = sem.acquire().then((r) => (order.push("late"), r));
    (await queued)();
    (await late)();
    expect(order).toEqual(["queued", "late"]);
  });

  it("never has more than N holders, and exactly N while enough are waiting", async () => {
    const N = 3;
    const sem = new Semaphore(N);
    let holders = 0;
    let waiting = 0;
    let max = 0;
    const idleWhileWaiting: number[] = [];
    const worker = async (_: unknown, i: number) => {
      waiting++;
      const release = await sem.acquire();
      waiting--;
      holders++;
      max = Math.max(max, holders);
      await ticks(1 + (i % 4));
      holders--;
      release();
      // A freed slot goes straight to a waiter: none stays idle while someone waits.
      if (waiting > 0) idleWhileWaiting.push(sem.available);
    };
    await Promise.all(Array.from({ length: 20 }, worker));
    expect(max).toBe(N);
    expect(idleWhileWaiting.length).toBeGreaterThan(0);
    expect(idleWhileWaiting.every((free) => free === 0)).toBe(true);
    expect(sem.available).toBe(N);
  });

  it("an aborted waiter is removed and rejects with the abort reason; the others are unaffected", async () => {
    const sem = new Semaphore(1);
    const held = await sem.acquire();
    const a = new AbortController();
    const order: string[] = [];
    const w1 = sem.acquire().then((r) => (order.push("w1"), r));
    const w2 = settle(sem.acquire(a.signal));
    const w3 = sem.acquire().then((r) => (order.push("w3"), r));
    const reason = new Error("stop waiting");
    a.abort(reason);
    const r2 = await w2;
    expect(r2).toEqual({ ok: false, error: reason });
    held();
    (await w1)();
    (await w3)();
    expect(order).toEqual(["w1", "w3"]);
    expect(sem.available).toBe(1);
  });

  it("rejects with a DOMException AbortError when aborted without a reason", async () => {
    const sem = new Semaphore(1);
    const held = await sem.acquire();
    const a = new AbortController();
    const w = settle(sem.acquire(a.signal));
    a.abort();
    const r = await w;
    expect(r.ok).toBe(false);
    expect((r as { error: DOMException }).error).toBeInstanceOf(DOMException);
    expect((r as { error: DOMException }).error.name).toBe("AbortError");
    held();
    expect(sem.available).toBe(1);
  });

  it("rejects at once for an already-aborted signal, even with a free slot", async () => {
    const sem = new Semaphore(2);
    const a = new AbortController();
    a.abort("why");
    expect(await settle(sem.acquire(a.signal))).toEqual({ ok: false, error: "why" });
    expect(sem.available).toBe(2);
  });

  it("aborting after the grant does not take the slot away", async () => {
    const sem = new Semaphore(1);
    const a = new AbortController();
    const release = await sem.acquire(a.signal);
    a.abort();
    expect(sem.available).toBe(0);
    release();
    expect(sem.available).toBe(1);
  });

  it("a holder that throws still releases (try/finally), so the queue keeps moving", async () => {
    const sem = new Semaphore(1);
    const use = async (fn: () => Promise<void>) => {
      const release = await sem.acquire();
      try {
        await fn();
      } finally {
        release();
      }
    };
    const results = await Promise.allSettled([
      use(async () => {
        throw new Error("boom");
      }),
      use(async () => {}),
      use(async () => {
        throw new Error("again");
      }),
      use(async () => {}),
    ]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "fulfilled", "rejected", "fulfilled"]);
    expect(sem.available).toBe(1);
  });

  it("a double release is harmless: it frees one slot, not two", async () => {
    const sem = new Semaphore(2);
    const r1 = await sem.acquire();
    const r2 = await sem.acquire();
    r1();
    r1();
    expect(sem.available).toBe(1);
    // A waiter granted by the first release is not released again by the second.
    const r3 = await sem.acquire();
    const waiting = sem.acquire();
    let granted: Release | undefined;
    void waiting.then((r) => (granted = r));
    r3();
    r3();
    await ticks(2);
    expect(granted).toBeDefined();
    expect(sem.available).toBe(0);
    r2();
    granted!();
    granted!();
    expect(sem.available).toBe(2);
  });
});
