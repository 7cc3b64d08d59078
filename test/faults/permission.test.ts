// A runtime's permission refusal (Deno without --allow-net rejects fetch with NotCapable, or
// PermissionDenied before Deno 2) is not a network fault: it fails at once, naming the grant,
// where a connection error is retried. The real thing runs in test/deno/permission.test.ts;
// here a fetch throws the same-named errors, so every provider row is covered in Node.
import { describe, expect, it } from "vitest";
import { createClient, isToolloopError } from "../../src/index.js";
import { permissionGrant } from "../../src/retry.js";
import { ROWS } from "./rows.js";
import { drive, MODES, rejection } from "./support.js";

/** A fetch that refuses as Deno does, counting the attempts. */
function refusingFetch(name: string) {
  const counter = {
    calls: 0,
    fetch: async (input: string | URL | Request): Promise<Response> => {
      counter.calls++;
      const host = new URL(String(input instanceof Request ? input.url : input)).host;
      const err = new Error(`Requires net access to "${host}", run again with the --allow-net flag`);
      err.name = name;
      throw err;
    },
  };
  return counter;
}

describe.each(ROWS)("$label: a request the runtime's permissions refuse", (row) => {
  it.each(MODES)("%s: one attempt, a ConnectionError naming --allow-net=<host>", async (mode) => {
    const counter = refusingFetch("NotCapable");
    const client = createClient({ provider: row.provider({ url: "https://api.example.test:8443/v1" }, { fetch: counter.fetch, maxRetries: 3 }) });
    const err = await rejection(drive(client, "hello", mode));
    expect(isToolloopError(err, "connection_error")).toBe(true);
    expect(counter.calls).toBe(1);
    expect(err.message).toContain("run Deno with --allow-net=api.example.test:8443");
    expect(err.message).toContain("Requires net access");
    expect(err.cause.name).toBe("NotCapable");
  });
});

describe("permissionGrant", () => {
  it("knows Deno's two names, and nothing else", () => {
    const named = (name: string) => Object.assign(new Error("x"), { name });
    expect(permissionGrant(named("NotCapable"), "https://api.anthropic.com/v1/messages")).toBe("run Deno with --allow-net=api.anthropic.com");
    expect(permissionGrant(named("PermissionDenied"), "http://localhost:11434/v1/chat/completions")).toBe("run Deno with --allow-net=localhost:11434");
    expect(permissionGrant(named("PermissionDenied"), "not a url")).toBe("run Deno with --allow-net=<host>");
    expect(permissionGrant(named("NotCapable"), "https://user:pa@ss@proxy.test:8443/v1?k=s")).toBe("run Deno with --allow-net=proxy.test:8443");
    expect(permissionGrant(new TypeError("fetch failed"), "https://api.anthropic.com")).toBeUndefined();
    expect(permissionGrant("NotCapable", "https://api.anthropic.com")).toBeUndefined();
    expect(permissionGrant(named("NotCapable"), "https://api.test?next=a@b")).toBe("run Deno with --allow-net=api.test");
    expect(permissionGrant(null, "https://api.anthropic.com")).toBeUndefined();
  });

  it("the URL's credentials and query never reach the message", async () => {
    const counter = refusingFetch("PermissionDenied");
    const row = ROWS[0]!;
    const client = createClient({ provider: row.provider({ url: "https://user:pass@proxy.example.test/v1?token=SECRET" }, { fetch: counter.fetch, maxRetries: 0 }) });
    const err = await rejection(client.chat("hello"));
    expect(err.message).toContain("--allow-net=proxy.example.test");
    expect(err.message).not.toMatch(/pass|SECRET/);
  });
});
