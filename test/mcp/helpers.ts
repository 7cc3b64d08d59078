// Test plumbing for the MCP suites: our handler on node:http (through toolloop/node's
// serve()), bundles served by workerd (Miniflare), the official SDK as the independent
// peer (its Client, and its McpServer on node:http), and small raw-request helpers.
import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport, type StreamableHTTPServerTransportOptions } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { build } from "esbuild";
import { Agent, fetch as undiciFetch } from "undici";
import { serve } from "../../hosts/node/index.js";

export const root = resolve(fileURLToPath(new URL("../..", import.meta.url)));
export const tmp = join(root, ".tmp", "mcp");
mkdirSync(tmp, { recursive: true });
process.env.TMPDIR = tmp; // Miniflare and workerd leave folders in TMPDIR

type FetchHandler = (request: Request) => Promise<Response>;

/** Serves a fetch handler on 127.0.0.1:<ephemeral> with toolloop/node's serve(). */
export async function serveHandler(handler: FetchHandler, path = "/mcp"): Promise<{ url: string; close: () => Promise<void> }> {
  const { url, close } = await serve((req) =>
    new URL(req.url).pathname === path ? handler(req) : Promise.resolve(new Response("not found", { status: 404 })),
  );
  return { url: url + path, close: () => close({ timeout: 0 }) };
}

export function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((r) => server.close(() => r()));
}

/** Bundles an entry for workerd as wrangler would (esm, browser platform), toolloop from source. */
export async function bundleForWorker(entry: string): Promise<string> {
  const sources: Record<string, string> = { toolloop: "src/index.ts", "toolloop/mcp": "adapters/mcp/index.ts" };
  const result = await build({
    entryPoints: [resolve(root, entry)],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    logLevel: "silent",
    plugins: [
      {
        name: "toolloop-from-source",
        setup(b) {
          b.onResolve({ filter: /^toolloop(\/mcp)?$/ }, (args) => ({ path: join(root, sources[args.path]!) }));
        },
      },
    ],
  });
  return result.outputFiles[0]!.text;
}

/** Runs a module worker in workerd (no compatibility flags, so no nodejs_compat). */
export async function startWorkerd(script: string, bindings: Record<string, string> = {}): Promise<{ url: string; dispose: () => Promise<void> }> {
  const { Miniflare } = await import("miniflare");
  const mf = new Miniflare({
    modules: true,
    script,
    compatibilityDate: "2025-09-01",
    compatibilityFlags: [],
    bindings,
    host: "127.0.0.1",
    port: 0,
  });
  const url = (await mf.ready).toString();
  return { url, dispose: () => mf.dispose() };
}

/** The official SDK client, connected over Streamable HTTP (`transport` exposes the negotiated revision). */
/**
 * A fetch that opens a new connection for every request. A server that refuses a request
 * before reading its body (401, 403) may close that connection, and a pooled fetch can pick
 * the closing socket for the next request ("other side closed"): tests that expect refusals
 * and then a success on the same server use this.
 */
export const unpooledFetch: typeof fetch = (() => {
  const dispatcher = new Agent({ pipelining: 0 });
  return ((input: string | URL | Request, init?: RequestInit) =>
    undiciFetch(input as never, { ...(init as object), dispatcher } as never)) as unknown as typeof fetch;
})();

export async function sdkClient(
  url: string,
  headers: Record<string, string> = {},
  options: { fetch?: typeof fetch } = {},
): Promise<Client & { http: StreamableHTTPClientTransport }> {
  const client = new Client({ name: "sdk-peer", version: "1.0.0" });
  // identity: Miniflare's dev proxy gzips even empty answers, and the SDK cancels those
  // bodies unread, which makes workerd log a harmless "Broken pipe" per request.
  const http = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { ...headers, "accept-encoding": "identity" } },
    ...(options.fetch && { fetch: options.fetch }),
  });
  await client.connect(http);
  return Object.assign(client, { http });
}

export interface SdkServer {
  url: string;
  /** Headers of every HTTP request the server received, in order. */
  requests: { method: string; headers: IncomingMessage["headers"]; body: unknown }[];
  /** Forgets every session, so the next request with an old id gets 404. */
  expireSessions(): void;
  close(): Promise<void>;
}

/**
 * The SDK's McpServer over its StreamableHTTPServerTransport on node:http, with sessions
 * (one transport and server per session, as the SDK's own examples do).
 */
export async function startSdkServer(
  setup: (server: McpServer) => void,
  transportOptions: Omit<StreamableHTTPServerTransportOptions, "sessionIdGenerator"> = {},
): Promise<SdkServer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const requests: SdkServer["requests"] = [];
  const http = createServer(async (req, res) => {
    let body: unknown;
    if (req.method === "POST") {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    }
    requests.push({ method: req.method ?? "", headers: req.headers, body });
    const sid = req.headers["mcp-session-id"];
    let transport = typeof sid === "string" ? sessions.get(sid) : undefined;
    if (!transport) {
      if (typeof sid === "string") {
        res
          .writeHead(404, { "content-type": "application/json" })
          .end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } }));
        return;
      }
      const created = new StreamableHTTPServerTransport({
        ...transportOptions,
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, created),
      });
      const server = new McpServer({ name: "sdk-peer-server", version: "1.0.0" });
      setup(server);
      await server.connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", () => r()));
  const address = http.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    expireSessions: () => sessions.clear(),
    close: async () => {
      for (const t of sessions.values()) await t.close().catch(() => {});
      await closeServer(http);
    },
  };
}

/** A raw JSON-RPC POST to a handler, as a Request (no server needed). */
export function rpcRequest(body: unknown, headers: Record<string, string> = {}, url = "http://127.0.0.1/mcp"): Request {
  return new Request(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** A deferred promise: resolve it from elsewhere. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
