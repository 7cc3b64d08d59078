/// <reference types="node" />
// serve(handler): a node:http server of its own for a fetch handler, with a graceful close.
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { checkOptions, InvalidOptionsError, numberOption } from "../../src/base/index.js";
import { checkHandler, type FetchHandler, flag, nodeListener } from "./listener.js";

export interface ServeOptions {
  /** The port to listen on; 0 (the default) lets the system pick a free one (read it from `port` or `url`). */
  port?: number | undefined;
  /**
   * The address to listen on. Default "127.0.0.1": this machine only. Give "0.0.0.0" (or "::")
   * to take connections from other machines.
   */
  hostname?: string | undefined;
  /** As nodeListener's: the scheme from `X-Forwarded-Proto`, only behind a proxy that sets it. */
  trustForwardedProto?: boolean | undefined;
  /** As nodeListener's: what the handler threw. Default: console.error. */
  onError?: ((error: unknown, request: Request | undefined) => void) | undefined;
  /** Aborting it closes the server, as `close()` does. */
  signal?: AbortSignal | undefined;
}

export interface CloseOptions {
  /**
   * How long in-flight requests may take to finish (ms) before their connections are closed,
   * which aborts their handlers' signals. Default 10000; 0 closes them at once. An open event
   * stream never finishes by itself, so it is cut at this point.
   */
  timeout?: number | undefined;
}

export interface NodeServer {
  /** The node:http server (for its events and settings: timeouts, maxHeadersCount...). */
  readonly server: Server;
  /** The address it listens on, as given. */
  readonly hostname: string;
  /** The port it listens on (the one the system picked, for port 0). */
  readonly port: number;
  /** http://hostname:port, the origin to send requests to. */
  readonly url: string;
  /**
   * Stops taking connections, lets the requests in flight finish (their answers go out with
   * `Connection: close`), closes idle keep-alive connections, and resolves when every connection
   * is closed. Calling it again returns the same promise.
   */
  close(options?: CloseOptions): Promise<void>;
}

const DEFAULT_CLOSE_TIMEOUT = 10_000;

/**
 * Serves `handler` on its own node:http server. Resolves once it listens:
 * `const { url, close } = await serve(mcpHandler({...}), { port: 3000 })`.
 */
export async function serve(handler: FetchHandler, options: ServeOptions = {}): Promise<NodeServer> {
  checkHandler("serve()", handler);
  checkOptions("serve()", options, "port hostname trustForwardedProto onError signal");
  const port = numberOption("serve(): port", options.port, 0) ?? 0;
  if (port > 65535) throw new InvalidOptionsError(`serve(): port must be 65535 or less, got ${port}`);
  const hostname = options.hostname ?? "127.0.0.1";
  if (typeof hostname !== "string" || hostname.trim() === "") {
    throw new InvalidOptionsError('serve(): hostname must be an address to listen on, such as "127.0.0.1" or "0.0.0.0"');
  }
  flag("serve(): trustForwardedProto", options.trustForwardedProto);
  const signal = options.signal;
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw new InvalidOptionsError("serve(): signal must be an AbortSignal");
  signal?.throwIfAborted();

  const listener = nodeListener(handler, { trustForwardedProto: options.trustForwardedProto, onError: options.onError });
  let closing: Promise<void> | undefined;
  // The answers not yet started, to be told "Connection: close" once closing.
  const waiting = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    if (closing) res.setHeader("connection", "close");
    else waiting.add(res);
    const done = () => {
      waiting.delete(res);
      if (closing) server.closeIdleConnections();
    };
    res.once("finish", done);
    res.once("close", done);
    void listener(req, res);
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, hostname, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;

  const close = (closeOptions: CloseOptions = {}): Promise<void> => {
    if (closing) return closing;
    let timeout: number;
    try {
      checkOptions("close()", closeOptions, "timeout");
      timeout = closeOptions.timeout === 0 ? 0 : (numberOption("close(): timeout", closeOptions.timeout, 0, true) ?? DEFAULT_CLOSE_TIMEOUT);
    } catch (err) {
      return Promise.reject(err);
    }
    // Every answer from now on ends its connection, so keep-alive clients leave as their requests
    // finish (an answer already under way ends its connection once done: see above).
    for (const res of waiting) if (!res.headersSent) res.setHeader("connection", "close");
    waiting.clear();
    closing = new Promise<void>((resolve) => {
      const force = setTimeout(() => server.closeAllConnections(), timeout);
      server.close(() => {
        clearTimeout(force);
        resolve();
      });
      server.closeIdleConnections();
    });
    return closing;
  };
  signal?.addEventListener("abort", () => void close(), { once: true });

  return { server, hostname, port: bound, url: `http://${host}:${bound}`, close };
}
