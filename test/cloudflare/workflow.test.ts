// runAgentWorkflow in real workerd (Miniflare's local Workflows engine, persisted to disk): a run
// with tools, an approval that waits in waitForEvent and resumes with sendEvent, a question a tool
// asks, and a crash at each point of a run (workerd killed, started again on the same state).
// The model is the strict Claude mock, which counts requests; side effects go to a local server
// that counts them and dedups payments by Idempotency-Key.
import { beforeAll, describe, expect, it } from "vitest";
import type { ClaudeMock, MockTurn } from "../mock/claude.js";
import { expectedKey, type SideServer, settled, type WorkflowWorker, workflowSuite } from "./workflow-support.js";

let mock: ClaudeMock;
let side: SideServer;
let worker: WorkflowWorker;
/** The model's next turns; each test queues its own (an empty queue makes the mock answer 500). */
const turns: MockTurn[] = [];
let n = 0;
/** A fresh instance id per run. */
const newId = () => `run-${Date.now().toString(36)}-${++n}`;

const suite = workflowSuite(turns);
beforeAll(() => {
  ({ mock, side, worker } = suite);
});

/** The requests of the run `id` made to the model: the mock's requests from `from` on. */
const blocks = (body: any) =>
  body.messages.flatMap((m: any) => (typeof m.content === "string" ? [{ role: m.role, type: "text" }] : m.content.map((b: any) => ({ role: m.role, ...b }))));
const toolResults = (body: any) => blocks(body).filter((b: any) => b.type === "tool_result");
const sideOf = (path: string, from = 0) => side.requests.slice(from).filter((r) => r.path === path);

describe("runAgentWorkflow in workerd", () => {
  it("runs an agent with tools to the end: each call gets its idempotency key, the output holds the totals and the history", async () => {
    const id = newId();
    const before = mock.requests.length;
    const sideBefore = side.requests.length;
    turns.push({ text: "Noting it.", toolCalls: [{ id: "toolu_rec_1", name: "record", input: { note: "milk" } }] }, { text: "Noted: milk." });
    await worker.create(id, { message: "Remember milk." });
    const s = await worker.until(id, settled);
    expect(s.status, JSON.stringify(s.error)).toBe("complete");
    expect(s.output).toMatchObject({ status: "done", text: "Noted: milk.", steps: 2, toolCalls: 1, toolFailures: 0, pending: [] });
    expect(s.output.usage.inputTokens).toBeGreaterThan(0);
    expect(s.output.history.map((m: any) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    // two model requests, the second with the tool's result; one side effect, with the call's key
    expect(mock.requests.length - before).toBe(2);
    expect(toolResults(mock.requests.at(-1)!.body)).toMatchObject([{ tool_use_id: "toolu_rec_1" }]);
    const records = sideOf("/record", sideBefore);
    expect(records).toHaveLength(1);
    expect(records[0]!.body).toMatchObject({ note: "milk", callId: "toolu_rec_1" });
    expect(records[0]!.key).toBe(expectedKey("", id, 1, "toolu_rec_1"));
  });

  it("an approval waits in waitForEvent; a refused batch waits again; sendEvent with the decisions resumes the run", async () => {
    const id = newId();
    const before = mock.requests.length;
    const sideBefore = side.requests.length;
    turns.push({ text: "I will pay.", toolCalls: [{ id: "toolu_pay_1", name: "pay", input: { amount: 40, to: "ACME" } }] }, { text: "Paid 40 to ACME." });
    await worker.create(id, { message: "Pay ACME 40." });
    const first = await side.next((r) => r.path === "/suspended" && r.body.instanceId === id, sideBefore);
    expect(first.body).toMatchObject({
      round: 1,
      eventType: "decisions",
      pending: [{ callId: "toolu_pay_1", name: "pay", kind: "approval", input: { amount: 40, to: "ACME" } }],
    });
    expect(first.body.refused).toBeUndefined();
    expect(sideOf("/pay", sideBefore)).toHaveLength(0); // nothing paid before the approval
    expect((await worker.status(id)).status).not.toBe("complete");

    // A decision for a call that does not wait is refused as a batch: nothing runs, the run waits again.
    const refusedAt = side.requests.length;
    await worker.send(id, "decisions", { decisions: [{ callId: "toolu_nope", approved: true }] });
    const again = await side.next((r) => r.path === "/suspended" && r.body.instanceId === id, refusedAt);
    expect(again.body).toMatchObject({ round: 1, pending: [{ callId: "toolu_pay_1" }], refused: { message: expect.stringMatching(/toolu_nope/) } });
    expect(sideOf("/pay", sideBefore)).toHaveLength(0);

    await worker.send(id, "decisions", { decisions: [{ callId: "toolu_pay_1", approved: true }] });
    const s = await worker.until(id, settled);
    expect(s.status, JSON.stringify(s.error)).toBe("complete");
    expect(s.output).toMatchObject({ status: "done", text: "Paid 40 to ACME.", steps: 2, toolCalls: 1, pending: [] });
    const pays = sideOf("/pay", sideBefore);
    expect(pays).toHaveLength(1);
    expect(pays[0]!.key).toBe(expectedKey("", id, 1, "toolu_pay_1"));
    expect(mock.requests.length - before).toBe(2);
    expect(toolResults(mock.requests.at(-1)!.body)).toMatchObject([{ tool_use_id: "toolu_pay_1", content: expect.stringContaining("pay_") }]);
  });

  it("a wait that times out ends the workflow with status suspended, the pending calls and a history to resume", async () => {
    const id = newId();
    turns.push({ text: "Paying.", toolCalls: [{ id: "toolu_pay_t", name: "pay", input: { amount: 1, to: "B" } }] });
    await worker.create(id, { message: "Pay B 1.", timeout: "1 second" });
    const s = await worker.until(id, settled);
    expect(s.status, JSON.stringify(s.error)).toBe("complete");
    expect(s.output).toMatchObject({ status: "suspended", pending: [{ callId: "toolu_pay_t", kind: "approval" }], steps: 1 });
    expect(s.output.history.at(-1)).toMatchObject({ role: "tool", results: [{ callId: "toolu_pay_t", pending: { kind: "approval" } }] });

    // The history goes on in a new instance, resumed with the decisions as its params.
    const next = newId();
    const sideBefore = side.requests.length;
    turns.push({ text: "Paid B." });
    await worker.create(next, { history: s.output.history, decisions: [{ callId: "toolu_pay_t", approved: true }] });
    const done = await worker.until(next, settled);
    expect(done.status, JSON.stringify(done.error)).toBe("complete");
    expect(done.output).toMatchObject({ status: "done", text: "Paid B.", toolCalls: 1 });
    expect(sideOf("/pay", sideBefore)).toHaveLength(1);
  });

  it("parallel tool calls: each is a step of its own, with a key of its own", async () => {
    const id = newId();
    const sideBefore = side.requests.length;
    turns.push(
      {
        text: "Both.",
        toolCalls: [
          { id: "toolu_par_a", name: "record", input: { note: "a" } },
          { id: "toolu_par_b", name: "record", input: { note: "b" } },
        ],
      },
      { text: "Noted a and b." },
    );
    await worker.create(id, { message: "Note a and b.", parallel: true });
    const s = await worker.until(id, settled);
    expect(s.status, JSON.stringify(s.error)).toBe("complete");
    expect(s.output).toMatchObject({ text: "Noted a and b.", toolCalls: 2 });
    const records = sideOf("/record", sideBefore);
    expect(records.map((r) => r.body.note).sort()).toEqual(["a", "b"]);
    expect(new Set(records.map((r) => r.key))).toEqual(new Set([expectedKey("", id, 1, "toolu_par_a"), expectedKey("", id, 1, "toolu_par_b")]));
    expect(toolResults(mock.requests.at(-1)!.body).map((b: any) => b.tool_use_id)).toEqual(["toolu_par_a", "toolu_par_b"]);
  });

  it("a model call that fails for good fails the workflow with the provider's error", async () => {
    const id = newId();
    const before = mock.requests.length;
    // No turn queued: the mock answers 500 with x-should-retry: false.
    await worker.create(id, { message: "Hello?" });
    const s = await worker.until(id, settled);
    expect(s.status).toBe("errored");
    expect(s.error!.message).toMatch(/claude 500.*no scripted turn/);
    expect(mock.requests.length - before).toBe(1);
  });

  it("a model call that fails in transit is retried by the step (its delay), then the run goes on", async () => {
    const id = newId();
    const before = mock.requests.length;
    // One overloaded answer (retryable; the fixture's provider makes no retries of its own), then a reply.
    mock.enqueue({ status: 529, body: JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }) });
    turns.push({ text: "Here now." });
    await worker.create(id, { message: "Hello?", modelRetries: 1 });
    const s = await worker.until(id, settled);
    expect(s.status, JSON.stringify(s.error)).toBe("complete");
    expect(s.output).toMatchObject({ status: "done", text: "Here now.", steps: 1 });
    expect(mock.requests.length - before).toBe(2);
    expect(mock.requests.at(-1)!.body).toEqual(mock.requests.at(-2)!.body);
  });

  it("a tool output over the step limit fails the workflow with StepTooLargeError, not silently", async () => {
    const id = newId();
    turns.push({ text: "", toolCalls: [{ id: "toolu_dump", name: "dump", input: { size: 1_200_000 } }] });
    await worker.create(id, { message: "Dump it." });
    const s = await worker.until(id, settled);
    expect(s.status).toBe("errored");
    expect(s.error!.message).toMatch(/tool 1 toolu_dump.* is \d+ bytes, over the 1000000 a Workflows step may keep/);
  });
});
