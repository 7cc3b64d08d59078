// Abort at every point of a run, for every adapter over real HTTP: before the request,
// while the server has not sent its headers yet, in the middle of a stream, while tools
// run (sequentially and in parallel), and while the client sleeps before a retry. The run
// rejects with signal.reason (an AbortError unless the caller gave another reason),
// handlers see ctx.signal aborted, the history is valid afterwards (unanswered calls get
// {"error":"cancelled"}), and the next chat works against the same mock.

import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, type Tool, tool } from "../../src/index.js";
import { type Mock, ROWS, type Row, type Script } from "./rows.js";
import { drive, expectValidHistory, MODES, rejection, until } from "./support.js";

let mock: Mock | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

async function start(row: Row, script: Script): Promise<Mock> {
  mock = await row.start({ script });
  return mock;
}

/** A tool that waits until its call is cancelled, and records what its signal said. */
function waiter(seen: { started: string[]; aborted: { callId: string; reason: unknown }[] }): Tool {
  return tool({
    name: "wait_for_abort",
    description: "Waits until cancelled.",
    input: v.object({ n: v.number() }),
    run: (_input, ctx) =>
      new Promise((_resolve, reject) => {
        seen.started.push(ctx.callId);
        ctx.signal.addEventListener("abort", () => {
          seen.aborted.push({ callId: ctx.callId, reason: ctx.signal.reason });
          reject(ctx.signal.reason);
        });
      }),
  });
}

const threeCalls = {
  toolCalls: [
    { id: "call_w1", name: "wait_for_abort", input: { n: 1 } },
    { id: "call_w2", name: "wait_for_abort", input: { n: 2 } },
    { id: "call_w3", name: "wait_for_abort", input: { n: 3 } },
  ],
};

describe.each(ROWS)("$label: abort", (row) => {
  describe.each(MODES)("%s mode", (mode) => {
    it("before the request: rejects with the reason, sends nothing, leaves history as it was", async () => {
      const m = await start(row, [{ text: "next ok" }]);
      const client = createClient({ provider: row.provider(m) });
      const controller = new AbortController();
      controller.abort();
      const err = await rejection(drive(client, "hi", mode, controller.signal));
      expect(err).toBe(controller.signal.reason);
      expect(err.name).toBe("AbortError");
      expect(m.bodies()).toHaveLength(0);
      expect(client.history).toEqual([]);
      await expect(drive(client, "hi", mode)).resolves.toBe("next ok");
    });

    it("while the server has not answered yet (no headers): rejects with the caller's own reason", async () => {
      const controller = new AbortController();
      const reason = new Error("user pressed stop");
      const m = await start(row, (_body, index) => {
        // The mock is holding the request and has sent nothing back yet.
        if (index === 0) controller.abort(reason);
        return { text: index === 0 ? "too late" : "next ok" };
      });
      const client = createClient({ provider: row.provider(m) });
      const err = await rejection(drive(client, "hi", mode, controller.signal));
      expect(err).toBe(reason);
      expect(m.bodies()).toHaveLength(1);
      expect(client.history).toEqual([{ role: "user", content: "hi" }]);
      await expect(drive(client, "again", mode)).resolves.toBe("next ok");
      expectValidHistory(client);
    });

    it("while the client waits before a retry: rejects at once, no further request is sent", async () => {
      const m = await start(row, [{ text: "next ok" }]);
      const { body } = row.errorBody(503);
      m.enqueue({ status: 503, headers: { "content-type": "application/json", "retry-after": "30" }, body });
      const client = createClient({ provider: row.provider(m, { maxRetries: 3 }) });
      const controller = new AbortController();
      const run = drive(client, "hi", mode, controller.signal);
      await until(() => m.bodies().length === 1);
      controller.abort();
      const err = await rejection(run);
      expect(err.name).toBe("AbortError");
      expect(err).toBe(controller.signal.reason);
      expect(m.bodies()).toHaveLength(1);
      expect(client.history).toEqual([{ role: "user", content: "hi" }]);
      await expect(drive(client, "again", mode)).resolves.toBe("next ok");
      expect(m.bodies()).toHaveLength(2);
    });

    for (const parallel of [false, true]) {
      it(`while tools run (${parallel ? "parallel" : "sequential"}): handlers see the abort, every call is answered, the next chat works`, async () => {
        const m = await start(row, [threeCalls, { text: "next ok" }]);
        const seen = { started: [] as string[], aborted: [] as { callId: string; reason: unknown }[] };
        const client = createClient({ provider: row.provider(m), tools: [waiter(seen)], parallelTools: parallel, maxParallelTools: 2 });
        const controller = new AbortController();
        const run = drive(client, "hi", mode, controller.signal);
        await until(() => seen.started.length === (parallel ? 2 : 1));
        controller.abort();
        const err = await rejection(run);
        expect(err).toBe(controller.signal.reason);
        expect(err.name).toBe("AbortError");
        // every started handler saw its signal aborted with the run's reason
        expect(seen.aborted.map((a) => a.callId).sort()).toEqual([...seen.started].sort());
        for (const a of seen.aborted) expect(a.reason).toBe(controller.signal.reason);
        // the third call never started: the semaphore (parallel) or the sequence (sequential) stopped it
        expect(seen.started).not.toContain("call_w3");
        const history = client.history;
        expectValidHistory(client);
        expect(history.map((x) => x.role)).toEqual(["user", "assistant", "tool"]);
        const results = history[2]!.role === "tool" ? history[2]!.results : [];
        expect(results.map((r) => r.output)).toEqual(['{"error":"cancelled"}', '{"error":"cancelled"}', '{"error":"cancelled"}']);
        expect(results.every((r) => r.isError)).toBe(true);
        // The mock rejects unanswered calls: this request proves the history is valid on the wire.
        await expect(drive(client, "go on", mode)).resolves.toBe("next ok");
        const sent = row.toolResults(m.bodies()[1]);
        expect(sent.map((r) => r.id)).toEqual(["call_w1", "call_w2", "call_w3"]);
        expect(sent.map((r) => r.output)).toEqual(results.map((r) => r.output));
      });
    }
  });

  it("in the middle of a stream: rejects with the reason and leaves no half assistant message", async () => {
    const m = await start(row, [{ text: "next ok" }]);
    m.enqueue({ sse: row.partialStream(), hold: true });
    const client = createClient({ provider: row.provider(m) });
    const controller = new AbortController();
    const deltas: string[] = [];
    const err = await rejection(
      (async () => {
        for await (const ev of client.stream("hi", { signal: controller.signal })) {
          if (ev.type === "text-delta") {
            deltas.push(ev.text);
            controller.abort();
          }
        }
      })(),
    );
    expect(deltas).toEqual(["Hel"]);
    expect(err).toBe(controller.signal.reason);
    expect(client.history).toEqual([{ role: "user", content: "hi" }]);
    await expect(client.chat("again")).resolves.toBe("next ok");
    expectValidHistory(client);
  });

  it("in the middle of a stream after a tool step: completed steps stay, the history is valid", async () => {
    const seen: string[] = [];
    const echo = tool({ name: "echo", description: "A test tool.", input: v.object({ n: v.number() }), run: ({ n }) => (seen.push(String(n)), `echo ${n}`) });
    const m = await start(row, [{ toolCalls: [{ id: "call_e1", name: "echo", input: { n: 7 } }] }, { text: "next ok" }]);
    const client = createClient({ provider: row.provider(m), tools: [echo] });
    const controller = new AbortController();
    let step = 0;
    const err = await rejection(
      (async () => {
        for await (const ev of client.stream("hi", { signal: controller.signal })) {
          if (ev.type === "tool-result") m.enqueue({ sse: row.partialStream(), hold: true });
          if (ev.type === "step-finish") step = ev.step;
          if (ev.type === "text-delta" && step === 1) controller.abort();
        }
      })(),
    );
    expect(err).toBe(controller.signal.reason);
    expect(seen).toEqual(["7"]);
    expect(client.history.map((x) => x.role)).toEqual(["user", "assistant", "tool"]);
    expectValidHistory(client);
    await expect(client.chat("again")).resolves.toBe("next ok");
  });

  it("leaving the for-await early aborts the run and the history stays valid", async () => {
    const m = await start(row, [{ text: "next ok" }]);
    m.enqueue({ sse: row.partialStream(), hold: true });
    const client = createClient({ provider: row.provider(m) });
    for await (const ev of client.stream("hi")) if (ev.type === "text-delta") break;
    expect(client.history).toEqual([{ role: "user", content: "hi" }]);
    await expect(client.chat("again")).resolves.toBe("next ok");
  });
});
