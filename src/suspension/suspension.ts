// suspension(): the code behind runs that wait for a decision — needsApproval, externalTool(),
// ctx.requestInput and resuming with decisions. A client gets it only through
// createClient({ suspension: suspension({ secret }) }), so an agent that never suspends ships none of it.
//
// The suspended state is the history itself: a tool message whose results wait (pending.ts).
// The gate holds and signs calls as they run (gate.ts); decisions are checked as one batch and
// planned (decisions.ts), and the loop carries the plan out (loop/plan.ts). A new prompt
// instead answers every waiting call "cancelled: no decision".
import { checkOptions, InvalidOptionsError, SuspendedError } from "../base/index.js";
import { type Gate, runPlan } from "../loop/index.js";
import { planDecisions } from "./decisions.js";
import { gateRun } from "./gate.js";
import { cancelPending, checkPending, pendingCalls } from "./pending.js";
import { createSigner, type Signer, signingSecret } from "./sign.js";

/**
 * Signed (`{ secret }`) or, said out loud, unsigned (`{ unsigned: true }`). No default: a secret
 * read from an unset variable must not quietly mean "unsigned" (a payment edited on the way
 * would be approved as it reads then), so anything else is refused.
 */
export type SuspensionOptions =
  | {
      /**
       * Signs pending calls (HMAC-SHA-256, Web Crypto): a string of at least 32 random characters,
       * or an HMAC CryptoKey. A decision for a call that is unsigned, changed, signed with another
       * secret or moved from another conversation is refused.
       */
      secret: string | CryptoKey;
      unsigned?: false | undefined;
    }
  | {
      /**
       * Pending calls are not signed: a decision acts on whatever the history says waits. Only for
       * a history nobody else can change on its way back (it never leaves your server).
       */
      unsigned: true;
      secret?: undefined;
    };

/** The value createClient({ suspension }) takes: the loop's Gate, which this folder implements. */
export interface Suspension {
  readonly gate: Gate;
}

/** Lets a client suspend for approvals, questions and external tools, and resume with decisions. */
export function suspension(options: SuspensionOptions): Suspension {
  const sign = signer(options);
  const gate: Gate = {
    run: (call, opts) => gateRun(call, opts, sign),
    waiting(history, emit) {
      const pending = pendingCalls(history);
      if (!pending.length) return;
      emit({ type: "suspended", pending });
      return pending;
    },
    resume: runPlan,
    pending: pendingCalls,
    plan: (history, decisions, registry, maxToolOutput) => planDecisions(history, decisions, registry, maxToolOutput, sign),
    cancel: cancelPending,
    check: checkPending,
    done(r) {
      if (r.status === "suspended") throw new SuspendedError(r.pending);
      return r;
    },
  };
  return { gate };
}

/** The signer for `options`, or undefined for an explicit { unsigned: true }; any other options throw. */
function signer(options: SuspensionOptions | undefined): Signer | undefined {
  if (options !== undefined && (typeof options !== "object" || options === null)) {
    throw new InvalidOptionsError("suspension() takes { secret } or { unsigned: true }");
  }
  // A misspelt key (`secrte`) is named, rather than read as "no secret".
  checkOptions("suspension()", options, "secret unsigned");
  const { secret, unsigned } = (options ?? {}) as { secret?: unknown; unsigned?: unknown };
  const key = signingSecret(
    "suspension()",
    secret,
    unsigned,
    !!options && "secret" in options,
    "suspension({ unsigned: true }) to accept decisions for calls nobody signed",
  );
  return key === undefined ? undefined : createSigner(key);
}
