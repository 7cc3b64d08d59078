// A durable agent on Cloudflare Workers. Each conversation is one Durable Object (found by name)
// that runs one agent run at a time with toolloop/cloudflare's durableAgent: every step is
// recorded in the object's storage as it happens, every event the run emits gets an id in the
// object's SQLite, and an alarm keeps watch while a run is in progress. If the object is evicted,
// redeployed or crashes mid-run, the alarm continues the run from its last record by itself:
// a settled tool call is never run again, and `pay` (interrupted mid-call) is sent again with
// the same Idempotency-Key.
//
//   POST /chat/:id            {"message": "..."}     → text/event-stream of the run (409 while one runs)
//   GET  /chat/:id/events     Last-Event-ID or ?after → the events after that id, then the live ones
//   POST /chat/:id/decisions  {"decisions": [...]}   → like POST /chat/:id, resuming a suspended run
//   POST /chat/:id/stop                              → stops the run in progress; the status
//   GET  /chat/:id                                   → { status, pending, payments, history }
//
// No nodejs_compat: toolloop needs only fetch, Web Streams, Web Crypto and the Durable Object APIs.
import { DurableObject } from "cloudflare:workers";
import { type Decision, suspension, tool } from "toolloop";
import { claude } from "toolloop/claude";
import { durableAgent } from "toolloop/cloudflare";
import * as v from "valibot";

export interface Env {
  CONVERSATIONS: DurableObjectNamespace<Conversation>;
  ANTHROPIC_API_KEY: string;
  /** A proxy such as Cloudflare AI Gateway (or a mock). */
  PROVIDER_BASE_URL?: string;
  MODEL?: string;
  /** Signs waiting calls and the run's record: 32+ random characters. */
  DECISION_SECRET: string;
  /** When set, `pay` POSTs each payment there (with an Idempotency-Key); otherwise payments are only recorded here. */
  PAYMENTS_URL?: string;
  /** Milliseconds between the alarms that watch a run in progress (default 5000). */
  HEARTBEAT_MS?: string;
}

interface Payment {
  id: string;
  amount: number;
  currency: string;
  to: string;
  at: string;
}

const currentTime = tool({
  name: "current_time",
  description: "The current date and time in an IANA time zone.",
  input: v.object({ timeZone: v.pipe(v.string(), v.description("IANA zone, e.g. Europe/Paris.")) }),
  run: ({ timeZone }) => new Date().toLocaleString("en-GB", { timeZone, dateStyle: "full", timeStyle: "long" }),
});

/**
 * Pays someone. A person approves every payment first. `replay: "safe"`: a call cut off by a crash
 * runs again with the same idempotency key, which the payments API uses to make it once; the
 * payment is recorded here under that key, so it is listed once too.
 */
function payTool(storage: DurableObjectStorage, env: Env) {
  return tool({
    name: "pay",
    description: "Pays an amount of money to someone. The user approves every payment before it is made.",
    input: v.object({
      amount: v.pipe(v.number(), v.minValue(0.01), v.maxValue(10_000)),
      currency: v.picklist(["EUR", "USD", "GBP"]),
      to: v.pipe(v.string(), v.minLength(1), v.description("Who receives the money.")),
    }),
    needsApproval: true,
    replay: "safe",
    run: async ({ amount, currency, to }, ctx) => {
      const key = ctx.idempotencyKey!; // a durable client always gives one
      let id = `local_${key.slice(3, 19)}`;
      if (env.PAYMENTS_URL) {
        const res = await fetch(env.PAYMENTS_URL, {
          method: "POST",
          headers: { "content-type": "application/json", "idempotency-key": key },
          body: JSON.stringify({ amount, currency, to }),
          signal: ctx.signal,
        });
        if (!res.ok) throw new Error(`the payments API answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
        ({ id } = (await res.json()) as { id: string });
      }
      const payment: Payment = { id, amount, currency, to, at: new Date().toISOString() };
      await storage.put(`payment:${key}`, payment);
      return { paid: true, ...payment };
    },
  });
}

export class Conversation extends DurableObject<Env> {
  private readonly agent = durableAgent(this.ctx, {
    client: (journal) =>
      journal.createClient({
        provider: claude({
          apiKey: this.env.ANTHROPIC_API_KEY,
          model: this.env.MODEL || "claude-sonnet-4-5",
          baseURL: this.env.PROVIDER_BASE_URL || undefined,
        }),
        tools: [currentTime, payTool(this.ctx.storage, this.env)],
        // Waiting calls are signed: a forged or edited decision is refused when it comes back.
        suspension: suspension({ secret: this.env.DECISION_SECRET }),
        systemPrompt: "You are a helpful assistant. Use current_time when asked about dates or times, and pay when asked to pay someone.",
        // A model stream that goes silent fails after a minute; the alarm then continues the run.
        idleTimeout: 60_000,
      }),
    secret: this.env.DECISION_SECRET,
    heartbeat: Number(this.env.HEARTBEAT_MS) || 5000,
  });

  override async fetch(request: Request): Promise<Response> {
    const action = new URL(request.url).pathname.split("/")[3] ?? "";
    try {
      if (request.method === "GET" && action === "") return Response.json(await this.state());
      if (request.method === "GET" && action === "events") return await this.agent.follow(request);
      if (request.method === "POST" && action === "stop") {
        await this.agent.stop();
        return Response.json(await this.state());
      }
      const body = (await request.json().catch(() => null)) as Record<string, unknown> | null;
      if (action === "decisions") {
        if (!Array.isArray(body?.decisions) || body.decisions.length === 0)
          return bad('expected a JSON body {"decisions": [{"callId": "...", "approved": true}, ...]}');
        return await this.agent.resume(body.decisions as Decision[]);
      }
      if (typeof body?.message !== "string" || body.message === "") return bad('expected a JSON body {"message": "..."}');
      return await this.agent.start(body.message);
    } catch (err) {
      // A missing secret or key, or storage that failed: say so (typed toolloop errors carry a code).
      return Response.json({ error: err instanceof Error ? err.message : String(err), code: (err as { code?: unknown }).code }, { status: 500 });
    }
  }

  override alarm(): Promise<void> {
    return this.agent.alarm();
  }

  private async state() {
    const { status, pending, history } = await this.agent.status();
    const payments = [...(await this.ctx.storage.list<Payment>({ prefix: "payment:" })).values()].sort((a, b) => a.at.localeCompare(b.at));
    return { status, pending, payments, history };
  }
}

function bad(error: string): Response {
  return Response.json({ error }, { status: 400 });
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const match = /^\/chat\/([\w-]{1,128})(?:\/(events|decisions|stop))?$/.exec(new URL(request.url).pathname);
    if (!match) return new Response('POST /chat/:conversationId with {"message": "..."}\n', { status: 404 });
    const method = !match[2] ? ["GET", "POST"] : match[2] === "events" ? ["GET"] : ["POST"];
    if (!method.includes(request.method)) return new Response(null, { status: 405, headers: { allow: method.join(", ") } });
    // One Durable Object per conversation id, created on first use wherever it is first asked for.
    return env.CONVERSATIONS.get(env.CONVERSATIONS.idFromName(match[1]!)).fetch(request);
  },
} satisfies ExportedHandler<Env>;
