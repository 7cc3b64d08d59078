// The event log: every event a run emits, stored in the object's SQLite with an increasing id, so
// a request can follow a run from any point (SSE `id:` / `Last-Event-ID`) and see each event once.
//
// Ids come from a counter kept in the same database and written in the same synchronous turn as
// the event (the engine commits a turn's statements together), so an id is never given twice,
// also across a crash. Reading what was stored and registering a live listener happen in one
// synchronous call: a JavaScript turn in a Durable Object is never interleaved, so no event can
// slip between the replay and the live part, and none arrives in both.
//
// Retention: the current run and the one before it (`keepRuns`, default 2). A run begins with
// begin() (a prompt or decisions; a recovery continues the same run) and ends with its terminal
// event (`finish` or `error`).
import { InvalidOptionsError } from "../../src/base/index.js";
import { splitText } from "./split.js";
import type { SqlRow, SqlStorageLike } from "./types.js";

/** An event as stored: `data` is its JSON text. */
export interface LoggedEvent {
  id: number;
  type: string;
  data: string;
}

/** What follow() hands back: the events missed, and whether live ones will follow. */
export interface Following {
  replay: LoggedEvent[];
  /** true: the run is still open and `onEvent` gets its next events until the terminal one. */
  live: boolean;
  /** Stops the live events (the reader went away). */
  cancel(): void;
}

export interface EventLog {
  /** The newest id given (0 before the first event). */
  readonly lastId: number;
  /** A run has begun and its terminal event is not logged yet. */
  readonly open: boolean;
  /** Starts a run: older runs beyond the kept ones are dropped. */
  begin(): void;
  /** Logs an event of the open run; its id. A `finish` or `error` event ends the run. */
  append<E extends { type: string }>(event: E): number;
  /**
   * Events with an id above `after` (undefined: from the start of the current or last run),
   * then, while the run is open, each new one to `onEvent`. "gone": events after `after` were
   * dropped by retention, so what was missed cannot be replayed.
   */
  follow(after: number | undefined, onEvent: (event: LoggedEvent) => void): Following | "gone";
}

/** Events whose type ends a run. */
export const TERMINAL = new Set(["finish", "error"]);
/** Characters of JSON per row: SQLite rows are limited to 2 MB and a character is at most 3 bytes of UTF-8. */
const PART_CHARS = 512 * 1024;

interface Meta {
  last_id: number;
  run: number;
  open: number;
  /** The highest id dropped by retention. */
  floor: number;
}

/** Opens (creating the tables on first use) the log in `sql` (`ctx.storage.sql`). */
export function eventLog(sql: SqlStorageLike, options: { keepRuns?: number | undefined } = {}): EventLog {
  const keepRuns = options.keepRuns ?? 2;
  if (!Number.isInteger(keepRuns) || keepRuns < 1) {
    throw new InvalidOptionsError(
      `eventLog: keepRuns must be a whole number of runs from 1 up (got ${String(keepRuns)}); the default 2 keeps the current and the last run`,
    );
  }
  sql.exec(
    "CREATE TABLE IF NOT EXISTS toolloop_events (id INTEGER NOT NULL, part INTEGER NOT NULL, run INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (id, part))",
  );
  sql.exec(
    "CREATE TABLE IF NOT EXISTS toolloop_event_log (one INTEGER PRIMARY KEY CHECK (one = 1), last_id INTEGER NOT NULL, run INTEGER NOT NULL, open INTEGER NOT NULL, floor INTEGER NOT NULL)",
  );
  sql.exec("INSERT OR IGNORE INTO toolloop_event_log (one, last_id, run, open, floor) VALUES (1, 0, 0, 0, 0)");
  const meta = sql.exec("SELECT last_id, run, open, floor FROM toolloop_event_log").toArray()[0] as unknown as Meta;
  const listeners = new Set<(event: LoggedEvent) => void>();
  const save = () =>
    sql.exec("UPDATE toolloop_event_log SET last_id = ?, run = ?, open = ?, floor = ? WHERE one = 1", meta.last_id, meta.run, meta.open, meta.floor);

  const read = (after: number): LoggedEvent[] => {
    const events: LoggedEvent[] = [];
    for (const row of sql.exec("SELECT id, type, data FROM toolloop_events WHERE id > ? ORDER BY id, part", after).toArray() as Row[]) {
      const last = events.at(-1);
      if (last?.id === row.id) last.data += row.data;
      else events.push({ id: row.id, type: row.type, data: row.data });
    }
    return events;
  };

  return {
    get lastId() {
      return meta.last_id;
    },
    get open() {
      return meta.open === 1;
    },
    begin() {
      meta.run++;
      meta.open = 1;
      const dropped = sql.exec("SELECT max(id) AS id FROM toolloop_events WHERE run <= ?", meta.run - keepRuns).toArray()[0]?.id;
      if (typeof dropped === "number") {
        sql.exec("DELETE FROM toolloop_events WHERE run <= ?", meta.run - keepRuns);
        meta.floor = Math.max(meta.floor, dropped);
      }
      save();
    },
    append(event) {
      if (meta.open !== 1) throw new Error("eventLog: append() outside a run (call begin() first)");
      const id = ++meta.last_id;
      const data = JSON.stringify(event);
      const parts = splitText(data, PART_CHARS);
      for (const [n, part] of parts.entries()) {
        sql.exec("INSERT INTO toolloop_events (id, part, run, type, data) VALUES (?, ?, ?, ?, ?)", id, n, meta.run, event.type, part);
      }
      if (TERMINAL.has(event.type)) meta.open = 0;
      save();
      const logged = { id, type: event.type, data };
      for (const listener of [...listeners]) listener(logged);
      if (meta.open === 0) listeners.clear();
      return id;
    },
    follow(after, onEvent) {
      // Neither id given: from the first event of the current (or last) run.
      const from = after ?? firstOfRun(sql, meta.run, meta.last_id) - 1;
      if (from < meta.floor) return "gone";
      const replay = read(from);
      if (meta.open !== 1) return { replay, live: false, cancel: () => {} };
      listeners.add(onEvent);
      return { replay, live: true, cancel: () => listeners.delete(onEvent) };
    },
  };
}

interface Row extends SqlRow {
  id: number;
  type: string;
  data: string;
}

/** The id of the run's first event (the next id when it has none yet). */
function firstOfRun(sql: SqlStorageLike, run: number, lastId: number): number {
  const first = sql.exec("SELECT min(id) AS id FROM toolloop_events WHERE run = ?", run).toArray()[0]?.id;
  return typeof first === "number" ? first : lastId + 1;
}
