// An agent on Cloudflare Workers. Each conversation is one Durable Object (found by name),
// which keeps the conversation's history in its storage, so a chat survives across requests
// and every conversation runs close to its users on Cloudflare's network.
//
//   POST   /chat/:id            {"message": "..."}      → text/event-stream of the run's events
//   GET    /chat/:id                                    → { pending, payments, history } (JSON)
//   POST   /chat/:id/decisions  {"decisions": [...]}    → the rest of the run, as event-stream
//   PUT    /chat/:id            {"history": [...]}      → replace the history (move a conversation in)
//   DELETE /chat/:id                                    → forget the conversation
//
// The `pay` tool needs a person's approval: a run that wants to pay ends its stream with a
// `suspended` event, the call waits in the stored history (GET shows it), and a later request
// approves or denies it. Waiting calls are signed with DECISION_SECRET (HMAC, Web Crypto), so a
// history that was changed on its way in (PUT) cannot get its changed call approved.
//
// The provider comes from the environment: ANTHROPIC_API_KEY → Claude, else OPENAI_API_KEY →
// OpenAI, else offline (a scripted stand-in that uses the tools, so it runs before any secret is
// set); MODEL overrides the model and PROVIDER_BASE_URL points at a proxy (or a mock).
// No nodejs_compat: toolloop needs only fetch, Web Streams and Web Crypto.
import { DurableObject } from "cloudflare:workers";
import {
  type Client,
  createClient,
  type Decision,
  isToolloopError,
  type Message,
  type Provider,
  type StreamEvent,
  suspension,
  type Tool,
  tool,
} from "toolloop";
import { claude } from "toolloop/claude";
import { openai } from "toolloop/openai";
import { scriptedProvider } from "toolloop/testing";
import * as v from "valibot";

export interface Env {
  CONVERSATIONS: DurableObjectNamespace<Conversation>;
  ANTHROPIC_API_KEY?: string;
  OPENAI_API_KEY?: string;
  MODEL?: string;
  PROVIDER_BASE_URL?: string;
  /** Signs waiting calls. Unset: each conversation makes its own, kept in its storage. */
  DECISION_SECRET?: string;
}

function providerFrom(env: Env): Provider {
  const baseURL = env.PROVIDER_BASE_URL || undefined;
  if (env.ANTHROPIC_API_KEY) return claude({ apiKey: env.ANTHROPIC_API_KEY, model: env.MODEL || "claude-sonnet-4-5", baseURL });
  if (env.OPENAI_API_KEY) return openai({ apiKey: env.OPENAI_API_KEY, model: env.MODEL || "gpt-5-mini", baseURL });
  return offline();
}

/**
 * Without a key the worker runs offline: a fixed script (toolloop/testing) so `wrangler dev`
 * works before any secret. A message about paying asks to pay (which waits for approval), any
 * other asks for the time in UTC; once a tool answered, it replies from the result. It reads
 * the conversation on every request, because a resumed run is a new request with a new script.
 */
function offline(): Provider {
  return scriptedProvider(
    [
      (request) => {
        const last = request.messages.at(-1);
        if (last?.role === "tool") {
          const result = last.results[0]!;
          if (result.name === "current_time") {
            return `It is ${result.output} (UTC). Set ANTHROPIC_API_KEY or OPENAI_API_KEY to talk to a real model.`;
          }
          const { paid, error, amount, currency, to } = JSON.parse(result.output) as Record<string, string>;
          return paid ? `Done: I paid ${amount} ${currency} to ${to}.` : `I did not pay (${error}).`;
        }
        const text = last?.role === "user" && typeof last.content === "string" ? last.content : "";
        // Each request has a new script, so call ids come from the conversation's length: unique within it.
        const id = `call_${request.messages.length}`;
        const payment = /\bpay\s+(\d+(?:\.\d+)?)\s*(EUR|USD|GBP)?(?:\s+to\s+([\w .'-]+?))?\s*(?:[.,!?]|$)/i.exec(text);
        if (payment) {
          const [, amount, currency = "EUR", to = "the landlord"] = payment;
          return {
            text: "Offline mode (no ANTHROPIC_API_KEY or OPENAI_API_KEY set). This payment needs your approval.",
            toolCalls: [{ id, name: "pay", arguments: { amount: Number(amount), currency: currency.toUpperCase(), to } }],
          };
        }
        return {
          text: "Offline mode (no ANTHROPIC_API_KEY or OPENAI_API_KEY set). Checking the clock.",
          toolCalls: [{ id, name: "current_time", arguments: { timeZone: "UTC" } }],
        };
      },
    ],
    { onExhausted: "repeat-last" },
  );
}

const currentTime = tool({
  name: "current_time",
  description: "The current date and time in an IANA time zone.",
  input: v.object({ timeZone: v.pipe(v.string(), v.description("IANA zone, e.g. Europe/Paris.")) }),
  run: ({ timeZone }) => new Date().toLocaleString("en-GB", { timeZone, dateStyle: "full", timeStyle: "long" }),
});

interface Payment {
  amount: number;
  currency: string;
  to: string;
  reference: string;
}

/** A stand-in for a payment API: each payment is recorded in the conversation's storage. */
function payTool(storage: DurableObjectStorage): Tool {
  return tool({
    name: "pay",
    description: "Pays an amount of money to someone. The user approves every payment before it is made.",
    input: v.object({
      amount: v.pipe(v.number(), v.minValue(0.01), v.maxValue(10_000)),
      currency: v.picklist(["EUR", "USD", "GBP"]),
      to: v.pipe(v.string(), v.minLength(1), v.description("Who receives the money.")),
    }),
    // Runs only after a person said yes (POST /chat/:id/decisions).
    needsApproval: true,
    run: async ({ amount, currency, to }) => {
      const payment: Payment = { amount, currency, to, reference: `pay_${crypto.randomUUID().slice(0, 8)}` };
      await storage.put(PAYMENTS, [...((await storage.get<Payment[]>(PAYMENTS)) ?? []), payment]);
      return { paid: true, ...payment };
    },
  });
}

const HISTORY = "history";
const PAYMENTS = "payments";
const SECRET = "decision-secret";

type Body = Record<string, unknown> | null;

export class Conversation extends DurableObject<Env> {
  /** Runs of this conversation, one after another, so two requests never save over each other. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly tools = [currentTime, payTool(this.ctx.storage)];

  override async fetch(request: Request): Promise<Response> {
    const decisionsPath = new URL(request.url).pathname.endsWith("/decisions");
    if (request.method === "GET") {
      const client = await this.client();
      return Response.json({ pending: client.pending, payments: (await this.ctx.storage.get<Payment[]>(PAYMENTS)) ?? [], history: client.history });
    }
    if (request.method === "DELETE") {
      await this.ctx.storage.deleteAll();
      return new Response(null, { status: 204 });
    }
    const body = (await request.json().catch(() => null)) as Body;
    if (request.method === "PUT") return this.replace(body);
    if (decisionsPath) {
      // (An empty list would resume nothing and, with nothing waiting, call the model again.)
      if (!Array.isArray(body?.decisions) || body.decisions.length === 0)
        return bad('expected a JSON body {"decisions": [{"callId": "...", "approved": true}, ...]}');
      const decisions = body.decisions as Decision[];
      return this.turn((client) => client.stream(undefined, { decisions }), true);
    }
    if (typeof body?.message !== "string" || body.message === "") return bad('expected a JSON body {"message": "..."}');
    const message = body.message;
    // A new message while calls wait answers them "cancelled: no decision".
    return this.turn((client) => client.stream(message), false);
  }

  /** A client over the stored history, with the tools and the signing secret. */
  private async client(history?: Message[]): Promise<Client> {
    return createClient({
      provider: providerFrom(this.env),
      history: history ?? (await this.ctx.storage.get<Message[]>(HISTORY)) ?? [],
      tools: this.tools,
      // Signed pending calls: a forged or edited decision is refused when it comes back.
      suspension: suspension({ secret: this.env.DECISION_SECRET || (await this.ownSecret()) }),
      systemPrompt: "You are a helpful assistant. Use current_time when asked about dates or times, and pay when asked to pay someone.",
      // A model stream that goes silent fails after a minute instead of holding up the conversation's queue.
      idleTimeout: 60_000,
    });
  }

  /** Without DECISION_SECRET, a random secret that never leaves this object. */
  private async ownSecret(): Promise<string> {
    let secret = await this.ctx.storage.get<string>(SECRET);
    if (!secret) {
      secret = [...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, "0")).join("");
      await this.ctx.storage.put(SECRET, secret);
    }
    return secret;
  }

  /** PUT: a saved history replaces this one. Its waiting calls are checked against the secret when decided. */
  private async replace(body: Body): Promise<Response> {
    if (!Array.isArray(body?.history)) return bad('expected a JSON body {"history": [...]} (a saved client.history)');
    const run = async () => {
      let client: Client;
      try {
        client = await this.client(body?.history as Message[]);
      } catch (err) {
        if (isToolloopError(err, "invalid_history")) return Response.json({ error: err.message, code: err.code }, { status: 400 });
        throw err;
      }
      await this.ctx.storage.put(HISTORY, client.history);
      return Response.json({ pending: client.pending });
    };
    const done = this.queue.then(run, run);
    this.queue = done.catch(() => {});
    return done;
  }

  /**
   * Runs one turn of the conversation and answers with its events as server-sent events. With
   * decisions, the response waits for the first event: the batch is checked before anything
   * runs, so a refused batch is a plain 400 (history untouched) instead of a stream.
   */
  private turn(events: (client: Client) => AsyncIterable<StreamEvent>, checkFirst: boolean): Promise<Response> {
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const writer = writable.getWriter();
    const encoder = new TextEncoder();
    const send = (event: string, data: unknown) => writer.write(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`));
    const stream = new Response(readable, { headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" } });
    let respond!: (r: Response) => void;
    const response = new Promise<Response>((r) => (respond = r));
    if (!checkFirst) respond(stream);

    const run = async () => {
      let client: Client | undefined;
      try {
        client = await this.client();
        const it = events(client)[Symbol.asyncIterator]();
        let next: IteratorResult<StreamEvent>;
        try {
          next = await it.next();
        } catch (err) {
          if (!isToolloopError(err, "invalid_decision")) throw err;
          client = undefined; // nothing changed: nothing to save
          respond(Response.json({ error: err.message, code: err.code, callId: err.callId }, { status: 400 }));
          return;
        }
        respond(stream);
        // If the caller goes away, the next write fails and leaving the loop aborts the run.
        for (; !next.done; next = await it.next()) await send(next.value.type, next.value);
      } catch (err) {
        respond(stream);
        await send("error", { message: err instanceof Error ? err.message : String(err), code: (err as { code?: unknown }).code }).catch(() => {});
      } finally {
        // Saved after a suspension, failure or abort too: the history is valid after any outcome.
        if (client) await this.ctx.storage.put(HISTORY, client.history);
        await writer.close().catch(() => {});
      }
    };
    this.queue = this.queue.then(run, run);
    return response;
  }
}

function bad(error: string): Response {
  return Response.json({ error }, { status: 400 });
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const match = /^\/chat\/([\w-]{1,128})(\/decisions)?$/.exec(new URL(request.url).pathname);
    if (!match) return new Response('POST /chat/:conversationId with {"message": "..."}\n', { status: 404 });
    const allowed = match[2] ? ["POST"] : ["GET", "POST", "PUT", "DELETE"];
    if (!allowed.includes(request.method)) return new Response(null, { status: 405, headers: { allow: allowed.join(", ") } });
    // One Durable Object per conversation id, created on first use wherever it is first asked for.
    const stub = env.CONVERSATIONS.get(env.CONVERSATIONS.idFromName(match[1]!));
    return stub.fetch(request);
  },
} satisfies ExportedHandler<Env>;
