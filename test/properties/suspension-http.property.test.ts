// Suspension and resume over real HTTP, for every adapter: random sequences of prompts and decision
// batches (through chat, stream, run and resume), with steps that mix calls which need nothing,
// need an approval, ask for input or wait for an external tool; saved histories reloaded into a new
// client (with the same secret, another one, or a call's arguments changed on the way); injected
// faults; batches with one bad decision in them; and step control beside it (a stepCountIs stop
// condition, toolChoice "required", prepareStep turning tools off at some step, onStepFinish).
// Against the wire-faithful mocks, which reject any request whose history an API would reject (so a
// pending result that reached a provider fails here).
//
// After every operation: the history is valid, no request was refused, `pending` agrees with what
// the call resolved (or the `suspended` event), a refused batch changed nothing and sent nothing,
// no handler that needs nothing or was approved ran twice, each call's steps reach onStepFinish
// numbered 1, 2, ..., and every failure is one of the expected typed errors. At the end every
// waiting call is decided and the next chat works.
//
// test/core/suspend*.test.ts cover each decision form on each wire one case at a time; this crosses
// them with each other, with faults and with reloads. Fixed seed, 300 cases per adapter (about
// 1,400 operations each, ~2 s); each of a skipped signature check, a prompt that leaves a call
// waiting, an approved handler run twice and a resumed run numbering its steps from 2 makes it
// fail.
import fc from "fast-check";
import * as v from "valibot";
import { afterAll, beforeAll, describe, it } from "vitest";
import {
  type Client,
  createClient,
  type Decision,
  externalTool,
  isToolloopError,
  type Message,
  type PendingCall,
  type RunResult,
  stepCountIs,
  suspension,
  tool,
} from "../../src/index.js";
import { historyProblems } from "../core/helpers.js";
import { type Mock, ROWS, type Row, type ScriptTurn } from "../faults/rows.js";

const RUNS = 300;

type CallKind = "ok" | "approve" | "ask" | "external" | "throws";
type Turn = { kind: "text" } | { kind: "tools"; calls: CallKind[] } | { kind: "fault" };
type Via = "chat" | "stream" | "run" | "resume";
/** What to do with one waiting call: a valid decision of some form, or leave it waiting. */
type Choice = "yes" | "edit" | "no" | "skip";
/** The one bad decision a batch may carry (it must refuse the whole batch). */
type Bad = "none" | "unknown" | "twice" | "wrong-form" | "bad-edit" | "bad-answer";
type Op =
  | { kind: "prompt"; via: Exclude<Via, "resume">; turns: Turn[]; abortAt: number }
  | { kind: "decide"; via: Via; choices: Choice[]; bad: Bad; turns: Turn[] }
  | { kind: "reload"; how: "same" | "other-secret" | "tamper" };

const turnArb: fc.Arbitrary<Turn> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: "text" as const }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("tools" as const),
      calls: fc.array(fc.constantFrom<CallKind>("ok", "approve", "approve", "ask", "external", "throws"), { minLength: 1, maxLength: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "fault" as const }) },
);
const turnsArb = fc.array(turnArb, { minLength: 1, maxLength: 3 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("prompt" as const),
      via: fc.constantFrom("chat" as const, "stream" as const, "run" as const),
      turns: turnsArb,
      // 0: no abort; n: the caller aborts when the n-th request of the call leaves
      abortAt: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 2 }) }),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("decide" as const),
      via: fc.constantFrom<Via>("chat", "stream", "run", "resume"),
      choices: fc.array(fc.constantFrom<Choice>("yes", "yes", "edit", "no", "skip"), { minLength: 3, maxLength: 3 }),
      bad: fc.oneof(
        { weight: 4, arbitrary: fc.constant("none" as const) },
        { weight: 1, arbitrary: fc.constantFrom<Bad>("unknown", "twice", "wrong-form", "bad-edit", "bad-answer") },
      ),
      turns: turnsArb,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("reload" as const), how: fc.constantFrom("same" as const, "other-secret" as const, "tamper" as const) }),
  },
);
const configArb = fc.record({
  parallelTools: fc.boolean(),
  maxSteps: fc.integer({ min: 2, max: 5 }),
  finalAnswerOnMaxSteps: fc.boolean(),
  // step control beside suspension: a stop condition, the client's toolChoice, and a step whose
  // prepareStep turns tools off (0: none of these)
  stopAfter: fc.integer({ min: 0, max: 3 }),
  toolChoice: fc.constantFrom("auto" as const, "required" as const),
  toolsOffAt: fc.integer({ min: 0, max: 3 }),
});

/** One adapter's mock, answering each request with the next planned turn. */
function harness(row: Row) {
  let mock: Mock;
  let plan: Turn[] = [];
  let seq = 0;
  let onRequest: () => void = () => {};
  const state = { requests: 0, refused: [] as string[] };
  return {
    state,
    async start() {
      mock = await row.start({
        script: (body): ScriptTurn => {
          const t = plan.shift() ?? { kind: "text" };
          if (t.kind !== "tools" || row.toolChoiceNone(body)) return { text: "answer" };
          return { toolCalls: t.calls.map((k) => ({ id: `call_${++seq}`, name: k, input: { n: seq } })) };
        },
      });
    },
    close: () => mock.close(),
    provider() {
      return row.provider(mock, {
        maxRetries: 0,
        fetch: async (input, init) => {
          state.requests++;
          onRequest();
          // A planned fault answers this request instead of the script (unless it never leaves).
          if (plan[0]?.kind === "fault") {
            plan.shift();
            if (!init?.signal?.aborted) {
              mock.enqueue({ status: 500, headers: { "content-type": "application/json", "x-should-retry": "false" }, body: row.errorBody(500).body });
            }
          }
          const res = await fetch(input, init);
          if (res.status === 400 || res.status === 401 || res.status === 404) state.refused.push(`${res.status} ${await res.clone().text()}`);
          return res;
        },
      });
    },
    /** Plans the next call's turns; `hook(n)` runs as its n-th request leaves. */
    begin(turns: Turn[], hook: (n: number) => void = () => {}) {
      plan = [...turns];
      let n = 0;
      onRequest = () => hook(++n);
    },
  };
}

const KINDS: Record<string, PendingCall["kind"]> = { approve: "approval", ask: "input", external: "external" };

describe.each(ROWS)("$label: suspension over HTTP (property)", (row) => {
  const h = harness(row);
  beforeAll(() => h.start());
  afterAll(() => h.close());

  it(`holds across random prompts, decisions, reloads and faults (${RUNS} cases)`, async () => {
    await fc.assert(
      fc.asyncProperty(configArb, fc.array(opArb, { minLength: 2, maxLength: 8 }), async ({ stopAfter, toolsOffAt, ...cfg }, ops) => {
        // callId → times a handler that must run once ran (checked outside: a throw in a handler is only a tool error)
        const runs = new Map<string, number>();
        const once = (ctx: { callId: string }) => void runs.set(ctx.callId, (runs.get(ctx.callId) ?? 0) + 1);
        const input = v.object({ n: v.number() });
        const tools = [
          tool({ name: "ok", description: "A test tool.", input, run: ({ n }, ctx) => (once(ctx), `ok ${n}`) }),
          tool({ name: "approve", description: "A test tool.", input, needsApproval: true, run: ({ n }, ctx) => (once(ctx), `approved ${n}`) }),
          tool({
            name: "ask",
            description: "A test tool.",
            input,
            run: async ({ n }, ctx) => {
              const a = (await ctx.requestInput!({ message: `which for ${n}?`, schema: v.object({ pick: v.string() }) })) as { pick: string };
              return `picked ${a.pick}`;
            },
          }),
          externalTool({ name: "external", description: "A test tool.", input }),
          tool({
            name: "throws",
            description: "A test tool.",
            input,
            run: (_i, ctx) => {
              once(ctx);
              throw new Error("tool failed");
            },
          }),
        ];
        // Each call's steps, as onStepFinish saw them: numbered 1, 2, ... within the call.
        let steps: number[] = [];
        const make = (secret: string, history?: readonly Message[]) =>
          createClient({
            provider: h.provider(),
            tools,
            suspension: suspension({ secret: `${secret}-a-secret-of-32-characters-at-least` }),
            history,
            ...cfg,
            ...(stopAfter && { stopWhen: stepCountIs(stopAfter) }),
            prepareStep: ({ step }) => (step === toolsOffAt ? { toolChoice: "none" } : undefined),
            onStepFinish: (s) => void steps.push(s.step),
          });
        let secret = "s1";
        let client: Client = make(secret);
        // Which secret signed each waiting call (the client's that suspended it), and the calls
        // whose arguments were changed on the way: decisions for those, or for calls another
        // secret signed, must be refused.
        const signedWith = new Map<string, string>();
        const tampered = new Set<string>();
        const untrusted = (id: string) => tampered.has(id) || signedWith.get(id) !== secret;
        const noteSigned = (ids: Iterable<string>) => {
          for (const id of ids) signedWith.set(id, secret);
        };

        const check = (when: string) => {
          if (steps.some((n, i) => n !== i + 1)) throw new Error(`steps ${steps.join(",")} ${when}`);
          steps = [];
          for (const [id, n] of runs) if (n > 1) throw new Error(`the handler for ${id} ran ${n} times ${when}`);
          const problems = historyProblems(client.history);
          if (problems.length) throw new Error(`history broken ${when}: ${problems.join("; ")}`);
          if (h.state.refused.length) throw new Error(`the mock refused a request ${when}: ${h.state.refused.join(" | ")}`);
          for (const p of client.pending) {
            if (p.kind !== KINDS[p.name]) throw new Error(`${p.callId} (${p.name}) waits as ${p.kind} ${when}`);
          }
        };
        const ids = (ps: readonly { callId: string }[]) => ps.map((p) => p.callId).join(",");

        /** Runs one call the way `via` says; resolves what it ended with. */
        const call = async (via: Via, prompt: string | undefined, decisions: Decision[] | undefined, signal?: AbortSignal) => {
          const o = { signal, decisions };
          if (via === "resume") return { result: await client.resume(decisions ?? [], { signal }) };
          if (via === "run") return { result: await client.run(prompt, o) };
          if (via === "chat") return { text: await client.chat(prompt, o) };
          let suspended: PendingCall[] | undefined;
          let finish: RunResult | undefined;
          for await (const ev of client.stream(prompt, o)) {
            if (ev.type === "suspended") suspended = ev.pending;
            if (ev.type === "finish") finish = ev;
          }
          if (!finish) throw new Error("the stream ended without finish");
          if ((finish.status === "suspended") !== !!suspended) throw new Error(`finish says ${finish.status} after ${suspended ? "a" : "no"} suspended event`);
          return { result: finish };
        };

        /** What a successful (or suspended) call must agree with. */
        const agrees = (out: { result?: RunResult; text?: string }, when: string) => {
          const pending = client.pending;
          if (out.result) {
            if (out.result.status === "suspended" ? ids(out.result.pending) !== ids(pending) || !pending.length : pending.length) {
              throw new Error(`${when}: resolved ${out.result.status} [${ids(out.result.pending)}] but pending is [${ids(pending)}]`);
            }
          } else if (pending.length) throw new Error(`${when}: chat resolved while [${ids(pending)}] wait`);
        };

        /** The expected failures: the caller's abort, a refused request from a fault, the step limit, a suspension (chat). */
        const expected = (err: unknown, signal: AbortSignal | undefined, when: string) => {
          if (signal?.aborted && err === signal.reason) return;
          if (isToolloopError(err, "provider_error") && (err as { status?: number }).status === 500) return;
          if (isToolloopError(err, "max_steps")) return;
          if (isToolloopError(err, "suspended")) {
            const got = ids((err as unknown as { pending: readonly { callId: string }[] }).pending);
            if (got !== ids(client.pending) || !got) throw new Error(`${when}: SuspendedError for [${got}] but pending is [${ids(client.pending)}]`);
            return;
          }
          throw new Error(`${when}: unexpected rejection: ${String(err)}`);
        };

        for (const op of ops) {
          const when = `after ${JSON.stringify(op)}`;
          if (op.kind === "reload") {
            const saved = JSON.parse(JSON.stringify(client.history)) as Message[];
            const waiting = client.pending;
            if (op.how === "tamper" && waiting.length) {
              // The first waiting call's arguments are changed in the saved copy.
              const target = waiting[0]!.callId;
              for (const m of saved) {
                if (m.role === "assistant") m.toolCalls = m.toolCalls?.map((c) => (c.id === target ? { ...c, arguments: '{"n":-1}' } : c));
              }
              tampered.add(target);
            }
            if (op.how === "other-secret") secret = secret === "s1" ? "s2" : "s1";
            client = make(secret, saved);
            check(when);
            continue;
          }

          if (op.kind === "prompt" || client.pending.length === 0) {
            const turns = op.turns;
            const controller = new AbortController();
            const abortAt = op.kind === "prompt" ? op.abortAt : 0;
            h.begin(turns, (n) => {
              if (n === abortAt) controller.abort(new Error("caller's reason"));
            });
            const via = op.kind === "prompt" ? op.via : op.via === "resume" ? "run" : op.via;
            try {
              agrees(await call(via, "go", undefined, controller.signal), when);
            } catch (err) {
              expected(err, controller.signal, when);
            }
            noteSigned(client.pending.filter((p) => !signedWith.has(p.callId)).map((p) => p.callId));
            check(when);
            continue;
          }

          // A batch of decisions for what waits (from the history: the client may be a reloaded one).
          const waiting = client.pending;
          const decisions: Decision[] = [];
          let mustRefuse = false;
          waiting.forEach((p, i) => {
            const choice = op.choices[i % op.choices.length]!;
            if (choice === "skip") return;
            if (p.kind === "external") decisions.push({ callId: p.callId, output: `external ${p.callId}` });
            else if (p.kind === "input") decisions.push({ callId: p.callId, answer: { pick: `${choice} ${p.callId}` } });
            else if (choice === "no") decisions.push({ callId: p.callId, approved: false, reason: "not now" });
            else if (choice === "edit") decisions.push({ callId: p.callId, approved: true, input: { n: 1000 + i } });
            else decisions.push({ callId: p.callId, approved: true });
          });
          const first = waiting[0]!;
          /** `d` in place of the first waiting call's decision (or added, if that call was skipped). */
          const swap = (d: Decision) => {
            const at = decisions.findIndex((x) => x.callId === first.callId);
            if (at < 0) decisions.push(d);
            else decisions[at] = d;
          };
          if (op.bad === "unknown") decisions.push({ callId: "call_unknown", approved: true });
          else if (op.bad === "twice")
            decisions.push(decisions[0] ?? { callId: first.callId, approved: false }, decisions[0] ?? { callId: first.callId, approved: false });
          else if (op.bad === "wrong-form")
            swap(first.kind === "approval" ? { callId: first.callId, answer: "yes" } : { callId: first.callId, approved: true });
          else if (op.bad === "bad-edit" && first.kind === "approval") swap({ callId: first.callId, approved: true, input: { n: "not a number" } });
          else if (op.bad === "bad-answer" && first.kind === "input") swap({ callId: first.callId, answer: { pick: 5 } });
          if (decisions.length > 0 && decisions.length !== new Set(decisions.map((d) => d.callId)).size) mustRefuse = true;
          if (op.bad === "unknown" || op.bad === "wrong-form") mustRefuse = true;
          if (op.bad === "bad-edit" && first.kind === "approval") mustRefuse = true;
          if (op.bad === "bad-answer" && first.kind === "input") mustRefuse = true;
          if (decisions.some((d) => d.callId !== "call_unknown" && untrusted(d.callId))) mustRefuse = true;

          const before = JSON.stringify(client.history);
          const requests = h.state.requests;
          h.begin(op.turns);
          let refused = false;
          try {
            agrees(await call(op.via, undefined, decisions), when);
          } catch (err) {
            if (isToolloopError(err, "invalid_decision")) refused = true;
            else expected(err, undefined, when);
          }
          if (refused !== mustRefuse) throw new Error(`${when}: the batch ${JSON.stringify(decisions)} was ${refused ? "" : "not "}refused`);
          if (refused) {
            if (JSON.stringify(client.history) !== before) throw new Error(`${when}: a refused batch changed the history`);
            if (h.state.requests !== requests) throw new Error(`${when}: a refused batch sent a request`);
          } else {
            // What still waits was signed again by this client (answers given so far are part of what is signed).
            const decided = new Set(decisions.map((d) => d.callId));
            noteSigned(client.pending.filter((p) => decided.has(p.callId) || !signedWith.has(p.callId)).map((p) => p.callId));
          }
          check(when);
        }

        // Whatever happened, every waiting call can be decided and the conversation goes on.
        for (let i = 0; client.pending.length > 0; i++) {
          if (i > 10) throw new Error("decisions never finished the run");
          const trusted = client.pending.filter((p) => !untrusted(p.callId));
          if (trusted.length === 0) break; // only a new prompt ends calls nobody can decide
          h.begin([{ kind: "text" }]);
          const r = await client.resume(
            trusted.map(
              (p): Decision =>
                p.kind === "external"
                  ? { callId: p.callId, output: "done" }
                  : p.kind === "input"
                    ? { callId: p.callId, answer: { pick: "last" } }
                    : { callId: p.callId, approved: true },
            ),
          );
          if (r.status === "done" && client.pending.length) throw new Error("done with calls still waiting");
          noteSigned(client.pending.filter((p) => !signedWith.has(p.callId)).map((p) => p.callId));
          check("while deciding what was left");
        }
        h.begin([{ kind: "text" }]);
        const text = await client.chat("still there?");
        if (text !== "answer") throw new Error(`the final chat answered ${JSON.stringify(text)}`);
        check("after the final chat");
      }),
      { seed: 2026_12_01, numRuns: RUNS },
    );
  }, 240_000);
});
