// A pass-through in front of the strict Claude mock that decides when the model's answers reach
// the worker: every request goes to the mock at once (so the mock validates and records each
// one), and the gate can hold an answer after its first few SSE frames, or cut the connection
// there. A held answer is what a crash "during a model request" interrupts.
import { createServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface Held {
  /** Resolves once the first frames were written to the worker. */
  sent: Promise<void>;
  /** Sends the rest of the answer. */
  release(): void;
}

export interface ModelGate {
  /** Base URL (with /v1) to give the worker as PROVIDER_BASE_URL. */
  url: string;
  /** The next answer (after `skip` that pass) stops after `frames` SSE frames until release() (or until the connection dies). */
  holdNext(frames: number, skip?: number): Held;
  /** The next answer's connection is cut after `frames` SSE frames (a stream that broke mid-way). */
  cutNext(frames: number): void;
  close(): Promise<void>;
}

type Plan = { kind: "pass" } | { kind: "hold"; frames: number; sent: () => void; released: Promise<void> } | { kind: "cut"; frames: number };

export async function startModelGate(upstream: string): Promise<ModelGate> {
  const plans: Plan[] = [];
  const sockets = new Set<Socket>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string" && !["host", "content-length", "connection"].includes(k)) headers[k] = v;
    const answer = await fetch(upstream + (req.url ?? "").replace(/^\/v1/, ""), {
      method: req.method,
      headers,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    const text = await answer.text();
    const out: Record<string, string> = {};
    answer.headers.forEach((v, k) => {
      if (!["content-length", "content-encoding", "transfer-encoding", "connection"].includes(k)) out[k] = v;
    });
    const plan = answer.headers.get("content-type")?.startsWith("text/event-stream") ? plans.shift() : undefined;
    res.writeHead(answer.status, out);
    if (!plan || plan.kind === "pass") return void res.end(text);
    const frames = text.split(/(?<=\n\n)/);
    res.write(frames.slice(0, plan.frames).join(""));
    if (plan.kind === "cut") {
      await new Promise((r) => setTimeout(r, 20));
      res.socket?.destroy();
      return;
    }
    plan.sent();
    await plan.released;
    if (!res.destroyed) res.end(frames.slice(plan.frames).join(""));
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    holdNext(frames, skip = 0) {
      for (let i = 0; i < skip; i++) plans.push({ kind: "pass" });
      let sent!: () => void;
      let release!: () => void;
      const sentP = new Promise<void>((r) => (sent = r));
      const released = new Promise<void>((r) => (release = r));
      plans.push({ kind: "hold", frames, sent, released });
      return { sent: sentP, release };
    },
    cutNext(frames) {
      plans.push({ kind: "cut", frames });
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
