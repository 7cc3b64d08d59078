// The OAuth client's HTTP: JSON documents fetched (metadata), forms posted (token endpoint) and
// JSON posted (registration), each to a URL that must be https or loopback. A failure to reach
// a server is a ConnectionError, as for the MCP server itself; an abort rejects with its reason.
import { abortReason, ConnectionError, describeError, isAbortError, isRecord, stripURLs } from "../../../src/base/index.js";
import type { FetchFn } from "../../../src/http/index.js";
import { AuthError } from "./errors.js";

export interface OAuthHttp {
  fetch: FetchFn;
  signal: AbortSignal | undefined;
}

/** A metadata document or endpoint answer larger than this is refused (no legitimate one comes near). */
const MAX_BODY = 1 << 20;

/** True for hosts that never leave the machine: the one place plain http is allowed (RFC 8252 §7.3). */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** `url` parsed, when it is https (or http on loopback) and has no fragment; else an AuthError naming `what`. */
export function secureURL(url: unknown, what: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(String(url));
  } catch {
    throw new AuthError("discovery", `${what} is not a URL: ${JSON.stringify(String(url)).slice(0, 200)}`);
  }
  if (parsed.hash) throw new AuthError("discovery", `${what} has a fragment: ${stripURLs(parsed.href)}`);
  if (parsed.protocol === "https:" || (parsed.protocol === "http:" && isLoopback(parsed.hostname))) return parsed;
  throw new AuthError("insecure_endpoint", `${what} ${stripURLs(parsed.href)} is not https (only loopback hosts may use http)`);
}

export interface Answer {
  status: number;
  ok: boolean;
  /** The body as a JSON object, or undefined when it is not one. */
  json: Record<string, unknown> | undefined;
  headers: Headers;
}

/** One request; the body read whole (up to MAX_BODY) and parsed as JSON when it is. */
export async function send(http: OAuthHttp, url: URL, init: RequestInit): Promise<Answer> {
  if (http.signal?.aborted) throw abortReason(http.signal);
  let res: Response;
  try {
    res = await http.fetch(url.href, { ...init, signal: http.signal });
  } catch (err) {
    if (http.signal?.aborted) throw abortReason(http.signal);
    if (isAbortError(err)) throw err;
    throw new ConnectionError("mcp", `request to ${stripURLs(url.href)} failed: ${describeError(err)}`, { cause: err });
  }
  const text = await res.text().catch(() => "");
  if (http.signal?.aborted) throw abortReason(http.signal);
  let json: Record<string, unknown> | undefined;
  if (text.length <= MAX_BODY) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (isRecord(parsed)) json = parsed;
    } catch {
      // not JSON: json stays undefined
    }
  }
  return { status: res.status, ok: res.ok, json, headers: res.headers };
}

/** GET a JSON document. Only safelisted headers, so a browser sends it without a CORS preflight. */
export function getJSON(http: OAuthHttp, url: URL): Promise<Answer> {
  return send(http, url, { method: "GET", headers: { accept: "application/json" } });
}

/** POST an application/x-www-form-urlencoded body (token endpoint). */
export function postForm(http: OAuthHttp, url: URL, form: URLSearchParams, headers: Record<string, string> = {}): Promise<Answer> {
  return send(http, url, {
    method: "POST",
    headers: { ...headers, "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: form.toString(),
  });
}

/** POST a JSON body (dynamic client registration). */
export function postJSON(http: OAuthHttp, url: URL, body: unknown): Promise<Answer> {
  return send(http, url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json" }, body: JSON.stringify(body) });
}

/** "error: description" from an OAuth error body (RFC 6749 §5.2), or the status. */
export function oauthErrorText(answer: Answer): { code: string | undefined; text: string } {
  const code = typeof answer.json?.error === "string" ? answer.json.error : undefined;
  const description = typeof answer.json?.error_description === "string" ? answer.json.error_description.slice(0, 300) : undefined;
  const text = code ? `${code}${description ? `: ${description}` : ""}` : `HTTP ${answer.status}`;
  return { code, text: answer.status && code ? `HTTP ${answer.status} ${text}` : text };
}
