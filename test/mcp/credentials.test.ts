// mcpTools never lets the credentials it sends reach an error: an Authorization header a
// server echoes into its JSON-RPC error (message or data), an HTTP error page, or a tool's
// isError text; a token in the MCP URL's query, whether the runtime's message quotes the URL
// or the server echoes the token bare. All over real HTTP to local servers.
import { afterEach, describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { closedPort } from "../faults/support.js";
import { startRawServer } from "./raw-server.js";

const TOKEN = "mcp-SECRET-bearer-0123456789";
const QUERY_TOKEN = "SECRET-query-token-98765";

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** Every text an error exposes: message, stack, String(), JSON, and each cause's message and stack. */
function everyText(err: unknown): string {
  const out: string[] = [];
  let e: any = err;
  for (let depth = 0; e !== undefined && e !== null && depth < 10; depth++, e = e.cause) {
    out.push(String(e), String(e.message), String(e.stack));
    try {
      out.push(JSON.stringify(e));
    } catch {
      // a cyclic cause: its own fields are checked above
    }
  }
  return out.join("\n");
}

async function rejectionOf(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected a rejection");
}

describe("mcpTools keeps its credentials out of errors", () => {
  it("an Authorization header echoed into a JSON-RPC error's message and data", async () => {
    const server = await startRawServer((req) => ({
      error: {
        code: -32600,
        message: `refused credentials ${req.http.headers.authorization}`,
        data: { sent: req.http.headers.authorization, nested: [{ again: TOKEN }] },
      },
    }));
    close = server.close;
    const err = await rejectionOf(mcpTools({ url: server.url, headers: { Authorization: `Bearer ${TOKEN}` } }));
    expect(err.code).toBe("provider_error");
    expect(err.message).toContain("refused credentials");
    expect(err.data.nested[0].again).toBe("[redacted]");
    expect(everyText(err)).not.toContain(TOKEN);
  });

  it("an API key header echoed into an HTTP error page", async () => {
    const server = await startRawServer((req) => ({ status: 403, body: `<h1>Forbidden</h1><p>key ${String(req.http.headers["x-api-key"])} is not valid</p>` }));
    close = server.close;
    const err = await rejectionOf(mcpTools({ url: server.url, headers: { "X-Api-Key": TOKEN } }));
    expect(err.status).toBe(403);
    expect(err.message).toContain("is not valid");
    expect(everyText(err)).not.toContain(TOKEN);
  });

  it("a token echoed into a tool's isError text", async () => {
    const server = await startRawServer((req) =>
      req.method === "tools/list"
        ? { result: { tools: [{ name: "echo", description: "Echoes.", inputSchema: { type: "object" } }] } }
        : { result: { isError: true, content: [{ type: "text", text: `denied for ${req.http.headers.authorization}` }] } },
    );
    close = server.close;
    const tools = await mcpTools({ url: server.url, headers: { authorization: `Bearer ${TOKEN}` } });
    const err = await rejectionOf(tools[0]!.call("{}", { signal: new AbortController().signal, callId: "c1", logger: console } as never));
    expect(err.message).toContain("denied for");
    expect(everyText(err)).not.toContain(TOKEN);
  });

  it("a connection error names the URL without its query", async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}/mcp?token=${QUERY_TOKEN}`;
    const err = await rejectionOf(mcpTools({ url }));
    expect(err.code).toBe("connection_error");
    expect(err.message).toContain(`http://127.0.0.1:${port}/mcp`);
    expect(everyText(err)).not.toContain(QUERY_TOKEN);
  });

  it("a runtime whose fetch error quotes the whole URL (as Deno's does)", async () => {
    const port = await closedPort();
    const url = `http://user:${QUERY_TOKEN}@127.0.0.1:${port}/mcp?token=${QUERY_TOKEN}#${QUERY_TOKEN}`;
    const denoLike = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      try {
        return await fetch(String(input).replace(/\/\/[^@/]*@/, "//"), init);
      } catch (cause) {
        throw new TypeError(`error sending request for url (${String(input)}): client error (Connect)`, { cause });
      }
    };
    const err = await rejectionOf(mcpTools({ url, fetch: denoLike }));
    expect(err.code).toBe("connection_error");
    expect(err.cause.message).toContain(`(http://127.0.0.1:${port}/mcp`);
    expect(everyText(err)).not.toContain(QUERY_TOKEN);
  });

  it("a query token the server echoes bare (not as a URL) in its error", async () => {
    const server = await startRawServer((req) => ({ error: { code: -32001, message: `no access for path ${req.http.url}` } }));
    close = server.close;
    const err = await rejectionOf(mcpTools({ url: `${server.url}?token=${QUERY_TOKEN}` }));
    expect(err.message).toContain("no access for path /mcp?[redacted]");
    expect(everyText(err)).not.toContain(QUERY_TOKEN);
  });
});
