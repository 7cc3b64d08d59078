// toolloop/node over real sockets: what a fetch handler sees of a node:http request (URL,
// headers, method, body as it arrives) and what the client gets of its Response (status, every
// header, HEAD, failures), with node:http clients and raw sockets for what fetch cannot send.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { createServer as createHttpsServer, request as httpsRequest } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type NodeServer, nodeListener, serve } from "../../hosts/node/index.js";
import { deferred, open, parseHead, rawExchange, readAll } from "./helpers.js";

const servers: NodeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close({ timeout: 0 })));
});

async function start(handler: (request: Request) => Response | Promise<Response>, options: Parameters<typeof serve>[1] = {}): Promise<NodeServer> {
  const s = await serve(handler, { onError: () => {}, ...options });
  servers.push(s);
  return s;
}

/** The request the handler got, answered with a small JSON summary of it. */
function echo(seen: Request[]) {
  return async (request: Request) => {
    seen.push(request);
    const body = request.body ? await request.text() : null;
    return Response.json({ method: request.method, url: request.url, body });
  };
}

describe("the Request a handler gets", () => {
  it("has the absolute URL from the Host header, the path and query as sent, and the method", async () => {
    const seen: Request[] = [];
    const s = await start(echo(seen));
    expect(s.url).toBe(`http://127.0.0.1:${s.port}`);
    const r = await fetch(`${s.url}/a/b?x=1&y=%20z`, { method: "DELETE" });
    expect(await r.json()).toEqual({ method: "DELETE", url: `${s.url}/a/b?x=1&y=%20z`, body: null });
    const raw = parseHead(await rawExchange(s.port, "GET /p?q HTTP/1.1\r\nHost: mcp.example.com:8443\r\nConnection: close\r\n\r\n"));
    expect(JSON.parse(raw.body).url).toBe("http://mcp.example.com:8443/p?q");
  });

  it("without a Host (HTTP/1.0) the URL names the address the request arrived at; the absolute form keeps its path", async () => {
    const seen: Request[] = [];
    const s = await start(echo(seen));
    const old = parseHead(await rawExchange(s.port, "GET /old HTTP/1.0\r\n\r\n"));
    expect(JSON.parse(old.body).url).toBe(`http://127.0.0.1:${s.port}/old`);
    const absolute = parseHead(await rawExchange(s.port, "GET http://other.example/abs?k=v HTTP/1.1\r\nHost: h.example\r\nConnection: close\r\n\r\n"));
    expect(JSON.parse(absolute.body).url).toBe("http://h.example/abs?k=v");
  });

  it("a Host that would move the origin (userinfo, path, spaces) is 400 and never reaches the handler", async () => {
    const seen: Request[] = [];
    const s = await start(echo(seen));
    for (const host of ["evil.example@good.example", "good.example/evil", "a b", "x\\y"]) {
      const r = parseHead(await rawExchange(s.port, `GET / HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`));
      expect(r.status, host).toBe(400);
    }
    expect(seen).toEqual([]);
  });

  it("X-Forwarded-Proto is ignored unless trustForwardedProto is set, and then only http or https is taken", async () => {
    const plain = await start(echo([]));
    const trusting = await start(echo([]), { trustForwardedProto: true });
    const url = async (s: NodeServer, proto: string) => (await (await fetch(`${s.url}/x`, { headers: { "x-forwarded-proto": proto } })).json()).url;
    expect(await url(plain, "https")).toBe(`http://127.0.0.1:${plain.port}/x`);
    expect(await url(trusting, "https")).toBe(`https://127.0.0.1:${trusting.port}/x`);
    expect(await url(trusting, "HTTPS, http")).toBe(`https://127.0.0.1:${trusting.port}/x`);
    expect(await url(trusting, "javascript")).toBe(`http://127.0.0.1:${trusting.port}/x`);
  });

  it("keeps every value of a repeated header", async () => {
    let got: [string, string][] = [];
    const s = await start((request) => {
      got = [...request.headers].filter(([k]) => k.startsWith("x-"));
      return new Response("ok");
    });
    await rawExchange(s.port, "GET / HTTP/1.1\r\nHost: h\r\nX-Tag: one\r\nX-Tag: two\r\nX-Single: s\r\nConnection: close\r\n\r\n");
    expect(got).toEqual([
      ["x-single", "s"],
      ["x-tag", "one, two"],
    ]);
  });

  it("HEAD reaches the handler as HEAD; the client gets its status and headers and no body", async () => {
    const methods: string[] = [];
    const s = await start((request) => {
      methods.push(request.method);
      return new Response("a body HEAD must not carry", { headers: { "content-length": "26", "x-kind": "doc" } });
    });
    const raw = await rawExchange(s.port, "HEAD /doc HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
    const r = parseHead(raw);
    expect(methods).toEqual(["HEAD"]);
    expect(r.status).toBe(200);
    expect(r.headers).toContainEqual(["content-length", "26"]);
    expect(r.headers).toContainEqual(["x-kind", "doc"]);
    expect(r.body).toBe("");
  });

  it("a method the fetch API refuses (CONNECT, TRACE) is 400, not a crash", async () => {
    const s = await start(() => new Response("no"));
    const r = parseHead(await rawExchange(s.port, "TRACE / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"));
    expect(r.status).toBe(400);
  });
});

describe("the Response a client gets", () => {
  it("status, status text and headers as the handler set them; each Set-Cookie on its own line", async () => {
    const s = await start(() => {
      const headers = new Headers({ "content-type": "text/plain", "x-multi": "a" });
      headers.append("x-multi", "b");
      headers.append("set-cookie", "a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Path=/");
      headers.append("set-cookie", "b=2; HttpOnly");
      return new Response("made", { status: 201, statusText: "Made It", headers });
    });
    const raw = parseHead(await rawExchange(s.port, "GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"));
    expect(raw.status).toBe(201);
    expect(raw.headers.filter(([k]) => k === "set-cookie").map(([, v]) => v)).toEqual(["a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Path=/", "b=2; HttpOnly"]);
    expect(raw.headers).toContainEqual(["x-multi", "a, b"]);
    const { req, response } = open(`${s.url}/`);
    req.end();
    const res = await response;
    expect(res.statusMessage).toBe("Made It");
    expect(res.headers["set-cookie"]).toHaveLength(2);
    expect(await readAll(res)).toBe("made");
  });

  it("a handler that throws, rejects or returns no Response is a bare 500; onError gets the error, the client never does", async () => {
    const errors: unknown[] = [];
    const s = await start(
      (request) => {
        const path = new URL(request.url).pathname;
        if (path === "/throw") throw new Error("secret-db-password in the message");
        if (path === "/reject") return Promise.reject(new Error("secret again"));
        return "not a response" as unknown as Response;
      },
      { onError: (e) => errors.push(e) },
    );
    for (const path of ["/throw", "/reject", "/nothing"]) {
      const r = await fetch(s.url + path);
      expect(r.status, path).toBe(500);
      const text = await r.text();
      expect(text).toBe("Internal Server Error");
      expect(text).not.toContain("secret");
    }
    expect(errors.map((e) => (e as Error).message)).toEqual([
      "secret-db-password in the message",
      "secret again",
      "the handler resolved to string, not a Response",
    ]);
  });

  it("a body that fails after its first chunk cuts the response off (the client sees it incomplete), and onError hears of it", async () => {
    const errors: unknown[] = [];
    const s = await start(
      () =>
        new Response(
          new ReadableStream({
            start(c) {
              c.enqueue(new TextEncoder().encode("partial "));
            },
            pull(c) {
              c.error(new Error("the source broke"));
            },
          }),
        ),
      { onError: (e) => errors.push(e) },
    );
    const r = await fetch(s.url);
    expect(r.status).toBe(200);
    await expect(r.text()).rejects.toThrow();
    expect(errors.map((e) => (e as Error).message)).toEqual(["the source broke"]);
  });

  it("204 and 304 go out without a body; a null body is an empty one", async () => {
    const s = await start((request) => {
      const p = new URL(request.url).pathname;
      return new Response(null, { status: p === "/204" ? 204 : p === "/304" ? 304 : 200 });
    });
    expect((await fetch(`${s.url}/204`)).status).toBe(204);
    expect((await fetch(`${s.url}/304`)).status).toBe(304);
    const r = await fetch(`${s.url}/empty`);
    expect(r.status).toBe(200);
    expect(await r.text()).toBe("");
  });
});

describe("bodies stream", () => {
  it("the handler reads the upload chunk by chunk while the client is still sending it", async () => {
    const got: string[] = [];
    const firstSeen = deferred();
    const s = await start(async (request) => {
      const reader = request.body!.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        got.push(value);
        firstSeen.resolve();
      }
      return new Response(got.join("|"));
    });
    const { req, response } = open(`${s.url}/upload`, { method: "POST", headers: { "transfer-encoding": "chunked" } });
    req.write("first");
    // The second chunk is sent only after the handler has read the first: a bridge that waited
    // for the whole body would never get here.
    await firstSeen.promise;
    req.end("second");
    expect(await readAll(await response)).toBe("first|second");
  });

  it("an upload the handler does not read is held back at the socket, not buffered (backpressure)", async () => {
    const firstRead = deferred<number>();
    const readRest = deferred();
    let nodeReq: IncomingMessage | undefined;
    const listener = nodeListener(async (request) => {
      const reader = request.body!.getReader();
      let total = (await reader.read()).value!.byteLength;
      firstRead.resolve(total);
      // Nothing more is read until the test says so.
      await readRest.promise;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        total += value.byteLength;
      }
      return new Response(String(total));
    });
    const server = createServer((req, res) => {
      nodeReq = req;
      void listener(req, res);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const port = (server.address() as AddressInfo).port;
      const size = 64 * 1024 * 1024;
      const { req, response } = open(`http://127.0.0.1:${port}/up`, { method: "POST", headers: { "content-length": String(size) } });
      const chunk = new Uint8Array(1024 * 1024).fill(7);
      // The client queues the whole 64 MiB at once (in its own memory); the server must not follow suit.
      for (let i = 0; i < size / chunk.byteLength; i++) req.write(chunk);
      req.end();
      await firstRead.promise;
      // node stops reading the socket once the web stream's queue is full...
      await expect.poll(() => nodeReq?.readableFlowing, { timeout: 10_000 }).toBe(false);
      // ...having taken in only what the kernel, node and the queue's 64 KiB hold: far from 64 MiB.
      expect(nodeReq!.socket.bytesRead).toBeLessThan(16 * 1024 * 1024);
      readRest.resolve();
      expect(await readAll(await response)).toBe(String(size));
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe("nodeListener on node:https", () => {
  it("on node:https the URL is https (the socket is TLS), with no header to trust", async () => {
    // A throwaway self-signed certificate for 127.0.0.1.
    const dir = mkdtempSync(join(tmpdir(), "toolloop-tls-"));
    try {
      execFileSync(
        "openssl",
        [
          "req",
          "-x509",
          "-newkey",
          "rsa:2048",
          "-nodes",
          "-keyout",
          join(dir, "key.pem"),
          "-out",
          join(dir, "cert.pem"),
          "-days",
          "1",
          "-subj",
          "/CN=127.0.0.1",
        ],
        {
          stdio: "ignore",
        },
      );
      const urls: string[] = [];
      const tls = createHttpsServer(
        { key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) },
        nodeListener((request) => {
          urls.push(request.url);
          return new Response("secure");
        }),
      );
      await new Promise<void>((r) => tls.listen(0, "127.0.0.1", r));
      try {
        const port = (tls.address() as AddressInfo).port;
        const body = await new Promise<string>((resolve, reject) => {
          const req = httpsRequest(`https://127.0.0.1:${port}/tls?x=1`, { rejectUnauthorized: false, agent: false }, (res) =>
            readAll(res).then(resolve, reject),
          );
          req.on("error", reject);
          req.end();
        });
        expect(body).toBe("secure");
        expect(urls).toEqual([`https://127.0.0.1:${port}/tls?x=1`]);
      } finally {
        tls.closeAllConnections();
        await new Promise((r) => tls.close(r));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("nodeListener on an existing node:http server", () => {
  let server: Server;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
  });

  it("serves a handler with createServer(nodeListener(handler))", async () => {
    server = createServer(nodeListener(async (request) => new Response(`hello ${new URL(request.url).searchParams.get("n")}`)));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    expect(await (await fetch(`http://127.0.0.1:${port}/?n=node`)).text()).toBe("hello node");
  });
});
