// An agent on Cloudflare Workers. Each conversation is one Durable Object (found by name),
// which keeps the conversation's history in its storage, so a chat survives across requests
// and every conversation runs close to its users on Cloudflare's network.
//
//   POST /chat/:conversationId  {"message": "..."}  → text/event-stream of the run's events
//   GET  /chat/:conversationId                      → the stored history (JSON)
//   DELETE /chat/:conversationId                    → forget the conversation
//
// The provider comes from the environment: ANTHROPIC_API_KEY → Claude, else OPENAI_API_KEY →
// OpenAI, else offline (a scripted stand-in that uses the tool, so it runs before any secret is
// set); MODEL overrides the model and PROVIDER_BASE_URL points at a proxy (or a mock).
// No nodejs_compat: toolloop needs only fetch and Web Streams.
import { DurableObject } from "cloudflare:workers";
import * as v from "valibot";
import { createClient, tool, type Client, type Message, type Provider } from "toolloop";
import { claude } from "toolloop/claude";
import { openai } from "toolloop/openai";
import { scriptedProvider } from "toolloop/testing";

export interface Env {
  CONVERSATIONS: DurableObjectNamespace<Conversation>;
  ANTHROPIC_API_KEY?: string;
  OPENAI_API_KEY?: string;
  MODEL?: string;
  PROVIDER_BASE_URL?: string;
}

function providerFrom(env: Env): Provider {
  const baseURL = env.PROVIDER_BASE_URL || undefined;
  if (env.ANTHROPIC_API_KEY) return claude({ apiKey: env.ANTHROPIC_API_KEY, model: env.MODEL || "claude-sonnet-4-5", baseURL });
  if (env.OPENAI_API_KEY) return openai({ apiKey: env.OPENAI_API_KEY, model: env.MODEL || "gpt-5-mini", baseURL });
  return offline();
}

/**
 * Without a key the worker runs offline: a fixed script (toolloop/testing) that asks for the
 * time in UTC, then answers from the tool's result, so `wrangler dev` works before any secret.
 */
function offline(): Provider {
  return scriptedProvider([
    { text: "Offline mode (no ANTHROPIC_API_KEY or OPENAI_API_KEY set). Checking the clock.", toolCalls: [{ name: "current_time", arguments: { timeZone: "UTC" } }] },
    (request) => {
      const last = request.messages.at(-1);
      const time = last?.role === "tool" ? last.results[0]?.output : undefined;
      return `It is ${time ?? "an unknown time"} (UTC). Set ANTHROPIC_API_KEY or OPENAI_API_KEY to talk to a real model.`;
    },
  ]);
}

const currentTime = tool({
  name: "current_time",
  description: "The current date and time in an IANA time zone.",
  input: v.object({ timeZone: v.pipe(v.string(), v.description("IANA zone, e.g. Europe/Paris.")) }),
  run: ({ timeZone }) => new Date().toLocaleString("en-GB", { timeZone, dateStyle: "full", timeStyle: "long" }),
});

const HISTORY = "history";

export class Conversation extends DurableObject<Env> {
  /** Runs of this conversation, one after another, so two requests never save over each other. */
  private queue: Promise<unknown> = Promise.resolve();

  override async fetch(request: Request): Promise<Response> {
    if (request.method === "GET") return Response.json((await this.ctx.storage.get<Message[]>(HISTORY)) ?? []);
    if (request.method === "DELETE") {
      await this.ctx.storage.delete(HISTORY);
      return new Response(null, { status: 204 });
    }
    const body = (await request.json().catch(() => null)) as { message?: unknown } | null;
    if (typeof body?.message !== "string" || body.message === "") {
      return Response.json({ error: 'expected a JSON body {"message": "..."}' }, { status: 400 });
    }
    const message = body.message;
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const writer = writable.getWriter();
    const encoder = new TextEncoder();
    const send = (event: string, data: unknown) => writer.write(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`));

    const run = async () => {
      let client: Client | undefined;
      try {
        client = createClient({
          provider: providerFrom(this.env),
          history: (await this.ctx.storage.get<Message[]>(HISTORY)) ?? [],
          tools: [currentTime],
          systemPrompt: "You are a helpful assistant. Use current_time when asked about dates or times.",
          // A model stream that goes silent fails after a minute instead of holding up the conversation's queue.
          idleTimeout: 60_000,
        });
        // If the client goes away, the next write fails and leaving the loop aborts the run.
        for await (const event of client.stream(message)) await send(event.type, event);
      } catch (err) {
        await send("error", { message: err instanceof Error ? err.message : String(err), code: (err as { code?: unknown }).code }).catch(() => {});
      } finally {
        // Saved after a failure or abort too: the history is valid after any outcome.
        if (client) await this.ctx.storage.put(HISTORY, client.history);
        await writer.close().catch(() => {});
      }
    };
    this.queue = this.queue.then(run, run);
    return new Response(readable, {
      headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" },
    });
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const match = /^\/chat\/([\w-]{1,128})$/.exec(new URL(request.url).pathname);
    if (!match) return new Response("POST /chat/:conversationId with {\"message\": \"...\"}\n", { status: 404 });
    if (!["GET", "POST", "DELETE"].includes(request.method)) return new Response(null, { status: 405, headers: { allow: "GET, POST, DELETE" } });
    // One Durable Object per conversation id, created on first use wherever it is first asked for.
    const stub = env.CONVERSATIONS.get(env.CONVERSATIONS.idFromName(match[1]!));
    return stub.fetch(request);
  },
} satisfies ExportedHandler<Env>;
