// Durable runs: a conversation's record in a Store, and the client that runs it (journal.ts).
export type { DurableClient } from "./durable-client.js";
export { JournalError, RecoveryLimitError, RunInterruptedError } from "./errors.js";
export { type Journal, type JournalOptions, openJournal } from "./journal.js";
export type { RunStatus } from "./record.js";
