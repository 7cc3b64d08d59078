// API keys are forgotten with their provider: a server that builds a provider per tenant
// (a key each) does not keep every key it ever used, and the keys still in use are still
// scrubbed from every error. Garbage collection is forced (node --expose-gc through v8's
// flags) so the test does not depend on when the collector would have run by itself.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterEach, describe, expect, it } from "vitest";
import { claude } from "../../adapters/claude/index.js";
import { redact, secretCount } from "../../src/base/secrets.js";
import { httpSettings } from "../../src/http/provider-options.js";
import { createClient } from "../../src/index.js";
import { API_KEY, claudeRow, type Mock } from "./rows.js";
import { drive, rejection } from "./support.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Collects until the registry holds at most `limit` keys (finalizers run after a collection, on a later task). */
async function collectUntil(limit: number): Promise<number> {
  for (let i = 0; i < 50 && secretCount() > limit; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 10));
  }
  return secretCount();
}

const ask = { messages: [{ role: "user" as const, content: "hi" }], tools: [], webSearch: false };

let mock: Mock | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

describe("the key registry", () => {
  it("50,000 tenants' keys do not accumulate, and each tenant's error never carries its key", async () => {
    const before = secretCount();
    for (let i = 0; i < 50_000; i++) {
      const key = `sk-tenant-${i}-${"k".repeat(24)}`;
      // A server that echoes the key it was sent, as some proxies' error pages do.
      const provider = claude({
        apiKey: key,
        model: "claude-test",
        maxRetries: 0,
        fetch: async (_url, init) =>
          new Response(
            JSON.stringify({
              type: "error",
              error: { type: "authentication_error", message: `bad key ${(init?.headers as Record<string, string>)["x-api-key"]}` },
            }),
            {
              status: 401,
              headers: { "content-type": "application/json" },
            },
          ),
      });
      if (i % 500 === 0) {
        const err = await rejection(provider.generate(ask));
        expect(err.code).toBe("provider_error");
        expect(err.message).toContain("bad key [redacted]");
        expect(`${err.message}\n${err.stack}\n${JSON.stringify(err)}`).not.toContain(key);
      } else {
        httpSettings("claude", { apiKey: key, model: "m" }, "https://api.anthropic.com/v1", {});
      }
    }
    expect(await collectUntil(before + 100)).toBeLessThanOrEqual(before + 100);
  });

  it("a key in use stays registered through collections, and its echo is scrubbed over real HTTP", async () => {
    mock = await claudeRow.start({ script: [{ text: "ok" }] });
    const client = createClient({ provider: claudeRow.provider(mock, { maxRetries: 0 }) });
    await expect(drive(client, "hi", "json")).resolves.toBe("ok");
    for (let i = 0; i < 1000; i++) httpSettings("claude", { apiKey: `sk-gone-${i}-${"x".repeat(20)}`, model: "m" }, "https://api.anthropic.com/v1", {});
    await collectUntil(5);
    expect(redact(`echo ${API_KEY}`)).toBe("echo [redacted]");
    mock.enqueue({ status: 401, body: JSON.stringify({ type: "error", error: { type: "authentication_error", message: `key ${API_KEY} refused` } }) });
    const err = await rejection(drive(client, "again", "json"));
    expect(err.message).toContain("key [redacted] refused");
    expect(`${err.message}\n${err.stack}\n${JSON.stringify(err)}`).not.toContain(API_KEY);
  });

  it("finds keys by prefix when many are registered, longest first, and ignores short strings", () => {
    const keys = Array.from({ length: 40 }, (_, i) => `sk-many-${String(i).padStart(3, "0")}-${"m".repeat(16)}`);
    const held = keys.map((k) => ({ apiKey: k, model: "m" }));
    for (const o of held) httpSettings("p", o, "https://x.test", {});
    expect(redact(`a ${keys[7]} b ${keys[31]}${keys[31]} c`)).toBe("a [redacted] b [redacted][redacted] c");
    httpSettings("p", { apiKey: "short", model: "m" }, "https://x.test", {});
    expect(redact("short")).toBe("short");
    expect(held).toHaveLength(40);
  });
});
