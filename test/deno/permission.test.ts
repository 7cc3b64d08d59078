// A request Deno's permissions refuse (the suite runs with --allow-net=127.0.0.1,localhost, so
// any other host is refused, as in an app started without the --allow-net it needs) fails at
// once with a typed error that names the grant: sent again it would be refused again, so it
// must not wait out the retry schedule as a connection error. Attempts are counted through
// the provider's fetch, not timed.
// Run: node_modules/.bin/deno test --allow-net=127.0.0.1,localhost test/deno/permission.test.ts
import { claude } from "../../adapters/claude/index.ts";
import { gemini } from "../../adapters/gemini/index.ts";
import { openaiCompatible } from "../../adapters/openai/index.ts";
import { createClient, isToolloopError, type Provider } from "../../src/index.ts";

function assert(cond: unknown, message: string): asserts cond {
  if (!cond) throw new Error(`assertion failed: ${message}`);
}

/** globalThis.fetch, counting the attempts. */
function countingFetch() {
  const counter = {
    calls: 0,
    fetch: (input: string | URL | Request, init?: RequestInit) => {
      counter.calls++;
      return globalThis.fetch(input, init);
    },
  };
  return counter;
}

async function refusal(make: (fetch: typeof globalThis.fetch) => Provider, host: string) {
  const counter = countingFetch();
  const client = createClient({ provider: make(counter.fetch as typeof globalThis.fetch) });
  let error: unknown;
  try {
    await client.chat("hello");
  } catch (err) {
    error = err;
  }
  assert(error !== undefined, "the chat should fail");
  assert(isToolloopError(error, "connection_error"), `a ConnectionError, got ${String(error)}`);
  const e = error as Error & { provider: string; cause?: { name?: string } };
  assert(counter.calls === 1, `one attempt, no retry: ${counter.calls} attempts`);
  assert(e.message.includes(`run Deno with --allow-net=${host}`), `the message names the grant: ${e.message}`);
  assert(e.cause?.name === "NotCapable" || e.cause?.name === "PermissionDenied", `the runtime's error is the cause: ${e.cause?.name}`);
  // The history stays valid: the prompt, no half answer.
  assert(JSON.stringify(client.history) === JSON.stringify([{ role: "user", content: "hello" }]), JSON.stringify(client.history));
}

Deno.test("permission: a host outside --allow-net fails at once with the grant to add (claude)", async () => {
  await refusal((fetch) => claude({ apiKey: "k", model: "m", baseURL: "https://example.invalid/v1", fetch, maxRetries: 3 }), "example.invalid");
});

Deno.test("permission: an address and port outside --allow-net (openaiCompatible)", async () => {
  await refusal((fetch) => openaiCompatible({ model: "m", baseURL: "http://127.0.0.2:4000/v1", fetch, maxRetries: 3 }), "127.0.0.2:4000");
});

Deno.test("permission: gemini, streaming", async () => {
  const counter = countingFetch();
  const client = createClient({
    provider: gemini({
      apiKey: "k",
      model: "gemini-2.5-flash",
      baseURL: "https://example.invalid/v1beta",
      fetch: counter.fetch as typeof globalThis.fetch,
      maxRetries: 3,
    }),
  });
  let error: unknown;
  try {
    for await (const _ of client.stream("hello")) {
      // nothing arrives
    }
  } catch (err) {
    error = err;
  }
  assert(isToolloopError(error, "connection_error"), `a ConnectionError, got ${String(error)}`);
  assert(counter.calls === 1, `one attempt, no retry: ${counter.calls} attempts`);
  assert((error as Error).message.includes("--allow-net=example.invalid"), (error as Error).message);
});

Deno.test("permission: an allowed host that refuses the connection is still retried", async () => {
  // 127.0.0.1 is allowed; nothing listens on this port (bound, then closed).
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  const counter = countingFetch();
  const client = createClient({
    provider: claude({ apiKey: "k", model: "m", baseURL: `http://127.0.0.1:${port}/v1`, fetch: counter.fetch as typeof globalThis.fetch, maxRetries: 1 }),
  });
  let error: unknown;
  try {
    await client.chat("hello");
  } catch (err) {
    error = err;
  }
  assert(isToolloopError(error, "connection_error"), `a ConnectionError, got ${String(error)}`);
  assert(counter.calls === 2, `retried once: ${counter.calls} attempts`);
  assert(!(error as Error).message.includes("--allow-net"), (error as Error).message);
});
