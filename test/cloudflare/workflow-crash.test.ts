// runAgentWorkflow across crashes: workerd is killed (SIGKILL, through Miniflare's dispose) at a
// point of a run and started again on the same persisted state. Locally an instance does not go
// on by itself after a restart (the local engine has no alarm); any event revives it, as the
// platform's own restart would. Then: the model's kept replies are not asked for again (the
// strict mock counts requests), a settled call is not run again (the side server counts effects),
// and the step that was cut off runs again: a retry-safe call with the same idempotency key.
import { beforeAll, describe, expect, it } from "vitest";
import type { ClaudeMock, MockTurn } from "../mock/claude.js";
import { expectedKey, type SideServer, settled, type WorkflowWorker, workflowSuite } from "./workflow-support.js";

let mock: ClaudeMock;
let side: SideServer;
let worker: WorkflowWorker;
const turns: MockTurn[] = [];
let n = 0;
const newId = () => `crash-${Date.now().toString(36)}-${++n}`;

const suite = workflowSuite(turns);
beforeAll(() => {
  ({ mock, side, worker } = suite);
});

const toolResults = (body: any) => body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).filter((b: any) => b.type === "tool_result");
const sideOf = (path: string, from: number, id?: string) => side.requests.slice(from).filter((r) => r.path === path && (!id || r.body.instanceId === id));

/** Kills workerd, drops what it held open, starts it again, and revives the instance with an event nobody waits for. */
async function crash(id: string) {
  await worker.kill();
  side.release();
  await worker.start();
  await worker.send(id, "wake-up", {});
}

describe("runAgentWorkflow when workerd dies mid-run", () => {
  it("during a retry-safe tool call: it runs again with the same key (one payment); the model is not asked again", async () => {
    const id = newId();
    const before = mock.requests.length;
    const sideBefore = side.requests.length;
    turns.push({ text: "Charging.", toolCalls: [{ id: "toolu_charge", name: "charge", input: { amount: 5 } }] }, { text: "Charged 5." });
    side.hold.add("/pay");
    await worker.create(id, { message: "Charge 5." });
    await side.next((r) => r.path === "/pay", sideBefore);
    expect(mock.requests.length - before).toBe(1);
    await crash(id);
    const s = await worker.until(id, settled);
    expect(s.status, JSON.stringify(s.error)).toBe("complete");
    expect(s.output).toMatchObject({ status: "done", text: "Charged 5.", steps: 2, toolCalls: 1, toolFailures: 0 });
    const pays = sideOf("/pay", sideBefore);
    expect(pays).toHaveLength(2); // the cut-off attempt and the one after the restart...
    const key = expectedKey("", id, 1, "toolu_charge");
    expect(pays.map((p) => p.key)).toEqual([key, key]); // ...with one key, so the payments server made one payment
    expect([...side.payments].filter(([k]) => k === key)).toHaveLength(1);
    expect(mock.requests.length - before).toBe(2); // the first reply came from the step, not the model
    expect(toolResults(mock.requests.at(-1)!.body)).toEqual([
      expect.objectContaining({ tool_use_id: "toolu_charge", content: expect.stringContaining(side.payments.get(key)!) }),
    ]);
  });

  it("during a tool call that is not retry-safe: it is not run again, and the model is told its outcome is unknown", async () => {
    const id = newId();
    const before = mock.requests.length;
    const sideBefore = side.requests.length;
    turns.push({ text: "Noting.", toolCalls: [{ id: "toolu_note", name: "record", input: { note: "once" } }] }, { text: "It may not have been noted." });
    side.hold.add("/record");
    await worker.create(id, { message: "Note 'once'." });
    await side.next((r) => r.path === "/record", sideBefore);
    await crash(id);
    const s = await worker.until(id, settled);
    expect(s.status, JSON.stringify(s.error)).toBe("complete");
    expect(s.output).toMatchObject({ status: "done", toolCalls: 1, toolFailures: 1 });
    expect(sideOf("/record", sideBefore)).toHaveLength(1);
    expect(mock.requests.length - before).toBe(2);
    expect(toolResults(mock.requests.at(-1)!.body)).toEqual([
      expect.objectContaining({
        tool_use_id: "toolu_note",
        is_error: true,
        content: expect.stringMatching(/interrupted: the workflow restarted while this call ran/),
      }),
    ]);
  });

  it("during a model request after a settled call: the call is not run again; the request is sent again, the same", async () => {
    const id = newId();
    const before = mock.requests.length;
    const sideBefore = side.requests.length;
    turns.push({ text: "Noting.", toolCalls: [{ id: "toolu_settled", name: "record", input: { note: "kept" } }] }, { text: "Noted." });
    // The second model request hangs (the mock holds it open) until workerd is killed.
    side.onRequest = (r) => {
      if (r.path === "/record") mock.enqueue({ sse: [], hold: true });
    };
    await worker.create(id, { message: "Note 'kept'." });
    for (let i = 0; mock.requests.length - before < 2; i++) {
      if (i > 300) throw new Error("the second model request never came");
      await new Promise((r) => setTimeout(r, 20));
    }
    await crash(id);
    const s = await worker.until(id, settled);
    expect(s.status, JSON.stringify(s.error)).toBe("complete");
    expect(s.output).toMatchObject({ status: "done", text: "Noted.", steps: 2, toolCalls: 1 });
    expect(sideOf("/record", sideBefore)).toHaveLength(1);
    const sent = mock.requests.slice(before);
    expect(sent).toHaveLength(3); // the first reply once; the cut-off request, and again after the restart
    expect(sent[2]!.body).toEqual(sent[1]!.body);
    expect(toolResults(sent[2]!.body)).toEqual([expect.objectContaining({ tool_use_id: "toolu_settled", content: expect.stringContaining('"ok":true') })]);
  });

  it("while waiting for an approval: the decisions sent after the restart resume it; nothing before runs or notifies again", async () => {
    const id = newId();
    const before = mock.requests.length;
    const sideBefore = side.requests.length;
    turns.push({ text: "Paying.", toolCalls: [{ id: "toolu_wait", name: "pay", input: { amount: 7, to: "Bob" } }] }, { text: "Paid Bob." });
    await worker.create(id, { message: "Pay Bob 7." });
    await side.next((r) => r.path === "/suspended" && r.body.instanceId === id, sideBefore);
    await worker.kept(id, 2); // model 1, suspended 1.1: a step cut off before it was kept would run again (at least once)
    await worker.kill();
    await worker.start();
    await worker.send(id, "decisions", { decisions: [{ callId: "toolu_wait", approved: true }] });
    const s = await worker.until(id, settled);
    expect(s.status, JSON.stringify(s.error)).toBe("complete");
    expect(s.output).toMatchObject({ status: "done", text: "Paid Bob.", toolCalls: 1 });
    expect(sideOf("/suspended", sideBefore, id)).toHaveLength(1);
    expect(sideOf("/pay", sideBefore).map((p) => p.key)).toEqual([expectedKey("", id, 1, "toolu_wait")]);
    expect(mock.requests.length - before).toBe(2);
  });

  it("a tool that asks for input: a refused answer, a restart, then an answer; the handler never runs again on a replay", async () => {
    const id = newId();
    const before = mock.requests.length;
    const sideBefore = side.requests.length;
    turns.push({ text: "Moving.", toolCalls: [{ id: "toolu_move", name: "transfer", input: { amount: 5 } }] }, { text: "Moved 5." });
    await worker.create(id, { message: "Move 5 to my other account." });
    const asked = await side.next((r) => r.path === "/suspended" && r.body.instanceId === id, sideBefore);
    expect(asked.body.pending).toEqual([
      expect.objectContaining({
        callId: "toolu_move",
        kind: "input",
        message: "From which account?",
        schema: expect.objectContaining({ enum: ["checking", "savings"] }),
      }),
    ]);
    const at = side.requests.length;
    await worker.send(id, "decisions", { decisions: [{ callId: "toolu_move", answer: "piggy bank" }] });
    const refused = await side.next((r) => r.path === "/suspended" && r.body.instanceId === id, at);
    expect(refused.body.refused.message).toMatch(/piggy bank|checking|savings|Invalid/);
    await worker.kept(id, 6); // model 1, tool 1, suspended 1.1, the event, tool 1 #2, suspended 1.2
    // Replayed after the restart: the question, the refused answer and its verdict come from the steps.
    await worker.kill();
    await worker.start();
    await worker.send(id, "decisions", { decisions: [{ callId: "toolu_move", answer: "savings" }] });
    const s = await worker.until(id, settled);
    expect(s.status, JSON.stringify(s.error)).toBe("complete");
    expect(s.output).toMatchObject({ status: "done", text: "Moved 5.", toolCalls: 1 });
    const notes = sideOf("/record", sideBefore).map((r) => r.body.note);
    // The handler ran once per decision batch (first run, refused answer, answer), never on a replay.
    expect(notes).toEqual(["before asking (5)", "before asking (5)", "before asking (5)", "moved 5 from savings"]);
    expect(new Set(sideOf("/record", sideBefore).map((r) => r.key))).toEqual(new Set([expectedKey("", id, 1, "toolu_move")]));
    expect(sideOf("/suspended", sideBefore, id)).toHaveLength(2);
    expect(mock.requests.length - before).toBe(2);
  });
});
