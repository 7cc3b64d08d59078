// Two oauth() objects on one store — two tabs on one localStorage, two requests to one Durable
// Object, two processes on one database — whose token expires at the same moment. Refresh
// tokens rotate (the server takes each once), so one refresh wins and the other is refused;
// the loser must take the winner's tokens from the store, not wipe them and send the user to
// sign in again.
import { afterEach, expect, it } from "vitest";
import { mcpTools, oauth } from "../../../adapters/mcp/index.js";
import { silentLogger } from "../../../src/base/log.js";
import { memoryStore, type Store, type ToolContext } from "../../../src/index.js";
import { approve, startWorld, type World } from "./servers.js";

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});
const ctx = () => ({ signal: new AbortController().signal, callId: "c1", logger: silentLogger }) as ToolContext;

async function raceRefresh(store: Store, beforeRace = () => {}) {
  const w = (world = await startWorld({ authMethods: ["none"] }));
  const lines: string[] = [];
  const line = (message: string) => void lines.push(message);
  const logger = { debug: line, info: line, warn: line, error: line };
  let redirects = 0;
  const redirect = async (url: URL) => {
    redirects++;
    return approve(url);
  };
  const make = () => oauth({ redirectUri: "http://127.0.0.1:9/callback", redirect, store, logger });
  const a = await mcpTools({ url: w.mcpUrl, auth: make() });
  const b = await mcpTools({ url: w.mcpUrl, auth: make() });
  try {
    expect(redirects).toBe(1); // b found a's tokens in the store
    beforeRace();
    w.expireAccessTokens();
    const out = await Promise.all([a[0]!.call('{"id":"T-1"}', ctx()), b[0]!.call('{"id":"T-2"}', ctx())]);
    expect(out).toEqual(["Ticket T-1: open, assigned to Ada.", "Ticket T-2: open, assigned to Ada."]);
    expect(w.seen.filter((s) => s.startsWith("as POST /token"))).toEqual(["as POST /token 200", "as POST /token 200", "as POST /token 400"]);
    expect(redirects).toBe(1);
    expect(w.consents).toBe(1);
    expect(lines).toContain("mcp oauth: token refreshed by another client on the same store");
  } finally {
    await a.close();
    await b.close();
  }
}

it("two clients on one store refresh at once: the loser uses the winner's tokens, no new sign-in", async () => {
  await raceRefresh(memoryStore());
});

it("the same when the winner's write lands 150 ms after the loser is refused", async () => {
  const inner = memoryStore();
  let slow = false;
  const store: Store = {
    get: (key) => inner.get(key),
    delete: (key) => inner.delete(key),
    put: async (key, value) => {
      if (slow) await new Promise((r) => setTimeout(r, 150));
      return inner.put(key, value);
    },
  };
  await raceRefresh(store, () => {
    slow = true; // the sign-in's writes were quick; the refreshes' are slow
  });
});
