// idleTimeout also covers the wait for the response headers: a server that accepts the
// request and never answers fails with IdleTimeoutError instead of hanging the run.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claude } from "../../adapters/claude/index.js";
import { openaiCompatible } from "../../adapters/openai/index.js";
import { createClient } from "../../src/index.js";

let server: Server;
let base = "";
let requests = 0;

beforeAll(async () => {
  server = createServer((req) => {
    requests++;
    req.resume(); // read the body, never answer
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe("idleTimeout before the headers", () => {
  const providers = {
    claude: () => claude({ apiKey: "sk-ant-test-key-123456", model: "m", baseURL: base, maxRetries: 0 }),
    "openai-compatible": () => openaiCompatible({ apiKey: "sk-test-key-123456", model: "m", baseURL: base, maxRetries: 0 }),
  };
  for (const [name, make] of Object.entries(providers)) {
    it(`${name}: a server that never sends headers fails with IdleTimeoutError, and history stays valid`, async () => {
      const before = requests;
      // Long enough that the server has seen the request even on a loaded machine.
      const client = createClient({ provider: make(), idleTimeout: 500 });
      const err = await client.chat("hi").catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "idle_timeout" });
      expect(requests).toBe(before + 1);
      expect(client.history).toEqual([{ role: "user", content: "hi" }]);
    });
  }

  it("the caller's abort still wins while waiting for headers", async () => {
    const controller = new AbortController();
    const client = createClient({ provider: providers.claude(), idleTimeout: 10_000 });
    const pending = client.chat("hi", { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
  });
});
