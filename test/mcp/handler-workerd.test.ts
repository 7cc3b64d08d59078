// The official MCP SDK client against our mcpHandler running in workerd (Miniflare, no
// nodejs_compat): a tiny worker bundled as wrangler would, then examples/mcp-worker itself.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleForWorker, sdkClient, startWorkerd, unpooledFetch } from "./helpers.js";
import { sdkClientSuite } from "./sdk-client-suite.js";

type TextBlock = { type: string; text: string };

describe("SDK client ↔ mcpHandler in workerd", () => {
  let worker: Awaited<ReturnType<typeof startWorkerd>>;
  beforeAll(async () => {
    const script = await bundleForWorker("test/mcp/fixtures/worker.ts");
    expect(script).not.toMatch(/from\s*["']node:/); // nothing Node-only got bundled
    worker = await startWorkerd(script);
  }, 60_000);
  afterAll(() => worker?.dispose());

  sdkClientSuite(() => new URL("/mcp", worker.url).toString());

  it("checks Origin in workerd too: a listed origin gets CORS, another gets 403", async () => {
    const ping = (origin: string) =>
      fetch(new URL("/mcp", worker.url), {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", origin },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      });
    const ok = await ping("https://app.example");
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe("https://app.example");
    expect((await ping("https://evil.example")).status).toBe(403);
  });
});

describe("examples/mcp-worker in workerd", () => {
  let open: Awaited<ReturnType<typeof startWorkerd>>;
  let locked: Awaited<ReturnType<typeof startWorkerd>>;
  beforeAll(async () => {
    const script = await bundleForWorker("examples/mcp-worker/worker.ts");
    [open, locked] = await Promise.all([startWorkerd(script), startWorkerd(script, { MCP_TOKEN: "tok-123" })]);
  }, 60_000);
  afterAll(async () => {
    await open?.dispose();
    await locked?.dispose();
  });

  it("serves its tools at /mcp to the SDK client", async () => {
    const client = await sdkClient(new URL("/mcp", open.url).toString());
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["convert_temperature", "current_time"]);
      expect(tools[0]!.inputSchema).toMatchObject({ type: "object", required: ["value", "to"] });
      const r = await client.callTool({ name: "convert_temperature", arguments: { value: 100, to: "fahrenheit" } });
      expect(JSON.parse((r.content as TextBlock[])[0]!.text)).toEqual({ value: 212, unit: "fahrenheit" });
      const t = await client.callTool({ name: "current_time", arguments: { timeZone: "UTC" } });
      expect(t.isError).toBe(false);
      expect((t.content as TextBlock[])[0]!.text).toMatch(/\b20\d\d\b.*(UTC|GMT)/);
      const bad = await client.callTool({ name: "current_time", arguments: { timeZone: "Mars/Olympus_Mons" } });
      expect(bad.isError).toBe(true);
      const invalid = await client.callTool({ name: "convert_temperature", arguments: { value: "hot", to: "kelvin" } });
      expect(invalid.isError).toBe(true);
      expect((invalid.content as TextBlock[])[0]!.text).toMatch(/\/value: .*\n- \/to: /);
    } finally {
      await client.close();
    }
  });

  it("answers 404 off /mcp", async () => {
    expect((await fetch(new URL("/", open.url))).status).toBe(404);
  });

  it("with MCP_TOKEN set, needs the bearer token", async () => {
    const url = new URL("/mcp", locked.url).toString();
    // New connections: a 401 sent before the body was read may close its socket (see unpooledFetch).
    const fetch = unpooledFetch;
    await expect(sdkClient(url, {}, { fetch })).rejects.toThrow(/401|Unauthorized/);
    await expect(sdkClient(url, { authorization: "Bearer tok-12" }, { fetch })).rejects.toThrow(/401|Unauthorized/);
    const client = await sdkClient(url, { authorization: "Bearer tok-123" }, { fetch });
    try {
      expect((await client.listTools()).tools).toHaveLength(2);
    } finally {
      await client.close();
    }
  });
});
