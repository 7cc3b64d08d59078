// One app-wide AbortSignal shared by every request (a server's shutdown signal, say) must
// not collect listeners: each attempt removes what it added once it is over, also with an
// idleTimeout (which forwards the caller's abort to a per-attempt controller). Counted
// with Node's getEventListeners over real HTTP against each adapter's mock.
import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import { createClient } from "../../src/index.js";
import { claudeRow, type Mock, ROWS } from "./rows.js";
import { drive, MODES } from "./support.js";

let mock: Mock | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

const listeners = (signal: AbortSignal) => getEventListeners(signal, "abort").length;

describe("an app-wide signal keeps no listener per request", () => {
  it("1,000 calls with idleTimeout on one signal leave no abort listener behind", async () => {
    mock = await claudeRow.start({ script: () => ({ text: "ok" }) });
    const app = new AbortController();
    const provider = claudeRow.provider(mock, { idleTimeout: 30_000 });
    for (let i = 0; i < 1000; i++) {
      const client = createClient({ provider });
      await expect(drive(client, `call ${i}`, i % 2 === 0 ? "json" : "sse", app.signal)).resolves.toBe("ok");
      // checked as it goes, so a leak shows at the call that starts it
      if (i % 100 === 0) expect(listeners(app.signal)).toBe(0);
    }
    expect(listeners(app.signal)).toBe(0);
    expect(mock.bodies()).toHaveLength(1000);
  });

  describe.each(ROWS)("$label", (row) => {
    it.each(MODES)("%s mode, with and without idleTimeout: no listener left after each call", async (mode) => {
      mock = await row.start({ script: () => ({ text: "ok" }) });
      const app = new AbortController();
      for (const idleTimeout of [undefined, 30_000]) {
        const provider = row.provider(mock, idleTimeout ? { idleTimeout } : {});
        for (let i = 0; i < 20; i++) {
          const client = createClient({ provider });
          await expect(drive(client, "hi", mode, app.signal)).resolves.toBe("ok");
        }
      }
      expect(listeners(app.signal)).toBe(0);
    });
  });
});
