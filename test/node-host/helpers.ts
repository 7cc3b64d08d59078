// Plumbing for the toolloop/node suites: raw sockets (to send what fetch would refuse to) and
// node:http requests (to watch a body arrive chunk by chunk).
import { type Agent, type IncomingMessage, request } from "node:http";
import { connect } from "node:net";

export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Sends `text` as is on a new connection and resolves with everything the server sent back before closing. */
export function rawExchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(text));
    let out = "";
    socket.setEncoding("latin1");
    socket.on("data", (d: string) => (out += d));
    socket.on("end", () => resolve(out));
    socket.on("error", reject);
  });
}

/** The status line and headers of a raw response, header names lower-cased, repeated ones kept in order. */
export function parseHead(raw: string): { status: number; headers: [string, string][]; body: string } {
  const end = raw.indexOf("\r\n\r\n");
  const [statusLine, ...lines] = raw.slice(0, end).split("\r\n");
  const headers = lines.map((l) => {
    const i = l.indexOf(":");
    return [l.slice(0, i).trim().toLowerCase(), l.slice(i + 1).trim()] as [string, string];
  });
  const body = raw.slice(end + 4);
  const chunked = headers.some(([k, v]) => k === "transfer-encoding" && v === "chunked");
  return { status: Number(statusLine!.split(" ")[1]), headers, body: chunked ? dechunk(body) : body };
}

/** A chunked body's data (sizes and the last chunk dropped). */
function dechunk(text: string): string {
  let out = "";
  for (let at = 0; ; ) {
    const eol = text.indexOf("\r\n", at);
    const size = Number.parseInt(text.slice(at, eol), 16);
    if (!size) return out;
    out += text.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
}

/** A node:http request whose response is handed over as soon as its head arrives (the body unread). */
export function open(
  url: string,
  options: { method?: string; headers?: Record<string, string | string[]>; agent?: Agent } = {},
): { req: ReturnType<typeof request>; response: Promise<IncomingMessage> } {
  // Without an agent: a connection of its own, closed after the answer.
  const req = request(url, { method: options.method ?? "GET", headers: options.headers, agent: options.agent ?? false });
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    req.once("response", resolve);
    req.once("error", reject);
  });
  return { req, response };
}

/** Reads the next chunk of a response (or null at its end). */
export function nextChunk(res: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunk = res.read() as Buffer | null;
    if (chunk !== null) return resolve(chunk.toString("utf8"));
    if (res.readableEnded) return resolve(null);
    const cleanup = () => {
      res.off("readable", onReadable);
      res.off("end", onEnd);
      res.off("error", onError);
    };
    const onReadable = () => {
      const c = res.read() as Buffer | null;
      if (c === null) return;
      cleanup();
      resolve(c.toString("utf8"));
    };
    const onEnd = () => {
      cleanup();
      resolve(null);
    };
    const onError = (e: unknown) => {
      cleanup();
      reject(e);
    };
    res.on("readable", onReadable);
    res.once("end", onEnd);
    res.once("error", onError);
  });
}

export async function readAll(res: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of res) text += (chunk as Buffer).toString("utf8");
  return text;
}
