// In a browser (simulated here by defining globalThis.window and document, removed after
// each test) a real API key sent straight to the vendor's own URL is readable by anyone
// who opens the page, so every adapter refuses with BrowserKeyError (code "browser_key")
// before any byte leaves, unless the caller opts in with dangerouslyAllowBrowser: true or
// points baseURL at a proxy that adds the key server-side. The requests that are allowed go
// over real HTTP to the local mocks (a fetch wrapper maps the vendor's host to the mock).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createClient, isToolloopError } from "../../src/index.js";
import { API_KEY, type Mock, ROWS, type Row } from "./rows.js";
import { expectValidHistory, rejection } from "./support.js";

const g = globalThis as Record<string, unknown>;
let mock: Mock | undefined;

function enterBrowser(kind: "page" | "worker"): void {
  if (kind === "page") {
    g.window = {};
    g.document = {};
  } else g.importScripts = () => {};
}

beforeEach(() => {
  expect(g.window).toBeUndefined(); // each test starts outside the browser
});
afterEach(async () => {
  delete g.window;
  delete g.document;
  delete g.importScripts;
  await mock?.close();
  mock = undefined;
});

/** A fetch that sends what was meant for the vendor's host to the mock instead, and counts calls. */
function toMock(m: Mock, row: Row, addKey = false): { fetch: typeof fetch; calls: string[] } {
  const calls: string[] = [];
  const f: typeof fetch = (input, init) => {
    const target = new URL(String(input));
    calls.push(target.origin);
    const live = new URL(m.url);
    target.protocol = live.protocol;
    target.host = live.host;
    const headers = new Headers(init?.headers);
    // a proxy adds the key server-side
    if (addKey) {
      if (row.providerName === "claude") headers.set("x-api-key", API_KEY);
      else if (row.providerName === "gemini") headers.set("x-goog-api-key", API_KEY);
      else headers.set("authorization", `Bearer ${API_KEY}`);
    }
    return fetch(target, { ...init, headers });
  };
  return { fetch: f, calls };
}

/** The row's provider pointed at its vendor's own URL (openaiCompatible has none: its baseURL is the vendor). */
function vendorProvider(row: Row, m: Mock, options: { allow?: boolean; noKey?: boolean }) {
  const { fetch: f, calls } = toMock(m, row, options.noKey ?? false);
  const provider = row.provider(
    { url: row.vendorURL ?? m.url },
    { fetch: f, ...(options.allow ? { dangerouslyAllowBrowser: true } : {}), ...(options.noKey ? { apiKey: undefined } : {}) },
  );
  return { provider, calls };
}

describe.each(ROWS)("$label in a browser", (row) => {
  for (const kind of ["page", "worker"] as const) {
    it(`(${kind}) a key sent to the vendor's own URL is refused with BrowserKeyError before any request`, async () => {
      mock = await row.start({ script: [{ text: "never" }] });
      const { provider, calls } = vendorProvider(row, mock, {});
      enterBrowser(kind);
      const client = createClient({ provider });
      const err = await rejection(client.chat("hi"));
      expect(isToolloopError(err, "browser_key")).toBe(true);
      expect(err.name).toBe("BrowserKeyError");
      expect(err.message).toContain("dangerouslyAllowBrowser");
      expect(err.message).not.toContain(API_KEY);
      expect(calls).toEqual([]);
      expect(mock.bodies()).toHaveLength(0);
      expectValidHistory(client);
    });
  }

  it("dangerouslyAllowBrowser: true lets the request go to the vendor's URL", async () => {
    mock = await row.start({ script: [{ text: "allowed" }] });
    const { provider, calls } = vendorProvider(row, mock, { allow: true });
    enterBrowser("page");
    await expect(createClient({ provider }).chat("hi")).resolves.toBe("allowed");
    expect(calls).toEqual([new URL(row.vendorURL ?? mock.url).origin]);
    if (row.providerName === "claude") expect(mock.headers()[0]!["anthropic-dangerous-direct-browser-access"]).toBe("true");
  });

  it("no key (a proxy adds it server-side) needs no opt-in", async () => {
    mock = await row.start({ script: [{ text: "proxied" }] });
    const { provider } = vendorProvider(row, mock, { noKey: true });
    enterBrowser("page");
    await expect(createClient({ provider }).chat("hi")).resolves.toBe("proxied");
  });

  if (row.vendorURL) {
    it("a proxy baseURL (another host) with a key needs no opt-in", async () => {
      mock = await row.start({ script: [{ text: "via proxy" }] });
      const provider = row.provider(mock); // baseURL = the local mock: not the vendor's host
      enterBrowser("page");
      await expect(createClient({ provider }).chat("hi")).resolves.toBe("via proxy");
    });
  }

  it("outside a browser the same provider sends the key without any opt-in", async () => {
    mock = await row.start({ script: [{ text: "server side" }] });
    const { provider } = vendorProvider(row, mock, {});
    await expect(createClient({ provider }).chat("hi")).resolves.toBe("server side");
  });
});
