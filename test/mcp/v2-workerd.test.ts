// The v2 interop suites with workerd on one side (Miniflare, no nodejs_compat): the v2 Client
// (Node) against mcpHandler in workerd, mcpTools (Node) against the v2 server in workerd, and
// mcpTools inside workerd against the v2 server in Node.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PNG, v2Handler } from "./fixtures/v2-server.js";
import { bundleForWorker, serveHandler, startWorkerd } from "./helpers.js";
import { mcpToolsSuite, v2ClientSuite } from "./v2-suites.js";

let worker: Awaited<ReturnType<typeof startWorkerd>>;
beforeAll(async () => {
  const script = await bundleForWorker("test/mcp/fixtures/worker-v2.ts");
  expect(script).not.toMatch(/from\s*["']node:/);
  worker = await startWorkerd(script);
}, 60_000);
afterAll(() => worker?.dispose());

describe("v2 SDK Client ↔ mcpHandler in workerd", () => {
  v2ClientSuite(() => new URL("/toolloop/mcp", worker.url).toString());
});

describe("mcpTools ↔ v2 SDK server in workerd", () => {
  mcpToolsSuite(() => new URL("/v2/mcp", worker.url).toString());
});

describe("mcpTools in workerd ↔ v2 SDK server in Node", () => {
  it("negotiates, calls, gets image parts and answers a question through requestInput", async () => {
    const served = await serveHandler(v2Handler());
    try {
      const res = await fetch(new URL(`/client?url=${encodeURIComponent(served.url)}`, worker.url));
      expect(res.status).toBe(200);
      const report = (await res.json()) as Record<string, unknown>;
      expect(report.names).toEqual(expect.arrayContaining(["Get_Weather", "chart", "deploy"]));
      expect(report.weather).toBe("Kyiv: 21°C");
      expect(report.chart).toEqual({
        content: [
          { type: "text", text: "chart:" },
          { type: "image", mediaType: "image/png", data: PNG },
        ],
      });
      expect(report.deploy).toBe("deployed to edge");
    } finally {
      await served.close();
    }
  });
});
