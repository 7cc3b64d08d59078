// The history invariant over real HTTP, for every adapter: random sequences of chats and
// streams, with tool steps (tools that succeed, throw, wait for cancellation, or do not
// exist), injected faults (an error status, a stream cut short, a mid-stream error event, a
// malformed event), aborts at random points (before a request leaves, while the server
// holds it, while tools run, on the first streamed delta) and add()s, against the
// wire-faithful mocks, which reject any request whose history an API would reject.
// After every operation the history is valid, no request was ever refused, every failure
// is one of the expected typed errors, and the next chat works.
//
// test/core/history.property.test.ts already runs this invariant 10,000 times against the
// scripted provider in-process; this one crosses the network, so it runs 400 cases per
// adapter (2,000 in all, about 850 operations per adapter) with a fixed seed, which keeps
// it to seconds.
import fc from "fast-check";
import * as v from "valibot";
import { afterAll, beforeAll, describe, it } from "vitest";
import { createClient, isToolloopError, tool } from "../../src/index.js";
import { historyProblems } from "../core/helpers.js";
import { type Mock, ROWS, type Row, type ScriptTurn } from "../faults/rows.js";

const RUNS = 400;

type ToolKind = "ok" | "throws" | "waits" | "unknown";
type Fault = "status" | "cut" | "event" | "malformed" | "not-json";
type Turn = { kind: "text" } | { kind: "tools"; calls: ToolKind[] } | { kind: "fault"; fault: Fault };
type Abort = { at: "none" } | { at: "request"; n: number; where: "client" | "server" } | { at: "tool"; n: number } | { at: "delta" };
type Op = { kind: "chat" | "stream"; turns: Turn[]; abort: Abort; reason: boolean } | { kind: "add" };

const turnArb: fc.Arbitrary<Turn> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: "text" as const }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("tools" as const),
      calls: fc.array(fc.constantFrom<ToolKind>("ok", "ok", "throws", "waits", "unknown"), { minLength: 1, maxLength: 3 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("fault" as const), fault: fc.constantFrom<Fault>("status", "cut", "event", "malformed", "not-json") }),
  },
);
const abortArb: fc.Arbitrary<Abort> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ at: "none" as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      at: fc.constant("request" as const),
      n: fc.integer({ min: 1, max: 3 }),
      where: fc.constantFrom("client" as const, "server" as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ at: fc.constant("tool" as const), n: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.constant({ at: "delta" as const }) },
);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constantFrom("chat" as const, "stream" as const),
      turns: fc.array(turnArb, { minLength: 1, maxLength: 4 }),
      abort: abortArb,
      reason: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "add" as const }) },
);
const configArb = fc.record({
  parallelTools: fc.boolean(),
  maxSteps: fc.integer({ min: 1, max: 4 }),
  finalAnswerOnMaxSteps: fc.boolean(),
});

/** One adapter's mock, driven by whatever the current operation planned. */
function harness(row: Row) {
  let mock: Mock;
  let plan: Turn[] = [];
  let current: Turn = { kind: "text" };
  let requests = 0;
  let seq = 0;
  let onRequest: (n: number, side: "client" | "server") => void = () => {};
  const refused: string[] = [];

  const faultReply = (fault: Fault, streaming: boolean) => {
    const json = { "content-type": "application/json", "x-should-retry": "false" };
    if (fault === "status" || !streaming) {
      if (fault === "not-json") return { status: 200, headers: { "content-type": "text/html" }, body: "<html>captive portal</html>" };
      return { status: 500, headers: json, body: row.errorBody(500).body };
    }
    if (fault === "cut") return { sse: row.partialStream(), cutAfter: true };
    if (fault === "event") return { sse: [...row.partialStream(), row.errorEvent("overloaded").sse] };
    if (fault === "not-json") return { status: 200, headers: { "content-type": "text/html" }, body: "<html>captive portal</html>" };
    return { sse: [...row.partialStream(), row.malformedEvent()] };
  };

  return {
    async start() {
      mock = await row.start({
        script: (body): ScriptTurn => {
          onRequest(requests, "server");
          const t = current;
          if (t.kind !== "tools" || row.toolChoiceNone(body)) return { text: "answer" };
          return {
            toolCalls: t.calls.map((k) => ({ id: `call_${++seq}`, name: k === "unknown" ? "no_such_tool" : k, input: { n: seq } })),
          };
        },
      });
    },
    close: () => mock.close(),
    provider() {
      return row.provider(mock, {
        maxRetries: 0,
        fetch: async (input, init) => {
          requests++;
          current = plan.shift() ?? { kind: "text" };
          onRequest(requests, "client");
          // nothing is queued for a request that will never leave (its signal is already aborted)
          if (current.kind === "fault" && !init?.signal?.aborted) {
            mock.enqueue(faultReply(current.fault, JSON.parse(String(init?.body)).stream === true || String(input).includes("alt=sse")));
          }
          const res = await fetch(input, init);
          if (res.status === 400 || res.status === 401 || res.status === 404) refused.push(`${res.status} ${await res.clone().text()}`);
          return res;
        },
      });
    },
    begin(turns: Turn[], hook: (n: number, side: "client" | "server") => void) {
      plan = [...turns];
      requests = 0;
      onRequest = hook;
    },
    refused,
  };
}

function checkHistory(client: ReturnType<typeof createClient>, when: string): void {
  const problems = historyProblems(client.history);
  if (problems.length) throw new Error(`history broken ${when}: ${problems.join("; ")}`);
}

describe.each(ROWS)("$label: history invariant over HTTP (property)", (row) => {
  const h = harness(row);
  beforeAll(() => h.start());
  afterAll(() => h.close());

  it(`holds across random chats, streams, faults, aborts and add()s (${RUNS} cases)`, async () => {
    await fc.assert(
      fc.asyncProperty(configArb, fc.array(opArb, { minLength: 1, maxLength: 4 }), async (cfg, ops) => {
        let toolStarts = 0;
        let abortTool = -1;
        let abortNow: () => void = () => {};
        const waits = (signal: AbortSignal) =>
          new Promise<string>((resolve, reject) => {
            const timer = setTimeout(() => resolve("waited"), 3);
            signal.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
          });
        const started = () => {
          if (++toolStarts === abortTool) abortNow();
        };
        const input = v.object({ n: v.number() });
        const tools = [
          tool({ name: "ok", description: "A test tool.", input, run: ({ n }) => (started(), `ok ${n}`) }),
          tool({
            name: "throws",
            description: "A test tool.",
            input,
            run: () => {
              started();
              throw new Error("tool failed");
            },
          }),
          tool({ name: "waits", description: "A test tool.", input, run: (_i, ctx) => (started(), waits(ctx.signal)) }),
        ];
        const client = createClient({ provider: h.provider(), tools, ...cfg });

        for (const op of ops) {
          if (op.kind === "add") {
            client.add({ role: "user", content: "added" });
            checkHistory(client, "after add()");
            continue;
          }
          const controller = new AbortController();
          const reason = op.reason ? new Error("caller's reason") : undefined;
          abortNow = () => controller.abort(reason);
          toolStarts = 0;
          abortTool = op.abort.at === "tool" ? op.abort.n : -1;
          const abort = op.abort;
          h.begin(op.turns, (n, side) => {
            if (abort.at === "request" && abort.n === n && abort.where === side) abortNow();
          });
          let result: { ok: true } | { ok: false; error: unknown };
          try {
            if (op.kind === "chat") {
              if (typeof (await client.chat("go", { signal: controller.signal })) !== "string") throw new Error("chat gave no string");
            } else {
              for await (const ev of client.stream("go", { signal: controller.signal })) {
                if (ev.type === "text-delta" && abort.at === "delta") abortNow();
              }
            }
            result = { ok: true };
          } catch (error) {
            result = { ok: false, error };
          }
          checkHistory(client, `after ${op.kind} (${JSON.stringify(op)})`);
          if (h.refused.length) throw new Error(`the mock refused a request: ${h.refused.join(" | ")}`);
          if (!result.ok) {
            const e = result.error as { code?: string; status?: number };
            const expected =
              (controller.signal.aborted && result.error === controller.signal.reason) ||
              (isToolloopError(e, "provider_error") && (e as { status?: number }).status !== 400) ||
              isToolloopError(e, "stream_error") ||
              isToolloopError(e, "max_steps");
            if (!expected) throw new Error(`unexpected rejection of ${JSON.stringify(op)}: ${String(result.error)}`);
          }
        }
        // whatever happened, the conversation goes on
        h.begin([{ kind: "text" }], () => {});
        const text = await client.chat("still there?");
        if (text !== "answer") throw new Error(`the final chat answered ${JSON.stringify(text)}`);
        checkHistory(client, "after the final chat");
        if (h.refused.length) throw new Error(`the mock refused a request: ${h.refused.join(" | ")}`);
      }),
      { seed: 8080, numRuns: RUNS },
    );
  }, 120_000);
});
