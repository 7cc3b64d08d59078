// The journal's working state: the record as it is now, and its writes to the store, one at a
// time and in order, each the whole record (so what is stored is always one consistent state).
import type { Store } from "../base/index.js";
import { JournalError } from "./errors.js";
import type { JournalRecord, RecordSigner } from "./record.js";

/** Shared by the journal (journal.ts), its client (durable-client.ts) and the wrappers (memo.ts). */
export interface JournalState {
  readonly key: string;
  rec: JournalRecord;
  /** A run of this process is in progress. */
  running: boolean;
  maxRecoveries: number;
  /** Set by the journal's client: abandon() replaced the record's history under it. */
  reset?: (() => void) | undefined;
  /** Persists `rec` as it is now (queued behind earlier writes); rejects with JournalError. */
  write(): Promise<void>;
}

export function journalState(store: Store, key: string, rec: JournalRecord, sign: RecordSigner | undefined, maxRecoveries: number): JournalState {
  let queue: Promise<void> = Promise.resolve();
  const state: JournalState = {
    key,
    rec,
    running: false,
    maxRecoveries,
    write() {
      // The value is taken now (a JSON copy): later changes to rec belong to later writes.
      const record = JSON.parse(JSON.stringify(state.rec)) as JournalRecord;
      const done = queue.then(async () => {
        try {
          await store.put(key, sign ? { record, signature: await sign(record) } : { record });
        } catch (cause) {
          // Not latched: each write is the whole record, so a later one that succeeds stores a consistent state.
          throw new JournalError(`the journal's store could not be written (key ${JSON.stringify(key)}); the run stopped before its next side effect`, {
            cause,
          });
        }
      });
      queue = done.catch(() => {});
      return done;
    },
  };
  return state;
}
