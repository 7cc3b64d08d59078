/// <reference types="node" />
// nodeListener(handler): a fetch handler as node:http's request listener.
import type { IncomingMessage, ServerResponse } from "node:http";
import { checkOptions, InvalidOptionsError } from "../../src/base/index.js";
import { BadRequest, toRequest } from "./request.js";
import { writeResponse } from "./response.js";

/** What these adapters serve: mcpHandler(), a Hono app's fetch, any web-standard handler. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

export interface NodeListenerOptions {
  /**
   * Build the request URL with the scheme `X-Forwarded-Proto` names. Only behind a proxy that
   * sets that header itself: otherwise any client could claim https. Default false.
   */
  trustForwardedProto?: boolean | undefined;
  /**
   * Called with what the handler threw (or a body that failed midway). The client gets a bare
   * 500, never the error. Default: console.error.
   */
  onError?: ((error: unknown, request: Request | undefined) => void) | undefined;
}

/** The listener node:http calls, for `createServer(listener)` or `server.on("request", listener)`. */
export type NodeRequestListener = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * Serves `handler` from an existing node:http (or https) server:
 * `createServer(nodeListener(mcp)).listen(3000)`. The returned promise settles when the answer
 * is written and never rejects.
 */
export function nodeListener(handler: FetchHandler, options: NodeListenerOptions = {}): NodeRequestListener {
  checkHandler("nodeListener()", handler);
  checkOptions("nodeListener()", options, "trustForwardedProto onError");
  const settings = { trustForwardedProto: flag("nodeListener(): trustForwardedProto", options.trustForwardedProto) };
  if (options.onError !== undefined && typeof options.onError !== "function") {
    throw new InvalidOptionsError("nodeListener(): onError must be a function (error, request) => void");
  }
  const onError = options.onError ?? ((error: unknown) => console.error("toolloop/node: the handler failed:", error));

  return async (req, res) => {
    // Aborted when the connection closes before the answer is complete: the client hung up,
    // so a tool or a stream producer can stop working for nobody.
    const controller = new AbortController();
    res.once("close", () => {
      if (!res.writableFinished) controller.abort(new DOMException("The client closed the connection", "AbortError"));
    });
    let request: Request;
    try {
      request = toRequest(req, controller.signal, settings);
    } catch (err) {
      if (err instanceof BadRequest) return plain(res, 400, `Bad Request: ${err.message}`);
      report(onError, err, undefined);
      return plain(res, 500, "Internal Server Error");
    }
    let response: Response;
    try {
      response = await handler(request);
      // By shape, not instanceof: a Response from another realm or library (undici's) serves as well.
      if (!isResponse(response)) throw new TypeError(`the handler resolved to ${response === null ? "null" : typeof response}, not a Response`);
    } catch (err) {
      report(onError, err, request);
      return plain(res, 500, "Internal Server Error");
    }
    try {
      await writeResponse(response, res, request.method === "HEAD");
    } catch (err) {
      report(onError, err, request);
      // Before the headers the client can still be told; after them only cutting the response
      // off says it failed: the connection ends without the body's end (what was written is sent first).
      if (!res.headersSent) plain(res, 500, "Internal Server Error");
      else cutOff(res);
    }
  };
}

function plain(res: ServerResponse, status: number, text: string): void {
  if (res.destroyed) return;
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "content-length": String(new TextEncoder().encode(text).length) });
  res.end(text);
}

function cutOff(res: ServerResponse): void {
  const socket = res.socket;
  if (!socket) return void res.destroy();
  socket.end();
  socket.once("finish", () => socket.destroy());
}

function isResponse(value: unknown): value is Response {
  return (
    typeof value === "object" && value !== null && typeof (value as Response).status === "number" && typeof (value as Response).headers?.get === "function"
  );
}

function report(onError: (error: unknown, request: Request | undefined) => void, err: unknown, request: Request | undefined): void {
  try {
    onError(err, request);
  } catch {
    // A throwing logger must not take the server down.
  }
}

export function checkHandler(what: string, handler: unknown): void {
  if (typeof handler !== "function") {
    throw new InvalidOptionsError(`${what} takes the handler first: a function (request: Request) => Response | Promise<Response>, such as mcpHandler({...})`);
  }
}

export function flag(what: string, value: unknown): boolean {
  if (value === undefined || typeof value === "boolean") return value === true;
  throw new InvalidOptionsError(`${what} must be true or false`);
}
