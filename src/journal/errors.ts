// The errors of durable runs. Their codes are listed with every other in base/errors.ts
// (CLASS_OF); the classes live here, so only an app with a journal ships them.
import { ToolloopError } from "../base/index.js";

/** A durable run's store could not be read or written, or its record is not one this journal wrote; the run stopped before its next side effect. */
export class JournalError extends ToolloopError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("journal", message, options);
  }
}

/** A durable run was interrupted the same way more times than maxRecoveries; it ended, its history valid. */
export class RecoveryLimitError extends ToolloopError {
  declare readonly recoveries: number;
  constructor(recoveries: number, last?: string) {
    super(
      "recovery_limit",
      `the run was interrupted ${recoveries} times without progress${last ? ` (last: ${last})` : ""}; it ended instead of trying again (maxRecoveries)`,
    );
    this.recoveries = recoveries;
  }
}

/** A prompt or decisions came while the journal holds an interrupted run: continue it first (run() with neither), or abandon it. */
export class RunInterruptedError extends ToolloopError {
  constructor(message: string) {
    super("run_interrupted", message);
  }
}
