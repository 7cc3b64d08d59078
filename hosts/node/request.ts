/// <reference types="node" />
// node:http's IncomingMessage as a web-standard Request: an absolute URL, every header value,
// a body that is read only as the handler reads it, and a signal that the caller aborts.
import type { IncomingMessage } from "node:http";

export interface RequestSettings {
  /** Take the scheme from `X-Forwarded-Proto` (only behind a proxy that sets it). */
  trustForwardedProto: boolean;
}

/** Why a request could not become a Request: the client is answered 400 with this text. */
export class BadRequest extends Error {}

/**
 * The Request for `req`. Throws BadRequest for what the fetch API cannot express (a malformed
 * Host, a request target that is not a path, a method like CONNECT).
 */
export function toRequest(req: IncomingMessage, signal: AbortSignal, settings: RequestSettings): Request {
  const method = req.method ?? "GET";
  const url = requestURL(req, settings);
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    // HTTP/2's pseudo-headers (:authority, :path...) are not headers to the fetch API.
    if (name.startsWith(":")) continue;
    try {
      headers.append(name, raw[i + 1]!);
    } catch {
      throw new BadRequest(`a header the fetch API refuses: ${name}`);
    }
  }
  const body = method === "GET" || method === "HEAD" || !hasBody(req) ? null : bodyStream(req);
  try {
    // duplex: "half" is how fetch's Request takes a streamed body (the DOM types lack it).
    return new Request(url, { method, headers, body, signal, duplex: "half" } as RequestInit);
  } catch (err) {
    body?.cancel().catch(() => {});
    throw new BadRequest(err instanceof Error ? err.message : "the request cannot be represented");
  }
}

/**
 * scheme://host/path?query. The scheme is https on a TLS socket, else http (or what a trusted
 * X-Forwarded-Proto says); the host is the Host header (HTTP/1.1 requires one), else the
 * address the request arrived at.
 */
function requestURL(req: IncomingMessage, settings: RequestSettings): string {
  let scheme = "encrypted" in req.socket && req.socket.encrypted === true ? "https" : "http";
  if (settings.trustForwardedProto) {
    const forwarded = req.headers["x-forwarded-proto"];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",")[0]?.trim().toLowerCase();
    if (first === "http" || first === "https") scheme = first;
  }
  const authority = req.headers.host ?? (req.headers[":authority"] as string | undefined) ?? localAuthority(req);
  // Characters that would move the host into a path, query or userinfo are refused: the Host
  // header is the client's word, and the handler reads the origin from this URL.
  if (authority === "" || /[\s/\\?#@]/.test(authority)) throw new BadRequest("a malformed Host header");
  let origin: string;
  try {
    origin = new URL(`${scheme}://${authority}`).origin;
  } catch {
    throw new BadRequest("a malformed Host header");
  }
  const target = req.url ?? "/";
  if (target.startsWith("/")) return origin + target;
  // The absolute form (GET http://host/path, as sent to proxies): its path and query, on the
  // origin above, so the two forms of one request name the same URL.
  if (/^https?:\/\//i.test(target)) {
    try {
      const u = new URL(target);
      return origin + u.pathname + u.search;
    } catch {
      // falls through to the refusal
    }
  }
  throw new BadRequest("the request target is not a path");
}

function localAuthority(req: IncomingMessage): string {
  const { localAddress, localPort } = req.socket;
  if (!localAddress) return "localhost";
  const host = localAddress.includes(":") ? `[${localAddress}]` : localAddress;
  return localPort ? `${host}:${localPort}` : host;
}

/** HTTP/1.1 frames a request body with Content-Length or Transfer-Encoding; without either there is none. */
function hasBody(req: IncomingMessage): boolean {
  if (req.headers["transfer-encoding"] !== undefined) return true;
  const length = req.headers["content-length"];
  if (length !== undefined) return length !== "0";
  // HTTP/2 (node:http2's compatibility API) has no such framing: a stream that has not ended has a body.
  return req.httpVersionMajor >= 2 && !req.readableEnded;
}

/**
 * The body as a web stream that pulls: node reads from the socket only while the stream's
 * queue has room, so a handler that reads slowly (or stops) holds the upload back instead of
 * buffering it. A handler that cancels the stream (mcpHandler past maxBodyBytes) leaves the rest
 * to node, which discards it; the socket stays usable for the answer.
 */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let done = false;
  const stop = () => {
    done = true;
    req.off("data", onData);
    req.off("end", onEnd);
    req.off("error", onError);
    req.off("close", onClose);
  };
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const onData = (chunk: Uint8Array) => {
    // A view, not the Buffer itself: web code expects Uint8Array's own slice() (a copy).
    controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    if ((controller.desiredSize ?? 0) <= 0) req.pause();
  };
  const onEnd = () => {
    stop();
    controller.close();
  };
  const onError = (err: Error) => {
    stop();
    controller.error(err);
  };
  // Closed before "end": the client went away mid-upload.
  const onClose = () => {
    if (done) return;
    stop();
    controller.error(new DOMException("The client closed the connection before the request body ended", "AbortError"));
  };
  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        req.pause();
        req.on("data", onData);
        req.once("end", onEnd);
        req.once("error", onError);
        req.once("close", onClose);
      },
      pull() {
        if (!done) req.resume();
      },
      cancel() {
        stop();
        // Flowing with no listener: node reads and drops the rest, so the answer still goes out.
        req.resume();
      },
    },
    // Up to 64 KiB waits in the queue before node stops reading the socket.
    new ByteLengthQueuingStrategy({ highWaterMark: 64 * 1024 }),
  );
}
