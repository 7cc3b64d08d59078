// Tool-call ids as they go on the wire: unique over the whole conversation a request carries.
// A compatible server that numbers calls `call_0` in every step, or a history moved from
// another provider, can hold the same id in two steps; the APIs pair a call with its output
// by id, so a twin is ambiguous (and Claude refuses it outright, which matters once such a
// history moves on). The history keeps its ids; only the request renames, consistently for
// the call and its result.
import type { Message } from "../../src/conversation/index.js";

/** The wire id of each call (assistant messages) and of each result (tool messages), by position. */
export type WireIds = ReadonlyMap<Message, readonly string[]>;

/**
 * undefined when every id is already unique (the common case: nothing is built); else the
 * renamed ids. A result takes the id of the first call not yet answered with its id in the
 * nearest assistant message before it, so twins within one message pair up in order too.
 */
export function wireCallIds(history: readonly Message[]): WireIds | undefined {
  if (!hasTwins(history)) return undefined;
  const all = new Set<string>();
  for (const m of history) if (m.role === "assistant") for (const c of m.toolCalls ?? []) all.add(c.id);
  const used = new Set<string>();
  const out = new Map<Message, string[]>();
  let open: { id: string; wire: string; answered: boolean }[] = [];
  for (const m of history) {
    if (m.role === "assistant" && m.toolCalls && m.toolCalls.length > 0) {
      open = m.toolCalls.map((c) => {
        let wire = c.id;
        if (wire === "" || used.has(wire)) {
          const base = c.id || "call";
          let n = 2;
          while (all.has(`${base}_${n}`) || used.has(`${base}_${n}`)) n++;
          wire = `${base}_${n}`;
        }
        used.add(wire);
        return { id: c.id, wire, answered: false };
      });
      out.set(
        m,
        open.map((o) => o.wire),
      );
    } else if (m.role === "tool") {
      out.set(
        m,
        m.results.map((r) => {
          const call = open.find((o) => !o.answered && o.id === r.callId);
          if (!call) return r.callId;
          call.answered = true;
          return call.wire;
        }),
      );
    }
  }
  return out;
}

function hasTwins(history: readonly Message[]): boolean {
  const seen = new Set<string>();
  for (const m of history) {
    if (m.role !== "assistant") continue;
    for (const c of m.toolCalls ?? []) {
      if (c.id === "" || seen.has(c.id)) return true;
      seen.add(c.id);
    }
  }
  return false;
}
