// The journal's record: one JSON value per conversation in a Store. It is the conversation's
// history (what client.history would be) plus what a run in progress needs to continue after
// an interruption: the call that started it, the model reply its tools are running for, and
// each of those calls' attempts and results. Signed (HMAC-SHA-256) so a store that hands back a
// changed record (a call marked unsettled, to be run twice) is refused.
import { hmacSigner, sameSignature } from "../base/index.js";
import type { ContentPart, Message, ModelResponse, ToolChoice, Usage } from "../conversation/index.js";
import { type Decision, signingSecret } from "../suspension/index.js";
import type { ToolCallResult } from "../tools/index.js";
import { JournalError } from "./errors.js";

export type RunStatus = "idle" | "running" | "suspended" | "done" | "failed" | "stopped";

/** What a call of a run in progress has: its attempts so far and, once it settled, its result. */
export interface CallRecord {
  attempts: number;
  result?: { output: ToolCallResult } | { thrown: string; code?: string };
}

/** The counts of a run's finished steps, so a continued run reports the whole run. */
export interface Done {
  steps: number;
  usage: Usage;
  toolCalls: number;
  toolFailures: number;
}

export interface RunRecord {
  /** The call that started the run, kept until the model's first reply (a run continued before it is started again with it). */
  call?: { prompt?: string | ContentPart[]; decisions?: readonly Decision[] };
  /** The per-call options it ran with (JSON), applied again when it continues. */
  options: { maxSteps?: number; toolChoice?: ToolChoice; system?: string };
  /** Names the current batch of calls (a step's, or the decisions'): their idempotency keys derive from it. */
  nonce: string;
  /** The model reply whose calls are running; `history` is the conversation it answered. */
  reply?: ModelResponse;
  calls: Record<string, CallRecord>;
  done: Done;
  /** Times the run was continued since it last made progress. */
  recoveries: number;
}

export interface JournalRecord {
  v: 1;
  status: RunStatus;
  history: Message[];
  run?: RunRecord;
  /** Decisions already used, by the pending state they answered (its signature, or its digest). */
  consumed: string[];
  error?: { code: string; message: string };
}

export const emptyRecord = (): JournalRecord => ({ v: 1, status: "idle", history: [], consumed: [] });

/** How many used decisions a record remembers (the oldest are forgotten first). */
export const MAX_CONSUMED = 1000;

export type RecordSigner = (record: JournalRecord) => Promise<string>;

/** The signer for a journal's `secret` (undefined: `{ unsigned: true }`; anything else is refused, as suspension() refuses it). */
export function recordSigner(secret: unknown, unsigned: unknown, given: boolean): RecordSigner | undefined {
  const key = signingSecret("openJournal()", secret, unsigned, given, "openJournal({ ..., unsigned: true }) for a store nobody else can write");
  if (key === undefined) return undefined;
  const mac = hmacSigner(key);
  return (record) => mac(JSON.stringify(["toolloop-journal-1", record]));
}

/** The stored value: the record and its signature. */
export interface Stored {
  record: JournalRecord;
  signature?: string;
}

/** Checks what the store gave back: the shape this journal writes, signed by its secret. */
export async function readStored(value: unknown, sign: RecordSigner | undefined, key: string): Promise<JournalRecord> {
  if (value === undefined || value === null) return emptyRecord();
  const { record, signature } = (value ?? {}) as Partial<Stored>;
  const r = record as Partial<JournalRecord> | undefined;
  const statuses: RunStatus[] = ["idle", "running", "suspended", "done", "failed", "stopped"];
  if (r?.v !== 1 || !statuses.includes(r.status as RunStatus) || !Array.isArray(r.history) || !Array.isArray(r.consumed)) {
    throw new JournalError(`the store's value under ${JSON.stringify(key)} is not a journal record this version of toolloop wrote`);
  }
  if (sign && (typeof signature !== "string" || !sameSignature(signature, await sign(r as JournalRecord)))) {
    throw new JournalError(`the journal record under ${JSON.stringify(key)} is unsigned, changed, or signed with another secret`);
  }
  return r as JournalRecord;
}
