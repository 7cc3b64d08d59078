// HTTP error statuses, for every adapter over real HTTP: the retryable ones (408, 409,
// 429, 500, 502, 503, 504 and Anthropic's 529) are retried with the server's
// retry-after (seconds or an HTTP date) / retry-after-ms honoured, at most maxRetries times (the mock counts the
// requests), and the last failure surfaces as a typed ProviderError carrying the status,
// the provider's error type and the request id. The history stays valid and the next
// chat works.
import { afterEach, describe, expect, it } from "vitest";
import { createClient, isToolloopError } from "../../src/index.js";
import { geminiRow, type Mock, ROWS, type Row } from "./rows.js";
import { drive, expectValidHistory, MODES, rejection } from "./support.js";

const RETRYABLE = [408, 409, 429, 500, 502, 503, 504, 529];
const HEADERS: { label: string; headers: Record<string, string> }[] = [
  { label: "retry-after-ms", headers: { "retry-after-ms": "1" } },
  { label: "retry-after (seconds)", headers: { "retry-after": "0" } },
  // A date already past when the reply comes: retried at once.
  { label: "retry-after (an HTTP date)", headers: { "retry-after": new Date(Date.now() - 5000).toUTCString() } },
];

let mock: Mock | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

async function start(row: Row, script = [{ text: "recovered" }, { text: "next" }]): Promise<Mock> {
  mock = await row.start({ script });
  return mock;
}

function errorReply(row: Row, status: number, headers: Record<string, string> = {}, requestId?: string) {
  const idHeader = row.requestIdHeader && requestId ? { [row.requestIdHeader]: requestId } : {};
  return { status, headers: { "content-type": "application/json", ...idHeader, ...headers }, body: row.errorBody(status).body };
}

describe.each(ROWS)("$label: HTTP error statuses", (row) => {
  describe.each(HEADERS)("with $label", ({ headers }) => {
    it.each(RETRYABLE)("%i is retried after the server's delay and the run succeeds", async (status) => {
      const m = await start(row);
      m.enqueue(errorReply(row, status, headers));
      m.enqueue(errorReply(row, status, headers));
      const client = createClient({ provider: row.provider(m) });
      await expect(client.chat("hi")).resolves.toBe("recovered");
      expect(m.bodies()).toHaveLength(3);
      expectValidHistory(client);
    });

    it.each(RETRYABLE)("%i past maxRetries fails with a typed ProviderError after exactly maxRetries + 1 requests", async (status) => {
      const m = await start(row);
      for (let i = 0; i < 3; i++) m.enqueue(errorReply(row, status, headers, `req_attempt_${i}`));
      const client = createClient({ provider: row.provider(m, { maxRetries: 2 }) });
      const err = await rejection(client.chat("hi"));
      expect(m.bodies()).toHaveLength(3);
      expect(isToolloopError(err, "provider_error")).toBe(true);
      expect(err.name).toBe("ProviderError");
      expect(err.status).toBe(status);
      expect(err.type).toBe(row.errorBody(status).type);
      expect(err.provider).toBe(row.providerName);
      expect(err.retryable).toBe(true);
      if (row.requestIdHeader) expect(err.requestId).toBe("req_attempt_2");
      expect(client.history).toEqual([{ role: "user", content: "hi" }]);
      // The failed request left nothing half-done: the next chat goes through.
      await expect(client.chat("again")).resolves.toBe("recovered");
      expectValidHistory(client);
    });
  });

  it.each(RETRYABLE)("%i with maxRetries 0 is not retried", async (status) => {
    const m = await start(row);
    m.enqueue(errorReply(row, status));
    const client = createClient({ provider: row.provider(m), maxRetries: 0 });
    const err = await rejection(client.chat("hi"));
    expect(m.bodies()).toHaveLength(1);
    expect(err.status).toBe(status);
  });

  it.each([503, 529])("%i without any retry-after header: the client backs off on its own and retries", async (status) => {
    const m = await start(row);
    m.enqueue(errorReply(row, status));
    const client = createClient({ provider: row.provider(m, { maxRetries: 1 }) });
    await expect(client.chat("hi")).resolves.toBe("recovered");
    expect(m.bodies()).toHaveLength(2);
  });

  it("createClient({ maxRetries }) overrides the provider's count", async () => {
    const m = await start(row);
    for (let i = 0; i < 5; i++) m.enqueue(errorReply(row, 429, { "retry-after-ms": "1" }));
    const client = createClient({ provider: row.provider(m, { maxRetries: 5 }), maxRetries: 1 });
    const err = await rejection(client.chat("hi"));
    expect(err.status).toBe(429);
    expect(m.bodies()).toHaveLength(2);
  });

  it.each([400, 401, 403, 404, 422])("%i is not retried", async (status) => {
    const m = await start(row);
    m.enqueue(errorReply(row, status, { "retry-after-ms": "1" }));
    const client = createClient({ provider: row.provider(m) });
    const err = await rejection(client.chat("hi"));
    expect(m.bodies()).toHaveLength(1);
    expect(err.status).toBe(status);
    expect(err.retryable).toBe(false);
  });

  it("x-should-retry: false turns a retryable status into a final one", async () => {
    const m = await start(row);
    m.enqueue(errorReply(row, 503, { "x-should-retry": "false", "retry-after-ms": "1" }));
    const client = createClient({ provider: row.provider(m) });
    const err = await rejection(client.chat("hi"));
    expect(m.bodies()).toHaveLength(1);
    expect(err.status).toBe(503);
  });

  it("a 4xx is retried only when the server says x-should-retry: true", async () => {
    const m = await start(row);
    m.enqueue(errorReply(row, 400, { "x-should-retry": "true", "retry-after-ms": "1" }));
    const client = createClient({ provider: row.provider(m) });
    await expect(client.chat("hi")).resolves.toBe("recovered");
    expect(m.bodies()).toHaveLength(2);
  });

  it("a 200 whose body is not JSON is not retried, though retries are allowed", async () => {
    const m = await start(row);
    m.enqueue({ status: 200, headers: { "content-type": "text/html" }, body: "<html><body>Welcome to the captive portal</body></html>" });
    const client = createClient({ provider: row.provider(m, { maxRetries: 2 }) });
    const err = await rejection(client.chat("hi"));
    expect(err.type).toBe("invalid_response");
    expect(m.bodies()).toHaveLength(1);
  });

  it.each(["3600", "an HTTP date an hour ahead"])("a retry-after beyond 60 s (%s) fails at once instead of hanging", async (value) => {
    const m = await start(row);
    m.enqueue(errorReply(row, 429, { "retry-after": value === "3600" ? value : new Date(Date.now() + 3600_000).toUTCString() }));
    const client = createClient({ provider: row.provider(m) });
    const err = await rejection(client.chat("hi"));
    expect(m.bodies()).toHaveLength(1);
    expect(err.status).toBe(429);
  });

  it.each(MODES)("%s mode: an error status before the stream starts is retried too", async (mode) => {
    const m = await start(row);
    m.enqueue(errorReply(row, 529, { "retry-after-ms": "1" }));
    const client = createClient({ provider: row.provider(m) });
    await expect(drive(client, "hi", mode)).resolves.toBe("recovered");
    expect(m.bodies()).toHaveLength(2);
    expect(m.bodies().every((b) => JSON.stringify(b) === JSON.stringify(m.bodies()[0]))).toBe(true);
  });

  it("an error body that is not JSON still gives a typed error with the status", async () => {
    const m = await start(row);
    m.enqueue({ status: 502, headers: { "content-type": "text/html" }, body: "<html><body>Bad Gateway</body></html>" });
    const client = createClient({ provider: row.provider(m), maxRetries: 0 });
    const err = await rejection(client.chat("hi"));
    expect(isToolloopError(err, "provider_error")).toBe(true);
    expect(err.status).toBe(502);
    expect(err.message).toContain("Bad Gateway");
  });
});

describe("gemini: google.rpc.RetryInfo in the body", () => {
  it("the retryDelay of a 429 body is honoured like a retry-after header", async () => {
    const m = await start(geminiRow);
    const body = JSON.stringify({
      error: {
        code: 429,
        message: "Resource has been exhausted",
        status: "RESOURCE_EXHAUSTED",
        details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "0.001s" }],
      },
    });
    m.enqueue({ status: 429, body });
    const client = createClient({ provider: geminiRow.provider(m) });
    await expect(client.chat("hi")).resolves.toBe("recovered");
    expect(m.bodies()).toHaveLength(2);
  });
});
