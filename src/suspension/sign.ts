// Signatures on pending calls: a suspended run travels as plain JSON (a browser, a queue, a
// database), so whoever holds it could change what a call will do before it is approved.
// With suspension({ secret }), each pending call carries an HMAC-SHA-256 (Web Crypto, so it
// runs the same in browsers, Workers, Deno, Bun and Node) over what the decision acts on and
// the conversation the call was made in.
import { hmacSigner, InvalidOptionsError } from "../base/index.js";
import type { ContentPart, Message, PendingState, ToolCall } from "../conversation/index.js";

/** Signs `call`, made by the assistant message at `history[made]`, waiting in `state`. */
export type Signer = (call: ToolCall, state: PendingState, history: readonly Message[], made: number) => Promise<string>;

/**
 * The shortest string secret taken. A key is only as strong as it is unguessable; 32
 * characters is what `openssl rand -base64 24` gives, and it refuses the placeholders and
 * short passwords (e.g. "secret", "changeme") that would let anyone forge a signature.
 */
export const MIN_SECRET_LENGTH = 32;

/**
 * Why `secret` cannot sign, or undefined when it can: a string of at least MIN_SECRET_LENGTH
 * characters, or an HMAC CryptoKey that may sign. Never repeats the secret itself.
 */
export function secretProblem(secret: unknown): string | undefined {
  if (typeof secret === "string") {
    return secret.length < MIN_SECRET_LENGTH ? `a string of ${secret.length} characters (at least ${MIN_SECRET_LENGTH} are needed)` : undefined;
  }
  // Duck-typed, not instanceof: a CryptoKey from another realm (an iframe, a worker) is one too.
  const key = secret as Partial<CryptoKey> | null;
  if (typeof key === "object" && key !== null && key.algorithm) {
    const { name, length } = key.algorithm as HmacKeyAlgorithm;
    if (name !== "HMAC" || !key.usages?.includes("sign"))
      return `a CryptoKey for ${name}${name === "HMAC" ? ' without the "sign" usage' : ""} (an HMAC key that may sign is needed)`;
    // The same floor as a string's: 32 bytes (generateKey's HMAC keys have 64).
    return length < MIN_SECRET_LENGTH * 8 ? `an HMAC CryptoKey of ${length} bits (at least ${MIN_SECRET_LENGTH * 8} are needed)` : undefined;
  }
  return secret === null
    ? "null"
    : typeof secret === "object"
      ? "an object that is not a CryptoKey"
      : `${typeof secret === "undefined" ? "" : "a "}${typeof secret}`;
}

/**
 * A signer for `secret` (checked with secretProblem first). What is signed:
 * - the call id, the tool name, the arguments and the kind (what a decision acts on);
 * - the question a person answers: the message and the schema of a requested input;
 * - the answers already given and the approval flag (on resume the handler runs with them);
 * - the conversation: every message before the assistant message that made the call, and that
 *   message's text and call ids. A signed call moved into another conversation that shares the
 *   secret no longer matches, nor does one whose earlier turns were changed.
 * The version tag makes signatures of other formats (0.2's, which bound no conversation) fail.
 */
export function createSigner(secret: string | CryptoKey): Signer {
  const mac = hmacSigner(secret);
  return (call, state, history, made) =>
    mac(
      JSON.stringify([
        "toolloop-pending-2",
        transcript(history, made),
        call.id,
        call.name.toLowerCase(),
        call.arguments,
        state.kind,
        state.message ?? null,
        state.schema ?? null,
        state.answers ?? [],
        state.approved === true,
      ]),
    );
}

/**
 * The conversation up to the call, in the fields a saved history keeps (createClient({ history })
 * drops the others), so it reads the same before saving and after loading. Left out:
 * `providerData` (opaque to toolloop, and not what a person approves), and of the assistant
 * message that made the call, its other calls' arguments: an approval with edited input changes
 * them while this call still waits.
 */
function transcript(history: readonly Message[], made: number): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < made; i++) {
    const m = history[i]!;
    if (m.role === "user") out.push(["user", typeof m.content === "string" ? m.content : m.content.map(part)]);
    else if (m.role === "assistant") out.push(["assistant", m.content, (m.toolCalls ?? []).map((c) => [c.id, c.name, c.arguments])]);
    else out.push(["tool", m.results.map((r) => [r.callId, r.name, r.output, r.isError, r.content?.map(part) ?? null])]);
  }
  const a = history[made];
  if (a?.role === "assistant") out.push(["made", a.content, (a.toolCalls ?? []).map((c) => c.id)]);
  return out;
}

/** A content part by its fields, whatever order its keys were written in. */
function part(p: ContentPart): unknown[] {
  if (p.type === "text") return ["text", p.text];
  const q = p as { data?: string; url?: string; mediaType?: string; filename?: string };
  return [p.type, q.data ?? null, q.url ?? null, q.mediaType ?? null, q.filename ?? null];
}

/**
 * The secret `{ secret }` or an explicit `{ unsigned: true }` asks for (undefined: unsigned), as
 * suspension(), openJournal() and mcpPins() take it. There is no default: a secret read from an
 * unset variable must not quietly mean "unsigned", so anything else is refused, saying what to
 * write. `given`: the options have a `secret` key (undefined there is an unset variable).
 */
export function signingSecret(what: string, secret: unknown, unsigned: unknown, given: boolean, optOut: string): string | CryptoKey | undefined {
  if (unsigned === true) {
    if (secret !== undefined) throw new InvalidOptionsError(`${what} got both a secret and unsigned: true: keep the one you mean`);
    return undefined;
  }
  if (unsigned !== undefined && unsigned !== false) throw new InvalidOptionsError(`${what}: unsigned is true or left out, got a ${typeof unsigned}`);
  const problem = secret === undefined && !given ? "no secret" : secretProblem(secret);
  if (problem) {
    throw new InvalidOptionsError(
      `${what.replace("()", "({ secret })")} got ${problem}: set a secret of at least ${MIN_SECRET_LENGTH} random characters (e.g. from an environment variable: is it set where this runs?) or an HMAC CryptoKey, or write ${optOut}`,
    );
  }
  return secret as string | CryptoKey;
}
