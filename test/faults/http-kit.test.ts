// toolloop/http as a third-party adapter uses it, over real HTTP: an adapter's own error-body
// reader decides the type, message, retryability and retry delay of a ProviderError; without
// one the common shapes are read; the key never shows in the error.
import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { type ErrorDetails, httpSettings, postJSON, readCommonError } from "../../src/http/kit.js";
import { createClient } from "../../src/index.js";
import { claudeRow, type Mock, responsesRow } from "./rows.js";
import { rejection } from "./support.js";

let server: Server | undefined;
let mock: Mock | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

/** A server answering each request with the next of `replies`; counts requests. */
async function serve(replies: { status: number; body: string; headers?: Record<string, string> }[]) {
  const seen = { count: 0 };
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const r = replies[Math.min(seen.count++, replies.length - 1)]!;
      res.writeHead(r.status, { "content-type": "application/json", ...r.headers });
      res.end(r.body);
    });
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server!.address() as { port: number }).port}/v1`, seen };
}

const KEY = "sk-kit-0123456789abcdefSECRET";

describe("toolloop/http", () => {
  it("an adapter's readError decides type, message and that a 429 is final; the key is scrubbed", async () => {
    const { url, seen } = await serve([{ status: 429, body: JSON.stringify({ failure: { kind: "quota_gone", text: `no quota left for ${KEY}` } }) }]);
    const readError = (body: unknown): ErrorDetails => {
      const f = (body as { failure?: { kind?: string; text?: string } }).failure ?? {};
      return { type: f.kind, message: f.text, retryable: f.kind !== "quota_gone" };
    };
    const http = httpSettings("acme", { apiKey: KEY, model: "m", baseURL: url }, "https://api.acme.test/v1", { readError });
    const err = await rejection(postJSON(http, { url, headers: { authorization: `Bearer ${KEY}` }, body: {}, signal: undefined }));
    expect(err).toMatchObject({ code: "provider_error", provider: "acme", status: 429, type: "quota_gone", retryable: false });
    expect(err.message).toBe("acme 429 quota_gone: no quota left for [redacted]");
    expect(seen.count).toBe(1);
  });

  it("a retry delay from the body is waited for, then the request is sent again", async () => {
    const { url, seen } = await serve([
      { status: 503, body: JSON.stringify({ error: { type: "busy", message: "later", wait: 5 } }) },
      { status: 200, body: JSON.stringify({ ok: true }) },
    ]);
    const readError = (body: unknown): ErrorDetails => ({ ...readCommonError(body), retryDelay: (body as { error: { wait: number } }).error.wait });
    const http = httpSettings("acme", { model: "m" }, "https://api.acme.test/v1", { readError, maxRetries: 1 });
    await expect(postJSON(http, { url, headers: {}, body: {}, signal: undefined })).resolves.toMatchObject({ body: { ok: true } });
    expect(seen.count).toBe(2);
  });

  it("an abort while an error body (or a non-stream body) is still arriving rejects with the caller's reason, not a ProviderError", async () => {
    for (const stream of [false, true]) {
      server = createServer((req, res) => {
        req.resume();
        res.writeHead(stream ? 200 : 400, { "content-type": stream ? "text/plain" : "application/json" });
        res.write('{"error":'); // and never more
      });
      await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
      const url = `http://127.0.0.1:${(server!.address() as { port: number }).port}/v1`;
      const http = httpSettings("acme", { model: "m" }, "https://acme.test", { maxRetries: 0 });
      const c = new AbortController();
      const reason = new Error("my reason");
      setTimeout(() => c.abort(reason), 50);
      const { postSSE } = await import("../../src/http/kit.js");
      const sent = stream
        ? postSSE(http, { url, headers: {}, body: {}, signal: c.signal }, () => {})
        : postJSON(http, { url, headers: {}, body: {}, signal: c.signal });
      expect(await sent.catch((e: unknown) => e), stream ? "sse" : "json").toBe(reason);
      await new Promise<void>((r) => server!.close(() => r()));
      server = undefined;
    }
  });

  it("without a reader the common shapes are read: {error:{type,message}} and top-level fields", () => {
    expect(readCommonError({ error: { type: "invalid_request_error", message: "bad" } })).toEqual({ type: "invalid_request_error", message: "bad" });
    expect(readCommonError({ status: "UNAVAILABLE", message: "down" })).toEqual({ type: "UNAVAILABLE", message: "down" });
    expect(readCommonError({ error: { code: 400 } })).toEqual({ type: "400", message: undefined });
    expect(readCommonError(null)).toEqual({ type: undefined, message: undefined });
  });
});

describe("the adapters' own error readers", () => {
  it("openai: a 429 insufficient_quota is final (one request), a plain 429 is retried", async () => {
    mock = await responsesRow.start({ script: [{ text: "after retry" }] });
    const quota = JSON.stringify({ error: { message: "You exceeded your current quota", type: "insufficient_quota", code: "insufficient_quota" } });
    mock.enqueue({ status: 429, body: quota, headers: { "retry-after-ms": "1" } });
    const client = createClient({ provider: responsesRow.provider(mock, { maxRetries: 2 }) });
    const err = await rejection(client.chat("hi"));
    expect(err).toMatchObject({ status: 429, type: "insufficient_quota", retryable: false });
    expect(mock.bodies()).toHaveLength(1);
    mock.enqueue({
      status: 429,
      body: JSON.stringify({ error: { message: "slow down", type: "requests", code: "rate_limit_exceeded" } }),
      headers: { "retry-after-ms": "1" },
    });
    await expect(createClient({ provider: responsesRow.provider(mock, { maxRetries: 2 }) }).chat("hi")).resolves.toBe("after retry");
  });

  it("claude: the body's request_id is used when the header has none", async () => {
    mock = await claudeRow.start({ script: [] });
    mock.enqueue({
      status: 400,
      body: JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: "bad" }, request_id: "req_from_body" }),
    });
    const err = await rejection(createClient({ provider: claudeRow.provider(mock, { maxRetries: 0 }) }).chat("hi"));
    expect(err).toMatchObject({ status: 400, type: "invalid_request_error", requestId: "req_from_body" });
  });
});
