// openJournal(): one conversation's record in a Store, read once and written as a run goes.
// Writes go one at a time, in order, each the whole record (so what is stored is always one
// consistent state); the first that fails breaks the journal, and the run stops before its
// next side effect (memo.ts aborts it).
import { checkOptions, InvalidOptionsError, type Store } from "../base/index.js";
import type { ClientOptions } from "../client/index.js";
import type { Message } from "../conversation/index.js";
import { closeRun } from "./close.js";
import { type DurableClient, durableClient } from "./durable-client.js";
import { JournalError } from "./errors.js";
import { type RunStatus, readStored, recordSigner } from "./record.js";
import { journalState } from "./state.js";

export type JournalOptions = {
  /** Where the record lives: a Durable Object's storage (toolloop/cloudflare), memoryStore(), or your own. */
  store: Store;
  /** The conversation's key in the store. One writer per key: a Durable Object per conversation gives that. */
  key: string;
  /** Times a run is continued without progress before it ends with RecoveryLimitError. Default 3. */
  maxRecoveries?: number | undefined;
} & (
  | {
      /** Signs the record (HMAC-SHA-256): at least 32 random characters, or an HMAC CryptoKey. */
      secret: string | CryptoKey;
      unsigned?: false | undefined;
    }
  | {
      /** The record is not signed: only for a store nobody else can write. */
      unsigned: true;
      secret?: undefined;
    }
);

/** A conversation's durable record; `createClient` makes the client that runs it. */
export interface Journal {
  readonly key: string;
  /** The last run's status ("running" also while a run is interrupted: see `interrupted`). */
  readonly status: RunStatus;
  /** A run is recorded as in progress, and no client of this journal in this process is running it: continue it with run() or stream() (no prompt). */
  readonly interrupted: boolean;
  /** The recorded conversation (a copy; always a valid history). */
  readonly history: Message[];
  /** What ended the last run, when it failed or was stopped. */
  readonly error: { code: string; message: string } | undefined;
  /** createClient's options (without `history`, which comes from the journal unless given to start over); one client per journal. */
  createClient(options: ClientOptions): DurableClient;
  /** Ends an interrupted run without continuing it: calls that had not settled get an "interrupted" result; status "stopped". */
  abandon(): Promise<void>;
}

/** Reads a conversation's record (or starts an empty one) from `store`. */
export async function openJournal(options: JournalOptions): Promise<Journal> {
  if (typeof options !== "object" || options === null) throw new InvalidOptionsError("openJournal() takes { store, key, secret } (or unsigned: true)");
  checkOptions("openJournal()", options, "store key secret unsigned maxRecoveries");
  const { store, key, maxRecoveries = 3 } = options;
  if (!store || typeof store.get !== "function" || typeof store.put !== "function") {
    throw new InvalidOptionsError("openJournal() needs `store`: an object with get(key), put(key, value) and delete(key), e.g. memoryStore()");
  }
  if (typeof key !== "string" || key === "") throw new InvalidOptionsError("openJournal() needs `key`: a non-empty string naming the conversation");
  if (!Number.isInteger(maxRecoveries) || maxRecoveries < 0)
    throw new InvalidOptionsError(`openJournal(): maxRecoveries is a whole number >= 0, got ${String(maxRecoveries)}`);
  const sign = recordSigner(options.secret, options.unsigned, "secret" in options);
  let value: unknown;
  try {
    value = await store.get(key);
  } catch (cause) {
    throw new JournalError(`the journal's store could not be read (key ${JSON.stringify(key)})`, { cause });
  }
  const state = journalState(store, key, await readStored(value, sign, key), sign, maxRecoveries);
  let client: DurableClient | undefined;
  return {
    key,
    get status() {
      return state.rec.status;
    },
    get interrupted() {
      return state.rec.status === "running" && !state.running;
    },
    get history() {
      return structuredClone(state.rec.history);
    },
    get error() {
      return state.rec.error && { ...state.rec.error };
    },
    createClient(clientOptions) {
      if (client) throw new InvalidOptionsError("a journal serves one client: open the journal again for another (one writer per key)");
      client = durableClient(state, clientOptions);
      return client;
    },
    async abandon() {
      if (state.rec.status !== "running" || state.running)
        throw new InvalidOptionsError("abandon(): no interrupted run to end (status is not running, or a run is in progress here)");
      state.rec = {
        ...state.rec,
        history: closeRun(state.rec),
        status: "stopped",
        error: { code: "run_interrupted", message: "the run was abandoned after an interruption" },
      };
      delete state.rec.run;
      state.reset?.();
      await state.write();
    },
  };
}
