// toolloop/node's answers as streams: each SSE event reaches the client when it is sent, a fast
// body waits for a slow client (backpressure), a client that hangs up aborts request.signal and
// cancels the body, and close() lets the requests in flight finish.
import { Agent, createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type NodeServer, nodeListener, serve } from "../../hosts/node/index.js";
import { deferred, nextChunk, open, readAll } from "./helpers.js";

const servers: NodeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close({ timeout: 0 })));
});

async function start(handler: (request: Request) => Response | Promise<Response>): Promise<NodeServer> {
  const s = await serve(handler, { onError: () => {} });
  servers.push(s);
  return s;
}

const encoder = new TextEncoder();

describe("an event stream", () => {
  it("reaches the client one event at a time: each is read before the next is produced", async () => {
    const gates = [deferred(), deferred(), deferred()];
    const s = await start(() => {
      let i = 0;
      return new Response(
        new ReadableStream({
          async pull(c) {
            if (i === gates.length) return c.close();
            await gates[i]!.promise;
            c.enqueue(encoder.encode(`event: message\ndata: {"n":${i}}\n\n`));
            i++;
          },
        }),
        { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } },
      );
    });
    const { req, response } = open(`${s.url}/events`, { headers: { accept: "text/event-stream" } });
    req.end();
    // The head arrives before any event exists: the client can start listening.
    const res = await response;
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/event-stream");
    for (let n = 0; n < gates.length; n++) {
      gates[n]!.resolve();
      // Event n is produced only now, and must arrive before event n + 1 is even possible.
      expect(await nextChunk(res)).toBe(`event: message\ndata: {"n":${n}}\n\n`);
    }
    expect(await nextChunk(res)).toBeNull();
  });

  it("a client that hangs up aborts request.signal and cancels the stream, so its producer stops", async () => {
    const signals: AbortSignal[] = [];
    const cancelled = deferred<unknown>();
    const s = await start((request) => {
      signals.push(request.signal);
      return new Response(
        new ReadableStream({
          start(c) {
            c.enqueue(encoder.encode("data: first\n\n"));
          },
          pull() {
            return new Promise(() => {}); // the next event never comes
          },
          cancel(reason) {
            cancelled.resolve(reason);
          },
        }),
        { headers: { "content-type": "text/event-stream" } },
      );
    });
    const { req, response } = open(`${s.url}/events`);
    req.end();
    const res = await response;
    expect(await nextChunk(res)).toBe("data: first\n\n");
    req.destroy();
    expect(await cancelled.promise).toMatchObject({ name: "AbortError" });
    expect(signals[0]!.aborted).toBe(true);
    expect(signals[0]!.reason).toMatchObject({ name: "AbortError" });
  });
});

describe("a client that goes away", () => {
  it("before the answer aborts the handler's signal while it works", async () => {
    const started = deferred<AbortSignal>();
    const s = await start(async (request) => {
      started.resolve(request.signal);
      await new Promise((resolve) => request.signal.addEventListener("abort", resolve));
      return new Response("too late");
    });
    const { req, response } = open(`${s.url}/slow`);
    response.catch(() => {});
    req.end();
    const signal = await started.promise;
    expect(signal.aborted).toBe(false);
    req.destroy();
    await expect.poll(() => signal.aborted).toBe(true);
  });

  it("mid-upload makes the handler's body read fail and aborts its signal", async () => {
    const outcome = deferred<{ error: unknown; aborted: boolean }>();
    const firstChunk = deferred();
    const s = await start(async (request) => {
      const reader = request.body!.getReader();
      try {
        for (;;) {
          const { done } = await reader.read();
          firstChunk.resolve();
          if (done) break;
        }
        outcome.resolve({ error: undefined, aborted: request.signal.aborted });
      } catch (error) {
        outcome.resolve({ error, aborted: request.signal.aborted });
      }
      return new Response("unused");
    });
    const { req, response } = open(`${s.url}/up`, { method: "POST", headers: { "content-length": "1000000" } });
    response.catch(() => {});
    req.write("x".repeat(1000));
    await firstChunk.promise;
    req.destroy();
    const { error, aborted } = await outcome.promise;
    expect(error).toBeDefined();
    expect(aborted).toBe(true);
  });

  it("a finished answer leaves the signal alone", async () => {
    const signals: AbortSignal[] = [];
    const s = await start((request) => {
      signals.push(request.signal);
      return new Response("done");
    });
    expect(await (await fetch(s.url)).text()).toBe("done");
    expect(signals[0]!.aborted).toBe(false);
  });
});

describe("a large answer", () => {
  it("is written no faster than the client takes it: node's buffer never holds more than about a chunk", async () => {
    const chunkSize = 1024 * 1024;
    const chunks = 64;
    let res: ServerResponse | undefined;
    let maxBuffered = 0;
    const listener = nodeListener(() => {
      let sent = 0;
      return new Response(
        new ReadableStream({
          pull(c) {
            // What node holds that the socket has not taken yet, sampled each time the writer asks for more.
            maxBuffered = Math.max(maxBuffered, res?.writableLength ?? 0);
            if (sent === chunks) return c.close();
            c.enqueue(new Uint8Array(chunkSize).fill(sent % 256));
            sent++;
          },
        }),
      );
    });
    const server = createServer((req, r) => {
      res = r;
      void listener(req, r);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const port = (server.address() as AddressInfo).port;
      const { req, response } = open(`http://127.0.0.1:${port}/big`);
      req.end();
      const body = await response;
      let total = 0;
      for await (const chunk of body) total += (chunk as Buffer).byteLength;
      expect(total).toBe(chunkSize * chunks);
      // A writer that ignored write()'s false would have queued tens of MiB here.
      expect(maxBuffered).toBeLessThanOrEqual(2 * chunkSize);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe("close()", () => {
  it("stops taking connections, lets the request in flight finish (its keep-alive connection told to close), then resolves", async () => {
    const release = deferred();
    const inHandler = deferred();
    const s = await serve(async () => {
      inHandler.resolve();
      await release.promise;
      return new Response("finished");
    });
    // No keep-alive timeout: a connection left open after its answer would hold close() up for good.
    s.server.keepAliveTimeout = 0;
    const agent = new Agent({ keepAlive: true });
    try {
      const { req, response } = open(`${s.url}/work`, { agent });
      req.end();
      await inHandler.promise;
      let closed = false;
      const closing = s.close().then(() => {
        closed = true;
      });
      // New connections are refused at once...
      await expect(fetch(`${s.url}/new`)).rejects.toThrow();
      expect(closed).toBe(false);
      // ...and the one in flight still gets its answer, told that its connection ends.
      release.resolve();
      const res = await response;
      expect(res.headers.connection).toBe("close");
      expect(await readAll(res)).toBe("finished");
      await closing;
      expect(closed).toBe(true);
      expect(s.server.listening).toBe(false);
    } finally {
      agent.destroy();
    }
  });

  it("does not wait for idle keep-alive connections", async () => {
    const s = await serve(() => new Response("q"));
    s.server.keepAliveTimeout = 0;
    const agent = new Agent({ keepAlive: true });
    try {
      const { req, response } = open(`${s.url}/quick`, { agent });
      req.end();
      expect(await readAll(await response)).toBe("q");
      // The agent keeps the connection open and idle; close() must end it rather than wait.
      await s.close();
      expect(s.server.listening).toBe(false);
    } finally {
      agent.destroy();
    }
  });

  it("cuts a stream still open when the timeout passes, aborting its handler's signal", async () => {
    const signals: AbortSignal[] = [];
    const s = await serve((request) => {
      signals.push(request.signal);
      return new Response(new ReadableStream({ pull: () => new Promise(() => {}) }), { headers: { "content-type": "text/event-stream" } });
    });
    const { req, response } = open(`${s.url}/stream`);
    req.end();
    const res = await response;
    res.on("error", () => {});
    res.resume();
    const ended = new Promise<void>((resolve) => res.once("close", () => resolve()));
    await s.close({ timeout: 0 });
    await ended;
    await expect.poll(() => signals[0]!.aborted).toBe(true);
  });

  it("an aborted signal option closes the server", async () => {
    const controller = new AbortController();
    const s = await serve(() => new Response("x"), { signal: controller.signal });
    expect(s.server.listening).toBe(true);
    controller.abort();
    await expect.poll(() => s.server.listening).toBe(false);
    await s.close(); // the same close, already done
  });
});

describe("options", () => {
  it("a misspelt, mistyped or out-of-range option is refused with InvalidOptionsError, naming what to write", async () => {
    const h = () => new Response("x");
    await expect(serve(h, { prot: 3000 } as never)).rejects.toMatchObject({ code: "invalid_options", message: expect.stringContaining("did you mean `port`") });
    await expect(serve(h, { port: 70000 })).rejects.toMatchObject({ code: "invalid_options" });
    await expect(serve(h, { port: -1 })).rejects.toMatchObject({ code: "invalid_options" });
    await expect(serve(h, { port: "3000" as never })).rejects.toMatchObject({ code: "invalid_options" });
    await expect(serve(h, { hostname: "" })).rejects.toMatchObject({ code: "invalid_options" });
    await expect(serve(h, { trustForwardedProto: "yes" as never })).rejects.toMatchObject({ code: "invalid_options" });
    await expect(serve({} as never)).rejects.toMatchObject({ code: "invalid_options", message: expect.stringContaining("mcpHandler") });
    expect(() => nodeListener(h, { trustForwardedProtocol: true } as never)).toThrow(
      expect.objectContaining({ message: expect.stringContaining("trustForwardedProto") }),
    );
    expect(() => nodeListener(h, { onError: "log" as never })).toThrow(expect.objectContaining({ code: "invalid_options" }));
    const s = await serve(h);
    await expect(s.close({ timeot: 5 } as never)).rejects.toThrow(/did you mean `timeout`/);
    await s.close({ timeout: 0 });
  });

  it("a port in use rejects with node's own error", async () => {
    const a = await start(() => new Response("a"));
    await expect(serve(() => new Response("b"), { port: a.port })).rejects.toMatchObject({ code: "EADDRINUSE" });
  });
});
