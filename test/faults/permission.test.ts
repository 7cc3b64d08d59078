// A runtime's permission refusal (Deno without --allow-net rejects fetch with NotCapable, or
// PermissionDenied before Deno 2) is not a network fault: it fails at once, naming the grant,
// where a connection error is retried. The real thing runs in test/deno/permission.test.ts;
// here a fetch throws the same-named errors, so every provider row is covered in Node.
import { describe, expect, it } from "vitest";
import { createClient, isToolloopError } from "../../src/index.js";
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

describe("what counts as a permission refusal", () => {
  /** The error a fetch throws, and the attempts it took, with maxRetries 1. */
  async function attempt(thrown: unknown, url = "https://api.anthropic.com/v1") {
    let calls = 0;
    const fetch = async (): Promise<Response> => {
      calls++;
      throw thrown;
    };
    const client = createClient({ provider: ROWS[0]!.provider({ url }, { fetch, maxRetries: 1 }) });
    const err = await rejection(client.chat("hello"));
    expect(isToolloopError(err, "connection_error")).toBe(true);
    return { err, calls };
  }
  const named = (name: string) => Object.assign(new Error("Requires net access"), { name });

  it("Deno's two names fail at once; any other failure is retried", async () => {
    expect((await attempt(named("NotCapable"))).calls).toBe(1);
    expect((await attempt(named("PermissionDenied"))).calls).toBe(1);
    expect((await attempt(new TypeError("fetch failed"))).calls).toBe(2);
    expect((await attempt("NotCapable")).calls).toBe(2);
    expect((await attempt(null)).calls).toBe(2);
  });

  it("the host is read past the URL's credentials, which never reach the message", async () => {
    const { err } = await attempt(named("NotCapable"), "https://user:pa@ss@proxy.example.test:8443/v1?token=SECRET");
    expect(err.message).toContain("run Deno with --allow-net=proxy.example.test:8443");
    expect(err.message).not.toMatch(/user|pa@ss|SECRET/);
    const q = await attempt(named("NotCapable"), "https://api.example.test/v1?next=a@b");
    expect(q.err.message).toContain("--allow-net=api.example.test");
  });
});
