// The parts of a Durable Object's state this entry uses, written as structural types so the
// package needs neither @cloudflare/workers-types nor `cloudflare:workers`: a real `ctx`
// (DurableObjectState) fits them, and so does a hand-made stand-in in a test. The Worker example
// type-checks a real `ctx` against them with @cloudflare/workers-types.

/** One row of a SQL result, as `ctx.storage.sql.exec(...).toArray()` gives it. */
export type SqlRow = Record<string, ArrayBuffer | string | number | null>;

/** `ctx.storage.sql` of a SQLite-backed Durable Object: statements run synchronously. */
export interface SqlStorageLike {
  exec(query: string, ...bindings: (string | number | null)[]): { toArray(): SqlRow[] };
}

/** The key-value and alarm part of `ctx.storage`. */
export interface DurableObjectStorageLike {
  get(key: string): Promise<unknown>;
  get(keys: string[]): Promise<Map<string, unknown>>;
  put(entries: Record<string, unknown>): Promise<void>;
  delete(keys: string[]): Promise<number>;
}

/** What durableAgent() needs of `ctx`: storage with SQL and the alarm, and the object's id. */
export interface DurableObjectStateLike {
  readonly id: { toString(): string };
  readonly storage: DurableObjectStorageLike & {
    readonly sql: SqlStorageLike;
    getAlarm(): Promise<number | null>;
    setAlarm(scheduledTime: number): Promise<void>;
    deleteAlarm(): Promise<void>;
  };
}
