// Network and stream faults, for every adapter over real HTTP, in JSON (chat) and SSE
// (stream) mode, on the first request of a run and on a request after a tool step:
// connection refused, a reset in the middle of the body, a stream cut after some events,
// a malformed SSE event, a mid-stream provider error event, a stream that never ends
// (idleTimeout), and a 200 whose body is not JSON. Each one gives a typed error, leaves no
// half assistant message (and no unanswered tool call) in history, and the next chat works
// against the same mock, which rejects an invalid history the way the real API does.

import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { type Client, createClient, isToolloopError, tool } from "../../src/index.js";
import { type Mock, ROWS, type Row } from "./rows.js";
import { closedPort, drive, expectValidHistory, MODES, type Mode, rejection } from "./support.js";

let mock: Mock | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

type Position = "first request" | "after a tool step";
const POSITIONS: Position[] = ["first request", "after a tool step"];

interface Fault {
  name: string;
  modes: Mode[];
  inject(row: Row, mock: Mock): void;
  check(err: any, row: Row): void;
  provider?: Record<string, unknown>;
  client?: Record<string, unknown>;
}

const JSON_HEADERS = { "content-type": "application/json" };

const FAULTS: Fault[] = [
  {
    name: "reset in the middle of a JSON body",
    modes: ["json"],
    inject: (_row, m) => m.enqueue({ sse: ['{"id": "resp_1", "content": [{"type": "te'], cutAfter: true, headers: JSON_HEADERS }),
    check: (err) => expect(err.code).toBe("stream_error"),
  },
  {
    name: "reset in the middle of a stream (socket destroyed after some events)",
    modes: ["sse"],
    inject: (row, m) => m.enqueue({ sse: row.partialStream(), cutAfter: true }),
    check: (err) => expect(err.code).toBe("stream_error"),
  },
  {
    name: "stream that ends cleanly before its terminal event",
    modes: ["sse"],
    inject: (row, m) => m.enqueue({ sse: row.partialStream() }),
    check: (err) => expect(err.code).toBe("stream_error"),
  },
  {
    name: "malformed SSE event",
    modes: ["sse"],
    inject: (row, m) => m.enqueue({ sse: [...row.partialStream(), row.malformedEvent(), ...row.streamRest()] }),
    check: (err) => expect(err.code).toBe("stream_error"),
  },
  {
    name: "provider error event in the middle of the stream",
    modes: ["sse"],
    inject: (row, m) => m.enqueue({ sse: [...row.partialStream(), row.errorEvent("Overloaded mid-stream").sse] }),
    check: (err, row) => {
      expect(err.code).toBe("provider_error");
      expect(err.name).toBe("ProviderError");
      expect(err.type).toBe(row.errorEvent("").type);
      expect(err.message).toContain("Overloaded mid-stream");
    },
  },
  {
    name: "stream that never ends (idleTimeout on the provider)",
    modes: ["sse"],
    provider: { idleTimeout: 150 },
    inject: (row, m) => m.enqueue({ sse: row.partialStream(), hold: true }),
    check: (err) => {
      expect(err.code).toBe("idle_timeout");
      expect(err.name).toBe("IdleTimeoutError");
      expect(err.ms).toBe(150);
    },
  },
  {
    name: "stream that never ends (idleTimeout on createClient)",
    modes: ["sse"],
    client: { idleTimeout: 120 },
    inject: (row, m) => m.enqueue({ sse: row.partialStream(), hold: true }),
    check: (err) => {
      expect(err.code).toBe("idle_timeout");
      expect(err.ms).toBe(120);
    },
  },
  {
    name: "JSON body that never ends (idleTimeout)",
    modes: ["json"],
    provider: { idleTimeout: 150 },
    inject: (_row, m) => m.enqueue({ sse: ['{"id": "resp_1", '], hold: true, headers: JSON_HEADERS }),
    check: (err) => expect(err.code).toBe("idle_timeout"),
  },
  {
    name: "200 with a body that is not JSON",
    modes: ["json"],
    inject: (_row, m) => m.enqueue({ status: 200, headers: { "content-type": "text/html" }, body: "<html><body>Welcome to the captive portal</body></html>" }),
    check: (err) => {
      expect(err.code).toBe("provider_error");
      expect(err.type).toBe("invalid_response");
      expect(err.status).toBe(200);
    },
  },
  {
    name: "200 that is not an event stream",
    modes: ["sse"],
    inject: (_row, m) => m.enqueue({ status: 200, headers: { "content-type": "text/html" }, body: "<html><body>Welcome to the captive portal</body></html>" }),
    check: (err) => {
      expect(err.code).toBe("provider_error");
      expect(err.type).toBe("invalid_response");
    },
  },
  {
    name: "event stream whose body holds no events at all",
    modes: ["sse"],
    inject: (_row, m) => m.enqueue({ sse: ["<html><body>Welcome</body></html>\n"] }),
    check: (err) => expect(err.code).toBe("stream_error"),
  },
  {
    name: "200 JSON that is not a response object",
    modes: ["json"],
    inject: (_row, m) => m.enqueue({ status: 200, headers: JSON_HEADERS, body: '["not", "a", "response"]' }),
    check: (err) => {
      expect(err.code).toBe("provider_error");
      expect(err.type).toBe("invalid_response");
    },
  },
];

/** A run that calls `probe` once (which injects the fault before the second request), or fails at once. */
async function setup(row: Row, position: Position, fault: { inject: (m: Mock) => void; provider?: Record<string, unknown>; client?: Record<string, unknown> }) {
  const script =
    position === "first request" ? [{ text: "next ok" }] : [{ toolCalls: [{ id: "call_probe_1", name: "probe", input: { n: 1 } }] }, { text: "next ok" }];
  const m = await row.start({ script });
  mock = m;
  let probes = 0;
  const probe = tool({
    name: "probe",
    description: "Injects the fault.",
    input: v.object({ n: v.number() }),
    run: () => {
      probes++;
      fault.inject(m);
      return "probed";
    },
  });
  const client = createClient({ provider: row.provider(m, { maxRetries: 0, ...fault.provider }), tools: [probe], ...fault.client });
  if (position === "first request") fault.inject(m);
  return { m, client, probes: () => probes };
}

/** After the failure: the history is what was complete before it, valid, and the next chat works. */
async function expectRecovered(client: Client, position: Position, mode: Mode): Promise<void> {
  const history = client.history;
  expectValidHistory(client);
  const roles = history.map((x) => x.role);
  expect(roles).toEqual(position === "first request" ? ["user"] : ["user", "assistant", "tool"]);
  if (position === "after a tool step") {
    expect(history[2]).toMatchObject({ role: "tool", results: [{ callId: "call_probe_1", output: "probed", isError: false }] });
  }
  await expect(drive(client, "are you there?", mode)).resolves.toBe("next ok");
  expectValidHistory(client);
}

describe.each(ROWS)("$label: network and stream faults", (row) => {
  describe.each(POSITIONS)("on the %s", (position) => {
    for (const fault of FAULTS) {
      it.each(fault.modes)(`${fault.name} (%s) → typed error, valid history, next chat works`, async (mode) => {
        const { client } = await setup(row, position, { inject: (m) => fault.inject(row, m), provider: fault.provider, client: fault.client });
        const err = await rejection(drive(client, "hi", mode));
        expect(isToolloopError(err)).toBe(true);
        fault.check(err, row);
        await expectRecovered(client, position, mode);
      });
    }

    it.each(MODES)("connection refused (%s) → ConnectionError, valid history, next chat works", async (mode) => {
      const port = await closedPort();
      let dead = position === "first request";
      const script =
        position === "first request" ? [{ text: "next ok" }] : [{ toolCalls: [{ id: "call_probe_1", name: "probe", input: { n: 1 } }] }, { text: "next ok" }];
      const m = await row.start({ script });
      mock = m;
      const live = new URL(m.url);
      const provider = row.provider(m, {
        maxRetries: 0,
        // real HTTP either way: to the mock, or to a port nothing listens on
        fetch: (input, init) => {
          const url = new URL(String(input));
          if (dead) url.port = String(port);
          else url.port = live.port;
          return fetch(url, init);
        },
      });
      const probe = tool({
        name: "probe",
        description: "A test tool.",
        input: v.object({ n: v.number() }),
        run: () => {
          dead = true;
          return "probed";
        },
      });
      const client = createClient({ provider, tools: [probe] });
      const err = await rejection(drive(client, "hi", mode));
      expect(err.code).toBe("connection_error");
      expect(err.name).toBe("ConnectionError");
      expect(err.provider).toBe(row.providerName);
      dead = false;
      await expectRecovered(client, position, mode);
    });
  });

  it("a JSON body reset mid-way is fetched again (nothing was handed out yet)", async () => {
    const m = await row.start({ script: [{ text: "whole" }] });
    mock = m;
    m.enqueue({ sse: ['{"id": "x", "con'], cutAfter: true, headers: JSON_HEADERS });
    const client = createClient({ provider: row.provider(m, { maxRetries: 1 }) });
    await expect(client.chat("hi")).resolves.toBe("whole");
    expect(m.bodies()).toHaveLength(2);
  });

  it("a stream reset after it started is not sent again, whatever maxRetries says", async () => {
    const m = await row.start({ script: [{ text: "never used" }] });
    mock = m;
    m.enqueue({ sse: row.partialStream(), cutAfter: true });
    const client = createClient({ provider: row.provider(m, { maxRetries: 3 }) });
    const deltas: string[] = [];
    const err = await rejection(
      (async () => {
        for await (const ev of client.stream("hi")) if (ev.type === "text-delta") deltas.push(ev.text);
      })(),
    );
    expect(err.code).toBe("stream_error");
    expect(deltas.join("")).toBe("Hel");
    expect(m.bodies()).toHaveLength(1);
  });

  it("connection refused is retried (a network error never reached the server)", async () => {
    const port = await closedPort();
    const m = await row.start({ script: [{ text: "second try" }] });
    mock = m;
    let attempts = 0;
    const provider = row.provider(m, {
      maxRetries: 1,
      fetch: (input, init) => {
        const url = new URL(String(input));
        if (attempts++ === 0) url.port = String(port);
        return fetch(url, init);
      },
    });
    const client = createClient({ provider });
    await expect(client.chat("hi")).resolves.toBe("second try");
    expect(attempts).toBe(2);
    expect(m.bodies()).toHaveLength(1);
  });
});
