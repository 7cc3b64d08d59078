// A provider's baseURL may carry credentials (http://user:pass@proxy/v1) or a token in its
// query, and the runtime's own error message quotes the URL it failed to reach (Node's fetch
// refuses a URL with credentials, quoting it whole; Deno's "error sending request for url
// (...)"); a server's error body may quote one too. No error — message, cause chain, stack or
// JSON — may carry them: every URL in an error's text loses its credentials, query and
// fragment. Every row, chat and stream, over real HTTP to 127.0.0.1.
import { describe, expect, it } from "vitest";
import { redact, stripURLs } from "../../src/base/secrets.js";
import { createClient } from "../../src/index.js";
import { ROWS } from "./rows.js";
import { closedPort, drive, MODES, rejection } from "./support.js";

const SECRET = "SECRET-url-credential-4242";

/** Every text an error exposes: message, stack, String(), JSON, and each cause's message and stack. */
function everyText(err: unknown): string {
  const out: string[] = [];
  let e: any = err;
  for (let depth = 0; e !== undefined && e !== null && depth < 10; depth++, e = e.cause) {
    out.push(String(e), String(e.message), String(e.stack), JSON.stringify(e));
  }
  return out.join("\n");
}

/** A fetch that fails the way Deno's does: a TypeError quoting the whole URL. */
const denoLikeFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  try {
    return await fetch(String(input).replace(/\/\/[^@/]*@/, "//"), init);
  } catch (cause) {
    throw new TypeError(`error sending request for url (${String(input)}): client error (Connect)`, { cause });
  }
};

describe.each(ROWS)("$label: URL credentials never reach an error", (row) => {
  it.each(MODES)("baseURL http://user:SECRET@127.0.0.1:<closed>/v1, the runtime's own fetch (%s)", async (mode) => {
    const port = await closedPort();
    const client = createClient({ provider: row.provider({ url: `http://user:${SECRET}@127.0.0.1:${port}/v1` }, { maxRetries: 0 }) });
    const err = await rejection(drive(client, "hi", mode));
    expect(err.code).toBe("connection_error");
    expect(everyText(err)).toContain(`127.0.0.1:${port}/v1`); // the URL is still named, stripped
    expect(everyText(err)).not.toContain(SECRET);
  });

  it.each(MODES)("credentials, query and fragment quoted by a Deno-like fetch (%s)", async (mode) => {
    const port = await closedPort();
    const baseURL = `http://proxy:${SECRET}@127.0.0.1:${port}/v1?key=${SECRET}#${SECRET}`;
    const client = createClient({ provider: row.provider({ url: baseURL }, { maxRetries: 0, fetch: denoLikeFetch }) });
    const err = await rejection(drive(client, "hi", mode));
    expect(err.code).toBe("connection_error");
    expect(err.message).toContain(`http://127.0.0.1:${port}/v1`);
    expect(everyText(err)).not.toContain(SECRET);
  });

  it.each(MODES)("a URL with credentials in the server's error body (%s)", async (mode) => {
    const mock = await row.start();
    try {
      const message = `upstream http://admin:${SECRET}@10.0.0.7:8080/v1/chat?api_key=${SECRET} refused the request`;
      mock.enqueue({
        status: 400,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ type: "error", error: { type: "invalid_request_error", code: 400, status: "INVALID_ARGUMENT", message } }),
      });
      const client = createClient({ provider: row.provider(mock, { maxRetries: 0 }) });
      const err = await rejection(drive(client, "hi", mode));
      expect(err.code).toBe("provider_error");
      expect(err.message).toContain("upstream http://10.0.0.7:8080/v1/chat refused the request");
      expect(everyText(err)).not.toContain(SECRET);
    } finally {
      await mock.close();
    }
  });
});

describe("stripURLs", () => {
  it.each([
    ["fetch http://user:pw@host:8080/v1/x failed", "fetch http://host:8080/v1/x failed"],
    ["see https://h.example/a?token=abc&x=1#frag now", "see https://h.example/a now"],
    ["(wss://u@h/p?q)", "(wss://h/p"],
    ["http://h?x=a@b/c", "http://b/c"],
    ['{"url":"http://u:p@h/x?k=v","n":1}', '{"url":"http://h/x","n":1}'],
    ['"escaped \\"http://h/p?k=v\\" stays JSON"', '"escaped \\"http://h/p\\" stays JSON"'],
    ["no url, just a question? yes", "no url, just a question? yes"],
    ["data:image/png;base64,AAAA stays", "data:image/png;base64,AAAA stays"],
  ])("%s", (text, want) => {
    expect(stripURLs(text)).toBe(want);
    expect(redact(text)).toBe(want);
  });
});
